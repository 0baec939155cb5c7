"""The checkers' second hostile pass (issue 27): arguments refused by name, reduced precision, four axes,
which exercise a function comes from, and what a learner's code cannot do to the watch or the verdict.

Each test here failed before its fix.
"""

import numpy as np
import pytest
from checker_helpers import stable_softmax

from attn_lib import exercises as ex

RUNNERS_WITH_BATCHED = [
    ex.run_scaled_scores_checks,
    ex.run_attention_checks,
    ex.run_attention_formula_checks,
    ex.run_split_heads_checks,
    ex.run_multi_head_checks,
    ex.run_rope_checks,
    ex.run_grouped_query_attention_checks,
]


# --- items 11, 12: a checker's own arguments -------------------------------------------------------


@pytest.mark.parametrize("timeout", ["5", None, [5]])
def test_a_timeout_that_is_not_a_number_is_refused_by_name(timeout):
    for check in (ex.check_softmax, ex.run_softmax_checks, ex.check_in_real_model):
        with pytest.raises(TypeError, match=r"timeout must be a number of seconds .* got"):
            check(stable_softmax, timeout=timeout)


@pytest.mark.parametrize("timeout", [0, -1, float("inf"), float("nan")])
def test_a_timeout_that_is_not_positive_and_finite_is_refused_by_name(timeout):
    for check in (ex.check_softmax, ex.run_attention_checks, ex.run_in_real_model_checks):
        with pytest.raises(ValueError, match=r"timeout must be a positive, finite number of seconds .* got"):
            check(stable_softmax, timeout=timeout)


@pytest.mark.parametrize("run", RUNNERS_WITH_BATCHED, ids=lambda run: run.__name__)
def test_batched_must_be_true_or_false(run):
    with pytest.raises(TypeError, match=r"batched must be True or False, got str 'no'"):
        run(stable_softmax, batched="no")
    assert run(lambda *a, **k: None, batched=np.True_).key == "not_implemented"


# --- item 6: two leading axes ------------------------------------------------------------------------


def three_d_only(q, k, v, mask=None):
    """Right for [n, d_k] and [B, n, d_k]; k.transpose(0, 2, 1) fails on the [B, h, n, d_k] of notebooks 06 and 09."""
    k_t = k.T if k.ndim == 2 else k.transpose(0, 2, 1)
    scores = q @ k_t / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def test_a_function_for_three_axes_only_fails_on_four_and_is_told_why():
    for run in (ex.run_attention_checks, ex.run_attention_formula_checks):
        result = run(three_d_only)
        assert (result.ok, result.key, result.case.kind) == (False, "batch_heads", "case_batch_heads"), result.verdict(
            "en"
        )
        assert "[B, h, n, d_k]" in result.verdict("en") and "[B, h, n, d_k]" in result.verdict("zh")
        assert run(three_d_only, batched=False).ok  # batched=False leaves out every case with leading axes


def test_the_four_axis_cases_broadcast_one_n_by_n_mask_over_batch_and_heads():
    from attn_lib.exercises import attention

    cases = {c.kind: c for c in attention._attention_cases(True)}
    q = cases["case_batch_heads_mask"].args[0]
    assert q.ndim == 4 and len(set(q.shape)) == 4 and cases["case_batch_heads_mask"].kwargs["mask"].shape == (5, 5)
    assert cases["case_batch_heads"].args[0].ndim == 4 and "mask" not in cases["case_batch_heads"].kwargs


def test_a_mask_that_only_works_without_heads_fails_on_the_four_axis_case():
    def mask_for_three_axes(q, k, v, mask=None):
        scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
        if mask is not None and q.ndim == 4:
            mask = mask[:, None]  # a guess that breaks a [n, n] mask: [n, 1, n]
        if mask is not None:
            scores = np.where(mask, scores, -np.inf)
        weights = stable_softmax(scores)
        return weights @ v, weights

    result = ex.run_attention_checks(mask_for_three_axes)
    assert not result.ok and result.case.kind == "case_batch_heads_mask", result.verdict("en")


# --- item 7: which exercise a function comes from ----------------------------------------------------


def learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    *batch, n, d_model = x.shape

    def split(a):  # [..., n, d_model] -> [..., h, n, d_k]
        return np.swapaxes(a.reshape(*batch, n, n_heads, d_model // n_heads), -2, -3)

    q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return np.swapaxes(weights @ v, -2, -3).reshape(x.shape) @ w_o, weights


def mha_with_default_heads(x, w_q, w_k, w_v, w_o, n_heads=2, mask=None):
    return learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask)


def wrapped(*args, **kwargs):  # e.g. a decorator's wrapper that forgot functools.wraps
    return learner_mha(*args, **kwargs)


def wrapped_attention(*args, **kwargs):
    return three_d_or_more(*args, **kwargs)


def three_d_or_more(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def test_a_multi_head_function_is_told_by_its_names_and_all_its_parameters():
    from attn_lib.exercises import capstone

    assert ex.run_multi_head_checks(mha_with_default_heads).ok and ex.run_multi_head_checks(wrapped).ok
    assert capstone.function_kind(mha_with_default_heads) == "multi_head"
    assert capstone.function_kind(lambda x, w_q, w_k, w_v, w_o, h=2, mask=None: None) == "multi_head"
    assert capstone.function_kind(wrapped) is None  # *args says nothing: both kinds are tried
    assert capstone.function_kind(three_d_or_more) == "attention"


@pytest.mark.parametrize("fn", [mha_with_default_heads, wrapped, wrapped_attention], ids=lambda f: f.__name__)
def test_the_other_kind_is_tried_before_the_function_is_blamed(fn, monkeypatch):
    """The small-input check that passes picks the kind; the model run then uses that kind (no model needed)."""
    from attn_lib.exercises import capstone

    kind, small = capstone.small_checks_of_either_kind(fn, 5.0)
    assert small.ok, small.verdict("en")
    assert kind == ("attention" if fn is wrapped_attention else "multi_head")
