"""The words of notebook 15's checkers (attn_lib.exercises.gemma): QK-norm, the mask of a local layer, a decode step
with a rolling window cache.

Each key maps to its (English, 中文) pair; `attn_lib.i18n.t(key)` picks the language. The checkers also use some
keys of notebooks 12 and 14 (rms_*, gqa_*, decode_empty_cache, case_decode_first), whose words fit as they are.
"""

STRINGS = {
    "exercises.title_qk_norm": ("QK-norm", "QK 归一化"),
    "exercises.title_local_mask": ("the mask of a local layer", "局部层的掩码"),
    "exercises.title_window_decode_step": (
        "one decode step with a rolling window cache",
        "用滚动窗口缓存解码一步",
    ),
    "exercises.case_qk_query_heads": ("4 query heads", "4 个查询头"),
    "exercises.case_qk_key_head": ("the one key head (as in Gemma 3 270M)", "唯一的那个键头（和 Gemma 3 270M 一样）"),
    "exercises.case_qk_tiny": (
        "a head of tiny vectors (mean square equal to eps)",
        "由很小的向量组成的头（均方等于 eps）",
    ),
    "exercises.case_local_all": ("every position a query (n_q = n_k)", "每个位置都是查询（n_q = n_k）"),
    "exercises.case_local_last": ("the queries are the last positions (n_q < n_k)", "查询是最后几个位置（n_q < n_k）"),
    "exercises.case_local_decode": ("one decode step (n_q = 1)", "解码一步（n_q = 1）"),
    "exercises.case_local_wide": ("a window longer than the sequence", "窗口比序列还长"),
    "exercises.case_window_wrapped": ("a full cache that has wrapped around", "已写满并绕回开头的缓存"),
    "exercises.case_window_filling": ("a cache still filling up", "还没写满的缓存"),
    "exercises.case_window_first_eviction": (
        "the first eviction (the cache just full)",
        "第一次淘汰（缓存刚好写满）",
    ),
    # --- QK-norm ---------------------------------------------------------------------------------------------------
    "exercises.qk_norm_over_heads": (
        "The root mean square was taken over the heads (axis 0 of [heads, n, d]). Each head's vector at each position"
        " is normed over its own d = {d} features: the mean over axis=-1, keepdims=True.",
        "均方根是沿着头（[heads, n, d] 的第 0 轴）求的。每个头在每个位置上的向量，要在它自己的 d = {d}"
        " 个特征上归一化：沿 axis=-1 求均值，keepdims=True。",
    ),
    "exercises.qk_norm_over_positions": (
        "The root mean square was taken over the positions (axis -2). QK-norm norms each head's q (or k) at each"
        " position on its own, over its d = {d} features: axis=-1, keepdims=True.",
        "均方根是沿着位置（axis -2）求的。QK 归一化对每个头在每个位置上的 q（或 k）单独归一化，在它的 d = {d}"
        " 个特征上：axis=-1，keepdims=True。",
    ),
    "exercises.qk_norm_all_heads": (
        "The root mean square was taken over all {h} heads' features together (h·d = {hd} numbers per position, as"
        " one RMSNorm over the whole q would). QK-norm norms each head on its own, over its d = {d} features (axis=-1"
        " of [heads, n, d]), so that every head's q and k come out the same size.",
        "均方根是把全部 {h} 个头的特征合在一起求的（每个位置 h·d = {hd} 个数，相当于对整个 q 做一次 RMSNorm）。"
        "QK 归一化对每个头单独归一化，在它自己的 d = {d} 个特征上（[heads, n, d] 的 axis=-1），"
        "这样每个头的 q 和 k 大小都一样。",
    ),
    "exercises.qk_norm_one_plus_gain": (
        "You multiplied by 1 + gain. Gemma trains its gains as offsets from 1 and adds the 1 when it uses them, but"
        " the gains here, like those read from the model file, already include the 1: multiply by gain itself.",
        "你乘的是 1 + gain。Gemma 训练时把增益存成相对于 1 的偏移量，用的时候再加上 1；但这里的增益，"
        "和从模型文件里读出来的一样，已经包含了这个 1：直接乘以 gain 即可。",
    ),
    # --- the mask of a local layer ---------------------------------------------------------------------------------
    "exercises.local_all_rows": (
        "You returned the mask of all {n_k} positions, ({n_k}, {n_k}). Only the last n_q = {n_q} positions are"
        " queries here (positions {first} .. {n_k} − 1): keep the last {n_q} rows, or build them from pos_i = n_k −"
        " n_q + i.",
        "你返回的是全部 {n_k} 个位置的掩码 ({n_k}, {n_k})。这里只有最后 n_q = {n_q} 个位置是查询（位置 {first} 到"
        " {n_k} − 1）：只保留最后 {n_q} 行，或者直接用 pos_i = n_k − n_q + i 来构造。",
    ),
    "exercises.local_wide": (
        "The window is one token too wide: each query sees {seen} keys, pos_i − {window} .. pos_i. A window of"
        " {window} is the query itself and the {window} − 1 positions before it: keep 0 <= pos_i − j < {window}"
        " (strictly less).",
        "窗口宽了一个词元：每个查询看到 {seen} 个键，即 pos_i − {window} 到 pos_i。宽度为 {window}"
        " 的窗口是查询自己加上它之前的 {window} − 1 个位置：条件是 0 <= pos_i − j < {window}（严格小于）。",
    ),
    "exercises.local_narrow": (
        "The window is one token too narrow: each query sees only {seen} keys. A window of {window} is the query"
        " itself and the {window} − 1 positions before it: keep 0 <= pos_i − j < {window}.",
        "窗口窄了一个词元：每个查询只看到 {seen} 个键。宽度为 {window} 的窗口是查询自己加上它之前的 {window} − 1"
        " 个位置：条件是 0 <= pos_i − j < {window}。",
    ),
    "exercises.local_not_causal": (
        "The causal part is missing: a query also sees keys after its own position, the future. A local layer's"
        " window looks back only: 0 <= pos_i − j, and pos_i − j < {window}.",
        "漏了因果的那一半：查询还能看到它自己位置之后的键，也就是未来。局部层的窗口只往回看：0 <= pos_i − j，"
        "并且 pos_i − j < {window}。",
    ),
    "exercises.local_top_left": (
        "The queries were lined up with the first n_q positions (query i at position i). They are the last n_q ="
        " {n_q} of the n_k = {n_k} positions, as when decoding with a cache: query i is at position pos_i = n_k − n_q +"
        " i = {first} + i, so compare pos_i − j with the window, not i − j.",
        "你把查询排在了前 n_q 个位置（查询 i 在位置 i）。它们其实是 n_k = {n_k} 个位置中的最后 n_q = {n_q}"
        " 个，就像用缓存解码时那样：查询 i 在位置 pos_i = n_k − n_q + i = {first} + i，所以要拿 pos_i − j"
        " 和窗口比较，而不是 i − j。",
    ),
    "exercises.local_no_window": (
        "This is the causal mask with no window: every query still sees all earlier keys. Also drop the keys {window}"
        " or more positions back: pos_i − j < {window}.",
        "这是没有窗口的因果掩码：每个查询仍然能看到前面所有的键。还要去掉往前 {window} 个位置及更远的键：pos_i − j"
        " < {window}。",
    ),
    "exercises.local_inverted": (
        "True and False are swapped: True means 'may attend', so the keys inside the window are the True ones.",
        "True 和 False 弄反了：True 表示“可以关注”，所以窗口里的键才是 True。",
    ),
    # --- one decode step with a rolling window cache ---------------------------------------------------------------
    "exercises.window_step_not_four": (
        "Return four values, (output, new_cache_k, new_cache_v, new_length). Got {got}.",
        "请返回四个值 (output, new_cache_k, new_cache_v, new_length)。实际得到 {got}。",
    ),
    "exercises.window_step_grew": (
        "The cache grew to W + 1 = {W} + 1 slots: the new key was appended. A rolling cache keeps its W = {W} slots:"
        " write position p = {p} at slot p % W = {slot}, over the oldest position (the one the window has just"
        " left), or into an empty slot while the cache is filling.",
        "缓存长到了 W + 1 = {W} + 1 个槽位：你把新键追加到了末尾。滚动缓存始终只有 W = {W} 个槽位：把位置 p = {p}"
        " 写到槽位 p % W = {slot}，覆盖最旧的那个位置（窗口刚刚离开它）；缓存还没写满时，就写进一个空槽位。",
    ),
    "exercises.window_step_unchanged": (
        "The cache came back without the new key: store k_t and v_t at slot p % W = {p} % {W} = {slot} (the new"
        " token is position p = {p}) and return the updated cache, so that the next step finds them.",
        "返回的缓存里没有新键：要把 k_t 和 v_t 存到槽位 p % W = {p} % {W} = {slot}（新词元是位置 p = {p}），"
        "并返回更新后的缓存，下一步才能用上它们。",
    ),
    "exercises.window_step_shifted": (
        "You shifted the cache: slot 0 dropped, the new key appended at the end. The attention comes out the same"
        " (it does not depend on the order of the keys), but shifting copies all W slots at every step and moves"
        " every position. A rolling cache writes one slot and leaves the others where they are: position p = {p}"
        " goes to slot p % W = {slot}.",
        "你把缓存整体平移了：丢掉槽位 0，把新键追加到末尾。注意力的结果一样（它与键的顺序无关），但平移每一步都要"
        "复制全部 W 个槽位，还会挪动每个位置。滚动缓存只写一个槽位，其余的原地不动：位置 p = {p} 写到槽位 p % W"
        " = {slot}。",
    ),
    "exercises.window_step_slot": (
        "The new key (position p = {p}) was written to slot {got_slot}, over position {held}, which the window still"
        " holds, while position {oldest}, which the window has just left, stayed in slot {slot}. A rolling cache puts"
        " position p at slot p % W = {p} % {W} = {slot}: the slot of the oldest position.",
        "新键（位置 p = {p}）写到了槽位 {got_slot}，覆盖了位置 {held}，而它还在窗口里；窗口刚刚离开的位置 {oldest}"
        " 却还留在槽位 {slot}。滚动缓存把位置 p 放在槽位 p % W = {p} % {W} = {slot}：也就是最旧那个位置的槽位。",
    ),
    "exercises.window_step_length": (
        "new_length should be {expected}, got {got}: it counts every position so far (the next token is position"
        " {expected}, for slot {expected} % W), not the slots in use (at most W = {W}).",
        "new_length 应该是 {expected}，实际得到 {got}：它数的是到目前为止的全部位置（下一个词元是位置 {expected}，"
        "放进槽位 {expected} % W），而不是已用的槽位数（最多 W = {W}）。",
    ),
    "exercises.window_step_not_stored": (
        "The new token attended over the cached positions only ({filled} of them): store its key and value first,"
        " then attend, so that it sees itself too (its window is itself and the W − 1 = {W} − 1 positions before it).",
        "新词元只关注了缓存里已有的位置（{filled} 个）：要先存入它的键和值，再计算注意力，这样它也能看见自己"
        "（它的窗口是它自己加上之前的 W − 1 = {W} − 1 个位置）。",
    ),
    "exercises.window_step_wide": (
        "The new token attended over W + 1 = {wide} positions: the old cache and itself. With the cache full, the"
        " oldest cached position has just left the window: write the new key over it first (slot p % W), then"
        " attend over the W = {W} slots.",
        "新词元关注了 W + 1 = {wide} 个位置：旧缓存加上它自己。缓存写满以后，缓存里最旧的位置刚刚离开窗口："
        "要先用新键覆盖它（槽位 p % W），再在 W = {W} 个槽位上计算注意力。",
    ),
    "exercises.window_step_empty_slots": (
        "The new token attended over all W = {W} slots, the empty ones too (zeros, never written: the cache is still"
        " filling). Attend only over the slots that hold a position, the first min(p + 1, W) of them.",
        "新词元关注了全部 W = {W} 个槽位，连空槽位也算上了（全是 0，从没写过：缓存还没写满）。只在存着位置的槽位上"
        "计算注意力，也就是前 min(p + 1, W) 个。",
    ),
    "exercises.window_step_scale_d_model": (
        "The scores were scaled by √(h·d) = √({h} × {d}) = {sqrt_hd}, as if by √d_model, the width of all {h} heads"
        " together. Each head's score is a dot product of its own d = {d} features: divide by √d = {sqrt_d}.",
        "分数按 √(h·d) = √({h} × {d}) = {sqrt_hd} 缩放了，相当于按 √d_model，即全部 {h}"
        " 个头合起来的宽度。每个头的分数是它自己 d = {d} 个特征的点积：应该除以 √d = {sqrt_d}。",
    ),
}
