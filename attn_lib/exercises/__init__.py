"""Exercises that check themselves: run the learner's function, compare with attn_lib, explain mistakes.

Each ``check_<exercise>(fn)`` runs `fn` on several seeded random inputs whose dimensions all differ
(so a swapped axis cannot pass) and on edge cases (large logits, a single token, n_q != n_k, ...),
compares with attn_lib's own functions, prints ONE line, and returns True only if every check
passed::

    ✓ softmax: all 7 checks passed (random input, large logits (around 1000), ...).
    ✗ scaled scores — failed on “n_q ≠ n_k” (q (3, 4), k (5, 4)). The scores were not scaled: ...

A wrong answer is compared with the classic wrong formulas (softmax over the wrong axis, no
max-subtraction, √d_model instead of √d_k, the mask after the softmax, −1e9 instead of −inf, ...)
and the message names the one it matches. ``run_<exercise>_checks(fn)`` returns the `Result`
(``.ok``, ``.key``, ``.verdict(lang)``) without printing. Messages come from attn_lib.i18n, in
English or Chinese (``lang="zh"``, default `attn_lib.i18n.get_language()`).

An exercise that asks for the learner's own code forbids the attn_lib function that would do the
work: `forbid` names them, and calling one (directly, under another name, or inside a helper) fails
with "✗ ... calls attn_lib.softmax, which this exercise asks you to write yourself". Each checker
forbids the function it checks by default (check_softmax: softmax, check_attention:
scaled_dot_product_attention, ...); forbidding a function also forbids every attn_lib function that
computes it (forbid=("softmax",) forbids scaled_dot_product_attention too); forbid=() allows all.

A function that returns float16 is compared within float16's own precision and the verdict says so;
one whose float32/float64 result agrees with the formula only to float16's precision is told that.
`timeout` (seconds per call, a positive number) and `batched` (True or False) are checked by name.

One module per notebook or topic, and the machinery beside them:

    counting    notebook 01: a next-token distribution from counts, counting in a window
    basics      notebooks 02-03: attend to one key, attend to all; Q, K, V and the relevance scores
    attention   notebooks 04-05: softmax, the scaled scores, the whole formula, the causal mask, attention
    multihead   notebook 06: split the heads, multi-head attention, the parameter count
    position    notebook 07: the sinusoidal table, attention with RoPE, layer norm
    training    notebook 08: the ablation mask that hides one token, the accuracy with a token hidden
    translation notebook 09: one head of cross-attention, the padding mask, attention dropout
    capstone    notebook 10: your attention function inside the real model
    efficient   notebook 11: one update of the online softmax
    modern      notebook 12: grouped-query attention, the sliding-window mask, the KV-cache size
    budget      notebook 12: how many conversations fit beside a model's weights
    generation  notebook 13: temperature, top-k, top-p, writing with the KV cache
    decoder_parts   notebook 14: RMSNorm, the SwiGLU feed-forward, one decode step with a grouped cache
    language_model  notebook 14: your attention function inside a real language model (SmolLM2-135M; notebook 15:
                    inside Gemma 3 270M, its local layers' window checked on a text longer than it)
    gemma       notebook 15: Gemma 3's QK-norm, the mask of a local layer, a decode step with a rolling window cache
    diagnose    running a learner's function safely, the verdict line (`Result`)
    compare     comparing with the answer: tolerances (float16 within its own precision), the first
                difference, numbers printed with the digits that tell them apart
    mistakes    the classic mistakes written as formulas, to name the one a wrong answer matches
    forbid      which attn_lib functions an exercise may not call, the watch that sees a call, and
                what the checkers do not defend against
    counting_reference   notebook 01's counting reference, alone so that forbid can forbid it

This module only re-exports the checkers; the modules inside import each other by their full names,
never this one.
"""

from attn_lib.exercises.attention import (
    check_attention,
    check_attention_formula,
    check_causal_mask,
    check_scaled_scores,
    check_softmax,
    run_attention_checks,
    run_attention_formula_checks,
    run_causal_mask_checks,
    run_scaled_scores_checks,
    run_softmax_checks,
)
from attn_lib.exercises.basics import (
    check_attend_all,
    check_attend_one,
    check_qkv,
    check_relevance_scores,
    run_attend_all_checks,
    run_attend_one_checks,
    run_qkv_checks,
    run_relevance_scores_checks,
)
from attn_lib.exercises.budget import (
    check_conversations,
    run_conversations_checks,
)
from attn_lib.exercises.capstone import (
    check_in_real_model,
    run_in_real_model_checks,
)
from attn_lib.exercises.counting import (
    check_next_token_probabilities,
    check_window_counts,
    run_next_token_probabilities_checks,
    run_window_counts_checks,
)
from attn_lib.exercises.decoder_parts import (
    check_grouped_decode_step,
    check_rms_norm,
    check_swiglu,
    run_grouped_decode_step_checks,
    run_rms_norm_checks,
    run_swiglu_checks,
)
from attn_lib.exercises.efficient import (
    check_online_update,
    run_online_update_checks,
)
from attn_lib.exercises.gemma import (
    check_local_mask,
    check_qk_norm,
    check_window_decode_step,
    run_local_mask_checks,
    run_qk_norm_checks,
    run_window_decode_step_checks,
)
from attn_lib.exercises.generation import (
    check_cached_generation,
    check_temperature,
    check_top_k,
    check_top_p,
    run_cached_generation_checks,
    run_temperature_checks,
    run_top_k_checks,
    run_top_p_checks,
)
from attn_lib.exercises.language_model import (
    check_in_language_model,
    run_in_language_model_checks,
)
from attn_lib.exercises.modern import (
    check_grouped_query_attention,
    check_kv_cache_bytes,
    check_sliding_window_mask,
    run_grouped_query_attention_checks,
    run_kv_cache_bytes_checks,
    run_sliding_window_mask_checks,
)
from attn_lib.exercises.multihead import (
    check_multi_head,
    check_parameter_count,
    check_split_heads,
    run_multi_head_checks,
    run_parameter_count_checks,
    run_split_heads_checks,
)
from attn_lib.exercises.position import (
    check_layer_norm,
    check_rope,
    check_sinusoidal_encoding,
    run_layer_norm_checks,
    run_rope_checks,
    run_sinusoidal_encoding_checks,
)
from attn_lib.exercises.training import (
    check_ablation_accuracy,
    check_hide_mask,
    run_ablation_accuracy_checks,
    run_hide_mask_checks,
)
from attn_lib.exercises.translation import (
    check_attention_dropout,
    check_cross_attention,
    check_padding_mask,
    run_attention_dropout_checks,
    run_cross_attention_checks,
    run_padding_mask_checks,
)

__all__ = [
    "check_next_token_probabilities",
    "check_window_counts",
    "run_next_token_probabilities_checks",
    "run_window_counts_checks",
    "check_attend_one",
    "check_attend_all",
    "check_qkv",
    "check_relevance_scores",
    "run_attend_one_checks",
    "run_attend_all_checks",
    "run_qkv_checks",
    "run_relevance_scores_checks",
    "check_softmax",
    "check_scaled_scores",
    "check_causal_mask",
    "check_attention",
    "check_attention_formula",
    "run_softmax_checks",
    "run_scaled_scores_checks",
    "run_causal_mask_checks",
    "run_attention_checks",
    "run_attention_formula_checks",
    "check_split_heads",
    "check_multi_head",
    "check_parameter_count",
    "run_split_heads_checks",
    "run_multi_head_checks",
    "run_parameter_count_checks",
    "check_sinusoidal_encoding",
    "check_rope",
    "check_layer_norm",
    "run_sinusoidal_encoding_checks",
    "run_rope_checks",
    "run_layer_norm_checks",
    "run_in_real_model_checks",
    "check_in_real_model",
    "check_grouped_query_attention",
    "check_sliding_window_mask",
    "check_kv_cache_bytes",
    "run_grouped_query_attention_checks",
    "run_sliding_window_mask_checks",
    "run_kv_cache_bytes_checks",
    "check_temperature",
    "check_top_k",
    "check_top_p",
    "check_cached_generation",
    "run_temperature_checks",
    "run_top_k_checks",
    "run_top_p_checks",
    "run_cached_generation_checks",
    "check_hide_mask",
    "run_hide_mask_checks",
    "check_ablation_accuracy",
    "run_ablation_accuracy_checks",
    "check_cross_attention",
    "check_padding_mask",
    "check_attention_dropout",
    "run_cross_attention_checks",
    "run_padding_mask_checks",
    "run_attention_dropout_checks",
    "check_online_update",
    "run_online_update_checks",
    "check_conversations",
    "run_conversations_checks",
    "check_rms_norm",
    "check_swiglu",
    "check_grouped_decode_step",
    "run_rms_norm_checks",
    "run_swiglu_checks",
    "run_grouped_decode_step_checks",
    "check_in_language_model",
    "run_in_language_model_checks",
    "check_qk_norm",
    "check_local_mask",
    "check_window_decode_step",
    "run_qk_norm_checks",
    "run_local_mask_checks",
    "run_window_decode_step_checks",
]
