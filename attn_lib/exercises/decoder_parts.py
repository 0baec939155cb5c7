"""Notebook 14's self-checking exercises: RMSNorm, the SwiGLU feed-forward, and one decode step with a grouped cache.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs whose sizes all differ, compare with attn_lib, print one line, and when the result is wrong,
compare it with the classic wrong versions and name the one it matches:

    RMSNorm        the mean subtracted (that is LayerNorm without beta), eps added outside the square root,
                   over the wrong axis (the tokens), the gain left out, the mean square not square-rooted,
                   no eps at all (NaN on a token of zeros), x / ||x||_2 (the sum of the squares, not their
                   mean: off by √d), an eps of its own instead of the one given (the cases pass 1e-5, 1e-6
                   and 1e-2)
    SwiGLU         the gate and up projections swapped, GELU (or a plain sigmoid) in place of SiLU, SiLU
                   applied after the product instead of to the gate alone
    decode step    the new key and value not appended before attending, the cache returned without them,
                   the new token put at the front, K/V heads tiled instead of repeated, a causal mask's first
                   row used (the newest query sees only the first key), no scale or d_k instead of √d_k
"""

import numpy as np

from attn_lib.block import gelu, rms_norm, silu, swiglu
from attn_lib.core import scaled_dot_product_attention
from attn_lib.exercises.compare import (
    Finding,
    as_numbers,
    describe,
    difference,
    first_match,
    fmt,
    matches,
    numbers_judge,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, error_text, report, run_cases
from attn_lib.exercises.gemma import _attend as _window_attend
from attn_lib.exercises.mistakes import eps_ignored
from attn_lib.exercises.modern import _grouped
from attn_lib.i18n import check_language

__all__ = [
    "check_rms_norm",
    "check_swiglu",
    "check_grouped_decode_step",
    "run_rms_norm_checks",
    "run_swiglu_checks",
    "run_grouped_decode_step_checks",
]

# --- RMSNorm -------------------------------------------------------------------------------------------


def _rms_cases():
    rng = np.random.default_rng(13)
    zeros = rng.normal(1.0, 2.0, (3, 5))
    zeros[1] = 0.0  # a token whose features are all 0: eps keeps 0 / 0 away
    # eps differs from case to case (SmolLM2's 1e-5, Gemma 3's and Qwen2's 1e-6, a large 1e-2), so a function
    # that ignores the eps it is given and uses a constant of its own fails
    specs = [
        ("case_random", rng.normal(2.0, 3.0, (4, 6)), 1e-5),  # a mean far from 0, so that subtracting it shows
        ("case_batch", rng.normal(-1.0, 2.0, (2, 3, 5)), 1e-6),
        # small rows, mean(x^2) ~ 2.5e-3, a quarter of eps: where eps goes, and which eps, shows
        ("case_rms_tiny", rng.normal(0.0, 0.05, (3, 7)), 1e-2),
        ("case_rms_zero_token", zeros, 1e-5),
    ]
    cases = []
    for kind, x, eps in specs:
        d = x.shape[-1]
        gain = 1 + 0.5 * rng.standard_normal(d)
        shapes = f"x {x.shape}, gain ({d},), eps = {eps:g}"
        cases.append(Case(kind, shapes, (x, gain, eps), {}, Reference(rms_norm)))
    return cases


def rms_norm_mistake(case, got):
    """Which wrong RMSNorm `got` is, as a Finding, or None."""
    x, gain, eps = case.args
    if case.kind == "case_rms_zero_token" and np.isnan(got).any() and np.isfinite(np.delete(got, 1, axis=0)).all():
        return Finding("rms_eps_missing")
    square = (x * x).mean(axis=-1, keepdims=True)
    centred = x - x.mean(axis=-1, keepdims=True)
    d = x.shape[-1]
    l2 = {"d": d, "sqrt_d": fmt(np.sqrt(d))}
    candidates = [
        ("rms_mean_subtracted", {}, lambda: centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps) * gain),
        ("rms_eps_outside", {}, lambda: x / (np.sqrt(square) + eps) * gain),
        ("rms_eps_missing", {}, lambda: x / np.sqrt(square) * gain),
        ("rms_wrong_axis", {}, lambda: x / np.sqrt((x * x).mean(axis=-2, keepdims=True) + eps) * gain),
        ("rms_no_gain", {}, lambda: x / np.sqrt(square + eps)),
        ("rms_no_sqrt", {}, lambda: x / (square + eps) * gain),
        # x / ||x||_2: the sum of the squares instead of their mean, off by sqrt(d) (eps inside, or no eps at all)
        ("rms_l2_norm", l2, lambda: x / np.sqrt(d * square + eps) * gain),
        ("rms_l2_norm", l2, lambda: x / np.linalg.norm(x, axis=-1, keepdims=True) * gain),
    ]
    return first_match(got, candidates + eps_ignored(x, gain, eps, got))


@numbers_judge
def _judge_rms(case, got):
    return rms_norm_mistake(case, got) or difference(got, case.expected)


def run_rms_norm_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("rms_norm",)):
    """fn: (x [..., d], gain [d], eps) -> [..., d]. Returns the `Result`; prints nothing."""
    return run_cases("rms_norm", fn, _rms_cases(), _judge_rms, timeout, forbid=forbid)


def check_rms_norm(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("rms_norm",)):
    """fn: (x [..., d], gain [d], eps) -> [..., d]: x / sqrt(mean(x^2) + eps) * gain over each token's d features.

    attn_lib.block.rms_norm is forbidden (forbid=() allows it). Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_rms_norm_checks(fn, timeout, forbid), lang)


# --- the SwiGLU feed-forward ------------------------------------------------------------------------------


def _swiglu_cases():
    rng = np.random.default_rng(14)
    specs = [("case_random", (4,), 6, 10), ("case_single", (1,), 5, 7), ("case_batch", (2, 3), 4, 9)]
    cases = []
    for kind, lead, d, d_ff in specs:
        x = rng.normal(0.0, 1.5, (*lead, d))
        w_gate, w_up = rng.normal(0.0, 0.8, (d, d_ff)), rng.normal(0.0, 0.8, (d, d_ff))
        w_down = rng.normal(0.0, 0.5, (d_ff, d))
        shapes = f"x {x.shape}, w_gate and w_up ({d}, {d_ff}), w_down ({d_ff}, {d})"
        cases.append(Case(kind, shapes, (x, w_gate, w_up, w_down), {}, Reference(swiglu)))
    return cases


def swiglu_mistake(case, got):
    """Which wrong SwiGLU `got` is, as a Finding, or None."""
    x, w_gate, w_up, w_down = case.args
    gate, up = x @ w_gate, x @ w_up
    candidates = [
        ("swiglu_swapped", {}, lambda: (silu(up) * gate) @ w_down),
        ("swiglu_gelu", {}, lambda: (gelu(gate) * up) @ w_down),
        ("swiglu_sigmoid", {}, lambda: (1 / (1 + np.exp(-gate)) * up) @ w_down),
        ("swiglu_silu_of_product", {}, lambda: silu(gate * up) @ w_down),
    ]
    return first_match(got, candidates)


def _judge_swiglu(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    if got.shape != case.expected.shape:
        if got.shape[-1] == case.args[1].shape[1]:
            return Finding("swiglu_no_down", {"d_ff": got.shape[-1]})
        return wrong_shape(got.shape, case.expected.shape)
    if matches(got, case.expected):
        return None
    return swiglu_mistake(case, got) or difference(got, case.expected)


def run_swiglu_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("swiglu",)):
    """fn: (x [..., d], w_gate [d, d_ff], w_up [d, d_ff], w_down [d_ff, d]) -> [..., d]. Returns the `Result`."""
    return run_cases("swiglu", fn, _swiglu_cases(), _judge_swiglu, timeout, forbid=forbid)


def check_swiglu(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("swiglu",)):
    """fn: (x, w_gate, w_up, w_down) -> (SiLU(x W_gate) * (x W_up)) W_down. attn_lib.block.swiglu and the GGUF
    models' attn_lib.models.gguf.arithmetic.feed_forward are forbidden (attn_lib.block.silu is allowed). Prints
    one verdict line; True if every check passed."""
    lang = None if lang is None else check_language(lang)
    return report(run_swiglu_checks(fn, timeout, forbid), lang)


# --- one decode step with a grouped KV cache --------------------------------------------------------------


def _decode_cases():
    rng = np.random.default_rng(15)
    # (kind, query heads, K/V heads, tokens already cached, d_k, d_v)
    specs = [("case_decode_groups", 6, 2, 4, 3, 5), ("case_gqa_mqa", 4, 1, 3, 5, 2), ("case_gqa_mha", 3, 3, 5, 4, 3),
             ("case_decode_first", 6, 3, 0, 4, 2)]  # fmt: skip
    cases = []
    for kind, h, h_kv, t, d_k, d_v in specs:
        q_t, k_t = 1.5 * rng.standard_normal((h, d_k)), 1.5 * rng.standard_normal((h_kv, d_k))
        v_t = rng.standard_normal((h_kv, d_v))
        keys, values = 1.5 * rng.standard_normal((h_kv, t, d_k)), rng.standard_normal((h_kv, t, d_v))
        shapes = f"q_t {q_t.shape}, k_t {k_t.shape}, v_t {v_t.shape}, keys {keys.shape}, values {values.shape}"
        cases.append(Case(kind, shapes, (q_t, k_t, v_t, keys, values), {}, Reference(_decode_step)))
    return cases


def _attend(q_t, keys, values, scale=None, tile=False):
    """q_t [h, d_k] over keys, values [h_kv, n, d] -> [h, d_v]: query head i with K/V head i // g (or i % h_kv)."""
    g = q_t.shape[0] // keys.shape[0]
    spread = (lambda a: np.tile(a, (g, 1, 1))) if tile else (lambda a: np.repeat(a, g, axis=0))
    k, v = spread(keys), spread(values)
    return scaled_dot_product_attention(q_t[:, None, :], k, v, scale=scale)[0][:, 0, :]  # [h, 1, d] -> [h, d]


def _decode_step(q_t, k_t, v_t, keys, values):
    keys, values = np.concatenate([keys, k_t[:, None]], axis=1), np.concatenate([values, v_t[:, None]], axis=1)
    return _attend(q_t, keys, values), keys, values


# the checkers' own grouped attention (this one's, notebook 12's, notebook 15's): each does the exercise's work
_HELPERS = (_attend, _grouped, _window_attend)


def _judge_decode(case, value, notes):
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        return Finding("decode_not_triple", {"got": describe(value)})
    arrays = []
    for part in value:
        array, finding = as_numbers(part, notes)
        if finding:
            return finding
        arrays.append(array)
    (output, keys, values), (expected_output, expected_keys, expected_values) = arrays, case.expected
    q_t, k_t, v_t, old_keys, old_values = case.args
    for got, expected in ((output, expected_output), (keys, expected_keys), (values, expected_values)):
        if got.shape != expected.shape:
            if got is keys and got.shape == old_keys.shape:
                return Finding("decode_cache_not_grown", {"t": old_keys.shape[1]})
            return wrong_shape(got.shape, expected.shape)
    if not (matches(keys, expected_keys) and matches(values, expected_values)):
        front = np.concatenate([k_t[:, None], old_keys], axis=1)
        if matches(keys, front):
            return Finding("decode_appended_first")
        if not matches(keys, expected_keys):
            return difference(keys, expected_keys)
        return difference(values, expected_values)
    if matches(output, expected_output):
        return None
    d_k, g = q_t.shape[-1], q_t.shape[0] // old_keys.shape[0]
    sizes = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k)), "g": g}
    full_k, full_v = expected_keys, expected_values
    candidates = [("gqa_tiled", {"g": g, "h_kv": old_keys.shape[0]}, lambda: _attend(q_t, full_k, full_v, tile=True))]
    if old_keys.shape[1]:
        candidates.append(("decode_not_appended", {}, lambda: _attend(q_t, old_keys, old_values)))
        candidates.append(("decode_first_row", {}, lambda: _attend(q_t, full_k[:, :1], full_v[:, :1])))
    candidates.append(("scale_missing", sizes, lambda: _attend(q_t, full_k, full_v, scale=1.0)))
    candidates.append(("scale_dk", sizes, lambda: _attend(q_t, full_k, full_v, scale=1 / d_k)))
    return first_match(output, candidates) or difference(output, expected_output)


def _decode_error(case, exc, passed):
    q_t, _, _, keys, _ = case.args
    if isinstance(exc, (ValueError, IndexError)) and "broadcast" in str(exc) and q_t.shape[0] != keys.shape[0]:
        return Finding("gqa_not_repeated", {"h": q_t.shape[0], "h_kv": keys.shape[0], "error": error_text(exc)})
    if case.kind == "case_decode_first" and passed:
        return Finding("decode_empty_cache", {"error": error_text(exc)})
    return None


def run_grouped_decode_step_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("grouped_attention",)):
    """fn: (q_t [h, d_k], k_t [h_kv, d_k], v_t [h_kv, d_v], keys [h_kv, t, d_k], values [h_kv, t, d_v])
    -> (output [h, d_v], keys [h_kv, t + 1, d_k], values [h_kv, t + 1, d_v]). Returns the `Result`."""
    return run_cases(
        "grouped_decode_step", fn, _decode_cases(), _judge_decode, timeout, _decode_error, forbid, references=_HELPERS
    )


def check_grouped_decode_step(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("grouped_attention",)):
    """fn: one decoding step of grouped-query attention with a KV cache: append the new token's key and value
    to the cache, then let its h query heads attend over all t + 1 positions (query head i with K/V head
    i // (h / h_kv)). attn_lib's grouped attention (grouped_unchecked too) and KVCache are forbidden, and so,
    whatever `forbid` says, are the checkers' own grouped-attention helpers; scaled_dot_product_attention is
    allowed. Prints one verdict line; True if every check passed."""
    lang = None if lang is None else check_language(lang)
    return report(run_grouped_decode_step_checks(fn, timeout, forbid), lang)
