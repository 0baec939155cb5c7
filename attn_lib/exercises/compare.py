"""Comparing a learner's result with the answer, and the words of a finding: the diagnosis machinery's core.

`attn_lib.exercises.diagnose` runs the learner's function and calls the judges; the judges (in the checker
modules and `attn_lib.exercises.mistakes`) compare with the functions here. A value passes when it is close
to the answer within RTOL and ATOL, loose enough for float32 and tight enough for any mistake; a result in
a coarser dtype (float16) is compared within its own precision instead (`compared_within`), and the
verdict says so. Numbers in a message get as many digits as tell them apart, so that no message reads
"sums to 1, not 1".

The verdict cannot be bent from the learner's kernel: whether a value passes is decided with private
references to numpy's functions, taken when this module is imported, so a cell that later replaces
`np.allclose`, `np.isclose`, `np.array_equal`, `np.asarray`, ... changes nothing here.
"""

import contextlib
import contextvars
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from attn_lib.i18n import t

# private references: a learner's `np.allclose = lambda *a, **k: True` does not reach them
_allclose, _array_equal, _asarray, _broadcast_to = np.allclose, np.array_equal, np.asarray, np.broadcast_to
_float64, _isclose = np.float64, np.isclose

RTOL, ATOL = 1e-4, 1e-6  # loose enough for a correct float32 implementation, tight enough for any mistake
#: A result in a dtype coarser than float32 (float16) is compared within this many of its own epsilons instead.
PRECISION_EPSILONS = 16
_tolerance = contextvars.ContextVar("attn_lib_exercises_tolerance", default=(RTOL, ATOL))


class Word(str):
    """A message field that is itself an i18n key ("exercises.word_weights"), translated when shown."""


RESULT, OUTPUT, WEIGHTS = Word("exercises.word_result"), Word("exercises.word_output"), Word("exercises.word_weights")
EXPECT_ARRAY = Word("exercises.expect_array")


@dataclass(frozen=True)
class Finding:
    """What went wrong: an i18n key without the "exercises." prefix, and the fields of its message."""

    key: str
    fields: dict = field(default_factory=dict)


# --- reduced precision ---------------------------------------------------------------------------


def precision_tolerance(dtype):
    """The rtol (= atol) a result of `dtype` is compared within: PRECISION_EPSILONS of its epsilon, at least RTOL."""
    return max(RTOL, PRECISION_EPSILONS * float(np.finfo(dtype).eps))


def precision_note(dtype, lang):
    """The sentence added to a verdict when the function computed in `dtype` (float16); "" when `dtype` is ""."""
    return t("exercises.precision_note", lang, **precision_fields(dtype)) if dtype else ""


def reduced_precision(value):
    """The name of the floating dtype coarser than float32 that `value` (or an array in it) has, else "".

    Looks into tuples, lists and dict values (a few levels), numpy arrays and scalars, and array-likes such
    as a torch tensor (through np.asarray).
    """
    stack, seen = [value], 0
    while stack and seen < 64:
        item, seen = stack.pop(), seen + 1
        if isinstance(item, (list, tuple)):
            stack.extend(item[:8])
        elif isinstance(item, dict):
            stack.extend(list(item.values())[:8])
        elif isinstance(item, (np.ndarray, np.generic)) or hasattr(item, "__array__"):
            try:
                dtype = item.dtype if isinstance(item, (np.ndarray, np.generic)) else _asarray(item).dtype
            except (TypeError, ValueError, RuntimeError):
                continue
            if dtype.kind == "f" and np.finfo(dtype).eps > np.finfo(np.float32).eps:
                return dtype.name
    return ""


def precision_fields(dtype):
    digits = int(-math.log10(np.finfo(dtype).eps))  # float16: 3
    return {"dtype": dtype, "digits": digits, "tolerance": fmt(precision_tolerance(dtype))}


@contextlib.contextmanager
def compared_within(dtype):
    """matches() and difference() compare within `dtype`'s precision here (the default tolerance when `dtype` is "")."""
    if not dtype:
        yield
        return
    tol = precision_tolerance(dtype)
    token = _tolerance.set((tol, tol))
    try:
        yield
    finally:
        _tolerance.reset(token)


def describe(value):
    """A short, language-neutral description of a returned value: its type, and dtype/shape for arrays."""
    if value is None:
        return "None"
    if isinstance(value, np.ndarray):
        return f"ndarray(dtype={value.dtype}, shape={value.shape})"
    if isinstance(value, (list, tuple)):
        return f"{type(value).__name__} of length {len(value)}"
    return f"{type(value).__name__} {value!r}"[:60]


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
    rtol, atol = _tolerance.get()
    return bool(_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True))


def same(got, expected):
    """True if the arrays have the same shape and entries (np.array_equal, through a private reference)."""
    return bool(_array_equal(got, expected))


def fmt(value):
    """A number for a message: booleans as True/False, floats with 4 significant digits."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4g}"


def fmt_pair(value, other):
    """(value, other) for a message that sets them side by side: fmt's 4 digits, or as many more as tell them apart."""
    shown = (fmt(value), fmt(other))
    digits = 4
    while shown[0] == shown[1] and digits < 17 and float(value) != float(other):
        digits += 1
        shown = (f"{float(value):.{digits}g}", f"{float(other):.{digits}g}")
    return shown


def fmt_apart(value, other):
    """`value` for a message that compares it with `other` ("sums to {value}, not 1"): never shown as `other`."""
    return fmt_pair(value, other)[0]


def index_text(index):
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def difference(got, expected, what=RESULT):
    """The generic finding for a wrong value: NaN/inf where the reference is finite, else the first mismatch."""
    got, expected = _asarray(got, dtype=_float64), _asarray(expected, dtype=_float64)
    bad = ~np.isfinite(got) & np.isfinite(expected)
    if bad.any():
        index = np.argwhere(bad)[0]
        return Finding("not_finite", {"what": what, "index": index_text(index), "got": fmt(got[tuple(index)])})
    rtol, atol = _tolerance.get()
    close = _isclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    index = tuple(np.argwhere(~close)[0]) if (~close).any() else (0,) * got.ndim
    shown = fmt_pair(expected[index], got[index])  # close, but not close enough: as many digits as tell them apart
    fields = {"what": what, "index": index_text(index), "expected": shown[0], "got": shown[1]}
    return Finding("wrong_values", fields)


def wrong_shape(got, expected, what=RESULT):
    return Finding("wrong_shape", {"what": what, "expected": str(tuple(expected)), "got": str(tuple(got))})


def numbers_judge(diagnose):
    """A judge for run_cases from a diagnosis: the answer as numbers (as_numbers), of case.expected's shape, and
    None when it matches; only a wrong answer of the right shape reaches diagnose(case, got) -> Finding."""

    def judge(case, value, notes):
        got, finding = as_numbers(value, notes)
        if finding:
            return finding
        if got.shape != case.expected.shape:
            return wrong_shape(got.shape, case.expected.shape)
        return None if matches(got, case.expected) else diagnose(case, got)

    return judge


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
