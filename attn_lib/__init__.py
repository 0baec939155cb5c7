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

Around the core, one module per concept (import them by name; none is loaded with the package):

    examples        the article's data (猫吃鱼 embeddings, sentences, the d_model table) and the one
                    running 猫吃鱼 example computed from it (cat_example)
    plotting        attention heatmaps with Chinese labels (use_cjk_font), masked cells drawn as such
    diagrams        box-and-arrow schematics of every mechanism, drawn by code (model_diagrams, diagram_kit)
    widgets         the d_k slider, mask toggle and heads slider of notebooks 00-06
    widget_figures  the fast-redrawing pictures behind the widgets
    i18n            every string the package draws, in English and Chinese (set_language)
    exercises       self-checking exercises that diagnose the classic mistakes
    counting_exercises, basics_exercises   the checkers of notebooks 01-03 (exercises re-exports them)
    ngram           the counted next-token model of notebook 01
    position, block, position_widgets, position_exercises   positions, RoPE, the transformer block (notebook 07)
    corpus, tiny_model, tiny_training, tiny_plots, tiny_widgets   the model trained in notebook 08
    pretrained, bert, pretrained_loader             all-MiniLM-L6-v2 in numpy (notebook 09)
    head_types      the real model's heads sorted by a computed rule, all in one picture (notebook 09)
    efficient       tiled attention with an online softmax, and a KV cache (notebook 10)
    tiny_experiment, tiny_progress   notebook 08's table over seeds, and its live training curve

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
