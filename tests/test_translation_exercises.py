"""Notebook 09's checkers: each classic mistake, written as a learner would, gets its own diagnosis.

Correct learner-style code passes, in float64 and float32; attn_lib's own functions are refused (the
exercise asks for the learner's code); every wrong version below is diagnosed with exactly the i18n
key next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed, stable_softmax

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.dropout import dropout
from attn_lib.i18n import t
from attn_lib.models.encoder_decoder import attention_forward
from attn_lib.multihead import cross_attention

# --- learner-style code -----------------------------------------------------------------------------


def T(a):
    return np.swapaxes(a, -1, -2)


def learner_cross(x, memory, w_q, w_k, w_v, source_mask, queries="x", keys="memory", mask_axis=True, **options):
    """One head of cross-attention as the notebook describes it; `options` switch one classic mistake on."""
    sources = {"x": x, "memory": memory}
    q, k, v = sources[queries] @ w_q, sources[keys] @ w_k, sources[keys] @ w_v
    d = options.get("scale_by", q.shape[-1])
    scores = q @ (k.T if options.get("dot_t") else T(k))
    scores = scores / np.sqrt(d) if d else scores
    if options.get("indexed"):  # hide the pads by boolean indexing along the keys
        scores[..., ~source_mask] = -np.inf
        options["no_mask"] = True
    mask = source_mask[..., None, :] if mask_axis else source_mask
    if options.get("inverted"):
        mask = ~mask
    if options.get("causal"):
        mask = mask & np.tril(np.ones(scores.shape[-2:], dtype=bool))
    if not options.get("no_mask"):
        scores = np.where(mask, scores, options.get("fill", -np.inf))
    weights = stable_softmax(scores, axis=options.get("axis", -1))
    return weights @ v, weights


def _qkv(x, memory, w_q, w_k, w_v):
    return x @ w_q, memory @ w_k, memory @ w_v


def learner_padding(tokens, pad_id):
    return (tokens != pad_id)[:, None, :]  # [B, 1, n]: True on the real tokens


def first_pad_only(tokens, pad_id):
    mask = np.ones(tokens.shape, dtype=bool)
    for b, sentence in enumerate(tokens):
        pads = np.flatnonzero(sentence == pad_id)
        if len(pads):
            mask[b, pads[0]] = False
    return mask[:, None, :]


def learner_dropout(weights, p, rng, training):
    if not training or p == 0:
        return weights
    keep = rng.random(weights.shape) >= p  # each entry kept with probability 1 - p
    return weights * keep / (1 - p)


def binomial_dropout(weights, p, rng, training):
    """Another correct way to draw: the checker asks for no particular one."""
    if not training:
        return weights
    return np.where(rng.binomial(1, 1 - p, size=weights.shape) == 1, weights / (1 - p), 0.0)


def dropout_with(scale=None, draw=None, at_eval=None, keep_p=False, in_place=False):
    """A dropout with one classic mistake switched on."""

    def fn(weights, p, rng, training):
        if not training:
            return weights if at_eval is None else at_eval(weights, p, rng)
        if draw is not None:
            keep = draw(weights, p, rng)
        else:
            keep = rng.random(weights.shape) < p if keep_p else rng.random(weights.shape) >= p
        factor = 1 / (1 - p) if scale is None else scale(p)
        if in_place:
            weights[~np.broadcast_to(keep, weights.shape)] = 0
            weights *= factor
            return weights
        return weights * keep * factor

    return fn


def _drop_smallest(weights, p, rng):
    return weights > np.quantile(weights, p)  # not random: always the smallest weights


def _mixed_sources(weights, p, rng):
    rng.random()  # touches rng, then draws elsewhere
    return np.random.default_rng().random(weights.shape) >= p


# --- wrong versions, each with the diagnosis it must get ----------------------------------------------

WRONG = [
    ("cross_attention", "cross_kv_from_decoder", lambda *a: learner_cross(*a, keys="x")),
    ("cross_attention", "cross_kv_from_decoder", lambda *a: learner_cross(*a, keys="x", no_mask=True)),
    ("cross_attention", "cross_kv_from_decoder", lambda *a: learner_cross(*a, keys="x", indexed=True)),
    ("cross_attention", "cross_queries_from_memory", lambda *a: learner_cross(*a, queries="memory", keys="x")),
    ("cross_attention", "cross_queries_from_memory", lambda *a: learner_cross(*a, queries="memory")),
    ("cross_attention", "cross_causal", lambda *a: learner_cross(*a, causal=True)),
    ("cross_attention", "cross_mask_missing", lambda *a: learner_cross(*a, no_mask=True)),
    ("cross_attention", "cross_mask_inverted", lambda *a: learner_cross(*a, inverted=True)),
    ("cross_attention", "cross_pad_leak", lambda *a: learner_cross(*a, no_mask=True, scale_by=0)),
    ("cross_attention", "scale_dim", lambda *a: learner_cross(*a, scale_by=a[0].shape[-1])),  # √d_model
    ("cross_attention", "scale_missing", lambda *a: learner_cross(*a, scale_by=0)),
    ("cross_attention", "attn_softmax_axis", lambda *a: learner_cross(*a, axis=-2)),
    ("cross_attention", "attn_mask_finite", lambda *a: learner_cross(*a, fill=-20.0)),
    ("cross_attention", "cross_batch_mask", lambda *a: learner_cross(*a, mask_axis=False)),
    ("cross_attention", "cross_batch_mask", lambda *a: scaled_dot_product_attention(*_qkv(*a[:5]), mask=a[5])),
    ("cross_attention", "batch_transpose", lambda *a: learner_cross(*a, dot_t=True)),
    ("cross_attention", "attn_output_wrong", lambda *a: (learner_cross(*a)[0] * 2, learner_cross(*a)[1])),
    ("padding_mask", "padding_inverted", lambda tokens, pad_id: (tokens == pad_id)[:, None, :]),
    ("padding_mask", "padding_inverted", lambda tokens, pad_id: np.where(tokens == pad_id, 0.0, -np.inf)[:, None]),
    ("padding_mask", "padding_on_queries", lambda tokens, pad_id: (tokens != pad_id)[:, :, None]),
    ("padding_mask", "padding_no_query_axis", lambda tokens, pad_id: tokens != pad_id),
    ("padding_mask", "padding_pad_zero", lambda tokens, pad_id: (tokens != 0)[:, None, :]),
    ("padding_mask", "padding_first_only", first_pad_only),
    ("padding_mask", "mask_not_bool", lambda tokens, pad_id: (tokens != pad_id)[:, None, :].astype(int)),
    ("padding_mask", "mask_additive", lambda tokens, pad_id: np.where(tokens != pad_id, 0.0, -np.inf)[:, None]),
    ("padding_mask", "wrong_values", lambda tokens, pad_id: (tokens > pad_id + 2)[:, None, :]),
    ("attention_dropout", "dropout_not_scaled", dropout_with(scale=lambda p: 1.0)),
    ("attention_dropout", "dropout_times_keep", dropout_with(scale=lambda p: 1 - p)),
    ("attention_dropout", "dropout_keeps_p", dropout_with(keep_p=True)),
    ("attention_dropout", "dropout_at_eval", lambda w, p, rng, training: dropout_with()(w, p, rng, True)),
    (
        "attention_dropout",
        "dropout_eval_scaled",
        dropout_with(scale=lambda p: 1.0, at_eval=lambda w, p, r: w * (1 - p)),
    ),
    ("attention_dropout", "dropout_ignores_rng", dropout_with(draw=lambda w, p, rng: np.random.rand(*w.shape) >= p)),
    (
        "attention_dropout",
        "dropout_ignores_rng",
        dropout_with(draw=lambda w, p, rng: np.random.default_rng(0).random(w.shape) >= p),
    ),
    ("attention_dropout", "dropout_ignores_rng", dropout_with(draw=_mixed_sources)),
    ("attention_dropout", "dropout_rows", dropout_with(draw=lambda w, p, rng: rng.random((*w.shape[:-1], 1)) >= p)),
    ("attention_dropout", "dropout_columns", dropout_with(draw=lambda w, p, rng: rng.random(w.shape[-1]) >= p)),
    ("attention_dropout", "dropout_in_place", dropout_with(in_place=True)),
    ("attention_dropout", "dropout_nothing_dropped", lambda w, p, rng, training: w),
    ("attention_dropout", "dropout_share", dropout_with(draw=lambda w, p, rng: rng.random(w.shape) >= p / 2)),
    ("attention_dropout", "dropout_entry", dropout_with(scale=lambda p: 1 / (1 - p) + 0.01)),
    ("attention_dropout", "dropout_biased", dropout_with(draw=_drop_smallest)),
]

RUN = {
    "cross_attention": ex.run_cross_attention_checks,
    "padding_mask": ex.run_padding_mask_checks,
    "attention_dropout": ex.run_attention_dropout_checks,
}
CHECK = {
    "cross_attention": ex.check_cross_attention,
    "padding_mask": ex.check_padding_mask,
    "attention_dropout": ex.check_attention_dropout,
}
LEARNER_CORRECT = {
    "cross_attention": learner_cross,
    "padding_mask": learner_padding,
    "attention_dropout": learner_dropout,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}-{i}" for i, (e, k, _) in enumerate(WRONG)])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_learner_code_passes_in_float64_and_float32(exercise, capsys):
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="zh") is True
    assert capsys.readouterr().out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'zh')}：")

    def in_float32(*args):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a for a in args]
        return LEARNER_CORRECT[exercise](*args)

    assert RUN[exercise](in_float32).ok, RUN[exercise](in_float32).verdict("en")


def test_other_correct_ways_pass():
    def via_attention(x, memory, w_q, w_k, w_v, source_mask):  # allowed: the exercise is where Q, K, V come from
        return scaled_dot_product_attention(x @ w_q, memory @ w_k, memory @ w_v, mask=source_mask[..., None, :])

    assert ex.run_cross_attention_checks(via_attention).ok
    assert ex.run_attention_dropout_checks(binomial_dropout).ok
    assert ex.run_padding_mask_checks(lambda tokens, pad_id: learner_padding(tokens, pad_id).tolist()).ok
    result = ex.run_attention_dropout_checks(lambda *a: learner_dropout(*a).tolist())
    assert result.ok and result.converted == "list", result.verdict("en")


def test_attn_libs_own_functions_are_refused_by_default():
    def via_formula(x, memory, w_q, w_k, w_v, source_mask):
        d_k = w_q.shape[-1]
        out, weights = cross_attention(x, memory, w_q, w_k, w_v, np.eye(d_k), 1, mask=source_mask[..., None, :])
        return out, weights[..., 0, :, :]

    def via_model(x, memory, w_q, w_k, w_v, source_mask):
        w = {"w_q": w_q, "w_k": w_k, "w_v": w_v, "w_o": np.eye(w_q.shape[-1])}
        return attention_forward(x, memory, w, 1, source_mask[..., None, :])

    def via_dropout(weights, p, rng, training):
        return dropout(weights, p, rng, training)[0]

    model = "attn_lib.models.encoder_decoder.attention_forward"  # does cross_attention's work: refused with it
    for run, fn, key, name in [
        (ex.run_cross_attention_checks, via_formula, "forbidden_call", "attn_lib.multihead.cross_attention"),
        (ex.run_cross_attention_checks, via_model, "forbidden_call_inside", model),
        (ex.run_attention_dropout_checks, via_dropout, "forbidden_call", "attn_lib.dropout.dropout"),
    ]:
        result = run(fn)
        assert (result.ok, result.key) == (False, key), result.verdict("en")
        assert result.fields["name"] == name
    assert ex.run_attention_dropout_checks(via_dropout, forbid=()).ok


def test_the_diagnoses_name_the_numbers_of_the_failing_case():
    result = ex.run_cross_attention_checks(lambda *a: learner_cross(*a, keys="x"))
    assert result.case.kind == "case_cross_padded" and result.fields == {"n_q": 3, "n_k": 5}
    result = ex.run_cross_attention_checks(lambda *a: learner_cross(*a, mask_axis=False))
    assert result.case.kind == "case_cross_batch" and "B = 2" in result.verdict("en")
    result = ex.run_padding_mask_checks(lambda tokens, pad_id: (tokens != 0)[:, None, :])
    assert result.case.kind == "case_pad_other_id" and "here it is 2" in result.verdict("en")
    result = ex.run_attention_dropout_checks(dropout_with(keep_p=True))
    assert result.case.kind == "case_drop_train" and "1 − p = 0.9, not p = 0.1" in result.verdict("en")


def test_batched_false_stubs_and_bad_arguments():
    assert ex.run_cross_attention_checks(lambda *a: learner_cross(*a, mask_axis=False), batched=False).ok
    assert ex.run_cross_attention_checks(lambda *a: None).key == "not_implemented"
    assert ex.run_padding_mask_checks(lambda tokens, pad_id: "mask").key == "wrong_type"
    assert ex.run_padding_mask_checks(lambda tokens, pad_id: [[True], [True, False]]).key == "wrong_type"  # ragged
    assert ex.run_cross_attention_checks(lambda *a: learner_cross(*a)[1]).key == "not_pair"
    assert ex.run_attention_dropout_checks(lambda *a: (a[0], a[0])).key == "wrong_shape"  # attn_lib's (x, keep) pair

    def nan_at_p_0(weights, p, rng, training):
        keep = rng.random(weights.shape) >= p
        return weights * keep * np.divide(p, p) / (1 - p) if training else weights  # 0 / 0 = NaN when p = 0

    result = ex.run_attention_dropout_checks(nan_at_p_0)
    assert (result.key, result.case.kind) == ("not_finite", "case_drop_zero"), result.verdict("en")
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_padding_mask(learner_padding, lang="fr")
    with pytest.raises(TypeError, match="batched"):
        ex.run_cross_attention_checks(learner_cross, batched="yes")
