"""Notebook 12's self-checking exercises: grouped-query attention, the sliding-window mask, the KV-cache size.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs whose sizes all differ, compare with attn_lib, print one line, and when the result is
wrong, compare it with the classic wrong versions and name the one it matches:

    grouped-query attention   K/V heads tiled (0 1 0 1) instead of repeated (0 0 1 1), K and V not
                              repeated at all (a broadcasting error), and every mistake check_attention
                              knows (scale, mask, softmax) once the heads are paired correctly
    sliding-window mask       the window one key too wide or too narrow, the window without the causal
                              mask (the two-sided band), the causal mask with no window, the window
                              pointing at the future, True and False swapped, numbers instead of booleans
    KV-cache size             the factor 2 (a key *and* a value) missing, numbers instead of bytes, bits
                              instead of bytes, one layer only, one token only
"""

import numbers

import numpy as np

from attn_lib.core import causal_mask, scaled_dot_product_attention
from attn_lib.exercises.compare import (
    OUTPUT,
    RESULT,
    Finding,
    Word,
    as_mask_pattern,
    describe,
    difference,
    first_match,
    fmt_apart,
    matches,
    output_and_weights,
    same,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, check_batched, error_text, report, run_cases
from attn_lib.exercises.mistakes import attention_weights_mistake
from attn_lib.grouped import kv_cache_bytes
from attn_lib.i18n import check_language
from attn_lib.sliding_window import sliding_window_mask

__all__ = [
    "check_grouped_query_attention",
    "check_sliding_window_mask",
    "check_kv_cache_bytes",
    "run_grouped_query_attention_checks",
    "run_sliding_window_mask_checks",
    "run_kv_cache_bytes_checks",
]


# --- grouped-query attention ------------------------------------------------------------------------


def _gqa_cases(batched):
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
    rng = np.random.default_rng(11)
    # (kind, leading axes, query heads, K/V heads, n, d_k, d_v, mask): tiling and repeating differ when 1 < h_kv < h
    specs = [
        ("case_gqa_groups", (), 6, 2, 4, 3, 5, None),
        ("case_gqa_mqa", (), 4, 1, 5, 3, 2, None),
        ("case_gqa_mha", (), 3, 3, 4, 2, 5, None),
        ("case_causal", (), 6, 3, 5, 4, 3, causal_mask(5)),
    ]
    if batched:
        specs.append(("case_batch", (2,), 8, 2, 3, 4, 5, None))
    cases = []
    for kind, lead, h, h_kv, n, d_k, d_v, mask in specs:
        q = 1.5 * rng.standard_normal((*lead, h, n, d_k))
        k = 1.5 * rng.standard_normal((*lead, h_kv, n, d_k))
        v = rng.standard_normal((*lead, h_kv, n, d_v))
        kwargs = {} if mask is None else {"mask": mask}
        shapes = f"q {q.shape}, k {k.shape}, v {v.shape}" + ("" if mask is None else f", mask {mask.shape}")
        cases.append(Case(kind, shapes, (q, k, v), kwargs, Reference(_grouped)))
    return cases


def _grouped(q, k, v, mask=None):
    g = q.shape[-3] // k.shape[-3]  # query heads per K/V head
    return scaled_dot_product_attention(q, np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3), mask=mask)


def _judge_gqa(case, value, notes):
    pair, finding = output_and_weights(value, case.expected, notes)
    if finding:
        return finding
    (output, weights), (expected_output, expected_weights) = pair, case.expected
    q, k, v = case.args
    g = q.shape[-3] // k.shape[-3]
    mask = case.kwargs.get("mask")
    if not matches(weights, expected_weights):
        tiled = ("gqa_tiled", {"g": g, "h_kv": k.shape[-3]}, lambda: _attend_tiled(q, k, v, g, mask)[1])
        found = first_match(weights, [tiled])
        if found:
            return found
        k_rep, v_rep = np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3)
        repeated = Case(case.kind, case.shapes, (q, k_rep, v_rep), case.kwargs, case.expected)
        return attention_weights_mistake(repeated, weights)  # the scale, the mask, the softmax, ...
    if not matches(output, expected_output):
        if matches(output, weights @ _tile(v, g)):
            return Finding("gqa_values_tiled", {"g": g})
        return Finding("attn_output_wrong", difference(output, expected_output, OUTPUT).fields)
    return None


def _tile(x, g):
    reps = [1] * x.ndim
    reps[-3] = g
    return np.tile(x, reps)  # [..., h_kv, n, d] -> [..., h_kv * g, n, d] in the order 0 1 .. 0 1 ..


def _attend_tiled(q, k, v, g, mask):
    return scaled_dot_product_attention(q, _tile(k, g), _tile(v, g), mask=mask)


def _gqa_error(case, exc, passed):
    if case.kind == "case_batch" and passed and isinstance(exc, (ValueError, TypeError, IndexError)):
        return Finding("gqa_batch_axis", {"error": error_text(exc)})
    if isinstance(exc, (ValueError, IndexError)) and "broadcast" in str(exc):
        q, k, _ = case.args
        return Finding("gqa_not_repeated", {"h": q.shape[-3], "h_kv": k.shape[-3], "error": error_text(exc)})
    if isinstance(exc, TypeError) and "mask" in str(exc):
        return Finding("mask_argument", {"error": error_text(exc)})
    return None


def run_grouped_query_attention_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("grouped_attention",)):
    """fn: (q [..., h, n, d_k], k [..., h_kv, n, d_k], v [..., h_kv, n, d_v], mask=None) -> (output, weights)."""
    return run_cases("grouped_query_attention", fn, _gqa_cases(batched), _judge_gqa, timeout, _gqa_error, forbid)


def check_grouped_query_attention(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("grouped_attention",)):
    """fn: (q, k, v, mask=None) -> (output [..., h, n, d_v], weights [..., h, n, n]), h query heads, h_kv K/V heads.

    Query head i uses K/V head i // (h / h_kv). attn_lib's grouped attention functions are forbidden;
    scaled_dot_product_attention is allowed. Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_grouped_query_attention_checks(fn, batched, timeout, forbid), lang)


# --- the sliding-window mask --------------------------------------------------------------------------


def _window_cases():
    sizes = [("case_window", 7, 3), ("case_window", 6, 2), ("case_window_one", 5, 1), ("case_window_wide", 4, 6)]
    return [Case(kind, f"n = {n}, window = {w}", (n, w), {}, Reference(sliding_window_mask)) for kind, n, w in sizes]


def _judge_window(case, value, notes):
    n, window = case.args
    got, finding = as_mask_pattern(value, case.expected, notes)
    if finding or same(got, case.expected):
        return finding
    distance = np.arange(n)[:, None] - np.arange(n)  # [n, n]: i - j
    fields = {"window": window}
    candidates = [
        ("window_wide", {**fields, "seen": window + 1}, (distance >= 0) & (distance <= window)),
        ("window_narrow", {**fields, "seen": window - 1}, (distance >= 0) & (distance < window - 1)),
        ("window_not_causal", fields, np.abs(distance) < window),
        ("window_future", fields, (distance <= 0) & (distance > -window)),
        ("window_inverted", fields, ~case.expected),
        ("window_missing", fields, causal_mask(n)),
    ]
    for key, key_fields, pattern in candidates:
        if same(got, pattern) and not same(pattern, case.expected):
            return Finding(key, key_fields)
    i, j = np.argwhere(got != case.expected)[0]
    return Finding(
        "wrong_values",
        {"what": RESULT, "index": f"[{i}, {j}]", "expected": str(case.expected[i, j]), "got": str(got[i, j])},
    )


def run_sliding_window_mask_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("sliding_window_mask",)):
    """fn: (n, window) -> bool [n, n], True where 0 <= i - j < window. Returns the `Result`; prints nothing."""
    return run_cases("sliding_window_mask", fn, _window_cases(), _judge_window, timeout, forbid=forbid)


def check_sliding_window_mask(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("sliding_window_mask",)):
    """fn: (n, window) -> bool [n, n]: query i may see keys i - window + 1 .. i (the last `window`, itself included).

    attn_lib.sliding_window.sliding_window_mask is forbidden (attn_lib.causal_mask is allowed). Prints
    one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_sliding_window_mask_checks(fn, timeout, forbid), lang)


# --- the size of the KV cache -------------------------------------------------------------------------


def _cache_cases():
    # the first case's sizes are distinct primes (and 4 bytes), so that every missing factor can be named
    sizes = [
        ("case_cache_small", 3, 5, 7, 11, 4),
        ("case_cache_llama", 32, 32, 128, 4096, 2),
        ("case_cache_gqa", 80, 8, 128, 1, 2),
    ]
    cases = []
    for kind, layers, kv, d, tokens, nbytes in sizes:
        shapes = f"n_layers = {layers}, n_kv_heads = {kv}, d_head = {d}, n_tokens = {tokens}, bytes = {nbytes}"
        cases.append(Case(kind, shapes, (layers, kv, d, tokens, nbytes), {}, Reference(kv_cache_bytes)))
    return cases


def _judge_cache(case, value, notes):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return Finding("wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_int")})
    got, expected = float(value), case.expected
    if got == expected:
        return None
    layers, kv, d, tokens, nbytes = case.args
    fields = {"got": f"{got:,.0f}" if got.is_integer() else fmt_apart(got, expected), "expected": f"{expected:,}"}
    known = [
        ("cache_no_factor_2", expected / 2),
        ("cache_numbers", expected / nbytes),
        ("cache_bits", expected * 8),
        ("cache_one_layer", expected / layers),
        ("cache_one_token", expected / tokens),
    ]
    for key, wrong in known:
        if got == wrong:
            return Finding(key, {**fields, "layers": layers, "bytes": nbytes, "tokens": tokens})
    return Finding("cache_wrong", fields)


def run_kv_cache_bytes_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("kv_cache_bytes",)):
    """fn: (n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number) -> bytes. Returns the `Result`."""
    return run_cases("kv_cache_bytes", fn, _cache_cases(), _judge_cache, timeout, forbid=forbid)


def check_kv_cache_bytes(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("kv_cache_bytes",)):
    """fn: (n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number) -> the bytes of one sequence's KV cache.

    attn_lib.grouped.kv_cache_bytes is forbidden. Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_kv_cache_bytes_checks(fn, timeout, forbid), lang)
