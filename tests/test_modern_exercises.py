"""Notebook 12's checkers: each classic mistake, written as a learner would, gets its own diagnosis.

Correct learner-style code passes, in float64 and float32; attn_lib's own functions are refused (the
exercise asks for the learner's code); every wrong version below is diagnosed with exactly the i18n
key next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.grouped import grouped_attention, kv_cache_bytes
from attn_lib.i18n import t
from attn_lib.sliding_window import sliding_window_mask

# --- learner-style code -----------------------------------------------------------------------------


def learner_gqa(q, k, v, mask=None, spread=np.repeat, axis=-3, scale=None, values=None):
    """GQA as a learner writes it: repeat the K/V heads for their groups, then scaled dot-product attention."""
    g = q.shape[-3] // k.shape[-3]
    if spread is np.tile:
        reps = [1] * k.ndim
        reps[-3] = g
        k_all, v_all = np.tile(k, reps), np.tile(v, reps)
    elif spread is None:  # not repeated at all
        k_all, v_all = k, v
    else:
        k_all, v_all = np.repeat(k, g, axis=axis), np.repeat(v, g, axis=axis)
    if values is not None:
        v_all = values(v, g)
    scores = q @ np.swapaxes(k_all, -1, -2) / np.sqrt(q.shape[-1] if scale is None else scale)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v_all, weights


def _tiled_values(v, g):
    reps = [1] * v.ndim
    reps[-3] = g
    return np.tile(v, reps)


def learner_window(n, window):
    i, j = np.arange(n)[:, None], np.arange(n)[None, :]
    return (i - j >= 0) & (i - j < window)


def learner_cache(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number):
    return 2 * n_layers * n_kv_heads * d_head * n_tokens * bytes_per_number


# --- wrong versions, each with the diagnosis it must get ----------------------------------------------

WRONG = [
    ("grouped_query_attention", "gqa_tiled", lambda q, k, v, mask=None: learner_gqa(q, k, v, mask, spread=np.tile)),
    ("grouped_query_attention", "gqa_not_repeated", lambda q, k, v, mask=None: learner_gqa(q, k, v, mask, spread=None)),
    ("grouped_query_attention", "gqa_batch_axis", lambda q, k, v, mask=None: learner_gqa(q, k, v, mask, axis=0)),
    (
        "grouped_query_attention",
        "gqa_values_tiled",
        lambda q, k, v, mask=None: learner_gqa(q, k, v, mask, values=_tiled_values),
    ),
    (
        "grouped_query_attention",
        "scale_dim",  # attention's own mistakes are named once the heads are paired: here sqrt(d_v) for sqrt(d_k)
        lambda q, k, v, mask=None: learner_gqa(q, k, v, mask, scale=v.shape[-1]),
    ),
    (
        "grouped_query_attention",
        "attn_mask_ignored",
        lambda q, k, v, mask=None: learner_gqa(q, k, v),
    ),
    ("sliding_window_mask", "window_wide", lambda n, w: learner_window(n, w + 1)),
    ("sliding_window_mask", "window_narrow", lambda n, w: learner_window(n, w - 1)),
    (
        "sliding_window_mask",
        "window_not_causal",
        lambda n, w: np.abs(np.subtract.outer(np.arange(n), np.arange(n))) < w,
    ),
    ("sliding_window_mask", "window_future", lambda n, w: learner_window(n, w).T),
    ("sliding_window_mask", "window_inverted", lambda n, w: ~learner_window(n, w)),
    ("sliding_window_mask", "window_missing", lambda n, w: np.tril(np.ones((n, n), dtype=bool))),
    ("sliding_window_mask", "mask_not_bool", lambda n, w: learner_window(n, w).astype(int)),
    ("sliding_window_mask", "mask_additive", lambda n, w: np.where(learner_window(n, w), 0.0, -np.inf)),
    ("sliding_window_mask", "wrong_values", lambda n, w: np.eye(n, dtype=bool) | (np.arange(n)[:, None] == n - 1)),
    ("kv_cache_bytes", "cache_no_factor_2", lambda n_l, n_kv, d, n, b: n_l * n_kv * d * n * b),
    ("kv_cache_bytes", "cache_numbers", lambda n_l, n_kv, d, n, b: 2 * n_l * n_kv * d * n),
    ("kv_cache_bytes", "cache_bits", lambda n_l, n_kv, d, n, b: 2 * n_l * n_kv * d * n * b * 8),
    ("kv_cache_bytes", "cache_one_layer", lambda n_l, n_kv, d, n, b: 2 * n_kv * d * n * b),
    ("kv_cache_bytes", "cache_one_token", lambda n_l, n_kv, d, n, b: 2 * n_l * n_kv * d * b),
    ("kv_cache_bytes", "cache_wrong", lambda n_l, n_kv, d, n, b: 2 * n_l * (n_kv + 1) * d * n * b),
]

RUN = {
    "grouped_query_attention": ex.run_grouped_query_attention_checks,
    "sliding_window_mask": ex.run_sliding_window_mask_checks,
    "kv_cache_bytes": ex.run_kv_cache_bytes_checks,
}
CHECK = {
    "grouped_query_attention": ex.check_grouped_query_attention,
    "sliding_window_mask": ex.check_sliding_window_mask,
    "kv_cache_bytes": ex.check_kv_cache_bytes,
}
LEARNER_CORRECT = {
    "grouped_query_attention": learner_gqa,
    "sliding_window_mask": learner_window,
    "kv_cache_bytes": learner_cache,
}
ATTN_LIB = {  # attn_lib's own function: right, but forbidden
    "grouped_query_attention": grouped_attention,
    "sliding_window_mask": sliding_window_mask,
    "kv_cache_bytes": kv_cache_bytes,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_learner_code_passes_in_float64_and_float32(exercise, capsys):
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1

    def in_float32(*args, **kwargs):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
        return LEARNER_CORRECT[exercise](*args, **kwargs)

    assert RUN[exercise](in_float32).ok, RUN[exercise](in_float32).verdict("en")


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_attn_libs_own_function_is_refused_by_default(exercise):
    result = RUN[exercise](ATTN_LIB[exercise])
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert RUN[exercise](ATTN_LIB[exercise], forbid=()).ok


def test_a_helper_that_uses_attn_libs_repeat_is_caught():
    from attn_lib.grouped import repeat_kv

    def via_repeat(q, k, v, mask=None):
        g = q.shape[-3] // k.shape[-3]
        return scaled_dot_product_attention(q, repeat_kv(k, g), repeat_kv(v, g), mask=mask)

    result = ex.run_grouped_query_attention_checks(via_repeat)
    assert result.key == "forbidden_call_inside" and result.fields["name"] == "attn_lib.grouped.repeat_kv"
    assert ex.run_grouped_query_attention_checks(via_repeat, forbid=()).ok


def test_the_diagnoses_name_the_numbers_of_the_failing_case():
    result = ex.run_grouped_query_attention_checks(WRONG[0][2])
    assert result.case.kind == "case_gqa_groups" and "np.repeat(k, 3, axis=-3)" in result.verdict("en")
    result = ex.run_sliding_window_mask_checks(lambda n, w: learner_window(n, w + 1))
    assert result.fields == {"window": 3, "seen": 4} and "i − 3 .. i" in result.verdict("en")
    result = ex.run_kv_cache_bytes_checks(lambda n_l, n_kv, d, n, b: n_l * n_kv * d * n * b)
    assert "4,620 bytes is half of 9,240" in result.verdict("en")  # 2 x 3 x 5 x 7 x 11 x 4 = 9,240


def test_batched_false_skips_the_batch_case_and_stubs_are_named():
    assert ex.run_grouped_query_attention_checks(WRONG[2][2], batched=False).ok
    assert ex.run_sliding_window_mask_checks(lambda n, w: None).key == "not_implemented"
    assert ex.run_kv_cache_bytes_checks(lambda *a: "lots").key == "wrong_type"
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_kv_cache_bytes(learner_cache, lang="fr")
