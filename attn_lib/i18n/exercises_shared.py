"""The diagnoses several checkers share (attn_lib.exercises.diagnose and .mistakes): the verdict line,
what a result must be, and the classic mistakes of softmax, scaling and masking.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.passed": (
        "✓ {title}: all {count} checks passed ({checked}).",
        "✓ {title}：全部 {count} 项检查通过。检查的输入：{checked}。",
    ),
    "exercises.failed": (
        "✗ {title} — failed on “{case}” ({shapes}). {diagnosis}",
        "✗ {title}——“{case}”（{shapes}）未通过。{diagnosis}",
    ),
    "exercises.failed_plain": ("✗ {title} — {diagnosis}", "✗ {title}——{diagnosis}"),
    "exercises.converted_note": (
        " Note: your function returns {type}, not a numpy array; the checker converted it with np.asarray.",
        " 注意：你的函数返回的是 {type} 而不是 numpy 数组，检查程序已用 np.asarray 转换。",
    ),
    "exercises.list_sep": (", ", "、"),
    "exercises.precision_note": (
        " Note: your function computes in {dtype}, which keeps about {digits} significant digits, so its results were"
        " compared to within {tolerance} (a float32 or float64 result: to within 1e-4).",
        " 注意：你的函数用 {dtype} 计算，它只保留大约 {digits} 位有效数字，所以检查程序按 {tolerance}"
        " 以内的误差比较它的结果（float32 或 float64 的结果按 1e-4 以内比较）。",
    ),
    "exercises.case_random": ("random input", "随机输入"),
    "exercises.case_nq_nk": ("n_q ≠ n_k", "n_q ≠ n_k"),
    "exercises.case_single": ("a single token", "只有一个词元"),
    "exercises.case_large": ("large logits (around 1000)", "很大的对数几率（约 1000）"),
    "exercises.case_batch": ("a batch", "批量输入"),
    "exercises.case_causal": ("a causal mask", "因果掩码"),
    "exercises.case_large_scores": ("large scores (in the thousands)", "上千的大分数"),
    "exercises.case_masked_row": ("a fully masked row", "整行都被掩码"),
    "exercises.case_masked_negative": ("a mask over strongly negative scores", "分数全是很大的负数时的掩码"),
    "exercises.case_batch_mask": ("a batch with a mask", "带掩码的批量输入"),
    "exercises.case_batch_2": ("two batch axes", "两个批量维度"),
    "exercises.case_batch_heads": ("two leading axes [B, h, n, d_k]", "前面两个轴 [B, h, n, d_k]"),
    "exercises.case_batch_heads_mask": (
        "two leading axes [B, h, n, d_k] and an [n, n] mask",
        "前面两个轴 [B, h, n, d_k] 加一个 [n, n] 掩码",
    ),
    "exercises.word_output": ("The output", "输出"),
    "exercises.word_weights": ("The weights", "权重"),
    "exercises.word_result": ("The result", "结果"),
    "exercises.word_finite_number": ("a finite number", "某个有限的数"),
    "exercises.expect_array": ("a numpy array of numbers", "由数字组成的 numpy 数组"),
    "exercises.expect_bool_array": ("a boolean numpy array", "布尔类型的 numpy 数组"),
    "exercises.expect_int": ("an integer", "整数"),
    "exercises.precision_loss": (
        "Your result agrees with the formula to about {digits} significant digits only (within {tolerance}, not within"
        " 1e-4): float16 arithmetic somewhere in your function does this (an .astype(np.float16), a float16 array),"
        " and so does a small change to the formula, such as an eps added to a sum. If you compute in {dtype} on"
        " purpose, return {dtype} arrays: the checker then compares within {dtype}'s precision.",
        "你的结果只在大约 {digits} 位有效数字上与公式一致（误差在 {tolerance} 以内，而不在 1e-4 以内）："
        "函数里某处用 float16 计算（.astype(np.float16)、某个 float16 数组）会这样，对公式的微小改动也会这样，"
        "比如在求和结果上再加一个很小的数。如果你是有意用 {dtype} 计算，请返回 {dtype} 数组：检查程序会按 {dtype}"
        " 的精度来比较。",
    ),
    "exercises.not_callable": (
        "Expected a function, got {got}. Pass the function itself, e.g. check(my_function), not check(my_function()).",
        "这里需要一个函数，收到的却是 {got}。请传入函数本身，例如 check(my_function)，而不是 check(my_function())。",
    ),
    "exercises.not_implemented": (
        "Not implemented yet: write the body of your function (and return the result), then run this cell again.",
        "还没有实现：请写好函数体（并 return 结果），然后重新运行这个单元格。",
    ),
    "exercises.partly_implemented": (
        "Your function returned None (or raised NotImplementedError) for this input: a branch is not written yet, or"
        " a return statement is missing.",
        "对这个输入，你的函数返回了 None（或抛出了 NotImplementedError）：某个分支还没写，或者漏了 return 语句。",
    ),
    "exercises.raised": ("Your function raised {error}", "你的函数抛出了异常 {error}"),
    "exercises.timeout": (
        "Your function took longer than {seconds} s on this small input; look for a loop that never ends. (It may"
        " still be running in the background; restart the kernel if the notebook slows down.)",
        "在这么小的输入上，你的函数运行超过了 {seconds} 秒；检查是否有停不下来的循环。（它可能仍在后台运行；"
        "如果笔记本变慢，请重启内核。）",
    ),
    "exercises.wrong_type": (
        "{what} should be {expected}, but your function returned {got}.",
        "{what}应该是{expected}，但你的函数返回了 {got}。",
    ),
    "exercises.wrong_shape": (
        "{what} should have shape {expected}, got shape {got}.",
        "{what}的形状应为 {expected}，实际是 {got}。",
    ),
    "exercises.not_finite": (
        "{what} should hold a finite number at index {index}, not {got}.",
        "{what}在下标 {index} 处是 {got}，而正确值是一个有限的数。",
    ),
    "exercises.wrong_values": (
        "{what} should hold {expected} at index {index}, not {got}.",
        "{what}在下标 {index} 处不对：应为 {expected}，实际为 {got}。",
    ),
    "exercises.forbidden_call": (
        "Your function calls {name}, which this exercise asks you to write yourself.",
        "你的函数调用了 {name}，而这个练习要你自己把它写出来。",
    ),
    "exercises.forbidden_call_inside": (
        "Your function calls {name}, which computes {what}: the part this exercise asks you to write yourself.",
        "你的函数调用了 {name}，它会替你算出 {what}——这正是这个练习要你自己写的部分。",
    ),
    "exercises.watch_tampered": (
        "Your function changes Python's profile hook (sys.setprofile, threading.setprofile, or a profiler such as"
        " cProfile), through which this checker sees which attn_lib functions run, so the check cannot pass. Take"
        " that out of the function (profile it outside the checker).",
        "你的函数动了 sys.setprofile 或 threading.setprofile 设置的钩子（用 `cProfile` 之类的性能分析器也会这样），"
        "检查程序正是靠这个钩子看到有哪些 attn_lib 函数在运行，所以这项检查无法通过。请把这部分从函数里去掉"
        "，要分析性能，请在检查程序之外进行。",
    ),
    "exercises.checker_error": (
        "The checker could not interpret your result ({error}); this is a bug in attn_lib.exercises, please report it.",
        "检查程序无法解读你的结果（{error}）；这是 attn_lib.exercises 的缺陷，请反馈。",
    ),
    "exercises.not_pair": (
        "Your function should return two arrays, (output, weights); it returned {got}.",
        "你的函数应返回两个数组 (output, weights)，实际返回了 {got}。",
    ),
    "exercises.mask_argument": (
        "Your function does not take the mask as expected ({error}). Give it a parameter mask=None (the checker"
        " passes mask=... or leaves it out) and use the mask only when it is not None.",
        "你的函数接收掩码的方式不对（{error}）。请给它一个参数 mask=None（检查程序会以 mask=... 传入，或者不传），"
        "并且只在 mask 不是 None 时使用它。",
    ),
    "exercises.softmax_axis": (
        "This is softmax over axis {axis}, not over the last axis: each row (the last axis) must sum to 1. Use"
        " axis=-1 in both the max and the sum.",
        "这是沿第 {axis} 个轴做的 softmax，而不是沿最后一个轴：每一行（最后一个轴）之和必须为 1。求最大值和求和时都用"
        " axis=-1。",
    ),
    "exercises.softmax_sum_all": (
        "You divided by the sum of the whole array, so the rows do not each sum to 1. Sum along the last axis only:"
        " e.sum(axis=-1, keepdims=True).",
        "你除以的是整个数组的总和，所以各行之和并不都是 1。只沿最后一个轴求和：e.sum(axis=-1, keepdims=True)。",
    ),
    "exercises.softmax_not_normalised": (
        "The rows do not sum to 1 (the first sums to {total}): after np.exp, divide by the row sum.",
        "各行之和不为 1（第一行之和是 {total}）：做完 np.exp 之后要除以该行的和。",
    ),
    "exercises.softmax_overflow": (
        "NaN or inf at large logits: np.exp(1000) overflows. Subtract the row maximum first, x - x.max(axis=-1,"
        " keepdims=True); softmax does not change when a constant is subtracted from a row.",
        "对数几率很大时出现 NaN 或 inf：np.exp(1000) 会溢出。先减去每行的最大值，x - x.max(axis=-1, keepdims=True)；"
        "每行减去同一个常数不会改变 softmax 的结果。",
    ),
    "exercises.softmax_global_max": (
        "NaN in the row around −1000: you subtracted the maximum of the whole array, so every exp in that row"
        " underflows to 0 and 0/0 = NaN. Subtract each row's own maximum: x.max(axis=-1, keepdims=True).",
        "约 −1000 的那一行出现 NaN：你减去的是整个数组的最大值，这一行的 exp 全部下溢为 0，0/0 = NaN。"
        "请减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。",
    ),
    "exercises.scale_missing": (
        "The scores were not scaled: divide Q Kᵀ by √d_k = {sqrt_dk} (before the softmax).",
        "分数没有缩放：在 softmax 之前把 Q Kᵀ 除以 √d_k = {sqrt_dk}。",
    ),
    "exercises.scale_dk": (
        "You divided by d_k = {d_k}; the scale is its square root, √d_k = {sqrt_dk}.",
        "你除以的是 d_k = {d_k}；缩放因子是它的平方根 √d_k = {sqrt_dk}。",
    ),
    "exercises.scale_inverted": (
        "You multiplied by √d_k = {sqrt_dk}; divide by it instead.",
        "你乘以了 √d_k = {sqrt_dk}；应该除以它。",
    ),
    "exercises.scale_dim": (
        "You scaled by √{name} = √{value}; the scale uses the key dimension d_k = q.shape[-1] = {d_k}, not {name}.",
        "你用 √{name} = √{value} 做了缩放；缩放要用键的维度 d_k = q.shape[-1] = {d_k}，而不是 {name}。",
    ),
    "exercises.batch_transpose": (
        "Correct for one sequence, but it fails on a batch ({error}). On a 3-D array .T reverses all the axes; swap"
        " only the last two: np.swapaxes(k, -1, -2).",
        "单个序列正确，但批量输入时出错（{error}）。对三维数组，.T 会把所有轴都倒过来；只交换最后两个轴："
        "np.swapaxes(k, -1, -2)。",
    ),
    "exercises.batch_axes": (
        "Correct for one sequence, but it fails on a batch [batch, n, d_model] ({error}). Take n and d_model from the"
        " last axes (x.shape[-2:]), keep the leading axes (x.shape[:-2]) and move only the axes you mean to"
        " (np.swapaxes(a, -2, -3)).",
        "单个序列正确，但批量输入 [batch, n, d_model] 时出错（{error}）。n 和 d_model"
        " 要从最后两个轴取（x.shape[-2:]），前面的轴保持不动（x.shape[:-2]），只移动你想移动的轴（np.swapaxes(a, -2,"
        " -3)）。",
    ),
    "exercises.attn_pair_order": (
        "You returned (weights, output); the order is (output, weights).",
        "你返回的是 (weights, output)；顺序应为 (output, weights)。",
    ),
    "exercises.attn_softmax_axis": (
        "The softmax runs over the queries (axis −2) instead of the keys (axis −1): each row of the weights must sum"
        " to 1.",
        "softmax 是沿查询（axis −2）做的，应沿键（axis −1）：权重的每一行之和必须为 1。",
    ),
    "exercises.attn_softmax_overflow": (
        "NaN or inf with large scores: your softmax overflows. Subtract the row maximum before np.exp (or use"
        " attn_lib.softmax).",
        "分数很大时出现 NaN 或 inf：你的 softmax 溢出了。在 np.exp 之前先减去每行的最大值（或直接用"
        " attn_lib.softmax）。",
    ),
    "exercises.attn_softmax_global_max": (
        "NaN with large scores: you subtracted the maximum of all the scores, not each row's own, so in a row whose"
        " scores lie far below it every exp underflows to 0, and 0/0 = NaN. Subtract each row's maximum:"
        " scores.max(axis=-1, keepdims=True).",
        "分数很大时出现 NaN：你减去的是所有分数的最大值，而不是每一行自己的最大值；某一行的分数若远低于它，"
        "这一行的 exp 会全部下溢为 0，0/0 = NaN。请减去每一行自己的最大值：scores.max(axis=-1, keepdims=True)。",
    ),
    "exercises.attn_scale_after_softmax": (
        "Your weights are softmax(Q Kᵀ) divided by √d_k = {sqrt_dk}: the scaling came after the softmax, so every row"
        " sums to 1/√d_k = {total} instead of 1. Divide the scores by √d_k before the softmax: softmax(Q Kᵀ / √d_k).",
        "你的权重等于 softmax(Q Kᵀ) 再除以 √d_k = {sqrt_dk}：缩放放在了 softmax 之后，所以每一行之和是 1/√d_k ="
        " {total}，而不是 1。应在 softmax 之前把分数除以 √d_k：softmax(Q Kᵀ / √d_k)。",
    ),
    "exercises.batch_heads": (
        "Correct for one sentence and for a batch [B, n, d_k], but it fails with two leading axes, [B, h, n, d_k]"
        " ({error}): the shape every head's q, k and v have in multi-head attention (notebooks 06 and 10). Write it"
        " for any number of leading axes: np.swapaxes(k, -1, -2) rather than k.transpose(0, 2, 1), and q.shape[-1]"
        " rather than q.shape[2].",
        "单个序列和批量输入 [B, n, d_k] 都正确，但输入前面有两个轴、形状为 [B, h, n, d_k] 时出错（{error}）："
        "多头注意力里每个头的 q、k、v 都是这个形状，第 6 课和第 10 课都会这样调用它。请让函数适用于前面有任意多个轴的"
        "输入：用 np.swapaxes(k, -1, -2) 而不是 k.transpose(0, 2, 1)，用 q.shape[-1] 而不是 q.shape[2]。",
    ),
    "exercises.attn_mask_after_softmax": (
        "The mask was applied after the softmax: the masked weights are 0, but row {row} now sums to {total}, not 1."
        " Mask the scores before the softmax: np.where(mask, scores, -np.inf).",
        "掩码是在 softmax 之后才用的：被掩码的权重变成了 0，但第 {row} 行之和是 {total}，不再是 1。应在 softmax"
        " 之前就把分数掩码掉：np.where(mask, scores, -np.inf)。",
    ),
    "exercises.attn_mask_ignored": (
        "The mask was ignored: query {i} gives weight {w} to key {j}, which the mask forbids (the future is visible)."
        " Set masked scores to −inf before the softmax.",
        "掩码被忽略了：查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax"
        " 之前把被掩码的分数设为 −inf。",
    ),
    "exercises.attn_mask_inverted": (
        "The mask is used the wrong way round: True means 'may attend', yet your weights are 0 where the mask is"
        " True, and query {i} gives weight {w} to the forbidden key {j} (the future is visible). Use np.where(mask,"
        " scores, -np.inf).",
        "掩码用反了：True 表示“可以关注”，但你的权重在掩码为 True 处是 0，而查询 {i} 给了被禁止的键 {j} 权重"
        " {w}（看到了未来）。请用 np.where(mask, scores, -np.inf)。",
    ),
    "exercises.attn_mask_added": (
        "The boolean mask was added to the scores (True counts as 1, False as 0), so nothing is hidden. Use it to"
        " choose instead: np.where(mask, scores, -np.inf).",
        "布尔掩码被直接加到了分数上（True 当作 1，False 当作 0），什么也没掩码掉。应该用它来做选择：np.where(mask,"
        " scores, -np.inf)。",
    ),
    "exercises.attn_mask_multiplied": (
        "The scores were multiplied by the mask: a masked score becomes 0, and exp(0) = 1 is not a zero weight. Set"
        " masked scores to −inf: np.where(mask, scores, -np.inf).",
        "分数乘上了掩码：被掩码的分数变成 0，而 exp(0) = 1，权重并不是 0。应把被掩码的分数设为 −inf：np.where(mask,"
        " scores, -np.inf)。",
    ),
    "exercises.attn_mask_leak": (
        "Query {i} gives weight {w} to key {j}, which the mask forbids (the future is visible). Set masked scores to"
        " −inf before the softmax.",
        "查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax 之前把被掩码的分数设为"
        " −inf。",
    ),
    "exercises.attn_mask_finite": (
        "Query {i} gives weight {w} to key {j}, which the mask hides: a masked weight must be exactly 0. Masked"
        " scores set to a finite number (yours act like {fill}) only get small weights, and large ones when the"
        " visible scores are lower still. Use −inf: np.where(mask, scores, -np.inf).",
        "查询 {i} 给了被掩码的键 {j} 权重 {w}：被掩码的位置，权重必须恰好是 0。"
        "把被掩码的分数设成一个有限的数（你的写法相当于 {fill}），只能让它们的权重变小；要是看得见的分数比它还低，"
        "它们的权重反而会很大。请用 −inf：np.where(mask, scores, -np.inf)。",
    ),
    "exercises.batch_mask": (
        "Correct without a batch, but it fails on a batch with a mask ({error}). Boolean indexing such as"
        " scores[~mask] = -np.inf needs a mask of exactly the scores' shape; np.where(mask, scores, -np.inf)"
        " broadcasts the mask over the batch.",
        "不带批量时正确，但遇到带掩码的批量输入就出错了（{error}）。scores[~mask] = -np.inf 这样的布尔索引，"
        "要求掩码和分数的形状完全一样；np.where(mask, scores, -np.inf) 会把掩码广播到整个批量上。",
    ),
    "exercises.attn_masked_row_1e9": (
        "Row {row} may see no key at all, yet its weights sum to 1 (uniform 1/{n_k} = {uniform} if masked scores were"
        " replaced by −1e9): a large negative number instead of −inf does this. A row with nothing to see must get"
        " zero weights and a zero output, e.g. compute the weights with attn_lib.softmax, which turns an all −inf row"
        " into zeros.",
        "第 {row} 行一个键也看不到，它的权重之和却是 1（如果用 −1e9 代替被掩码的分数，就是均匀的 1/{n_k} ="
        " {uniform}）：用很大的负数代替 −inf 就会这样。什么都看不到的行应得到全零的权重和全零的输出，例如用"
        " attn_lib.softmax 计算权重，它会把全是 −inf 的行变成 0。",
    ),
    "exercises.attn_masked_row_nan": (
        "Row {row} may see no key at all, and its weights are NaN: with −inf everywhere the softmax computes 0/0."
        " Such a row must get zero weights and a zero output, e.g. compute the weights with attn_lib.softmax, which"
        " turns an all −inf row into zeros.",
        "第 {row} 行一个键也看不到，它的权重是 NaN：整行都是 −inf 时，softmax 算的是 0/0。"
        "这样的行应得到全零的权重和全零的输出，例如用 attn_lib.softmax 计算权重，它会把全是 −inf 的行变成 0。",
    ),
    "exercises.attn_weights_not_normalised": (
        "Row {row} of the weights sums to {total}, not 1: after np.exp, divide by the sum over the keys (axis −1).",
        "权重的第 {row} 行之和是 {total}，不是 1：np.exp 之后要除以沿键（axis −1）的和。",
    ),
    "exercises.attn_output_wrong": (
        "The weights are right but the output is not (first difference at index {index}): the output is weights @ v.",
        "权重正确，但输出不对（第一处差异在下标 {index}）：输出应为 weights @ v。",
    ),
    "exercises.mask_inverted": (
        "True and False are swapped. In this course True means 'may attend': query i may see keys 0..i, so return"
        " np.tril(np.ones((n, n), dtype=bool)).",
        "True 和 False 弄反了。本课程中 True 表示“可以关注”：查询 i 可以看键 0..i，所以应返回 np.tril(np.ones((n, n),"
        " dtype=bool))。",
    ),
    "exercises.mask_future": (
        "This is the upper triangle, so query 0 may see every later key: the future is visible. Keep the lower"
        " triangle (np.tril), not the upper one (np.triu).",
        "这是上三角，查询 0 能看到后面所有的键：看到了未来。应保留下三角（np.tril），而不是上三角（np.triu）。",
    ),
    "exercises.mask_no_diagonal": (
        "The diagonal is False, so no token may see itself (and token 0 sees nothing). np.tril with its default k=0"
        " keeps the diagonal.",
        "对角线是 False，每个词元都看不到自己（第 0 个词元什么也看不到）。np.tril 在默认的 k=0 时会保留对角线。",
    ),
    "exercises.mask_not_bool": (
        "The pattern is right, but the dtype is {dtype}: return a boolean array (True = may attend), e.g. with"
        " dtype=bool or .astype(bool).",
        "图案正确，但数据类型是 {dtype}：请返回布尔数组（True 表示可以关注），例如用 dtype=bool 或 .astype(bool)。",
    ),
    "exercises.mask_additive": (
        "This is the additive form (0 and −inf). This exercise asks for the boolean mask, True = may attend;"
        " attn_lib.additive_mask turns that into the additive form.",
        "这是加性形式（0 与 −inf）。本练习要的是布尔掩码，True 表示可以关注；attn_lib.additive_mask"
        " 会把它转换成加性形式。",
    ),
    # RMSNorm's eps (check_rms_norm; its other words are in exercises_language_model)
    "exercises.rms_eps_ignored": (
        "Your function ignores the eps it is given: with eps = {eps} it computed as if eps were {used}. Use the"
        " eps argument, x / sqrt(mean(x²) + eps) * gain: models differ (SmolLM2 uses 1e-5, Gemma 3 1e-6), and on"
        " rows this small eps changes the result.",
        "你的函数没有用传进来的 eps：给的是 eps = {eps}，它算出来的结果却相当于 eps = {used}。请用参数 eps，"
        "x / sqrt(mean(x²) + eps) * gain：不同模型的 eps 不一样（SmolLM2 用 1e-5，Gemma 3 用 1e-6），"
        "行里的数值这么小时，eps 会改变结果。",
    ),
}
