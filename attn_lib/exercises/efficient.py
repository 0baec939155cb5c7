"""Notebook 11's self-checking exercise: one update of the online softmax.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's update on
seeded running states and blocks whose sizes all differ, compare with the update written here as the
notebook writes it, print one line, and when the result is wrong, name the classic mistake it matches:

    no rescaling of the old sum and output (alpha left out), alpha the wrong way round (e^(m_new - m)),
    only one of ell (the notebook's ℓ) and o rescaled, the block's weights taken against its own maximum
    instead of the new running one, the running maximum forgotten (the block's maximum alone), the output divided by ell
    too early, and a result that is not the three arrays (m, ell, o)
"""

import numpy as np

from attn_lib.exercises.compare import as_numbers, difference, matches, wrong_shape
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Finding, Reference, describe, report, run_cases
from attn_lib.i18n import check_language

__all__ = ["check_online_update", "run_online_update_checks"]

_NAMES = ("m", "ell", "o")


def _online_update(m, ell, o, s, v):
    """The answer, private so that the checker watches it (a learner's update may not call it).

    m [r], ell [r], o [r, d_v], scores s [r, b], values v [b, d_v] -> (m_new, ell_new, o_new): one block.

    m_new = max(m, max_j s_j), alpha = exp(m - m_new), ell_new = alpha ell + sum_j exp(s_j - m_new),
    o_new = alpha o + sum_j exp(s_j - m_new) v_j (o stays unnormalised: divide by ell after the last block).
    """
    m_new = np.maximum(m, s.max(axis=-1))  # [r]
    alpha = np.exp(m - m_new)  # [r]: how much the old sums shrink (0 when m was -inf)
    p = np.exp(s - m_new[:, None])  # [r, b]
    return m_new, alpha * ell + p.sum(axis=-1), alpha[:, None] * o + p @ v  # [r], [r], [r, d_v]


def _variants(m, ell, o, s, v):
    """(key, fields, (m, ell, o)) for each classic wrong update."""
    m_new = np.maximum(m, s.max(axis=-1))
    alpha, p = np.exp(m - m_new), np.exp(s - m_new[:, None])
    right_l, right_o = alpha * ell + p.sum(axis=-1), alpha[:, None] * o + p @ v
    inverted = np.exp(m_new - m)
    own = np.exp(s - s.max(axis=-1, keepdims=True))  # the block against its own maximum
    m_block = s.max(axis=-1)  # the running maximum forgotten
    a_block, p_block = np.exp(m - m_block), np.exp(s - m_block[:, None])
    return [
        ("online_no_rescale", {}, (m_new, ell + p.sum(axis=-1), o + p @ v)),
        ("online_alpha_inverted", {}, (m_new, inverted * ell + p.sum(axis=-1), inverted[:, None] * o + p @ v)),
        ("online_half_rescaled", {"done": "ell", "missed": "o"}, (m_new, right_l, o + p @ v)),
        ("online_half_rescaled", {"done": "o", "missed": "ell"}, (m_new, ell + p.sum(axis=-1), right_o)),
        ("online_block_max", {}, (m_new, alpha * ell + own.sum(axis=-1), alpha[:, None] * o + own @ v)),
        (
            "online_max_forgotten",
            {},
            (m_block, a_block * ell + p_block.sum(axis=-1), a_block[:, None] * o + p_block @ v),
        ),
        ("online_normalised", {}, (m_new, right_l, right_o / right_l[:, None])),
    ]


def _online_cases():
    rng = np.random.default_rng(10)
    cases = []
    # (kind, rows r, keys in the block b, d_v, how the block's maximum compares with the running one)
    for kind, r, b, d_v, shift in (
        ("case_online_larger", 3, 4, 2, 2.0),
        ("case_online_smaller", 2, 5, 3, -2.0),
        ("case_online_first", 4, 3, 5, None),
        ("case_online_mixed", 5, 2, 4, 0.0),
    ):
        s_old = rng.normal(size=(r, 6))  # the blocks seen so far: they give the running state
        v_old = rng.normal(size=(6, d_v))
        m = s_old.max(axis=-1)
        p_old = np.exp(s_old - m[:, None])
        ell, o = p_old.sum(axis=-1), p_old @ v_old
        if shift is None:  # the first block: nothing seen yet
            m, ell, o = np.full(r, -np.inf), np.zeros(r), np.zeros((r, d_v))
            s = rng.normal(size=(r, b))
        else:
            s = rng.normal(size=(r, b)) + (m[:, None] - 0.5 + shift)  # the block's maximum above or below m
            if kind == "case_online_mixed":
                s[::2] += 3.0  # some rows get a larger maximum, the others keep theirs
        v = rng.normal(size=(b, d_v))
        shapes = f"m ({r},), ell ({r},), o ({r}, {d_v}), s ({r}, {b}), v ({b}, {d_v})"
        cases.append(Case(kind, shapes, (m, ell, o, s, v), {}, Reference(_online_update)))
    return cases


def _judge_online(case, value, notes):
    if not isinstance(value, (tuple, list)) or len(value) != 3:
        return Finding("online_not_triple", {"got": describe(value)})
    got = []
    for name, part, expected in zip(_NAMES, value, case.expected, strict=True):
        array, finding = as_numbers(part, notes)
        if finding:
            return finding
        if array.shape != expected.shape:
            return Finding("online_part_shape", {**wrong_shape(array.shape, expected.shape).fields, "name": name})
        got.append(array)
    if all(matches(g, e) for g, e in zip(got, case.expected, strict=True)):
        return None
    for key, fields, wrong in _variants(*case.args):
        if all(matches(g, w) for g, w in zip(got, wrong, strict=True)):
            if not all(matches(w, e) for w, e in zip(wrong, case.expected, strict=True)):
                return Finding(key, fields)
    for name, g, e in zip(_NAMES, got, case.expected, strict=True):
        if not matches(g, e):
            return Finding("online_part_wrong", {**difference(g, e).fields, "name": name})
    return None


def run_online_update_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (m [r], ell [r], o [r, d_v], s [r, b], v [b, d_v]) -> (m_new, ell_new, o_new). Returns the `Result`."""
    return run_cases("online_update", fn, _online_cases(), _judge_online, timeout, forbid=forbid)


def check_online_update(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (m, ell, o, s, v) -> (m_new, ell_new, o_new): the running max, sum (ℓ) and unnormalised output.

    Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_online_update_checks(fn, timeout, forbid), lang)
