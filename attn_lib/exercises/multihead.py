"""The self-checking exercises of notebook 06: split the heads, multi-head attention, the parameter count.

`check_split_heads` catches a reshape without the transpose and heads that take interleaved features;
`check_multi_head` compares a wrong answer with the classic wrong versions (√d_model for √d_k, no W_O,
the heads split by reshape only, a missing mask); `check_parameter_count` explains a count that is off
by the biases, by the heads or by W_O. `attn_lib.exercises` re-exports every checker.
"""

import numpy as np

from attn_lib.core import causal_mask
from attn_lib.exercises.compare import (
    OUTPUT,
    RESULT,
    WEIGHTS,
    Finding,
    Word,
    as_numbers,
    axes_order,
    describe,
    difference,
    first_match,
    fmt,
    fmt_apart,
    matches,
    output_and_weights,
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
    hidden_weight,
    mask_use_mistake,
    masked,
    mha_variant,
    overflow_mistake,
    split_interleaved,
    split_reshape_only,
    swap_last,
)
from attn_lib.i18n import check_language
from attn_lib.multihead import (
    count_parameters,
    init_multi_head_weights,
    multi_head_attention,
    split_heads,
)

__all__ = [
    "check_split_heads",
    "check_multi_head",
    "check_parameter_count",
    "run_split_heads_checks",
    "run_multi_head_checks",
    "run_parameter_count_checks",
]


# --- split heads --------------------------------------------------------------------------------


def _split_cases(batched):
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
    rng = np.random.default_rng(3)
    specs = [("case_random", (5, 12), 3), ("case_single", (1, 6), 2), ("case_one_head", (4, 6), 1)]
    specs.append(("case_dk_one", (3, 4), 4))
    if batched:
        specs[1:1] = [("case_batch", (2, 3, 20), 4), ("case_batch_2", (2, 3, 5, 28), 4)]
    cases = []
    for kind, shape, h in specs:
        x = rng.standard_normal(shape)
        cases.append(Case(kind, f"x {shape}, n_heads = {h}", (x, h), {}, Reference(split_heads)))
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
    return batch_error("batch_axes")(case, exc, passed)


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
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
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
        cases.append(Case(kind, shapes, args, kwargs, Reference(multi_head_attention)))
    return cases


def _judge_multi_head(case, value, notes):
    pair, finding = output_and_weights(value, case.expected, notes)
    if finding:
        return finding
    output, weights = pair
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
            return overflow_mistake(weights, masked(scores(), mask))
        scale = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k))}
        after = {"sqrt_dk": fmt(np.sqrt(d_k)), "total": fmt(1 / np.sqrt(d_k))}
        candidates = [
            ("scale_d_model", {**scale, "sqrt_d_model": fmt(np.sqrt(d_model))}, variant(1, scale=1 / np.sqrt(d_model))),
            ("scale_missing", scale, variant(1, scale=1.0)),
            ("scale_dk", scale, variant(1, scale=1 / d_k)),
            ("mha_split", {}, variant(1, split=split_reshape_only)),
            ("mha_split", {}, variant(1, split=split_interleaved)),
            ("mha_transposed", {}, variant(1, transpose=True)),
            ("attn_scale_after_softmax", after, lambda: variant(1, scale=1.0)() / np.sqrt(d_k)),
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
    on_error = batch_error("batch_axes")
    return run_cases("multi_head", fn, _multi_head_cases(batched), _judge_multi_head, timeout, on_error, forbid)


def check_multi_head(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("multi_head_attention",)):
    """fn: x [..., n, d_model], 4 weights, n_heads, mask=None -> (output [..., n, d_model], weights [..., h, n, n]).

    Prints one verdict line; True if every check passed. attn_lib.multi_head_attention is forbidden, and so
    is every attn_lib function that does its work (attn_lib.grouped.grouped_query_attention with n_kv_heads =
    n_heads, attn_lib.models.minilm.bert.multi_head_with, the tiny model's attention_layer); split_heads,
    merge_heads and scaled_dot_product_attention are allowed.
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
    return [
        Case(kind, f"d_model = {d}, n_heads = {h}", (d, h), {}, Reference(count_parameters)) for kind, d, h in sizes
    ]


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
    fields = {"got": _count_text(got, expected), "expected": f"{expected:,}", "d_k": d_k, "h": h}
    if got in [4 * d * d + b * d for b in (1, 2, 3, 4)]:
        return Finding("count_bias", {**fields, "bias": fmt((got - 4 * d * d) / d)})
    known = {3 * d * d: "count_no_w_o", h * 3 * d * d + d * d: "count_d_model_per_head"}
    known[3 * d * d_k + d * d] = "count_one_head"  # = h * 3 * d_k^2 + d^2 too: W_i taken as d_k x d_k
    return Finding(known.get(got, "count_wrong"), {**fields, "d_model": d})


def _count_text(got, expected):
    """A count for a message: 2,359,296; a float with 4 digits; a huge int as 1.000×10^400."""
    if isinstance(got, int):
        digits = str(abs(got))
        if len(digits) <= 18:
            return f"{got:,}"
        return f"{'-' if got < 0 else ''}{digits[0]}.{digits[1:4]}×10^{len(digits) - 1}"
    return f"{got:,.0f}" if got.is_integer() else fmt_apart(got, expected)


def run_parameter_count_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("count_parameters",)):
    """fn: (d_model, n_heads) -> int, the weights of one multi-head block without biases. Returns the `Result`."""
    return run_cases("parameter_count", fn, _count_cases(), _judge_count, timeout, forbid=forbid)


def check_parameter_count(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("count_parameters",)):
    """fn: (d_model, n_heads) -> int (no biases; 2,359,296 for 768 and 12). Prints one verdict; True if all passed.

    attn_lib.count_parameters is forbidden: count the matrices yourself.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_parameter_count_checks(fn, timeout, forbid), lang)
