"""Notebook 12's budget question, checked: how many conversations fit beside a model's weights on one GPU.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
published configurations (Mistral 7B with and without its sliding window, Llama 2 7B), compare with the
budget computed here, print one line, and when the count is wrong, name the classic mistake it matches:

    the weights forgotten, the weights counted in float32, the factor 2 of the cache (a key *and* a
    value) missing, the sliding window ignored, the window used where the conversation is shorter than
    it, a count that is not a whole number of conversations, a negative count when nothing fits
"""

import math
import numbers

from attn_lib.exercises.compare import RESULT
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Finding, Reference, Word, describe, report, run_cases
from attn_lib.grouped import kv_cache_bytes
from attn_lib.i18n import check_language
from attn_lib.models.configs import LLAMA2_7B, MISTRAL_7B

__all__ = ["GIB", "MISTRAL_7B_PARAMETERS", "check_conversations", "run_conversations_checks"]

GIB = 2**30
#: Mistral 7B's parameters, as its released safetensors count them (mistralai/Mistral-7B-v0.1: 7.24B).
MISTRAL_7B_PARAMETERS = 7_241_732_096
#: Llama 2 7B's, as in notebook 11 (Touvron et al. 2023: 6.74 billion).
LLAMA2_7B_PARAMETERS = 6_740_000_000
BYTES = 2  # float16: the weights and the cache


def _cache(n_layers, n_kv_heads, d_head, n_tokens, window, factor=2):
    kept = n_tokens if window is None else min(n_tokens, window)  # a window keeps only its last W tokens
    return kv_cache_bytes(n_layers, n_kv_heads, d_head, kept, BYTES) * factor // 2


def _conversations(memory_bytes, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None):
    """-> int: how many conversations of n_tokens fit in memory_bytes beside the weights, all in float16.

    The answer, private so that the checker watches it (a learner's function may not call it).

    (memory - 2 n_params) // KV cache of one conversation, and 0 when the weights alone do not fit.
    With a sliding window each layer keeps only the last min(n_tokens, window) tokens.
    """
    free = memory_bytes - BYTES * n_params
    return max(0, free // _cache(n_layers, n_kv_heads, d_head, n_tokens, window))


def _budget_cases():
    mistral = (MISTRAL_7B_PARAMETERS, MISTRAL_7B.n_layers, MISTRAL_7B.n_kv_heads, MISTRAL_7B.d_head)
    llama = (LLAMA2_7B_PARAMETERS, LLAMA2_7B.n_layers, LLAMA2_7B.n_kv_heads, LLAMA2_7B.d_head)
    specs = [
        ("case_budget_window", 80 * GIB, mistral, 32_768, MISTRAL_7B.sliding_window),
        ("case_budget_full", 80 * GIB, mistral, 32_768, None),
        ("case_budget_short", 80 * GIB, mistral, 2_048, MISTRAL_7B.sliding_window),
        ("case_budget_llama", 24 * GIB, llama, 4_096, None),
        ("case_budget_too_small", 8 * GIB, llama, 4_096, None),
    ]
    cases = []
    for kind, memory, model, tokens, window in specs:
        args = (memory, *model, tokens, window)
        shapes = f"{memory // GIB} GiB, {model[0]:,} parameters, n_tokens = {tokens:,}, window = {window}"
        cases.append(Case(kind, shapes, args, {}, Reference(_conversations)))
    return cases


def _judge_budget(case, value, notes):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return Finding("wrong_type", {"what": RESULT, "got": describe(value), "expected": Word("exercises.expect_int")})
    got, expected = float(value), case.expected
    if got == expected:
        return None
    memory, n_params, layers, kv, d, tokens, window = case.args
    fields = {"got": f"{got:,.0f}" if got.is_integer() else f"{got:,.2f}", "expected": f"{expected:,}"}
    cache = _cache(layers, kv, d, tokens, window)
    free = memory - BYTES * n_params
    known = [
        ("budget_not_whole", free / cache if free > 0 else None),
        ("budget_not_whole", math.ceil(free / cache) if free > 0 else None),
        ("budget_negative", free // cache if free < 0 else None),
        ("budget_no_weights", memory // cache),
        ("budget_weights_float32", max(0, (memory - 4 * n_params) // cache)),
        ("budget_no_factor_2", max(0, free // _cache(layers, kv, d, tokens, window, factor=1))),
        ("budget_window_ignored", max(0, free // _cache(layers, kv, d, tokens, None)) if window else None),
        ("budget_window_always", max(0, free // _cache(layers, kv, d, window, None)) if window else None),
    ]
    for key, wrong in known:
        if wrong is not None and wrong != expected and got == wrong:
            return Finding(key, {**fields, "window": window, "tokens": f"{tokens:,}"})
    return Finding("budget_wrong", fields)


def run_conversations_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (memory_bytes, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None) -> int. The `Result`."""
    return run_cases("conversations", fn, _budget_cases(), _judge_budget, timeout, forbid=forbid)


def check_conversations(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=()):
    """fn: (memory_bytes, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None) -> conversations (int).

    Weights and cache in float16. Prints one verdict line; True if every check passed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_conversations_checks(fn, timeout, forbid), lang)
