"""The words of notebook 06's checkers (attn_lib.exercises.multihead).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_split_heads": ("split heads", "拆分多头"),
    "exercises.title_multi_head": ("multi-head attention", "多头注意力"),
    "exercises.title_parameter_count": ("parameter count", "参数量"),
    "exercises.case_one_head": ("one head", "只有一个头"),
    "exercises.case_dk_one": ("d_k = 1", "d_k = 1"),
    "exercises.case_article": ("the article's sizes", "文章中的尺寸"),
    "exercises.case_other_sizes": ("other sizes", "其他尺寸"),
    "exercises.scale_d_model": (
        "Each head was scaled by √d_model = {sqrt_d_model} instead of √d_k = {sqrt_dk}: a head's scores are dot"
        " products of d_k = d_model / h = {d_k} numbers, so use the head's own d_k.",
        "每个头都按 √d_model = {sqrt_d_model} 缩放了，应该按 √d_k = {sqrt_dk}：一个头的分数是 d_k = d_model / h ="
        " {d_k} 个数的点积，所以要用这个头自己的 d_k。",
    ),
    "exercises.split_axes": (
        "The axes are in the wrong order: your result is {got}, expected {expected}. Reshape to [..., n, h, d_k],"
        " then swap only the n and h axes: np.swapaxes(x, -2, -3).",
        "轴的顺序不对：你的结果是 {got}，应为 {expected}。先 reshape 成 [..., n, h, d_k]，再只交换 n 和 h 两个轴："
        "np.swapaxes(x, -2, -3)。",
    ),
    "exercises.split_reshape_only": (
        "The shape is right, but the tokens are mixed up across heads: one reshape straight to [..., h, n, d_k] cuts"
        " the numbers in the wrong order. Reshape to [..., n, h, d_k] first, then swap the n and h axes.",
        "形状对了，但词元在各个头之间被打乱了：直接 reshape 成 [..., h, n, d_k] 会按错误的顺序切分数据。先 reshape 成"
        " [..., n, h, d_k]，再交换 n 和 h 两个轴。",
    ),
    "exercises.split_interleaved": (
        "Head 0 got features 0, {h}, {h2}, ... (every h-th one); it should get the block 0..{last}, i.e. columns"
        " i*d_k:(i+1)*d_k. Reshape to [..., n, h, d_k], not [..., n, d_k, h].",
        "第 0 个头拿到的是特征 0、{h}、{h2}……（每隔 h 个取一个）；它应拿到连续的一段 0..{last}，即第 i*d_k:(i+1)*d_k"
        " 列。请 reshape 成 [..., n, h, d_k]，而不是 [..., n, d_k, h]。",
    ),
    "exercises.split_float_dk": (
        "d_k is a float ({error}): d_model / n_heads gives a float, which reshape refuses. Use integer division:"
        " d_model // n_heads.",
        "d_k 是浮点数（{error}）：d_model / n_heads 得到的是浮点数，reshape 不接受。请用整数除法：d_model // n_heads。",
    ),
    "exercises.mha_no_w_o": (
        "The weights are right, but the output misses the last step: multiply the concatenated heads by W_O"
        " (merge_heads(heads) @ w_o).",
        "权重正确，但输出少了最后一步：把拼接后的各头结果乘以 W_O（merge_heads(heads) @ w_o）。",
    ),
    "exercises.mha_split": (
        "The heads see the wrong features: head i must use columns i*d_k:(i+1)*d_k of x @ w_q (and of x @ w_k, x @"
        " w_v). Test your head splitting with check_split_heads.",
        "各个头拿到的特征不对：第 i 个头应使用 x @ w_q（以及 x @ w_k、x @ w_v）的第 i*d_k:(i+1)*d_k 列。可以用"
        " check_split_heads 检查你的拆分。",
    ),
    "exercises.mha_transposed": (
        "The weight matrices were transposed: in this course they are used as x @ w_q (and heads @ w_o), not x @"
        " w_q.T.",
        "权重矩阵被转置了：本课程中它们按 x @ w_q（以及 heads @ w_o）使用，而不是 x @ w_q.T。",
    ),
    "exercises.count_bias": (
        "You counted biases too: {got} = 4·d_model² + {bias}·d_model. This exercise counts the weight matrices only"
        " (no biases): 4·d_model² = {expected}.",
        "你把偏置也算进去了：{got} = 4·d_model² + {bias}·d_model。本练习只数权重矩阵（不含偏置）：4·d_model² ="
        " {expected}。",
    ),
    "exercises.count_no_w_o": (
        "W_O is missing: {got} = 3·d_model² counts W_Q, W_K and W_V only. Add the output projection, d_model ×"
        " d_model.",
        "漏了 W_O：{got} = 3·d_model² 只数了 W_Q、W_K 和 W_V。再加上输出投影 d_model × d_model。",
    ),
    "exercises.count_d_model_per_head": (
        "You gave every head full d_model × d_model matrices ({got}). Each W_i^Q, W_i^K, W_i^V is d_model × d_k, with"
        " d_k = d_model / h = {d_k}.",
        "你给每个头都用了完整的 d_model × d_model 矩阵（{got}）。每个 W_i^Q、W_i^K、W_i^V 都是 d_model × d_k，其中"
        " d_k = d_model / h = {d_k}。",
    ),
    "exercises.count_one_head": (
        "{got} = 3·d_model·d_k + d_model²: you counted the Q, K, V matrices of one head only (or made each d_k ×"
        " d_k). There are h = {h} heads, each with three d_model × d_k matrices.",
        "{got} = 3·d_model·d_k + d_model²：你只数了一个头的 Q、K、V 矩阵（或者把它们当成了 d_k × d_k）。一共有 h ="
        " {h} 个头，每个头有三个 d_model × d_k 的矩阵。",
    ),
    "exercises.count_float": (
        "The number is right but it is a float ({got}): use integer division, d_k = d_model // n_heads, so that the"
        " count stays an int.",
        "数值对了，但它是浮点数（{got}）：用整数除法 d_k = d_model // n_heads，结果才会是 int。",
    ),
    "exercises.count_wrong": (
        "For d_model = {d_model} and h = {h} the count is {expected}, you got {got}. Count the matrices: h heads ×"
        " (W_i^Q, W_i^K, W_i^V, each d_model × d_k) + W_O (d_model × d_model).",
        "d_model = {d_model}、h = {h} 时参数量是 {expected}，你得到的是 {got}。数一数这些矩阵：h 个头 ×（W_i^Q、"
        "W_i^K、W_i^V，各为 d_model × d_k）+ W_O（d_model × d_model）。",
    ),
}
