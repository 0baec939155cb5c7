"""attn_lib: the attention mechanism in small, readable numpy functions, for the 注意力机制 course.

The public API (names and contracts fixed by the course specification):

    softmax(x, axis=-1)                                    stable; an all -inf row -> zeros
    scaled_dot_product_attention(q, k, v, mask=None, scale=None) -> (output, weights)
    causal_mask(n)                                         bool [n, n], True on and below the diagonal
    additive_mask(mask)                                    0 where True, -inf where False
    split_heads(x, n_heads), merge_heads(x)                [.., n, d_model] <-> [.., h, n, d_k]
    multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None) -> (output, weights)
    init_multi_head_weights(d_model, n_heads, seed=0)      dict with w_q, w_k, w_v, w_o
    count_parameters(d_model, n_heads, bias=False)         4 d_model^2 (+ 4 d_model with biases)

The formulas the article teaches sit at the top of the package, numpy only, one module each:

    core            softmax, the masks, scaled dot-product attention (notebooks 02-05)
    multihead       split, attend per head, merge, project back; the parameter count (06); cross-attention (09)
    position        position encodings and rotary position embeddings, RoPE (07)
    block           layer norm, the feed-forward network, one transformer block (07)
    dropout         dropout: drop with probability p in training, scale the kept by 1 / (1 - p) (09)
    efficient       tiled attention with an online softmax, and a KV cache (11)
    grouped         grouped-query and multi-query attention, the KV-cache size (12)
    sliding_window  sliding-window masks and their receptive field (12)
    sampling        choosing the next token: greedy, temperature, top-k, top-p, a seeded sampler (13)
    examples        the article's data (猫吃鱼 embeddings, sentences, the d_model table) and the one
                    running 猫吃鱼 example computed from it (cat_example)

The course's machinery lives in folders named for its role (none is loaded with the package):

    models/         the counted, trained and pretrained models, their data and their loaders
    pictures/       heatmaps, diagrams drawn by code, other plots, and the CJK font (use_cjk_font)
    widgets/        the sliders and toggles, one module per group of notebooks
    exercises/      the self-checking exercises, one module per notebook or topic, and their diagnosis
    i18n/           every string the package draws, English and Chinese side by side (set_language)

Importing the package changes nothing global (no seeding, no rcParams, no printing).
"""

from attn_lib.core import additive_mask, causal_mask, scaled_dot_product_attention, softmax
from attn_lib.multihead import (
    count_parameters,
    init_multi_head_weights,
    merge_heads,
    multi_head_attention,
    split_heads,
)

__version__ = "0.1.0"

__all__ = [
    "softmax",
    "scaled_dot_product_attention",
    "causal_mask",
    "additive_mask",
    "split_heads",
    "merge_heads",
    "multi_head_attention",
    "init_multi_head_weights",
    "count_parameters",
]
