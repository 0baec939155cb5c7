"""The words of notebook 10's capstone checker (attn_lib.exercises.capstone): your attention in the real model.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "real_model.title": ("your attention inside all-MiniLM-L6-v2", "把你的注意力放进 all-MiniLM-L6-v2"),
    "real_model.passed": (
        "✓ {title}: the {count} sentence embeddings match the model's own (lowest cosine {cosine}), and so does every"
        " attention weight, to within {diff}, in all {layers} layers.",
        "✓ {title}：{count} 个句向量与模型自己算出的一致（最低余弦相似度 {cosine}），{layers}"
        " 层的每个注意力权重也都一致，相差不超过 {diff}。",
    ),
    "real_model.harmless_note": (
        " Note: the exercise's check of a fully masked row still fails; MiniLM's padding never hides a whole row, so"
        " it does not matter here (it does in a causal model with padding, notebook 05).",
        "注意：练习里“整行都被掩码”这项检查仍未通过；MiniLM 的填充掩码从不把整行掩码掉，"
        "所以在这里没有影响（在带填充的因果模型里就有影响，见第 5 课）。",
    ),
    "real_model.failed": ("✗ {title} — {diagnosis}", "✗ {title}——{diagnosis}"),
    "real_model.sep": (" ", ""),
    "real_model.differs": (
        "Your function agrees with attn_lib on the exercise's small inputs, but not inside the model.",
        "在练习的小输入上，你的函数与 attn_lib 一致，放进模型后却不一致了。",
    ),
    "real_model.effect": (
        "Inside the model: the sentence embeddings' cosine to the model's own drops to {cosine} (the lowest of"
        " {count}), and layer {layer}'s attention weights are off by up to {diff}.",
        "放进模型后：句向量与模型自己算出的余弦相似度降到 {cosine}（{count} 个句子中最低的），第 {layer}"
        " 层的注意力权重最多相差 {diff}。",
    ),
    "real_model.effect_weights": (
        "Inside the model the sentence embeddings stay close to the model's own (lowest cosine {cosine} of {count}),"
        " but layer {layer}'s attention weights are off by up to {diff}, more than the {allowed} allowed.",
        "放进模型后，句向量仍与模型自己算出的很接近（{count} 个句子中最低余弦相似度 {cosine}），但第 {layer}"
        " 层的注意力权重最多相差 {diff}，超过了允许的 {allowed}。",
    ),
    "real_model.effect_hidden": (
        "Inside the model this does not show on these sentences (lowest cosine {cosine} of {count}; layer {layer} off"
        " by at most {diff}), but the small inputs catch it.",
        "放进模型后，这些句子上看不出这个错误（{count} 个句子中最低余弦相似度 {cosine}；第 {layer} 层最多相差"
        " {diff}），但小输入能发现它。",
    ),
    "real_model.raised": (
        "Inside the model (layer {layer}) your function raised {error}",
        "放进模型后（第 {layer} 层），你的函数抛出了异常 {error}",
    ),
    "real_model.inside": ("Inside the model (layer {layer}): {finding}", "放进模型后（第 {layer} 层）：{finding}"),
    "real_model.timeout": (
        "Running the model with your function took longer than {seconds} s; look for a loop that never ends. (It may"
        " still be running in the background; restart the kernel if the notebook slows down.)",
        "用你的函数运行模型超过了 {seconds} 秒；检查是否有停不下来的循环。（它可能仍在后台运行；如果笔记本变慢，"
        "请重启内核。）",
    ),
    "real_model.no_model": (
        "The model could not be loaded ({error}). Fetch its files once, with network access: `python -m"
        " attn_lib.models.fetch`",
        "无法加载模型（{error}）。请在能联网时一次性获取模型文件：`python -m attn_lib.models.fetch`",
    ),
}
