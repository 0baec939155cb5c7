"""Notebook 04's self-checking exercise on the whole formula, softmax(Q Kᵀ / √d_k) V, without a mask.

Notebook 04 teaches the four steps (scores, scaling, softmax, weighted sum) and notebook 05 the mask, so
the formula exercise of 04 checks exactly what 04 teaches: the same cases as `check_attention` minus
those with a mask (n_q ≠ n_k, a single token, large scores, a batch), judged the same way. A wrong answer
is compared with the classic wrong formulas and the message names the one it matches: no scaling, d_k or
√d_model-style wrong scales, multiplying by √d_k, a softmax over the wrong axis or one that overflows,
weights that do not sum to 1, a wrong output, the pair in the wrong order, `.T` on a batch.
`attn_lib.exercises` re-exports it.
"""

from attn_lib._diagnose import DEFAULT_TIMEOUT, run_cases
from attn_lib.i18n import check_language

__all__ = ["check_attention_formula", "run_attention_formula_checks"]


def _formula_cases(batched):
    from attn_lib.exercises import _attention_cases  # the attention exercise's cases, built in one place

    return [case for case in _attention_cases(batched) if "mask" not in case.kwargs]


def run_attention_formula_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("scaled_dot_product_attention",)):
    """fn: q [..., n_q, d_k], k [..., n_k, d_k], v [..., n_k, d_v] -> (output, weights), no mask. Returns a Result."""
    from attn_lib.exercises import _batch_error, _judge_attention

    on_error = _batch_error("batch_transpose")
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
