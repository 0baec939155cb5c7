"""The words of notebook 14's pictures (attn_lib.pictures.lm_plots): the real language model.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language.
"""

STRINGS = {
    "lm.block_position": ("position in the block (0 .. 31)", "块内位置（0 到 31）"),
    "lm.block_weight": ("weight", "权重"),
    "lm.block_title": (
        "One Q4_1 block: 32 weights, each one of the 16 levels m + d·q (d = {d}, m = {m}, q = 0 .. 15)",
        "一个 Q4_1 块：32 个权重，每个都是 m + d·q 这 16 个取值之一（d = {d}，m = {m}，q = 0 到 15）",
    ),
    "lm.row_characters": ("characters", "字符"),
    "lm.row_bytes": ("UTF-8 bytes", "UTF-8 字节"),
    "lm.row_tokens": ("tokens", "词元"),
    "lm.bytes_title": (
        "{chars} characters, {bytes} bytes, {tokens} tokens: the tokens cut through the characters",
        "{chars} 个字符，{bytes} 个字节，{tokens} 个词元：词元的边界切在字符中间",
    ),
    "lm.head": ("head", "头"),
    "lm.layer": ("layer", "层"),
    "lm.induction_title": (
        "Induction score of every head\n(weight from a repeated token to the one that followed it)",
        "每个头的归纳分数\n（重复出现的词元放在它上一次出现时后面那个词元上的权重）",
    ),
    "lm.induction_score": ("induction score", "归纳分数"),
}
