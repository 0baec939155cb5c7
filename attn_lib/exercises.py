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
"""

import numpy as np

from attn_lib._diagnose import (
    DEFAULT_TIMEOUT,
    OUTPUT,
    RESULT,
    WEIGHTS,
    Case,
    Finding,
    Word,
    as_mask_pattern,
    as_numbers,
    attention_weights_mistake,
    axes_order,
    describe,
    difference,
    error_text,
    first_match,
    fmt,
    hidden_weight,
    mask_pattern_mistake,
    mask_use_mistake,
    matches,
    mha_variant,
    proportional,
    report,
    run_cases,
    same,
    scale_candidates,
    softmax_mistake,
    split_interleaved,
    split_reshape_only,
    swap_last,
    wrong_shape,
)
from attn_lib.core import causal_mask, scaled_dot_product_attention, softmax
from attn_lib.i18n import check_language
from attn_lib.multihead import (
    count_parameters,
    init_multi_head_weights,
    multi_head_attention,
    split_heads,
)

__all__ = [
    "check_softmax",
    "check_scaled_scores",
    "check_causal_mask",
    "check_attention",
    "check_split_heads",
    "check_multi_head",
    "check_parameter_count",
    "run_softmax_checks",
    "run_scaled_scores_checks",
    "run_causal_mask_checks",
    "run_attention_checks",
    "run_split_heads_checks",
    "run_multi_head_checks",
    "run_parameter_count_checks",
    "check_in_real_model",
    "run_in_real_model_checks",
]


def _batch_error(key):
    """on_error hook: an exception on a batch case, after the unbatched cases passed, gets `key`.

    On a batch with a mask (after the batch without one passed) it gets "batch_mask" instead.
    """

    def on_error(case, exc, passed):
        if case.kind.startswith("case_batch") and passed and isinstance(exc, (ValueError, TypeError, IndexError)):
            return Finding("batch_mask" if case.kind == "case_batch_mask" else key, {"error": error_text(exc)})
        if isinstance(exc, TypeError) and "mask" in str(exc):
            return Finding("mask_argument", {"error": error_text(exc)})
        return None

    return on_error


# --- softmax ------------------------------------------------------------------------------------


def _softmax_cases():
    rng = np.random.default_rng(0)
    large = 1000 + 3 * rng.standard_normal((4, 6))  # every exp(x) overflows unless the max is subtracted
    offsets = np.stack([1000 + rng.standard_normal(5), -1000 + rng.standard_normal(5)])
    with_neg_inf = rng.standard_normal((3, 4))
    with_neg_inf[0, 1] = with_neg_inf[2, 0] = with_neg_inf[2, 3] = -np.inf  # masked positions, no row all -inf
    inputs = [
        ("case_random", rng.standard_normal(7)),
        ("case_random", rng.standard_normal((3, 5))),
        ("case_random", rng.standard_normal((2, 3, 4))),
        ("case_large", large),
        ("case_offsets", offsets),
        ("case_single", rng.standard_normal((3, 1))),
        ("case_neg_inf", with_neg_inf),
    ]
    return [Case(kind, f"x {x.shape}", (x,), {}, softmax(x)) for kind, x in inputs]


def _judge_softmax(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    if got.shape != case.expected.shape:
        return wrong_shape(got.shape, case.expected.shape)
    if matches(got, case.expected):
        return None
    return softmax_mistake(case.args[0], got) or difference(got, case.expected)


def _softmax_error(case, exc, passed):
    if isinstance(exc, ValueError) and "broadcast" in str(exc):
        return Finding("softmax_keepdims", {"error": error_text(exc)})
    return None


def run_softmax_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("softmax",)):
    """fn: x [..., n] -> [..., n], softmax over the last axis. Returns the `Result`; prints nothing."""
    return run_cases("softmax", fn, _softmax_cases(), _judge_softmax, timeout, _softmax_error, forbid)


def check_softmax(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("softmax",)):
    """fn: x [..., n] -> [..., n]. Prints one verdict line; True if every check passed.

    attn_lib.softmax (and every attn_lib function that computes one) is forbidden: write it yourself.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_softmax_checks(fn, timeout, forbid), lang)


# --- scaled scores ------------------------------------------------------------------------------


def _scores_cases(batched):
    rng = np.random.default_rng(1)
    shapes = [("case_nq_nk", (3, 4), (5, 4)), ("case_nq_nk", (6, 16), (2, 16)), ("case_single", (1, 8), (1, 8))]
    if batched:
        shapes.append(("case_batch", (2, 3, 4), (2, 5, 4)))
    cases = []
    for kind, q_shape, k_shape in shapes:
        q, k = rng.standard_normal(q_shape), rng.standard_normal(k_shape)
        scores = q @ swap_last(k) / np.sqrt(q.shape[-1])  # [..., n_q, d_k] x [..., d_k, n_k] -> [..., n_q, n_k]
        cases.append(Case(kind, f"q {q.shape}, k {k.shape}", (q, k), {}, scores))
    return cases


def _judge_scores(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    q, k = case.args
    d_k, n_q, n_k = q.shape[-1], q.shape[-2], k.shape[-2]
    raw = q @ swap_last(k)  # [..., n_q, n_k]
    if got.shape != case.expected.shape:
        if got.ndim >= 2 and proportional(swap_last(got), raw) is not None:  # K Q^T, scaled or not
            return Finding("scores_transposed")
        return wrong_shape(got.shape, case.expected.shape)
    if matches(got, case.expected):
        return None
    found = first_match(got, scale_candidates(lambda c: c * raw, d_k, {"n_q": n_q, "n_k": n_k}))
    factor = proportional(got, raw)
    if found is None and factor is not None:
        found = Finding("scale_factor", {"factor": fmt(factor), "expected": fmt(1 / np.sqrt(d_k))})
    return found or difference(got, case.expected)


def run_scaled_scores_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k] -> scores [..., n_q, n_k] = q kᵀ / √d_k. Returns the `Result`."""
    on_error = _batch_error("batch_transpose")
    return run_cases("scaled_scores", fn, _scores_cases(batched), _judge_scores, timeout, on_error, forbid)


def check_scaled_scores(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k] -> [..., n_q, n_k]. Prints one verdict; True if all passed.

    batched=False skips the case with a leading batch axis (for an exercise on single sequences).
    """
    lang = None if lang is None else check_language(lang)
    return report(run_scaled_scores_checks(fn, batched, timeout, forbid), lang)


# --- causal mask --------------------------------------------------------------------------------


def _mask_cases():
    inputs = [("case_n", 5), ("case_n", 7), ("case_single", 1), ("case_n", 2)]
    return [Case(kind, f"n = {n}", (n,), {}, causal_mask(n)) for kind, n in inputs]


def _judge_mask(case, value, notes):
    n, expected = case.args[0], case.expected
    got, finding = as_mask_pattern(value, expected, notes, inverted="mask_additive_inverted")
    if finding or same(got, expected):
        return finding
    found = mask_pattern_mistake(got, n)
    if found is None:
        i, j = np.argwhere(got != expected)[0]
        found = Finding(
            "wrong_values",
            {"what": RESULT, "index": f"[{i}, {j}]", "expected": str(expected[i, j]), "got": str(got[i, j])},
        )
    return found


def run_causal_mask_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("causal_mask",)):
    """fn: n -> bool [n, n], True where query i may attend to key j (j <= i). Returns the `Result`."""
    return run_cases("causal_mask", fn, _mask_cases(), _judge_mask, timeout, forbid=forbid)


def check_causal_mask(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("causal_mask",)):
    """fn: n -> bool [n, n] (True = may attend). Prints one verdict line; True if every check passed.

    attn_lib.causal_mask is forbidden: write it yourself.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_causal_mask_checks(fn, timeout, forbid), lang)


# --- scaled dot-product attention ---------------------------------------------------------------


def _attention_cases(batched):
    rng = np.random.default_rng(2)
    padding = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 0, 0], [1, 1, 1, 1, 0]], dtype=bool)  # row 1 sees no key
    large_q = 30 * rng.standard_normal((3, 4))
    large_k = np.concatenate([large_q, 30 * rng.standard_normal((2, 4))])  # q_i . k_i = |q_i|^2: huge scores
    negative_q = 5 + 0.5 * rng.standard_normal((3, 4))  # q . k around -50: a finite "hidden" score such as
    negative_k = -(5 + 0.5 * rng.standard_normal((6, 4)))  # -20 would beat every visible one
    causal_rect = np.tril(np.ones((3, 6), dtype=bool), k=2)  # row i sees keys 0 .. i + 2
    specs = [
        ("case_nq_nk", rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), (5, 6), None),
        ("case_nq_nk", rng.standard_normal((4, 9)), rng.standard_normal((2, 9)), (2, 3), None),
        ("case_single", rng.standard_normal((1, 4)), rng.standard_normal((1, 4)), (1, 2), None),
        ("case_causal", rng.standard_normal((5, 4)), rng.standard_normal((5, 4)), (5, 3), causal_mask(5)),
        ("case_large_scores", large_q, large_k, (5, 6), None),
        ("case_masked_negative", negative_q, negative_k, (6, 2), causal_rect),
    ]
    if batched:  # masks that broadcast over the batch: [n_q, n_k], and [B, 1, n_k] (padding per sentence)
        per_sentence = np.array([[[1, 1, 1, 1, 0]], [[1, 1, 1, 0, 0]]], dtype=bool)
        q_b, k_b = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
        q_c, k_c = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 4))
        q_p, k_p = rng.standard_normal((2, 3, 4)), rng.standard_normal((2, 5, 4))
        specs += [
            ("case_batch", q_b, k_b, (2, 5, 6), None),
            ("case_batch_mask", q_c, k_c, (2, 5, 3), causal_mask(5)),
            ("case_batch_mask", q_p, k_p, (2, 5, 6), per_sentence),
        ]
    specs.append(("case_masked_row", rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), (5, 2), padding))
    cases = []
    for kind, q, k, v_shape, mask in specs:
        v = rng.standard_normal(v_shape)
        shapes = f"q {q.shape}, k {k.shape}, v {v.shape}" + ("" if mask is None else f", mask {mask.shape}")
        kwargs = {} if mask is None else {"mask": mask}
        cases.append(Case(kind, shapes, (q, k, v), kwargs, scaled_dot_product_attention(q, k, v, mask=mask)))
    return cases


def _output_and_weights(value, expected, notes):
    """(output, weights, None) as float arrays of the expected shapes, or (None, None, the Finding)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None, None, Finding("not_pair", {"got": describe(value)})
    output, finding = as_numbers(value[0], notes, OUTPUT)
    weights, finding = (None, finding) if finding else as_numbers(value[1], notes, WEIGHTS)
    if finding:
        return None, None, finding
    expected_output, expected_weights = expected
    if output.shape == expected_weights.shape and weights.shape == expected_output.shape:
        return None, None, Finding("attn_pair_order")
    if weights.shape != expected_weights.shape:
        return None, None, wrong_shape(weights.shape, expected_weights.shape, WEIGHTS)
    if output.shape != expected_output.shape:
        return None, None, wrong_shape(output.shape, expected_output.shape, OUTPUT)
    return output, weights, None


def _judge_attention(case, value, notes):
    output, weights, finding = _output_and_weights(value, case.expected, notes)
    if finding:
        return finding
    expected_output, expected_weights = case.expected
    if not matches(weights, expected_weights):
        return attention_weights_mistake(case, weights)
    if "mask" in case.kwargs:  # close is not enough: a hidden key's weight must be exactly 0
        q, k, _ = case.args
        found = hidden_weight(weights, q @ swap_last(k) / np.sqrt(q.shape[-1]), case.kwargs["mask"])
        if found:
            return found
    if not matches(output, expected_output):
        return Finding("attn_output_wrong", difference(output, expected_output, OUTPUT).fields)
    return None


def run_attention_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v], mask=None -> (output, weights). Returns a Result."""
    on_error = _batch_error("batch_transpose")
    return run_cases("attention", fn, _attention_cases(batched), _judge_attention, timeout, on_error, forbid)


def check_attention(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: (q, k, v, mask=None) -> (output [..., n_q, d_v], weights [..., n_q, n_k]). Prints one verdict line.

    Includes causal and padding masks (masked weights must be exactly 0) and a fully masked row
    (which must get zero weights and a zero output). Returns True if every check passed;
    batched=False skips the cases with a leading batch axis. attn_lib.scaled_dot_product_attention
    (and the functions built on it) is forbidden; forbid=("softmax",) forbids attn_lib.softmax too.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_attention_checks(fn, batched, timeout, forbid), lang)


# --- split heads --------------------------------------------------------------------------------


def _split_cases(batched):
    rng = np.random.default_rng(3)
    specs = [("case_random", (5, 12), 3), ("case_single", (1, 6), 2), ("case_one_head", (4, 6), 1)]
    specs.append(("case_dk_one", (3, 4), 4))
    if batched:
        specs[1:1] = [("case_batch", (2, 3, 20), 4), ("case_batch_2", (2, 3, 5, 28), 4)]
    cases = []
    for kind, shape, h in specs:
        x = rng.standard_normal(shape)
        cases.append(Case(kind, f"x {shape}, n_heads = {h}", (x, h), {}, split_heads(x, h)))
    return cases


def _judge_split(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    (x, h), expected = case.args, case.expected
    *batch, n, d_model = x.shape
    d_k = d_model // h
    if got.shape != expected.shape:
        names = ["batch"] * len(batch) + ["h", "n", "d_k"]
        order = axes_order(got.shape, expected.shape, names)
        if order:
            return Finding("split_axes", {"got": order, "expected": "[" + ", ".join(names) + "]"})
        return wrong_shape(got.shape, expected.shape)
    if matches(got, expected):
        return None
    interleaved = {"h": h, "h2": 2 * h, "last": d_k - 1}  # head i got features i, i+h, i+2h, ...
    candidates = [
        ("split_reshape_only", {}, lambda: split_reshape_only(x, h)),
        ("split_interleaved", interleaved, lambda: split_interleaved(x, h)),
    ]
    return first_match(got, candidates) or difference(got, expected)


def _split_error(case, exc, passed):
    if isinstance(exc, TypeError) and "float" in str(exc):
        return Finding("split_float_dk", {"error": error_text(exc)})
    return _batch_error("batch_axes")(case, exc, passed)


def run_split_heads_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("split_heads",)):
    """fn: x [..., n, d_model], n_heads -> [..., h, n, d_k]. Returns the `Result`; prints nothing."""
    return run_cases("split_heads", fn, _split_cases(batched), _judge_split, timeout, _split_error, forbid)


def check_split_heads(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("split_heads",)):
    """fn: x [..., n, d_model], n_heads -> [..., h, n, d_k]. Prints one verdict line; True if all passed.

    batched=True also tries one and two leading batch axes. attn_lib.split_heads is forbidden.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_split_heads_checks(fn, batched, timeout, forbid), lang)


# --- multi-head attention -----------------------------------------------------------------------


def _negative_scores_input(rng, w, shape, h):
    """x [n, d_model] and w with w_k = -w_q, so that every score is strongly negative (about -50 or lower)."""
    w["w_k"] = -w["w_q"]
    x = rng.standard_normal(shape[-1]) + 0.05 * rng.standard_normal(shape)  # nearly equal rows
    q = split_heads(x @ w["w_q"], h)  # [h, n, d_k]
    scores = -(q @ swap_last(q)) / np.sqrt(q.shape[-1])  # [h, n, n]: q_i . k_j = -q_i . q_j < 0
    return x * np.sqrt(50 / -scores.max())  # the scores scale with |x|^2: now all <= -50


def _multi_head_cases(batched):
    rng = np.random.default_rng(4)
    specs = [
        ("case_random", (5, 12), 3, None),
        ("case_causal", (5, 12), 2, causal_mask(5)),
        ("case_single", (1, 8), 4, None),
        ("case_one_head", (4, 6), 1, None),
        ("case_large_scores", (3, 8), 2, None),
        ("case_masked_negative", (5, 8), 2, causal_mask(5)),
    ]
    if batched:
        specs[1:1] = [("case_batch", (2, 3, 20), 4, None), ("case_batch_mask", (2, 5, 12), 3, causal_mask(5))]
    cases = []
    for seed, (kind, shape, h, mask) in enumerate(specs):
        x = rng.standard_normal(shape) * (40 if kind == "case_large_scores" else 1)
        w = init_multi_head_weights(shape[-1], h, seed=seed)
        if kind == "case_large_scores":
            w["w_k"] = w["w_q"]  # q_i . k_i = |q_i|^2: every row has a huge score
        if kind == "case_masked_negative":
            x = _negative_scores_input(rng, w, shape, h)
        args = (x, w["w_q"], w["w_k"], w["w_v"], w["w_o"], h)
        kwargs = {} if mask is None else {"mask": mask}
        shapes = f"x {shape}, n_heads = {h}" + ("" if mask is None else f", mask {mask.shape}")
        cases.append(Case(kind, shapes, args, kwargs, multi_head_attention(*args, mask=mask)))
    return cases


def _judge_multi_head(case, value, notes):
    output, weights, finding = _output_and_weights(value, case.expected, notes)
    if finding:
        return finding
    (expected_output, expected_weights), (x, *_, h), mask = case.expected, case.args, case.kwargs.get("mask")
    d_model = x.shape[-1]
    d_k = d_model // h

    def variant(index, **mistake):
        return lambda: mha_variant(*case.args, mask=mask, **mistake)[index]

    def scores():
        q, k = split_heads(x @ case.args[1], h), split_heads(x @ case.args[2], h)  # [..., h, n, d_k]
        return q @ swap_last(k) / np.sqrt(d_k)  # [..., h, n, n]

    if not matches(weights, expected_weights):
        if case.kind == "case_large_scores" and not np.isfinite(weights).all():
            return Finding("attn_softmax_overflow")
        scale = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k))}
        candidates = [
            ("scale_d_model", {**scale, "sqrt_d_model": fmt(np.sqrt(d_model))}, variant(1, scale=1 / np.sqrt(d_model))),
            ("scale_missing", scale, variant(1, scale=1.0)),
            ("scale_dk", scale, variant(1, scale=1 / d_k)),
            ("mha_split", {}, variant(1, split=split_reshape_only)),
            ("mha_split", {}, variant(1, split=split_interleaved)),
            ("mha_transposed", {}, variant(1, transpose=True)),
        ]
        found = first_match(weights, candidates)
        if found is None and mask is not None:
            visible = np.ones(expected_weights.shape, dtype=bool)  # a causal mask leaves no row empty
            found = mask_use_mistake(weights, scores(), np.broadcast_to(mask, expected_weights.shape), visible)
        return found or difference(weights, expected_weights, WEIGHTS)
    found = None if mask is None else hidden_weight(weights, scores(), mask)  # must be exactly 0
    if found:
        return found
    if not matches(output, expected_output):
        concat = mha_variant(*case.args, mask=mask, use_w_o=False)[0]  # [..., n, d_model], before W_O
        candidates = [("mha_no_w_o", {}, lambda: concat), ("mha_transposed", {}, lambda: concat @ case.args[4].T)]
        return first_match(output, candidates) or difference(output, expected_output, OUTPUT)
    return None


def run_multi_head_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("multi_head_attention",)):
    """fn: like attn_lib.multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None). Returns the `Result`."""
    on_error = _batch_error("batch_axes")
    return run_cases("multi_head", fn, _multi_head_cases(batched), _judge_multi_head, timeout, on_error, forbid)


def check_multi_head(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("multi_head_attention",)):
    """fn: x [..., n, d_model], 4 weights, n_heads, mask=None -> (output [..., n, d_model], weights [..., h, n, n]).

    Prints one verdict line; True if every check passed. attn_lib.multi_head_attention is forbidden
    (split_heads, merge_heads and scaled_dot_product_attention are allowed).
    """
    lang = None if lang is None else check_language(lang)
    return report(run_multi_head_checks(fn, batched, timeout, forbid), lang)


# --- parameter count ----------------------------------------------------------------------------


def _count_cases():
    sizes = [
        ("case_article", 768, 12),
        ("case_other_sizes", 512, 8),
        ("case_other_sizes", 12, 3),
        ("case_other_sizes", 10, 1),
        ("case_other_sizes", 64, 64),
    ]
    return [Case(kind, f"d_model = {d}, n_heads = {h}", (d, h), {}, count_parameters(d, h)) for kind, d, h in sizes]


def _judge_count(case, value, notes):
    (d, h), expected = case.args, case.expected
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return Finding("wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_int")})
    got = int(value) if isinstance(value, (int, np.integer)) else float(value)  # an int stays exact, however large
    if got == expected:
        return None if isinstance(got, int) else Finding("count_float", {"got": str(value)})
    d_k = d // h
    fields = {"got": _count_text(got), "expected": f"{expected:,}", "d_k": d_k, "h": h}
    if got in [4 * d * d + b * d for b in (1, 2, 3, 4)]:
        return Finding("count_bias", {**fields, "bias": fmt((got - 4 * d * d) / d)})
    known = {3 * d * d: "count_no_w_o", h * 3 * d * d + d * d: "count_d_model_per_head"}
    known[3 * d * d_k + d * d] = "count_one_head"  # = h * 3 * d_k^2 + d^2 too: W_i taken as d_k x d_k
    return Finding(known.get(got, "count_wrong"), {**fields, "d_model": d})


def _count_text(got):
    """A count for a message: 2,359,296; a float with 4 digits; a huge int as 1.000×10^400."""
    if isinstance(got, int):
        digits = str(abs(got))
        if len(digits) <= 18:
            return f"{got:,}"
        return f"{'-' if got < 0 else ''}{digits[0]}.{digits[1:4]}×10^{len(digits) - 1}"
    return f"{got:,.0f}" if got.is_integer() else fmt(got)


def run_parameter_count_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("count_parameters",)):
    """fn: (d_model, n_heads) -> int, the weights of one multi-head block without biases. Returns the `Result`."""
    return run_cases("parameter_count", fn, _count_cases(), _judge_count, timeout, forbid=forbid)


def check_parameter_count(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("count_parameters",)):
    """fn: (d_model, n_heads) -> int (no biases; 2,359,296 for 768 and 12). Prints one verdict; True if all passed.

    attn_lib.count_parameters is forbidden: count the matrices yourself.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_parameter_count_checks(fn, timeout, forbid), lang)


# --- the checkers of the other notebooks: their own modules, re-exported here -------------------------
# counting_exercises (01), basics_exercises (02, 03), attention_exercises (04), position_exercises (07),
# capstone (09: your attention inside the real model; it imports this module when it runs) and
# modern_exercises (11). Imported last, as these modules build on the helpers above.

from attn_lib.attention_exercises import check_attention_formula, run_attention_formula_checks  # noqa: E402
from attn_lib.basics_exercises import (  # noqa: E402
    check_attend_all,
    check_attend_one,
    check_qkv,
    check_relevance_scores,
    run_attend_all_checks,
    run_attend_one_checks,
    run_qkv_checks,
    run_relevance_scores_checks,
)
from attn_lib.capstone import (  # noqa: E402
    check_in_real_model,
    run_in_real_model_checks,
)
from attn_lib.counting_exercises import (  # noqa: E402
    check_next_token_probabilities,
    check_window_counts,
    run_next_token_probabilities_checks,
    run_window_counts_checks,
)
from attn_lib.modern_exercises import (  # noqa: E402
    check_grouped_query_attention,
    check_kv_cache_bytes,
    check_sliding_window_mask,
    run_grouped_query_attention_checks,
    run_kv_cache_bytes_checks,
    run_sliding_window_mask_checks,
)
from attn_lib.position_exercises import (  # noqa: E402
    check_layer_norm,
    check_rope,
    check_sinusoidal_encoding,
    run_layer_norm_checks,
    run_rope_checks,
    run_sinusoidal_encoding_checks,
)

__all__ += [
    "check_attention_formula",
    "run_attention_formula_checks",
    "check_next_token_probabilities",
    "check_window_counts",
    "run_next_token_probabilities_checks",
    "run_window_counts_checks",
    "check_attend_all",
    "check_attend_one",
    "check_qkv",
    "check_relevance_scores",
    "run_attend_all_checks",
    "run_attend_one_checks",
    "run_qkv_checks",
    "run_relevance_scores_checks",
    "check_layer_norm",
    "check_rope",
    "check_sinusoidal_encoding",
    "run_layer_norm_checks",
    "run_rope_checks",
    "run_sinusoidal_encoding_checks",
    "check_grouped_query_attention",
    "check_kv_cache_bytes",
    "check_sliding_window_mask",
    "run_grouped_query_attention_checks",
    "run_kv_cache_bytes_checks",
    "run_sliding_window_mask_checks",
]
