"""The machinery behind `attn_lib.exercises`: run a learner's function safely, then judge what it returned.

A learner's function may be an untouched stub, raise, loop forever, or return a list, None or NaN.
`run_cases` runs it on each `Case` in a thread with a time limit and turns every outcome into a
`Result`: passed, or the first failing case with a diagnosis (an i18n key plus the fields of its
message). Messages are rendered only when asked for, in the language asked for, so one `Result`
can be shown in English and in Chinese. Nothing here prints; the checker modules beside this one do.
Comparing a value with the answer (tolerances, float16's own precision, the first difference) lives in
`attn_lib.exercises.compare`; the watch for attn_lib functions an exercise forbids in
`attn_lib.exercises.forbid`; the classic mistakes, written as formulas to compare a wrong answer with,
in `attn_lib.exercises.mistakes`.

A case's answer is computed only after the learner's call has returned (`Reference`), from the case's
own inputs; what a learner's code can still do to a check is listed in `attn_lib.exercises.forbid`.
"""

import numbers
import sys
import threading
from dataclasses import dataclass, field, replace

import numpy as np

from attn_lib.exercises.compare import (
    Finding,
    Word,
    compared_within,
    describe,
    precision_fields,
    precision_note,
    reduced_precision,
)
from attn_lib.exercises.forbid import Watch
from attn_lib.i18n import check_language, get_language, t

_array_equal, _errstate = np.array_equal, np.errstate  # private references, as in compare

DEFAULT_TIMEOUT = 5.0  # seconds per call; every input the checkers use is tiny


@dataclass(frozen=True)
class Reference:
    """How a case's answer is computed: fn(*case.args, **case.kwargs), only once the learner's call has returned.

    So the answer is nowhere in memory while the learner's function runs (a function that looks through the
    checker's frames finds the inputs and this recipe, not the answer).
    """

    fn: object


@dataclass(frozen=True)
class Case:
    """One input for the learner's function: fn(*args, **kwargs) should give `expected`."""

    kind: str  # i18n key of the case label, without the prefix: "case_random", "case_large", ...
    shapes: str  # the inputs in symbols, e.g. "q (3, 4), k (5, 4)"
    args: tuple
    kwargs: dict
    expected: object  # the answer, or a Reference that computes it after the call (see `resolved`)


def _rounded(value, dtype):
    """A float array rounded to `dtype` and back to its own dtype (other values unchanged)."""
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return value.astype(dtype).astype(value.dtype)
    return value


def resolved(case, dtype=""):
    """`case` with its answer computed; with `dtype` ("float16"), from its float inputs rounded to `dtype` first.

    The rounded inputs are what a function that computes in `dtype` actually sees, so its result can then
    be compared with the formula evaluated on them.
    """
    if not isinstance(case.expected, Reference):
        return case
    args, kwargs = case.args, case.kwargs
    if dtype:
        args = tuple(_rounded(a, dtype) for a in args)
        kwargs = {name: _rounded(value, dtype) for name, value in kwargs.items()}
    return replace(case, args=args, kwargs=kwargs, expected=case.expected.fn(*args, **kwargs))


@dataclass(frozen=True)
class Result:
    """The outcome of one exercise check; `verdict(lang)` is the line the check_* functions print."""

    ok: bool
    exercise: str  # "softmax", "attention", ... (i18n key "exercises.title_<exercise>")
    key: str  # the diagnosis key without the "exercises." prefix; "passed" when ok
    fields: dict = field(default_factory=dict)
    case: Case | None = None  # the first failing case (None when ok or when no case is involved)
    checked: tuple = ()  # the kinds of case that were run, each once, in order
    converted: str = ""  # the type(s) the function returned instead of arrays ("list"), converted with np.asarray
    precision: str = ""  # "float16" when the function returned a dtype coarser than float32, compared within its own

    def message(self, lang=None):
        """The diagnosis (or the list of what was checked) in `lang`, without the ✓/✗ frame."""
        fields = {name: t(value, lang) if isinstance(value, Word) else value for name, value in self.fields.items()}
        return t(f"exercises.{self.key}", lang, **fields)

    def verdict(self, lang=None):
        """One line: ✓ with what was checked, or ✗ with the first failing case and the diagnosis."""
        lang = get_language() if lang is None else lang
        title = t(f"exercises.title_{self.exercise}", lang)
        note = precision_note(self.precision, lang)
        if self.ok:
            checked = t("exercises.list_sep", lang).join(t(f"exercises.{kind}", lang) for kind in self.checked)
            line = t("exercises.passed", lang, title=title, count=self.fields["count"], checked=checked)
            return line + (t("exercises.converted_note", lang, type=self.converted) if self.converted else "") + note
        if self.case is None:
            return t("exercises.failed_plain", lang, title=title, diagnosis=self.message(lang)) + note
        case, diagnosis = t(f"exercises.{self.case.kind}", lang), self.message(lang)
        line = t("exercises.failed", lang, title=title, case=case, shapes=self.case.shapes, diagnosis=diagnosis)
        return line + note


def _within_float16(case, value, judge):
    """True if a float32/float64 `value` that failed passes as a float16 result would: rounding, not the formula."""
    try:
        with compared_within("float16"), _errstate(all="ignore"):
            return isinstance(case.expected, Reference) and judge(resolved(case, "float16"), value, set()) is None
    except Exception:  # e.g. attn_lib refusing the rounded inputs: not a question of precision
        return False


# --- running the learner's function -------------------------------------------------------------


@dataclass
class Outcome:
    """What one call of the learner's function did."""

    value: object = None
    error: BaseException | None = None
    timed_out: bool = False
    changed: bool = False  # the call changed an array it was given (in place)


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else value


def check_timeout(timeout):
    """`timeout` (seconds per call of the learner's function) as a float, or an error naming the rule."""
    if isinstance(timeout, (bool, np.bool_)) or not isinstance(timeout, numbers.Real):
        raise TypeError(
            f"timeout must be a number of seconds (e.g. timeout=5), got {describe(timeout)}"
            " (None is refused too: a function that never returns would hang the checker)"
        )
    if not 0 < float(timeout) < float("inf"):
        raise ValueError(f"timeout must be a positive, finite number of seconds (e.g. timeout=5), got {timeout!r}")
    return float(timeout)


def check_batched(batched):
    """`batched` as a bool (True: also run the cases with leading batch axes), or a TypeError naming it."""
    if not isinstance(batched, (bool, np.bool_)):
        raise TypeError(f"batched must be True or False, got {describe(batched)}")
    return bool(batched)


def call_learner(fn, case, timeout, watch=None, compare=False):
    """Run fn(*case.args, **case.kwargs) in a thread; give up waiting after `timeout` seconds.

    The inputs are copies, so a function that edits its arguments in place cannot spoil the
    reference. Floating-point warnings are silenced: an overflow is diagnosed from the result.
    A function that never returns keeps running in its (daemon) thread; Python cannot stop it.
    `watch` (an `attn_lib.exercises.forbid.Watch`) notes any forbidden attn_lib function the call runs.
    With `compare`, `changed` says whether the call changed one of the arrays it was given.
    """
    outcome = Outcome()
    args = tuple(_copy(a) for a in case.args)
    kwargs = {name: _copy(value) for name, value in case.kwargs.items()}

    def target():
        try:
            if watch:
                watch.start(sys._getframe())
            with _errstate(all="ignore"):
                outcome.value = fn(*args, **kwargs)
        except BaseException as exc:  # anything the learner's code raises becomes a verdict, not a traceback
            outcome.error = exc
        finally:
            if watch:
                watch.finish()
            sys.setprofile(None)

    worker = threading.Thread(target=target, name="attn_lib-exercise", daemon=True)
    worker.start()
    worker.join(timeout)
    if watch:
        watch.stop()
    outcome.timed_out = worker.is_alive()
    if compare and not outcome.timed_out:
        given = (*case.args, *case.kwargs.values())
        copies = (*args, *kwargs.values())
        outcome.changed = any(
            isinstance(a, np.ndarray) and not _array_equal(a, c, equal_nan=a.dtype.kind in "fc")
            for a, c in zip(given, copies, strict=True)
        )
    return outcome


def error_text(exc):
    """`ValueError: first line of the message`, shortened."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    detail = detail if len(detail) <= 90 else detail[:87] + "..."
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def _private_references(cases):
    """The checker's own private answer functions (`Reference(_grouped)`): no learner's code may call them."""
    functions = {case.expected.fn for case in cases if isinstance(case.expected, Reference)}
    return tuple(fn for fn in functions if getattr(fn, "__name__", "").startswith("_") and hasattr(fn, "__code__"))


def run_cases(
    exercise, fn, cases, judge, timeout=DEFAULT_TIMEOUT, on_error=None, forbid=(), in_place=None, references=()
):
    """Run `fn` on every case, stop at the first failure, and return the `Result`.

    judge(case, value, notes) -> Finding or None compares one returned value with case.expected
    (it may add "converted:<type>" to the set `notes`); on_error(case, exc, passed) -> Finding or
    None may recognise a typical exception (`passed`: the cases that passed before this one).
    `forbid`: names of attn_lib functions the learner's code must not run (see attn_lib.exercises.forbid).
    `in_place`: the finding's key for a call that changes an array it was given (None: not checked).
    `references`: the checker's own private helpers that compute the answer's core (a grouped attention the
    cases' Reference calls), watched like the Reference functions themselves, whatever `forbid` says.
    """
    watch = Watch(forbid, _private_references(cases) + tuple(references))  # checks `forbid` before anything runs
    timeout = check_timeout(timeout)
    if not callable(fn):
        return Result(False, exercise, "not_callable", {"got": describe(fn)})
    notes, precision = set(), set()
    for index, case in enumerate(cases):
        outcome = call_learner(fn, case, timeout, watch, compare=bool(in_place))
        if outcome.timed_out:
            finding = Finding("timeout", {"seconds": f"{timeout:g}"})
        elif watch.tampered:  # the watch was switched off: nothing it did not see can be trusted
            return Result(False, exercise, "watch_tampered")
        elif watch.found:  # whatever it returned: this exercise asks for the learner's own code
            key = "forbidden_call" if watch.found["name"] == watch.found["what"] else "forbidden_call_inside"
            return Result(False, exercise, key, dict(watch.found))
        elif isinstance(outcome.error, NotImplementedError) or (outcome.error is None and outcome.value is None):
            finding = Finding("not_implemented" if index == 0 else "partly_implemented")
            if index == 0:
                return Result(False, exercise, finding.key)
        elif outcome.error is not None:
            hint = on_error(case, outcome.error, cases[:index]) if on_error else None
            finding = hint or Finding("raised", {"error": error_text(outcome.error)})
        elif in_place and outcome.changed:
            finding = Finding(in_place)
        else:
            reduced = reduced_precision(outcome.value)  # float16: compared within float16's precision, and said so
            precision.update({reduced} - {""})
            try:
                with compared_within(reduced):
                    finding = judge(resolved(case, reduced), outcome.value, notes)
                if finding is not None and not reduced and _within_float16(case, outcome.value, judge):
                    finding = Finding("precision_loss", precision_fields("float16"))
            except Exception as exc:  # a bug in the checker itself still gets a one-line verdict
                finding = Finding("checker_error", {"error": error_text(exc)})
        if finding is not None:
            return Result(False, exercise, finding.key, finding.fields, case, precision=", ".join(sorted(precision)))
    kinds = tuple(dict.fromkeys(case.kind for case in cases))
    converted = ", ".join(sorted(note.removeprefix("converted:") for note in notes if note.startswith("converted:")))
    return Result(True, exercise, "passed", {"count": len(cases)}, None, kinds, converted, ", ".join(sorted(precision)))


def report(result, lang):
    """Print the verdict line of `result` in `lang` (checked first); True if every check passed."""
    print(result.verdict(None if lang is None else check_language(lang)))
    return result.ok


def batch_error(key):
    """on_error hook: an exception on a batch case, after the unbatched cases passed, gets `key`.

    On a batch with a mask (after the batch without one passed) it gets "batch_mask" instead, and on
    inputs with two leading axes [B, h, n, d_k] (after a batch [B, n, d_k] passed) "batch_heads".
    """

    def on_error(case, exc, passed):
        if case.kind.startswith("case_batch") and passed and isinstance(exc, (ValueError, TypeError, IndexError)):
            one_batch_passed = any(c.kind in ("case_batch", "case_batch_mask") for c in passed)
            if case.kind.startswith("case_batch_heads") and one_batch_passed:
                return Finding("batch_heads", {"error": error_text(exc)})
            return Finding("batch_mask" if case.kind == "case_batch_mask" else key, {"error": error_text(exc)})
        if isinstance(exc, TypeError) and "mask" in str(exc):
            return Finding("mask_argument", {"error": error_text(exc)})
        return None

    return on_error
