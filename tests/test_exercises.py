"""Tests for attn_lib.exercises: each classic mistake, written as a learner would, gets its own diagnosis.

Every deliberately wrong implementation below is diagnosed with exactly one i18n key; correct
implementations (attn_lib's and learner-style ones) pass; stubs, exceptions, wrong shapes, NaN,
lists and slow functions all get a one-line verdict and never a traceback.
"""

import functools
import re
import string
import sys
import threading

import numpy as np
import pytest
from checker_helpers import plain_softmax, rendered, stable_softmax
from hypothesis import given, settings
from hypothesis import strategies as st
from test_basics_exercises import WRONG as BASICS_WRONG
from test_budget_exercises import WRONG as BUDGET_WRONG
from test_decoder_parts_exercises import WRONG as DECODER_WRONG
from test_efficient_exercises import WRONG as EFFICIENT_WRONG
from test_gemma_exercises import WRONG as GEMMA_WRONG
from test_generation_exercises import WRONG as GENERATION_WRONG
from test_modern_exercises import WRONG as MODERN_WRONG
from test_position_exercises import WRONG as POSITION_WRONG
from test_training_exercises import WRONG as TRAINING_WRONG
from test_translation_exercises import WRONG as TRANSLATION_WRONG

import attn_lib
from attn_lib import exercises as ex
from attn_lib.exercises import attention, multihead
from attn_lib.exercises.diagnose import Case, run_cases
from attn_lib.grouped import grouped_query_attention
from attn_lib.i18n import STRINGS, set_language, t
from attn_lib.models.minilm.bert import multi_head_with
from attn_lib.models.tiny_model import attention_layer

# --- learner-style building blocks ----------------------------------------------------------------


def naive_softmax(x, axis=-1):
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def T(a):
    return np.swapaxes(a, -1, -2)


def learner_attention(q, k, v, mask=None):
    """A correct attention written from scratch, the way the course teaches it."""
    scores = q @ T(k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = stable_softmax(scores)
    return weights @ v, weights


def learner_split(x, n_heads):
    *batch, n, d_model = x.shape
    return np.swapaxes(x.reshape(*batch, n, n_heads, d_model // n_heads), -2, -3)


def learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask=None, scale=None, split=learner_split, softmax=stable_softmax):
    q, k, v = split(x @ w_q, n_heads), split(x @ w_k, n_heads), split(x @ w_v, n_heads)
    scores = q @ T(k) / np.sqrt(q.shape[-1] if scale is None else scale)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    weights = softmax(scores)
    heads = weights @ v
    concat = np.swapaxes(heads, -2, -3).reshape(*x.shape)
    return concat @ w_o, weights


def attention_with_scores(make_weights):
    """(q, k, v, mask) -> (weights @ v, weights) where make_weights(scores, mask) is the learner's step."""

    def attention(q, k, v, mask=None):
        weights = make_weights(q @ T(k) / np.sqrt(q.shape[-1]), mask)
        return weights @ v, weights

    return attention


def use_mask(scores, mask, fill=-np.inf):
    return scores if mask is None else np.where(mask, scores, fill)


# --- deliberately wrong implementations, each with the diagnosis it must get ----------------------


def _stable_exp(x):
    return np.exp(x - x.max(axis=-1, keepdims=True))


def _global_max(x):
    e = np.exp(x - x.max())
    return e / e.sum(axis=-1, keepdims=True)


def _no_keepdims(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1)


def _float_dk_split(x, n_heads):
    *batch, n, d_model = x.shape
    return np.swapaxes(x.reshape(*batch, n, n_heads, d_model / n_heads), -2, -3)


def _two_d_split(x, n_heads):
    n, d_model = x.shape
    return x.reshape(n, n_heads, d_model // n_heads).transpose(1, 0, 2)


def _mha_two_d(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    return learner_mha(x, w_q, w_k, w_v, w_o, n_heads, mask, split=_two_d_split)


def _mha_no_w_o(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    out, weights = learner_mha(x, w_q, w_k, w_v, np.eye(x.shape[-1]), n_heads, mask)
    return out, weights


def _mha_transposed(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    return learner_mha(x, w_q.T, w_k.T, w_v.T, w_o.T, n_heads, mask)


def _attention_dot_T(q, k, v, mask=None):
    weights = stable_softmax(use_mask(q @ k.T / np.sqrt(q.shape[-1]), mask))  # .T: fine in 2-D only
    return weights @ v, weights


def _attention_without_mask_parameter(q, k, v):
    return learner_attention(q, k, v)


def _boolean_indexing_attention(q, k, v, mask=None):
    """Masking by boolean indexing: right for 2-D scores, an IndexError once a mask meets a batch."""
    scores = q @ T(k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[~mask] = -np.inf
    weights = stable_softmax(scores)
    return weights @ v, weights


def _mha_filling(fill):
    """Multi-head attention whose masked scores are `fill` (a finite number) instead of -inf."""

    def mha(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
        q, k, v = (learner_split(x @ w, n_heads) for w in (w_q, w_k, w_v))
        weights = stable_softmax(use_mask(q @ T(k) / np.sqrt(q.shape[-1]), mask, fill))
        concat = np.swapaxes(weights @ v, -2, -3).reshape(*x.shape)
        return concat @ w_o, weights

    return mha


def _softmax_through_attention(x):
    """softmax(x) as the weights of attn_lib.scaled_dot_product_attention: one query, keys k_j = x_j."""
    q = np.ones((*x.shape[:-1], 1, 1))  # [..., 1, 1]
    return attn_lib.scaled_dot_product_attention(q, x[..., None], x[..., None], scale=1.0)[1][..., 0, :]


def _scaled_after_softmax(q, k, v, mask=None):
    """The scale applied to the weights instead of the scores: softmax(q kᵀ) / √d_k."""
    weights = stable_softmax(use_mask(q @ T(k), mask)) / np.sqrt(q.shape[-1])
    return weights @ v, weights


def _three_d_only_attention(q, k, v, mask=None):
    """Written for [n, d_k] and [B, n, d_k]: k.transpose(0, 2, 1) names three axes."""
    k_t = k.T if k.ndim == 2 else k.transpose(0, 2, 1)
    weights = stable_softmax(use_mask(q @ k_t / np.sqrt(q.shape[-1]), mask))
    return weights @ v, weights


def _float16_inside(q, k, v, mask=None):
    """Right, but computed in float16: the weights agree with the formula to about 3 digits (promoted to float64)."""
    weights = stable_softmax(use_mask(q.astype(np.float16) @ T(k.astype(np.float16)) / np.sqrt(q.shape[-1]), mask))
    return weights @ v, weights


def _split_three_d_only(x, n_heads):
    """Written for x [B, n, d_model] or [n, d_model]; reshapes a 4-D input into the wrong shape."""
    n, d_model = x.shape[-2:]
    if x.ndim == 3:
        return np.swapaxes(x.reshape(x.shape[0], n, n_heads, d_model // n_heads), 1, 2)
    return np.swapaxes(x.reshape(n, n_heads, d_model // n_heads), 0, 1)


WRONG = [
    # softmax
    ("softmax", "softmax_overflow", naive_softmax),
    ("softmax", "softmax_axis", lambda x: stable_softmax(x, axis=0)),
    ("softmax", "softmax_global_max", _global_max),
    ("softmax", "softmax_keepdims", _no_keepdims),
    ("softmax", "softmax_sum_all", lambda x: _stable_exp(x) / _stable_exp(x).sum()),
    ("softmax", "softmax_not_normalised", _stable_exp),
    ("softmax", "wrong_values", lambda x: np.full_like(x, 1 / x.shape[-1])),
    ("softmax", "forbidden_call", attn_lib.softmax),
    ("softmax", "forbidden_call", lambda x: attn_lib.softmax(x)),
    ("softmax", "forbidden_call_inside", _softmax_through_attention),
    ("softmax", "watch_tampered", lambda x: (sys.setprofile(None), attn_lib.softmax(x))[1]),
    # scaled scores
    ("scaled_scores", "scale_missing", lambda q, k: q @ T(k)),
    ("scaled_scores", "scale_dk", lambda q, k: q @ T(k) / q.shape[-1]),
    ("scaled_scores", "scale_inverted", lambda q, k: q @ T(k) * np.sqrt(q.shape[-1])),
    ("scaled_scores", "scale_dim", lambda q, k: q @ T(k) / np.sqrt(k.shape[-2])),
    ("scaled_scores", "scale_factor", lambda q, k: q @ T(k) / 3),
    ("scaled_scores", "scores_transposed", lambda q, k: k @ T(q) / np.sqrt(q.shape[-1])),
    ("scaled_scores", "batch_transpose", lambda q, k: q @ k.T / np.sqrt(q.shape[-1])),
    # causal mask
    ("causal_mask", "mask_inverted", lambda n: np.triu(np.ones((n, n), dtype=bool), k=1)),
    ("causal_mask", "mask_future", lambda n: np.triu(np.ones((n, n), dtype=bool))),
    ("causal_mask", "mask_no_diagonal", lambda n: np.tril(np.ones((n, n), dtype=bool), k=-1)),
    ("causal_mask", "mask_not_bool", lambda n: np.tril(np.ones((n, n)))),
    ("causal_mask", "mask_additive", lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -np.inf)),
    ("causal_mask", "wrong_values", lambda n: np.eye(n, dtype=bool)),
    ("causal_mask", "mask_additive_inverted", lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), -np.inf, 0.0)),
    ("causal_mask", "mask_additive", lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), 0.0, -1e9)),
    ("causal_mask", "forbidden_call", attn_lib.causal_mask),
    # attention
    ("attention", "scale_missing", lambda q, k, v, mask=None: learner_attention(q * np.sqrt(q.shape[-1]), k, v, mask)),
    (
        "attention",
        "scale_dim",
        lambda q, k, v, mask=None: learner_attention(q * np.sqrt(q.shape[-1] / v.shape[-1]), k, v, mask),
    ),
    ("attention", "attn_softmax_axis", attention_with_scores(lambda s, m: stable_softmax(use_mask(s, m), axis=-2))),
    ("attention", "attn_softmax_overflow", attention_with_scores(lambda s, m: naive_softmax(use_mask(s, m)))),
    (
        "attention",
        "attn_mask_after_softmax",
        attention_with_scores(lambda s, m: stable_softmax(s) * (1 if m is None else m)),
    ),
    ("attention", "attn_mask_ignored", attention_with_scores(lambda s, m: stable_softmax(s))),
    (
        "attention",
        "attn_mask_inverted",
        attention_with_scores(lambda s, m: stable_softmax(use_mask(s, None if m is None else ~m))),
    ),
    ("attention", "attn_mask_added", attention_with_scores(lambda s, m: stable_softmax(s if m is None else s + m))),
    (
        "attention",
        "attn_mask_multiplied",
        attention_with_scores(lambda s, m: stable_softmax(s if m is None else s * m)),
    ),
    (
        "attention",
        "attn_mask_leak",
        attention_with_scores(lambda s, m: stable_softmax(use_mask(s, None if m is None else m.T))),
    ),
    ("attention", "attn_masked_row_1e9", attention_with_scores(lambda s, m: stable_softmax(use_mask(s, m, -1e9)))),
    (
        "attention",
        "attn_masked_row_1e9",
        attention_with_scores(lambda s, m: stable_softmax(s if m is None else s - 1e9 * ~m)),
    ),
    ("attention", "attn_masked_row_nan", attention_with_scores(lambda s, m: plain_softmax(use_mask(s, m)))),
    ("attention", "attn_weights_not_normalised", attention_with_scores(lambda s, m: _stable_exp(use_mask(s, m)))),
    (
        "attention",
        "attn_output_wrong",
        lambda q, k, v, mask=None: (learner_attention(q, k, v, mask)[0] * 2, learner_attention(q, k, v, mask)[1]),
    ),
    ("attention", "attn_pair_order", lambda q, k, v, mask=None: learner_attention(q, k, v, mask)[::-1]),
    ("attention", "not_pair", lambda q, k, v, mask=None: learner_attention(q, k, v, mask)[0]),
    ("attention", "mask_argument", _attention_without_mask_parameter),
    ("attention", "batch_transpose", _attention_dot_T),
    ("attention", "batch_mask", _boolean_indexing_attention),
    ("attention", "attn_mask_finite", attention_with_scores(lambda s, m: stable_softmax(use_mask(s, m, -20.0)))),
    ("attention", "attn_mask_finite", attention_with_scores(lambda s, m: stable_softmax(use_mask(s, m, -100.0)))),
    ("attention", "attn_scale_after_softmax", _scaled_after_softmax),
    ("attention", "attn_softmax_global_max", attention_with_scores(lambda s, m: _global_max(use_mask(s, m)))),
    ("attention", "batch_heads", _three_d_only_attention),
    ("attention", "precision_loss", _float16_inside),
    ("attention", "forbidden_call", attn_lib.scaled_dot_product_attention),
    (
        "attention",
        "forbidden_call_inside",
        lambda q, k, v, mask=None: attn_lib.multi_head_attention(q, *[np.eye(q.shape[-1])] * 4, 1, mask=mask),
    ),
    # split heads
    ("split_heads", "split_axes", lambda x, h: x.reshape(*x.shape[:-1], h, x.shape[-1] // h)),
    ("split_heads", "split_axes", lambda x, h: np.moveaxis(learner_split(x, h), -1, -2)),
    ("split_heads", "split_reshape_only", lambda x, h: x.reshape(*x.shape[:-2], h, x.shape[-2], x.shape[-1] // h)),
    (
        "split_heads",
        "split_interleaved",
        lambda x, h: np.moveaxis(x.reshape(*x.shape[:-1], x.shape[-1] // h, h), -1, -3),
    ),
    ("split_heads", "split_float_dk", _float_dk_split),
    ("split_heads", "batch_axes", _two_d_split),
    ("split_heads", "batch_axes", _split_three_d_only),
    ("split_heads", "forbidden_call", attn_lib.split_heads),
    ("split_heads", "wrong_shape", lambda x, h: learner_split(x, h)[..., :1]),
    # multi-head attention
    ("multi_head", "scale_d_model", lambda x, *w, mask=None: learner_mha(x, *w, mask, scale=x.shape[-1])),
    ("multi_head", "scale_missing", lambda x, *w, mask=None: learner_mha(x, *w, mask, scale=1)),
    ("multi_head", "scale_dk", lambda x, *w, mask=None: learner_mha(x, *w, mask, scale=(x.shape[-1] // w[-1]) ** 2)),
    ("multi_head", "mha_no_w_o", _mha_no_w_o),
    (
        "multi_head",
        "mha_split",
        lambda x, *w, mask=None: learner_mha(
            x, *w, mask, split=lambda a, h: a.reshape(*a.shape[:-2], h, a.shape[-2], -1)
        ),
    ),
    ("multi_head", "mha_transposed", _mha_transposed),
    ("multi_head", "attn_mask_ignored", lambda x, *w, mask=None: learner_mha(x, *w)),
    ("multi_head", "attn_softmax_overflow", lambda x, *w, mask=None: learner_mha(x, *w, mask, softmax=naive_softmax)),
    ("multi_head", "batch_axes", _mha_two_d),
    ("multi_head", "attn_softmax_global_max", lambda x, *w, mask=None: learner_mha(x, *w, mask, softmax=_global_max)),
    ("multi_head", "attn_mask_finite", _mha_filling(-20.0)),
    ("multi_head", "attn_mask_finite", _mha_filling(-100.0)),
    ("multi_head", "forbidden_call", attn_lib.multi_head_attention),
    # parameter count
    ("parameter_count", "count_bias", lambda d, h: 4 * d * d + 4 * d),
    ("parameter_count", "count_bias", lambda d, h: 4 * d * d + 3 * d),
    ("parameter_count", "count_no_w_o", lambda d, h: 3 * d * d),
    ("parameter_count", "count_d_model_per_head", lambda d, h: h * 3 * d * d + d * d),
    ("parameter_count", "count_one_head", lambda d, h: 3 * d * (d // h) + d * d),
    ("parameter_count", "count_one_head", lambda d, h: h * 3 * (d // h) ** 2 + d * d),
    ("parameter_count", "count_float", lambda d, h: h * 3 * d * (d / h) + d * d),
    ("parameter_count", "count_wrong", lambda d, h: 4 * d * d + 1),
    ("parameter_count", "count_wrong", lambda d, h: 10**400),
    ("parameter_count", "forbidden_call", attn_lib.count_parameters),
]

RUN = {
    "softmax": ex.run_softmax_checks,
    "scaled_scores": ex.run_scaled_scores_checks,
    "causal_mask": ex.run_causal_mask_checks,
    "attention": ex.run_attention_checks,
    "split_heads": ex.run_split_heads_checks,
    "multi_head": ex.run_multi_head_checks,
    "parameter_count": ex.run_parameter_count_checks,
}
CHECK = {
    "softmax": ex.check_softmax,
    "scaled_scores": ex.check_scaled_scores,
    "causal_mask": ex.check_causal_mask,
    "attention": ex.check_attention,
    "split_heads": ex.check_split_heads,
    "multi_head": ex.check_multi_head,
    "parameter_count": ex.check_parameter_count,
}
REFERENCE = {
    "softmax": attn_lib.softmax,
    "scaled_scores": lambda q, k: q @ T(k) / np.sqrt(q.shape[-1]),
    "causal_mask": attn_lib.causal_mask,
    "attention": attn_lib.scaled_dot_product_attention,
    "split_heads": attn_lib.split_heads,
    "multi_head": attn_lib.multi_head_attention,
    "parameter_count": attn_lib.count_parameters,
}
LEARNER_CORRECT = {
    "softmax": stable_softmax,
    "causal_mask": lambda n: np.tril(np.ones((n, n), dtype=bool)),
    "attention": learner_attention,
    "split_heads": learner_split,
    "multi_head": learner_mha,
    "parameter_count": lambda d, h: h * 3 * d * (d // h) + d * d,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    result = RUN[exercise](fn)
    assert (result.ok, result.key) == (False, key), result.verdict("en")
    assert CHECK[exercise](fn) is False
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("✗")
    assert rendered(result, "en") in out


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_reference_passes_and_prints_a_tick(exercise, capsys):
    assert CHECK[exercise](REFERENCE[exercise], lang="en", forbid=()) is True
    out = capsys.readouterr().out
    title = t(f"exercises.title_{exercise}", "en")
    assert out.startswith(f"✓ {title}:") and out.count("\n") == 1
    assert t("exercises.case_single" if exercise != "parameter_count" else "exercises.case_article", "en") in out


@pytest.mark.parametrize("exercise", sorted(LEARNER_CORRECT))
def test_correct_learner_code_passes(exercise):
    result = RUN[exercise](LEARNER_CORRECT[exercise])
    assert result.ok, result.verdict("en")


@pytest.mark.parametrize("exercise", ["softmax", "scaled_scores", "attention", "multi_head"])
def test_correct_float32_code_passes(exercise):
    def in_float32(*args, **kwargs):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return REFERENCE[exercise](*args, **kwargs)

    result = RUN[exercise](in_float32, forbid=())
    assert result.ok, result.verdict("en")


@pytest.mark.parametrize("exercise", sorted(set(RUN) - {"scaled_scores"}))
def test_the_function_an_exercise_checks_is_forbidden_by_default(exercise):
    """attn_lib's own function passes every case, but the exercise asks for the learner's code."""
    result = RUN[exercise](REFERENCE[exercise])
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert result.fields["name"] == f"attn_lib.{REFERENCE[exercise].__name__}"


def test_every_diagnosis_in_i18n_is_reached_by_a_test():
    """No diagnosis without a test that triggers it."""
    framing = re.compile(
        r"exercises\.(title_|case_|word_|expect_|passed|failed|converted_note|precision_note|list_sep)"
    )
    diagnoses = {key.removeprefix("exercises.") for key in STRINGS["en"] if key.startswith("exercises.")}
    diagnoses = {key for key in diagnoses if not framing.match(f"exercises.{key}")}
    reached = {key for _, key, _ in WRONG + POSITION_WRONG + MODERN_WRONG} | BAD_INPUT_KEYS  # + notebooks 07, 12
    reached |= {key for _, key, _ in BASICS_WRONG}  # + the checkers of notebooks 01-03
    reached |= {key for _, key, _ in GENERATION_WRONG}  # + notebook 13
    reached |= {key for _, key, _ in TRAINING_WRONG + EFFICIENT_WRONG + BUDGET_WRONG}  # + notebooks 08, 11, 12
    reached |= {key for _, key, _ in DECODER_WRONG}  # + notebook 14
    reached |= {key for _, key, _ in TRANSLATION_WRONG}  # + notebook 09
    reached |= {key for _, key, _ in GEMMA_WRONG}  # + notebook 15
    assert diagnoses == reached


# --- bad input: stubs, exceptions, wrong types and shapes, NaN, slow functions ---------------------


def untouched_stub(x): ...


def raises_not_implemented(q, k, v, mask=None):
    raise NotImplementedError("write me")


BAD_INPUT_KEYS = {"not_implemented", "partly_implemented", "not_callable", "raised", "timeout", "wrong_type"}
BAD_INPUT_KEYS |= {"wrong_shape", "not_finite", "wrong_values", "not_pair", "checker_error"}


@pytest.mark.parametrize("stub", [untouched_stub, lambda x: None])
def test_untouched_stub_says_not_implemented(stub, capsys):
    assert ex.check_softmax(stub, lang="en") is False
    out = capsys.readouterr()
    assert out.out == f"✗ softmax — {t('exercises.not_implemented', 'en')}\n"
    assert out.err == ""


def test_not_implemented_error_says_not_implemented_in_chinese(capsys):
    assert ex.check_attention(raises_not_implemented, lang="zh") is False
    assert t("exercises.not_implemented", "zh") in capsys.readouterr().out


def test_a_branch_left_unwritten_is_named():
    def half_done(q, k, v, mask=None):
        if mask is not None:
            raise NotImplementedError
        return learner_attention(q, k, v)

    result = ex.run_attention_checks(half_done)
    assert result.key == "partly_implemented" and result.case.kind == "case_causal"


def test_an_exception_becomes_one_line_without_traceback(capsys):
    def broken(x):
        raise KeyError("oops")

    assert ex.check_softmax(broken, lang="en") is False
    out, err = capsys.readouterr()
    assert out.count("\n") == 1 and "KeyError: 'oops'" in out and "Traceback" not in out + err


def test_passing_the_result_instead_of_the_function():
    result = ex.run_softmax_checks(attn_lib.softmax(np.zeros(3)))
    assert result.key == "not_callable" and "ndarray" in result.fields["got"]


@pytest.mark.parametrize(
    ("fn", "what"),
    [
        (lambda x: "softmax", "exercises.word_result"),
        (lambda x: [[1, 2], [3]], "exercises.word_result"),
        (lambda x: x > 0, "exercises.word_result"),
        (lambda x: {"weights": x}, "exercises.word_result"),
    ],
)
def test_a_value_that_is_not_an_array_of_numbers(fn, what):
    result = ex.run_softmax_checks(fn)
    assert result.key == "wrong_type" and result.fields["what"] == what


def test_parameter_count_returning_a_string():
    assert ex.run_parameter_count_checks(lambda d, h: "2,359,296").key == "wrong_type"


def test_wrong_shape_names_both_shapes():
    result = ex.run_softmax_checks(lambda x: stable_softmax(x).sum(axis=-1))
    assert result.key == "wrong_shape"
    assert (result.fields["expected"], result.fields["got"]) == ("(7,)", "()")


def test_nan_output_is_reported_with_its_index():
    result = ex.run_softmax_checks(lambda x: np.full_like(x, np.nan))
    assert result.key == "not_finite" and result.fields["index"] == "[0]"


def test_attention_weights_of_the_wrong_shape():
    result = ex.run_attention_checks(lambda q, k, v, mask=None: (learner_attention(q, k, v, mask)[0], q @ T(q)))
    assert result.key == "wrong_shape" and result.fields["what"] == "exercises.word_weights"


def test_a_list_is_converted_and_the_tick_says_so(capsys):
    assert ex.check_softmax(lambda x: stable_softmax(x).tolist(), lang="en") is True
    assert capsys.readouterr().out.rstrip("\n").endswith(t("exercises.converted_note", "en", type="list"))


def test_a_torch_tensor_is_called_a_tensor_not_a_list():
    torch = pytest.importorskip("torch")
    result = ex.run_softmax_checks(lambda x: torch.from_numpy(stable_softmax(x)))
    assert result.ok and result.converted == "torch.Tensor"
    assert "returns torch.Tensor, not a numpy array" in result.verdict("en") and "list" not in result.verdict("en")


def test_a_slow_function_gets_a_time_limit(capsys):
    release = threading.Event()

    def slow(x):
        release.wait(10)
        return stable_softmax(x)

    try:
        assert ex.check_softmax(slow, lang="en", timeout=0.2) is False
    finally:
        release.set()
    assert t("exercises.timeout", "en", seconds="0.2") in capsys.readouterr().out


def test_a_function_that_edits_its_input_in_place_still_passes():
    def in_place(x):
        x -= x.max(axis=-1, keepdims=True)
        np.exp(x, out=x)
        x /= x.sum(axis=-1, keepdims=True)
        return x

    assert ex.run_softmax_checks(in_place).ok


def test_batched_false_skips_the_batch_case():
    def two_d_only(q, k):
        return q @ k.T / np.sqrt(q.shape[-1])

    assert ex.run_scaled_scores_checks(two_d_only, batched=False).ok
    assert not ex.run_scaled_scores_checks(two_d_only).ok


def test_a_bug_in_the_checker_itself_is_still_one_line():
    def broken_judge(case, value, notes):
        raise IndexError("checker bug")

    cases = [Case("case_random", "x (2,)", (np.zeros(2),), {}, np.full(2, 0.5))]
    result = run_cases("softmax", attn_lib.softmax, cases, broken_judge)
    assert result.key == "checker_error" and "IndexError: checker bug" in result.verdict("en")


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_softmax(attn_lib.softmax, lang="fr")


# --- languages -------------------------------------------------------------------------------------


def test_chinese_verdict_uses_the_default_language(capsys):
    set_language("zh")
    try:
        assert ex.check_scaled_scores(lambda q, k: q @ T(k)) is False
        assert ex.check_softmax(stable_softmax) is True
    finally:
        set_language("en")
    wrong, right = capsys.readouterr().out.splitlines()
    assert wrong.startswith("✗ 缩放后的分数——") and t("exercises.scale_missing", "zh", sqrt_dk="2") in wrong
    assert right.startswith(f"✓ softmax：全部 {len(attention._softmax_cases())} 项检查通过")


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG[::4])
def test_the_same_result_reads_in_both_languages(exercise, key, fn):
    result = RUN[exercise](fn)
    zh = result.verdict("zh")
    assert re.search(r"[\u4e00-\u9fff]", zh) and rendered(result, "zh") in zh
    assert rendered(result, "en") in result.verdict("en")


def test_exercise_strings_exist_in_both_languages_with_the_same_fields():
    def fields(text):
        return {name for _, name, _, _ in string.Formatter().parse(text) if name}

    en = {k: v for k, v in STRINGS["en"].items() if k.startswith("exercises.")}
    zh = {k: v for k, v in STRINGS["zh"].items() if k.startswith("exercises.")}
    assert en.keys() == zh.keys()
    assert all(fields(en[k]) == fields(zh[k]) for k in en)
    latin_only = {"title_softmax", "title_rms_norm", "case_nq_nk", "case_dk_one", "list_sep", "failed_plain"}  # names
    latin_only = {f"exercises.{key}" for key in latin_only}
    assert all(re.search(r"[\u4e00-\u9fff]", zh[k]) for k in zh.keys() - latin_only)


# --- properties: nothing wrong slips through -----------------------------------------------------------


@settings(deadline=None, max_examples=25)
@given(st.floats(0.01, 100))
def test_any_constant_scale_fails(factor):
    assert not ex.run_scaled_scores_checks(lambda q, k: factor * (q @ T(k))).ok


@settings(deadline=None, max_examples=10)
@given(st.permutations([0, 1, 2]).filter(lambda p: p != [0, 1, 2]))
def test_any_wrong_axis_order_after_splitting_is_named(perm):
    def permuted(x, h):
        heads = learner_split(x, h)
        return np.transpose(heads, [*range(heads.ndim - 3), *(heads.ndim - 3 + np.array(perm))])

    assert ex.run_split_heads_checks(permuted).key == "split_axes"


@settings(deadline=None, max_examples=25)
@given(st.sampled_from([1, 2, 5, 7]), st.data())  # the sizes the checker uses
def test_one_flipped_mask_entry_fails(n, data):
    i, j = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, n - 1))

    def flipped(size):
        mask = np.tril(np.ones((size, size), dtype=bool))
        if size == n:
            mask[i, j] = ~mask[i, j]
        return mask

    assert not ex.run_causal_mask_checks(flipped).ok


# --- forbidden attn_lib functions (issue 13, item 6) ----------------------------------------------------


def _helper_calling_softmax(scores):
    return attn_lib.softmax(scores)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda x: attn_lib.softmax(x), id="attn_lib.softmax"),
        pytest.param(lambda x: attn_lib.core.softmax(x), id="attn_lib.core.softmax"),
        pytest.param(lambda x: _helper_calling_softmax(x), id="through a helper of the learner's"),
        pytest.param(functools.partial(attn_lib.softmax, axis=-1), id="functools.partial"),
        pytest.param(lambda x: attn_lib.core.softmax_unchecked(x), id="the unchecked helper"),
    ],
)
def test_a_forbidden_function_is_seen_however_it_is_called(fn):
    from attn_lib.core import softmax as imported_by_name

    for learner in (fn, lambda x: imported_by_name(x)):
        result = ex.run_softmax_checks(learner)
        assert result.key == "forbidden_call" and result.fields["name"] == "attn_lib.softmax"
        assert "✗ softmax — " in result.verdict("en") and "attn_lib.softmax" in result.verdict("en")


def test_the_outermost_attn_lib_function_is_named():
    """multi_head_attention runs softmax inside: the message names what the learner called."""
    result = ex.run_attention_checks(lambda q, k, v, mask=None: _softmax_through_attention(q @ T(k)), forbid="softmax")
    assert result.key == "forbidden_call_inside"
    assert result.fields == {"name": "attn_lib.scaled_dot_product_attention", "what": "attn_lib.softmax"}


def test_allowed_functions_pass_and_extra_ones_can_be_forbidden():
    def with_library_softmax(q, k, v, mask=None):
        weights = attn_lib.softmax(use_mask(q @ T(k) / np.sqrt(q.shape[-1]), mask))
        return weights @ v, weights

    assert ex.run_attention_checks(with_library_softmax).ok  # notebooks 02 and 04 allow attn_lib.softmax
    assert ex.run_attention_checks(with_library_softmax, forbid=("softmax",)).key == "forbidden_call"  # notebook 05

    def with_library_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
        q, k, v = (attn_lib.split_heads(x @ w, n_heads) for w in (w_q, w_k, w_v))
        heads, weights = attn_lib.scaled_dot_product_attention(q, k, v, mask=mask)
        return attn_lib.merge_heads(heads) @ w_o, weights

    assert ex.run_multi_head_checks(with_library_attention).ok  # notebook 06 allows these


def _gqa_as_multi_head(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    return grouped_query_attention(x, w_q, w_k, w_v, w_o, n_heads, n_heads, mask=mask)


def _bert_multi_head(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    layer = {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o} | {b: 0.0 for b in ("b_q", "b_k", "b_v", "b_o")}
    return multi_head_with(attn_lib.scaled_dot_product_attention, x, layer, n_heads, mask)


def _tiny_model_multi_head(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    out, cache = attention_layer(x, {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": w_o}, n_heads, mask)
    return out - x, cache["weights"]


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        (_gqa_as_multi_head, "attn_lib.grouped.grouped_query_attention"),
        (_bert_multi_head, "attn_lib.models.minilm.bert.multi_head_with"),
        (_tiny_model_multi_head, "attn_lib.models.tiny_model.attention_layer"),
    ],
)
def test_the_other_multi_heads_of_attn_lib_are_forbidden_too(fn, name):
    """Grouped-query attention with n_kv_heads = n_heads, BERT's multi-head step: multi-head attention (item 3)."""
    result = ex.run_multi_head_checks(fn)
    assert (result.key, result.fields) == (
        "forbidden_call_inside",
        {"name": name, "what": "attn_lib.multi_head_attention"},
    ), result.verdict("en")
    assert ex.run_multi_head_checks(fn, forbid=()).key != "forbidden_call_inside"


def test_gqa_and_bert_give_the_multi_head_answer_when_allowed():
    assert ex.run_multi_head_checks(_gqa_as_multi_head, forbid=()).ok
    assert ex.run_multi_head_checks(_bert_multi_head, forbid=()).ok


def test_forbid_must_name_known_functions():
    with pytest.raises(ValueError, match=r"forbid must be a tuple of attn_lib function names .* got \('sofmax',\)"):
        ex.check_softmax(stable_softmax, forbid=("sofmax",))
    with pytest.raises(ValueError, match="forbid must be a tuple"):
        ex.run_attention_checks(learner_attention, forbid=3)


def test_watching_leaves_no_profiler_behind():
    assert not ex.run_softmax_checks(attn_lib.softmax).ok
    assert ex.run_softmax_checks(stable_softmax).ok
    assert sys.getprofile() is None
    assert all(thread.name != "attn_lib-exercise" for thread in threading.enumerate())


# --- a learner's cell that patches numpy cannot change a verdict (item 7) ------------------------------


def _always(value):
    return lambda *args, **kwargs: value


COMPARISON_PATCHES = {  # what a learner might replace to make checks "pass"
    "allclose": _always(True),
    "isclose": lambda a, b, *args, **kwargs: np.ones(np.broadcast_shapes(np.shape(a), np.shape(b)), dtype=bool),
    "array_equal": _always(True),
    "testing.assert_allclose": _always(None),
    "testing.assert_array_equal": _always(None),
}
ARITHMETIC_PATCHES = {  # these also change attn_lib's own reference numbers; the verdict must still be ✗
    "abs": lambda x, *args, **kwargs: np.zeros_like(x),
    "all": _always(True),
    "any": _always(False),
    "isfinite": lambda x, *args, **kwargs: np.ones(np.shape(x), dtype=bool),
    "asarray": lambda x, *args, **kwargs: np.full(np.shape(x), 0.5) if np.ndim(x) else x,
}
WRONG_UNDER_PATCHES = {
    "softmax": lambda x: np.full_like(x, 0.5),
    "attention": attention_with_scores(lambda s, m: stable_softmax(s)),  # ignores the mask
    "causal_mask": lambda n: np.ones((n, n), dtype=bool),
    "split_heads": lambda x, h: learner_split(x, h) + 1,
}


def _patch_numpy(monkeypatch, patches):
    for name, replacement in patches.items():
        module, _, attribute = name.rpartition(".")
        monkeypatch.setattr(np.testing if module else np, attribute, replacement)


@pytest.mark.parametrize("patched", [[name] for name in COMPARISON_PATCHES] + [list(COMPARISON_PATCHES)])
def test_patching_numpy_comparisons_changes_no_verdict(patched, monkeypatch):
    before = {name: RUN[name](fn).key for name, fn in WRONG_UNDER_PATCHES.items()}
    _patch_numpy(monkeypatch, {name: COMPARISON_PATCHES[name] for name in patched})
    after = {name: RUN[name](fn) for name, fn in WRONG_UNDER_PATCHES.items()}
    assert {name: (result.ok, result.key) for name, result in after.items()} == {
        name: (False, key) for name, key in before.items()
    }
    assert all(RUN[name](LEARNER_CORRECT[name]).ok for name in WRONG_UNDER_PATCHES)


@pytest.mark.parametrize("patched", [[name] for name in ARITHMETIC_PATCHES] + [list(ARITHMETIC_PATCHES)])
def test_patching_numpy_arithmetic_does_not_make_wrong_code_pass(patched, monkeypatch):
    _patch_numpy(monkeypatch, {**COMPARISON_PATCHES, **{name: ARITHMETIC_PATCHES[name] for name in patched}})
    for name, fn in WRONG_UNDER_PATCHES.items():
        result = RUN[name](fn)
        assert not result.ok, (name, result.verdict("en"))


# --- messages (item 8) ---------------------------------------------------------------------------------


def test_messages_about_the_weights_read_as_plural():
    def rolled_weights(q, k, v, mask=None):
        output, weights = learner_attention(q, k, v, mask)
        return output, np.roll(weights, 1, axis=-1)

    result = ex.run_attention_checks(rolled_weights)
    assert result.key == "wrong_values" and "The weights should hold" in result.verdict("en")
    for key in ("wrong_type", "wrong_shape", "not_finite", "wrong_values"):
        for word in ("word_output", "word_weights", "word_result"):
            text = t(f"exercises.{key}", "en", what=t(f"exercises.{word}", "en"), expected="x", got="y", index="[0]")
            assert not re.search(r"\b(weights|output|result) (is|contains|has|are)\b", text), text


def test_an_inverted_additive_mask_is_not_told_the_pattern_is_right():
    result = ex.run_causal_mask_checks(lambda n: np.where(np.tril(np.ones((n, n), dtype=bool)), -np.inf, 0.0))
    assert result.key == "mask_additive_inverted" and "pattern is right" not in result.verdict("en")


def test_a_huge_integer_count_is_a_wrong_count_not_a_checker_bug():
    for huge in (10**400, -(10**30), np.uint64(2**64 - 1)):
        result = ex.run_parameter_count_checks(lambda d, h, huge=huge: huge)
        assert result.key == "count_wrong", result.verdict("en")
    assert "1.000×10^400" in ex.run_parameter_count_checks(lambda d, h: 10**400).verdict("en")


# --- masks the classic mistakes got past (items 4, 5) ----------------------------------------------------


def test_the_strongly_negative_case_has_strongly_negative_scores():
    """The case exists to make a finite fill such as -20 lose: every visible score must be far below it."""
    for cases, scores in (
        (attention._attention_cases(True), lambda c: c.args[0] @ T(c.args[1]) / np.sqrt(c.args[0].shape[-1])),
        (multihead._multi_head_cases(True), None),
    ):
        case = next(c for c in cases if c.kind == "case_masked_negative")
        if scores is None:
            x, w_q, w_k, *_, h = case.args
            q, k = attn_lib.split_heads(x @ w_q, h), attn_lib.split_heads(x @ w_k, h)
            s = q @ T(k) / np.sqrt(q.shape[-1])
        else:
            s = scores(case)
        assert s[np.broadcast_to(case.kwargs["mask"], s.shape)].max() < -40


def test_minus_20_instead_of_minus_inf_fails_even_with_empty_rows_handled():
    """The issue's reproduction: -20 as the fill, and rows that see nothing set to 0 by hand."""

    def fill_minus_20(q, k, v, mask=None):
        scores = q @ T(k) / np.sqrt(q.shape[-1])
        weights = stable_softmax(use_mask(scores, mask, -20.0))
        if mask is not None:
            weights = np.where(np.any(mask, axis=-1, keepdims=True), weights, 0.0)
        return weights @ v, weights

    result = ex.run_attention_checks(fill_minus_20)
    assert result.key == "attn_mask_finite" and result.fields["fill"] == "-20", result.verdict("en")
    assert ex.run_multi_head_checks(_mha_filling(-20.0)).fields["fill"] == "-20"


def test_a_correct_large_negative_fill_is_not_refused():
    """-1e9 gives masked weights that are exactly 0 in float64 (only the fully masked row tells it apart)."""
    assert ex.run_multi_head_checks(_mha_filling(-1e9)).ok
    assert ex.run_attention_checks(attention_with_scores(lambda s, m: stable_softmax(use_mask(s, m, -1e9)))).key == (
        "attn_masked_row_1e9"
    )


def test_batched_cases_include_masks_and_two_batch_axes():
    kinds = {c.kind for c in attention._attention_cases(True)} | {c.kind for c in multihead._multi_head_cases(True)}
    assert "case_batch_mask" in kinds
    assert any(c.args[0].ndim == 4 for c in multihead._split_cases(True))
    assert ex.run_multi_head_checks(lambda x, *w, mask=None: _boolean_indexing_mha(x, *w, mask=mask)).key == (
        "batch_mask"
    )


def _boolean_indexing_mha(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    q, k, v = (learner_split(x @ w, n_heads) for w in (w_q, w_k, w_v))
    scores = q @ T(k) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores[:, ~mask] = -np.inf  # [h, n, n] indexed with an [n, n] mask: fine until a batch axis comes
    weights = stable_softmax(scores)
    return np.swapaxes(weights @ v, -2, -3).reshape(*x.shape) @ w_o, weights
