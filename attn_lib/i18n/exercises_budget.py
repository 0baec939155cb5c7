"""The words of notebook 12's budget checker (attn_lib.exercises.budget).

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "exercises.title_conversations": ("conversations beside the weights", "权重旁边能放下几段对话"),
    "exercises.case_budget_window": (
        "Mistral 7B, 80 GiB, 32,768 tokens, its window of 4096",
        "Mistral 7B，80 GiB，32,768 个词元，窗口 4096",
    ),
    "exercises.case_budget_full": (
        "Mistral 7B, 80 GiB, 32,768 tokens, no window",
        "Mistral 7B，80 GiB，32,768 个词元，不用窗口",
    ),
    "exercises.case_budget_short": ("a conversation shorter than the window", "比窗口短的对话"),
    "exercises.case_budget_llama": ("Llama 2 7B on 24 GiB", "24 GiB 上的 Llama 2 7B"),
    "exercises.case_budget_too_small": ("a GPU too small for the weights", "放不下权重的 GPU"),
    "exercises.budget_not_whole": (
        "{got} is not a whole number of conversations (expected {expected}): a conversation either fits or does not."
        " Round down: free bytes // bytes per conversation.",
        "{got} 不是整数段对话（应为 {expected}）：一段对话要么放得下，要么放不下。要向下取整："
        "剩余字节数 // 每段对话的字节数。",
    ),
    "exercises.budget_negative": (
        "{got} conversations: the weights alone need more than the memory. Nothing fits then; the answer is 0, not a"
        " negative count: max(0, ...).",
        "{got} 段对话：单是权重就超过了显存。这时什么都放不下，答案是 0，而不是负数：max(0, ...)。",
    ),
    "exercises.budget_no_weights": (
        "{got} conversations (expected {expected}): the weights were forgotten. They take 2 bytes per parameter"
        " (float16) of the same memory; only what is left holds caches.",
        "{got} 段对话（应为 {expected}）：忘了权重。权重在同一块显存里占每个参数 2 个字节（float16），"
        "只有剩下的部分才能放缓存。",
    ),
    "exercises.budget_weights_float32": (
        "{got} conversations (expected {expected}): the weights were counted with 4 bytes per parameter. In float16"
        " each takes 2.",
        "{got} 段对话（应为 {expected}）：权重按每个参数 4 个字节算了。float16 每个参数只占 2 个字节。",
    ),
    "exercises.budget_no_factor_2": (
        "{got} conversations (expected {expected}): the cache holds a key *and* a value for every token, layer and"
        " K/V head: the factor 2 is missing.",
        "{got} 段对话（应为 {expected}）：缓存为每个词元、每层、每个键/值头保存一个键和一个值：少了因子 2。",
    ),
    "exercises.budget_window_ignored": (
        "{got} conversations (expected {expected}): the window was ignored. With a sliding window of {window} each"
        " layer keeps only the last {window} tokens (the rolling buffer), not all {tokens}.",
        "{got} 段对话（应为 {expected}）：没有考虑窗口。滑动窗口为 {window} 时，每层只保留最后 {window} 个词元"
        "（滚动缓冲区），而不是全部 {tokens} 个。",
    ),
    "exercises.budget_window_always": (
        "{got} conversations (expected {expected}): a conversation of {tokens} tokens is shorter than the window of"
        " {window}, so it keeps all its {tokens} tokens: min(n_tokens, window).",
        "{got} 段对话（应为 {expected}）：{tokens} 个词元的对话比 {window} 的窗口短，所以它保留全部 {tokens} 个词元："
        "min(n_tokens, window)。",
    ),
    "exercises.budget_wrong": (
        "{got} conversations, expected {expected}: (memory − 2 × parameters) // (KV cache of one conversation in"
        " float16), and 0 when nothing fits.",
        "{got} 段对话，应为 {expected}：(显存 − 2 × 参数个数) // (一段对话的 KV 缓存，float16)，放不下时为 0。",
    ),
}
