"""Notebook 13's self-checking exercises: temperature, top-k, top-p, and writing with the KV cache.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs, compare with attn_lib.sampling and attn_lib.models.generation, print one line, and when the
result is wrong, compare it with the classic wrong versions and name the one it matches:

    temperature       T applied to the probabilities (softmax(softmax(z) / T)), the softmax divided by T
                      after it (no longer a distribution), p / T renormalised (no effect at all), p^(1/T)
                      not renormalised, z * T instead of z / T, and the softmax mistakes of notebook 04 (a
                      batch whose rows lie far apart catches one maximum subtracted for the whole batch)
    top-k             k + 1 or k - 1 tokens kept, the k *least* likely kept, ties with the k-th broken by
                      position (the convention keeps them all, as Hugging Face's TopKLogitsWarper)
    top-p             the token that crosses p dropped (the convention keeps it, as TopPLogitsWarper), one
                      token past it kept, the cumulative sum taken in token order (not sorted) or from the
                      least likely up
    both filters      the kept probabilities not renormalised, the filtered logits returned instead of
                      probabilities, a softmax that overflows at logits around 1000 (the maximum not subtracted)
    cached writing    the position not advanced (every token fed at the same position), a position one too
                      far, the whole sequence fed to the cache again, the prompt never stored, a wrong
                      token fed, the prompt left out of the result, a token too many or too few
"""

import numpy as np

from attn_lib.core import softmax
from attn_lib.exercises.compare import (
    RESULT,
    as_numbers,
    difference,
    first_match,
    fmt,
    matches,
    numbers_judge,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Finding, Reference, report, resolved, run_cases
from attn_lib.exercises.mistakes import softmax_mistake
from attn_lib.i18n import check_language
from attn_lib.models.generation import cached_step, generate
from attn_lib.models.tiny_lm import LMConfig, init_params
from attn_lib.sampling import greedy

__all__ = [
    "check_temperature",
    "check_top_k",
    "check_top_p",
    "check_cached_generation",
    "run_temperature_checks",
    "run_top_k_checks",
    "run_top_p_checks",
    "run_cached_generation_checks",
]

# --- temperature --------------------------------------------------------------------------------------

#: np.exp overflows float64 above this (about 709.78): a softmax that does not subtract the maximum gives inf / inf.
EXP_OVERFLOW = float(np.log(np.finfo(np.float64).max))


def _exact32(x):
    """x rounded to a multiple of 2^-10, exactly a float32 up to 8192: a learner's float32 code sees the same logits."""
    return np.round(x * 1024.0) / 1024.0


def _values_text(values):
    """ "[3.65, -6.16, 1.92]": numbers for a message, as fmt writes them (not numpy's np.float64(3.65))."""
    return "[" + ", ".join(fmt(v) for v in values) + "]"


def _overflow_mistake(got, z, expected):
    """softmax_overflow: NaN or +inf where a probability belongs while a logit is past np.exp's overflow, else None."""
    if not np.max(z) > EXP_OVERFLOW:
        return None
    wrong = (np.isnan(got) | np.isposinf(got)) & np.isfinite(expected)
    return Finding("softmax_overflow") if wrong.any() else None


def _temperature_cases():
    rng = np.random.default_rng(12)
    z = rng.normal(0.0, 1.5, 7)
    specs = [
        ("case_temp_sharp", z, 0.5),
        ("case_temp_flat", z, 2.5),
        ("case_large", 1000.0 + 3.0 * rng.normal(size=6), 0.7),
        ("case_batch", rng.normal(0.0, 2.0, (3, 5)), 1.6),
        ("case_temp_rows_apart", _exact32(np.array([[500.0], [-500.0]]) + rng.normal(0.0, 1.5, (2, 6))), 0.5),
    ]  # rows_apart: logits / T around +1000 and -1000; one maximum for the whole batch leaves the low row 0 / 0
    return [Case(kind, f"logits {x.shape}, T = {t:g}", (x, t), {}, Reference(_tempered)) for kind, x, t in specs]


def _tempered(z, temperature):
    """The answer, computed once the learner's call has returned: softmax(z / T)."""
    return softmax(z / temperature)


@numbers_judge
def _judge_temperature(case, got):
    z, temperature = case.args
    p = softmax(z)
    fields = {"t": fmt(temperature)}
    candidates = [
        ("temp_no_effect", fields, lambda: p),
        ("temp_on_probabilities", fields, lambda: softmax(p / temperature)),
        ("temp_after_softmax", {**fields, "total": fmt(1 / temperature)}, lambda: p / temperature),
        ("temp_power_not_normalised", fields, lambda: p ** (1 / temperature)),
        ("temp_inverted", fields, lambda: softmax(z * temperature)),
    ]
    return first_match(got, candidates) or softmax_mistake(z / temperature, got) or difference(got, case.expected)


def run_temperature_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("apply_temperature",)):
    """fn: (logits [..., V], temperature) -> probabilities [..., V]. Returns the `Result`; prints nothing."""
    return run_cases("temperature", fn, _temperature_cases(), _judge_temperature, timeout, forbid=forbid)


def check_temperature(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("apply_temperature",)):
    """fn: (logits [..., V], temperature T) -> softmax(logits / T) along the last axis: the distribution to sample.

    attn_lib.sampling's temperature functions are forbidden (attn_lib.softmax is allowed). Prints one
    verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_temperature_checks(fn, timeout, forbid), lang)


# --- top-k and top-p: which tokens survive ----------------------------------------------------------------


def _renormalised(z, keep):
    """softmax(z) over the tokens `keep` only (zeros elsewhere)."""
    return softmax(np.where(keep, z, -np.inf))


def _filter_mistake(got, z, expected):
    """The mistakes both filters share: the kept probabilities not renormalised, the logits returned."""
    keep = expected > 0
    if np.isneginf(got).any() and matches(got, np.where(keep, z, -np.inf)):
        return Finding("filter_logits_returned")
    if matches(got, softmax(z) * keep):
        return Finding("filter_not_renormalised", {"total": fmt((softmax(z) * keep).sum())})
    return None


def _kept_text(z, keep):
    """ "3.0, 2.0 and 1.5": the logits of the kept tokens, largest first, for a message."""
    return ", ".join(fmt(v) for v in sorted(z[keep], reverse=True))


def _top_k_cases():
    rng = np.random.default_rng(13)
    plain = np.round(rng.normal(0.0, 2.0, 8), 2)
    plain[6] -= 0.5  # 3.15: the draw repeats 3.65, and "no ties" (and k = 1 keeping one token) needs distinct values
    tied = np.array([2.0, 0.5, 1.0, 1.0, -1.0, 3.0, 1.0])  # the 3rd largest, 1.0, is tied three ways
    # case_large: np.exp(1000) overflows unless the largest logit is subtracted first
    specs = [("case_topk_plain", plain, 3), ("case_topk_tie", tied, 3), ("case_topk_one", plain, 1),
             ("case_topk_all", plain, 8), ("case_large", 1000.0 + plain, 3)]  # fmt: skip
    cases = []
    for kind, z, k in specs:
        shown = f"1000 + {_values_text(z - 1000.0)}" if z.max() > EXP_OVERFLOW else _values_text(z)
        cases.append(Case(kind, f"logits {shown}, k = {k}", (z, k), {}, Reference(_top_k_answer)))
    return cases


def _top_k_answer(z, k):
    """The answer: the softmax over every token whose logit is at least the k-th largest, 0 elsewhere."""
    return _renormalised(z, z >= np.sort(z)[-k])


@numbers_judge
def _judge_top_k(case, got):
    z, k = case.args
    found = _filter_mistake(got, z, case.expected) or _overflow_mistake(got, z, case.expected)
    if found:
        return found
    order = np.argsort(-z, kind="stable")
    fields = {"k": k}
    candidates = []
    for n, key in ((k + 1, "topk_one_more"), (k - 1, "topk_one_less")):
        if 1 <= n <= len(z):
            candidates.append((key, fields, lambda n=n: _renormalised(z, np.isin(np.arange(len(z)), order[:n]))))
    candidates.append(("topk_smallest", fields, lambda: _renormalised(z, np.isin(np.arange(len(z)), order[-k:]))))
    found = first_match(got, candidates)
    if found:
        return found
    kept, right = got > 0, case.expected > 0
    kth = np.sort(z)[-k]
    if kept.sum() == k and (kept <= right).all() and kept[z > kth].all() and matches(got, _renormalised(z, kept)):
        return Finding("topk_ties_by_position", {"k": k, "kth": fmt(kth), "tied": int((z == kth).sum())})
    return difference(got, case.expected)


def run_top_k_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("top_k_filter",)):
    """fn: (logits [V], k) -> probabilities [V]. Returns the `Result`; prints nothing."""
    return run_cases("top_k", fn, _top_k_cases(), _judge_top_k, timeout, forbid=forbid)


def check_top_k(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("top_k_filter",)):
    """fn: (logits [V], k) -> probabilities [V]: the softmax over the tokens kept by top-k, 0 for the others.

    The convention (attn_lib.sampling, Hugging Face): keep token j when fewer than k logits are larger
    than z_j, so every token tied with the k-th largest is kept. attn_lib.sampling's top-k is forbidden.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_top_k_checks(fn, timeout, forbid), lang)


def _top_p_cases():
    probs = np.array([0.05, 0.4, 0.1, 0.25, 0.2])  # not sorted: a cumulative sum in token order differs
    z = np.log(probs)
    rng = np.random.default_rng(14)
    wide = _exact32(rng.normal(0.0, 1.0, 9))
    specs = [
        ("case_topp_cross", z, 0.6),  # 0.4 < 0.6, then 0.25 crosses p (0.65): kept; 0.2 after 0.65: dropped
        ("case_topp_first", z, 0.3),  # the most likely token alone is past p
        ("case_topp_wide", wide + 1000.0, 0.83),  # past EXP_OVERFLOW: a softmax without the max subtracted overflows
        ("case_topp_all", z, 1.0),
    ]
    return [Case(kind, f"probabilities {_values_text(np.round(softmax(logits), 3))}, p = {fmt(p)}", (logits, p), {},
                 Reference(_top_p_answer)) for kind, logits, p in specs]  # fmt: skip


def _top_p_answer(logits, p):
    """The answer: the most likely tokens until their mass reaches p (the crossing one kept), renormalised."""
    ranked = np.sort(softmax(logits))[::-1]
    ahead = np.cumsum(ranked) - ranked
    return _renormalised(logits, softmax(logits) >= ranked[(ahead < p).sum() - 1])


def _top_p_keeps(z, p):
    """The classic wrong ways to choose top-p's tokens: (diagnosis key, bool [V] of the tokens kept)."""
    probs = softmax(z)
    down = np.argsort(-z, kind="stable")  # most likely first

    def walk(order, keep_while):
        kept = np.zeros(len(z), dtype=bool)
        with_it = np.cumsum(probs[order])  # [V]: the mass up to and including each token of `order`
        kept[order[keep_while(with_it - probs[order], with_it)]] = True
        return kept

    n_right = int((np.cumsum(probs[down]) - probs[down] < p).sum())  # the convention: the crossing token kept
    return [
        ("topp_crossing_dropped", walk(down, lambda ahead, with_it: with_it <= p)),  # stays at or below p
        ("topp_one_extra", np.isin(np.arange(len(z)), down[: n_right + 1])),  # one token past the crossing one
        ("topp_unsorted", walk(np.arange(len(z)), lambda ahead, with_it: ahead < p)),  # summed in token order
        ("topp_least_likely", walk(down[::-1], lambda ahead, with_it: ahead < p)),  # summed from the least likely
    ]


@numbers_judge
def _judge_top_p(case, got):
    z, p = case.args
    found = _filter_mistake(got, z, case.expected) or _overflow_mistake(got, z, case.expected)
    if found:
        return found
    fields = {"p": fmt(p), "kept": _kept_text(softmax(z), case.expected > 0)}
    nothing = bool((got == 0).all() or np.isnan(got).all())  # no token kept: all zeros, or 0 / 0
    for key, keep in _top_p_keeps(z, p):
        if (keep == (case.expected > 0)).all():
            continue  # this mistake makes no difference on this input
        if (nothing and not keep.any()) or (keep.any() and matches(got, _renormalised(z, keep))):
            return Finding(key, fields)
    return difference(got, case.expected)


def run_top_p_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("top_p_filter",)):
    """fn: (logits [V], p) -> probabilities [V]. Returns the `Result`; prints nothing."""
    return run_cases("top_p", fn, _top_p_cases(), _judge_top_p, timeout, forbid=forbid)


def check_top_p(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("top_p_filter",)):
    """fn: (logits [V], p) -> probabilities [V]: the softmax over the tokens kept by top-p, 0 for the others.

    The convention (attn_lib.sampling, Hugging Face): sort by probability, keep a token while the tokens
    ahead of it hold less than p, so the token that crosses p is kept. attn_lib.sampling's top-p is forbidden.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_top_p_checks(fn, timeout, forbid), lang)


# --- writing with the KV cache ------------------------------------------------------------------------------

_MODEL = LMConfig(vocab_size=13, max_len=14, d_model=16, n_heads=2, n_layers=2, d_ff=24)


class StepArgumentError(TypeError):
    """step(ids, start) was called with ids that are not a list of token ids (`got`: what it was given)."""

    def __init__(self, got):
        super().__init__(f"step(ids, start): ids must be a list of token ids, e.g. step([token], position); got {got}")
        self.got = got


class RecordingStep:
    """step(ids, start) -> logits [V], as attn_lib.models.generation.cached_step, with every call written down."""

    def __init__(self, params, config):
        self._step, self.calls = cached_step(params, config), []

    def __call__(self, ids, start):
        if isinstance(ids, (int, np.integer, str)) or not hasattr(ids, "__len__"):
            raise StepArgumentError(repr(ids.item() if isinstance(ids, np.generic) else ids)[:40])  # 7, not np.int64(7)
        ids = [int(i) for i in ids]
        self.calls.append((ids, start))
        return self._step(ids, int(start) if isinstance(start, (int, np.integer)) else start)


def _params():
    return init_params(_MODEL, seed=21, dtype=np.float64)


def _generation_cases():
    params = _params()
    specs = [("case_gen_prompt", [1, 5, 7], 5), ("case_gen_bos", [1], 7), ("case_gen_long", [1, 3, 9, 2], 9)]
    return [Case(kind, f"prompt {prompt}, n_new = {n_new}", (RecordingStep(params, _MODEL), prompt, n_new), {},
                 Reference(_greedy_ids)) for kind, prompt, n_new in specs]  # fmt: skip


def _greedy_ids(step, prompt, n_new):
    """The answer: the prompt and n_new greedy tokens from the same model, written without the learner's step."""
    ids, _ = generate(_params(), _MODEL, np.array(prompt), greedy, max_new=n_new)
    return ids


def _calls_mistake(case):
    """The finding for the first call to step that feeds the wrong tokens or the wrong position, or None.

    A right loop stores the prompt first (one call at position 0, or its tokens one by one), then feeds
    each token it writes at the next free position: call i starts where the tokens stored so far end.
    """
    step, prompt, _ = case.args
    sequence, calls = [int(i) for i in case.expected], step.calls
    if calls and (calls[0][1] != 0 or len(prompt) > 1 and calls[0][0] == prompt[-1:]):
        return Finding("gen_no_prefill", {"start": calls[0][1], "ids": calls[0][0], "n": len(prompt)})
    stored = 0  # the tokens in the cache before each call
    for number, (ids, start) in enumerate(calls, start=1):
        fields = {"call": number, "start": start, "expected": stored, "ids": ids}
        if stored and start == 0 and len(ids) > 1:
            return Finding("gen_refed", fields)
        if ids != sequence[stored : stored + len(ids)]:
            return Finding("gen_wrong_token", {**fields, "right": sequence[stored : stored + len(ids)]})
        if start != stored:
            if number > 1 and start == calls[number - 2][1]:
                return Finding("gen_position_stuck", fields)
            return Finding("gen_position_ahead" if start == stored + 1 else "gen_position_wrong", fields)
        stored += len(ids)
    return None


def _judge_generation(case, value, notes):
    found = _calls_mistake(case)
    if found:
        return found
    got, finding = as_numbers(value, set())  # a list of ids is the natural answer here: converted without a note
    if finding:
        return finding
    expected = case.expected
    step, prompt, n_new = case.args
    got = got.reshape(-1)
    if not step.calls:
        return Finding("gen_step_not_called")
    if len(got) == n_new and matches(got, expected[len(prompt) :]):
        return Finding("gen_prompt_missing", {"n": len(prompt)})
    if len(got) != len(expected):
        return Finding("gen_wrong_length", {"got": len(got), "expected": len(expected), "n_new": n_new})
    return None if matches(got, expected) else difference(got, expected, RESULT)


def _generation_error(case, exc, passed):
    if isinstance(exc, StepArgumentError):
        return Finding("gen_step_ids", {"got": exc.got})
    return _calls_mistake(resolved(case))


def run_cached_generation_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("generate",)):
    """fn: (step, prompt ids, n_new) -> ids [p + n_new]. Returns the `Result`; prints nothing."""
    return run_cases("cached_generation", fn, _generation_cases(), _judge_generation, timeout, _generation_error,
                     forbid)  # fmt: skip


def check_cached_generation(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("generate",)):
    """fn: (step, prompt, n_new) -> the prompt's ids followed by n_new greedy tokens, written with the KV cache.

    `step(ids, start)` (from attn_lib.models.generation.cached_step: a small random model here) stores the
    keys and values of `ids`, fed at positions start, start + 1, ..., and returns the logits [V] of the
    last of them. attn_lib.models.generation.generate is forbidden. Prints one verdict line; True if every
    check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_cached_generation_checks(fn, timeout, forbid), lang)
