"""Notebook 15's checkers: each classic mistake, written as a learner would, gets its own diagnosis.

The solution_* functions are the notebook's solution cells, and they pass in float64 and float32; attn_lib's own
functions are refused (the exercise asks for the learner's code); every wrong version below is diagnosed with
exactly the i18n key next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed, stable_softmax

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.block import rms_norm
from attn_lib.grouped import grouped_attention
from attn_lib.i18n import t
from attn_lib.models.gguf.decoder import visible
from attn_lib.sliding_window import sliding_window_mask

# --- the notebook's solutions -------------------------------------------------------------------------------------


def solution_qk_norm(x, gain, eps=1e-6):
    rms = np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)  # [heads, n, 1]: one per head and position
    return x / rms * gain  # [heads, n, d] / [heads, n, 1] * [d]


def solution_local_mask(n_q, n_k, window):
    positions = np.arange(n_k - n_q, n_k)  # the queries are the last n_q positions
    offset = positions[:, None] - np.arange(n_k)  # [n_q, 1] - [n_k] -> [n_q, n_k]: pos_i - j
    return (offset >= 0) & (offset < window)  # itself and the window - 1 positions before it


def solution_window_decode_step(cache_k, cache_v, length, q_t, k_t, v_t):
    h_kv, window, d = cache_k.shape
    cache_k, cache_v = cache_k.copy(), cache_v.copy()
    slot = length % window  # position p = length lives at slot p % W, over the oldest position
    cache_k[:, slot], cache_v[:, slot] = k_t, v_t
    filled = min(length + 1, window)  # the slots that hold a position now
    g = q_t.shape[0] // h_kv
    k = np.repeat(cache_k[:, :filled], g, axis=0)  # [h, filled, d]: query head i with K/V head i // g
    v = np.repeat(cache_v[:, :filled], g, axis=0)
    scores = np.einsum("hd,hnd->hn", q_t, k) / np.sqrt(d)  # [h, filled]
    weights = stable_softmax(scores)
    return np.einsum("hn,hnd->hd", weights, v), cache_k, cache_v, length + 1


# --- learner-style code with one mistake switched on ---------------------------------------------------------------


def qk_norm_with(axis=-1, centre=False, gain_plus_one=False, no_gain=False, eps_outside=False):
    def fn(x, gain, eps=1e-6):
        y = x - x.mean(axis=axis, keepdims=True) if centre else x
        square = np.mean(y**2, axis=axis, keepdims=True)
        normed = y / (np.sqrt(square) + eps) if eps_outside else y / np.sqrt(square + eps)
        return normed if no_gain else normed * (1 + gain if gain_plus_one else gain)

    return fn


def local_mask_with(low=0, high=None, first=None, causal=True, invert=False, all_rows=False):
    def fn(n_q, n_k, window):
        start = (0 if all_rows else n_k - n_q) if first is None else first
        rows = n_k if all_rows else n_q
        offset = np.arange(start, start + rows)[:, None] - np.arange(n_k)
        mask = offset < (window if high is None else high(window))
        mask = mask & (offset >= low) if causal else mask
        return ~mask if invert else mask

    return fn


def window_step_with(slot=None, shift=False, grow=False, keep=False, attend_first=False, wide=False, every_slot=False,
                     scale=None, tile=False, repeat=True, length_of=None, returned=4, output_shape=None):  # fmt: skip
    """solution_window_decode_step with one classic mistake switched on."""

    def fn(cache_k, cache_v, length, q_t, k_t, v_t):
        h_kv, window, d = cache_k.shape
        old_k, old_v = cache_k, cache_v
        if grow:
            new_k, new_v = np.concatenate([cache_k, k_t[:, None]], 1), np.concatenate([cache_v, v_t[:, None]], 1)
        elif shift:
            new_k = np.concatenate([cache_k[:, 1:], k_t[:, None]], 1)  # slot 0 dropped, the new key at the end
            new_v = np.concatenate([cache_v[:, 1:], v_t[:, None]], 1)
        else:
            new_k, new_v = cache_k.copy(), cache_v.copy()
            if not keep:
                at = length % window if slot is None else slot(length, window)
                new_k[:, at], new_v[:, at] = k_t, v_t
        filled = min(length + 1, window)
        if attend_first:  # the old cache, before storing
            k, v = old_k[:, : min(length, window)], old_v[:, : min(length, window)]
        elif wide:  # the old cache and the new token: W + 1 positions once full
            k = np.concatenate([old_k[:, : min(length, window)], k_t[:, None]], 1)
            v = np.concatenate([old_v[:, : min(length, window)], v_t[:, None]], 1)
        elif every_slot or grow:
            k, v = new_k, new_v
        else:
            k, v = new_k[:, :filled], new_v[:, :filled]
        g = q_t.shape[0] // h_kv
        if repeat:
            k, v = (np.tile(a, (g, 1, 1)) for a in (k, v)) if tile else (np.repeat(a, g, axis=0) for a in (k, v))
        scores = np.einsum("hd,hnd->hn", q_t, k) * (1 / np.sqrt(d) if scale is None else scale(q_t))
        output = np.einsum("hn,hnd->hd", stable_softmax(scores), v)
        output = output if output_shape is None else output_shape(output)
        new_length = length + 1 if length_of is None else length_of(length, window)
        return (output, new_k, new_v, new_length)[:returned]

    return fn


def online_window_step(cache_k, cache_v, length, q_t, k_t, v_t):
    """Scores of the cache and of the new token combined by their maxima: the empty cache's max raises."""
    window, d = cache_k.shape[1], q_t.shape[-1]
    old = min(length, window) if length < window else window - 1  # the cached positions still in the window
    keep = [(length - 1 - i) % window for i in range(old)]
    g = q_t.shape[0] // cache_k.shape[0]
    k, v = np.repeat(cache_k[:, keep], g, axis=0), np.repeat(cache_v[:, keep], g, axis=0)
    old_scores = np.einsum("hd,hnd->hn", q_t, k) / np.sqrt(d)
    new_score = np.einsum("hd,hd->h", q_t, np.repeat(k_t, g, axis=0)) / np.sqrt(d)
    top = np.maximum(old_scores.max(axis=-1), new_score)  # no identity for an empty cache: ValueError
    e_old, e_new = np.exp(old_scores - top[:, None]), np.exp(new_score - top)
    total = e_old.sum(-1) + e_new
    output = (np.einsum("hn,hnd->hd", e_old, v) + e_new[:, None] * np.repeat(v_t, g, axis=0)) / total[:, None]
    new_k, new_v = cache_k.copy(), cache_v.copy()
    new_k[:, length % window], new_v[:, length % window] = k_t, v_t
    return output, new_k, new_v, length + 1


def raises(*args):
    raise RuntimeError("my code is broken")


# --- wrong versions, each with the diagnosis it must get -----------------------------------------------------------

WRONG = [
    ("qk_norm", "qk_norm_over_heads", qk_norm_with(axis=0)),
    ("qk_norm", "qk_norm_over_positions", qk_norm_with(axis=-2)),
    ("qk_norm", "qk_norm_all_heads", qk_norm_with(axis=(0, 2))),
    ("qk_norm", "rms_mean_subtracted", qk_norm_with(centre=True)),
    ("qk_norm", "rms_no_gain", qk_norm_with(no_gain=True)),
    ("qk_norm", "qk_norm_one_plus_gain", qk_norm_with(gain_plus_one=True)),
    ("qk_norm", "rms_eps_outside", qk_norm_with(eps_outside=True)),
    ("qk_norm", "wrong_shape", lambda x, gain, eps=1e-6: solution_qk_norm(x, gain, eps).swapaxes(0, 1)),
    ("qk_norm", "not_implemented", lambda x, gain, eps=1e-6: None),
    ("qk_norm", "raised", raises),
    ("local_mask", "local_wide", local_mask_with(high=lambda w: w + 1)),
    ("local_mask", "local_narrow", local_mask_with(high=lambda w: w - 1)),
    ("local_mask", "local_not_causal", local_mask_with(causal=False)),
    ("local_mask", "local_top_left", local_mask_with(first=0)),
    ("local_mask", "local_no_window", local_mask_with(high=lambda w: np.inf)),
    ("local_mask", "local_inverted", local_mask_with(invert=True)),
    ("local_mask", "local_all_rows", local_mask_with(all_rows=True)),
    ("local_mask", "mask_additive", lambda *a: np.where(solution_local_mask(*a), 0.0, -np.inf)),
    ("local_mask", "not_implemented", lambda n_q, n_k, window: None),
    ("local_mask", "raised", raises),
    ("window_decode_step", "window_step_slot", window_step_with(slot=lambda p, w: (p - 1) % w)),  # over the newest
    ("window_decode_step", "window_step_shifted", window_step_with(shift=True)),
    ("window_decode_step", "window_step_grew", window_step_with(grow=True)),
    ("window_decode_step", "window_step_unchanged", window_step_with(keep=True)),
    ("window_decode_step", "window_step_not_stored", window_step_with(attend_first=True)),
    ("window_decode_step", "window_step_wide", window_step_with(wide=True)),
    ("window_decode_step", "window_step_empty_slots", window_step_with(every_slot=True)),
    (
        "window_decode_step",
        "window_step_scale_d_model",
        window_step_with(scale=lambda q: 1 / np.sqrt(q.shape[0] * q.shape[1])),
    ),
    ("window_decode_step", "scale_missing", window_step_with(scale=lambda q: 1.0)),
    ("window_decode_step", "scale_dk", window_step_with(scale=lambda q: 1 / q.shape[-1])),
    ("window_decode_step", "gqa_tiled", window_step_with(tile=True)),
    ("window_decode_step", "gqa_not_repeated", window_step_with(repeat=False)),
    ("window_decode_step", "window_step_length", window_step_with(length_of=lambda p, w: min(p + 1, w))),
    ("window_decode_step", "window_step_not_four", window_step_with(returned=3)),
    ("window_decode_step", "wrong_shape", window_step_with(output_shape=lambda out: out[:, None])),
    ("window_decode_step", "decode_empty_cache", online_window_step),
    ("window_decode_step", "not_implemented", lambda *a: None),
    ("window_decode_step", "raised", raises),
]

RUN = {
    "qk_norm": ex.run_qk_norm_checks,
    "local_mask": ex.run_local_mask_checks,
    "window_decode_step": ex.run_window_decode_step_checks,
}
CHECK = {
    "qk_norm": ex.check_qk_norm,
    "local_mask": ex.check_local_mask,
    "window_decode_step": ex.check_window_decode_step,
}
SOLUTION = {
    "qk_norm": solution_qk_norm,
    "local_mask": solution_local_mask,
    "window_decode_step": solution_window_decode_step,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}-{i}" for i, (e, k, _) in enumerate(WRONG)])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_the_solution_passes_in_both_languages_and_in_float32(exercise, capsys):
    assert CHECK[exercise](SOLUTION[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1
    assert CHECK[exercise](SOLUTION[exercise], lang="zh") is True
    assert capsys.readouterr().out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'zh')}：")

    def in_float32(*args):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return SOLUTION[exercise](*args)

    assert RUN[exercise](in_float32).ok, RUN[exercise](in_float32).verdict("en")


def test_a_stub_and_a_function_that_raises_are_told_so():
    for exercise, stub in (("qk_norm", lambda x, gain, eps=1e-6: None), ("local_mask", lambda *a: None)):
        result = RUN[exercise](stub)
        assert result.key == "not_implemented" and "Not implemented yet" in result.verdict("en")
        assert "还没有实现" in result.verdict("zh")
    result = ex.run_window_decode_step_checks(raises)
    assert result.key == "raised" and "RuntimeError: my code is broken" in result.verdict("en")
    assert "RuntimeError: my code is broken" in result.verdict("zh")


def test_other_correct_ways_pass():
    def local_from_causal(n_q, n_k, window):  # the square causal mask's last rows, minus what lies too far back
        square = np.tril(np.ones((n_k, n_k), dtype=bool)) & ~np.tril(np.ones((n_k, n_k), dtype=bool), -window)
        return square[n_k - n_q :]

    def step_with_attention(cache_k, cache_v, length, q_t, k_t, v_t):  # allowed: the exercise is the cache
        window = cache_k.shape[1]
        cache_k, cache_v = cache_k.copy(), cache_v.copy()
        cache_k[:, length % window], cache_v[:, length % window] = k_t, v_t
        used = np.arange(window) < length + 1  # [W]: the slots written so far
        g = q_t.shape[0] // cache_k.shape[0]
        k, v = np.repeat(cache_k, g, axis=0), np.repeat(cache_v, g, axis=0)
        out, _ = scaled_dot_product_attention(q_t[:, None], k, v, mask=used[None])
        return out[:, 0], cache_k, cache_v, np.int64(length + 1)

    assert ex.run_local_mask_checks(local_from_causal).ok
    assert ex.run_local_mask_checks(lambda *a: solution_local_mask(*a).tolist()).ok
    result = ex.run_window_decode_step_checks(step_with_attention)
    assert result.ok, result.verdict("en")


def test_attn_libs_own_functions_are_refused_by_default():
    def via_sliding(n_q, n_k, window):
        return sliding_window_mask(n_k, window)[n_k - n_q :]

    def via_model(n_q, n_k, window):
        return visible(n_q, n_k, window)

    def via_grouped(cache_k, cache_v, length, q_t, k_t, v_t):
        cache_k, cache_v = cache_k.copy(), cache_v.copy()
        cache_k[:, length % cache_k.shape[1]], cache_v[:, length % cache_k.shape[1]] = k_t, v_t
        n = min(length + 1, cache_k.shape[1])
        out, _ = grouped_attention(q_t[:, None], cache_k[:, :n], cache_v[:, :n])
        return out[:, 0], cache_k, cache_v, length + 1

    for run, fn, name in [
        (ex.run_qk_norm_checks, lambda x, gain, eps=1e-6: rms_norm(x, gain, eps), "attn_lib.block.rms_norm"),
        (ex.run_local_mask_checks, via_sliding, "attn_lib.sliding_window.sliding_window_mask"),
        (ex.run_local_mask_checks, via_model, "attn_lib.models.gguf.decoder.visible"),
        (ex.run_window_decode_step_checks, via_grouped, "attn_lib.grouped.grouped_attention"),
    ]:
        result = run(fn)
        assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
        assert result.fields["name"] == name
    assert ex.run_qk_norm_checks(lambda x, gain, eps=1e-6: rms_norm(x, gain, eps), forbid=()).ok
    assert ex.run_window_decode_step_checks(via_grouped, forbid=()).ok


def test_the_diagnoses_name_the_numbers_of_the_failing_case():
    result = ex.run_window_decode_step_checks(window_step_with(slot=lambda p, w: (p - 1) % w))
    assert result.case.kind == "case_window_wrapped"
    assert "written to slot 0, over position 8" in result.verdict("en") and "position 5" in result.verdict("en")
    result = ex.run_local_mask_checks(local_mask_with(first=0))
    assert result.case.kind == "case_local_last" and "pos_i = n_k − n_q + i = 5 + i" in result.verdict("en")
    result = ex.run_qk_norm_checks(qk_norm_with(axis=(0, 2)))
    assert "h·d = 32 numbers per position" in result.verdict("en")
    result = ex.run_window_decode_step_checks(window_step_with(every_slot=True))
    assert result.case.kind == "case_window_filling"  # a full cache has no empty slot to attend over


def test_eps_outside_the_square_root_is_told_only_where_it_shows():
    """On heads of ordinary size eps's place moves the result by about 1e-6: those cases pass, the tiny head fails."""
    result = ex.run_qk_norm_checks(qk_norm_with(eps_outside=True))
    assert result.case.kind == "case_qk_tiny" and result.key == "rms_eps_outside"


def test_the_rolling_cache_gives_the_numbers_of_full_attention_over_the_history():
    """Ten steps from an empty cache: the solution's outputs are full attention with the window mask over everything."""
    rng = np.random.default_rng(3)
    h, h_kv, window, d, steps = 4, 2, 3, 5, 10
    keys, values = rng.standard_normal((h_kv, steps, d)), rng.standard_normal((h_kv, steps, d))
    queries = rng.standard_normal((steps, h, d))
    cache_k, cache_v, length = np.zeros((h_kv, window, d)), np.zeros((h_kv, window, d)), 0
    for p in range(steps):
        step = (queries[p], keys[:, p], values[:, p])
        out, cache_k, cache_v, length = solution_window_decode_step(cache_k, cache_v, length, *step)
        k, v = np.repeat(keys[:, : p + 1], h // h_kv, axis=0), np.repeat(values[:, : p + 1], h // h_kv, axis=0)
        expected, _ = scaled_dot_product_attention(queries[p][:, None], k, v, mask=visible(1, p + 1, window))
        np.testing.assert_allclose(out, expected[:, 0], rtol=1e-12, atol=1e-12)
    assert length == steps
