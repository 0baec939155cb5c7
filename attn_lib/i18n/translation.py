"""The words of notebook 09's pictures (attn_lib.pictures.translation_plots): the encoder–decoder, its masks,
alignments, and the seeds table.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    # draw_encoder_decoder
    "translation.model_title": ("An encoder–decoder translates", "编码器–解码器怎样翻译"),
    "translation.encoder": ("encoder: reads the Chinese", "编码器：读入中文"),
    "translation.decoder": ("decoder: writes the English, one word at a time", "解码器：一个词一个词地写出英文"),
    "translation.embed": ("embedding + positions", "词元嵌入 + 位置编码"),
    "translation.self_pad": ("self-attention\n(padding mask)", "自注意力\n（填充掩码）"),
    "translation.self_causal": ("self-attention\n(causal mask)", "自注意力\n（因果掩码）"),
    "translation.cross": ("cross-attention\n(padding mask)", "交叉注意力\n（填充掩码）"),
    "translation.ffn": ("feed-forward", "前馈网络"),
    "translation.layers": ("× {n} layers", "× {n} 层"),
    "translation.memory": ("memory: one vector per Chinese token", "记忆：每个中文词元一个向量"),
    "translation.kv_from_memory": (
        "K, V from the memory\n(in every decoder layer)",
        "K、V 来自记忆\n（解码器的每一层）",
    ),
    "translation.q_from_decoder": ("Q from the decoder", "Q 来自解码器"),
    "translation.output_layer": ("output layer → next word", "输出层 → 下一个词"),
    "translation.inputs": (
        "reads <bos> and the words so far; writes the next word above each",
        "读入 <bos> 和已写出的词，在每个词上方写出下一个词",
    ),
    "translation.sublayer": ("every sublayer f:", "每个子层 f："),
    # draw_translation_masks
    "translation.masks_title": ("The three masks of an encoder–decoder", "编码器–解码器的三个掩码"),
    "translation.mask_encoder": (
        "① encoder self-attention {shape}\n<pad> keys masked in every row",
        "① 编码器的自注意力 {shape}\n每一行都掩码 <pad> 键",
    ),
    "translation.mask_decoder": (
        "② decoder self-attention {shape}\ncausal: later words masked",
        "② 解码器的自注意力 {shape}\n因果掩码：看不到后面的词",
    ),
    "translation.mask_cross": (
        "③ cross-attention {shape}\n<pad> keys masked; no triangle",
        "③ 交叉注意力 {shape}\n只掩码 <pad> 键，没有因果三角",
    ),
    "translation.queries": ("queries", "查询"),
    "translation.keys": ("keys", "键"),
    "translation.may_attend": ("may attend (True)", "可以关注（True）"),
    # plot_alignment
    "translation.source_axis": ("Chinese token (key)", "中文词元（键）"),
    "translation.target_axis": ("English word being written (query)", "正在写出的英文词（查询）"),
    "translation.learned": ("learned cross-attention", "学到的交叉注意力"),
    "translation.known": ("known alignment (1: translates it)", "已知的对齐（1：译的是它）"),
    "translation.no_alignment": ("no counterpart", "没有对应的词元"),
    "translation.known_mark": ("known alignment", "已知的对齐"),
    "translation.largest_mark": ("largest weight of the row", "这一行最大的权重"),
    "translation.agree": (
        "largest weight on the known token: {hits} of {total} aligned words",
        "最大的权重落在已知对齐的词元上：{total} 个有对应的词中有 {hits} 个",
    ),
    # plot_alignment_by_head
    "translation.by_head_title": (
        "Alignment accuracy of each cross-attention head (test sentences)",
        "每个交叉注意力头的对齐准确率（测试集）",
    ),
    "translation.averaged_tick": ("avg.", "平均"),
    "translation.head_axis": ("cross-attention head", "交叉注意力的头"),
    "translation.layer": ("layer {layer}", "第 {layer} 层"),
    "translation.accuracy_axis": ("largest weight on the\nright token (share)", "最大权重落在\n正确词元上的比例"),
    "translation.averaged": ("the layer's heads averaged", "一层的各头取平均"),
    "translation.diagonal": ("same position: {value:.2f}", "同一位置：{value:.2f}"),
    "translation.uniform": ("uniform guess: {value:.2f}", "均匀猜测：{value:.2f}"),
    # plot_dropout_seeds
    "translation.seeds_title": (
        "{n} seeds, each trained without and with attention dropout",
        "{n} 个随机种子，每个种子不加、加注意力丢弃各训练一次",
    ),
    "translation.test_loss": ("test loss (nats per word)\nlower is better", "测试损失（每词奈特数）\n越低越好"),
    "translation.test_exact": ("test sentences exactly right\nhigher is better", "完全译对的测试句子\n越高越好"),
    "translation.shown_alignment": (
        "alignment accuracy (the view chosen\non validation); higher is better",
        "对齐准确率（在验证集上选的头或平均）\n越高越好",
    ),
    "translation.no_dropout": ("no dropout", "无丢弃"),
    "translation.dropout": ("dropout {drop}", "丢弃率 {drop}"),
    "translation.better": ("better with dropout", "有丢弃时更好"),
    "translation.worse": ("worse with dropout", "有丢弃时更差"),
    "translation.same": ("the same", "两次相同"),
    "translation.tally": (
        "with dropout: better in {better},\nworse in {worse} of {n} seeds",
        "{n} 个随机种子中，有丢弃时\n{better} 个更好，{worse} 个更差",
    ),
    "translation.seed_line": ("one line joins the two runs of one seed", "每条线连着同一个随机种子的两次训练"),
}
