"""Your attention inside a real language model: run a learner's function in every layer of SmolLM2-135M-Instruct.

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
q, k, v (the causal mask left out, √d_model instead of √d_k, the K/V heads tiled instead of repeated, no
scale, d_k instead of √d_k), and the verdict says what the mistake does to the model: its next-token loss
on the sentence (nats per token) beside the model's own, and how many next tokens still match.
``run_in_language_model_checks(fn)`` returns the `LanguageModelResult` without printing.
"""

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from attn_lib.core import scaled_dot_product_attention
from attn_lib.examples import ANIMAL_SENTENCE
from attn_lib.exercises.compare import Finding, describe, first_match, fmt
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, call_learner, check_timeout, error_text
from attn_lib.grouped import grouped_attention
from attn_lib.i18n import check_language, get_language, t
from attn_lib.models.smollm2.model import forward, load_smollm, next_token_loss

#: The sentence the model reads: the article's English example.
SENTENCE = ANIMAL_SENTENCE
MAX_LOGIT_DIFF = 1e-3  # every logit against the model's own (a correct float64 function: about 1e-5)


@dataclass(frozen=True)
class LanguageModelResult:
    """The outcome of `run_in_language_model_checks`; `verdict(lang)` is the line check_in_language_model prints."""

    ok: bool
    key: str  # "passed" or the lm_model.* diagnosis, without the prefix
    fields: dict
    kind: str = ""  # "grouped" or "attention": how the function was run

    def verdict(self, lang=None):
        lang = get_language() if lang is None else check_language(lang)
        title = t("lm_model.title", lang)
        fields = {name: t(value, lang) if name == "inside" else value for name, value in self.fields.items()}
        if self.ok:
            return t("lm_model.passed", lang, title=title, **fields)
        return t("lm_model.failed", lang, title=title, diagnosis=t(f"lm_model.{self.key}", lang, **fields))


@lru_cache(maxsize=1)
def _default_model():
    """SmolLM2-135M-Instruct, loaded on the first check that is not given a model, then kept."""
    return load_smollm()


class _Recorder:
    """The grouped seam around the learner's function; keeps the first layer's inputs and weights."""

    def __init__(self, fn, kind):
        self.fn, self.kind, self.first = fn, kind, None

    def __call__(self, q, k, v, mask=None):
        if self.kind == "grouped":
            value = self.fn(q, k, v, mask=mask)
        else:  # a plain function: grouped_attention hands it each group of query heads with its one K/V head
            value = grouped_attention(q, k, v, mask=mask, attention=_returning(self.fn))
        if value is None:
            raise NotImplementedError  # a stub: said as such, not as a broken return value
        if self.first is None and isinstance(value, (tuple, list)) and len(value) == 2:
            self.first = (q, k, v, mask, np.asarray(value[1], dtype=np.float64))
        return value


def _returning(fn):
    """fn, with a None it returns (a stub) turned into NotImplementedError."""

    def attention(*args, **kwargs):
        value = fn(*args, **kwargs)
        if value is None:
            raise NotImplementedError
        return value

    return attention


def _run(model, ids, fn, kind, seconds):
    recorder = _Recorder(fn, kind)
    outcome = call_learner(lambda: forward(model, ids, grouped=recorder), Case("model", "", (), {}, None), seconds)
    return outcome, recorder


def _tile(x, g):
    return np.tile(x, (g, 1, 1))  # [h_kv, n, d] -> [h_kv * g, n, d] in the order 0 1 2 0 1 2 ...


def first_layer_mistake(q, k, v, mask, got):
    """The classic mistake the first layer's weights `got` [9, n, n] match, as a Finding, or None."""
    h, d_k = q.shape[0], q.shape[-1]
    g = h // k.shape[0]
    k_rep, v_rep = np.repeat(k, g, axis=0), np.repeat(v, g, axis=0)
    sizes = {"d_k": d_k, "sqrt_dk": fmt(np.sqrt(d_k)), "d_model": h * d_k, "sqrt_d_model": fmt(np.sqrt(h * d_k))}
    candidates = [
        ("future", {}, lambda: scaled_dot_product_attention(q, k_rep, v_rep)[1]),
        ("scale_d_model", sizes, lambda: scaled_dot_product_attention(q, k_rep, v_rep, mask, 1 / np.sqrt(h * d_k))[1]),
        ("tiled", {"g": g}, lambda: scaled_dot_product_attention(q, _tile(k, g), _tile(v, g), mask)[1]),
        ("scale_missing", sizes, lambda: scaled_dot_product_attention(q, k_rep, v_rep, mask, 1.0)[1]),
        ("scale_dk", sizes, lambda: scaled_dot_product_attention(q, k_rep, v_rep, mask, 1 / d_k)[1]),
    ]
    found = first_match(got, candidates)
    if found is None and got.shape == (h, *mask.shape) and (np.abs(got[:, ~mask]) > 1e-6).any():
        found = Finding("future", {})  # weight on a later token, whatever else is wrong
    return found


def run_in_language_model_checks(fn, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: (q, k, v, mask=None) -> (output, weights), plain or grouped. Returns the result; prints nothing.

    `model`: a loaded SmolLM (default: load_smollm(), once). `timeout`: seconds per layer.
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
            f"model must be a SmolLM (attn_lib.models.smollm2.model.load_smollm()) or None, got {describe(model)}"
        )
    ids = model.encode(SENTENCE)
    reference = forward(model, ids)
    seconds *= model.config.n_layers
    outcome, recorder = _run(model, ids, fn, "grouped", seconds)
    kind = "grouped"
    if outcome.error is not None and not outcome.timed_out:  # not a grouped function: run it as a plain one
        outcome, recorder = _run(model, ids, fn, "attention", seconds)
        kind = "attention"
    if outcome.timed_out:
        return LanguageModelResult(False, "timeout", {"seconds": f"{seconds:g}"}, kind)
    if isinstance(outcome.error, NotImplementedError) or (outcome.error is None and outcome.value is None):
        return LanguageModelResult(False, "not_implemented", {}, kind)
    if outcome.error is not None:
        return LanguageModelResult(False, "raised", {"error": error_text(outcome.error)}, kind)
    logits = outcome.value
    fields = {
        "count": len(ids),
        "diff": fmt(MAX_LOGIT_DIFF),
        "layers": model.config.n_layers,
        "own": f"{next_token_loss(reference, ids):.2f}",
        "yours": f"{next_token_loss(logits, ids):.2f}",
        "same": int((logits.argmax(-1) == reference.argmax(-1)).sum()),
        "inside": "lm_model.inside_grouped" if kind == "grouped" else "lm_model.inside_attention",
    }
    worst = float(np.abs(logits - reference).max())
    if worst <= MAX_LOGIT_DIFF:
        return LanguageModelResult(True, "passed", fields, kind)
    found = first_layer_mistake(*recorder.first) if recorder.first is not None else None
    if found is None:
        return LanguageModelResult(False, "differs", {**fields, "worst": fmt(worst)}, kind)
    return LanguageModelResult(False, found.key, {**fields, **found.fields}, kind)


def check_in_language_model(fn, lang=None, model=None, timeout=DEFAULT_TIMEOUT):
    """fn: your attention (notebooks 04-05) or grouped-query attention (notebook 12), run inside SmolLM2-135M.

    Prints one verdict line; True if the model's logits come out as the model's own.
    """
    lang = None if lang is None else check_language(lang)
    result = run_in_language_model_checks(fn, model, timeout)
    print(result.verdict(lang))
    return result.ok
