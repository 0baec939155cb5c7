"""Notebook 09's self-checking exercises: one head of cross-attention, the padding mask, attention dropout.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs whose sizes all differ, print one line, and when the result is wrong, name the classic
mistake it matches:

    cross-attention   keys and values from the decoder (x) instead of the encoder (memory), the queries
                      from the encoder (the roles swapped), a causal mask on cross-attention, the padding
                      mask missing or inverted, a batch whose [B, n_k] mask is not lined up with the keys;
                      and every mistake check_attention knows (√d_model or no scaling, the softmax over
                      the queries, the mask added or multiplied, −1e9 for −inf, ...)
    padding mask      True and False swapped, the mask on the queries ([B, n, 1]) or without the query
                      axis ([B, n]), the pad id hard-coded to 0, only the first pad hidden, numbers
                      instead of booleans
    attention dropout judged statistically and structurally, never by a particular way of drawing random
                      numbers: no 1/(1 − p), times (1 − p), keeping with probability p, dropping at
                      evaluation, scaling at evaluation (the original paper's convention), rng not used,
                      whole rows or columns dropped, the input changed in place
"""

import re

import numpy as np

from attn_lib.core import scaled_dot_product_attention, softmax
from attn_lib.exercises.compare import (
    OUTPUT,
    RESULT,
    WEIGHTS,
    Finding,
    Word,
    as_mask_pattern,
    as_numbers,
    difference,
    first_match,
    fmt,
    index_text,
    matches,
    output_and_weights,
    same,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, check_batched, error_text, report, run_cases
from attn_lib.exercises.mistakes import (
    attention_weights_mistake,
    hidden_weight,
    masked,
    scale_candidates,
    swap_last,
)
from attn_lib.i18n import check_language

__all__ = [
    "check_cross_attention",
    "check_padding_mask",
    "check_attention_dropout",
    "run_cross_attention_checks",
    "run_padding_mask_checks",
    "run_attention_dropout_checks",
]

CROSS_FORBID = ("cross_attention",)  # attn_lib.multihead.cross_attention and the model's attention_forward
DROPOUT_FORBID = ("dropout",)
SPREAD = 5  # how many standard errors a statistic of the dropout may stray before it counts as wrong


# --- one head of cross-attention ------------------------------------------------------------------


def _cross_cases(batched):
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
    rng = np.random.default_rng(19)
    # (kind, leading axes, n_q, n_k, d_model, d_k, source_mask): the sizes of a case all differ
    specs = [
        ("case_cross_padded", (), 3, 5, 6, 4, [1, 1, 1, 0, 0]),
        ("case_cross_longer_target", (), 6, 4, 8, 3, [1, 1, 1, 1]),
        ("case_cross_first_word", (), 1, 7, 5, 2, [1, 1, 1, 1, 1, 0, 0]),
    ]
    if batched:  # one mask per sentence, [B, n_k]: the learner lines it up with the keys
        specs.append(("case_cross_batch", (2,), 3, 5, 6, 4, [[1, 1, 1, 1, 0], [1, 1, 0, 0, 0]]))
    cases = []
    for kind, lead, n_q, n_k, d_model, d_k, source_mask in specs:
        x, memory = rng.standard_normal((*lead, n_q, d_model)), rng.standard_normal((*lead, n_k, d_model))
        w_q, w_k, w_v = (rng.standard_normal((d_model, d_k)) / np.sqrt(d_model) for _ in range(3))
        source_mask = np.array(source_mask, dtype=bool)
        shapes = f"x {x.shape}, memory {memory.shape}, w_q/w_k/w_v {w_q.shape}, source_mask {source_mask.shape}"
        args = (x, memory, w_q, w_k, w_v, source_mask)
        cases.append(Case(kind, shapes, args, {}, Reference(_cross_attention)))
    return cases


def _projected(x, memory, w_q, w_k, w_v, source_mask):
    """q from x, k and v from memory, and the mask lined up with the keys: [..., 1, n_k]."""
    return x @ w_q, memory @ w_k, memory @ w_v, source_mask[..., None, :]


def _cross_attention(x, memory, w_q, w_k, w_v, source_mask):
    q, k, v, mask = _projected(x, memory, w_q, w_k, w_v, source_mask)
    return scaled_dot_product_attention(q, k, v, mask=mask)  # [..., n_q, d_k], [..., n_q, n_k]


def _roles(shape, n_q, n_k):
    """The finding for weights of shape [..., n_q, n_q] (keys from x) or [..., n_k, ·] (queries from memory)."""
    fields = {"n_q": n_q, "n_k": n_k}
    if tuple(shape[-2:]) == (n_q, n_q):
        return Finding("cross_kv_from_decoder", fields)
    if tuple(shape[-2:]) in ((n_k, n_q), (n_k, n_k)):
        return Finding("cross_queries_from_memory", fields)
    return None


def cross_weights_mistake(case, got):
    """Why the weights of one head of cross-attention are wrong: the padding mask, a causal mask, the scale, ..."""
    x, memory, w_q = case.args[:3]
    q, k, v, mask = _projected(*case.args)
    d_k, n_q, n_k = w_q.shape[-1], x.shape[-2], memory.shape[-2]
    raw = q @ swap_last(k)  # [..., n_q, n_k]
    scores = raw / np.sqrt(d_k)
    causal = np.tril(np.ones((n_q, n_k), dtype=bool))  # the self-attention mask, out of place here
    candidates = [
        ("cross_mask_missing", {}, lambda: softmax(scores)),
        ("cross_mask_inverted", {}, lambda: softmax(masked(scores, ~mask))),
        ("cross_causal", {}, lambda: softmax(masked(scores, mask & causal))),
        ("cross_causal", {}, lambda: softmax(masked(scores, causal))),
    ]
    candidates += scale_candidates(lambda c: softmax(masked(c * raw, mask)), d_k, {"d_model": x.shape[-1]})
    found = first_match(got, candidates)
    if found is None:  # over the queries, a padded key's column is all −inf: judged on the real keys only
        axis = [("attn_softmax_axis", {}, lambda: softmax(masked(scores, mask), axis=-2))]
        found = first_match(got, axis, np.broadcast_to(mask, got.shape))
    if found:
        return found
    found = attention_weights_mistake(Case(case.kind, case.shapes, (q, k, v), {"mask": mask}, case.expected), got)
    if found.key in ("attn_mask_ignored", "attn_mask_inverted", "attn_mask_leak"):  # their words speak of the future
        return Finding("cross_pad_leak", found.fields)
    return found


def _judge_cross(case, value, notes):
    pair, finding = output_and_weights(value, case.expected, notes, shapes=False)
    if finding:
        return finding
    (output, weights), (expected_output, expected_weights) = pair, case.expected
    x, memory = case.args[:2]
    if weights.shape != expected_weights.shape:
        return _roles(weights.shape, x.shape[-2], memory.shape[-2]) or wrong_shape(
            weights.shape, expected_weights.shape, WEIGHTS
        )
    if output.shape != expected_output.shape:
        return wrong_shape(output.shape, expected_output.shape, OUTPUT)
    if not matches(weights, expected_weights):
        return cross_weights_mistake(case, weights)
    q, k, _, mask = _projected(*case.args)
    found = hidden_weight(weights, q @ swap_last(k) / np.sqrt(q.shape[-1]), mask)  # a <pad> key's weight: exactly 0
    if found:
        return found
    if not matches(output, expected_output):
        return Finding("attn_output_wrong", difference(output, expected_output, OUTPUT).fields)
    return None


_SHAPE = re.compile(r"\((\d+(?:,\s*\d+)*),?\)")


def _cross_error(case, exc, passed):
    """A shape error that shows the roles mixed up, or a batch whose [B, n_k] mask meets the query axis."""
    if not isinstance(exc, (ValueError, IndexError)):
        return None
    x, memory = case.args[:2]
    n_q, n_k, text = x.shape[-2], memory.shape[-2], str(exc)
    for match in _SHAPE.finditer(text):  # the scores' shape, as numpy or attn_lib names it in the message
        shape = tuple(int(size) for size in match.group(1).split(","))
        found = _roles(shape, n_q, n_k) if len(shape) >= 2 else None
        if found:
            return found
    if f"size of axis is {n_q} but size of corresponding boolean axis is {n_k}" in text:  # scores[..., ~mask]
        return Finding("cross_kv_from_decoder", {"n_q": n_q, "n_k": n_k})
    if case.kind == "case_cross_batch" and passed:
        if "matmul" in text:  # .T on a batch reverses every axis
            return Finding("batch_transpose", {"error": error_text(exc)})
        return Finding("cross_batch_mask", {"error": error_text(exc), "n_q": n_q, "b": x.shape[0]})
    return None


def run_cross_attention_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=CROSS_FORBID):
    """fn: (x, memory, w_q, w_k, w_v, source_mask) -> (output [..., n_q, d_k], weights [..., n_q, n_k])."""
    return run_cases("cross_attention", fn, _cross_cases(batched), _judge_cross, timeout, _cross_error, forbid)


def check_cross_attention(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=CROSS_FORBID):
    """fn: (x [..., n_q, d_model], memory [..., n_k, d_model], w_q, w_k, w_v [d_model, d_k], source_mask [..., n_k]).

    One head of cross-attention: queries from x (the decoder), keys and values from memory (the encoder),
    scaled by √d_k, the source's <pad> keys hidden (source_mask True = a real token), no causal mask.
    Returns (output [..., n_q, d_k], weights [..., n_q, n_k]); batched=False skips the batch case.
    attn_lib.multihead.cross_attention and the model's attention_forward are forbidden;
    attn_lib.scaled_dot_product_attention and attn_lib.softmax are allowed (the exercise is where Q, K
    and V come from, and the mask). Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_cross_attention_checks(fn, batched, timeout, forbid), lang)


# --- the padding mask -----------------------------------------------------------------------------


def _padding_cases():
    specs = [
        ("case_pad_batch", [[5, 3, 9, 2, 0, 0], [7, 2, 0, 0, 0, 0], [4, 8, 6, 1, 3, 0]], 0),
        ("case_pad_other_id", [[7, 5, 9, 2, 2], [4, 3, 2, 2, 2]], 2),
        ("case_pad_real_zero", [[0, 4, 0, 7, 1, 1, 1], [3, 0, 5, 1, 1, 1, 1]], 1),
        ("case_pad_none", [[4, 7, 2, 9], [8, 3, 6, 5]], 0),
        ("case_pad_one", [[6, 2, 8, 5, 3, 0]], 0),
    ]
    cases = []
    for kind, tokens, pad_id in specs:
        tokens = np.array(tokens, dtype=np.int64)
        shapes = f"tokens {tokens.shape}, pad_id = {pad_id}"
        cases.append(Case(kind, shapes, (tokens, pad_id), {}, Reference(_padding_mask)))
    return cases


def _padding_mask(tokens, pad_id):
    return (tokens != pad_id)[:, None, :]  # [B, 1, n]: a key mask, the same for every query


def _judge_padding(case, value, notes):
    tokens, pad_id = case.args
    expected = case.expected
    b, n = tokens.shape
    try:
        shape = np.shape(value) if isinstance(value, (np.ndarray, list, tuple)) else None
    except ValueError:  # ragged lists: as_mask_pattern names them
        shape = None
    fields = {"b": b, "n": n, "pad_id": pad_id}
    if shape == (b, n, 1):
        return Finding("padding_on_queries", fields)
    if shape == (b, n):
        return Finding("padding_no_query_axis", fields)
    got, finding = as_mask_pattern(value, expected, notes, inverted="padding_inverted")
    if finding or same(got, expected):
        return finding
    pads = tokens == pad_id
    first = pads & (np.cumsum(pads, axis=-1) == 1)  # the first pad of each sentence
    candidates = [
        ("padding_inverted", ~expected),
        ("padding_pad_zero", (tokens != 0)[:, None, :]),
        ("padding_first_only", ~first[:, None, :]),
    ]
    for key, pattern in candidates:
        if same(got, pattern) and not same(pattern, expected):
            return Finding(key, fields)
    index = tuple(np.argwhere(got != expected)[0])
    fields = {"what": RESULT, "index": index_text(index), "expected": str(expected[index]), "got": str(got[index])}
    return Finding("wrong_values", fields)


def run_padding_mask_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (tokens int [B, n], pad_id) -> bool [B, 1, n], True where a token is real. Returns the `Result`."""
    return run_cases("padding_mask", fn, _padding_cases(), _judge_padding, timeout, forbid=forbid)


def check_padding_mask(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (tokens int [B, n], pad_id) -> bool [B, 1, n]: may a query read token j of sentence b?

    True where the token is real (not pad_id), False on padding: a key mask that broadcasts over the
    queries (and, with [:, None], over the heads). Nothing is forbidden by default
    (attn_lib.models.encoder_decoder.padding_mask knows only the pad id 0). Prints one verdict line.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_padding_mask_checks(fn, timeout, forbid), lang)


# --- attention dropout ----------------------------------------------------------------------------


def _dropout_cases():
    rng = np.random.default_rng(23)
    flat = softmax(rng.standard_normal((200, 300)))  # attention weights: every entry > 0
    heads = softmax(rng.standard_normal((2, 3, 40, 50)))  # [B, h, n_q, n_k]
    # (kind, weights, p, seed, training): the last case repeats the second's seed, and must repeat its result
    specs = [
        ("case_drop_eval", flat, 0.5, 5, False),
        ("case_drop_train", flat, 0.1, 1, True),
        ("case_drop_heads", heads, 0.5, 2, True),
        ("case_drop_zero", heads, 0.0, 3, True),
        ("case_drop_seed", flat, 0.1, 1, True),
    ]
    cases = []
    for kind, weights, p, seed, training in specs:
        shapes = f"weights {weights.shape}, p = {p}, rng = default_rng({seed}), training = {training}"
        cases.append(Case(kind, shapes, (weights, p, np.random.default_rng(seed), training), {}, seed))
    return cases


def _untouched(weights, got, p, training):
    """The finding for a call that should have returned the weights unchanged (evaluation, or p = 0)."""
    if matches(got, weights):
        return None
    if not training and matches(got, weights * (1 - p)):
        return Finding("dropout_eval_scaled", {"p": fmt(p), "keep": fmt(1 - p)})
    if not training:
        index = tuple(np.argwhere(~np.isclose(got, weights, rtol=1e-4, atol=1e-6))[0])
        fields = {"index": index_text(index), "got": fmt(got[index]), "expected": fmt(weights[index])}
        return Finding("dropout_at_eval", fields)
    return difference(got, weights)


def dropout_mistake(weights, got, p):
    """Which wrong dropout `got` is, judged on its zeros and the ratios of the kept entries; None if it looks right."""
    dropped = got == 0
    share, se = float(dropped.mean()), np.sqrt(p * (1 - p) / dropped.size)
    fields = {"p": fmt(p), "keep": fmt(1 - p), "share": fmt(share)}
    if not dropped.any():
        return Finding("dropout_nothing_dropped", fields)
    if dropped.all(axis=-1).any() and (dropped == dropped[..., :1]).all():
        return Finding("dropout_rows", fields)
    if dropped.all(axis=-2).any() and (dropped == dropped[..., :1, :]).all():
        return Finding("dropout_columns", fields)
    if abs(share - p) > SPREAD * se:
        return Finding("dropout_keeps_p" if abs(share - (1 - p)) <= SPREAD * se else "dropout_share", fields)
    kept, scaled = got[~dropped], weights[~dropped] / (1 - p)
    if not matches(kept, scaled):
        if matches(kept, weights[~dropped]):
            return Finding("dropout_not_scaled", {**fields, "scale": fmt(1 / (1 - p))})
        if matches(kept, weights[~dropped] * (1 - p)):
            return Finding("dropout_times_keep", fields)
        index = tuple(np.argwhere(~dropped & ~np.isclose(got, weights / (1 - p), rtol=1e-4, atol=1e-6))[0])
        expected = fmt(weights[index] / (1 - p))
        return Finding(
            "dropout_entry", {**fields, "index": index_text(index), "got": fmt(got[index]), "expected": expected}
        )
    mean, expected = float(got.mean()), float(weights.mean())  # E[output] = weights, entry by entry
    if abs(mean - expected) > SPREAD * np.sqrt(p / (1 - p) * np.sum(weights**2)) / weights.size:
        return Finding("dropout_biased", {**fields, "got": f"{mean:.4g}", "expected": f"{expected:.4g}"})
    return None


def _dropout_judge():
    """A judge that remembers each seed's first result, so that the seed's second case can be compared with it."""
    results = {}

    def judge(case, value, notes):
        weights, p, rng, training = case.args
        got, finding = as_numbers(value, notes)
        if finding:
            return finding
        if got.shape != weights.shape:
            return wrong_shape(got.shape, weights.shape)
        if not np.isfinite(got).all():
            return difference(got, weights)
        if not training or p == 0:
            return _untouched(weights, got, p, training)
        found = dropout_mistake(weights, got, p)
        if found:
            return found
        seed = case.expected
        if rng.bit_generator.state == np.random.default_rng(seed).bit_generator.state:  # not one number drawn
            return Finding("dropout_ignores_rng", {"seed": seed, "how": Word("exercises.word_rng_untouched")})
        if seed in results and not matches(got, results[seed]):
            return Finding("dropout_ignores_rng", {"seed": seed, "how": Word("exercises.word_rng_differs")})
        results.setdefault(seed, got)
        return None

    return judge


def run_attention_dropout_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=DROPOUT_FORBID):
    """fn: (weights [..., n_q, n_k], p, rng, training) -> the weights after dropout. Returns the `Result`."""
    cases, judge = _dropout_cases(), _dropout_judge()
    return run_cases("attention_dropout", fn, cases, judge, timeout, forbid=forbid, in_place="dropout_in_place")


def check_attention_dropout(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=DROPOUT_FORBID):
    """fn: (weights [..., n_q, n_k], p in [0, 1), rng a numpy Generator, training) -> weights [..., n_q, n_k].

    In training each entry is set to 0 with probability p and the kept ones are divided by 1 − p; at
    evaluation (training=False) the weights come back unchanged. Judged on large inputs by what any
    correct dropout does, whatever way it draws from rng: every entry 0 or weight / (1 − p), about a
    share p of zeros, the mean kept, the same seed giving the same result, the input left as it was.
    attn_lib.dropout.dropout is forbidden. Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_attention_dropout_checks(fn, timeout, forbid), lang)
