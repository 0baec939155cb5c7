"""The self-checking exercises of notebooks 02 and 03: the three steps, and Q, K, V.

Built like the checkers of `attn_lib.exercises` (which re-exports these): each runs the learner's
function on seeded inputs whose sizes all differ, compares with a reference, prints one line, and
when the result is wrong compares it with the classic wrong versions and names the one it matches.
Each exercise asks only for what its notebook (or an earlier one) teaches:

    02  attend_one                one query, the three steps: q · k_j, softmax, Σ_j w_j v_j (unscaled)
        attend_all                every query at once: softmax(Q Kᵀ) V (unscaled; √d_k is notebook 04's)
    03  qkv                       Q, K, V = X W_Q, X W_K, X W_V, for one sentence or a batch
        relevance_scores          Q Kᵀ computed from X, W_Q and W_K (a [.., n, n] matrix, not symmetric)
"""

import numpy as np

from attn_lib.core import softmax
from attn_lib.examples import CAT_EMBEDDINGS
from attn_lib.exercises.compare import (
    OUTPUT,
    WEIGHTS,
    Finding,
    as_numbers,
    describe,
    difference,
    first_match,
    fmt,
    fmt_apart,
    matches,
    output_and_weights,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, error_text, report, run_cases
from attn_lib.exercises.mistakes import swap_last

__all__ = [
    "check_attend_one",
    "check_attend_all",
    "check_qkv",
    "check_relevance_scores",
    "run_attend_one_checks",
    "run_attend_all_checks",
    "run_qkv_checks",
    "run_relevance_scores_checks",
]


# --- 02: the three steps, for one query and for all queries ----------------------------------------


def _notebook_02():
    """Notebook 02's made-up vectors: keys [city, today], values [Beijing food, Shanghai food], two queries."""
    k = np.array([[0.0, -1.0], [2.0, -1.0], [0.0, 1.0], [2.0, 1.0]])  # 昨天 北京 今天 上海
    v = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 0.0], [0.0, 1.0]])
    q = np.array([[1.0, 1.0], [1.0, -1.0]])  # "which city, today?", "which city, yesterday?"
    return q, k, v


def _steps_cases(one_query):
    rng = np.random.default_rng(5)
    q_nb, k_nb, v_nb = _notebook_02()
    large_q = 30 * rng.standard_normal((3, 4))
    specs = [  # kind, Q [n_q, d_k], K [n_k, d_k], V [n_k, d_v]
        ("case_notebook", q_nb, k_nb, v_nb),
        ("case_nq_nk", rng.standard_normal((3, 4)), rng.standard_normal((5, 4)), rng.standard_normal((5, 6))),
        ("case_nq_nk", rng.standard_normal((4, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 5))),
        ("case_one_key", rng.standard_normal((1, 4)), rng.standard_normal((1, 4)), rng.standard_normal((1, 2))),
        (
            "case_large_scores",
            large_q,
            np.concatenate([large_q, 30 * rng.standard_normal((2, 4))]),
            rng.standard_normal((5, 6)),
        ),
    ]
    cases = []
    for kind, q, k, v in specs:
        if one_query:
            q, kind = q[0], ("case_random" if kind == "case_nq_nk" else kind)  # [d_k]: one query
        shapes = f"{'q' if one_query else 'Q'} {q.shape}, K {k.shape}, V {v.shape}"
        cases.append(Case(kind, shapes, (q, k, v), {}, Reference(_three_steps)))
    return cases


def _three_steps(q, k, v):
    weights = softmax(q @ k.T)  # [n_k] or [n_q, n_k]
    return weights @ v, weights  # [d_v] or [n_q, d_v]


def steps_weights_mistake(case, got):
    """Why the weights of the unscaled three steps are wrong (scaled, cosine, not a softmax, ...), or None."""
    q, k, _ = case.args
    d_k, scores = q.shape[-1], q @ k.T  # [n_k] or [n_q, n_k]
    if got.shape != scores.shape:
        if got.ndim == 2 and got.shape == scores.shape[::-1]:
            return Finding("steps_transposed", {"got": str(got.shape), "expected": str(scores.shape)})
        return wrong_shape(got.shape, scores.shape, WEIGHTS)
    if case.kind == "case_large_scores" and not np.isfinite(got).all():
        return Finding("steps_softmax_overflow")
    unit_q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    unit_k = k / np.linalg.norm(k, axis=-1, keepdims=True)
    scale = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k))}
    candidates = [
        ("steps_scaled", scale, lambda: softmax(scores / np.sqrt(d_k))),
        ("steps_scaled", scale, lambda: softmax(scores / d_k)),
        ("steps_cosine", {}, lambda: softmax(unit_q @ unit_k.T)),
        ("steps_score_sum", {}, lambda: scores / scores.sum(axis=-1, keepdims=True)),
        ("steps_returned_scores", {}, lambda: scores),
        ("steps_not_normalised", {}, lambda: np.exp(scores)),
        ("steps_not_normalised", {}, lambda: np.exp(scores - scores.max(axis=-1, keepdims=True))),
    ]
    if scores.ndim == 2 and scores.shape[0] > 1:
        candidates.append(("attn_softmax_axis", {}, lambda: softmax(scores, axis=0)))
    return first_match(got, candidates)


def steps_output_mistake(case, output, weights):
    """Why the output is wrong when the weights are right: the keys summed, no weights, one value picked, ..."""
    _, k, v = case.args
    unweighted = np.broadcast_to(v.mean(axis=0), case.expected[0].shape)  # every query: the plain average
    picked = v[np.argmax(weights, axis=-1)]  # [d_v] or [n_q, d_v]: the best-matching token's value only
    candidates = [
        ("steps_summed_keys", {}, lambda: weights @ k),
        ("steps_not_summed", {}, lambda: weights[..., None] * v),
        ("steps_unweighted", {}, lambda: unweighted),
        ("steps_argmax", {}, lambda: picked),
    ]
    for key, fields, make in candidates:
        candidate = make()
        if output.shape == candidate.shape and matches(output, candidate):
            return Finding(key, fields)
    if output.shape != case.expected[0].shape:
        return wrong_shape(output.shape, case.expected[0].shape, OUTPUT)
    return Finding("attn_output_wrong", difference(output, case.expected[0], OUTPUT).fields)


def _judge_steps(case, value, notes):
    pair, finding = output_and_weights(value, case.expected, notes, shapes=False)
    if finding:
        return finding
    (output, weights), (expected_output, expected_weights) = pair, case.expected
    if not matches(weights, expected_weights):
        found = steps_weights_mistake(case, weights)
        if found:
            return found
        sums = weights.sum(axis=-1)
        off = np.isfinite(sums) & ~np.isclose(sums, 1)
        if off.any():
            row = np.argwhere(np.atleast_1d(off))[0]
            total = np.atleast_1d(sums)[tuple(row)]
            return Finding("attn_weights_not_normalised", {"row": int(row[-1]), "total": fmt_apart(total, 1)})
        return difference(weights, expected_weights, WEIGHTS)
    if not matches(output, expected_output):
        return steps_output_mistake(case, output, weights)
    return None


def run_attend_one_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("softmax",)):
    """fn: q [d_k], K [n, d_k], V [n, d_v] -> (output [d_v], weights [n]), unscaled. Returns the `Result`.

    attn_lib.softmax is forbidden (and every attn_lib function that computes one): write the steps yourself.
    """
    return run_cases("attend_one", fn, _steps_cases(one_query=True), _judge_steps, timeout, forbid=forbid)


def run_attend_all_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: Q [n_q, d_k], K [n_k, d_k], V [n_k, d_v] -> (O [n_q, d_v], W [n_q, n_k]), unscaled. Returns the `Result`.

    attn_lib.softmax is allowed; attn_lib.scaled_dot_product_attention (and what is built on it) is not.
    """
    return run_cases("attend_all", fn, _steps_cases(one_query=False), _judge_steps, timeout, forbid=forbid)


def check_attend_one(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("softmax",)):
    """fn: (q [d_k], K [n, d_k], V [n, d_v]) -> (output [d_v], weights [n]). Prints one verdict line.

    Notebook 02's three steps for one query, without √d_k: s_j = q · k_j, w = softmax(s), output =
    Σ_j w_j v_j. attn_lib.softmax is forbidden: the exercise asks for the steps themselves.
    """
    return report(run_attend_one_checks(fn, timeout, forbid), lang)


def check_attend_all(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: (Q [n_q, d_k], K [n_k, d_k], V [n_k, d_v]) -> (O [n_q, d_v], W [n_q, n_k]). One verdict line.

    Notebook 02's matrix form, without √d_k: S = Q Kᵀ, W = softmax of each row of S, O = W V.
    attn_lib.softmax is allowed, attn_lib.scaled_dot_product_attention is not.
    """
    return report(run_attend_all_checks(fn, timeout, forbid), lang)


# --- 03: Q, K, V from X, and the relevance scores they give -----------------------------------------


def _projection_cases():
    rng = np.random.default_rng(6)
    cat = np.array(CAT_EMBEDDINGS)  # [3, 4]
    specs = [  # kind, x [..., n, d_model], d_k, d_v
        ("case_cat", cat, 2, 5),
        ("case_random", rng.standard_normal((5, 6)), 3, 4),
        ("case_batch", rng.standard_normal((2, 5, 4)), 3, 6),
        ("case_batch_2", rng.standard_normal((2, 3, 5, 6)), 4, 7),
    ]
    cases = []
    for kind, x, d_k, d_v in specs:
        d_model = x.shape[-1]
        w_q, w_k, w_v = (rng.standard_normal((d_model, d)) for d in (d_k, d_k, d_v))
        shapes = f"x {x.shape}, W_Q {w_q.shape}, W_K {w_k.shape}, W_V {w_v.shape}"
        cases.append(Case(kind, shapes, (x, w_q, w_k, w_v), {}, Reference(_projections)))
    return cases


def _projections(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v  # [..., n, d_model] x [d_model, d] -> [..., n, d]


def _relevance(x, w_q, w_k):
    return (x @ w_q) @ swap_last(x @ w_k)  # [..., n, d_k] x [..., d_k, n] -> [..., n, n]


def _matmul_error(batch_key):
    """on_error hook: a failed matrix product; on a batch, after one sentence passed, `batch_key`."""

    def on_error(case, exc, passed):
        text = str(exc)
        if isinstance(exc, ValueError) and ("matmul" in text or "not aligned" in text or "broadcast" in text):
            if passed and case.kind.startswith("case_batch"):
                return Finding(batch_key, {"error": error_text(exc)})
            return Finding("qkv_inner_dims", {"error": error_text(exc)})
        return None

    return on_error


def _judge_qkv(case, value, notes):
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        return Finding("qkv_not_triple", {"got": describe(value)})
    got = []
    for name, item in zip("QKV", value, strict=True):
        array, finding = as_numbers(item, notes, name)
        if finding:
            return finding
        got.append(array)
    x, w_q, w_k, w_v = case.args
    named = {"Q": case.expected[0], "K": case.expected[1], "V": case.expected[2]}
    for name, array, expected in zip("QKV", got, case.expected, strict=True):
        if array.shape == expected.shape and matches(array, expected):
            continue
        if (
            name != "Q"
            and array.shape == named["Q"].shape
            and matches(array, named["Q"])
            and matches(got[0], named["Q"])
        ):
            return Finding("qkv_same_matrix", {"name": name})
        same = [other for other, right in named.items() if other != name and array.shape == right.shape]
        swapped = [other for other in same if matches(array, named[other])]
        if swapped:
            return Finding("qkv_order", {"position": name, "got": swapped[0]})
        flat = x.reshape(-1, x.shape[-1]) @ (w_q, w_k, w_v)["QKV".index(name)]  # [B*n, d]
        if x.ndim > 2 and array.shape == flat.shape and matches(array, flat):
            return Finding(
                "qkv_batch_flattened", {"name": name, "got": str(array.shape), "expected": str(expected.shape)}
            )
        if array.shape != expected.shape:
            return wrong_shape(array.shape, expected.shape, name)
        return difference(array, expected, name)
    return None


def run_qkv_checks(fn, timeout=DEFAULT_TIMEOUT):
    """fn: x [..., n, d_model], w_q, w_k, w_v -> (Q, K, V). Returns the `Result`; prints nothing."""
    return run_cases("qkv", fn, _projection_cases(), _judge_qkv, timeout, _matmul_error("batch_axes"))


def check_qkv(fn, lang=None, timeout=DEFAULT_TIMEOUT):
    """fn: (x [..., n, d_model], w_q [d_model, d_k], w_k [d_model, d_k], w_v [d_model, d_v]) -> (Q, K, V).

    Prints one verdict line; True if every check passed. One sentence [n, d_model] or a batch of them.
    """
    return report(run_qkv_checks(fn, timeout), lang)


def _relevance_cases():
    return [
        Case(c.kind, c.shapes.rsplit(", W_V", 1)[0], c.args[:3], {}, Reference(_relevance)) for c in _projection_cases()
    ]


def _judge_relevance(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    x, w_q, w_k = case.args
    q, k = x @ w_q, x @ w_k  # [..., n, d_k]
    if got.shape != case.expected.shape:
        return wrong_shape(got.shape, case.expected.shape)
    if matches(got, case.expected):
        return None
    d_k = q.shape[-1]
    candidates = [
        ("rel_transposed", {}, lambda: k @ swap_last(q)),
        ("rel_same_matrix", {"name": "W_Q"}, lambda: q @ swap_last(q)),
        ("rel_same_matrix", {"name": "W_K"}, lambda: k @ swap_last(k)),
        ("rel_no_projection", {}, lambda: x @ swap_last(x)),
        ("rel_scaled", {"sqrt_dk": fmt(np.sqrt(d_k))}, lambda: case.expected / np.sqrt(d_k)),
    ]
    return first_match(got, candidates) or difference(got, case.expected)


def run_relevance_scores_checks(fn, timeout=DEFAULT_TIMEOUT):
    """fn: x [..., n, d_model], w_q, w_k -> (x W_Q)(x W_K)ᵀ [..., n, n]. Returns the `Result`; prints nothing."""
    return run_cases(
        "relevance_scores", fn, _relevance_cases(), _judge_relevance, timeout, _matmul_error("batch_transpose")
    )


def check_relevance_scores(fn, lang=None, timeout=DEFAULT_TIMEOUT):
    """fn: (x [..., n, d_model], w_q, w_k) -> S [..., n, n] = (x W_Q)(x W_K)ᵀ. Prints one verdict line.

    Row i is token i's query against every key, unscaled (the division by √d_k comes in notebook 04).
    """
    return report(run_relevance_scores_checks(fn, timeout), lang)
