"""The words of the explorer widget (attn_lib.widgets.explorer): a real model's heads and next token, live.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "explore.text_label": ("your text", "你的句子"),
    "explore.text_hint": ("type a sentence, then press Enter", "输入一句话，然后按回车键"),
    "explore.layer_label": ("layer", "层"),
    "explore.head_label": ("head", "头"),
    "explore.all_heads": ("all heads of this layer", "这一层的所有头"),
    "explore.count_label": ("tokens to write", "生成的词元数"),
    "explore.write": ("write", "生成"),
    "explore.running": ("running the model …", "模型正在运行……"),
    "explore.writing": ("writing {i} of {count} …", "正在生成第 {i} 个，共 {count} 个……"),
    "explore.tokens": (
        "{model} reads {n} tokens (the labels of the heatmap):",
        "{model} 读到 {n} 个词元（也就是热力图上的标签）：",
    ),
    "explore.too_long": (
        "This text is {n} tokens long; the explorer shows at most {max} (its heatmaps would be unreadable): shorten"
        " it. The picture still shows the text before.",
        "这段文字有 {n} 个词元，这个交互控件最多显示 {max} 个（再多热力图就看不清了），请缩短一些。"
        "下面仍是上一句的结果。",
    ),
    "explore.empty": ("Type at least one character.", "请至少输入一个字。"),
    "explore.head_title": (
        "layer {layer} of {L}, head {head} of {h}: who attends to whom",
        "第 {layer} 层（共 {L} 层）的第 {head} 个头（共 {h} 个）：谁在关注谁",
    ),
    "explore.info_head": (
        "Layer {layer}, head {head}: each row is a query token and sums to 1. The largest weight off the first token:"
        " {query} → {attended} ({weight:.2f}). On average each row gives {first:.2f} of its weight to the first token"
        " ({first_token}).",
        "第 {layer} 层第 {head} 个头：每一行是一个查询词元，权重加起来等于 1。除第一个词元外最大的一个权重："
        "{query} → {attended}（{weight:.2f}）。平均每一行把 {first:.2f} 的权重给了第一个词元（{first_token}）。",
    ),
    "explore.info_one_token": (
        "Layer {layer}, head {head}: one token can only attend to itself (weight 1).",
        "第 {layer} 层第 {head} 个头：只有一个词元时，它只能关注自己（权重为 1）。",
    ),
    "explore.info_layer": (
        "Layer {layer}: all {h} heads side by side (the same rows and columns as the large heatmap).",
        "第 {layer} 层：{h} 个头并排显示（行和列与大热力图相同）。",
    ),
    "explore.masked": (
        "Grey cells with “—” are masked: a causal model's token never sees the tokens after it.",
        "带“—”的灰色格子是被掩码的：因果模型里的词元看不到它后面的词元。",
    ),
    "explore.bars_title": ("the next token after your text: {setting}", "你的句子之后的下一个词元：{setting}"),
    "explore.bars_line": (
        "tokens that can be drawn: {kept:,} of {V:,}; dashed: the model's own distribution (T = 1)",
        "可以抽到的词元：{kept:,} 个（共 {V:,} 个）；虚线是模型自己的分布（T = 1）",
    ),
    "explore.written": ("written ({setting}, seed {seed}):", "生成的文字（{setting}，种子 {seed}）："),
    "explore.written_none": (
        "Press “write” to let the model continue your text, one token at a time, with the KV cache.",
        "按“生成”，模型会借助 KV 缓存一个词元一个词元地接着你的句子往下写。",
    ),
    "explore.stopped": ("(it wrote its end-of-text token)", "（模型生成了表示文本结束的词元）"),
    "explore.encoder_note": (
        "{model} is an encoder: every token sees every other one, and it predicts no next token.",
        "{model} 是编码器：每个词元都能看到所有其他词元，它也不预测下一个词元。",
    ),
}
