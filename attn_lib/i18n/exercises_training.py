"""The words of notebook 08's checker (attn_lib.exercises.training).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_hide_mask": ("the ablation mask", "消融用的掩码"),
    "exercises.case_hide_middle": ("a token in the middle", "中间的一个词元"),
    "exercises.case_hide_first": ("the first token", "第一个词元"),
    "exercises.case_hide_last": ("the last token (the blank)", "最后一个词元（空白处）"),
    "exercises.case_hide_article": ("上海 in the article's sentence (11 tokens)", "文章句子里的“上海”（11 个词元）"),
    "exercises.hide_row": (
        "Row {hidden} is switched off instead of column {hidden}: token {hidden} can no longer read anything, but"
        " every later token can still read it. A row is a query, a column a key: hide the key, mask[:, {hidden}] ="
        " False.",
        "关掉的是第 {hidden} 行，而不是第 {hidden} 列：词元 {hidden} 什么都读不到了，后面的词元却照样能读它。行是"
        "查询，列是键：要藏起来的是键，mask[:, {hidden}] = False。",
    ),
    "exercises.hide_blank_only": (
        "Only the blank's query (row {n} − 1) loses column {hidden}: that is section 7's “from blank only”, where"
        " every other token may still read token {hidden} and pass it on. The ablation switches the column off in"
        " every row.",
        "只有空白处的查询（第 {n} − 1 行）看不到第 {hidden} 列：这是第 8 课“一个种子只是个案：十个种子”一节里的"
        "“只对空白处掩码”，其他词元仍能读到词元 {hidden}，再把它传下去。消融要在每一行都关掉这一列。",
    ),
    "exercises.hide_not_causal": (
        "Column {hidden} is off, but the causal mask is missing: every query now sees the future. Start from"
        " causal_mask(n) and switch the column off in it.",
        "第 {hidden} 列关掉了，但因果掩码没有了：每个查询都能看到未来。先取 causal_mask(n)，再在它上面关掉这一列。",
    ),
    "exercises.hide_self_kept": (
        "Token {hidden} still reads itself: the diagonal entry [{hidden}, {hidden}] is True. The ablation of the"
        " notebook (attention_mask) hides the whole column, the token's own query included: switch that entry off"
        " too.",
        "词元 {hidden} 仍然读得到它自己：对角线上的 [{hidden}, {hidden}] 是 True。第 8 课的消融（attention_mask）"
        "把整列都藏起来，包括这个词元自己的查询：这一格也要关掉。",
    ),
    "exercises.hide_missing": (
        "This is the causal mask with nothing hidden: every query that may read token {hidden} still does. Switch"
        " its column off: mask[:, {hidden}] = False.",
        "这就是因果掩码，什么都没藏：能读到词元 {hidden} 的查询照样能读到。要把它那一列关掉：mask[:, {hidden}] ="
        " False。",
    ),
    "exercises.hide_off_by_one": (
        "The column next to token {hidden} is switched off, not column {hidden} itself: positions count from 0, as"
        " the indices of the tokens do.",
        "关掉的是词元 {hidden} 旁边的那一列，而不是第 {hidden} 列本身：位置和词元的下标一样，从 0 开始数。",
    ),
    "exercises.hide_inverted": (
        "True and False are swapped: True means “may attend” (notebook 05's convention). Only the causal entries"
        " outside the hidden token's column are True.",
        "True 和 False 反了：True 表示“可以关注”（第 5 课的约定）。只有因果范围内、被藏起来的那一列以外的格子是 True。",
    ),
}
