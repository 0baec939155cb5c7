"""The words of notebook 09's checkers (attn_lib.exercises.translation): cross-attention, the padding mask, dropout.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

_HIDE_PADDING = "np.where(source_mask[..., None, :], scores, -np.inf)"
_KEY_MASK = "(tokens != pad_id)[:, None, :]"
_KEY_MASK_ZH = f"`{_KEY_MASK}`"  # in backticks: code, not the word “tokens” in Chinese prose
_DROP = "weights * (rng.random(weights.shape) >= p) / (1 - p)"

STRINGS = {
    "exercises.title_cross_attention": ("cross-attention", "交叉注意力"),
    "exercises.title_padding_mask": ("the padding mask", "填充掩码"),
    "exercises.title_attention_dropout": ("attention dropout", "注意力丢弃"),
    "exercises.case_cross_padded": ("a source sentence with padding", "带填充的原文句子"),
    "exercises.case_cross_longer_target": ("a target longer than its unpadded source", "译文比没有填充的原文长"),
    "exercises.case_cross_first_word": ("one query (the first word)", "只有一个查询（写第一个词时）"),
    "exercises.case_cross_batch": ("a batch of differently padded sentences", "填充各不相同的一批句子"),
    "exercises.case_pad_batch": ("a batch padded with 0", "用 0 填充的一批句子"),
    "exercises.case_pad_other_id": ("a pad id other than 0", "不是 0 的填充编号"),
    "exercises.case_pad_real_zero": ("a real token with id 0 (pad id 1)", "编号为 0 的真实词元与填充编号 1"),
    "exercises.case_pad_none": ("sentences without padding", "没有填充的句子"),
    "exercises.case_pad_one": ("a single pad at the end", "末尾只有一个填充词元"),
    "exercises.case_drop_eval": ("evaluation", "评估时"),
    "exercises.case_drop_train": ("training with p = 0.1", "p = 0.1 时训练"),
    "exercises.case_drop_heads": ("training on [B, h, n_q, n_k] with p = 0.5", "在 [B, h, n_q, n_k] 上以 p = 0.5 训练"),
    "exercises.case_drop_zero": ("training with p = 0", "p = 0 时训练"),
    "exercises.case_drop_seed": ("the same seed again", "再用同一个随机种子"),
    "exercises.word_rng_untouched": (
        "it came back with not one number drawn from it",
        "它原封未动，一个随机数也没从里面抽过",
    ),
    "exercises.word_rng_differs": (
        "two calls with generators of the same seed dropped different entries",
        "两次调用用的是同一个随机种子的生成器，丢弃的数却不一样",
    ),
    # --- cross-attention ---
    "exercises.cross_kv_from_decoder": (
        "The keys and values come from x, the decoder's own vectors (the weights have {n_q} columns, one per word"
        " written so far, not {n_k}, one per source token): that is self-attention, and the decoder never reads the"
        " source sentence. Take the keys and values from the encoder's output: k = memory @ w_k, v = memory @ w_v"
        " (the queries stay q = x @ w_q).",
        "键和值是用 x 算的，也就是解码器自己的向量：权重有 {n_q} 列，每个已写出的词一列，而不是每个原文词元一列的"
        " {n_k} 列。这是自注意力，解码器根本读不到原文。键和值要用编码器的输出来算：`k = memory @ w_k`、"
        "`v = memory @ w_v`，查询仍是 q = x @ w_q。",
    ),
    "exercises.cross_queries_from_memory": (
        "The queries come from memory, the encoder's output: the weights have one row per source token ({n_k})"
        " instead of one per word being written ({n_q}). In cross-attention the word being written asks the question,"
        " q = x @ w_q; what it looks up, the keys and values, comes from the source: k = memory @ w_k,"
        " v = memory @ w_v.",
        "查询是用编码器的输出 `memory` 算的：权重每一行对应一个原文词元，共 {n_k} 行，而应当是每个要写的词一行，共"
        " {n_q} 行。交叉注意力里，提问的是正在写的词：q = x @ w_q；它要查找的键和值才来自原文：`k = memory @ w_k`、"
        "`v = memory @ w_v`。",
    ),
    "exercises.cross_causal": (
        "A causal mask was applied: query i sees only source tokens 0..i. The causal mask belongs to the decoder's"
        " self-attention, which must not read words not yet written; the source sentence is known in full before the"
        " first word is written, so every query may read every real source token. Use the padding mask only.",
        "这里用了因果掩码：查询 i 只能看到原文的前 i + 1 个词元。因果掩码属于解码器的自注意力，那里不能读还没写出的词；"
        "而原文在写第一个词之前就已完整给出，每个查询都可以读原文里每一个真实的词元。这里只用填充掩码。",
    ),
    "exercises.cross_mask_missing": (
        "The padding mask is missing: the queries give weight to the <pad> tokens at the end of the source, which are"
        f" no words at all. Hide them before the softmax: {_HIDE_PADDING} (or pass source_mask[..., None, :] as"
        " mask= to scaled_dot_product_attention).",
        "缺了填充掩码：查询把权重分给了原文末尾的填充词元，而它们根本不是词。要在 softmax 之前把它们掩码掉："
        f"{_HIDE_PADDING}，也可以把 source_mask[..., None, :] 作为 mask= 传给 scaled_dot_product_attention。",
    ),
    "exercises.cross_mask_inverted": (
        "The padding mask is used the wrong way round: the weights sit on the <pad> tokens and the real source tokens"
        " get 0. In source_mask, True marks a real token, one a query may read (the course's convention since"
        f" notebook 05): {_HIDE_PADDING}.",
        "填充掩码用反了：权重落在了填充词元上，真实的原文词元反而是 0。source_mask 里 True 表示真实的词元，"
        f"也就是查询可以读的位置，这是从第 5 课起的约定：{_HIDE_PADDING}。",
    ),
    "exercises.cross_pad_leak": (
        "Query {i} gives weight {w} to source token {j}, a <pad> that the mask hides: padding must get weight exactly"
        f" 0. Set the hidden scores to −inf before the softmax: {_HIDE_PADDING}.",
        "查询 {i} 给了原文第 {j} 个词元权重 {w}，而它是被掩码的填充词元：填充的权重必须恰好是 0。在 softmax"
        f" 之前把被掩码的分数设为 −inf：{_HIDE_PADDING}。",
    ),
    "exercises.cross_batch_mask": (
        "Correct for one sentence, but it fails on a batch ({error}). source_mask is [B, n_k], one row per sentence;"
        " numpy lines up the last axes, so against the scores [B, n_q, n_k] its B = {b} meets the query axis"
        " (n_q = {n_q}). Give it an axis for the queries: source_mask[..., None, :] is [B, 1, n_k] (and [1, n_k] for"
        " one sentence).",
        "单个句子正确，但批量输入时出错（{error}）。source_mask 的形状是 [B, n_k]，每个句子一行；numpy"
        " 从最后一个轴开始对齐，所以和形状为 [B, n_q, n_k] 的分数放在一起时，它的 B = {b} 碰上的是查询那个轴，"
        "n_q = {n_q}。要给它加一个查询的轴：source_mask[..., None, :] 的形状是 [B, 1, n_k]，单个句子时是 [1, n_k]。",
    ),
    # --- the padding mask ---
    "exercises.padding_inverted": (
        "True and False are swapped: in this course True means “may attend”, so a real token is True and padding is"
        f" False: {_KEY_MASK}.",
        f"True 和 False 反了：本课程里 True 表示“可以关注”，所以真实的词元是 True，填充是 False：{_KEY_MASK_ZH}。",
    ),
    "exercises.padding_on_queries": (
        "The mask has shape [B, n, 1] = ({b}, {n}, 1): it marks the padding on the query axis (the rows), so a <pad>"
        " query is switched off while every query can still read the <pad> keys. Padding hides keys, the columns:"
        f" return [B, 1, n], {_KEY_MASK}.",
        "掩码的形状是 [B, n, 1] = ({b}, {n}, 1)：它把填充标在了查询的轴上，也就是行上，于是填充位置的查询被关掉了，"
        "每个查询却照样能读填充位置的键。填充要掩码的是键，也就是列：应返回 [B, 1, n]，即"
        f" {_KEY_MASK_ZH}。",
    ),
    "exercises.padding_no_query_axis": (
        "The mask has shape [B, n] = ({b}, {n}), without the axis for the queries. Against the scores [B, n_q, n_k]"
        " numpy lines up the last axes, so B would meet the query axis: an error when B ≠ n_q, and worse, when"
        " B = n_q, sentence i's mask silently applied to query i of every sentence. Add the axis:"
        f" {_KEY_MASK} has shape [B, 1, n].",
        "掩码的形状是 [B, n] = ({b}, {n})，少了查询的那个轴。和形状为 [B, n_q, n_k] 的分数放在一起时，numpy"
        " 从最后一个轴开始对齐，B 就会碰上查询的轴：B ≠ n_q 时报错；更糟的是 B = n_q 时不报错，"
        "第 i 个句子的掩码被悄悄用到了每个句子的第 i 个查询上。把这个轴加上："
        f"{_KEY_MASK_ZH} 的形状是 [B, 1, n]。",
    ),
    "exercises.padding_pad_zero": (
        "The pad id is hard-coded to 0, but here it is {pad_id} (and a real token may have the id 0). Compare with"
        f" the argument: {_KEY_MASK}.",
        "你把填充编号写死成了 0，而这里的填充编号是 {pad_id}，编号为 0 的也可能是真实的词元。"
        f"要和参数比较：{_KEY_MASK_ZH}。",
    ),
    "exercises.padding_first_only": (
        "Only the first pad of each sentence is hidden; the pads after it are still True. Compare every token with"
        f" the pad id: {_KEY_MASK}.",
        f"每个句子只有第一个填充词元被掩码，后面的仍是 True。要把每个词元都和填充编号比较：{_KEY_MASK_ZH}。",
    ),
    # --- attention dropout ---
    "exercises.dropout_nothing_dropped": (
        "In training with p = {p}, not one weight was set to 0. Drop each entry with probability p and divide the"
        " kept ones by 1 − p. (Is the training flag read the wrong way round?)",
        "训练时 p = {p}，却没有一个权重置为 0。训练时要以概率 p 丢弃每个数，其余的除以 1 − p。"
        "是不是把是否在训练的标志读反了？",
    ),
    "exercises.dropout_rows": (
        "Whole rows are dropped: each row of the output is either all 0 or all kept. Dropout decides for every entry"
        " on its own: draw one random number per weight, of the weights' full shape (e.g. rng.random(weights.shape)),"
        " not one per row.",
        "丢弃的是整行：输出的每一行要么全是 0，要么全部保留。丢弃要对每一个数单独决定：每个权重抽一个随机数，"
        "形状和权重完全一样，例如 rng.random(weights.shape)，而不是每行一个。",
    ),
    "exercises.dropout_columns": (
        "Whole columns are dropped: every query loses the same keys. Dropout decides for every entry on its own: draw"
        " one random number per weight, of the weights' full shape (e.g. rng.random(weights.shape)), not one per key.",
        "丢弃的是整列：每个查询丢掉的都是同样的几个键。丢弃要对每一个数单独决定：每个权重抽一个随机数，"
        "形状和权重完全一样，例如 rng.random(weights.shape)，而不是每个键一个。",
    ),
    "exercises.dropout_keeps_p": (
        "A share {share} of the weights was dropped: about 1 − p = {keep}, not p = {p}. p is the probability of"
        " dropping an entry, not of keeping it: keep an entry when its random number is ≥ p"
        " (rng.random(weights.shape) >= p).",
        "被丢弃的权重占 {share}，接近 1 − p = {keep}，而不是 p = {p}。p 是丢弃一个数的概率，不是保留它的概率："
        "随机数 ≥ p 的那些才保留，即 rng.random(weights.shape) >= p。",
    ),
    "exercises.dropout_share": (
        "A share {share} of the weights was dropped, too far from p = {p} on this many weights (more than a few"
        " standard errors). Drop each entry on its own, with probability p.",
        "被丢弃的权重占 {share}，在这么多权重上离 p = {p} 太远了，超出了好几个标准误。每个数要各自以概率 p 丢弃。",
    ),
    "exercises.dropout_not_scaled": (
        "The right share is dropped, but the kept weights were not divided by 1 − p = {keep}: on average the output"
        " is then only {keep} times the weights, and at evaluation the model would see larger numbers than in"
        " training. Divide the kept ones by 1 − p (times {scale} here), so that every entry's expected value stays"
        " its weight. The original dropout paper scaled at evaluation instead; this course, like PyTorch, scales"
        " during training and leaves evaluation untouched.",
        "丢弃的比例对了，但保留下来的权重没有除以 1 − p = {keep}：这样输出平均只有权重的 {keep}"
        " 倍，模型在评估时看到的数会比训练时大。保留的要除以 1 − p，这里就是乘以 {scale}，这样每个数的期望值仍是"
        "原来的权重。最初提出丢弃的论文是在评估时缩放的；本课程和 PyTorch 一样在训练时缩放，评估时什么都不动。",
    ),
    "exercises.dropout_times_keep": (
        "The kept weights were multiplied by 1 − p = {keep} instead of divided by it, so the output shrinks twice:"
        f" once by the dropped entries and once by the factor. Divide instead, e.g. {_DROP}.",
        "保留下来的权重乘了 1 − p = {keep}，而应该除以它：这样输出缩小了两次，一次因为丢弃，一次因为这个系数。"
        f"要除以它，例如 {_DROP}。",
    ),
    "exercises.dropout_entry": (
        "At index {index} the output is {got}, neither 0 nor weight / (1 − p) = {expected}: a kept weight is divided"
        " by 1 − p and nothing else, a dropped one is exactly 0.",
        "输出在下标 {index} 处是 {got}，既不是 0，也不是权重除以 1 − p 得到的 {expected}：保留的权重只除以 1 − p，"
        "别的什么都不做，丢弃的恰好是 0。",
    ),
    "exercises.dropout_biased": (
        "The zeros and the kept entries look right, but the output's mean is {got}, not the weights' mean {expected}"
        " (more than a few standard errors off): the entries dropped are not chosen at random (small ones dropped"
        " more often than large ones, or the other way round). Let a random number from rng decide each entry's"
        " fate, whatever its value.",
        "零和保留下来的数看起来都对，但输出的平均值是 {got}，不是权重的平均值 {expected}，差了好几个标准误："
        "被丢弃的数不是随机选的，小的比大的更常被丢弃，或者反过来。每个数丢还是留，都要由从生成器抽出的随机数决定，"
        "与它的大小无关。",
    ),
    "exercises.dropout_eval_scaled": (
        "At evaluation (training=False) the weights came back multiplied by 1 − p = {keep}. That is the original"
        " dropout paper's convention: drop without scaling in training, multiply by 1 − p at test time. This course"
        " divides the kept weights by 1 − p during training instead, so that evaluation is untouched: with"
        " training=False, return the weights unchanged.",
        "评估时，返回的权重乘了 1 − p = {keep}。这是最初提出丢弃的论文的做法：训练时只丢弃、不缩放，测试时乘以"
        " 1 − p。本课程改为在训练时把保留的权重除以 1 − p，所以评估时什么都不用动：不在训练时，原样返回权重。",
    ),
    "exercises.dropout_at_eval": (
        "At evaluation (training=False) your function changed the weights (index {index} holds {got}, not"
        " {expected}): dropout is noise for training only, and at evaluation the weights must come back unchanged."
        " Start with: if not training: return weights.",
        "评估时，你的函数改动了权重：下标 {index} 处是 {got}，而不是 {expected}。丢弃只是训练时加的噪声，"
        "评估时权重必须原样返回。函数开头先看是否在训练，不在训练就直接 return weights。",
    ),
    "exercises.dropout_ignores_rng": (
        "Your dropout does not draw its random numbers from rng, the generator passed in (default_rng({seed})"
        " here): {how}. Then no run can be repeated. Draw from the argument, e.g. rng.random(weights.shape) >= p;"
        " np.random.rand(...) and a new np.random.default_rng() inside the function use other sources.",
        "你的丢弃没有从传入的生成器抽随机数，这里传入的是 default_rng({seed})：{how}。这样一来，同样的运行无法重复。"
        "要从这个参数里抽，例如 rng.random(weights.shape) >= p；在函数里用 np.random.rand(...)"
        " 或新建一个 np.random.default_rng()，用的都是别的随机源。",
    ),
    "exercises.dropout_in_place": (
        "Your function changed the weights it was given, in place (weights *= ..., weights[...] = 0): the caller's"
        " attention weights are spoiled, and the backward pass and the heatmaps need them as they were. Compute a new"
        f" array: {_DROP} leaves weights alone.",
        "你的函数就地改动了传进来的权重，比如 weights *= ... 或 weights[...] = 0：调用者手里的注意力权重被破坏了，"
        f"而反向传播和热力图都要用原来的权重。请算出一个新数组：{_DROP} 不会改动 weights。",
    ),
}
