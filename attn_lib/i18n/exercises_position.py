"""The words of notebook 07's checkers (attn_lib.exercises.position).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_sinusoidal_encoding": ("sinusoidal position encoding", "正弦位置编码"),
    "exercises.title_rope": ("attention with RoPE", "带旋转位置编码的注意力"),
    "exercises.title_layer_norm": ("layer norm", "层归一化"),
    "exercises.case_pe_few": ("a few positions", "少量位置"),
    "exercises.case_pe_long": ("50 positions (the slow frequencies show)", "50 个位置（低频部分会显现出来）"),
    "exercises.case_pe_single": ("a single position", "只有一个位置"),
    "exercises.case_pe_d2": ("d_model = 2 (one frequency)", "d_model = 2（只有一个频率）"),
    "exercises.case_rope_long": ("a long sequence (40 tokens)", "较长的序列（40 个词元）"),
    "exercises.case_rope_d2": ("d_k = 2 (one pair)", "d_k = 2（只有一对特征）"),
    "exercises.case_ln_constant": ("a token whose features are all equal", "各个特征值全都相等的词元"),
    "exercises.pe_transposed": (
        "The table is transposed: shape {got}, expected {expected}. One row per position, one column per feature: [n,"
        " d_model].",
        "表格被转置了：形状是 {got}，应为 {expected}。每个位置占一行，每个特征占一列：[n, d_model]。",
    ),
    "exercises.pe_swapped": (
        "sin and cos are swapped: the paper puts sin in the even columns (2i) and cos in the odd ones (2i+1), so row"
        " 0 reads 0, 1, 0, 1, ...",
        "正弦和余弦放反了：论文把正弦放在偶数列（2i），余弦放在奇数列（2i+1），所以第 0 行应是 0, 1, 0, 1, ……",
    ),
    "exercises.pe_halves": (
        "The values are right but in the wrong columns: all the sines sit in one half and all the cosines in the"
        " other (a layout some libraries use). This exercise follows the paper: sin in column 2i, cos in column 2i+1,"
        " side by side: pe[:, 0::2] = np.sin(...), pe[:, 1::2] = np.cos(...).",
        "数值没错，但放错了列：所有正弦挤在一半，所有余弦挤在另一半（有些库是这样排的）。这个练习按论文来：第 2i"
        " 列放正弦，第 2i+1 列放余弦，两两相邻：`pe[:, 0::2] = np.sin(...)`，`pe[:, 1::2] = np.cos(...)`。",
    ),
    "exercises.pe_exponent_column": (
        "The exponent uses the column index j, so the cosine in column 2i+1 gets a slightly different frequency from"
        " the sine in column 2i. The two columns of a pair share one frequency, 1 / 10000^(2i/d_model), with i the"
        " pair's index (i = j // 2).",
        "指数里用的是列号 j，于是第 2i+1 列的余弦和第 2i 列的正弦频率略有不同。同一对的两列共用一个频率 1 /"
        " 10000^(2i/d_model)，其中 i 是这一对的序号（i = j // 2）。",
    ),
    "exercises.pe_exponent_pair": (
        "The frequencies fall too slowly: you divided by 10000^(i/d_model) with i the pair's index, which is the same"
        " as base 100. The exponent is 2i/d_model.",
        "频率下降得太慢：你除以的是 10000^(i/d_model)，i 是这一对的序号，这相当于把底数换成了 100。指数应当是"
        " 2i/d_model。",
    ),
    "exercises.pe_integer_division": (
        "Every pair got the same frequency (1 radian per position): 2 * i // d_model is integer division and gives 0."
        " Use true division: 2 * i / d_model.",
        "每一对都得到了同一个频率（每个位置 1 弧度）：`2 * i // d_model` 是整数除法，结果是 0。请用普通除法：`2 * i /"
        " d_model`。",
    ),
    "exercises.pe_times": (
        "You multiplied the position by 10000^(2i/d_model); divide by it. The angle is pos / 10000^(2i/d_model): no"
        " frequency is above 1 radian per position.",
        "你把位置乘以了 10000^(2i/d_model)，应当除以它。角度是 `pos / 10000**(2*i/d_model)`：任何频率都不超过每个位置"
        " 1 弧度。",
    ),
    "exercises.pe_from_one": (
        "Your positions start at 1. Row 0 is position 0, so it reads sin 0 = 0 and cos 0 = 1: use np.arange(n).",
        "你的位置是从 1 开始数的。第 0 行是位置 0，所以应当是 `sin(0) = 0` 和 `cos(0) = 1`：请用 `np.arange(n)`。",
    ),
    "exercises.pe_sin_only": (
        "Every column holds a sine: the odd columns (2i+1) hold the cosine of the same angle.",
        "每一列都是正弦：奇数列（2i+1）应当放同一个角度的余弦。",
    ),
    "exercises.pe_base": (
        "Your frequencies use the base {base}, not 10000: the angle of pair i is pos / 10000^(2i/d_model).",
        "你的频率用的底数是 {base}，不是 10000：第 i 对的角度是 `pos / 10000**(2*i/d_model)`。",
    ),
    "exercises.rope_not_applied": (
        "These are the weights of attention without RoPE: q and k were not rotated. Before the scores, turn each pair"
        " (2i, 2i+1) of q and of k at position m by the angle m·θ_i.",
        "这些正是不加旋转位置编码时的注意力权重：q 和 k 都没有旋转。计算分数之前，要把位置 m 上 q 和 k 的每一对特征"
        " (2i, 2i+1) 转过 m·θ_i 的角度。",
    ),
    "exercises.rope_only_q": (
        "Only q was rotated. Rotate k too: q_m · k_n depends only on m − n when both are turned by their own position.",
        "只旋转了 q。k 也要旋转：只有两者都按各自的位置转过，q_m · k_n 才只取决于 m − n。",
    ),
    "exercises.rope_only_k": (
        "Only k was rotated. Rotate q too: q_m · k_n depends only on m − n when both are turned by their own position.",
        "只旋转了 k。q 也要旋转：只有两者都按各自的位置转过，q_m · k_n 才只取决于 m − n。",
    ),
    "exercises.rope_half_pairs": (
        "You paired feature i with feature i + d/2 (the layout of GPT-NeoX and of Hugging Face's LLaMA code, the"
        " `rotate_half` trick). A model trained that way works just as well, but this exercise follows the paper:"
        " pairs (2i, 2i+1), that is x[..., 0::2] and x[..., 1::2].",
        "你把第 i 个特征和第 i + d/2 个特征配成了一对（GPT-NeoX 和 Hugging Face 版 LLaMA 的代码就是这样排的，即"
        " `rotate_half` 写法）。按这种方式训练的模型同样好用，但这个练习按论文来：配对是 (2i, 2i+1)，也就是 `x[...,"
        " 0::2]` 和 `x[..., 1::2]`。",
    ),
    "exercises.rope_direction": (
        "The rotation turns the wrong way: the pair (a, b) becomes (a·cos − b·sin, a·sin + b·cos).",
        "转的方向反了：一对 (a, b) 应当变成 `(a*cos - b*sin, a*sin + b*cos)`。",
    ),
    "exercises.rope_exponent_pair": (
        "The frequencies fall too slowly: θ_i = 10000^(−i/d) with i the pair's index is base 100; the exponent is"
        " −2i/d.",
        "频率下降得太慢：θ_i = 10000^(−i/d)（i 是这一对的序号）相当于底数 100；指数应当是 −2i/d。",
    ),
    "exercises.rope_base": (
        "The frequencies use the base {base}; this exercise uses 10000: θ_i = 10000^(−2i/d_k).",
        "频率用的底数是 {base}；这个练习用的是 10000：θ_i = 10000^(−2i/d_k)。",
    ),
    "exercises.rope_rotated_v": (
        "The weights are right, but the output is not: you rotated v as well. RoPE turns only q and k (it changes"
        " which keys match); the values are mixed as they are: output = weights @ v.",
        "权重是对的，输出却不对：你把 v 也旋转了。旋转位置编码只转 q 和 k（它改变的是哪些键更匹配）；值按原样混合："
        "`output = weights @ v`。",
    ),
    "exercises.ln_wrong_axis": (
        "You normalised over the tokens (axis −2) instead of over each token's own features (axis −1): a token's"
        " output now depends on the other tokens (in a causal model, even on later ones). Take the mean and the"
        " variance along axis=-1.",
        "你是沿着词元（axis −2）做的归一化，而不是沿着每个词元自己的特征（axis −1）：这样一来，"
        "一个词元的输出会受到其他词元的影响（在因果模型里甚至受到后面词元的影响）。请沿 axis=-1 计算均值和方差。",
    ),
    "exercises.ln_all_axes": (
        "You took one mean and one variance for the whole array; each token needs its own, over its d features:"
        " x.mean(axis=-1, keepdims=True).",
        "你对整个数组只算了一个均值和一个方差；每个词元都需要自己的均值和方差，在它的 d 个特征上计算："
        "`x.mean(axis=-1, keepdims=True)`。",
    ),
    "exercises.ln_unbiased": (
        "You used the unbiased variance (dividing by d − 1 = {d_1}, as np.var(ddof=1) or torch.var's default do);"
        " layer norm divides by d = {d}: np.var(x, axis=-1, keepdims=True).",
        "你用的是无偏方差（除以 d − 1 = {d_1}，`np.var(ddof=1)` 和 `torch.var` 的默认设置都是这样）；层归一化除以的是"
        " d = {d}：`np.var(x, axis=-1, keepdims=True)`。",
    ),
    "exercises.ln_rms": (
        "You did not subtract the mean: this is RMSNorm (LLaMA uses it), not layer norm. Subtract each token's mean"
        " first.",
        "你没有减去均值：这是 RMSNorm（LLaMA 用的就是它），不是层归一化。请先减去每个词元自己的均值。",
    ),
    "exercises.ln_no_affine": (
        "The normalised values are right, but gamma and beta were not used: multiply by gamma, then add beta.",
        "归一化之后的值是对的，但没有用上 `gamma` 和 `beta`：先乘以 `gamma`，再加上 `beta`。",
    ),
    "exercises.ln_gamma_beta_swapped": (
        "gamma and beta are swapped: the result is x̂ · gamma + beta (gamma scales, beta shifts).",
        "`gamma` 和 `beta` 用反了：结果应是 `x_hat * gamma + beta`（`gamma` 负责缩放，`beta` 负责平移）。",
    ),
    "exercises.ln_var_not_std": (
        "You divided by the variance; divide by the standard deviation: np.sqrt(var + eps).",
        "你除以的是方差；应当除以标准差：`np.sqrt(var + eps)`。",
    ),
    "exercises.ln_eps_missing": (
        "NaN (or inf) for the token whose features are all equal: its variance is 0. Add eps inside the square root:"
        " np.sqrt(var + eps), with eps = 1e-5.",
        "那个各特征值全都相等的词元得到了 NaN（或 inf）：它的方差是 0。请在平方根里加上 `eps`：`np.sqrt(var + eps)`，"
        "取 `eps = 1e-5`。",
    ),
    "exercises.ln_keepdims": (
        "A shape error ({error}). The mean and the variance need keepdims=True, so that their shape [..., 1] lines up"
        " with x.",
        "形状出错（{error}）。均值和方差需要 keepdims=True，这样它们的形状 [..., 1] 才能和 x 对齐。",
    ),
}
