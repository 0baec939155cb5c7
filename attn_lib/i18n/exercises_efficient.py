"""The words of notebook 11's checker (attn_lib.exercises.efficient).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_online_update": ("the online-softmax update", "在线 softmax 的一步更新"),
    "exercises.case_online_larger": ("a block with a larger maximum", "最大值更大的一块"),
    "exercises.case_online_smaller": ("a block with a smaller maximum", "最大值更小的一块"),
    "exercises.case_online_first": ("the first block (m = −inf, ℓ = 0, o = 0)", "第一块（m = −inf，ℓ = 0，o = 0）"),
    "exercises.case_online_mixed": (
        "rows whose maximum grows and rows whose maximum stays",
        "部分行的最大值变大",
    ),
    "exercises.online_not_triple": (
        "Return the three running quantities as a tuple (m_new, ell_new, o_new); got {got}.",
        "要把三个滚动量作为元组 (m_new, ell_new, o_new) 返回；得到的是 {got}。",
    ),
    "exercises.online_part_shape": (
        "{name}_new has shape {got}, expected {expected}: m and ℓ hold one number per query row, o one row of d_v"
        " numbers per query row.",
        "{name}_new 的形状是 {got}，应为 {expected}：m 和 ℓ 每个查询行一个数，o 每个查询行一行 d_v 个数。",
    ),
    "exercises.online_part_wrong": (
        "{name}_new is wrong at {index}: expected {expected}, got {got}.",
        "{name}_new 在 {index} 处不对：应为 {expected}，得到 {got}。",
    ),
    "exercises.online_no_rescale": (
        "The old ℓ and o were not rescaled. They were summed against the old maximum m; when a block brings a larger"
        " maximum, multiply both by alpha = exp(m − m_new) before adding the block's terms.",
        "旧的 ℓ 和 o 没有重新缩放。它们是相对旧的最大值 m 累加的；新的一块带来更大的最大值时，要先把两者都乘以 α ="
        " exp(m − m_new)，再加上这一块的项。",
    ),
    "exercises.online_alpha_inverted": (
        "alpha is the wrong way round: exp(m_new − m) is at least 1 and makes the old sums grow. They must shrink:"
        " alpha = exp(m − m_new), at most 1.",
        "α 反了：exp(m_new − m) 不小于 1，会让旧的和变大。它们应当缩小：α = exp(m − m_new)，不超过 1。",
    ),
    "exercises.online_half_rescaled": (
        "{done} was rescaled by alpha but {missed} was not: both were summed against the old maximum, so both get"
        " the same factor alpha = exp(m − m_new).",
        "{done} 乘了 α，{missed} 却没有：两者都是相对旧的最大值累加的，所以要乘同一个系数 α = exp(m − m_new)。",
    ),
    "exercises.online_block_max": (
        "The block's terms were taken against the block's own maximum, exp(s − max(s)), while the old sums are"
        " rescaled to m_new. Every term must use the same reference: exp(s − m_new).",
        "这一块的项是相对它自己的最大值算的，exp(s − max(s))，而旧的和已经换算到 m_new。所有的项必须用同一个基准："
        "exp(s − m_new)。",
    ),
    "exercises.online_max_forgotten": (
        "m_new is the block's maximum alone: the running maximum is forgotten when the block's scores are smaller."
        " m_new = max(m, max of the block), np.maximum(m, s.max(axis=-1)).",
        "m_new 只取了这一块的最大值：这一块的分数更小时，滚动最大值就丢了。m_new = max(m, 这一块的最大值)，即"
        " np.maximum(m, s.max(axis=-1))。",
    ),
    "exercises.online_normalised": (
        "o_new was divided by ℓ_new: o stays an unnormalised sum until the last block, otherwise the next update"
        " adds a weighted average to raw sums. Divide once, at the very end: output = o / ℓ.",
        "o_new 被除以了 ℓ_new：在最后一块之前，o 应当一直是没有归一化的和，否则下一次更新就会把一个加权平均和原始的和"
        "加在一起。只在最后除一次：输出 = o / ℓ。",
    ),
}
