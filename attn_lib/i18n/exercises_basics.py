"""The words of notebooks 02 and 03's checkers (attn_lib.exercises.basics).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_attend_one": ("attention for one query", "一个查询的注意力"),
    "exercises.title_attend_all": ("attention for every query", "所有查询的注意力"),
    "exercises.title_qkv": ("Q, K, V from X", "由 X 算出 Q、K、V"),
    "exercises.title_relevance_scores": ("relevance scores Q Kᵀ", "相关性分数 Q Kᵀ"),
    "exercises.case_notebook": ("this notebook's vectors", "本课的向量"),
    "exercises.case_one_key": ("a single key", "只有一个键"),
    "exercises.case_cat": ("the 3 × 4 X of 猫吃鱼", "猫吃鱼的 3 × 4 矩阵 X"),
    "exercises.steps_scaled": (
        "The scores were divided by √d_k = {sqrt_dk} (or by d_k = {d_k}): that scaling comes in notebook 04. Here"
        " relevance is the plain dot product q · k_j.",
        "分数除以了 √d_k = {sqrt_dk}（或 d_k = {d_k}）：这一步缩放是第 4 课的内容。这里的相关性就是普通的点积 q ·"
        " k_j。",
    ),
    "exercises.steps_cosine": (
        "These weights come from the cosine of q and each key: you divided by the vectors' lengths. Attention uses"
        " the plain dot product q · k_j, which also grows with a key's length.",
        "这些权重来自 q 与各个键的余弦：你除以了向量的长度。注意力用的是普通的点积 q · k_j，它也随键的长度增大。",
    ),
    "exercises.steps_score_sum": (
        "You divided the scores by their sum. With a negative score that gives a negative 'weight' (this notebook's"
        " counterexample). Use the softmax: e^(s_j) / Σ_l e^(s_l).",
        "你把分数除以了分数之和。只要有一个负分数，就会得到负的“权重”（本课的反例）。请用 softmax：e^(s_j) / Σ_l"
        " e^(s_l)。",
    ),
    "exercises.steps_returned_scores": (
        "These are the scores s_j = q · k_j, not the weights: apply the softmax, so that the weights are positive and"
        " add up to 1.",
        "这些是分数 s_j = q · k_j，不是权重：还要做 softmax，权重才会全为正、加起来等于 1。",
    ),
    "exercises.steps_not_normalised": (
        "The weights do not add up to 1: after np.exp, divide by the sum of all the exponentials.",
        "权重加起来不等于 1：做完 np.exp 之后，要除以所有指数之和。",
    ),
    "exercises.steps_softmax_overflow": (
        "NaN or inf with large scores: np.exp overflows above about 709. Subtract the largest score first; the"
        " weights do not change (property 2).",
        "分数很大时出现 NaN 或 inf：np.exp 的参数超过约 709 就会溢出。先减去最大的分数；权重不会因此改变（性质 2）。",
    ),
    "exercises.steps_transposed": (
        "Your weights have shape {got}, expected {expected}: one row per query. Compute S = Q Kᵀ (Q @ K.T), not K Qᵀ,"
        " and take the softmax of each row.",
        "你的权重形状是 {got}，应为 {expected}：每个查询占一行。请计算 S = Q Kᵀ（Q @ K.T），而不是 K Qᵀ，再对每一行做"
        " softmax。",
    ),
    "exercises.steps_summed_keys": (
        "The output is a weighted sum of the keys; it should be a weighted sum of the values: Σ_j w_j v_j.",
        "输出是对键的加权求和；应当对值加权求和：Σ_j w_j v_j。",
    ),
    "exercises.steps_not_summed": (
        "Each value was multiplied by its weight, but the products were not added up: sum them over the tokens (axis"
        " 0), or compute weights @ V.",
        "每个值都乘上了自己的权重，但乘积没有加起来：沿词元的方向（axis 0）求和，或者直接算 weights @ V。",
    ),
    "exercises.steps_unweighted": (
        "The output is the plain average of the values: the weights were not used. Output = Σ_j w_j v_j.",
        "输出是各个值的简单平均：权重没有用上。输出 = Σ_j w_j v_j。",
    ),
    "exercises.steps_argmax": (
        "The output is the value of the best-matching token alone. Attention does not pick one token: it blends all"
        " the values, each with its weight, Σ_j w_j v_j.",
        "输出只是最匹配的那个词元的值。注意力并不只挑一个词元：它把所有的值按各自的权重混合起来，Σ_j w_j v_j。",
    ),
    "exercises.qkv_not_triple": (
        "Your function should return three arrays, (Q, K, V); it returned {got}.",
        "你的函数应返回三个数组 (Q, K, V)，实际返回了 {got}。",
    ),
    "exercises.qkv_order": (
        "In the place of {position} you returned {got}: the order is (Q, K, V).",
        "在 {position} 的位置上你返回的是 {got}：顺序应为 (Q, K, V)。",
    ),
    "exercises.qkv_same_matrix": (
        "{name} was computed with W_Q. Each of Q, K and V has its own matrix: K = X W_K, V = X W_V.",
        "{name} 是用 W_Q 算的。Q、K、V 各有自己的矩阵：K = X W_K，V = X W_V。",
    ),
    "exercises.qkv_batch_flattened": (
        "{name} has shape {got} instead of {expected}: the batch was flattened into one long list of tokens. x @ w"
        " works on [..., n, d_model] as it is, and keeps the leading axes.",
        "{name} 的形状是 {got}，应为 {expected}：批量被摊平成了一长串词元。x @ w 可以直接作用在 [..., n, d_model]"
        " 上，前面的轴会保留下来。",
    ),
    "exercises.qkv_inner_dims": (
        "A matrix product failed ({error}). In x @ w the last size of x (d_model) must equal the first size of w: Q ="
        " X W_Q with W_Q of shape [d_model, d_k], so x @ w_q, not w_q @ x or x @ w_q.T.",
        "矩阵乘法出错了（{error}）。在 x @ w 中，x 的最后一维（d_model）必须等于 w 的第一维：Q = X W_Q，W_Q 的形状是"
        " [d_model, d_k]，所以要写 x @ w_q，而不是 w_q @ x 或 x @ w_q.T。",
    ),
    "exercises.rel_transposed": (
        "This is K Qᵀ, the transpose: row i must be token i's query against every key, S = Q Kᵀ. With W_Q ≠ W_K the"
        " two differ.",
        "这是 K Qᵀ，也就是转置：第 i 行应当是第 i 个词元的查询与每个键的点积，S = Q Kᵀ。W_Q ≠ W_K 时两者不同。",
    ),
    "exercises.rel_same_matrix": (
        "Your scores use {name} for both the queries and the keys, so the matrix is symmetric. Use W_Q for Q = X W_Q"
        " and W_K for K = X W_K.",
        "你的分数里查询和键都用了 {name}，所以矩阵是对称的。Q = X W_Q 用 W_Q，K = X W_K 用 W_K。",
    ),
    "exercises.rel_no_projection": (
        "These are X Xᵀ, the embeddings against each other. Project first, Q = X W_Q and K = X W_K, then compute Q Kᵀ.",
        "这是 X Xᵀ，嵌入向量两两相乘。先做投影，Q = X W_Q、K = X W_K，再算 Q Kᵀ。",
    ),
    "exercises.rel_scaled": (
        "You divided by √d_k = {sqrt_dk}: that is notebook 04's scaling. This exercise asks for the relevance scores"
        " Q Kᵀ themselves.",
        "你除以了 √d_k = {sqrt_dk}：这是第 4 课的缩放。这个练习要的是相关性分数 Q Kᵀ 本身。",
    ),
}
