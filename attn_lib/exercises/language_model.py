"""Your attention inside a real language model: run a learner's function in every layer of SmolLM2-135M-Instruct
(or of Gemma 3 270M).

``check_in_language_model(fn)`` takes an attention function ``(q, k, v, mask=None) -> (output, weights)``:
either a plain one (notebooks 04-05: q, k, v with as many heads each) or a grouped-query one (notebook
12: q with 9 heads, k and v with 3). It runs the model on the article's English sentence (`SENTENCE`)
with that function doing the attention step of all 30 layers, and prints ONE line::

    ✓ your attention inside SmolLM2-135M-Instruct: the logits of all 12 positions match the model's own ...
    ✗ your attention inside SmolLM2-135M-Instruct — Your attention lets each token see the tokens after it ...

The function is first given the grouped layout (q [9, n, 64], k, v [3, n, 64]); if it fails there it is run
as a plain function inside attn_lib.grouped.grouped_attention, which hands each group of 3 query heads its
one K/V head. It passes when every logit is within `MAX_LOGIT_DIFF` of the model's own. When it does not,
the weights it returned in the first layer are compared with the classic mistakes computed from the same
q, k, v (the causal mask left out, the softmax over the queries instead of the keys, √d_model instead of
√d_k, the K/V heads tiled instead of repeated, no scale, d_k instead of √d_k), and the verdict says what the
mistake does to the model: its next-token loss on the sentence (nats per token) beside the model's own, and how
many next tokens still match.
``run_in_language_model_checks(fn)`` returns the `LanguageModelResult` without printing.

Gemma 3 270M (``model=`` a `Gemma3`, from attn_lib.models.gemma3.model): q [4, n, 256] and ONE key/value head, k,
v [1, n, 256] (multi-query attention; a plain function meets that one head by broadcasting). It reads the
article's Chinese sentence, `GEMMA_SENTENCE`: the article's long-range example (the dish at the blank depends on
上海, far back), which Gemma's multilingual vocabulary cuts into 11 words. The diagnoses: the causal mask left out,
the softmax over the queries, √d_model = √640 (Gemma's d_model is not h·d_k = 4 x 256 = 1024, so √(h·d_k) = 32 is
told apart), no scale, d_k instead of √d_k. "K/V heads tiled instead of repeated" is not diagnosed: with one K/V
head, np.tile and np.repeat give the same heads, so that mistake cannot happen. 15 of Gemma's 18 layers are local
(a token sees itself and the 511 tokens before it) and a window of 512 changes nothing on 12 tokens, so once the
sentence passes, the model reads it again `window // 11 + 1` = 47 times over (518 tokens) and the last position's
logits must match too (only the last position is unembedded: all 518 would be 518 x 262,144 logits). If they do
not, the first local layer's weights are compared with a causal mask without the window: "no window on a local
layer", the function that builds its own causal mask instead of using the mask it is given.

A function that returns float16 is compared within `MAX_LOGIT_DIFF_FLOAT16` instead (the last logits of Gemma's long
text within `MAX_LAST_LOGIT_DIFF_FLOAT16`), and the verdict says so.
"""

from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from attn_lib.core import scaled_dot_product_attention, softmax
from attn_lib.examples import ANIMAL_SENTENCE, SHANGHAI_SENTENCE
from attn_lib.exercises.compare import Finding, compared_within, describe, first_match, fmt, reduced_precision
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, call_learner, check_timeout, error_text
from attn_lib.exercises.mistakes import masked
from attn_lib.grouped import grouped_attention
from attn_lib.i18n import check_language, get_language, t
from attn_lib.models.gemma3.model import Gemma3
from attn_lib.models.gemma3.model import forward as gemma_forward
from attn_lib.models.gguf.decoder import visible
from attn_lib.models.smollm2.model import forward, load_smollm, next_token_loss

#: The sentence SmolLM2 reads: the article's English example.
SENTENCE = ANIMAL_SENTENCE
#: The sentence Gemma 3 reads: the article's Chinese long-range example (the dish at the blank depends on 上海).
GEMMA_SENTENCE = SHANGHAI_SENTENCE
MAX_LOGIT_DIFF = 1e-3  # every logit against the model's own (a correct float64 function: about 1e-5)
# float16 keeps about 3 significant digits; through the layers its rounding moves the logits of the sentence by a
# few hundredths (a correct float16 function, measured: 0.015-0.018 in SmolLM2, 0.018-0.021 in Gemma 3), and the last
# logits of Gemma's long text, whose last token sums 512 rounded weights in every local layer, by a few tenths
# (measured: 0.14-0.26). A mistake moves them by units (√d_model: 8.8, a missing window: 6.0, measured).
MAX_LOGIT_DIFF_FLOAT16 = 0.1
MAX_LAST_LOGIT_DIFF_FLOAT16 = 1.0
# Gemma's long run (518 tokens, ~5 s on 2 quiet cores, 10x that on busy ones) may take this many times the time
# allowed for the sentence (timeout seconds per layer): enough for a correct function, not for one that never returns
LONG_RUN_TIME = 4
#: The words Gemma 3 has its own of (lm_gemma.*); the other diagnoses read the same for both models (lm_model.*).
GEMMA_KEYS = frozenset(
    "title passed inside_grouped inside_attention scale_d_model scale_heads no_window differs_long".split()
)


@dataclass(frozen=True)
class LanguageModelResult:
    """The outcome of `run_in_language_model_checks`; `verdict(lang)` is the line check_in_language_model prints."""

    ok: bool
    key: str  # "passed" or the diagnosis, without the lm_model. (or lm_gemma.) prefix
    fields: dict
    kind: str = ""  # "grouped" or "attention": how the function was run
    model: str = "smollm2"  # "smollm2" or "gemma3": the model it ran in
    precision: str = ""  # "float16" when the function returned float16 (its logits compared within its precision)

    def _text(self, name, lang, **fields):
        """The words `name` for this model: Gemma's own (GEMMA_KEYS) or the ones both models share."""
        area = "lm_gemma" if self.model == "gemma3" and name in GEMMA_KEYS else "lm_model"
        return t(f"{area}.{name}", lang, **fields)

    def verdict(self, lang=None):
        lang = get_language() if lang is None else check_language(lang)
        title = self._text("title", lang)
        fields = dict(self.fields)
        if "inside" in fields:  # how it was run, with the model's head counts
            fields["inside"] = self._text(fields["inside"], lang, **self.fields)
        note = ""
        if self.precision and "diff" in fields:  # the logits were compared (not a timeout, an error, ...)
            which = "lm_float16.note_long" if "diff_long" in fields else "lm_float16.note"
            note = t(which, lang, dtype=self.precision, strict=fmt(MAX_LOGIT_DIFF), **fields)
        if self.ok:
            return self._text("passed", lang, title=title, **fields) + note
        return t("lm_model.failed", lang, title=title, diagnosis=self._text(self.key, lang, **fields)) + note


@lru_cache(maxsize=1)
def _default_model():
    """SmolLM2-135M-Instruct, loaded on the first check that is not given a model, then kept."""
    return load_smollm()


class _Recorder:
    """The grouped seam around the learner's function; keeps the inputs and weights of its call number `layer`."""

    def __init__(self, fn, kind, layer=0):
        self.fn, self.kind, self.layer, self.calls, self.first, self.precision = fn, kind, layer, 0, None, ""

    def __call__(self, q, k, v, mask=None):
        if self.kind == "grouped":
            value = self.fn(q, k, v, mask=mask)
        else:  # a plain function: grouped_attention hands it each group of query heads with its one K/V head
            value = grouped_attention(q, k, v, mask=mask, attention=_returning(self.fn))
        if value is None:
            raise NotImplementedError  # a stub: said as such, not as a broken return value
        if self.calls == 0:
            self.precision = reduced_precision(value)  # "float16", or "" for float32/float64
        if self.calls == self.layer and isinstance(value, (tuple, list)) and len(value) == 2:
            self.first = (q, k, v, mask, np.asarray(value[1], dtype=np.float64))
        self.calls += 1
        return value


def _returning(fn):
    """fn, with a None it returns (a stub) turned into NotImplementedError."""

    def attention(*args, **kwargs):
        value = fn(*args, **kwargs)
        if value is None:
            raise NotImplementedError
        return value

    return attention


def _run(model, ids, fn, kind, seconds, last_only=False, layer=0):
    recorder = _Recorder(fn, kind, layer)
    run = gemma_forward if isinstance(model, Gemma3) else forward
    outcome = call_learner(
        lambda: run(model, ids, grouped=recorder, last_only=last_only), Case("model", "", (), {}, None), seconds
    )
    return outcome, recorder


def _tile(x, g):
    return np.tile(x, (g, 1, 1))  # [h_kv, n, d] -> [h_kv * g, n, d] in the order 0 1 2 0 1 2 ...


def first_layer_mistake(q, k, v, mask, got, d_model=None, tiled=True):
    """The classic mistake the first layer's weights `got` [h, n, n] match, as a Finding, or None.

    d_model: the model's width (default h * d_k, which it is in SmolLM2; Gemma 3's 640 is not its 4 x 256, and
    √(h·d_k) is then a mistake of its own). tiled: look for K/V heads tiled instead of repeated (with one K/V
    head, as in Gemma 3, tiling and repeating give the same heads).
    """
    h, d_k = q.shape[0], q.shape[-1]
    g = h // k.shape[0]
    d_model = h * d_k if d_model is None else d_model
    k_rep, v_rep = np.repeat(k, g, axis=0), np.repeat(v, g, axis=0)
    sizes = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k)), "d_model": d_model, "sqrt_d_model": fmt(np.sqrt(d_model))}
    widths = {**sizes, "h": h, "heads_width": h * d_k, "sqrt_heads": fmt(np.sqrt(h * d_k)), "split": fmt(d_model / h)}

    def weights(scale, mask=mask, k=k_rep, v=v_rep):
        return scaled_dot_product_attention(q, k, v, mask, scale)[1]

    candidates = [
        ("future", {}, lambda: weights(None, None)),
        # the softmax over the queries (axis -2): each key's column sums to 1, not each query's row
        ("softmax_axis", {}, lambda: softmax(masked(q @ np.swapaxes(k_rep, -1, -2) / np.sqrt(d_k), mask), axis=-2)),
        ("scale_d_model", sizes if d_model == h * d_k else widths, lambda: weights(1 / np.sqrt(d_model))),
    ]
    if d_model != h * d_k:  # the width of all heads together, which here is not d_model
        candidates.append(("scale_heads", widths, lambda: weights(1 / np.sqrt(h * d_k))))
    if tiled:
        candidates.append(("tiled", {"g": g}, lambda: weights(None, mask, _tile(k, g), _tile(v, g))))
    candidates.append(("scale_missing", sizes, lambda: weights(1.0)))
    candidates.append(("scale_dk", sizes, lambda: weights(1 / d_k)))
    found = first_match(got, candidates)
    if found is None and got.shape == (h, *mask.shape) and (np.abs(got[:, ~mask]) > 1e-6).any():
        found = Finding("future", {})  # weight on a later token, whatever else is wrong
    return found


def window_mistake(q, k, v, mask, got):
    """Finding("no_window") if a local layer's weights `got` [h, n_q, n_k] are those of a causal mask without the
    window (`mask`), or put weight on a key the window hides; else None."""
    h, (n_q, n_k) = q.shape[0], mask.shape
    causal = visible(n_q, n_k)  # every earlier key, however far back
    k_rep, v_rep = np.repeat(k, h // k.shape[0], axis=0), np.repeat(v, h // k.shape[0], axis=0)
    candidates = [("no_window", {}, lambda: scaled_dot_product_attention(q, k_rep, v_rep, causal)[1])]
    found = first_match(got, candidates)
    if found is None and got.shape == (h, n_q, n_k) and (np.abs(got[:, causal & ~mask]) > 1e-6).any():
        found = Finding("no_window", {})  # weight beyond the window, whatever else is wrong
    return found


def _broken(outcome, seconds, result):
    """The result of a run that gave no logits (it timed out, was a stub, raised), or None."""
    if outcome.timed_out:
        return result(False, "timeout", {"seconds": f"{seconds:g}"})
    if isinstance(outcome.error, NotImplementedError) or (outcome.error is None and outcome.value is None):
        return result(False, "not_implemented", {})
    if outcome.error is not None:
        return result(False, "raised", {"error": error_text(outcome.error)})
    return None


def _beyond_the_window(model, ids, fn, kind, seconds, precision, fields, result):
    """Gemma 3's second run: the sentence repeated past the local layers' window; the last position's logits."""
    cfg = model.config
    body = list(ids[1:])  # the sentence without <bos>
    times = cfg.window // len(body) + 1
    long_ids = [ids[0], *body * times]  # <bos> and the sentence `times` times over: more than `window` tokens
    local = [i for i in range(cfg.n_layers) if not cfg.is_global(i)]
    reference = gemma_forward(model, long_ids, last_only=True)[-1]  # [V]
    seconds *= LONG_RUN_TIME
    outcome, recorder = _run(model, long_ids, fn, kind, seconds, last_only=True, layer=local[0])
    broken = _broken(outcome, seconds, result)
    if broken:
        return broken
    last = np.asarray(outcome.value, dtype=np.float64)[-1]  # [V]
    worst = float(np.abs(last - reference).max())
    own_next, your_next = model.tokens([int(reference.argmax()), int(last.argmax())])
    fields = {**fields, "long": len(long_ids), "times": times, "window": cfg.window, "before": cfg.window - 1}
    fields["beyond"] = len(long_ids) - cfg.window  # the last tokens, whose window leaves the first ones out
    tolerance = MAX_LAST_LOGIT_DIFF_FLOAT16 if precision else MAX_LOGIT_DIFF
    fields.update(local=len(local), worst=fmt(worst), own_next=own_next, your_next=your_next, diff_long=fmt(tolerance))
    if worst <= tolerance:
        return result(True, "passed", fields)
    with compared_within(precision):
        found = window_mistake(*recorder.first) if recorder.first is not None else None
    return result(False, "no_window" if found else "differs_long", fields)


def run_in_language_model_checks(fn, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: (q, k, v, mask=None) -> (output, weights), plain or grouped. Returns the result; prints nothing.

    `model`: a loaded SmolLM (default: load_smollm(), once) or a Gemma3. `timeout`: seconds per layer.
    """
    seconds = check_timeout(timeout)
    if not callable(fn):
        return LanguageModelResult(False, "not_callable", {"got": describe(fn)})
    if model is None:
        try:
            model = _default_model()
        except (ImportError, RuntimeError, OSError) as exc:  # no model file, no network, a bad file
            return LanguageModelResult(False, "no_model", {"error": error_text(exc)})
    if not all(hasattr(model, name) for name in ("config", "params", "encode")):
        raise TypeError(
            "model must be a SmolLM (attn_lib.models.smollm2.model.load_smollm()), a Gemma3"
            f" (attn_lib.models.gemma3.model) or None, got {describe(model)}"
        )
    gemma, cfg = isinstance(model, Gemma3), model.config
    ids = model.encode(GEMMA_SENTENCE if gemma else SENTENCE)
    reference = (gemma_forward if gemma else forward)(model, ids)
    seconds *= cfg.n_layers
    outcome, recorder = _run(model, ids, fn, "grouped", seconds)
    kind = "grouped"
    if outcome.error is not None and not outcome.timed_out:  # not a grouped function: run it as a plain one
        outcome, recorder = _run(model, ids, fn, "attention", seconds)
        kind = "attention"
    result = partial(LanguageModelResult, kind=kind, model="gemma3" if gemma else "smollm2")
    broken = _broken(outcome, seconds, result)
    if broken:
        return broken
    logits, precision = outcome.value, recorder.precision
    result = partial(result, precision=precision)
    tolerance = MAX_LOGIT_DIFF_FLOAT16 if precision else MAX_LOGIT_DIFF
    fields = {
        "count": len(ids),
        "diff": fmt(tolerance),
        "layers": cfg.n_layers,
        "own": f"{next_token_loss(reference, ids):.2f}",
        "yours": f"{next_token_loss(logits, ids):.2f}",
        "same": int((logits.argmax(-1) == reference.argmax(-1)).sum()),
        "inside": "inside_grouped" if kind == "grouped" else "inside_attention",
        "n_heads": cfg.n_heads,
        "n_kv_heads": cfg.n_kv_heads,
        "group": cfg.n_heads // cfg.n_kv_heads,
    }
    worst = float(np.abs(logits - reference).max())
    if worst > tolerance:
        with compared_within(precision):
            found = first_layer_mistake(*recorder.first, cfg.d_model, not gemma) if recorder.first is not None else None
        if found is None:
            return result(False, "differs", {**fields, "worst": fmt(worst)})
        return result(False, found.key, {**fields, **found.fields})
    if gemma:  # the window of the local layers changes nothing on 12 tokens: read the sentence past it
        logits = reference = outcome = recorder = None  # 25 MiB of logits, not held through the long run
        return _beyond_the_window(model, ids, fn, kind, seconds, precision, fields, result)
    return result(True, "passed", fields)


def check_in_language_model(fn, lang=None, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: your attention (notebooks 04-05) or grouped-query attention (notebook 12), run inside SmolLM2-135M
    (or inside Gemma 3 270M: model=a Gemma3, which also checks the sliding window of its local layers).

    Prints one verdict line; True if the model's logits come out as the model's own.
    """
    lang = None if lang is None else check_language(lang)
    result = run_in_language_model_checks(fn, model, timeout)
    print(result.verdict(lang))
    return result.ok
