"""The words of notebook 01's checkers (attn_lib.exercises.counting).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_next_token_probabilities": ("next-token probabilities", "下一个词元的概率"),
    "exercises.title_window_counts": ("counting after the last k tokens", "数一数最后 k 个词元之后出现了什么"),
    "exercises.case_weather": ("the counts after 今天 天气", "“今天天气”之后的计数"),
    "exercises.case_dishes": ("the counts after 吃了", "“吃了”之后的计数"),
    "exercises.case_one_token": ("a single next token", "只有一个候选词元"),
    "exercises.case_last_k": ("a window of k tokens", "k 个词元的窗口"),
    "exercises.case_small_corpus": (
        "a small corpus with the window twice in a sentence and at a sentence's end",
        "窗口在一句里出现两次并且出现在句末的小语料",
    ),
    "exercises.case_never_seen": ("a window the corpus never contains", "语料里从未出现过的窗口"),
    "exercises.expect_dict": ("a dict {{token: number}}", "一个字典 {{词元: 数}}"),
    "exercises.expect_number": ("a number", "一个数"),
    "exercises.counts_missing": (
        "Tokens are missing from the result: {tokens}. It needs one entry for every token that should be there.",
        "结果里少了这些词元：{tokens}。应该出现的每个词元都要各占一项。",
    ),
    "exercises.counts_extra": (
        "The result has tokens that should not be there: {tokens}.",
        "结果里多出了不该有的词元：{tokens}。",
    ),
    "exercises.prob_not_normalised": (
        "These are the counts themselves: divide each one by the total, {total}, so that the probabilities add up to"
        " 1.",
        "这些就是计数本身：每个都要除以总数 {total}，概率加起来才等于 1。",
    ),
    "exercises.prob_integer_division": (
        "Every probability came out as a whole number: // is integer division. Divide with /: count / {total}.",
        "每个概率都成了整数：// 是整数除法。请用 / 做除法：计数 / {total}。",
    ),
    "exercises.prob_by_kinds": (
        "You divided by the number of different tokens ({kinds}); divide by the total of the counts, {total}. A token"
        " seen 5 times out of 10 has probability 0.5.",
        "你除以的是不同词元的个数（{kinds}）；应当除以计数的总和 {total}。10 次里出现 5 次的词元，概率是 0.5。",
    ),
    "exercises.prob_by_max": (
        "You divided by the largest count ({largest}), so the most frequent token gets 1 and the probabilities add up"
        " to more than 1. Divide by the total, {total}.",
        "你除以的是最大的计数（{largest}），于是出现最多的词元得到 1，概率加起来超过了 1。请除以总数 {total}。",
    ),
    "exercises.prob_uniform": (
        "Every token got the same probability, 1/{kinds}: the counts were not used. P(w) = count(w) / {total}.",
        "每个词元的概率都一样，都是 1/{kinds}：计数根本没用上。P(w) = count(w) / {total}。",
    ),
    "exercises.prob_percent": (
        "These are percentages. A probability lies between 0 and 1, and they add up to 1, not 100: drop the factor"
        " 100.",
        "这些是百分数。概率在 0 和 1 之间，加起来等于 1 而不是 100：去掉乘的 100。",
    ),
    "exercises.counts_probabilities": (
        "These are probabilities (they add up to 1). This exercise asks for the counts themselves: for every token"
        " that follows the window, add the count of its sentence.",
        "这些是概率（加起来等于 1）。这个练习要的是计数本身：窗口后面每出现一个词元，就加上它所在句子的计数。",
    ),
    "exercises.window_from_start": (
        "You took the first k = {k} tokens of the context. The model conditions on the last ones, right before the"
        " blank: context[-k:].",
        "你取的是上下文的前 k = {k} 个词元。模型依据的是最后几个，也就是紧挨在空白处前面的词元：context[-k:]。",
    ),
    "exercises.window_width": (
        "Your window has {width} tokens; it should have k = {k}, the last k tokens of the context:"
        " context[len(context) - k:].",
        "你的窗口有 {width} 个词元，应当是 k = {k} 个，即上下文的最后 k 个词元：context[len(context) - k:]。",
    ),
    "exercises.counts_unweighted": (
        "Each sentence was counted once. A sentence whose count is 4 occurs 4 times: add its count, not 1.",
        "每个句子只算了一次。计数为 4 的句子出现了 4 次：要加上它的计数，而不是 1。",
    ),
    "exercises.counts_first_only": (
        "Only the first place where the window occurs in a sentence was counted. Count every occurrence: do not stop"
        " the loop at the first match.",
        "每个句子里只算了窗口第一次出现的地方。每次出现都要算：找到第一个匹配后不要停下循环。",
    ),
    "exercises.counts_across_sentences": (
        "Your windows run across the end of one sentence into the next: the corpus was joined into one long text."
        " Look for the window inside each sentence on its own; nothing follows a sentence's last token.",
        "你的窗口从一个句子的末尾跨进了下一个句子：语料被连成了一整段文字。请在每个句子内部单独找窗口；"
        "句子的最后一个词元后面什么也没有。",
    ),
    "exercises.counts_window_token": (
        "You counted the window's own last token ({token}) instead of the token after the window: when the window is"
        " tokens[i : i + k], the next token is tokens[i + k].",
        "你数的是窗口自己的最后一个词元（{token}），而不是窗口后面的那个词元：窗口是 `tokens[i : i + k]` 时，"
        "下一个词元是 `tokens[i + k]`。",
    ),
}
