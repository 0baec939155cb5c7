"""Your attention inside a real model: run a learner's function in every head of all-MiniLM-L6-v2.

``check_in_real_model(fn)`` takes the function of an earlier exercise — an attention function
``(q, k, v, mask=None) -> (output, weights)`` as in notebooks 04 and 05, or a multi-head function
``(x, w_q, w_k, w_v, w_o, n_heads, mask=None) -> (output, weights)`` as in notebook 06 — and lets it do
the attention of all 6 layers x 12 heads while the pretrained model embeds `SENTENCES` (the article's
sentences, padded to one batch, so the padding mask is used). It prints ONE line::

    ✓ your attention inside all-MiniLM-L6-v2: the 6 sentence embeddings match the model's own ...
    ✗ your attention inside all-MiniLM-L6-v2 — Each head was scaled by √d_model ... Inside the model: ...

A function passes when every sentence embedding has cosine >= `MIN_COSINE` to the model's own and
every attention weight (rows of real tokens) is within `MAX_WEIGHT_DIFF` of it (within float16's own
precision for a function that returns float16, which the verdict then says). The function is first
run by the exercise's small-input checker, whose diagnosis names the mistake; the model run then says
what the mistake does to the model, with the numbers measured. ``run_in_real_model_checks(fn)`` returns
the `ModelResult` without printing.

A multi-head function has no arguments for BERT's biases, so it is handed the layer's own queries, keys
and values directly: x holds one one-hot row per token and rows of w_q, w_k, w_v are those tokens' q, k
and v, so ``x @ w_q`` is exactly the layer's Q (biases included); w_o is the identity, the model applies
its own W_O and b_O afterwards (a missing W_O is therefore caught only by the small-input checker).
"""

import inspect
import math
from dataclasses import dataclass, field, replace
from functools import lru_cache

import numpy as np

from attn_lib.examples import ANIMAL_SENTENCE, SHANGHAI_SENTENCE, WEATHER_PROMPT
from attn_lib.exercises.attention import run_attention_checks
from attn_lib.exercises.compare import (
    OUTPUT,
    WEIGHTS,
    Finding,
    as_numbers,
    describe,
    fmt,
    precision_note,
    precision_tolerance,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Result, call_learner, check_timeout, error_text
from attn_lib.exercises.multihead import run_multi_head_checks
from attn_lib.i18n import check_language, get_language, t
from attn_lib.models.minilm.pretrained import load_minilm
from attn_lib.multihead import merge_heads, split_heads

#: The sentences the model embeds: the article's, and two English neighbours of its English example.
SENTENCES = (
    ANIMAL_SENTENCE,
    "The animal was too tired to cross the street",
    "The cat eats fish",
    "猫吃鱼",
    SHANGHAI_SENTENCE,
    WEATHER_PROMPT + "很好",
)
MIN_COSINE = 0.99999  # each sentence embedding against the model's own
MAX_WEIGHT_DIFF = 1e-4  # each attention weight of a real token's row against the model's own
# A mistake the small-input checker finds but MiniLM never meets: its padding never hides a whole row.
HARMLESS_HERE = ("attn_masked_row_1e9", "attn_masked_row_nan")
# Fields of the small-input diagnoses that are sizes: shown with the model's sizes instead.
_SIZE_FIELDS = ("d_k", "sqrt_dk", "sqrt_d_model")


@dataclass(frozen=True)
class ModelResult:
    """The outcome of `run_in_real_model_checks`; `verdict(lang)` is the line `check_in_real_model` prints."""

    ok: bool
    key: str  # "passed", the small-input diagnosis (an "exercises." key without prefix) or a "real_model." key
    small: object = None  # the small-input checker's Result (None if it was not run)
    problem: tuple | None = None  # (full i18n key, fields): what went wrong inside the model, if anything
    cosines: np.ndarray | None = None  # [b]: each sentence embedding against the model's own
    layer_differences: np.ndarray | None = None  # [L]: the largest attention-weight difference in each layer
    sizes: dict = field(default_factory=dict)  # the model's d_k, sqrt_dk, sqrt_d_model

    @property
    def max_weight_diff(self):
        """MAX_WEIGHT_DIFF, or the tolerance of the dtype the function computes in when it is float16."""
        precision = getattr(self.small, "precision", "")
        return precision_tolerance(precision) if precision else MAX_WEIGHT_DIFF

    @property
    def model_agrees(self):
        """True if the model ran and its embeddings and attention maps came out as the model's own."""
        if self.cosines is None:
            return False
        return bool(self.cosines.min() >= MIN_COSINE and self.layer_differences.max() <= self.max_weight_diff)

    def _small_message(self, lang):
        sizes = {name: self.sizes[name] for name in _SIZE_FIELDS if name in self.small.fields and name in self.sizes}
        return _message(self.small.key, {**self.small.fields, **sizes}, lang)

    def _effect(self, lang):
        """What happened inside the model, in words."""
        if self.problem is not None:
            key, fields = self.problem
            if "finding" in fields:  # a diagnosis of what the function returned inside the model
                finding = fields["finding"]
                fields = {**fields, "finding": _message(finding.key, finding.fields, lang)}
            return t(key, lang, **fields)
        if self.cosines is None:
            return ""
        bad = np.flatnonzero(self.layer_differences > self.max_weight_diff)
        layer = int(bad[0]) if bad.size else int(np.argmax(self.layer_differences))
        fields = {"cosine": _cosine_text(self.cosines.min()), "count": self.cosines.size, "layer": layer + 1}
        fields["diff"] = fmt(self.layer_differences[layer])
        if self.model_agrees:
            return t("real_model.effect_hidden", lang, **fields)
        if self.cosines.min() >= MIN_COSINE:  # the embeddings hold: only the weights are off
            return t("real_model.effect_weights", lang, **fields, allowed=fmt(self.max_weight_diff))
        return t("real_model.effect", lang, **fields)

    def verdict(self, lang=None):
        """One line: ✓ with the cosine, or ✗ with the diagnosis and what it does to the model."""
        lang = get_language() if lang is None else lang
        title = t("real_model.title", lang)
        if self.ok:
            fields = {"title": title, "count": self.cosines.size, "cosine": f"{self.cosines.min():.6f}"}
            # the tolerance, not the measured rounding noise: the same line on every machine (nbval)
            fields.update(diff=fmt(self.max_weight_diff), layers=self.layer_differences.size)
            note = t("real_model.harmless_note", lang) if not self.small.ok else ""
            return t("real_model.passed", lang, **fields) + note + precision_note(self.small.precision, lang)
        parts = []
        if self.small is not None and not self.small.ok:
            parts.append(self._small_message(lang))
        elif self.problem is None and self.cosines is not None:
            parts.append(t("real_model.differs", lang))
        parts.append(self._effect(lang))
        diagnosis = t("real_model.sep", lang).join(p for p in parts if p)
        return t("real_model.failed", lang, title=title, diagnosis=diagnosis) + precision_note(
            getattr(self.small, "precision", ""), lang
        )


def _cosine_text(cosine):
    """A cosine with 4 decimals, or as many more as it takes not to read as 1 or as MIN_COSINE when it is not."""
    for decimals in range(4, 10):
        text = f"{cosine:.{decimals}f}"
        if all(text != f"{other:.{decimals}f}" or cosine == other for other in (1.0, MIN_COSINE)):
            break
    return text


def _message(key, fields, lang):
    """The exercises' diagnosis `key` (without prefix) with `fields`, in `lang`."""
    return Result(False, "attention", key, fields).message(lang)


# --- which exercise the function comes from -----------------------------------------------------


_MULTI_HEAD_NAMES = {"w_q", "w_k", "w_v", "w_o", "n_heads", "num_heads", "h"}  # the notebook-06 signature
_ATTENTION_NAMES = ("q", "k", "v")


def function_kind(fn):
    """'multi_head' for (x, w_q, w_k, w_v, w_o, n_heads, mask=None), 'attention' for (q, k, v, mask=None), or None.

    Read from the parameters' names first (w_q ... n_heads: multi-head; q, k, v first: attention), then from
    how many positional parameters there are, defaults included (six or more: multi-head). None when the
    signature says nothing (f(*args, **kwargs), a builtin): the caller then tries both kinds.
    """
    try:
        parameters = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # some builtins have no signature
        return None
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    positional = [p for p in parameters if p.kind in kinds]
    names = {p.name.lower() for p in positional}
    if names & _MULTI_HEAD_NAMES and not tuple(p.name.lower() for p in positional[:3]) == _ATTENTION_NAMES:
        return "multi_head"
    if tuple(p.name.lower() for p in positional[:3]) == _ATTENTION_NAMES:
        return "attention"
    if any(p.kind is inspect.Parameter.VAR_POSITIONAL for p in parameters):
        return None  # f(*args): the names of what it passes on are not known here
    return "multi_head" if len(positional) >= 6 else "attention"


def _called_wrongly(result):
    """True if a small-input check failed at once because the function takes other arguments (a TypeError)."""
    return not result.ok and result.key in ("raised", "mask_argument") and "TypeError" in result.fields.get("error", "")


def small_checks_of_either_kind(fn, timeout):
    """(kind, the small-input checker's Result): the kind function_kind reads, or the other one if only it fits.

    A function is run as the kind its signature says; if that check fails at once with a TypeError (the
    arguments do not fit) or the signature says nothing, the other kind is tried before the function is blamed.
    """
    kind = function_kind(fn)
    first = kind or "attention"
    small = _small_checks(fn, first, timeout)
    if small.ok or not (kind is None or _called_wrongly(small)):
        return first, small
    other = "multi_head" if first == "attention" else "attention"
    second = _small_checks(fn, other, timeout)
    if second.ok or (_called_wrongly(small) and not _called_wrongly(second)):
        return other, second
    return first, small


# --- a multi-head function inside the attention seam ---------------------------------------------


class _Stop(Exception):
    """Stops the model run: the learner's function returned something the model cannot use."""

    def __init__(self, finding):
        super().__init__(finding.key)
        self.finding = finding


def _pair(value, output_shape, weights_shape, dtype):
    """(output, weights) as arrays of `dtype`, or raise _Stop with the exercises' diagnosis."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise _Stop(Finding("not_pair", {"got": describe(value)}))
    arrays = []
    for part, what, shape in ((value[0], OUTPUT, output_shape), (value[1], WEIGHTS, weights_shape)):
        array, finding = as_numbers(part, set(), what)
        if finding is None and array.shape != tuple(shape):
            finding = wrong_shape(array.shape, shape, what)
        if finding is None and not np.isfinite(array).all():
            index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
            finding = Finding("not_finite", {"what": what, "index": str(list(index)), "got": fmt(array[index])})
        if finding is not None:
            raise _Stop(finding)
        arrays.append(array.astype(dtype))
    return tuple(arrays)


def multi_head_as_attention(multi_head):
    """A multi-head function (x, w_q, w_k, w_v, w_o, n_heads, mask=None) -> an attention function for the seam.

    The layer's q, k, v [..., h, n, d_k] are merged to Q, K, V [..., n, d_model]; token t of the batch
    becomes the one-hot row x_t = e_t and row t of w_q (w_k, w_v) holds its query (key, value), so
    x @ w_q = Q exactly. w_o is the identity; the output is split back into heads. A batch holds at most
    d_model tokens this way, so it is cut into chunks of sentences.
    """

    def attention(q, k, v, mask=None):
        *batch, h, n, d_k = q.shape
        d_model, b = h * d_k, math.prod(batch)
        if n > d_model:
            raise ValueError(f"a sentence of n={n} tokens does not fit in one-hot rows of d_model={d_model}")
        qkv = [merge_heads(a).reshape(b, n, d_model) for a in (q, k, v)]  # 3 x [b, n, d_model]
        full_mask = None if mask is None else np.broadcast_to(mask, (*batch, h, n, n)).reshape(b, h, n, n)
        outputs, weights = [], []
        chunk = d_model // n  # sentences per call
        for start in range(0, b, chunk):
            m = min(chunk, b - start)
            x = np.eye(m * n, d_model, dtype=q.dtype).reshape(m, n, d_model)  # token t -> e_t
            w_q, w_k, w_v = (np.zeros((d_model, d_model), q.dtype) for _ in range(3))
            for w, a in zip((w_q, w_k, w_v), qkv, strict=True):
                w[: m * n] = a[start : start + m].reshape(m * n, d_model)  # row t = token t's q (k, v)
            part_mask = None if mask is None else full_mask[start : start + m]  # [m, h, n, n]
            value = multi_head(x, w_q, w_k, w_v, np.eye(d_model, dtype=q.dtype), h, mask=part_mask)
            out, w = _pair(value, (m, n, d_model), (m, h, n, n), q.dtype)
            outputs.append(split_heads(out, h))  # [m, n, d_model] -> [m, h, n, d_k]
            weights.append(w)
        output = np.concatenate(outputs).reshape(q.shape)  # [..., h, n, d_k]
        return output, np.concatenate(weights).reshape(*batch, h, n, n)

    return attention


# --- running the model ----------------------------------------------------------------------------


@lru_cache(maxsize=1)
def _default_model():
    """all-MiniLM-L6-v2, loaded on the first check that is not given a model, then kept."""
    return load_minilm()


def compare_runs(reference, mine):
    """Two MiniLMOutput of the same sentences -> (cosines [b], largest weight difference per layer [L]).

    Only the rows of real tokens are compared (a padded row's weights are never used).
    """
    cosines = np.sum(reference.embedding * mine.embedding, axis=-1)  # [b]: both have length 1
    real = reference.attention_mask.astype(bool)[:, None, None, :, None]  # [b, 1, 1, n, 1]: real query rows
    diff = np.where(real, np.abs(mine.attentions - reference.attentions), 0)  # [b, L, h, n, n]
    return cosines, diff.max(axis=(0, 2, 3, 4))  # [b], [L]


def _small_checks(fn, kind, timeout):
    """The exercise's own checker on small inputs: notebook 06's for a multi-head function, else notebook 05's."""
    run = run_multi_head_checks if kind == "multi_head" else run_attention_checks
    return run(fn, timeout=timeout, forbid=())  # attn_lib's own functions are allowed here


def run_in_real_model_checks(fn, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: attention (q, k, v, mask=None) or multi-head (x, w_q, w_k, w_v, w_o, n_heads, mask=None).

    Returns the `ModelResult`; prints nothing. `model`: a loaded MiniLM (default: load_minilm(), once).
    `timeout`: seconds per call of `fn` (the model calls it once per layer).
    """
    if model is not None and not all(hasattr(model, name) for name in ("run", "d_k", "d_model", "n_layers")):
        raise TypeError(
            f"model must be a MiniLM from attn_lib.models.minilm.pretrained.load_minilm() or None,"
            f" got {describe(model)}"
        )
    timeout = check_timeout(timeout)
    if not callable(fn):
        small = _small_checks(fn, "attention", timeout)  # says "expected a function"
        return ModelResult(False, small.key, small)
    kind, small = small_checks_of_either_kind(fn, timeout)
    if small.key in ("not_implemented", "timeout"):
        return ModelResult(False, small.key, small)
    if model is None:
        try:
            model = _default_model()
        except (ImportError, RuntimeError, OSError) as exc:  # no model files, no network, a bad file
            return ModelResult(False, "no_model", small, ("real_model.no_model", {"error": error_text(exc)}))
    sizes = {"d_k": model.d_k, "sqrt_dk": fmt(np.sqrt(model.d_k)), "sqrt_d_model": fmt(np.sqrt(model.d_model))}
    key = "passed" if small.ok else small.key
    layer = [0]
    inner = multi_head_as_attention(fn) if kind == "multi_head" else fn

    def attention(q, k, v, mask=None):
        layer[0] += 1
        value = inner(q, k, v, mask=mask)
        return _pair(value, q.shape, (*q.shape[:-1], q.shape[-2]), q.dtype)

    seconds = timeout * model.n_layers
    outcome = call_learner(
        lambda: model.run(list(SENTENCES), attention=attention), Case("model", "", (), {}, None), seconds
    )
    if outcome.timed_out:
        problem = ("real_model.timeout", {"seconds": f"{seconds:g}"})
    elif isinstance(outcome.error, _Stop):
        problem = ("real_model.inside", {"layer": layer[0], "finding": outcome.error.finding})
    elif outcome.error is not None:
        problem = ("real_model.raised", {"layer": layer[0], "error": error_text(outcome.error)})
    else:
        reference = model.run(list(SENTENCES))  # after the learner's run: its maps are nowhere in memory before
        cosines, differences = compare_runs(reference, outcome.value)
        result = ModelResult(False, key, small, None, cosines, differences, sizes)
        if not result.model_agrees and small.ok:
            return replace(result, key="differs")
        return replace(result, ok=result.model_agrees and (small.ok or small.key in HARMLESS_HERE))
    return ModelResult(False, key if not small.ok else problem[0].split(".")[1], small, problem, sizes=sizes)


def check_in_real_model(fn, lang=None, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: your attention (notebooks 04, 05) or multi-head function (notebook 06), run inside all-MiniLM-L6-v2.

    Prints one verdict line; True if the model's sentence embeddings and attention maps come out as the
    model's own.
    """
    lang = None if lang is None else check_language(lang)
    result = run_in_real_model_checks(fn, model, timeout)
    print(result.verdict(lang))
    return result.ok
