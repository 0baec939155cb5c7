"""The words of notebook 09's pictures (attn_lib.pictures.translation_plots): the encoder–decoder, its masks,
alignments, and the seeds table.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "translation.model_title": ("An encoder–decoder translates", "编码器–解码器怎样翻译"),
    "translation.encoder": ("encoder: reads the Chinese", "编码器：读入中文"),
    "translation.decoder": ("decoder: writes the English, word by word", "解码器：一个词一个词地写出英文"),
    "translation.embed": ("embedding + positions", "嵌入 + 位置编码"),
    "translation.self_pad": ("self-attention\n(padding mask)", "自注意力\n（填充掩码）"),
    "translation.self_causal": ("self-attention\n(causal mask)", "自注意力\n（因果掩码）"),
    "translation.cross": ("cross-attention\n(padding mask)", "交叉注意力\n（填充掩码）"),
    "translation.ffn": ("feed-forward", "前馈网络"),
    "translation.layers": ("× {n} layers", "× {n} 层"),
    "translation.memory": ("memory: one vector per Chinese token", "记忆：每个中文词元一个向量"),
    "translation.kv_from_memory": ("K, V from the memory", "K、V 来自记忆"),
    "translation.q_from_decoder": ("Q from the decoder", "Q 来自解码器"),
    "translation.output_layer": ("output layer → next word", "输出层 → 下一个词"),
    "translation.inputs": ("reads: <bos> and the words so far", "读入：<bos> 和已经写出的词"),
    "translation.masks_title": ("The three masks of an encoder–decoder", "编码器–解码器的三个掩码"),
    "translation.mask_encoder": (
        "encoder self-attention:\nno query reads <pad>",
        "编码器的自注意力：\n任何查询都不读 <pad>",
    ),
    "translation.mask_decoder": (
        "decoder self-attention:\nno word reads the future",
        "解码器的自注意力：\n任何词都不读未来",
    ),
    "translation.mask_cross": ("cross-attention:\nno English word reads <pad>", "交叉注意力：\n任何英文词都不读 <pad>"),
    "translation.may_attend": ("may attend (True)", "可以关注（True）"),
    "translation.source_axis": ("Chinese token (key)", "中文词元（键）"),
    "translation.target_axis": ("English word being written (query)", "正在写出的英文词（查询）"),
    "translation.learned": ("learned cross-attention", "学到的交叉注意力"),
    "translation.known": ("the known alignment", "已知的对齐"),
    "translation.no_alignment": ("no counterpart", "没有对应的词"),
    "translation.marks": ("□ known alignment   ● largest weight", "□ 已知的对齐   ● 最大的权重"),
    "translation.by_head_title": (
        "Alignment accuracy of each cross-attention head (test sentences)",
        "每个交叉注意力头的对齐准确率（测试集）",
    ),
    "translation.head": ("head {head}", "第 {head} 个头"),
    "translation.layer": ("layer {layer}", "第 {layer} 层"),
    "translation.accuracy_axis": ("share of aligned words", "对齐正确的词所占的比例"),
    "translation.diagonal": ("same position: {value:.2f}", "同一位置：{value:.2f}"),
    "translation.uniform": ("uniform guess: {value:.2f}", "均匀猜测：{value:.2f}"),
    "translation.seeds_title": (
        "Ten seeds, each trained with and without attention dropout",
        "十个种子，每个都在有、无注意力丢弃时各训练一次",
    ),
    "translation.test_loss": ("test loss (nats per word)", "测试损失（每词奈特数）"),
    "translation.test_exact": ("test sentences exactly right", "完全译对的测试句子"),
    "translation.shown_alignment": (
        "alignment accuracy\n(the view chosen on validation)",
        "对齐准确率\n（在验证集上选出的头或平均）",
    ),
    "translation.dropout": ("dropout {drop}", "丢弃率 {drop}"),
    "translation.seed_line": ("one line: one seed", "一条线：一个种子"),
}
