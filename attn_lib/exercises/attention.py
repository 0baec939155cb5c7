"""The self-checking exercises of notebooks 04 and 05: softmax, the scaled scores, the mask, attention.

Notebook 04 teaches the four steps (scores, scaling, softmax, weighted sum): `check_scaled_scores`,
`check_softmax` and `check_attention_formula` (the whole formula without a mask: the cases of
`check_attention` minus those with a mask). Notebook 05 adds the mask: `check_causal_mask` and
`check_attention` (causal and padding masks, masked weights exactly 0, a fully masked row that must
give zero weights and a zero output). A wrong answer is compared with the classic wrong formulas and
the message names the one it matches: no scaling, d_k or √d_model-style wrong scales, multiplying by
√d_k, a softmax over the wrong axis or one that overflows, weights that do not sum to 1, a wrong
output, the pair in the wrong order, `.T` on a batch, the mask after the softmax, −1e9 for −inf.
`attn_lib.exercises` re-exports every checker.
"""

import numpy as np

from attn_lib.core import causal_mask, scaled_dot_product_attention, softmax
from attn_lib.exercises.compare import (
    OUTPUT,
    RESULT,
    WEIGHTS,
    Finding,
    as_mask_pattern,
    as_numbers,
    describe,
    difference,
    first_match,
    fmt_pair,
    matches,
    numbers_judge,
    proportional,
    same,
    wrong_shape,
)
from attn_lib.exercises.diagnose import (
    DEFAULT_TIMEOUT,
    Case,
    Reference,
    batch_error,
    check_batched,
    error_text,
    report,
    run_cases,
)
from attn_lib.exercises.mistakes import (
    attention_weights_mistake,
    hidden_weight,
    mask_pattern_mistake,
    scale_candidates,
    softmax_mistake,
    swap_last,
)
from attn_lib.i18n import check_language

__all__ = [
    "check_softmax",
    "check_scaled_scores",
    "check_causal_mask",
    "check_attention",
    "check_attention_formula",
    "run_softmax_checks",
    "run_scaled_scores_checks",
    "run_causal_mask_checks",
    "run_attention_checks",
    "run_attention_formula_checks",
]


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
    return [Case(kind, f"x {x.shape}", (x,), {}, Reference(softmax)) for kind, x in inputs]


@numbers_judge
def _judge_softmax(case, got):
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
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
    rng = np.random.default_rng(1)
    shapes = [("case_nq_nk", (3, 4), (5, 4)), ("case_nq_nk", (6, 16), (2, 16)), ("case_single", (1, 8), (1, 8))]
    if batched:
        shapes.append(("case_batch", (2, 3, 4), (2, 5, 4)))
    cases = []
    for kind, q_shape, k_shape in shapes:
        q, k = rng.standard_normal(q_shape), rng.standard_normal(k_shape)
        cases.append(Case(kind, f"q {q.shape}, k {k.shape}", (q, k), {}, Reference(_scaled_scores)))
    return cases


def _scaled_scores(q, k):
    return q @ swap_last(k) / np.sqrt(q.shape[-1])  # [..., n_q, d_k] x [..., d_k, n_k] -> [..., n_q, n_k]


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
        factor, expected = fmt_pair(factor, 1 / np.sqrt(d_k))
        found = Finding("scale_factor", {"factor": factor, "expected": expected})
    return found or difference(got, case.expected)


def run_scaled_scores_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k] -> scores [..., n_q, n_k] = q kᵀ / √d_k. Returns the `Result`."""
    on_error = batch_error("batch_transpose")
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
    return [Case(kind, f"n = {n}", (n,), {}, Reference(causal_mask)) for kind, n in inputs]


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
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
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
        # two leading axes [B, h, n, d_k], as every head of multi-head attention gives them (notebooks 06, 10)
        q_h, k_h = rng.standard_normal((2, 3, 4, 5)), rng.standard_normal((2, 3, 6, 5))
        q_m, k_m = rng.standard_normal((2, 3, 5, 4)), rng.standard_normal((2, 3, 5, 4))
        specs += [
            ("case_batch", q_b, k_b, (2, 5, 6), None),
            ("case_batch_mask", q_c, k_c, (2, 5, 3), causal_mask(5)),
            ("case_batch_mask", q_p, k_p, (2, 5, 6), per_sentence),
            ("case_batch_heads", q_h, k_h, (2, 3, 6, 7), None),
            ("case_batch_heads_mask", q_m, k_m, (2, 3, 5, 6), causal_mask(5)),  # one [n, n] mask for every head
        ]
    specs.append(("case_masked_row", rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), (5, 2), padding))
    cases = []
    for kind, q, k, v_shape, mask in specs:
        v = rng.standard_normal(v_shape)
        shapes = f"q {q.shape}, k {k.shape}, v {v.shape}" + ("" if mask is None else f", mask {mask.shape}")
        kwargs = {} if mask is None else {"mask": mask}
        cases.append(Case(kind, shapes, (q, k, v), kwargs, Reference(scaled_dot_product_attention)))
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
    on_error = batch_error("batch_transpose")
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


# --- the whole formula, without a mask (notebook 04) --------------------------------------------


def _formula_cases(batched):
    return [case for case in _attention_cases(batched) if "mask" not in case.kwargs]


def run_attention_formula_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v] -> (output, weights), no mask. Returns a Result."""
    on_error = batch_error("batch_transpose")
    return run_cases("attention_formula", fn, _formula_cases(batched), _judge_attention, timeout, on_error, forbid)


def check_attention_formula(
    fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)
):
    """fn: (q, k, v) -> (output [..., n_q, d_v], weights [..., n_q, n_k]). Prints one verdict line.

    Notebook 04's exercise: the formula without a mask (the mask comes in notebook 05, `check_attention`).
    Returns True if every check passed; batched=False skips the case with a leading batch axis.
    attn_lib.scaled_dot_product_attention (and the functions built on it) is forbidden; attn_lib.softmax
    is allowed (forbid=("softmax",) forbids it too).
    """
    lang = None if lang is None else check_language(lang)
    result = run_attention_formula_checks(fn, batched, timeout, forbid)
    print(result.verdict(lang))
    return result.ok
