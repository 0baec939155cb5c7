"""The words of the widgets (attn_lib.widgets): labels, titles, the lines under the pictures.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "widgets.dk_label": ("d_k (key size)", "d_k（键的维度）"),
    "widgets.scale_label": ("scale by √d_k", "除以 √d_k 缩放"),
    "widgets.scaled": ("scaled by √d_k", "已除以 √d_k"),
    "widgets.unscaled": ("not scaled", "未缩放"),
    "widgets.cat_title": (
        "猫吃鱼: d_k = {d_k}, {mode}\nmean largest weight in a row: {mean_max:.2f}",
        "猫吃鱼：d_k = {d_k}，{mode}\n每行最大权重的平均值：{mean_max:.2f}",
    ),
    "widgets.long_title": (
        "a longer sentence\nmean largest weight in a row: {mean_max:.2f}",
        "较长的句子\n每行最大权重的平均值：{mean_max:.2f}",
    ),
    "widgets.var_title_unscaled": (
        "random q, k: Var(q·k) over all {n:,} sampled pairs = {var:.1f} (≈ d_k = {d_k})",
        "随机的 q、k：全部 {n:,} 对样本上 Var(q·k) = {var:.1f}（约等于 d_k = {d_k}）",
    ),
    "widgets.var_title_scaled": (
        "random q, k: Var(q·k / √d_k) over all {n:,} sampled pairs = {var:.2f} (≈ 1)",
        "随机的 q、k：全部 {n:,} 对样本上 Var(q·k / √d_k) = {var:.2f}（约等于 1）",
    ),
    "widgets.cat_name": ("猫吃鱼", "猫吃鱼"),
    "widgets.long_name": ("我昨天在北京吃了烤鸭，今天在上海吃了", "我昨天在北京吃了烤鸭，今天在上海吃了"),
    "widgets.sentence": ("sentence", "句子"),
    "widgets.row_max": ("largest weight in each row", "每行的最大权重"),
    "widgets.dk_note": (
        "Without the division by √d_k the scores spread out as d_k grows (their variance is about d_k), so at"
        " large d_k each row gives almost all its weight to its largest score. A dot product is alignment ×"
        " length (notebook 02): with the article's raw embeddings, which all point the same way, the three rows"
        " of 猫吃鱼 would mostly pick one shared key (for the course's seed: 鱼 at most d_k up to 64, 吃 from 128"
        " on). The course standardises the embeddings over the tokens first (notebook 04), so that no key can"
        " win every row, at any d_k.",
        "不除以 √d_k 时，d_k 越大，分数越分散（方差约为 d_k），所以 d_k 很大时，每一行几乎把全部权重都给了"
        "自己最大的那个分数。点积等于方向对齐程度乘以长度（第 2 课）：如果直接用文章原来的嵌入向量，三个向量"
        "几乎指向同一个方向，“猫吃鱼”的三行多半会选中同一个键（课程的种子下：d_k 不超过 64 时多是“鱼”，"
        "从 128 起是“吃”）。课程先把嵌入向量在词元之间标准化（第 4 课），这样无论 d_k 取多少，都不会有一个键"
        "在每一行都胜出。",
    ),
    "widgets.sample_line": (
        "Var(q·k) over {n} random pairs of unit-variance vectors with d_k = {d_k}: {var:.2f} (expected about"
        " {expected:g})",
        "在 {n} 对单位方差随机向量上（d_k = {d_k}）测得 Var(q·k) = {var:.2f}（预期约为 {expected:g}）",
    ),
    "widgets.mask_label": ("mask", "掩码"),
    "widgets.mask_none": ("none", "无"),
    "widgets.mask_causal": ("causal", "因果"),
    "widgets.mask_title_none": ("no mask: every token sees every token", "无掩码：每个词元都能看到所有词元"),
    "widgets.mask_title_causal": (
        "causal mask: later keys are masked (weight 0)",
        "因果掩码：后面的键被掩码（权重为 0）",
    ),
    "widgets.heads_label": ("heads h", "头数 h"),
    "widgets.heads_info": (
        "h = {n_heads} heads, so d_k = d_model / h = {d_model} / {n_heads} = {d_k}. Parameters of the block:"
        " {n_params:,} (= 4 × d_model², the same for every h).",
        "h = {n_heads} 个头，所以 d_k = d_model / h = {d_model} / {n_heads} = {d_k}。这一层的参数量：{n_params:,}（="
        " 4 × d_model²，与 h 无关）。",
    ),
    "widgets.heads_info_one": (
        "h = 1 head, so d_k = d_model / h = {d_model} / 1 = {d_k}. Parameters of the block: {n_params:,} (= 4 ×"
        " d_model², the same for every h).",
        "h = 1 个头，所以 d_k = d_model / h = {d_model} / 1 = {d_k}。这一层的参数量：{n_params:,}（= 4 × d_model²，与"
        " h 无关）。",
    ),
    "widgets.temperature_label": ("temperature", "温度"),
    "widgets.setup_title": ("猫吃鱼 at temperature {temperature:.2g}", "温度为 {temperature:.2g} 时的猫吃鱼"),
    "widgets.setup_ok": (
        "If the axes read 猫 吃 鱼 and the heatmap changes when you move the slider, widgets and Chinese characters"
        " work.",
        "如果坐标轴上显示“猫”“吃”“鱼”，并且拖动滑块时热力图随之变化，说明交互控件和中文显示都正常。",
    ),
    "widgets.error": ("Could not redraw: {message}", "无法重绘：{message}"),
    "widgets.still_caption": (
        "A still picture of an interactive widget: run this cell to use its controls (if it stays a still picture,"
        " reload the browser page and run the cell again).",
        "这是交互控件的静态截图：运行这个单元格即可使用控件（如果运行后仍是静态图，请刷新浏览器页面再运行一次）。",
    ),
    "position.offset_label": ("key position", "键的位置"),
    "position.base_label": ("frequency base", "频率的底数"),
    "position.widget_title": (
        "the same token twice, D tokens apart: key at position {offset}, base {base:,}",
        "同一个词元出现两次，相隔 D 个词元：键在位置 {offset}，底数 {base:,}",
    ),
    "position.rope_line": ("RoPE: rope(x, m) · rope(x, n) / √d", "旋转位置编码：rope(x, m) · rope(x, n) / √d"),
    "position.added_line": (
        "sinusoid added: (x + PE_m) · (x + PE_n) / √d",
        "加上正弦编码：(x + PE_m) · (x + PE_n) / √d",
    ),
    "position.added_zero": ("sinusoid added, key at position 0", "加上正弦编码，键在位置 0"),
    "position.distance_axis": ("distance D = m − n (query m, key n)", "距离 D = m − n（查询在 m，键在 n）"),
    "position.score_axis": ("score", "分数"),
    "position.widget_info": (
        "Key at position {offset}, query D tokens later. RoPE: the largest change from the pair at positions 0 and D"
        " is {rope_change:.1e}, so the score depends on D alone. Sinusoid added to the embedding: the largest change"
        " is {added_change:.2f}, so the score depends on where the pair stands.",
        "键在位置 {offset}，查询在它后面 D 个词元处。旋转位置编码：与位置 0 和 D 上那一对相比，最大变化是"
        " {rope_change:.1e}，所以分数只取决于 D。把正弦编码加到嵌入上：最大变化是 {added_change:.2f}，"
        "所以分数还取决于这一对在句子里的位置。",
    ),
    "modern.kv_label": ("K/V heads", "键/值头数"),
    "modern.kv_groups_own": (
        "every query head has its own K/V head (multi-head)",
        "每个查询头都有自己的键/值头（多头注意力）",
    ),
    "modern.kv_groups_one": (
        "all {h} query heads share K/V head 1 (multi-query)",
        "全部 {h} 个查询头共用键/值头 1（多查询注意力）",
    ),
    "modern.kv_group": ("heads {a}–{b} share K/V head {j}", "头 {a}–{b} 共用键/值头 {j}"),
    "modern.kv_group_sep": ("; ", "；"),
    "modern.kv_suptitle": (
        "{h} query heads over 我昨天在北京吃了烤鸭，今天在上海吃了 (causal mask, random weights)",
        "{h} 个查询头，句子：我昨天在北京吃了烤鸭，今天在上海吃了（因果掩码，随机权重）",
    ),
    "modern.kv_info": (
        "n_kv_heads = {n_kv_heads}: each key/value head serves {group} query heads. This layer caches 2 ×"
        " {n_kv_heads} × {n_tokens} × {d_head} = {cache_numbers:,} numbers for the sentence, {fraction:.1%} of"
        " multi-head's {mha_numbers:,}. At the same ratio a Llama 2 7B-sized model (32 layers, 32 query heads of 128,"
        " 4096 tokens, float16) would cache {llama_gib:.3g} GiB instead of 2 GiB.",
        "n_kv_heads = {n_kv_heads}：每个键/值头服务 {group} 个查询头。对这句话，这一层要缓存 2 × {n_kv_heads} ×"
        " {n_tokens} × {d_head} = {cache_numbers:,} 个数，是多头注意力 {mha_numbers:,} 个的 {fraction:.1%}。"
        "按同样的比例，一个 Llama 2 7B 大小的模型（32 层，32 个 128 维的查询头，4096 个词元，float16）要缓存"
        " {llama_gib:.3g} GiB，而不是 2 GiB。",
    ),
    "modern.window_label": ("window W", "窗口 W"),
    "modern.layers_label": ("layers L", "层数 L"),
    "modern.window_mask_title": (
        "one layer: each query sees its last W = {window} keys",
        "一层：每个查询只看最近的 W = {window} 个键",
    ),
    "modern.window_reach_title": (
        "after L = {layers} layers: what each output can depend on",
        "经过 L = {layers} 层：每个输出能依赖哪些输入",
    ),
    "modern.position_query": ("query position i", "查询位置 i"),
    "modern.position_key": ("key position j", "键的位置 j"),
    "modern.position_input": ("input position j", "输入位置 j"),
    "modern.window_info": (
        "W = {window}, L = {layers}: the last token's receptive field is L · (W − 1) + 1 = {formula} positions (the"
        " round figure L · W = {round} counts each layer's own position again). Counted from the composed masks of"
        " the {n} positions drawn: {measured}.",
        "W = {window}，L = {layers}：最后一个词元的感受野是 L · (W − 1) + 1 = {formula} 个位置（常说的 L · W ="
        " {round} 把每一层自己的位置又多算了一次）。由图中 {n} 个位置的掩码逐层复合数出来的结果：{measured}。",
    ),
}
