"""Notebook 04's formula exercise (attn_lib.exercises.attention): the formula as 04 teaches it, no mask.

Each classic mistake of the four steps, written as a learner would, gets its own diagnosis; correct code
passes without a `mask` parameter (the mask comes in notebook 05), in float64 and float32.
"""

import numpy as np
import pytest

import attn_lib
from attn_lib import exercises as ex
from attn_lib.i18n import t


def T(a):
    return np.swapaxes(a, -1, -2)


def learner_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def learner_formula(q, k, v, scale=None, softmax=learner_softmax, axis=-1):
    """The four steps of notebook 04: scores, scaling, softmax over the keys, weighted sum."""
    scores = q @ T(k) * (1 / np.sqrt(q.shape[-1]) if scale is None else scale)  # [..., n_q, n_k]
    weights = softmax(scores, axis=axis)  # [..., n_q, n_k]
    return weights @ v, weights  # [..., n_q, d_v], [..., n_q, n_k]


def naive_softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def _dot_T(q, k, v):
    weights = attn_lib.softmax(q @ k.T / np.sqrt(q.shape[-1]))  # .T reverses every axis of a batch
    return weights @ v, weights


def _softmax_then_scale(q, k, v):
    weights = attn_lib.softmax(q @ T(k)) / np.sqrt(q.shape[-1])  # step 2 after step 3
    return weights @ v, weights


def _not_divided(q, k, v):
    scores = q @ T(k) / np.sqrt(q.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))  # np.exp, but no division by the row sum
    return weights @ v, weights


WRONG = [
    ("scale_missing", lambda q, k, v: learner_formula(q, k, v, scale=1.0)),
    ("scale_dk", lambda q, k, v: learner_formula(q, k, v, scale=1 / q.shape[-1])),
    ("scale_inverted", lambda q, k, v: learner_formula(q, k, v, scale=np.sqrt(q.shape[-1]))),
    ("scale_dim", lambda q, k, v: learner_formula(q, k, v, scale=1 / np.sqrt(v.shape[-1]))),
    ("attn_softmax_axis", lambda q, k, v: learner_formula(q, k, v, axis=-2)),
    ("attn_softmax_overflow", lambda q, k, v: learner_formula(q, k, v, softmax=naive_softmax)),
    ("attn_scale_after_softmax", _softmax_then_scale),  # issue 27: it was told "divide by the sum"
    ("attn_weights_not_normalised", _not_divided),
    ("attn_output_wrong", lambda q, k, v: (2 * learner_formula(q, k, v)[0], learner_formula(q, k, v)[1])),
    ("attn_pair_order", lambda q, k, v: learner_formula(q, k, v)[::-1]),
    ("not_pair", lambda q, k, v: learner_formula(q, k, v)[0]),
    ("batch_transpose", _dot_T),
    ("wrong_shape", lambda q, k, v: (learner_formula(q, k, v)[0], learner_formula(q, k, v)[1][..., :1])),
    ("forbidden_call", attn_lib.scaled_dot_product_attention),
    ("forbidden_call_inside", lambda q, k, v: attn_lib.multi_head_attention(q, *[np.eye(q.shape[-1])] * 4, 1)),
]


@pytest.mark.parametrize(("key", "fn"), WRONG, ids=[key for key, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(key, fn, capsys):
    result = ex.run_attention_formula_checks(fn)
    assert (result.ok, result.key) == (False, key), result.verdict("en")
    assert ex.check_attention_formula(fn, lang="en") is False
    out = capsys.readouterr().out
    assert out.startswith(f"✗ {t('exercises.title_attention_formula', 'en')}") and out.count("\n") == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_correct_code_without_a_mask_parameter_passes_and_prints_a_tick(lang, capsys):
    assert ex.check_attention_formula(learner_formula, lang=lang) is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t('exercises.title_attention_formula', lang)}") and out.count("\n") == 1
    assert t("exercises.case_large_scores", lang) in out and t("exercises.case_batch", lang) in out


def test_it_checks_what_notebook_04_teaches_and_nothing_of_05():
    """No case passes a mask; every unmasked case of the attention exercise is there."""
    result = ex.run_attention_formula_checks(learner_formula)
    assert result.ok
    assert result.checked == ("case_nq_nk", "case_single", "case_large_scores", "case_batch", "case_batch_heads")
    assert not any("mask" in kind for kind in result.checked)
    # the same function fails notebook 05's exercise, which passes a mask
    assert ex.run_attention_checks(learner_formula, forbid=()).key == "mask_argument"


def test_attn_lib_softmax_is_allowed_and_the_formula_is_forbidden():
    with_lib_softmax = lambda q, k, v: learner_formula(q, k, v, softmax=attn_lib.softmax)  # noqa: E731
    assert ex.run_attention_formula_checks(with_lib_softmax).ok
    assert ex.run_attention_formula_checks(with_lib_softmax, forbid=("softmax",)).key == "forbidden_call"
    assert ex.run_attention_formula_checks(attn_lib.scaled_dot_product_attention, forbid=()).ok


def test_float32_code_passes():
    def in_float32(q, k, v):
        return learner_formula(q.astype(np.float32), k.astype(np.float32), v.astype(np.float32))

    assert ex.run_attention_formula_checks(in_float32).ok


def test_batched_false_skips_the_batch_case():
    result = ex.run_attention_formula_checks(learner_formula, batched=False)
    assert result.ok and "case_batch" not in result.checked
    assert ex.run_attention_formula_checks(_dot_T, batched=False).ok  # .T is harmless without a batch
