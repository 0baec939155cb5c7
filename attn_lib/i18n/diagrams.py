"""The words of the diagrams drawn by code (attn_lib.pictures.diagrams, model_diagrams, modern_diagrams).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "diagrams.output": ("output", "输出"),
    "diagrams.query": ("query q", "查询 q"),
    "diagrams.mask": ("mask", "掩码"),
    "diagrams.steps_title": ("Attention in three steps", "注意力的三个步骤"),
    "diagrams.step1": ("① relevance", "① 算相关性"),
    "diagrams.step2": ("② normalise", "② 归一化"),
    "diagrams.step3": ("③ weighted sum", "③ 加权求和"),
    "diagrams.sum_to_one": ("all ≥ 0, they add up to 1", "都不小于 0，加起来等于 1"),
    "diagrams.qkv_title": ("Three projections of the same X", "同一个 X 的三个投影"),
    "diagrams.q_note": ("query: what the token looks for", "查询：这个词元要找什么"),
    "diagrams.k_note": ("key: what it can be found by", "键：别人凭什么找到它"),
    "diagrams.v_note": ("value: what it passes on", "值：被关注时要传递的内容"),
    "diagrams.qkv_rows": (
        "Each row is one token: a token's q, k and v come from its own row of X only.",
        "每一行对应一个词元：它的 q、k、v 只由 X 中它自己那一行算出。",
    ),
    "diagrams.pipeline_title": ("Scaled dot-product attention, step by step", "缩放点积注意力：逐步拆解"),
    "diagrams.pipe_scores": (
        "scores: every query\nagainst every key",
        "分数：每个查询\n与每个键逐一比较",
    ),
    "diagrams.pipe_scale": (
        "scaled: every score\n÷ √{d_k} = {root:.2f}",
        "缩放：每个分数\n都除以 √{d_k} = {root:.2f}",
    ),
    "diagrams.pipe_mask": (
        "optional: −∞ where\na query may not look",
        "可选：不许看的\n位置加上 −∞",
    ),
    "diagrams.pipe_softmax": (
        "weights: every row\n≥ 0, sums to 1",
        "权重：每行都不小于 0，\n且和为 1",
    ),
    "diagrams.pipe_values": (
        "output: a weighted\nsum of V's rows",
        "输出：对 V 的各行\n加权求和",
    ),
    "diagrams.causal_title": ("The causal mask: who may see whom", "因果掩码：谁能看到谁"),
    "diagrams.causal_note": (
        "Each query sees itself and the tokens before it, never a later one.",
        "每个查询只能看到自己和前面的词元，永远看不到后面的词元。",
    ),
    "diagrams.query_col": ("query", "查询"),
    "diagrams.keys_col": ("the keys it may see", "它能看到的键"),
    "diagrams.causal_bool": ("boolean mask (True = may attend)", "布尔掩码（True 表示可以关注）"),
    "diagrams.causal_add": ("additive form (added to the scores)", "加性形式（加到分数上）"),
    "diagrams.multi_title": (
        "Multi-head attention: split, attend per head, concatenate, mix",
        "多头注意力：拆分、各头分别计算、拼接、再混合",
    ),
    "diagrams.split": ("split the columns", "按列拆分"),
    "diagrams.concat": ("concatenate", "拼接"),
    "diagrams.head_i": ("head {i}: attention", "第 {i} 个头：注意力"),
    "diagrams.multi_note": (
        "h = {h} heads of d_k = {d_k} columns each, together d_model = {d_model} columns: the parameter count, 4 ×"
        " d_model², is the same for every h.",
        "h = {h} 个头，每个头 d_k = {d_k} 列，合起来正好是 d_model = {d_model} 列：参数量 4 × d_model² 与 h 无关。",
    ),
    "diagrams.block_title": (
        "A transformer block (pre-norm): two sublayers, each added to the residual stream",
        "模型中的一层（前置归一化）：两个子层，结果都加回残差流",
    ),
    "diagrams.layer_norm": ("LayerNorm", "层归一化"),
    "diagrams.mha": (
        "multi-head\nattention",
        "多头注意力",
    ),
    "diagrams.mha_h": (
        "multi-head\nattention, h = {h}",
        "多头注意力，h = {h}",
    ),
    "diagrams.ffn": (
        "feed-forward,\nhidden size {d_ff}",
        "前馈网络，\n隐藏层 {d_ff}",
    ),
    "diagrams.block_reads": ("each sublayer reads a normalised copy…", "每个子层读入归一化后的副本……"),
    "diagrams.residual": ("…and adds its result back: the residual stream", "……再把结果加回去：这就是残差流"),
    "diagrams.cross_title": ("Where Q, K and V come from", "Q、K、V 从哪里来"),
    "diagrams.self_attention": (
        "self-attention:\nQ, K and V from one sequence",
        "自注意力：\nQ、K、V 来自同一个序列",
    ),
    "diagrams.cross_attention": (
        "cross-attention:\nQ from the decoder, K and V from the encoder",
        "交叉注意力：\nQ 来自解码器，K 和 V 来自编码器",
    ),
    "diagrams.encoder": ("encoder (source)", "编码器（源语言）"),
    "diagrams.self_caption": ("weights: rows and columns are the same tokens", "权重矩阵：行和列是同一组词元"),
    "diagrams.cross_caption": (
        "weights: a row per target token, a column per source token",
        "权重矩阵：每行是目标语言的一个词元，每列是源语言的一个词元",
    ),
    "diagrams.decoder": ("decoder (target)", "解码器（目标语言）"),
    "diagrams.tiny_title": (
        "The tiny model of notebook 08: attention only, trained to fill the blank",
        "第 8 课的小模型：只有注意力，训练它来填空",
    ),
    "diagrams.blank": ("the blank", "空白处"),
    "diagrams.tiny_embed": (
        "token\nembedding\n+ position\nembedding",
        "词元嵌入\n+ 位置嵌入",
    ),
    "diagrams.tiny_layer": (
        "layer {layer}:\ncausal attention\n{h} heads, d_k = {d_k}",
        "第 {layer} 层：\n因果注意力\n{h} 个头，d_k = {d_k}",
    ),
    "diagrams.tiny_pick": ("the blank's row", "取空白处那一行"),
    "diagrams.tiny_readout": ("read-out", "读出层"),
    "diagrams.tiny_note": (
        "No LayerNorm and no feed-forward layer: attention must do all the routing.",
        "没有层归一化，也没有前馈网络：信息的传递全靠注意力。",
    ),
    "diagrams.kv_title": (
        "The KV cache: each step stores one new key and value (thick border) and reads them all",
        "KV 缓存：每一步存入一个新的键和值（粗框），再读取全部",
    ),
    "diagrams.kv_cache": (
        "the cache: keys (top), values (bottom), room for {n} tokens",
        "缓存：上为键，下为值，可容纳 {n} 个词元",
    ),
    "diagrams.kv_step": ("step {t}", "第 {t} 步"),
    "diagrams.kv_row": (
        "scores computed: {k}   (recomputing everything: {full})",
        "计算的分数：{k} 个（全部重算：{full} 个）",
    ),
    "diagrams.kv_prompt": ("prompt ({n})", "提示（{n} 个）"),
    "diagrams.kv_note_prompt": (
        "Step 1 stores the whole prompt at once (the prefill); each later step stores the one token just written.",
        "第 1 步一次存入整个提示（预填充）；之后每一步只存入刚写出的那一个词元。",
    ),
    "diagrams.kv_note": (
        "The new token's query attends to every stored key; old keys and values never change.",
        "新词元的查询与缓存中的每个键计算分数；旧的键和值从不改变。",
    ),
    "diagrams.tiles_title": (
        "Tiled attention: the scores one tile at a time, with an online softmax",
        "分块注意力：一次只算一块分数，配合在线 softmax",
    ),
    "diagrams.tiles_keys": ("{n} keys, in blocks of {b}", "{n} 个键，每块 {b} 个"),
    "diagrams.tiles_queries": ("{n} queries, in blocks of {b}", "{n} 个查询，每块 {b} 个"),
    "diagrams.tiles_skipped": (
        "hatched: future keys (masked); a tile wholly in the future is skipped",
        "斜线：未来的键（被掩码）；整块都在未来的直接跳过",
    ),
    "diagrams.tiles_state": (
        "Each query row keeps a running max m, a running sum ℓ\nand an unnormalised output o. A new tile of scores"
        " s_j:",
        "每个查询行都维护当前最大值 m、累计和 ℓ\n和未归一化的输出 o。每来一块新分数 s_j：",
    ),
    "diagrams.tiles_end": (
        "After the last tile, divide once: output = o / ℓ.",
        "最后一块处理完，只需除一次：输出 = o / ℓ。",
    ),
    "diagrams.tiles_memory": (
        "Only one {bq} × {bk} tile of scores exists at a time,\nso memory grows with n, not n².",
        "任何时刻只存在一块 {bq} × {bk} 的分数，\n所以内存随 n 增长，而不是随 n² 增长。",
    ),
    "diagrams.kvshare_title": ("Which query heads share keys and values", "哪些查询头共用键和值"),
    "diagrams.kvshare_mha": ("multi-head (MHA)", "多头注意力（MHA）"),
    "diagrams.kvshare_gqa": ("grouped-query (GQA)", "分组查询注意力（GQA）"),
    "diagrams.kvshare_mqa": ("multi-query (MQA)", "多查询注意力（MQA）"),
    "diagrams.kvshare_heads": ("{h} query heads, {kv} K/V heads", "{h} 个查询头，{kv} 个键/值头"),
    "diagrams.kvshare_cache": ("KV cache: {kv}/{h} of multi-head", "KV 缓存：多头的 {kv}/{h}"),
    "diagrams.kvshare_queries": ("query heads", "查询头"),
    "diagrams.kvshare_keys": ("key/value heads", "键/值头"),
    "diagrams.kvshare_note": (
        "Every query head keeps its own W_Q; only the keys and values, what the KV cache stores, are shared.",
        "每个查询头都保留自己的 W_Q；共用的只是键和值，也就是 KV 缓存里存的东西。",
    ),
    "diagrams.window_title": (
        "Sliding window: each layer reaches W − 1 positions further back",
        "滑动窗口：每多一层，就能往前多看 W − 1 个位置",
    ),
    "diagrams.window_layer": ("layer {l}", "第 {l} 层"),
    "diagrams.window_input": ("input", "输入"),
    "diagrams.window_reach": (
        "W = {window}: after {layers} layers the last token depends on {layers} · ({window} − 1) + 1 = {reach}"
        " positions",
        "W = {window}：经过 {layers} 层，最后一个词元依赖 {layers} · ({window} − 1) + 1 = {reach} 个位置",
    ),
    "diagrams.window_note": (
        "Filled: what the last token's output can depend on. Lines: what each position attends to.",
        "实心：最后一个词元的输出能依赖的位置。连线：每个位置关注哪些位置。",
    ),
    # attn_lib.pictures.stack_diagram: a whole decoder-only model, drawn from its config (notebooks 13-15)
    "diagrams.stack_title": ("The whole model, drawn from its config: {family}", "按配置画出的整个模型：{family}"),
    "diagrams.stack_family_gpt": ("GPT-style, notebook 13's tiny language model", "GPT 式，第 13 课的小语言模型"),
    "diagrams.stack_family_llama": ("Llama-style, as SmolLM2", "Llama 式，与 SmolLM2 相同"),
    "diagrams.stack_family_gemma": ("Gemma 3", "Gemma 3"),
    "diagrams.stack_ids": ("token ids [n]", "词元编号 [n]"),
    "diagrams.stack_embed": ("embedding E {shape}", "嵌入 E {shape}"),
    "diagrams.stack_positions": ("+ learned positions P {shape}", "+ 可学习的位置嵌入 P {shape}"),
    "diagrams.stack_blocks": ("{layers}\nblocks", "{layers}\n个块"),
    "diagrams.stack_final_layer_norm": ("final LayerNorm", "最后的层归一化"),
    "diagrams.stack_final_rms_norm": ("final RMSNorm", "最后的 RMSNorm"),
    "diagrams.stack_unembed": ("unembedding Eᵀ {shape}", "反嵌入 Eᵀ {shape}"),
    "diagrams.stack_unembed_untied": ("unembedding W_out {shape}", "反嵌入 W_out {shape}"),
    "diagrams.stack_softmax": ("softmax:\nnext-token probabilities [{vocab}]", "softmax：\n下一个词元的概率 [{vocab}]"),
    "diagrams.stack_tied": ("tied: the same E", "共享权重：同一个 E"),
    "diagrams.stack_untied": ("not tied: two matrices", "不共享权重：两个矩阵"),
    "diagrams.stack_block": ("one of the {layers} blocks, drawn out", "{layers} 个块中的一个，放大来看"),
    "diagrams.stack_residual": ("residual stream", "残差流"),
    "diagrams.stack_layer_norm": ("LayerNorm", "层归一化"),
    "diagrams.stack_rms_norm": ("RMSNorm", "RMSNorm"),
    "diagrams.stack_post_rms_norm": ("RMSNorm after", "子层后的 RMSNorm"),
    "diagrams.stack_post_note": ("norms after each sublayer too", "每个子层之后还要再归一化一次"),
    "diagrams.stack_pre_only": ("pre-norm only: no norm\nafter a sublayer", "只有前置归一化：\n子层之后不再归一化"),
    "diagrams.stack_mha": ("multi-head attention", "多头注意力"),
    "diagrams.stack_gqa": ("grouped-query attention", "分组查询注意力"),
    "diagrams.stack_mqa": ("multi-query attention", "多查询注意力"),
    "diagrams.stack_heads": (
        "{h} heads, each with its own K and V\nd_head = {d}",
        "{h} 个头，各有自己的 K 和 V\nd_head = {d}",
    ),
    "diagrams.stack_shared_heads": (
        "{h} query heads share {kv} K/V heads\nd_head = {d}",
        "{h} 个查询头共用 {kv} 个键/值头\nd_head = {d}",
    ),
    "diagrams.stack_one_head": (
        "{h} query heads share one K/V head\nd_head = {d}",
        "{h} 个查询头共用一个键/值头\nd_head = {d}",
    ),
    "diagrams.stack_rope": ("RoPE on q and k,\nbase {base}", "对 q 和 k 做旋转位置编码，\n底数 {base}"),
    "diagrams.stack_rope_two": (
        "RoPE on q and k, base {base_local}\n(local), {base_global} (global)",
        "对 q 和 k 做旋转位置编码，底数 {base_local}\n（局部层）、{base_global}（全局层）",
    ),
    "diagrams.stack_learned": (
        "no RoPE: learned positions,\nadded to the embedding",
        "不用旋转位置编码：可学习的\n位置嵌入加在嵌入上",
    ),
    "diagrams.stack_qk_norm": (
        "QK-norm: each head's q and k\nRMS-normed before the scores",
        "QK 归一化：算分数之前，\n每个头的 q 和 k 先做 RMSNorm",
    ),
    "diagrams.stack_no_qk_norm": ("no QK-norm", "没有 QK 归一化"),
    "diagrams.stack_window": (
        "local layers: a window of {window};\nglobal layers: every earlier token",
        "局部层：窗口 {window}；\n全局层：全部前文",
    ),
    "diagrams.stack_causal": ("causal: every earlier token,\nin every layer", "因果掩码：每一层\n都看得到全部前文"),
    "diagrams.stack_ffn": ("{kind} feed-forward\nd_ff = {d_ff}", "{kind} 前馈网络\nd_ff = {d_ff}"),
    "diagrams.stack_local": ("local layer, window {window}: {count}", "局部层（窗口 {window}）：{count} 个"),
    "diagrams.stack_global": ("global layer: {count} (layers {layers})", "全局层：{count} 个（第 {layers} 层）"),
    "diagrams.stack_list_sep": (", ", "、"),
    "diagrams.stack_full": ("each of the {count} layers: every earlier token", "{count} 层都看得到全部前文"),
    "diagrams.stack_numbers": (
        "L = {layers} blocks · d_model = {d_model} · {heads} · d_ff = {d_ff} · vocabulary V = {vocab}",
        "L = {layers} 个块 · d_model = {d_model} · {heads} · d_ff = {d_ff} · 词表 V = {vocab}",
    ),
    "diagrams.stack_numbers_heads": (
        "{h} query heads, {kv} K/V heads of {d}",
        "{h} 个查询头、{kv} 个键/值头，每个 {d} 维",
    ),
}
