"""Notebook 08's self-checking exercises: the ablation mask that hides one token, and the ablation itself.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs, compare with the answer computed here (the model's own `attention_mask` is forbidden), print
one line, and when the result is wrong, name the classic mistake it matches.

The mask (`check_hide_mask`, inputs whose sizes all differ):

    the token's row switched off instead of its column (it cannot read, but everyone can read it), the
    column switched off for the blank's query only (section 7's "from blank only"), the column without the
    causal mask (the future visible), the column next to the token (off by one), the token still reading
    itself, nothing hidden at all, True and False swapped, numbers instead of booleans

The ablation accuracy (`check_ablation_accuracy`): hide position hidden[b] of every sentence b from every
query in both layers of a trained model, and return the share of sentences still answered right. The cases
use the model the learner trained (`model=`, a `TrainResult`) or seed 0 of notebook 08, trained here once per
session (about 8 s); every wrong answer is compared with what each classic mistake gives on the same model:

    the token hidden from the blank's query only, the row switched off instead of the column, the causal
    mask left out, nothing hidden (no mask given to the model), the first sentence's position used for every
    sentence, the position next to the token, the share answered wrong, the count answered right, a mask
    [B, n, n] without the head axis
"""

import dataclasses
import numbers
from functools import lru_cache
from types import MappingProxyType

import numpy as np

from attn_lib.core import causal_mask
from attn_lib.exercises.compare import RESULT, Word, as_mask_pattern, describe, same
from attn_lib.exercises.diagnose import (
    DEFAULT_TIMEOUT,
    Case,
    Finding,
    Reference,
    call_learner,
    error_text,
    report,
    run_cases,
)
from attn_lib.i18n import check_language
from attn_lib.models.corpus import TEMPLATES, Split, make_corpus
from attn_lib.models.tiny_model import attention_mask
from attn_lib.models.tiny_training import accuracy, train

__all__ = ["check_ablation_accuracy", "check_hide_mask", "run_ablation_accuracy_checks", "run_hide_mask_checks"]


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


# --- the ablation accuracy ------------------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _seed_zero():
    """Notebook 08's model (seed 0 on the default corpus), trained once per session: (params, config)."""
    result = train(make_corpus(), seed=0)
    return result.params, result.config


def _frozen(array):
    array = np.array(array)  # a copy the learner's function cannot change in place
    array.flags.writeable = False
    return array


def _sentences(split, pick=slice(None)):
    """The sentences `pick` of `split`, as a Split of read-only arrays."""
    return Split(**{f.name: _frozen(getattr(split, f.name)[pick]) for f in dataclasses.fields(split)})


def _ablation_cases(model=None):
    if model is None:
        params, config = _seed_zero()
    elif hasattr(model, "params") and hasattr(model, "config"):
        params, config = model.params, model.config
    else:
        raise TypeError(f"model must be the result of train(...) or None, got {describe(model)}")
    params = MappingProxyType({name: _frozen(value) for name, value in params.items()})
    corpus, rng = make_corpus(), np.random.default_rng(8)
    test, validation = _sentences(corpus.test), _sentences(corpus.validation)
    sample = _sentences(corpus.test, np.sort(rng.choice(len(corpus.test), size=60, replace=False)))
    anywhere = rng.integers(0, sample.blank + 1)  # [60]: any position up to the blank, the blank included
    article = _sentences(corpus.encode([(0, 1)], TEMPLATES[:1]))
    specs = [
        ("case_ablate_today", test, test.today, "hidden = split.today"),
        ("case_ablate_random", sample, anywhere, "hidden = random positions"),
        ("case_ablate_yesterday", validation, validation.yesterday, "hidden = split.yesterday"),
        ("case_ablate_article", article, article.today, "hidden = [上海's position]"),
    ]
    return [
        Case(kind, f"{len(split)} sentences, {what}", (params, config, split, hidden), {}, Reference(_ablated))
        for kind, split, hidden, what in specs
    ]


def _masks(split, hidden):
    """[(name, bool [B, n, n])]: the ablation ("answer") first, then what each classic mistake hides instead."""
    B, n = split.tokens.shape
    positions = np.arange(n)
    causal = causal_mask(n)[None]  # [1, n, n]

    def column(where):  # [B, 1, n]: the key at position where[b] of sentence b
        return positions[None, None, :] == np.asarray(where)[:, None, None]

    def row(where):  # [B, n, 1]: the query at position where[b]
        return positions[None, :, None] == np.asarray(where)[:, None, None]

    return [
        ("answer", causal & ~column(hidden)),
        ("ablate_blank_only", causal & ~(column(hidden) & row(split.blank))),
        ("ablate_row", causal & ~row(hidden)),
        ("ablate_not_causal", np.broadcast_to(~column(hidden), (B, n, n))),
        ("ablate_nothing", np.broadcast_to(causal, (B, n, n))),
        ("ablate_one_position", causal & ~column(np.full(B, hidden[0]))),
        ("ablate_off_by_one", causal & ~column(hidden + 1)),
        ("ablate_off_by_one", causal & ~column(hidden - 1)),
    ]


def _ablated(params, config, split, hidden):
    """The answer: accuracy with position hidden[b] of sentence b hidden from every query, in both layers."""
    return accuracy(params, config, split, mask=_masks(split, hidden)[0][1][:, None])  # [B, 1, n, n]


def _close(a, b):
    return abs(a - b) < 1e-6  # fractions k / B (float32 holds them to 1e-7): a mistake moves one by 1 / B at least


def _judge_ablation(case, value, notes):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        return Finding(
            "wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_fraction")}
        )
    got, expected = float(value), case.expected
    if _close(got, expected):
        return None
    split, hidden = case.args[2:]
    fields = {"got": f"{got:.4g}", "expected": f"{expected:.4g}", "n": len(split), "first": int(hidden[0])}
    keys = _mistakes(case.args, expected, got)
    return Finding(keys[0], fields | {"matches": keys}) if keys else Finding("ablate_wrong", fields)


def _mistakes(args, expected, got):
    """The classic mistakes whose accuracy on `args` is `got` (and not the answer), in the order they are named."""
    params, config, split, hidden = args
    known = [("ablate_error_rate", 1 - expected), ("ablate_count", expected * len(split))]
    known += [(key, accuracy(params, config, split, mask=mask[:, None])) for key, mask in _masks(split, hidden)[1:]]
    return tuple(dict.fromkeys(key for key, wrong in known if _close(got, wrong) and not _close(wrong, expected)))


def _told_apart(fn, cases, result, timeout):
    """`result` with one mistake named when its case matched several: the one that matches on the other cases too.

    Hiding nothing and hiding the token after today's city both leave every answer right, for instance; the
    function is run on the other cases (unwatched: it passed the watch on the case that failed) to tell them apart.
    """
    keys = result.fields.get("matches", ())
    for case in cases:
        if len(keys) < 2 or case is result.case:
            continue
        outcome = call_learner(fn, case, timeout)
        value = outcome.value.item() if isinstance(outcome.value, np.ndarray) else outcome.value
        if outcome.error is None and not outcome.timed_out and isinstance(value, numbers.Real):
            expected = _ablated(*case.args)
            if not _close(float(value), expected):
                keys = tuple(key for key in keys if key in _mistakes(case.args, expected, float(value))) or keys
    return dataclasses.replace(result, key=keys[0]) if keys else result


def _ablation_error(case, exc, passed):
    """A [B, n, n] mask meets the scores [B, h, n, n]: numpy cannot broadcast it over the heads."""
    if isinstance(exc, ValueError) and "does not broadcast to scores" in str(exc):
        return Finding("ablate_head_axis", {"error": error_text(exc)})
    return None


def run_ablation_accuracy_checks(fn, model=None, timeout=DEFAULT_TIMEOUT, forbid=("attention_mask",)):
    """fn: (params, config, split, hidden [B]) -> the accuracy with token hidden[b] hidden. Returns the `Result`.

    A function that gives the model no mask at all runs the model's default mask, `attention_mask(n)`, which
    is forbidden; it is run again without the watch, and "nothing hidden" is named if that is what it did.
    """
    cases = _ablation_cases(model)
    result = run_cases("ablation_accuracy", fn, cases, _judge_ablation, timeout, _ablation_error, forbid=forbid)
    if result.key.startswith("forbidden_call") and result.fields.get("what", "").endswith(".attention_mask"):
        again = run_cases("ablation_accuracy", fn, cases, _judge_ablation, timeout, _ablation_error)
        if again.key == "ablate_nothing" or "ablate_nothing" in again.fields.get("matches", ()):
            return dataclasses.replace(again, key="ablate_nothing")
    return _told_apart(fn, cases, result, timeout)


def check_ablation_accuracy(fn, model=None, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("attention_mask",)):
    """fn: (params, config, split, hidden [B]) -> float: the share of `split` answered right when, in sentence b,
    no query of either layer may read position hidden[b].

    `model`: the result of `train(...)` to check on (default: seed 0, trained here once, about 8 s).
    attn_lib.models.tiny_model.attention_mask (and so `ablation_accuracy`) is forbidden; `accuracy(...,
    mask=...)` and attn_lib.causal_mask are allowed. Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_ablation_accuracy_checks(fn, model, timeout, forbid), lang)
