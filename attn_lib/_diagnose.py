"""The machinery behind `attn_lib.exercises`: run a learner's function safely, compare, explain.

A learner's function may be an untouched stub, raise, loop forever, or return a list, None or NaN.
`run_cases` runs it on each `Case` in a thread with a time limit and turns every outcome into a
`Result`: passed, or the first failing case with a diagnosis (an i18n key plus the fields of its
message). Messages are rendered only when asked for, in the language asked for, so one `Result`
can be shown in English and in Chinese. Nothing here prints; the checkers in exercises.py do.
The watch for attn_lib functions an exercise forbids lives in `attn_lib._forbid`.

The verdict cannot be bent from the learner's kernel: whether a value passes is decided with
private references to numpy's functions, taken when this module is imported, so a cell that later
replaces `np.allclose`, `np.isclose`, `np.array_equal`, `np.asarray`, ... changes nothing here.
"""

import numbers
import sys
import threading
from dataclasses import dataclass, field

import numpy as np

from attn_lib._forbid import Watch
from attn_lib.core import softmax
from attn_lib.i18n import check_language, get_language, t
from attn_lib.multihead import merge_heads, split_heads

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


def call_learner(fn, case, timeout, watch=None):
    """Run fn(*case.args, **case.kwargs) in a thread; give up waiting after `timeout` seconds.

    The inputs are copies, so a function that edits its arguments in place cannot spoil the
    reference. Floating-point warnings are silenced: an overflow is diagnosed from the result.
    A function that never returns keeps running in its (daemon) thread; Python cannot stop it.
    `watch` (an `attn_lib._forbid.Watch`) notes any forbidden attn_lib function the call runs.
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
    `forbid`: names of attn_lib functions the learner's code must not run (see attn_lib._forbid).
    """
    watch = Watch(forbid)  # checks `forbid` before anything runs
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


# --- the classic mistakes, written as formulas and compared with the learner's result ----------


def swap_last(a):
    """k -> kᵀ for a batch: swap only the last two axes."""
    return np.swapaxes(a, -1, -2)  # [..., m, n] -> [..., n, m]


def scale_candidates(make, d_k, dims):
    """(key, fields, make) for the typical wrong scale factors; make(c) builds the result for factor c."""
    candidates = [
        ("scale_missing", {"sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(1.0)),
        ("scale_dk", {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(1.0 / d_k)),
        ("scale_inverted", {"sqrt_dk": fmt(np.sqrt(d_k))}, lambda: make(np.sqrt(d_k))),
    ]
    for name, size in dims.items():
        if size not in (1, d_k):
            fields = {"name": name, "value": size, "d_k": d_k}
            candidates.append(("scale_dim", fields, lambda size=size: make(1.0 / np.sqrt(size))))
    return candidates


def softmax_mistake(x, got):
    """Which wrong softmax `got` is: no max subtracted, one max for the whole array, wrong axis, ..."""
    with np.errstate(all="ignore"):  # the wrong formulas overflow on purpose
        e = np.exp(x)
        shifted = np.exp(x - np.max(x, axis=-1, keepdims=True))
    candidates = [
        ("softmax_overflow", {}, lambda: e / e.sum(axis=-1, keepdims=True)),
        ("softmax_global_max", {}, lambda: np.exp(x - x.max()) / np.exp(x - x.max()).sum(axis=-1, keepdims=True)),
    ]
    candidates += [("softmax_axis", {"axis": a}, lambda a=a: softmax(x, axis=a)) for a in range(x.ndim - 1)]
    candidates += [
        ("softmax_sum_all", {}, lambda: shifted / shifted.sum()),
        ("softmax_sum_all", {}, lambda: e / e.sum()),
        ("softmax_not_normalised", {"total": fmt(shifted.sum(axis=-1).flat[0])}, lambda: shifted),
        ("softmax_not_normalised", {"total": fmt(e.sum(axis=-1).flat[0])}, lambda: e),
    ]
    return first_match(got, candidates)


def mask_pattern_mistake(got, n):
    """The finding for a boolean pattern that is not the lower triangle, or None."""
    ones = np.ones((n, n), dtype=bool)
    if same(got, ~np.tril(ones)):
        return Finding("mask_inverted")
    if same(got, np.triu(ones)):
        return Finding("mask_future")
    if same(got, np.tril(ones, k=-1)):
        return Finding("mask_no_diagonal")
    return None


def masked(scores, mask):
    """The scores with -inf where the boolean mask is False (unchanged when mask is None)."""
    return scores if mask is None else np.where(mask, scores, -np.inf)


def mask_use_mistake(got, scores, mask, visible):
    """Typical mistakes with the mask, recognised from the weights; None if the mask looks right."""
    finite = np.isfinite(got)
    leak = visible & ~mask & finite & (np.abs(got) > 1e-6)  # weight on a key the mask forbids
    if leak.any():
        candidates = [
            ("attn_mask_added", {}, lambda: softmax(scores + mask)),
            ("attn_mask_multiplied", {}, lambda: softmax(scores * mask)),
        ]
        found = first_match(got, candidates, visible)
        if found:
            return found
        i, j = np.argwhere(leak)[0][-2:]
        fields = {"i": int(i), "j": int(j), "w": fmt(got[tuple(np.argwhere(leak)[0])])}
        if matches(got, softmax(scores), visible):
            return Finding("attn_mask_ignored", fields)
        fill = finite_fill(got, scores, mask, visible)
        if fill is not None:
            return Finding("attn_mask_finite", {**fields, "fill": fmt(fill)})
        if np.all(np.abs(got[visible & mask & finite]) < 1e-6):
            return Finding("attn_mask_inverted", fields)
        return Finding("attn_mask_leak", fields)
    after = softmax(scores) * mask
    short = ~np.isclose(after.sum(axis=-1), 1) & visible[..., 0]  # rows that lost weight to the mask
    if short.any() and matches(got, after, visible):
        row = np.argwhere(short)[0]
        return Finding("attn_mask_after_softmax", {"row": int(row[-1]), "total": fmt(after[tuple(row)].sum())})
    return None


def finite_fill(got, scores, mask, visible):
    """c if `got` is the softmax of the scores with the masked ones set to the finite number c, else None.

    c is read off one row: a hidden key j and a shown key l have weights in the ratio e^(c - s_l).
    """
    hidden, shown = visible & ~mask & (got > 0), visible & mask & (got > 0)
    rows = np.argwhere(hidden.any(axis=-1) & shown.any(axis=-1))
    if not len(rows):
        return None
    row = tuple(rows[0])
    j, col = int(np.argmax(hidden[row])), int(np.argmax(shown[row]))
    with _errstate(all="ignore"):
        fill = float(scores[row][col] + np.log(got[row][j] / got[row][col]))
    if not np.isfinite(fill):
        return None
    return fill if matches(got, softmax(np.where(mask, scores, fill)), visible) else None


def hidden_weight(got, scores, mask):
    """The Finding for weights that match but give a hidden key a weight that is small, not exactly 0."""
    mask = _broadcast_to(mask, got.shape)
    nonzero = ~mask & (got != 0) & mask.any(axis=-1, keepdims=True)  # rows that see no key are judged elsewhere
    if not nonzero.any():
        return None
    index = tuple(np.argwhere(nonzero)[0])
    fields = {"i": int(index[-2]), "j": int(index[-1]), "w": f"{got[index]:.3g}"}
    fill = finite_fill(got, scores, mask, np.ones(got.shape, dtype=bool))
    fields["fill"] = Word("exercises.word_finite_number") if fill is None else fmt(fill)
    return Finding("attn_mask_finite", fields)


def attention_weights_mistake(case, got):
    """Why the weights `got` differ from case.expected: overflow, the fully masked row, the mask, the scale, ..."""
    q, k, v = case.args
    mask, expected = case.kwargs.get("mask"), case.expected[1]
    d_k = q.shape[-1]
    raw = q @ swap_last(k)  # [..., n_q, n_k]
    scores = raw / np.sqrt(d_k)
    visible = np.ones(expected.shape, dtype=bool)
    if mask is not None:
        visible = np.broadcast_to(np.any(mask, axis=-1, keepdims=True), expected.shape)  # rows that see a key
    bad = ~np.isfinite(got) & np.isfinite(expected)
    if case.kind == "case_large_scores" and bad.any():
        return Finding("attn_softmax_overflow")
    if case.kind == "case_masked_row" and matches(got, expected, visible):
        row = int(np.argwhere(~visible[..., 0])[0][-1])
        if np.isnan(got[..., row, :]).all():
            return Finding("attn_masked_row_nan", {"row": row})
        if np.allclose(got[..., row, :].sum(axis=-1), 1):
            return Finding("attn_masked_row_1e9", {"row": row, "n_k": k.shape[-2], "uniform": fmt(1 / k.shape[-2])})
    if mask is not None:
        found = mask_use_mistake(got, scores, np.broadcast_to(mask, expected.shape), visible)
        if found:
            return found
    candidates = scale_candidates(
        lambda c: softmax(masked(c * raw, mask)), d_k, {"n_q": q.shape[-2], "n_k": k.shape[-2], "d_v": v.shape[-1]}
    )
    candidates.append(("attn_softmax_axis", {}, lambda: softmax(masked(scores, mask), axis=-2)))
    found = first_match(got, candidates, visible)
    if found:
        return found
    sums = got.sum(axis=-1)
    off = np.isfinite(sums) & ~np.isclose(sums, 1) & visible[..., 0]
    if off.any():
        row = np.argwhere(off)[0]
        return Finding("attn_weights_not_normalised", {"row": int(row[-1]), "total": fmt(sums[tuple(row)])})
    return difference(got, expected, WEIGHTS)


def split_reshape_only(x, h):
    """The mistake: [..., n, d_model] reshaped straight to [..., h, n, d_k], mixing tokens across heads."""
    *batch, n, d_model = x.shape
    return x.reshape(*batch, h, n, d_model // h)


def split_interleaved(x, h):
    """The mistake: reshaping to [..., n, d_k, h], so that head i gets features i, i+h, i+2h, ..."""
    *batch, n, d_model = x.shape
    return np.moveaxis(x.reshape(*batch, n, d_model // h, h), -1, -3)  # [..., n, d_k, h] -> [..., h, n, d_k]


def mha_variant(x, w_q, w_k, w_v, w_o, h, mask, scale=None, split=split_heads, use_w_o=True, transpose=False):
    """Multi-head attention with one typical mistake switched on; -> (output, weights)."""
    if transpose:
        w_q, w_k, w_v, w_o = w_q.T, w_k.T, w_v.T, w_o.T
    q, k, v = split(x @ w_q, h), split(x @ w_k, h), split(x @ w_v, h)  # [..., h, n, d_k] each
    d_k = q.shape[-1]
    scores = q @ swap_last(k) * (1 / np.sqrt(d_k) if scale is None else scale)  # [..., h, n, n]
    weights = softmax(masked(scores, mask))  # [..., h, n, n]
    output = merge_heads(weights @ v)  # [..., h, n, d_k] -> [..., n, d_model]
    return (output @ w_o if use_w_o else output), weights
