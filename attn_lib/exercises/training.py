"""Notebook 08's self-checking exercise: the ablation mask that hides one token from the model.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
inputs whose sizes all differ, compare with the model's own mask (`attn_lib.models.tiny_model.attention_mask`,
forbidden here), print one line, and when the mask is wrong, name the classic mistake it matches:

    the token's row switched off instead of its column (it cannot read, but everyone can read it), the
    column switched off for the blank's query only (section 7's "from blank only"), the column without the
    causal mask (the future visible), the column next to the token (off by one), the token still reading
    itself, nothing hidden at all, True and False swapped, numbers instead of booleans
"""

import numpy as np

from attn_lib.core import causal_mask
from attn_lib.exercises.compare import RESULT, as_mask_pattern, same
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Finding, Reference, report, run_cases
from attn_lib.i18n import check_language
from attn_lib.models.tiny_model import attention_mask

__all__ = ["check_hide_mask", "run_hide_mask_checks"]


def _hide_cases():
    sizes = [
        ("case_hide_middle", 7, 3),
        ("case_hide_first", 5, 0),
        ("case_hide_last", 6, 5),
        ("case_hide_article", 11, 9),
    ]
    cases = []
    for kind, n, hidden in sizes:
        cases.append(Case(kind, f"n = {n}, hidden = {hidden}", (n, hidden), {}, Reference(_hidden)))
    return cases


def _hidden(n, hidden):
    """The answer, from the model's own mask: [n, n], the causal mask with column `hidden` off."""
    return attention_mask(n, np.array([hidden]))[0, 0]


def _judge_hide(case, value, notes):
    n, hidden = case.args
    got, finding = as_mask_pattern(value, case.expected, notes, inverted="hide_inverted")
    if finding or same(got, case.expected):
        return finding
    causal, keys = causal_mask(n), np.arange(n)
    column = keys[None, :] == hidden  # [1, n]: the hidden token's column
    fields = {"hidden": hidden, "n": n}
    candidates = [
        ("hide_row", causal & (keys[:, None] != hidden)),
        ("hide_blank_only", causal & ~(column & (keys[:, None] == n - 1))),
        ("hide_not_causal", np.broadcast_to(~column, (n, n))),
        ("hide_self_kept", causal & (~column | (keys[:, None] == hidden))),
        ("hide_missing", causal),
        ("hide_inverted", ~case.expected),
    ]
    candidates += [("hide_off_by_one", causal & (keys[None, :] != other)) for other in (hidden - 1, hidden + 1)]
    for key, pattern in candidates:
        if same(got, pattern) and not same(pattern, case.expected):
            return Finding(key, fields)
    i, j = np.argwhere(got != case.expected)[0]
    return Finding(
        "wrong_values",
        {"what": RESULT, "index": f"[{i}, {j}]", "expected": str(case.expected[i, j]), "got": str(got[i, j])},
    )


def run_hide_mask_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("attention_mask",)):
    """fn: (n, hidden) -> bool [n, n], the causal mask with column `hidden` False. Returns the `Result`."""
    return run_cases("hide_mask", fn, _hide_cases(), _judge_hide, timeout, forbid=forbid)


def check_hide_mask(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("attention_mask",)):
    """fn: (n, hidden) -> bool [n, n]: may query i read key j, when no query may read token `hidden`?

    The causal mask with the column `hidden` switched off, in every row (the hidden token's own included).
    attn_lib.models.tiny_model.attention_mask is forbidden (attn_lib.causal_mask is allowed). Prints one
    verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_hide_mask_checks(fn, timeout, forbid), lang)
