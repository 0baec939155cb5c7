"""Every picture of the course, drawn by code: heatmaps, diagrams, vectors as arrows, training plots.

Each function takes arrays and labels and returns a matplotlib Figure (a notebook cell shows it); the
words come from `attn_lib.i18n` (``lang=None`` follows `set_language`), and Chinese labels render with
the CJK font that `use_cjk_font` picks. The modules, by what they draw:

    heatmaps        attention heatmaps (plot_attention, plot_heads, side by side), the CJK font
    diagrams        the box-and-arrow diagrams of notebooks 02-06
    model_diagrams  the diagrams of notebooks 07-11 (the block, cross-attention, the tiny model, the KV cache)
    modern_diagrams the diagrams of notebook 12 (shared key/value heads, the sliding window)
    stack_diagram   a whole decoder-only model drawn from its config (the tiny LM, SmolLM2, Gemma 3; 13-15)
    vectors         2-D vectors as arrows: a dot product as alignment x length (notebook 02)
    score_plots     one score feature by feature, the softmax Jacobian as a heatmap (notebook 04)
    position_tables position tables side by side: their rows, and the cosine of every pair (notebook 07)
    training_plots  the tiny trained model of notebook 08: where the blank looks, training, ablation, seeds
    translation_plots notebook 09: the encoder–decoder, its three masks, learned alignments, seeds
    generation_plots notebook 13: next-token bar charts, what sampling does, training over seeds
    gemma_plots     notebook 15: small heatmaps side by side, <bos>, local and global layers, KV bytes, QK-norm
    lm_plots        notebook 14: the real model's next tokens, a Q4_1 block, bytes and tokens, heads, induction
    head_types      every head of a real model in one grid, framed by its type (notebook 10)
    kit             the drawing kit of the diagrams: a canvas in inches, boxes, matrices, arrows
    fast_figures    the pictures the widgets redraw many times a second

This module re-exports the functions a notebook calls, so ``from attn_lib.pictures import plot_attention``
works; the modules inside import each other by their full names, never this one.
"""

from attn_lib.pictures.diagrams import (
    draw_attention_pipeline,
    draw_causal_mask,
    draw_multi_head,
    draw_qkv_projection,
    draw_three_steps,
)
from attn_lib.pictures.gemma_plots import (
    draw_local_global_layers,
    plot_bos_share,
    plot_kv_cache_bytes,
    plot_score_ranges,
    plot_small_heatmaps,
)
from attn_lib.pictures.generation_plots import plot_lm_training, plot_next_token, plot_sampling_filters
from attn_lib.pictures.head_types import plot_head_types
from attn_lib.pictures.heatmaps import (
    draw_attention,
    find_cjk_font,
    plot_attention,
    plot_attention_side_by_side,
    plot_heads,
    use_cjk_font,
)
from attn_lib.pictures.lm_plots import (
    plot_bytes_and_tokens,
    plot_head_maps,
    plot_induction_scores,
    plot_q4_1_block,
    plot_top_next_tokens,
)
from attn_lib.pictures.model_diagrams import (
    draw_cross_attention,
    draw_kv_cache,
    draw_online_softmax_tiles,
    draw_tiny_model,
    draw_transformer_block,
)
from attn_lib.pictures.modern_diagrams import draw_kv_sharing, draw_sliding_window_layers
from attn_lib.pictures.position_tables import plot_position_tables
from attn_lib.pictures.score_plots import plot_score_terms, plot_softmax_jacobian
from attn_lib.pictures.stack_diagram import plot_decoder_stack
from attn_lib.pictures.training_plots import (
    plot_ablation,
    plot_blank_attention,
    plot_progress,
    plot_seeds,
    plot_training,
    plot_weight_decay,
)
from attn_lib.pictures.translation_plots import (
    draw_encoder_decoder,
    draw_translation_masks,
    plot_alignment,
    plot_alignment_by_head,
    plot_dropout_seeds,
)
from attn_lib.pictures.vectors import plot_dot_products

__all__ = [
    "plot_top_next_tokens",
    "plot_q4_1_block",
    "plot_bytes_and_tokens",
    "plot_head_maps",
    "plot_induction_scores",
    "plot_small_heatmaps",
    "plot_bos_share",
    "draw_local_global_layers",
    "plot_kv_cache_bytes",
    "plot_score_ranges",
    "use_cjk_font",
    "find_cjk_font",
    "plot_attention",
    "plot_attention_side_by_side",
    "plot_heads",
    "draw_attention",
    "draw_three_steps",
    "draw_qkv_projection",
    "draw_attention_pipeline",
    "draw_causal_mask",
    "draw_multi_head",
    "draw_transformer_block",
    "draw_cross_attention",
    "draw_tiny_model",
    "draw_kv_cache",
    "draw_online_softmax_tiles",
    "draw_kv_sharing",
    "draw_sliding_window_layers",
    "plot_dot_products",
    "plot_score_terms",
    "plot_softmax_jacobian",
    "plot_position_tables",
    "plot_blank_attention",
    "plot_training",
    "plot_ablation",
    "plot_progress",
    "plot_seeds",
    "plot_weight_decay",
    "plot_head_types",
    "plot_decoder_stack",
    "plot_next_token",
    "plot_sampling_filters",
    "plot_lm_training",
    "draw_encoder_decoder",
    "draw_translation_masks",
    "plot_alignment",
    "plot_alignment_by_head",
    "plot_dropout_seeds",
]
