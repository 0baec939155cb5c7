"""The self-checking exercises of notebook 01: a next-token distribution from counts, and counting.

Built like the checkers of `attn_lib.exercises` (which re-exports these): each runs the learner's
function on several inputs, compares with a reference, prints one line, and when the result is wrong
compares it with the classic wrong versions and names the one it matches. Only what notebook 01
teaches is asked for (no softmax: it comes in notebook 02):

    next_token_probabilities  {token: count} -> {token: count / total}
                              mistakes: not divided, //, divided by the number of tokens or by the
                              largest count, uniform, percentages, tokens lost or added
    window_counts             what followed the last k tokens of a context in a corpus of
                              (sentence, count) pairs, as {token: count}
                              mistakes: the first k tokens, a window one too long or short, each
                              sentence counted once, only the first occurrence in a sentence, windows
                              across sentence ends, the window's last token counted, probabilities
"""

import numbers

import numpy as np

from attn_lib.examples import TINY_CORPUS
from attn_lib.exercises.compare import (
    RESULT,
    Finding,
    Word,
    describe,
    first_match,
    fmt,
    fmt_pair,
    matches,
)
from attn_lib.exercises.counting_reference import window_counts
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, report, run_cases

__all__ = [
    "check_next_token_probabilities",
    "check_window_counts",
    "run_next_token_probabilities_checks",
    "run_window_counts_checks",
    "window_counts",
]


def _dict_text(counts):
    return "{" + ", ".join(f"{token}: {count}" for token, count in counts.items()) + "}"


# --- 01: probabilities from counts --------------------------------------------------------------


def _probability_cases():
    specs = [
        ("case_weather", {"很好": 5, "不错": 3, "真热": 2}),
        ("case_dishes", {"烤鸭": 6, "小笼包": 6, "火锅": 4, "肉夹馍": 2, "热干面": 2}),
        ("case_one_token", {"小笼包": 4}),
    ]
    return [
        Case(kind, f"counts = {_dict_text(counts)}", (counts,), {}, Reference(_probabilities)) for kind, counts in specs
    ]


def _probabilities(counts):
    total = sum(counts.values())
    return {w: c / total for w, c in counts.items()}


def _as_dict_of_numbers(value, expected):
    """(the returned dict, None) or (None, the Finding that says why it is not {token: number})."""
    if not isinstance(value, dict):
        return None, Finding(
            "wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_dict")}
        )
    found = _keys_finding(value, expected)
    if found:
        return None, found
    for number in value.values():
        if isinstance(number, bool) or not isinstance(number, (numbers.Real, np.integer, np.floating)):
            fields = {"what": RESULT, "got": describe(number), "expected": Word("exercises.expect_number")}
            return None, Finding("wrong_type", fields)
    return value, None


def _keys_finding(value, expected):
    """The Finding for a dict whose tokens are not the expected ones (missing ones first), or None.

    The tokens are written as a Python list, the same in both languages: ['烤鸭', '火锅'].
    """
    missing = [token for token in expected if token not in value]
    if missing:
        return Finding("counts_missing", {"tokens": repr(missing)})
    extra = [token for token in value if token not in expected]
    return Finding("counts_extra", {"tokens": repr(extra)}) if extra else None


def _judge_probabilities(case, value, notes):
    got, finding = _as_dict_of_numbers(value, case.expected)
    if finding:
        return finding
    tokens = list(case.expected)
    got = np.array([float(got[token]) for token in tokens])  # [V], in the order of the counts
    expected = np.array([case.expected[token] for token in tokens])  # [V]
    if matches(got, expected):
        return None
    counts = np.array([case.args[0][token] for token in tokens], dtype=float)  # [V]
    total, fields = counts.sum(), {"total": fmt(counts.sum()), "kinds": len(counts), "largest": fmt(counts.max())}
    candidates = [
        ("prob_not_normalised", fields, lambda: counts),
        ("prob_integer_division", fields, lambda: counts // total),
        ("prob_by_kinds", fields, lambda: counts / len(counts)),
        ("prob_by_max", fields, lambda: counts / counts.max()),
        ("prob_uniform", fields, lambda: np.full(len(counts), 1 / len(counts))),
        ("prob_percent", fields, lambda: 100 * counts / total),
    ]
    found = first_match(got, candidates)
    if found:
        return found
    i = int(np.argmax(~np.isclose(got, expected)))
    shown = fmt_pair(expected[i], got[i])
    fields = {"what": RESULT, "index": f"[{tokens[i]!r}]", "expected": shown[0], "got": shown[1]}
    return Finding("wrong_values", fields)


def run_next_token_probabilities_checks(fn, timeout=DEFAULT_TIMEOUT):
    """fn: {token: count} -> {token: count / total}. Returns the `Result`; prints nothing."""
    return run_cases("next_token_probabilities", fn, _probability_cases(), _judge_probabilities, timeout)


def check_next_token_probabilities(fn, lang=None, timeout=DEFAULT_TIMEOUT):
    """fn: {token: count} -> {token: probability}. Prints one verdict line; True if every check passed.

    Each probability is the token's count divided by the total of all counts, so they add up to 1.
    """
    return report(run_next_token_probabilities_checks(fn, timeout), lang)


# --- 01: counting what follows the last k tokens ------------------------------------------------

#: A corpus made up for the check: the window "a b" occurs twice in one sentence, and ends another.
SMALL_CORPUS = (("a b a b c", 2), ("c a b", 3), ("b a b d", 1))


def _window_cases():
    prompt = "今天 在 上海 和 朋友 吃了".split()  # a list, as in the notebook (a fresh one for every call)
    specs = [
        ("case_last_k", TINY_CORPUS, ["今天", "天气"], 1),
        ("case_last_k", TINY_CORPUS, prompt, 2),
        ("case_last_k", TINY_CORPUS, list(prompt), 4),
        ("case_small_corpus", SMALL_CORPUS, ["x", "a", "b"], 2),
        ("case_never_seen", TINY_CORPUS, list(prompt), 6),
    ]
    cases = []
    for kind, corpus, context, k in specs:
        where = "TINY_CORPUS" if corpus is TINY_CORPUS else "corpus = " + repr(corpus)
        shapes = f"{where}, context {' '.join(context)}, k = {k}"
        cases.append(Case(kind, shapes, (corpus, context, k), {}, Reference(window_counts)))
    return cases


def _judge_window(case, value, notes):
    expected = case.expected
    if not isinstance(value, dict):
        return Finding(
            "wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_dict")}
        )
    if value == expected:
        return None
    corpus, context, k = case.args
    total = sum(expected.values())
    if expected and set(value) == set(expected) and matches(sum(value.values()), 1.0) and total != 1:
        if all(matches(value[token], expected[token] / total) for token in expected):
            return Finding("counts_probabilities")
    candidates = [
        ("window_from_start", {"k": k}, {"start": True}),
        ("window_width", {"k": k, "width": k + 1}, {"width": k + 1}),
        ("window_width", {"k": k, "width": k - 1}, {"width": k - 1} if k > 1 else None),
        ("counts_unweighted", {}, {"weighted": False}),
        ("counts_first_only", {}, {"first_only": True}),
        ("counts_across_sentences", {}, {"stream": True}),
        ("counts_across_sentences", {}, {"stream": True, "weighted": False}),
    ]
    for key, fields, options in candidates:
        if options is not None and value == window_counts(corpus, context, k, **options):
            return Finding(key, fields)
    if expected and value in ({context[-1]: total}, window_counts(corpus, context, k, last=True)):
        return Finding("counts_window_token", {"token": context[-1]})
    found = _keys_finding(value, expected)
    if found:
        return found
    token = next(token for token in expected if value[token] != expected[token])
    fields = {"what": RESULT, "index": f"[{token!r}]", "expected": str(expected[token]), "got": str(value[token])}
    return Finding("wrong_values", fields)


def run_window_counts_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("count_next_tokens", "window_counts")):
    """fn: (corpus, context, k) -> {token: count} after the last k tokens. Returns the `Result`.

    attn_lib.models.ngram.count_next_tokens (and next_token_distribution, which calls it) is forbidden, and so is
    this checker's own reference, attn_lib.exercises.counting.window_counts.
    """
    return run_cases("window_counts", fn, _window_cases(), _judge_window, timeout, forbid=forbid)


def check_window_counts(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("count_next_tokens", "window_counts")):
    """fn: (corpus, context, k) -> {token: count}. Prints one verdict line; True if every check passed.

    Counts, sentence by sentence and each as often as its count says, every token that follows the last
    k tokens of `context`; {} when they never occur. attn_lib.models.ngram.count_next_tokens and the checker's
    reference window_counts are forbidden.
    """
    return report(run_window_counts_checks(fn, timeout, forbid), lang)
