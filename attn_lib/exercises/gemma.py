"""Notebook 15's self-checking exercises: Gemma 3's QK-norm, the mask of a local layer, a decode step with a rolling
window cache.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on seeded
inputs whose sizes all differ, print one line, and when the result is wrong, name the classic mistake it matches:

    QK-norm          the root mean square over the heads, over the positions or over all heads' features at once
                     (one RMSNorm over the whole h·d-wide q) instead of over each head's own d; the mean
                     subtracted (LayerNorm); the gain left out; Gemma's "1 + gain" applied to gains that already
                     include the 1 (the model file's do); eps outside the square root; a wrong shape
    local mask       the window one token too wide or too narrow, the causal part forgotten (the future seen),
                     the queries aligned top-left (as the first n_q positions) instead of bottom-right (the last
                     n_q, as when decoding with a cache), the window ignored (plain causal), True/False swapped,
                     the whole [n_k, n_k] mask returned instead of its last n_q rows
    window decode    the new key written to the wrong slot (over the newest position instead of the oldest), the
                     cache shifted instead of rolled, grown to W + 1, or left without the new key; attention over
                     W + 1 positions (the one that just left the window), over empty slots, or without the new
                     token (stored after attending); √(h·d) instead of √d, no scale or d instead of √d; K/V heads
                     tiled; new_length capped at W. Its answer is full attention over the whole history with the
                     window's mask: the rolling cache must give the same numbers.

eps inside or outside the square root (QK-norm): on q and k of the size they have in the model (a root mean square
of about 1 or more) the two differ by about eps / RMS (1e-5 or less) relative, below the checker's tolerance (1e-4),
so those cases accept both, and rightly: no logit of the model could tell them apart. One case holds a head of tiny
vectors (mean(x²) = eps = 0.01; eps differs from case to case), where they differ by about 30 %: there eps outside,
or an eps of one's own instead of the one given, fails with its own diagnosis. So does notebook 14's check_rms_norm.
"""

from functools import partial

import numpy as np

from attn_lib.core import scaled_dot_product_attention
from attn_lib.exercises.compare import (
    OUTPUT,
    RESULT,
    Finding,
    as_mask_pattern,
    as_numbers,
    describe,
    difference,
    first_match,
    fmt,
    index_text,
    matches,
    numbers_judge,
    same,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, error_text, report, run_cases
from attn_lib.exercises.mistakes import eps_ignored
from attn_lib.i18n import check_language

__all__ = [
    "check_qk_norm",
    "check_local_mask",
    "check_window_decode_step",
    "run_qk_norm_checks",
    "run_local_mask_checks",
    "run_window_decode_step_checks",
]

QK_EPS = 1e-6  # Gemma 3's eps (its RMSNorms, QK-norm among them)
LOCAL_MASK_FORBID = ("sliding_window_mask", "visible")  # notebook 12's mask, and the model's own (gm.visible)
WINDOW_STEP_FORBID = ("grouped_attention",)  # scaled_dot_product_attention is allowed: the exercise is the cache


# --- QK-norm ----------------------------------------------------------------------------------------------------


def _qk_norm(x, gain, eps=QK_EPS):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gain  # [h, n, d] / [h, n, 1] * [d]


def _qk_cases():
    rng = np.random.default_rng(31)
    specs = [  # (kind, x): a mean far from 0 (subtracting it shows), heads, positions and features all different
        ("case_qk_query_heads", rng.normal(1.5, 2.0, (4, 5, 8)), QK_EPS),
        ("case_qk_key_head", rng.normal(-1.0, 3.0, (1, 6, 7)), 1e-5),  # Gemma's one key head; SmolLM2's eps
        ("case_qk_tiny", rng.normal(0.0, 0.1, (2, 3, 6)), 1e-2),  # mean(x²) = eps: where eps goes, and which, shows
    ]  # eps differs from case to case, so a function that ignores the eps it is given fails (in the tiny case)
    cases = []
    for kind, x, eps in specs:
        d = x.shape[-1]
        gain = 1 + 0.5 * rng.standard_normal(d)  # as in the model file: the 1 already included
        shapes = f"x {x.shape}, gain ({d},), eps = {eps:g}"
        cases.append(Case(kind, shapes, (x, gain, eps), {}, Reference(_qk_norm)))
    return cases


def qk_norm_mistake(case, got):
    """Which wrong QK-norm `got` is, as a Finding, or None."""
    x, gain, eps = case.args

    def normed(axis, centre=False, eps_outside=False):
        y = x - x.mean(axis=axis, keepdims=True) if centre else x
        square = (y * y).mean(axis=axis, keepdims=True)
        return y / (np.sqrt(square) + eps if eps_outside else np.sqrt(square + eps))

    fields = {"d": x.shape[-1], "h": x.shape[0], "hd": x.shape[0] * x.shape[-1]}
    candidates = [
        ("qk_norm_over_heads", fields, lambda: normed(-3) * gain),
        ("qk_norm_over_positions", fields, lambda: normed(-2) * gain),
        ("qk_norm_all_heads", fields, lambda: normed((-3, -1)) * gain),
        ("rms_mean_subtracted", {}, lambda: normed(-1, centre=True) * gain),
        ("rms_no_gain", {}, lambda: normed(-1)),
        ("qk_norm_one_plus_gain", {}, lambda: normed(-1) * (1 + gain)),
        ("rms_eps_outside", {}, lambda: normed(-1, eps_outside=True) * gain),
    ]
    return first_match(got, candidates + eps_ignored(x, gain, eps, got))


@numbers_judge
def _judge_qk_norm(case, got):
    return qk_norm_mistake(case, got) or difference(got, case.expected)


def run_qk_norm_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("rms_norm",)):
    """fn: (x [heads, n, d], gain [d], eps) -> [heads, n, d]. Returns the `Result`; prints nothing."""
    return run_cases("qk_norm", fn, _qk_cases(), _judge_qk_norm, timeout, forbid=forbid)


def check_qk_norm(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("rms_norm",)):
    """fn: (x [heads, n, d], gain [d], eps=1e-6) -> [heads, n, d]: Gemma's QK-norm, each head's q (or k) at each
    position RMS-normed over its own d features, x / sqrt(mean(x²) + eps) * gain (the gain already includes
    Gemma's 1). attn_lib.block.rms_norm is forbidden (forbid=() allows it). Prints one verdict line; True if every
    check passed."""
    lang = None if lang is None else check_language(lang)
    return report(run_qk_norm_checks(fn, timeout, forbid), lang)


# --- the mask of a local layer ----------------------------------------------------------------------------------


def _offsets(n_q, n_k, first=None):
    """[n_q, n_k]: query position - key position, the queries at positions first .. first + n_q - 1 (default: the
    last n_q of the n_k positions)."""
    first = n_k - n_q if first is None else first
    return np.arange(first, first + n_q)[:, None] - np.arange(n_k)


def _local_mask(n_q, n_k, window):
    offset = _offsets(n_q, n_k)
    return (offset >= 0) & (offset < window)  # itself and the window - 1 positions before it


def _local_cases():
    # (kind, n_q, n_k, window): the whole sequence, a chunk of the last positions, one decode step, a wide window
    specs = [
        ("case_local_all", 7, 7, 3),
        ("case_local_last", 3, 8, 4),
        ("case_local_decode", 1, 9, 5),
        ("case_local_wide", 2, 5, 6),
    ]
    shapes = "n_q = {}, n_k = {}, window = {}"
    return [Case(kind, shapes.format(*args), args, {}, Reference(_local_mask)) for kind, *args in specs]


def _judge_local_mask(case, value, notes):
    n_q, n_k, window = case.args
    fields = {"n_q": n_q, "n_k": n_k, "window": window, "first": n_k - n_q}
    try:
        shape = np.shape(value)
    except ValueError:  # ragged lists: as_mask_pattern names them
        shape = None
    if n_q != n_k and shape == (n_k, n_k):  # every position's row, not only the queries'
        return Finding("local_all_rows", fields)
    got, finding = as_mask_pattern(value, case.expected, notes, inverted="local_inverted")
    if finding or same(got, case.expected):
        return finding
    offset, top_left = _offsets(n_q, n_k), _offsets(n_q, n_k, first=0)
    candidates = [
        ("local_wide", {**fields, "seen": window + 1}, (offset >= 0) & (offset <= window)),
        ("local_narrow", {**fields, "seen": window - 1}, (offset >= 0) & (offset < window - 1)),
        ("local_not_causal", fields, offset < window),
        ("local_not_causal", fields, np.abs(offset) < window),
        ("local_top_left", fields, (top_left >= 0) & (top_left < window)),
        ("local_no_window", fields, offset >= 0),
        ("local_inverted", fields, ~case.expected),
    ]
    for key, key_fields, pattern in candidates:
        if same(got, pattern):
            return Finding(key, key_fields)
    index = tuple(np.argwhere(got != case.expected)[0])
    found = {"what": RESULT, "index": index_text(index), "expected": str(case.expected[index]), "got": str(got[index])}
    return Finding("wrong_values", found)


def run_local_mask_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=LOCAL_MASK_FORBID):
    """fn: (n_q, n_k, window) -> bool [n_q, n_k]. Returns the `Result`; prints nothing."""
    return run_cases("local_mask", fn, _local_cases(), _judge_local_mask, timeout, forbid=forbid)


def check_local_mask(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=LOCAL_MASK_FORBID):
    """fn: (n_q, n_k, window) -> bool [n_q, n_k]: the mask of a local layer when the n_q queries are the last n_q of
    n_k positions (query i is at position pos_i = n_k - n_q + i, as when decoding with a cache). True where key j is
    visible: 0 <= pos_i - j < window. attn_lib.sliding_window.sliding_window_mask and the model's own mask
    (attn_lib.models.gguf.decoder.visible) are forbidden. Prints one verdict line; True if every check passed."""
    lang = None if lang is None else check_language(lang)
    return report(run_local_mask_checks(fn, timeout, forbid), lang)


# --- one decode step with a rolling window cache ----------------------------------------------------------------


def _attend(q_t, keys, values, mask=None, scale=None, tile=False):
    """q_t [h, d] over keys, values [h_kv, n, d] -> [h, d]: query head i with K/V head i // g (or i % h_kv)."""
    g = q_t.shape[0] // keys.shape[0]
    spread = (lambda a: np.tile(a, (g, 1, 1))) if tile else (lambda a: np.repeat(a, g, axis=0))
    return scaled_dot_product_attention(q_t[:, None], spread(keys), spread(values), mask, scale)[0][:, 0]


def _rolled(keys, window):
    """keys [h_kv, p, d] of positions 0 .. p - 1 -> the ring buffer [h_kv, W, d]: position q at slot q % W (the
    latest such position; slots never written hold zeros)."""
    h_kv, p, d = keys.shape
    cache = np.zeros((h_kv, window, d))
    for position in range(max(0, p - window), p):
        cache[:, position % window] = keys[:, position]
    return cache


def _window_step(history_k, history_v, cache_k, cache_v, length, q_t, k_t, v_t):
    """The answer from the whole history: full attention over positions 0 .. p with the window's mask."""
    window = cache_k.shape[1]
    keys = np.concatenate([history_k, k_t[:, None]], axis=1)  # [h_kv, p + 1, d]
    values = np.concatenate([history_v, v_t[:, None]], axis=1)
    output = _attend(q_t, keys, values, _local_mask(1, length + 1, window))  # [1, p + 1]: the last W positions
    return output, _rolled(keys, window), _rolled(values, window), length + 1


def _window_cases():
    rng = np.random.default_rng(37)
    # (kind, query heads, K/V heads, window W, d, length): the cache full and wrapped, filling, empty, just full
    specs = [("case_window_wrapped", 6, 2, 4, 5, 9), ("case_window_filling", 4, 1, 5, 3, 2),
             ("case_decode_first", 2, 1, 3, 5, 0), ("case_window_first_eviction", 3, 1, 4, 6, 4)]  # fmt: skip
    cases = []
    for kind, h, h_kv, window, d, length in specs:
        history_k, history_v = 1.5 * rng.standard_normal((h_kv, length, d)), rng.standard_normal((h_kv, length, d))
        q_t, k_t, v_t = (
            1.5 * rng.standard_normal((h, d)),
            1.5 * rng.standard_normal((h_kv, d)),
            rng.standard_normal((h_kv, d)),
        )
        args = (_rolled(history_k, window), _rolled(history_v, window), length, q_t, k_t, v_t)
        shapes = f"cache_k, cache_v ({h_kv}, {window}, {d}), length = {length}, q_t {q_t.shape}, k_t, v_t {k_t.shape}"
        cases.append(Case(kind, shapes, args, {}, Reference(partial(_window_step, history_k, history_v))))
    return cases


def _cache_mistake(case, new_k, expected_k):
    """Why the returned keys are not the rolled cache: grown, unchanged, shifted, the new key in the wrong slot."""
    cache_k, _, length, _, k_t, _ = case.args
    window = cache_k.shape[1]
    fields = {"p": length, "W": window, "slot": length % window, "oldest": length - window}
    if new_k.shape == (cache_k.shape[0], window + 1, cache_k.shape[2]):
        return Finding("window_step_grew", fields)
    if new_k.shape != expected_k.shape:
        return wrong_shape(new_k.shape, expected_k.shape)
    if matches(new_k, cache_k):
        return Finding("window_step_unchanged", fields)
    if matches(new_k, np.concatenate([cache_k[:, 1:], k_t[:, None]], axis=1)):
        return Finding("window_step_shifted", fields)
    changed = [s for s in range(window) if not matches(new_k[:, s], cache_k[:, s])]
    if length >= window and len(changed) == 1 and matches(new_k[:, changed[0]], k_t):
        slot = changed[0]
        held = max(q for q in range(length) if q % window == slot)  # the position that slot held
        return Finding("window_step_slot", {**fields, "got_slot": slot, "held": held})
    return difference(new_k, expected_k)


def _judge_window_step(case, value, notes):
    if not isinstance(value, (tuple, list)) or len(value) != 4:
        return Finding("window_step_not_four", {"got": describe(value)})
    arrays = []
    for part in value[:3]:
        array, finding = as_numbers(part, notes)
        if finding:
            return finding
        arrays.append(array)
    (output, new_k, new_v), (expected_output, expected_k, expected_v, expected_length) = arrays, case.expected
    if output.shape != expected_output.shape:
        return wrong_shape(output.shape, expected_output.shape, OUTPUT)
    for got, expected in ((new_k, expected_k), (new_v, expected_v)):
        if got.shape != expected.shape or not matches(got, expected):
            return _cache_mistake(case, got, expected)
    cache_k, cache_v, length, q_t, k_t, v_t = case.args
    window, d = cache_k.shape[1], q_t.shape[-1]
    got_length = value[3]
    whole = not isinstance(got_length, bool) and np.ndim(got_length) == 0 and np.asarray(got_length).dtype.kind in "iu"
    if not whole or got_length != expected_length:
        got = str(int(got_length)) if whole else describe(got_length)
        return Finding("window_step_length", {"expected": expected_length, "got": got, "W": window})
    if matches(output, expected_output):
        return None
    filled = min(length, window)  # positions in the cache before this step
    before = np.arange(window) < filled  # [W]: the slots that held a position
    used = np.arange(window) < min(length + 1, window)  # [W]: the slots that hold one now
    k_used, v_used = expected_k[:, used], expected_v[:, used]  # the positions the new token should see
    h, h_kv = q_t.shape[0], cache_k.shape[0]
    sizes = {"d": d, "sqrt_d": fmt(np.sqrt(d)), "h": h, "hd": h * d, "sqrt_hd": fmt(np.sqrt(h * d))}
    sizes.update(d_k=d, sqrt_dk=fmt(np.sqrt(d)), W=window, wide=window + 1, filled=filled)
    candidates = [("gqa_tiled", {"g": h // h_kv, "h_kv": h_kv}, lambda: _attend(q_t, k_used, v_used, tile=True))]
    if filled:  # the old cache only: stored after attending
        candidates.append(("window_step_not_stored", sizes, lambda: _attend(q_t, cache_k, cache_v, before[None])))
    if length >= window:  # W + 1 positions: the one that has just left the window too
        both = np.concatenate([cache_k, k_t[:, None]], axis=1), np.concatenate([cache_v, v_t[:, None]], axis=1)
        candidates.append(("window_step_wide", sizes, lambda: _attend(q_t, *both)))
    if length + 1 < window:  # every slot, the empty ones (zeros) too
        candidates.append(("window_step_empty_slots", sizes, lambda: _attend(q_t, expected_k, expected_v)))
    candidates += [
        ("window_step_scale_d_model", sizes, lambda: _attend(q_t, k_used, v_used, scale=1 / np.sqrt(h * d))),
        ("scale_missing", sizes, lambda: _attend(q_t, k_used, v_used, scale=1.0)),
        ("scale_dk", sizes, lambda: _attend(q_t, k_used, v_used, scale=1 / d)),
    ]
    return first_match(output, candidates) or difference(output, expected_output, OUTPUT)


def _window_error(case, exc, passed):
    cache_k, _, _, q_t, _, _ = case.args
    if isinstance(exc, (ValueError, IndexError)) and "broadcast" in str(exc) and q_t.shape[0] != cache_k.shape[0]:
        return Finding("gqa_not_repeated", {"h": q_t.shape[0], "h_kv": cache_k.shape[0], "error": error_text(exc)})
    if case.kind == "case_decode_first" and passed:
        return Finding("decode_empty_cache", {"error": error_text(exc)})
    return None


def run_window_decode_step_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=WINDOW_STEP_FORBID):
    """fn: (cache_k [h_kv, W, d], cache_v [h_kv, W, d], length, q_t [h, d], k_t [h_kv, d], v_t [h_kv, d])
    -> (output [h, d], new_cache_k, new_cache_v, new_length). Returns the `Result`; prints nothing."""
    return run_cases("window_decode_step", fn, _window_cases(), _judge_window_step, timeout, _window_error, forbid)


def check_window_decode_step(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=WINDOW_STEP_FORBID):
    """fn: one decode step of a local layer with a rolling (ring-buffer) KV cache of W = window slots: position p
    lives at slot p % W. The new token (position p = length) is stored at slot p % W, over the oldest position,
    then attends to itself and the W - 1 positions before it: query head i with K/V head i // (h / h_kv), scores
    scaled by 1/√d. Returns (output [h, d], new_cache_k, new_cache_v, length + 1). attn_lib's grouped attention and
    KVCache are forbidden; scaled_dot_product_attention is allowed. Prints one verdict line; True if every check
    passed."""
    lang = None if lang is None else check_language(lang)
    return report(run_window_decode_step_checks(fn, timeout, forbid), lang)
