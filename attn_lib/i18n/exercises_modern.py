"""The words of notebook 12's checkers (attn_lib.exercises.modern).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_grouped_query_attention": ("grouped-query attention", "分组查询注意力"),
    "exercises.title_sliding_window_mask": ("sliding-window mask", "滑动窗口掩码"),
    "exercises.title_kv_cache_bytes": ("KV-cache size", "KV 缓存的大小"),
    "exercises.case_gqa_groups": ("6 query heads in 2 groups", "6 个查询头分成 2 组"),
    "exercises.case_gqa_mqa": ("one K/V head for all (multi-query)", "所有查询头共用一个键/值头（多查询）"),
    "exercises.case_gqa_mha": ("one K/V head per query head (multi-head)", "每个查询头各有一个键/值头（多头）"),
    "exercises.case_window": ("a window shorter than the sequence", "比序列短的窗口"),
    "exercises.case_window_one": ("a window of 1", "宽度为 1 的窗口"),
    "exercises.case_window_wide": ("a window longer than the sequence", "比序列还长的窗口"),
    "exercises.case_cache_small": ("small sizes, float32", "较小的尺寸（float32）"),
    "exercises.case_cache_llama": ("Llama 2 7B, 4096 tokens, float16", "Llama 2 7B 的 4096 个词元（float16）"),
    "exercises.case_cache_gqa": ("Llama 2 70B (8 K/V heads), one token", "Llama 2 70B 的一个词元（8 个键/值头）"),
    "exercises.gqa_tiled": (
        "The K/V heads are paired with the wrong query heads: they were tiled (0 1 0 1 ...) instead of repeated (0 0"
        " ... 1 1 ...). Query heads 0 .. {g}−1 form the first group and share K/V head 0, so use np.repeat(k, {g},"
        " axis=-3), not np.tile.",
        "键/值头配错了查询头：它们被平铺成 0 1 0 1 ……，而不是重复成 0 0 …… 1 1 ……。查询头 0 到 {g}−1 是第一组，"
        "共用键/值头 0，所以要用 np.repeat(k, {g}, axis=-3)，而不是 np.tile。",
    ),
    "exercises.gqa_values_tiled": (
        "The weights are right, but the values were tiled (0 1 0 1 ...) instead of repeated: repeat v exactly as k,"
        " np.repeat(v, {g}, axis=-3).",
        "权重正确，但值是平铺的（0 1 0 1 ……），不是重复的：v 要和 k 一样重复，np.repeat(v, {g}, axis=-3)。",
    ),
    "exercises.gqa_not_repeated": (
        "q has {h} heads but k and v have {h_kv} ({error}). Each K/V head serves h / h_kv query heads: repeat k and v"
        " along the heads axis first, np.repeat(k, h // h_kv, axis=-3).",
        "q 有 {h} 个头，k 和 v 只有 {h_kv} 个（{error}）。每个键/值头服务 h / h_kv 个查询头：先沿头所在的轴把 k 和 v"
        " 重复，np.repeat(k, h // h_kv, axis=-3)。",
    ),
    "exercises.gqa_batch_axis": (
        "Right without a batch axis, but wrong with one ({error}). The heads are the third axis from the end: repeat"
        " along axis=-3, not axis=0 or 1.",
        "没有批量轴时正确，有批量轴时出错（{error}）。头是倒数第三个轴：沿 axis=-3 重复，不要沿 axis=0 或 1。",
    ),
    "exercises.window_wide": (
        "The window is one key too wide: each query sees {seen} keys, i − {window} .. i. A window of {window} keys is"
        " i − {window} + 1 .. i: keep 0 <= i − j < {window} (strictly less).",
        "窗口宽了一个键：每个查询看到 {seen} 个键，即 i − {window} 到 i。宽度为 {window} 的窗口是 i − {window} + 1 到"
        " i：条件是 0 <= i − j < {window}（严格小于）。",
    ),
    "exercises.window_narrow": (
        "The window is one key too narrow: each query sees only {seen} keys. A window of {window} keys is i −"
        " {window} + 1 .. i, the query's own key included: keep 0 <= i − j < {window}.",
        "窗口窄了一个键：每个查询只看到 {seen} 个键。宽度为 {window} 的窗口是 i − {window} + 1 到 i，"
        "包括查询自己的键：条件是 0 <= i − j < {window}。",
    ),
    "exercises.window_not_causal": (
        "This is the window without the causal mask: query i also sees up to {window} − 1 keys after itself, the"
        " future. Combine it with the causal mask: (i − j < {window}) & (j <= i).",
        "这是没有加因果掩码的窗口：查询 i 还能看到它后面最多 {window} − 1 个键，也就是未来。要和因果掩码合起来：(i −"
        " j < {window}) & (j <= i)。",
    ),
    "exercises.window_future": (
        "The window points at the future: query i sees keys i .. i + {window} − 1. It should see the past, i −"
        " {window} + 1 .. i (the transpose of what you returned).",
        "窗口朝向了未来：查询 i 看到的是键 i 到 i + {window} − 1。它应该看过去，即 i − {window} + 1 到"
        " i（正好是你返回结果的转置）。",
    ),
    "exercises.window_inverted": (
        "True and False are swapped: True means 'may attend', so the {window} keys inside the window are the True"
        " ones.",
        "True 和 False 弄反了：True 表示“可以关注”，所以窗口里的 {window} 个键才是 True。",
    ),
    "exercises.window_missing": (
        "This is the causal mask with no window: every query still sees all earlier keys. Also drop the keys {window}"
        " or more positions back: i − j < {window}.",
        "这是没有窗口的因果掩码：每个查询仍然能看到前面所有的键。还要去掉往前 {window} 个位置及更远的键：i − j <"
        " {window}。",
    ),
    "exercises.cache_no_factor_2": (
        "{got} bytes is half of {expected}: the factor 2 is missing. Every token keeps a key *and* a value in every"
        " layer.",
        "{got} 字节是 {expected} 的一半：少了因子 2。每个词元在每一层都要存一个键和一个值。",
    ),
    "exercises.cache_numbers": (
        "{got} is the number of cached numbers, not bytes: multiply by bytes_per_number ({bytes}).",
        "{got} 是缓存里数的个数，不是字节数：还要乘以 bytes_per_number（{bytes}）。",
    ),
    "exercises.cache_bits": (
        "{got} is in bits: the answer is in bytes, 8 times fewer ({expected}).",
        "{got} 是比特数：答案要的是字节数，少 8 倍（{expected}）。",
    ),
    "exercises.cache_one_layer": (
        "{got} is the cache of one layer: every one of the {layers} layers keeps its own keys and values.",
        "{got} 只是一层的缓存：{layers} 层中的每一层都各自存着键和值。",
    ),
    "exercises.cache_one_token": (
        "{got} is the cache of one token: multiply by n_tokens ({tokens}), since every token is kept.",
        "{got} 只是一个词元的缓存：还要乘以 n_tokens（{tokens}），每个词元都要存。",
    ),
    "exercises.cache_wrong": (
        "Expected {expected} bytes, got {got}: 2 × n_layers × n_kv_heads × d_head × n_tokens × bytes_per_number.",
        "应为 {expected} 字节，实际得到 {got}：2 × n_layers × n_kv_heads × d_head × n_tokens × bytes_per_number。",
    ),
}
