"""The words of the heatmaps and plots (attn_lib.pictures): axes, titles, legends, the tiny model's plots.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "cjk_font_missing": (
        "no CJK font is installed and the Chinese font that attn_lib ships, {path}, cannot be read ({reason}):"
        " Chinese labels will show as empty boxes. Reinstall attn_lib with its data files: in the course's folder,"
        " run `python -m pip install -r requirements.txt` (or install a CJK font), then restart the kernel",
        "没有安装中文字体，attn_lib 自带的中文字体 {path} 也读不了（{reason}）：图上的中文会显示成空方框。"
        "请连同数据文件重新安装 attn_lib：在课程文件夹里运行 `python -m pip install -r requirements.txt`"
        "（或者另外安装一种中文字体），然后重启内核",
    ),
    "query_axis": ("query (token attending)", "查询（发出注意力的词元）"),
    "key_axis": ("key (token attended to)", "键（被关注的词元）"),
    "weight": ("attention weight", "注意力权重"),
    "attention_title": ("Attention weights", "注意力权重"),
    "head_title": ("head {i}", "第 {i} 个头"),
    "masked_cell": ("masked: may not attend (weight 0)", "被掩码：不允许关注（权重为 0）"),
    "heads_suptitle": ("{h} heads, d_k = {d_k} each", "{h} 个头，每个头 d_k = {d_k}"),
    "heads_suptitle_one": ("1 head, d_k = {d_k}", "1 个头，d_k = {d_k}"),
    "tiny.layer_head": ("layer {layer}, head {head}", "第 {layer} 层，第 {head} 个头"),
    "tiny.blank_attention_title": ("Where the blank looks", "空白处在看哪里"),
    "tiny.step_axis": ("training step", "训练步数"),
    "tiny.loss": ("training loss", "训练损失"),
    "tiny.validation_accuracy": ("validation accuracy", "验证集准确率"),
    "tiny.test_accuracy": ("test accuracy", "测试集准确率"),
    "tiny.training_title": ("Loss and validation accuracy", "损失与验证集准确率"),
    "tiny.progress_title": (
        "Training: step {step} of at most {max_steps} (validation accuracy {accuracy:.2f})",
        "训练中：第 {step} 步，最多 {max_steps} 步（验证集准确率 {accuracy:.2f}）",
    ),
    "tiny.progress_done": (
        "Training stopped after {steps} steps (validation accuracy {accuracy:.3f})",
        "训练在第 {steps} 步停止（验证集准确率 {accuracy:.3f}）",
    ),
    "tiny.progress_text": (
        "[training curve: loss and validation accuracy, redrawn while training runs]",
        "[训练曲线：损失与验证集准确率，训练进行时不断重画]",
    ),
    "tiny.seed_axis": ("seed", "随机种子"),
    "tiny.seeds_accuracy_title": ("Test accuracy, seed by seed", "每个种子的测试集准确率"),
    "tiny.seeds_attention_title": (
        "Layer {layer}: the blank's weight on each city, seed by seed",
        "第 {layer} 层：空白处分给两个城市的权重（逐个种子）",
    ),
    "tiny.head_on_today": ("head {head} → today-city", "第 {head} 个头 → 今天的城市"),
    "tiny.head_on_yesterday": ("head {head} → yesterday-city", "第 {head} 个头 → 昨天的城市"),
    "tiny.with_decay": ("weight decay {weight_decay:g}", "权重衰减 {weight_decay:g}"),
    "tiny.without_decay": ("no weight decay", "不加权重衰减"),
    "tiny.decay_accuracy_title": (
        "Validation accuracy (axis from 0.9; dashed: the target {target:g})",
        "验证集准确率（纵轴从 0.9 起；虚线：目标 {target:g}）",
    ),
    "tiny.decay_loss_title": ("Training loss", "训练损失"),
    "tiny.attention_training_title": ("The blank's attention during training", "训练过程中空白处的注意力"),
    "tiny.to_today": ("on the today-city", "落在今天的城市上"),
    "tiny.to_yesterday": ("on the yesterday-city", "落在昨天的城市上"),
    "tiny.nothing_hidden": ("nothing hidden", "不掩码"),
    "tiny.hide_today": ("today-city hidden", "掩码掉今天的城市"),
    "tiny.hide_yesterday": ("yesterday-city hidden", "掩码掉昨天的城市"),
    "tiny.chance": ("a blind guess", "盲猜"),
    "tiny.chance_value": ("a blind guess: {chance:.3f}", "盲猜：{chance:.3f}"),
    "tiny.ablation_title": ("Hide one city from the model", "把一个城市掩码掉"),
    "tiny.checkpoint_title": ("Where the blank looks after {step} training steps", "训练 {step} 步后，空白处在看哪里"),
    "tiny.checkpoint_info": (
        "Step {step}: the head that ends up looking most at the today-city (layer {layer}, head {head}) puts"
        " {today:.2f} on it and {yesterday:.2f} on the yesterday-city.",
        "第 {step} 步：训练结束时最看今天城市的那个头（第 {layer} 层，第 {head} 个头）给今天的城市的权重是"
        " {today:.2f}，给昨天的城市的是 {yesterday:.2f}。",
    ),
    "tiny.legend_today": ("today's city", "今天的城市"),
    "tiny.legend_yesterday": ("yesterday's city", "昨天的城市"),
    "tiny.legend_other": ("other tokens", "其他词元"),
    "tiny.legend_target": ("target {target:g}", "目标 {target:g}"),
    "heads.layer": ("layer {layer}", "第 {layer} 层"),
    "heads.previous": (
        "previous-token heads ({count}): average weight ≥ {threshold:g} on key i − 1",
        "前一个词元头（{count} 个）：在键 i − 1 上的平均权重 ≥ {threshold:g}",
    ),
    "heads.next": (
        "next-token heads ({count}): average weight ≥ {threshold:g} on key i + 1",
        "后一个词元头（{count} 个）：在键 i + 1 上的平均权重 ≥ {threshold:g}",
    ),
    "heads.special": (
        "heads that park on [CLS]/[SEP] ({count}): average weight ≥ {threshold:g} on the two together",
        "停靠在 [CLS]、[SEP] 上的头（{count} 个）：两者合计的平均权重 ≥ {threshold:g}",
    ),
    "heads.other": ("none of these ({count})", "都不是（{count} 个）"),
    "heads.band_behind": (
        "a band behind ({count}): of the weight not on [CLS]/[SEP], ≥ {threshold:g} on keys i − 1, i − 2",
        "向后的斜带（{count} 个）：不在 [CLS]、[SEP] 上的权重里，≥ {threshold:g} 落在键 i − 1、i − 2 上",
    ),
    "heads.band_ahead": (
        "a band ahead ({count}): of the weight not on [CLS]/[SEP], ≥ {threshold:g} on keys i + 1, i + 2",
        "向前的斜带（{count} 个）：不在 [CLS]、[SEP] 上的权重里，≥ {threshold:g} 落在键 i + 1、i + 2 上",
    ),
    "heads.grid_title": (
        "All {count} heads on one sentence (rows: layers, columns: heads), framed by type",
        "同一句话上的全部 {count} 个头（行：层，列：头），边框颜色表示类型",
    ),
    "d_model_table.small": ("small", "小型模型"),
    "d_model_table.medium": ("medium", "中型模型"),
    "d_model_table.large": ("large", "大型模型"),
    "d_model_table.very large": ("very large", "超大型模型"),
    "d_model_table.no_row": ("-- in no row --", "（不在任何一行）"),
    "vectors.dot_title": (
        "The dot product: how well k lines up with q, times the two lengths",
        "点积：k 与 q 的方向有多一致，再乘上两者的长度",
    ),
    "vectors.direction": (
        "q's direction (dotted: each key's shadow on it)",
        "q 的方向（虚线：每个键在这条线上的投影）",
    ),
    "vectors.component": ("component {i}", "第 {i} 个分量"),
    "vectors.arrows_title": ("the query and the keys as arrows", "把查询和键画成箭头"),
    "scores.terms_title": (
        "One score, feature by feature: q · k = Σ q_i k_i, then divided by √d_k",
        "把一个分数按特征拆开：q · k = Σ q_i k_i，再除以 √d_k",
    ),
    "scores.terms_panel": (
        "query {q_token}, key {k_token}, d_k = {d_k}: score {score}",
        "查询“{q_token}”、键“{k_token}”，d_k = {d_k}：分数 {score}",
    ),
    "scores.feature": (
        "feature i of q and k (then their sum Σ, and Σ ÷ √d_k)",
        "q 和 k 的第 i 个特征（最后是总和 Σ 和 Σ ÷ √d_k）",
    ),
    "scores.term": ("the product q_i k_i", "乘积 q_i k_i"),
    "scores.positive": ("a positive product", "正的乘积"),
    "scores.negative": ("a negative product", "负的乘积"),
    "scores.jacobian_title": (
        "The softmax's gradient: ∂p_i/∂s_j = p_i (δ_ij − p_j)",
        "softmax 的梯度：∂p_i/∂s_j = p_i (δ_ij − p_j)",
    ),
    "scores.nudged": ("the score s_j that is nudged", "稍微调大的分数 s_j"),
    "scores.weight_i": ("the weight p_i that moves", "随之变化的权重 p_i"),
    "scores.largest_weight": ("largest weight {weight:.2f}", "最大权重 {weight:.2f}"),
    "positions.position": ("position", "位置"),
    "positions.feature": ("feature", "特征"),
    "positions.position_i": ("position i", "位置 i"),
    "positions.position_j": ("position j", "位置 j"),
    "positions.cosine_title": ("cosine of p_i and p_j", "p_i 与 p_j 的余弦相似度"),
}
