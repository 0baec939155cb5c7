"""The words of notebook 14's checkers (attn_lib.exercises.decoder_parts, attn_lib.exercises.language_model).

check_in_language_model also runs a function inside Gemma 3 270M for notebook 15: the lm_gemma.* keys.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    # --- RMSNorm, SwiGLU, a grouped decode step ---------------------------------------------------------
    "exercises.title_rms_norm": ("RMSNorm", "RMSNorm"),
    "exercises.title_swiglu": ("SwiGLU feed-forward", "SwiGLU 前馈网络"),
    "exercises.title_grouped_decode_step": ("one decode step with a grouped cache", "用分组缓存解码一步"),
    "exercises.case_rms_tiny": ("a tiny vector (mean square below eps)", "很小的向量（均方小于 eps）"),
    "exercises.case_rms_zero_token": ("a token of zeros", "全为 0 的词元"),
    "exercises.case_decode_groups": (
        "6 query heads in 2 groups, 4 tokens cached",
        "6 个查询头分成 2 组，已缓存 4 个词元",
    ),
    "exercises.case_decode_first": ("the first token (an empty cache)", "第一个词元（缓存为空）"),
    "exercises.rms_mean_subtracted": (
        "The mean was subtracted: that is LayerNorm (without beta), not RMSNorm. RMSNorm divides x itself by its root"
        " mean square, x / sqrt(mean(x²) + eps): no mean, no centring.",
        "减去了均值：这是去掉 beta 的层归一化，不是 RMSNorm。RMSNorm 直接用 x 除以它的均方根，"
        "x / sqrt(mean(x²) + eps)：不减均值，不做中心化。",
    ),
    "exercises.rms_eps_outside": (
        "eps was added outside the square root, x / (sqrt(mean(x²)) + eps). It belongs inside, sqrt(mean(x²) + eps):"
        " the two differ where mean(x²) is small, as in this tiny vector.",
        "eps 加在了平方根外面，x / (sqrt(mean(x²)) + eps)。它应该在里面，sqrt(mean(x²) + eps)：mean(x²)"
        " 很小时两者就不一样了，比如这个很小的向量。",
    ),
    "exercises.rms_wrong_axis": (
        "The mean square was taken over the tokens (axis -2). Each token is normalised over its own d features:"
        " axis=-1, keepdims=True.",
        "均方是沿词元（axis -2）求的。每个词元要在它自己的 d 个特征上归一化：axis=-1，keepdims=True。",
    ),
    "exercises.rms_l2_norm": (
        "You divided by the length of x, sqrt(sum(x²)) (np.linalg.norm), not by its root mean square, sqrt(mean(x²)):"
        " over d = {d} features sum(x²) is d times mean(x²), so every number comes out √d = {sqrt_d} times too small."
        " RMSNorm takes the mean, x / sqrt(mean(x²) + eps) * gain: the normalised vector has root mean square 1"
        " (length √d), not length 1.",
        "你除以的是 x 的长度 sqrt(sum(x²))（np.linalg.norm），而不是它的均方根 sqrt(mean(x²))：在 d = {d}"
        " 个特征上，sum(x²) 是 mean(x²) 的 d 倍，所以每个数都只有正确值的 1/√d = 1/{sqrt_d}。RMSNorm"
        " 取的是均值，x / sqrt(mean(x²) + eps) * gain：归一化之后向量的均方根是 1（长度是 √d），而不是长度为 1。",
    ),
    "exercises.rms_no_gain": (
        "The gain is missing: multiply the normalised vector by gain, feature by feature.",
        "漏了增益 gain：归一化之后还要逐个特征乘以 gain。",
    ),
    "exercises.rms_no_sqrt": (
        "You divided by the mean square itself; RMSNorm divides by its square root, sqrt(mean(x²) + eps).",
        "你除以的是均方本身；RMSNorm 除以的是它的平方根 sqrt(mean(x²) + eps)。",
    ),
    "exercises.rms_eps_missing": (
        "eps is missing: x / sqrt(mean(x²)) gives NaN (0 / 0) on a token of zeros and blows up a tiny one. That is"
        " what eps is for: sqrt(mean(x²) + eps) is never 0.",
        "漏了 eps：x / sqrt(mean(x²)) 遇到全为 0 的词元会得到 NaN（0 / 0），遇到很小的词元会把它放得很大。"
        "eps 正是为此而加的：sqrt(mean(x²) + eps) 永远不会是 0。",
    ),
    "exercises.swiglu_swapped": (
        "The gate and the up projection are swapped: SiLU goes on x W_gate, and x W_up is what it scales,"
        " (SiLU(x W_gate) * (x W_up)) W_down.",
        "门控投影和上投影用反了：SiLU 作用在 x W_gate 上，被它缩放的是 x W_up，即 (SiLU(x W_gate) * (x W_up)) W_down。",
    ),
    "exercises.swiglu_gelu": (
        "That is GeGLU: GELU gates the up projection. SwiGLU uses SiLU, x · sigmoid(x) (attn_lib.block.silu).",
        "这是 GeGLU：用 GELU 做门控。SwiGLU 用的是 SiLU，即 x · sigmoid(x)（attn_lib.block.silu）。",
    ),
    "exercises.swiglu_sigmoid": (
        "The gate is sigmoid(x W_gate), the original GLU. SwiGLU multiplies by SiLU(x W_gate) = (x W_gate) ·"
        " sigmoid(x W_gate).",
        "门控用的是 sigmoid(x W_gate)，那是最初的 GLU。SwiGLU 乘的是 SiLU(x W_gate) = (x W_gate) · sigmoid(x W_gate)。",
    ),
    "exercises.swiglu_silu_of_product": (
        "SiLU was applied to the product; it goes on the gate alone: SiLU(x W_gate) * (x W_up).",
        "SiLU 作用在了乘积上；它只作用在门控上：SiLU(x W_gate) * (x W_up)。",
    ),
    "exercises.swiglu_no_down": (
        "The result has d_ff = {d_ff} features: the down projection W_down, back to d_model, is missing.",
        "结果有 d_ff = {d_ff} 个特征：漏了把它投影回 d_model 的下投影 W_down。",
    ),
    "exercises.decode_not_triple": (
        "Return three arrays, (output, keys, values): the attention output and the cache with this token added. Got"
        " {got}.",
        "请返回三个数组 (output, keys, values)：注意力输出，以及加上这个词元之后的缓存。实际得到 {got}。",
    ),
    "exercises.decode_not_appended": (
        "The new token attended over the cached tokens only: append its key and value first, then attend over all t +"
        " 1 positions (a token may see itself).",
        "新词元只关注了缓存里已有的词元：要先把它的键和值追加进去，再在全部 t + 1"
        " 个位置上计算注意力（词元可以看见自己）。",
    ),
    "exercises.decode_cache_not_grown": (
        "The keys returned still hold {t} tokens: return the cache with the new key and value appended, [h_kv, t + 1,"
        " d], so that the next step finds them.",
        "返回的键仍然只有 {t} 个词元：要返回追加了新键和新值的缓存 [h_kv, t + 1, d]，下一步才能用上它们。",
    ),
    "exercises.decode_appended_first": (
        "The new key was put in front of the cache: append it at the end (np.concatenate([keys, k_t[:, None]],"
        " axis=1)), so that position i keeps holding token i.",
        "新键放在了缓存的最前面：要追加在末尾（np.concatenate([keys, k_t[:, None]], axis=1)），让位置 i 一直存放第 i"
        " 个词元。",
    ),
    "exercises.decode_first_row": (
        "The newest query saw only the first key: that is row 0 of a causal mask. The token being decoded is the last"
        " one, and it may see every cached position: no mask is needed in a decode step.",
        "最新的查询只看到了第一个键：这是因果掩码的第 0 行。正在解码的是最后一个词元，它可以看见缓存里的每个位置："
        "解码一步时不需要掩码。",
    ),
    "exercises.decode_empty_cache": (
        "Right for a filled cache, but the first token (an empty cache, t = 0) raised {error}: with nothing cached"
        " the token attends to itself alone.",
        "缓存里有词元时正确，但第一个词元（缓存为空，t = 0）抛出了异常 {error}：缓存为空时，这个词元只关注它自己。",
    ),
    # --- your attention inside the language model ----------------------------------------------------------
    "lm_model.title": ("your attention inside SmolLM2-135M-Instruct", "把你的注意力放进 SmolLM2-135M-Instruct"),
    "lm_model.inside_grouped": (
        "run as grouped-query attention: {n_heads} query heads, {n_kv_heads} key/value heads",
        "按分组查询注意力运行：{n_heads} 个查询头，{n_kv_heads} 个键/值头",
    ),
    "lm_model.inside_attention": (
        "run inside grouped_attention, each group of {group} query heads with its key/value head",
        "放在 grouped_attention 里运行，每次算 {group} 个查询头和它们共用的一个键/值头",
    ),
    "lm_model.passed": (
        "✓ {title} ({inside}): the logits of all {count} positions of the sentence match the model's own to within"
        " {diff}, through all {layers} layers; its next-token loss is {yours} nats per token.",
        "✓ {title}（{inside}）：你的函数用在了全部 {layers} 层里，句子 {count} 个位置上的对数几率与模型自己算出的"
        "相差不超过 {diff}；预测下一个词元的损失是每个词元 {yours} 奈特。",
    ),
    "lm_model.failed": ("✗ {title} — {diagnosis}", "✗ {title}——{diagnosis}"),
    "lm_model.future": (
        "Your attention lets each token see the tokens after it: the causal mask is not applied. Inside the model"
        " ({inside}) every position can read the very token it has to predict, and its loss on the sentence falls"
        " from {own} to {yours} nats per token. That is not a better prediction but a copied answer, and when the"
        " model writes there is no next token to copy. Use the mask: weight 0 on every key after the query.",
        "你的注意力让每个词元都能看见它后面的词元：没有用因果掩码。放进模型后（{inside}），每个位置都能读到它要预测的"
        "那个词元，句子上的损失从每个词元 {own} 奈特降到 {yours} 奈特。这不是预测得更好，而是抄到了答案；"
        "模型真正生成文本时并没有下一个词元可抄。请用上掩码：排在查询之后的键，权重都应为 0。",
    ),
    "lm_model.softmax_axis": (
        "The softmax runs over the queries (axis −2) instead of the keys (axis −1): each column of the weights sums"
        " to 1, not each query's row. With the causal mask the last key is seen by the last query alone, so it gets"
        " weight 1 there whatever the scores. Inside the model ({inside}) the loss on the sentence rises from {own}"
        " to {yours} nats per token, and the most likely next token is the model's own at {same} of {count}"
        " positions. Normalise each query's row: axis=-1.",
        "softmax 是沿查询（axis −2）做的，应沿键（axis −1）：这样权重的每一列之和为 1，而不是每个查询的那一行。"
        "有因果掩码时，最后一个键只有最后一个查询能看见，所以不管分数是多少，它在那里的权重都是 1。放进模型后"
        "（{inside}），句子上的损失从每个词元 {own} 奈特升到 {yours} 奈特，{count} 个位置中只有 {same}"
        " 个位置最可能的下一个词元与模型自己的相同。请对每个查询的那一行做归一化：axis=-1。",
    ),
    "lm_model.scale_d_model": (
        "Each head was scaled by √d_model = {sqrt_d_model} instead of √d_k = {sqrt_dk}: a head's scores are dot"
        " products of d_k = {d_k} numbers. Inside the model ({inside}) the weights come out flatter and the loss on"
        " the sentence rises from {own} to {yours} nats per token; the most likely next token is the model's own at"
        " {same} of {count} positions.",
        "每个头都按 √d_model = {sqrt_d_model} 缩放了，应该按 √d_k = {sqrt_dk}：一个头的分数是 d_k = {d_k}"
        " 个数的点积。放进模型后（{inside}），权重变得更平，句子上的损失从每个词元 {own} 奈特升到 {yours} 奈特；"
        "{count} 个位置中只有 {same} 个位置最可能的下一个词元与模型自己的相同。",
    ),
    "lm_model.tiled": (
        "The key/value heads were tiled (0 1 2 0 1 2 ...) instead of repeated (0 0 0 1 1 1 ...): query heads 0 .."
        " {g}−1 share K/V head 0. Inside the model ({inside}) six of the nine query heads meet the wrong keys and"
        " values: the loss on the sentence rises from {own} to {yours} nats per token, and the most likely next token"
        " is the model's own at {same} of {count} positions. Use np.repeat(k, {g}, axis=-3), not np.tile.",
        "键/值头被平铺成了 0 1 2 0 1 2 ……，而不是重复成 0 0 0 1 1 1 ……：查询头 0 到 {g}−1 共用键/值头 0。"
        "放进模型后（{inside}），九个查询头里有六个配错了键和值：句子上的损失从每个词元 {own} 奈特升到 {yours}"
        " 奈特，{count} 个位置中只有 {same} 个位置最可能的下一个词元与模型自己的相同。请用 np.repeat(k, {g},"
        " axis=-3)，而不是 np.tile。",
    ),
    "lm_model.scale_missing": (
        "The scores were not scaled by 1/√d_k = 1/{sqrt_dk}. Inside the model ({inside}) the weights come out too"
        " sharp and the loss on the sentence rises from {own} to {yours} nats per token (the same next token at"
        " {same} of {count} positions).",
        "分数没有乘以 1/√d_k = 1/{sqrt_dk}。放进模型后（{inside}），权重过于集中，句子上的损失从每个词元 {own}"
        " 奈特升到 {yours} 奈特（{count} 个位置中有 {same} 个位置的下一个词元相同）。",
    ),
    "lm_model.scale_dk": (
        "The scores were divided by d_k = {d_k} instead of √d_k = {sqrt_dk}. Inside the model ({inside}) the weights"
        " come out too flat and the loss on the sentence rises from {own} to {yours} nats per token (the same next"
        " token at {same} of {count} positions).",
        "分数除以的是 d_k = {d_k}，应该是 √d_k = {sqrt_dk}。放进模型后（{inside}），权重过于平坦，句子上的损失从每个"
        "词元 {own} 奈特升到 {yours} 奈特（{count} 个位置中有 {same} 个位置的下一个词元相同）。",
    ),
    "lm_model.differs": (
        "Inside the model ({inside}) the logits differ from the model's own by up to {worst}: the loss on the sentence"
        " is {yours} nats per token instead of {own}, the same next token at {same} of {count} positions. Check your"
        " function with check_attention (or check_grouped_query_attention) first.",
        "放进模型后（{inside}），对数几率与模型自己算出的最多相差 {worst}：句子上的损失是每个词元 {yours} 奈特，"
        "而不是 {own} 奈特，{count} 个位置中有 {same} 个位置的下一个词元相同。请先用 check_attention（或"
        " check_grouped_query_attention）检查你的函数。",
    ),
    "lm_model.raised": ("Inside the model your function raised {error}", "放进模型后，你的函数抛出了异常 {error}"),
    "lm_model.not_callable": (
        "Expected a function (q, k, v, mask=None) -> (output, weights), got {got}.",
        "这里需要一个函数 (q, k, v, mask=None) -> (output, weights)，收到的却是 {got}。",
    ),
    "lm_model.not_implemented": (
        "Not implemented yet: write the body of your function (and return the result), then run this cell again.",
        "还没有实现：请写好函数体（并 return 结果），然后重新运行这个单元格。",
    ),
    "lm_model.timeout": (
        "Running the model with your function took longer than {seconds} s; look for a loop that never ends. (It may"
        " still be running in the background; restart the kernel if the notebook slows down.)",
        "用你的函数运行模型超过了 {seconds} 秒；检查是否有停不下来的循环。（它可能仍在后台运行；如果笔记本变慢，"
        "请重启内核。）",
    ),
    "lm_model.no_model": (
        "The model could not be loaded ({error}). Fetch its file once, with network access: `python -m"
        " attn_lib.models.fetch`",
        "无法加载模型（{error}）。请在能联网时一次性获取模型文件：`python -m attn_lib.models.fetch`",
    ),
    "lm_float16.note": (
        " Note: your function computes in {dtype}, which keeps about 3 significant digits; through the model's {layers}"
        " layers that rounding moves the logits by a few hundredths, so they were compared to within {diff} (a"
        " float32 or float64 function: to within {strict}).",
        " 注意：你的函数用 {dtype} 计算，它只保留大约 3 位有效数字；经过模型的 {layers} 层，这种舍入会让对数几率"
        "偏差零点零几，所以检查程序按 {diff} 以内的误差比较它们（float32 或 float64 的函数按 {strict} 以内比较）。",
    ),
    "lm_float16.note_long": (
        " Note: your function computes in {dtype}, which keeps about 3 significant digits; through the model's {layers}"
        " layers that rounding moves the logits of the sentence by a few hundredths, and the last logits of the long"
        " text, whose last token sums {window} rounded weights in every local layer, by a few tenths: they were"
        " compared to within {diff} and {diff_long} (a float32 or float64 function: to within {strict}).",
        " 注意：你的函数用 {dtype} 计算，它只保留大约 3 位有效数字；经过模型的 {layers} 层，这种舍入会让句子的对数"
        "几率偏差零点零几，让长文本最后一个位置的对数几率偏差零点几（最后那个词元在每个局部层里要把 {window}"
        " 个舍入过的权重加起来）：所以检查程序分别按 {diff} 和 {diff_long} 以内的误差比较它们（float32 或 float64"
        " 的函数按 {strict} 以内比较）。",
    ),
    # --- your attention inside Gemma 3 270M (notebook 15); the other diagnoses read as lm_model.* ------------
    "lm_gemma.title": ("your attention inside Gemma 3 270M", "把你的注意力放进 Gemma 3 270M"),
    "lm_gemma.inside_grouped": (
        "run as multi-query attention: {n_heads} query heads sharing {n_kv_heads} key/value head",
        "按多查询注意力运行：{n_heads} 个查询头共用 {n_kv_heads} 个键/值头",
    ),
    "lm_gemma.inside_attention": (
        "run inside grouped_attention: the {n_heads} query heads at once, with the {n_kv_heads} key/value head they"
        " share",
        "放在 grouped_attention 里运行：{n_heads} 个查询头一起算，共用那 {n_kv_heads} 个键/值头",
    ),
    "lm_gemma.passed": (
        "✓ {title} ({inside}): the logits of all {count} positions of the sentence match the model's own to within"
        " {diff}, through all {layers} layers (next-token loss: {yours} nats per token); and on the sentence {times}"
        " times over ({long} tokens, past the window of {window}) the last position's logits match too: the {local}"
        " local layers kept to their window.",
        "✓ {title}（{inside}）：你的函数用在了全部 {layers} 层里，句子 {count} 个位置上的对数几率与模型自己算出的"
        "相差不超过 {diff}（预测下一个词元的损失：每个词元 {yours} 奈特）；把句子重复 {times} 遍（{long}"
        " 个词元，超过窗口 {window}）之后，最后一个位置的对数几率也一致：{local} 个局部层都守住了自己的窗口。",
    ),
    "lm_gemma.scale_d_model": (
        "Each head was scaled by √d_model = √{d_model} = {sqrt_d_model} instead of √d_k = {sqrt_dk}: a head's scores"
        " are dot products of its own d_k = {d_k} features, however wide the model is. (In Gemma d_model = {d_model}"
        " is not even h·d_k = {h} × {d_k} = {heads_width}: its heads are wider than d_model / h = {split}.) Inside"
        " the model ({inside}) the weights come out flatter and the loss on the sentence rises from {own} to {yours}"
        " nats per token; the most likely next token is the model's own at {same} of {count} positions.",
        "每个头都按 √d_model = √{d_model} = {sqrt_d_model} 缩放了，应该按 √d_k = {sqrt_dk}：一个头的分数是它自己"
        " d_k = {d_k} 个特征的点积，与模型有多宽无关。（在 Gemma 里，d_model = {d_model} 甚至不等于 h·d_k = {h} ×"
        " {d_k} = {heads_width}：它的头比 d_model / h = {split} 还宽。）放进模型后（{inside}），权重变得更平，"
        "句子上的损失从每个词元 {own} 奈特升到 {yours} 奈特；{count} 个位置中只有 {same}"
        " 个位置最可能的下一个词元与模型自己的相同。",
    ),
    "lm_gemma.scale_heads": (
        "Each head was scaled by √(h·d_k) = √({h} × {d_k}) = {sqrt_heads}, the width of all {h} heads together,"
        " instead of √d_k = {sqrt_dk}. In SmolLM2 that width is d_model; in Gemma it is not (h·d_k = {heads_width},"
        " d_model = {d_model}), and either way a head's scores are dot products of its own d_k = {d_k} features."
        " Inside the model ({inside}) the weights come out flatter and the loss on the sentence rises from {own} to"
        " {yours} nats per token; the most likely next token is the model's own at {same} of {count} positions.",
        "每个头都按 √(h·d_k) = √({h} × {d_k}) = {sqrt_heads} 缩放了，这是全部 {h} 个头合起来的宽度，应该按 √d_k ="
        " {sqrt_dk}。在 SmolLM2 里这个宽度就是 d_model；在 Gemma 里不是（h·d_k = {heads_width}，d_model ="
        " {d_model}），而无论哪种情况，一个头的分数都是它自己 d_k = {d_k} 个特征的点积。放进模型后（{inside}），"
        "权重变得更平，句子上的损失从每个词元 {own} 奈特升到 {yours} 奈特；{count} 个位置中只有 {same}"
        " 个位置最可能的下一个词元与模型自己的相同。",
    ),
    "lm_gemma.no_window": (
        "No window on the local layers: your function built its own causal mask instead of using the mask it is"
        " given. On a local layer a token sees only itself and the {before} tokens before it; on the sentence alone"
        " ({count} tokens) that is every earlier token, so there the two masks agree and your function matched. On"
        " the sentence {times} times over ({long} tokens) the last {beyond} tokens also read, in the {local} local"
        " layers, the first tokens, which lie outside their window: inside the model ({inside}) the last position's"
        " logits differ from the model's own by up to {worst} (its most likely next token: “{your_next}”; the"
        " model's: “{own_next}”). Use the mask you are given: on a local layer it already holds the window.",
        "局部层没有窗口：你的函数自己造了一个因果掩码，而没有用传给它的掩码。在局部层里，一个词元只能看见它自己和它"
        "之前的 {before} 个词元；只有这一句话时（{count} 个词元），这就是之前的全部词元，所以两种掩码一样，你的函数"
        "也对上了。把句子重复 {times} 遍（{long} 个词元）之后，最后 {beyond} 个词元在 {local}"
        " 个局部层里也读到了最前面那些词元，而它们在窗口之外：放进模型后（{inside}），最后一个位置的对数几率与模型"
        "自己的最多相差 {worst}（它最可能的下一个词元：“{your_next}”；模型的：“{own_next}”）。请用传给你的掩码："
        "局部层的掩码里已经带着窗口。",
    ),
    "lm_gemma.differs_long": (
        "On the sentence alone ({count} tokens) your attention matches the model's, but on the sentence {times} times"
        " over ({long} tokens, more than the local layers' window of {window}) the last position's logits differ from"
        " the model's own by up to {worst} (its most likely next token: “{your_next}”; the model's:"
        " “{own_next}”). Beyond {window} tokens the masks of the local and of the global layers differ: use, in"
        " every layer, the mask that layer gives you, and check that your function works on long inputs.",
        "只有这一句话时（{count} 个词元），你的注意力与模型的一致；但把句子重复 {times} 遍（{long}"
        " 个词元，超过局部层的窗口 {window}）之后，最后一个位置的对数几率与模型自己的最多相差 {worst}"
        "（它最可能的下一个词元：“{your_next}”；模型的：“{own_next}”）。超过 {window}"
        " 个词元后，局部层和全局层的掩码就不一样了：每一层都请用那一层传给你的掩码，"
        "并检查你的函数在长输入上也能正确运行。",
    ),
}
