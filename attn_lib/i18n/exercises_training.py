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
    "exercises.title_ablation_accuracy": ("the ablation accuracy", "消融后的准确率"),
    "exercises.case_ablate_today": ("today's city hidden, test sentences", "测试句子，藏起今天的城市"),
    "exercises.case_ablate_random": (
        "a random position hidden in each of 60 test sentences",
        "60 个测试句子，每句随机藏起一个位置",
    ),
    "exercises.case_ablate_yesterday": ("yesterday's city hidden, validation sentences", "验证句子，藏起昨天的城市"),
    "exercises.case_ablate_article": ("上海 hidden in the article's sentence", "文章的句子，藏起“上海”"),
    "exercises.expect_fraction": (
        "a number between 0 and 1 (the share of sentences answered right)",
        "0 到 1 之间的一个数（答对的句子所占的比例）",
    ),
    "exercises.ablate_blank_only": (
        "Your accuracy, {got}, is what hiding the token from the blank's query only gives (section 7's “from blank"
        " only”): every other token still reads it and can pass it on to the blank. The ablation hides the column in"
        " every row, which gives {expected}.",
        "你算出的准确率是 {got}，这是只对空白处的查询藏起这个词元的结果（“一个种子只是个案：十个种子”一节里的"
        "“只对空白处掩码”）：其他词元仍能读到它，再把它传给空白处。消融要在每一行都关掉这一列，结果应为 {expected}。",
    ),
    "exercises.ablate_row": (
        "Your accuracy, {got}, is what switching off the token's row gives: the token can no longer read, but every"
        " later token still reads it. A row is a query, a column a key: hide the column (the answer is {expected}).",
        "你算出的准确率是 {got}，这是关掉这个词元那一行的结果：它自己什么都读不到了，后面的词元却照样能读它。行是"
        "查询，列是键：要关掉的是列（结果应为 {expected}）。",
    ),
    "exercises.ablate_not_causal": (
        "Your accuracy, {got}, is what hiding the column without the causal mask gives: every token also sees the"
        " tokens after it, which the model never did in training. Start from causal_mask(n) (the answer is"
        " {expected}).",
        "你算出的准确率是 {got}，这是关掉这一列、却没有因果掩码的结果：每个词元还看得到它后面的词元，而模型在训练时"
        "从没这样过。请从 causal_mask(n) 出发（结果应为 {expected}）。",
    ),
    "exercises.ablate_nothing": (
        "Your accuracy, {got}, is the model's accuracy with nothing hidden: did the mask reach the model? Pass it as"
        " accuracy(params, config, split, mask=...) (the answer is {expected}).",
        "你算出的准确率是 {got}，这是什么都没藏时模型的准确率：掩码真的交给模型了吗？请用 accuracy(params, config,"
        " split, mask=...) 把它传进去（结果应为 {expected}）。",
    ),
    "exercises.ablate_one_position": (
        "Your accuracy, {got}, is what hiding position {first} in every sentence gives: the first sentence's"
        " position, hidden[0], used for the whole batch. Sentence b hides its own position, hidden[b] (the answer"
        " is {expected}).",
        "你算出的准确率是 {got}，这是在每个句子里都藏起第 {first} 个位置的结果：整批句子都用了第一句的位置"
        " hidden[0]。第 b 句要藏的是它自己的位置 hidden[b]（结果应为 {expected}）。",
    ),
    "exercises.ablate_off_by_one": (
        "Your accuracy, {got}, is what hiding the position next to each token gives, not the token itself:"
        " positions count from 0, like the indices of split.tokens (the answer is {expected}).",
        "你算出的准确率是 {got}，这是藏起每个词元旁边那个位置的结果，而不是词元本身：位置和词元的下标一样，从 0"
        " 开始数（结果应为 {expected}）。",
    ),
    "exercises.ablate_error_rate": (
        "{got} is the share of sentences answered wrong; the accuracy is the share answered right, {expected}.",
        "{got} 是答错的句子所占的比例；准确率是答对的比例，应为 {expected}。",
    ),
    "exercises.ablate_count": (
        "{got} is the number of sentences answered right; the accuracy is that number divided by the {n} sentences:"
        " {expected}.",
        "{got} 是答对的句子数；准确率是这个数除以句子总数 {n}，应为 {expected}。",
    ),
    "exercises.ablate_head_axis": (
        "The model raised {error}. A mask [B, n, n] meets scores [B, h, n, n]: give it a head axis, [B, 1, n, n]"
        " (mask[:, None]), so that one mask serves every head.",
        "模型报错：{error}。形状为 [B, n, n] 的掩码遇上了 [B, h, n, n] 的分数：给它加一个头的轴，变成 [B, 1, n, n]"
        "（mask[:, None]），一个掩码就能用于每个头。",
    ),
    "exercises.ablate_wrong": (
        "Your accuracy is {got}; hiding position hidden[b] of each sentence b from every query, in both layers,"
        " gives {expected}.",
        "你算出的准确率是 {got}；在每个句子 b 里对两层的所有查询都藏起位置 hidden[b]，结果应为 {expected}。",
    ),
}
