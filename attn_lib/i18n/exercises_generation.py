"""The words of notebook 13's checkers (attn_lib.exercises.generation).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_temperature": ("temperature", "温度"),
    "exercises.title_top_k": ("top-k", "top-k 采样"),
    "exercises.title_top_p": ("top-p", "top-p 采样"),
    "exercises.title_cached_generation": ("writing with the KV cache", "用 KV 缓存逐个写出词元"),
    "exercises.case_temp_sharp": ("a temperature below 1", "小于 1 的温度"),
    "exercises.case_temp_flat": ("a temperature above 1", "大于 1 的温度"),
    "exercises.case_temp_rows_apart": (
        "batch rows far apart (logits / T around +1000 and −1000)",
        "相差悬殊的批量行（对数几率除以 T 后约为 +1000 与 −1000）",
    ),
    "exercises.case_topk_plain": ("no ties", "没有并列"),
    "exercises.case_topk_tie": ("three logits tied with the k-th largest", "三个对数几率与第 k 大的并列"),
    "exercises.case_topk_one": ("k = 1", "只留一个（k = 1）"),
    "exercises.case_topk_all": ("k = V, every token", "k = V，所有词元"),
    "exercises.case_topp_cross": ("a token that crosses p", "一个越过 p 的词元"),
    "exercises.case_topp_first": ("the most likely token alone passes p", "最可能的词元单独就超过 p"),
    "exercises.case_topp_wide": ("nine tokens, large logits", "九个词元，对数几率很大"),
    "exercises.case_topp_all": ("p = 1, every token", "p = 1，所有词元"),
    "exercises.case_gen_prompt": ("a prompt of three tokens", "三个词元的提示"),
    "exercises.case_gen_bos": ("the begin marker alone", "只有起始标记"),
    "exercises.case_gen_long": ("a longer generation", "更长的生成"),
    "exercises.temp_no_effect": (
        "This is softmax(logits): the temperature had no effect. Dividing the probabilities by T and renormalising"
        " gives the same distribution back. The temperature divides the logits, before the softmax:"
        " softmax(logits / {t}).",
        "结果就是 `softmax(logits)`：温度没有起作用。把概率除以 T 再归一化，得到的还是原来的分布。"
        "温度要除的是对数几率，而且在 softmax 之前：`softmax(logits / {t})`。",
    ),
    "exercises.temp_on_probabilities": (
        "The temperature was applied to the probabilities: this is softmax(softmax(logits) / {t}). Probabilities all"
        " lie between 0 and 1, so a second softmax makes them nearly uniform. Divide the logits: softmax(logits /"
        " {t}).",
        "温度被用在了概率上：结果是 `softmax(softmax(logits) / {t})`。概率都在 0 和 1 之间，再做一次 softmax 几乎就变成"
        "均匀分布。应该除对数几率：`softmax(logits / {t})`。",
    ),
    "exercises.temp_after_softmax": (
        "The softmax was divided by T after it was taken: this is softmax(logits) / {t}, which sums to {total}, not 1,"
        " and has the same shape as before. Divide the logits first, then take the softmax.",
        "先做了 softmax，再除以 T：结果是 `softmax(logits) / {t}`，加起来等于 {total} 而不是 1，形状也和原来一样。"
        "应该先把对数几率除以 T，再做 softmax。",
    ),
    "exercises.temp_power_not_normalised": (
        "This is p^(1/T) with p = softmax(logits): the right shape, but it no longer sums to 1. Renormalise it, or"
        " take softmax(logits / {t}), which is the same thing.",
        "结果是 p^(1/T)，其中 p = `softmax(logits)`：形状对了，但加起来不再等于 1。要么再归一化一次，要么直接算"
        " `softmax(logits / {t})`，两者相同。",
    ),
    "exercises.temp_inverted": (
        "The logits were multiplied by T: this is softmax(logits × {t}). A temperature T divides them: below 1 it"
        " sharpens the distribution, above 1 it flattens it.",
        "对数几率被乘以了 T：结果是 `softmax(logits × {t})`。温度 T 是拿来除的：小于 1 时分布变尖，大于 1 时变平。",
    ),
    "exercises.filter_not_renormalised": (
        "The right tokens are kept, but their probabilities sum to {total}, not 1: after dropping the others,"
        " renormalise (divide by the sum of what is kept, or take the softmax over the kept logits).",
        "留下的词元对了，但它们的概率加起来是 {total} 而不是 1：去掉其余词元之后还要重新归一化（除以留下部分的和，"
        "或者只对留下的对数几率做 softmax）。",
    ),
    "exercises.filter_logits_returned": (
        "The right tokens are kept, but the result is the filtered logits (-inf for the others), not probabilities:"
        " take the softmax of them.",
        "留下的词元对了，但返回的是过滤后的对数几率（其余词元为 -inf），不是概率：还要对它做 softmax。",
    ),
    "exercises.topk_one_more": (
        "One token too many: the {k} largest logits should be kept, this keeps k + 1. With np.argsort, the k largest"
        " are order[-k:] (or np.argsort(-logits)[:k]).",
        "多留了一个词元：应该留下最大的 {k} 个对数几率，这里留下了 k + 1 个。用 np.argsort 时，最大的 k 个是"
        " order[-k:]（或 `np.argsort(-logits)[:k]`）。",
    ),
    "exercises.topk_one_less": (
        "One token too few: this keeps k − 1 tokens, as if the k-th largest logit itself were dropped (> instead of"
        " >=). Keep every logit >= the k-th largest.",
        "少留了一个词元：这里只留下 k − 1 个，好像把第 k 大的对数几率本身也去掉了（用了 > 而不是 >=）。应保留所有 >="
        " 第 k 大值的对数几率。",
    ),
    "exercises.topk_smallest": (
        "The {k} *least* likely tokens are kept: np.argsort sorts from small to large, so order[:k] are the"
        " smallest. Take order[-k:], or sort -logits.",
        "留下的是最不可能的 {k} 个词元：np.argsort 从小到大排序，所以 order[:k] 是最小的。应取 order[-k:]，或者对"
        " `-logits` 排序。",
    ),
    "exercises.topk_ties_by_position": (
        "Exactly {k} tokens are kept, but {tied} logits are tied at the k-th largest value, {kth}, and only some of"
        " them survive, chosen by their position. The convention here (and Hugging Face's TopKLogitsWarper) keeps every"
        " logit >= the k-th largest, so that the result does not depend on the order of the vocabulary.",
        "恰好留下了 {k} 个词元，但有 {tied} 个对数几率并列在第 k 大的值 {kth} 上，只有一部分按位置被留下。这里的约定"
        "（也是 Hugging Face 的 TopKLogitsWarper）保留所有 >= 第 k 大值的对数几率，这样结果才不取决于词表的顺序。",
    ),
    "exercises.topp_crossing_dropped": (
        "The token that crosses p was dropped: only tokens whose running total stays at or below {p} were kept. The"
        " convention (Hugging Face's TopPLogitsWarper) keeps the smallest set that reaches p, so the token that"
        " crosses it stays: here the kept probabilities should be {kept}. Keep a token while the tokens before it"
        " hold less than p.",
        "越过 p 的那个词元被去掉了：只留下了累计和不超过 {p} 的词元。约定（Hugging Face 的 TopPLogitsWarper）保留"
        "累计概率达到 p 的最小集合，所以越过 p 的那个词元要留下：这里应留下的概率是 {kept}。规则是：排在它前面的词元"
        "加起来还不到 p，就保留它。",
    ),
    "exercises.topp_one_extra": (
        "One token too many: the token after the one that crosses p was kept as well. The kept probabilities should"
        " be {kept}: stop right after the running total reaches {p}.",
        "多留了一个词元：越过 p 的那个词元之后的一个也被留下了。应留下的概率是 {kept}：累计和一达到 {p} 就停。",
    ),
    "exercises.topp_unsorted": (
        "The running total was taken in the order of the vocabulary, not from the most likely token down: sort the"
        " probabilities first (np.argsort(-probs)), then take the cumulative sum. The kept probabilities should be"
        " {kept}.",
        "累计和是按词表顺序算的，而不是从最可能的词元往下：要先排序（np.argsort(-probs)），再求累计和。应留下的概率是"
        " {kept}。",
    ),
    "exercises.topp_least_likely": (
        "The running total was taken from the *least* likely token up: np.argsort sorts from small to large. Sort by"
        " -probs (or reverse the order) so that the nucleus starts with the most likely token; the kept probabilities"
        " should be {kept}.",
        "累计和是从最不可能的词元往上算的：np.argsort 从小到大排序。要按 np.argsort(-probs) 排序（或把顺序反过来），"
        "让核心集合从最可能的词元开始；应留下的概率是 {kept}。",
    ),
    "exercises.gen_step_ids": (
        "step(ids, start): ids must be a list of token ids, e.g. step([token], position); got {got}",
        "step(ids, start) 的第一个参数必须是词元编号的列表，例如 step([token], position)；收到的是 {got}",
    ),
    "exercises.gen_no_prefill": (
        "The prompt was never stored: the first call to step was step({ids}, {start}). Feed the whole prompt first,"
        " step(prompt, 0): its {n} keys and values go into the cache, and its last logits give the first new token.",
        "提示从来没有存进缓存：第一次调用的是 step({ids}, {start})。要先把整个提示送进去，step(prompt, 0)：它的 {n}"
        " 个键和值进入缓存，最后一个位置的对数几率给出第一个新词元。",
    ),
    "exercises.gen_refed": (
        "Call {call} fed the whole sequence again, from position 0: step({ids}, 0). The cache already holds the"
        " first {expected} tokens; feed only the token just written, at position {expected}.",
        "第 {call} 次调用又从位置 0 把整个序列送了一遍：step({ids}, 0)。缓存里已经有前 {expected} 个词元了；"
        "只需送入刚写出的那个词元，位置是 {expected}。",
    ),
    "exercises.gen_wrong_token": (
        "Call {call} fed {ids}, but the next tokens of the sequence are {right}: feed the token you just appended.",
        "第 {call} 次调用送入的是 {ids}，但序列接下来的词元是 {right}：应该送入刚刚追加的那个词元。",
    ),
    "exercises.gen_position_stuck": (
        "The position is not advanced: call {call} fed its token at position {start} again, but {expected} tokens are"
        " already stored, so it stands at position {expected}. The position embedding is how the model knows where a"
        " token is: add 1 after every step (the new token's position is len(ids) − 1).",
        "位置没有往前走：第 {call} 次调用又把词元放在了位置 {start}，可缓存里已经有 {expected} 个词元，所以它应该在位置"
        " {expected}。模型靠位置编码才知道词元在哪里：每走一步加 1（新词元的位置是 len(ids) − 1）。",
    ),
    "exercises.gen_position_ahead": (
        "Call {call} fed its token at position {start}, one too far: {expected} tokens are stored, at positions 0 .."
        " {expected} − 1, so the new one is at {expected} (len(ids) − 1 once it is appended, not len(ids)).",
        "第 {call} 次调用把词元放在了位置 {start}，多走了一步：缓存里已有 {expected} 个词元，占据位置 0 到"
        " {expected} − 1，所以新词元在位置 {expected}（追加之后是 len(ids) − 1，不是 len(ids)）。",
    ),
    "exercises.gen_position_wrong": (
        "Call {call} fed its token at position {start}, but {expected} tokens are stored: the new one stands at"
        " position {expected}.",
        "第 {call} 次调用把词元放在了位置 {start}，但缓存里已有 {expected} 个词元：新词元应该在位置 {expected}。",
    ),
    "exercises.gen_step_not_called": (
        "step was never called: every new token must come from the logits that step returns.",
        "一次也没有调用 step(ids, start)：每个新词元都必须来自它返回的对数几率。",
    ),
    "exercises.gen_prompt_missing": (
        "Only the new tokens were returned: return the whole sequence, the {n} prompt tokens first.",
        "只返回了新词元：应该返回整个序列，前面是提示的 {n} 个词元。",
    ),
    "exercises.gen_wrong_length": (
        "{got} tokens returned, but the prompt and {n_new} new tokens make {expected}: check how many times the loop"
        " runs.",
        "返回了 {got} 个词元，可提示加上 {n_new} 个新词元应该是 {expected} 个：检查循环跑了几次。",
    ),
}
