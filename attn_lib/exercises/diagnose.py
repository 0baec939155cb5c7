"""The machinery behind `attn_lib.exercises`: run a learner's function safely, compare, explain.

A learner's function may be an untouched stub, raise, loop forever, or return a list, None or NaN.
`run_cases` runs it on each `Case` in a thread with a time limit and turns every outcome into a
`Result`: passed, or the first failing case with a diagnosis (an i18n key plus the fields of its
message). Messages are rendered only when asked for, in the language asked for, so one `Result`
can be shown in English and in Chinese. Nothing here prints; the checker modules beside this one do.
The watch for attn_lib functions an exercise forbids lives in `attn_lib.exercises.forbid`; the classic
mistakes, written as formulas to compare a wrong answer with, in `attn_lib.exercises.mistakes`.

The verdict cannot be bent from the learner's kernel: whether a value passes is decided with
private references to numpy's functions, taken when this module is imported, so a cell that later
replaces `np.allclose`, `np.isclose`, `np.array_equal`, `np.asarray`, ... changes nothing here.
"""

import numbers
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from attn_lib.exercises.forbid import Watch
from attn_lib.i18n import check_language, get_language, t

# private references: a learner's `np.allclose = lambda *a, **k: True` does not reach them
_allclose, _array_equal, _asarray, _broadcast_to = np.allclose, np.array_equal, np.asarray, np.broadcast_to
_errstate, _float64, _isclose = np.errstate, np.float64, np.isclose

RTOL, ATOL = 1e-4, 1e-6  # loose enough for a correct float32 implementation, tight enough for any mistake
DEFAULT_TIMEOUT = 5.0  # seconds per call; every input the checkers use is tiny


class Word(str):
    """A message field that is itself an i18n key ("exercises.word_weights"), translated when shown."""


RESULT, OUTPUT, WEIGHTS = Word("exercises.word_result"), Word("exercises.word_output"), Word("exercises.word_weights")
EXPECT_ARRAY = Word("exercises.expect_array")


@dataclass(frozen=True)
class Finding:
    """What went wrong: an i18n key without the "exercises." prefix, and the fields of its message."""

    key: str
    fields: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Case:
    """One input for the learner's function: fn(*args, **kwargs) should give `expected`."""

    kind: str  # i18n key of the case label, without the prefix: "case_random", "case_large", ...
    shapes: str  # the inputs in symbols, e.g. "q (3, 4), k (5, 4)"
    args: tuple
    kwargs: dict
    expected: object


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

    def message(self, lang=None):
        """The diagnosis (or the list of what was checked) in `lang`, without the ✓/✗ frame."""
        fields = {name: t(value, lang) if isinstance(value, Word) else value for name, value in self.fields.items()}
        return t(f"exercises.{self.key}", lang, **fields)

    def verdict(self, lang=None):
        """One line: ✓ with what was checked, or ✗ with the first failing case and the diagnosis."""
        lang = get_language() if lang is None else lang
        title = t(f"exercises.title_{self.exercise}", lang)
        if self.ok:
            checked = t("exercises.list_sep", lang).join(t(f"exercises.{kind}", lang) for kind in self.checked)
            line = t("exercises.passed", lang, title=title, count=self.fields["count"], checked=checked)
            return line + (t("exercises.converted_note", lang, type=self.converted) if self.converted else "")
        if self.case is None:
            return t("exercises.failed_plain", lang, title=title, diagnosis=self.message(lang))
        case, diagnosis = t(f"exercises.{self.case.kind}", lang), self.message(lang)
        return t("exercises.failed", lang, title=title, case=case, shapes=self.case.shapes, diagnosis=diagnosis)


# --- running the learner's function -------------------------------------------------------------


@dataclass
class Outcome:
    """What one call of the learner's function did."""

    value: object = None
    error: BaseException | None = None
    timed_out: bool = False


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


def call_learner(fn, case, timeout, watch=None):
    """Run fn(*case.args, **case.kwargs) in a thread; give up waiting after `timeout` seconds.

    The inputs are copies, so a function that edits its arguments in place cannot spoil the
    reference. Floating-point warnings are silenced: an overflow is diagnosed from the result.
    A function that never returns keeps running in its (daemon) thread; Python cannot stop it.
    `watch` (an `attn_lib.exercises.forbid.Watch`) notes any forbidden attn_lib function the call runs.
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
            sys.setprofile(None)

    worker = threading.Thread(target=target, name="attn_lib-exercise", daemon=True)
    worker.start()
    worker.join(timeout)
    outcome.timed_out = worker.is_alive()
    return outcome


def describe(value):
    """A short, language-neutral description of a returned value: its type, and dtype/shape for arrays."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"ndarray(dtype={value.dtype}, shape={value.shape})"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:60]


def error_text(exc):
    """`ValueError: first line of the message`, shortened."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    detail = detail if len(detail) <= 90 else detail[:87] + "..."
    return f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__


def run_cases(exercise, fn, cases, judge, timeout=DEFAULT_TIMEOUT, on_error=None, forbid=()):
    """Run `fn` on every case, stop at the first failure, and return the `Result`.

    judge(case, value, notes) -> Finding or None compares one returned value with case.expected
    (it may add "converted:<type>" to the set `notes`); on_error(case, exc, passed) -> Finding or
    None may recognise a typical exception (`passed`: the cases that passed before this one).
    `forbid`: names of attn_lib functions the learner's code must not run (see attn_lib.exercises.forbid).
    """
    watch = Watch(forbid)  # checks `forbid` before anything runs
    timeout = check_timeout(timeout)
    if not callable(fn):
        return Result(False, exercise, "not_callable", {"got": describe(fn)})
    notes = set()
    for index, case in enumerate(cases):
        outcome = call_learner(fn, case, timeout, watch)
        if outcome.timed_out:
            finding = Finding("timeout", {"seconds": f"{timeout:g}"})
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
        else:
            try:
                finding = judge(case, outcome.value, notes)
            except Exception as exc:  # a bug in the checker itself still gets a one-line verdict
                finding = Finding("checker_error", {"error": error_text(exc)})
        if finding is not None:
            return Result(False, exercise, finding.key, finding.fields, case)
    kinds = tuple(dict.fromkeys(case.kind for case in cases))
    converted = ", ".join(sorted(note.removeprefix("converted:") for note in notes if note.startswith("converted:")))
    return Result(True, exercise, "passed", {"count": len(cases)}, None, kinds, converted)


# --- comparing ----------------------------------------------------------------------------------


def type_name(value):
    """`list`, `tuple`, `torch.Tensor`: the type of a value, with its package unless it is built in."""
    package = type(value).__module__.split(".")[0]
    return type(value).__name__ if package == "builtins" else f"{package}.{type(value).__name__}"


def as_numbers(value, notes, what=RESULT):
    """The returned value as a float array, or a Finding saying why it is not one.

    Lists, tuples and other array-likes (a torch tensor) of numbers are accepted and converted with
    np.asarray (noted in `notes` with their type, and said in the ✓ verdict); None, strings,
    booleans, complex or ragged data are rejected.
    """
    if not isinstance(value, (np.ndarray, np.generic, numbers.Real)) or isinstance(value, bool):
        if not isinstance(value, (list, tuple)) and not hasattr(value, "__array__"):
            return None, Finding("wrong_type", {"what": what, "got": describe(value), "expected": EXPECT_ARRAY})
        notes.add(f"converted:{type_name(value)}")
    try:
        array = _asarray(value)
    except (ValueError, TypeError, RuntimeError):
        array = None
    if array is None or array.dtype.kind not in "iuf":
        return None, Finding("wrong_type", {"what": what, "got": describe(value), "expected": EXPECT_ARRAY})
    return array.astype(_float64), None


def matches(got, expected, care=None):
    """True if `got` equals `expected`: same shape, NaN/inf in the same places, finite values close.

    `care` (boolean, broadcastable to the shape) restricts the comparison to some entries.
    """
    got, expected = _asarray(got, dtype=_float64), _asarray(expected, dtype=_float64)
    if got.shape != expected.shape:
        return False
    if care is not None:
        care = _broadcast_to(care, got.shape)
        got, expected = got[care], expected[care]
    return bool(_allclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True))


def same(got, expected):
    """True if the arrays have the same shape and entries (np.array_equal, through a private reference)."""
    return bool(_array_equal(got, expected))


def fmt(value):
    """A number for a message: booleans as True/False, floats with 4 significant digits."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def index_text(index):
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def difference(got, expected, what=RESULT):
    """The generic finding for a wrong value: NaN/inf where the reference is finite, else the first mismatch."""
    got, expected = _asarray(got, dtype=_float64), _asarray(expected, dtype=_float64)
    bad = ~np.isfinite(got) & np.isfinite(expected)
    if bad.any():
        index = np.argwhere(bad)[0]
        return Finding("not_finite", {"what": what, "index": index_text(index), "got": fmt(got[tuple(index)])})
    close = _isclose(got, expected, rtol=RTOL, atol=ATOL, equal_nan=True)
    index = tuple(np.argwhere(~close)[0]) if (~close).any() else (0,) * got.ndim
    shown = (fmt(expected[index]), fmt(got[index]))
    if shown[0] == shown[1]:  # close, but not close enough: show more digits
        shown = (f"{expected[index]:.8g}", f"{got[index]:.8g}")
    fields = {"what": what, "index": index_text(index), "expected": shown[0], "got": shown[1]}
    return Finding("wrong_values", fields)


def wrong_shape(got, expected, what=RESULT):
    return Finding("wrong_shape", {"what": what, "expected": str(tuple(expected)), "got": str(tuple(got))})


def output_and_weights(value, expected, notes, shapes=True):
    """(output, weights) as float arrays of the shapes of `expected` (a pair of arrays), or a Finding.

    The findings: not a pair; the pair returned in the other order (weights first); a wrong shape
    (unless `shapes=False`: the caller diagnoses wrong shapes itself, e.g. an output not summed).
    """
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        return None, Finding("not_pair", {"got": describe(value)})
    output, finding = as_numbers(value[0], notes, OUTPUT)
    weights, finding = (None, finding) if finding else as_numbers(value[1], notes, WEIGHTS)
    if finding:
        return None, finding
    swapped = output.shape == expected[1].shape and weights.shape == expected[0].shape
    if swapped and (output.shape != weights.shape or matches(output, expected[1]) and matches(weights, expected[0])):
        return None, Finding("attn_pair_order")
    if shapes and weights.shape != expected[1].shape:
        return None, wrong_shape(weights.shape, expected[1].shape, WEIGHTS)
    if shapes and output.shape != expected[0].shape:
        return None, wrong_shape(output.shape, expected[0].shape, OUTPUT)
    return (output, weights), None


def as_mask_pattern(value, expected, notes, inverted=None):
    """The returned mask as booleans (True = may attend) of `expected`'s shape, or a Finding.

    The findings: not an array of numbers or booleans; a wrong shape; numbers that hold the right pattern
    (an additive mask, 0 = may attend and -inf = hidden; 0/1 numbers); with `inverted` (a finding's key,
    whose message names the exercise's pattern), an additive mask with the pattern inverted.
    """
    if isinstance(value, (list, tuple)):
        notes.add(f"converted:{type_name(value)}")
    try:
        got = np.asarray(value)
    except (ValueError, TypeError):
        got = None
    if got is None or got.dtype.kind not in "biuf":
        return None, Finding(
            "wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_bool_array")}
        )
    if got.shape != expected.shape:
        return None, wrong_shape(got.shape, expected.shape)
    if got.dtype.kind != "b":
        additive = bool((got <= 0).all() and (got < 0).any())  # 0 = may attend, -inf (or -1e9) = hidden
        pattern = got == 0 if additive else got != 0  # True = may attend
        if additive and same(pattern, expected):
            return None, Finding("mask_additive")
        if additive and inverted and same(pattern, ~expected):
            return None, Finding(inverted)
        if not additive and same(pattern, expected):
            return None, Finding("mask_not_bool", {"dtype": str(got.dtype)})
        got = pattern
    return got, None


def report(result, lang):
    """Print the verdict line of `result` in `lang` (checked first); True if every check passed."""
    print(result.verdict(None if lang is None else check_language(lang)))
    return result.ok


def proportional(got, base):
    """The factor c if `got` equals c * `base` (all finite), else None."""
    if got.shape != base.shape or not np.isfinite(got).all() or not np.any(base):
        return None
    factor = float(np.sum(got * base) / np.sum(base * base))
    return factor if matches(got, factor * base) else None


def first_match(got, candidates, care=None):
    """The Finding of the first candidate whose values `got` matches.

    `candidates`: (key, fields, make) triples; make() computes the wrong-but-typical result lazily.
    """
    for key, fields, make in candidates:
        try:
            with np.errstate(all="ignore"):
                candidate = make()
        except ValueError:  # e.g. attn_lib.softmax refusing an overflowed candidate: not this mistake
            continue
        if matches(got, candidate, care):
            return Finding(key, fields)
    return None


def axes_order(got_shape, expected_shape, names):
    """The axis names in the order `got_shape` has them, if it is a permutation of `expected_shape`.

    Only meaningful when the expected sizes are all different, which the checkers arrange.
    """
    if len(set(expected_shape)) != len(expected_shape) or sorted(got_shape) != sorted(expected_shape):
        return None
    return "[" + ", ".join(names[list(expected_shape).index(size)] for size in got_shape) + "]"


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
