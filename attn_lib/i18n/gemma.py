"""The words of notebook 15's pictures (attn_lib.pictures.gemma_plots): Gemma 3 270M, a real model that reads Chinese.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "gemma.layer": ("layer", "层"),
    "gemma.head": ("head", "头"),
    "gemma.global_tick": ("{l} (global)", "{l}（全局）"),
    "gemma.global_tick_2": ("{l}\n(global)", "{l}\n（全局）"),
    # plot_bos_share
    "gemma.bos_title": (
        "How much attention goes to <bos>\n(mean weight the queries after it put on the <bos> key)",
        "注意力有多少落在 <bos> 上\n（<bos> 之后的查询放在 <bos> 这个键上的平均权重）",
    ),
    "gemma.bos_share": ("weight on <bos>", "放在 <bos> 上的权重"),
    # draw_local_global_layers
    "gemma.layers_title": (
        "What the token at position {q} can read: {n_local} local layers (window {window}), {n_global} global ones",
        "位置 {q} 上的词元能读到哪些位置：{n_local} 个局部层（窗口 {window}），{n_global} 个全局层",
    ),
    "gemma.one_layer_title": ("each layer alone: the keys its query sees", "单独一层：它的查询能看到的键"),
    "gemma.reach_title": (
        "layers 1 to this one: what the output can depend on",
        "第 1 层到这一层：输出能依赖的位置",
    ),
    "gemma.position_axis": ("position (the query is at {q})", "位置（查询在 {q}）"),
    "gemma.local_legend": ("local layer: the last {window} positions", "局部层：最近的 {window} 个位置"),
    "gemma.global_legend": ("global layer: every earlier position", "全局层：之前的每一个位置"),
    "gemma.reach_count": ("{n} positions", "{n} 个位置"),
    "gemma.reach_all": ("all {n}, back to the start", "全部 {n} 个，直到开头"),
    # plot_kv_cache_bytes
    "gemma.kv_title": ("How many bytes the KV cache keeps per token", "KV 缓存为每个词元保存多少字节"),
    "gemma.kv_axis": (
        "KiB per token (the keys and values of every layer, float32)",
        "每个词元的 KiB（每一层的键和值，float32）",
    ),
    "gemma.kv_formula": (
        "formula: 2 × layers × K/V heads × d_head × 4 bytes",
        "公式：2 × 层数 × 键/值头数 × d_head × 4 字节",
    ),
    "gemma.kv_measured": ("measured: the cache's buffers ÷ its capacity", "实测：缓存的缓冲区字节数 ÷ 它的容量"),
    "gemma.kv_not_measured": ("(not measured)", "（未实测）"),
    "gemma.kib": ("{kib} KiB", "{kib} KiB"),
    # plot_score_ranges
    "gemma.score_title": (
        "The largest |score| in each layer, with QK-norm and with it removed",
        "保留和去掉 QK 归一化时，每一层最大的 |分数|",
    ),
    "gemma.with_norm": ("with QK-norm (as the model was trained)", "保留 QK 归一化（模型训练时的样子）"),
    "gemma.without_norm": ("QK-norm removed", "去掉 QK 归一化"),
    "gemma.score_axis": ("largest |score| (q·k / √d_k)", "最大的 |分数|（q·k / √d_k）"),
    "gemma.log_scale": ("{label}, log scale", "{label}，对数坐标"),
}
