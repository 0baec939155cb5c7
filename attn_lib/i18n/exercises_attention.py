"""The words of notebooks 04 and 05's checkers (attn_lib.exercises.attention).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_softmax": ("softmax", "softmax"),
    "exercises.title_scaled_scores": ("scaled scores", "缩放后的分数"),
    "exercises.title_causal_mask": ("causal mask", "因果掩码"),
    "exercises.title_attention": ("scaled dot-product attention", "缩放点积注意力"),
    "exercises.case_offsets": ("rows far apart (around +1000 and −1000)", "相差悬殊的行（约 +1000 与 −1000）"),
    "exercises.case_neg_inf": ("−inf entries (masked positions)", "含 −inf 的输入（被掩码的位置）"),
    "exercises.case_n": ("mask size", "掩码大小"),
    "exercises.softmax_keepdims": (
        "A shape error ({error}). The row max and the row sum need keepdims=True, so that their shape [..., 1] lines"
        " up with x.",
        "形状错误（{error}）。行最大值和行和需要 keepdims=True，这样形状 [..., 1] 才能和 x 对齐。",
    ),
    "exercises.scale_factor": (
        "Your scores are Q Kᵀ times {factor}; that factor should be 1/√d_k = {expected}.",
        "你的分数等于 Q Kᵀ 乘以 {factor}；这个系数应为 1/√d_k = {expected}。",
    ),
    "exercises.scores_transposed": (
        "Your result is K Qᵀ, of shape [n_k, n_q], but the rows must be the queries. Compute Q Kᵀ, of shape [n_q,"
        " n_k].",
        "你算的是 K Qᵀ，形状为 [n_k, n_q]，但行必须对应查询。请计算 Q Kᵀ，形状为 [n_q, n_k]。",
    ),
    "exercises.mask_additive_inverted": (
        "This is the additive form (0 and −inf), and it is inverted: −inf sits on and below the diagonal, which hides"
        " the past and shows the future. This exercise asks for the boolean mask, True = may attend:"
        " np.tril(np.ones((n, n), dtype=bool)).",
        "这是加性形式（0 与 −inf），而且方向反了：−inf 落在对角线及其下方，把过去掩码掉了，却放出了未来。"
        "本练习要的是布尔掩码，True 表示可以关注：np.tril(np.ones((n, n), dtype=bool))。",
    ),
    "exercises.title_attention_formula": ("the attention formula", "注意力公式"),
}
