"""What notebook 12 says about each published configuration it prints (attn_lib.models.configs.source_note).

Each key is "configs.source." + the configuration's name. The English is the source as the data names it; the
Chinese says what the source shows, then cites it as it is (paper and file names stay in English).
"""

STRINGS = {
    "configs.source.Llama 2 7B": (
        "{source}",
        "Llama 2 论文的表 1 和模型的 config.json：上下文 4k；Llama 2 只有 34B 和 70B 两种规模用了分组查询注意力，"
        "7B 用的是多头注意力。出处：{source}",
    ),
    "configs.source.OPT-13B": (
        "{source}",
        "OPT 论文的表 1；PagedAttention 论文讲内存难题的那一节算出它每个词元的 KV 缓存是 800 KB："
        "2（一个键和一个值）× 5120（隐藏状态的大小）× 40（层数）× 2（FP16 的字节数）。出处：{source}",
    ),
    "configs.source.Llama 2 70B": (
        "{source}",
        "Llama 2 论文的表 1，以及讲分组查询注意力的第 2.2 节；模型的 config.json 里 num_key_value_heads 是 8。"
        "出处：{source}",
    ),
    "configs.source.Mistral 7B": (
        "{source}",
        "Mistral 7B 论文的表 1：8 个键/值头，滑动窗口 4096 个词元，上下文 8192 个词元。出处：{source}",
    ),
    "configs.source.Falcon 7B": (
        "{source}",
        "模型的 config.json 里写着 `multi_query: true`：71 个 64 维的查询头只配一个键头和一个值头，也就是多查询注意力。"
        "出处：{source}",
    ),
}
