"""The words of notebook 13's pictures and sampling widget (attn_lib.pictures.generation_plots, .widgets.generation).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "gen.others": ("the other {n}", "其余 {n} 个"),
    "gen.next_token": ("next token", "下一个词元"),
    "gen.probability": ("probability", "概率"),
    "gen.setting_t": ("T = {t:g}", "T = {t:g}"),
    "gen.setting_k": ("top-k = {k}", "top-k = {k}"),
    "gen.setting_p": ("top-p = {p:g}", "top-p = {p:g}"),
    "gen.setting_sep": (", ", "，"),
    "gen.kept": ("{n} tokens can be drawn", "能抽到的词元：{n} 个"),
    "gen.filters_title": (
        "What temperature, top-k and top-p do to one distribution\n(dashed: the model's own, T = 1)",
        "温度、top-k 和 top-p 对同一个分布做了什么\n（虚线：模型自己的分布，T = 1）",
    ),
    "gen.seed": ("seed {seed}", "种子 {seed}"),
    "gen.loss_axis": ("loss (nats per token)", "损失（每个词元，单位奈特）"),
    "gen.training_title": (
        "Training loss (dashed) and validation loss (solid), seed by seed\ndot: the checkpoint kept",
        "逐个种子的训练损失（虚线）与验证集损失（实线）\n圆点：保留下来的检查点",
    ),
    "gen.training_legend": ("validation loss", "验证集损失"),
    "gen.widget_prompt": ("prompt", "提示"),
    "gen.widget_start": ("(a new sentence)", "（一个新句子）"),
    "gen.widget_temperature": ("temperature T", "温度 T"),
    "gen.widget_greedy": ("0 (greedy)", "0（贪心）"),
    "gen.widget_off": ("off", "不限"),
    "gen.widget_greedy_setting": ("greedy", "贪心"),
    "gen.widget_title": (
        "After {prompt}: the distribution the next token is drawn from ({setting})",
        "“{prompt}”之后：下一个词元从这个分布中抽取（{setting}）",
    ),
    "gen.widget_written": (
        "seed {seed} writes:  {prompt}{text}",
        "种子 {seed} 写出：{prompt}{text}",
    ),
    "gen.widget_info": (
        "{kept} of the {V} tokens can be drawn; the most likely has probability {top:.2f}.",
        "{V} 个词元中能抽到 {kept} 个；最可能的那个概率为 {top:.2f}。",
    ),
}
