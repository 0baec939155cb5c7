"""Notebook 07's self-checking exercises: the sinusoidal table, attention with RoPE, and layer norm.

Built like the checkers of `attn_lib.exercises` (which re-exports these): run the learner's function on
seeded inputs whose sizes all differ, compare with attn_lib, print one line, and when the result is
wrong, compare it with the classic wrong formulas and name the one it matches:

    sinusoidal   sin and cos swapped or not interleaved, the column index (or i) in the exponent
                 instead of 2i, integer division in the exponent, a wrong frequency base, positions
                 from 1, multiplying by the frequency's inverse
    RoPE         not applied, applied to q only or k only, to v as well, the other pairing (i, i + d/2),
                 turning the wrong way, a wrong base; plus every mistake check_attention knows
    layer norm   over the wrong axis (the tokens) or over everything, the unbiased variance, no mean
                 subtracted (that is RMSNorm), no eps (NaN on a constant row), gamma and beta unused
                 or swapped, dividing by the variance instead of the standard deviation
"""

import numpy as np

from attn_lib.block import layer_norm
from attn_lib.core import causal_mask, scaled_dot_product_attention
from attn_lib.exercises.compare import (
    OUTPUT,
    Finding,
    as_numbers,
    difference,
    first_match,
    fmt,
    fmt_apart,
    matches,
    numbers_judge,
    output_and_weights,
    wrong_shape,
)
from attn_lib.exercises.diagnose import DEFAULT_TIMEOUT, Case, Reference, check_batched, error_text, report, run_cases
from attn_lib.exercises.mistakes import attention_weights_mistake
from attn_lib.i18n import check_language
from attn_lib.position import BASE, rope, sinusoidal_encoding

__all__ = [
    "check_sinusoidal_encoding",
    "check_rope",
    "check_layer_norm",
    "run_sinusoidal_encoding_checks",
    "run_rope_checks",
    "run_layer_norm_checks",
]

LN_EPS = 1e-5  # the eps the layer-norm exercise asks for (PyTorch's default)


# --- the sinusoidal table -------------------------------------------------------------------------


def _sinusoid_cases():
    sizes = [("case_pe_few", 6, 8), ("case_pe_long", 50, 16), ("case_pe_single", 1, 4), ("case_pe_d2", 5, 2)]
    return [Case(kind, f"n = {n}, d_model = {d}", (n, d), {}, Reference(sinusoidal_encoding)) for kind, n, d in sizes]


def _table(angles, layout="interleaved", first=np.sin, second=np.cos):
    """[n, d/2] angles -> [n, d]: first(angles) and second(angles) interleaved, or side by side in halves."""
    a, b = first(angles), second(angles)
    if layout == "halves":
        return np.concatenate([a, b], axis=-1)
    return np.stack([a, b], axis=-1).reshape(angles.shape[0], -1)  # [n, d/2, 2] -> [n, d]: a0 b0 a1 b1 ...


def _fitted_base(got, n, d):
    """The base b whose table sinusoidal_encoding(n, d, b) is `got`, if there is one; else None."""
    if n < 2 or d < 4 or not np.isfinite(got).all():
        return None
    theta_1 = float(np.arctan2(got[1, 2], got[1, 3]))  # pair 1 at position 1: sin and cos of theta_1
    if not 0 < theta_1 < 1:
        return None
    base = theta_1 ** (-d / 2)  # theta_1 = base^(-2/d)
    return base if 1 < base < 1e12 and matches(got, sinusoidal_encoding(n, d, base)) else None


def sinusoid_mistake(n, d, got):
    """Which wrong table `got` is, as a Finding, or None."""
    pos, i = np.arange(n)[:, None], np.arange(d // 2)[None, :]  # [n, 1], [1, d/2]
    right = pos / BASE ** (2 * i / d)  # [n, d/2]
    columns = np.arange(d)[None, :]  # [1, d]: the column index j
    by_column = pos / BASE ** (columns / d)  # [n, d]: angle from the column index
    candidates = [
        ("pe_swapped", {}, lambda: _table(right, first=np.cos, second=np.sin)),
        ("pe_halves", {}, lambda: _table(right, "halves")),
        ("pe_halves", {}, lambda: _table(right, "halves", np.cos, np.sin)),
        ("pe_exponent_column", {}, lambda: np.where(columns % 2 == 0, np.sin(by_column), np.cos(by_column))),
        ("pe_exponent_pair", {}, lambda: _table(pos / BASE ** (i / d))),
        ("pe_integer_division", {}, lambda: _table(pos / BASE ** (2 * i // d) + 0 * i)),
        ("pe_times", {}, lambda: _table(pos * BASE ** (2 * i / d))),
        ("pe_from_one", {}, lambda: _table((pos + 1) / BASE ** (2 * i / d))),
        ("pe_sin_only", {}, lambda: _table(right, second=np.sin)),
    ]
    found = first_match(got, candidates)
    if found:
        return found
    base = _fitted_base(got, n, d)
    return Finding("pe_base", {"base": fmt_apart(round(base, 6), BASE)}) if base else None


def _judge_sinusoid(case, value, notes):
    got, finding = as_numbers(value, notes)
    if finding:
        return finding
    expected = case.expected
    n, d = case.args
    if got.shape != expected.shape:
        if got.shape == expected.shape[::-1] and n != d:
            return Finding("pe_transposed", {"got": str(got.shape), "expected": str(expected.shape)})
        return wrong_shape(got.shape, expected.shape)
    if matches(got, expected):
        return None
    return sinusoid_mistake(n, d, got) or difference(got, expected)


def run_sinusoidal_encoding_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("sinusoidal_encoding",)):
    """fn: (n, d_model) -> [n, d_model], the sinusoidal table. Returns the `Result`; prints nothing."""
    return run_cases("sinusoidal_encoding", fn, _sinusoid_cases(), _judge_sinusoid, timeout, forbid=forbid)


def check_sinusoidal_encoding(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("sinusoidal_encoding",)):
    """fn: (n, d_model) -> [n, d_model] with sin in the even, cos in the odd columns. Prints one verdict line.

    attn_lib.position.sinusoidal_encoding is forbidden: write the table yourself (forbid=() allows it).
    """
    lang = None if lang is None else check_language(lang)
    return report(run_sinusoidal_encoding_checks(fn, timeout, forbid), lang)


# --- attention with RoPE --------------------------------------------------------------------------


def _rope_cases(batched):
    batched = check_batched(batched)  # the public boundary: run_*_checks(fn, batched=...)
    rng = np.random.default_rng(7)
    specs = [
        ("case_random", (6, 8), 4, None),  # d_v even (as in real models), so a rotated v is possible
        ("case_rope_long", (40, 16), 4, None),
        ("case_causal", (7, 4), 6, causal_mask(7)),
        ("case_rope_d2", (5, 2), 4, None),
    ]
    if batched:
        specs.append(("case_batch", (2, 3, 6, 4), 8, None))
    cases = []
    for kind, shape, d_v, mask in specs:
        q, k = 1.5 * rng.standard_normal(shape), 1.5 * rng.standard_normal(shape)
        v = rng.standard_normal((*shape[:-1], d_v))
        kwargs = {} if mask is None else {"mask": mask}
        shapes = f"q {q.shape}, k {k.shape}, v {v.shape}" + ("" if mask is None else f", mask {mask.shape}")
        cases.append(Case(kind, shapes, (q, k, v), kwargs, Reference(_attention_with_rope)))
    return cases


def _attention_with_rope(q, k, v, mask=None):
    return scaled_dot_product_attention(rope(q), rope(k), v, mask=mask)  # q and k turned, v as it is


def rotate_half_pairs(x, base=BASE):
    """The other layout (GPT-NeoX, Hugging Face LLaMA): feature i is paired with feature i + d/2."""
    d = x.shape[-1]
    halves = np.concatenate([x[..., : d // 2, None], x[..., d // 2 :, None]], axis=-1)  # [..., n, d/2, 2]
    turned = rope(halves.reshape(*x.shape), base=base)  # pairs (i, i + d/2) now sit side by side
    turned = turned.reshape(*x.shape[:-1], d // 2, 2)
    return np.concatenate([turned[..., 0], turned[..., 1]], axis=-1)


def rope_weights_mistake(case, got):
    """Why the weights of attention with RoPE are wrong: a wrong rotation first, then attention's own mistakes."""
    q, k, v = case.args
    mask = case.kwargs.get("mask")
    n = q.shape[-2]

    def weights(q_turned, k_turned):
        return lambda: scaled_dot_product_attention(q_turned, k_turned, v, mask=mask)[1]

    backwards = -np.arange(n)
    candidates = [
        ("rope_not_applied", {}, weights(q, k)),
        ("rope_only_q", {}, weights(rope(q), k)),
        ("rope_only_k", {}, weights(q, rope(k))),
        ("rope_half_pairs", {}, weights(rotate_half_pairs(q), rotate_half_pairs(k))),
        ("rope_direction", {}, weights(rope(q, backwards), rope(k, backwards))),
        ("rope_exponent_pair", {}, weights(rope(q, base=BASE**0.5), rope(k, base=BASE**0.5))),
    ]
    for base in (1000.0, 100_000.0, 10.0, 500_000.0):
        candidates.append(("rope_base", {"base": fmt(base)}, weights(rope(q, base=base), rope(k, base=base))))
    found = first_match(got, candidates)
    if found:
        return found
    turned = Case(case.kind, case.shapes, (rope(q), rope(k), v), case.kwargs, case.expected)
    return attention_weights_mistake(turned, got)  # the scale, the mask, the softmax, ...


def _judge_rope(case, value, notes):
    pair, finding = output_and_weights(value, case.expected, notes)
    if finding:
        return finding
    (output, weights), (expected_output, expected_weights) = pair, case.expected
    if not matches(weights, expected_weights):
        return rope_weights_mistake(case, weights)
    if not matches(output, expected_output):
        v = case.args[2]
        if v.shape[-1] % 2 == 0 and matches(output, weights @ rope(v)):
            return Finding("rope_rotated_v")
        return Finding("attn_output_wrong", difference(output, expected_output, OUTPUT).fields)
    return None


def _rope_error(case, exc, passed):
    if case.kind == "case_batch" and passed and isinstance(exc, (ValueError, TypeError, IndexError)):
        return Finding("batch_transpose", {"error": error_text(exc)})
    if isinstance(exc, TypeError) and "mask" in str(exc):
        return Finding("mask_argument", {"error": error_text(exc)})
    return None


def run_rope_checks(fn, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("rope",)):
    """fn: (q, k, v, mask=None) -> (output, weights), attention with RoPE on q and k. Returns the `Result`."""
    return run_cases("rope", fn, _rope_cases(batched), _judge_rope, timeout, _rope_error, forbid)


def check_rope(fn, lang=None, batched=True, timeout=DEFAULT_TIMEOUT, forbid=("rope",)):
    """fn: (q [..., n, d_k], k [..., n, d_k], v [..., n, d_v], mask=None) -> (output, weights). One verdict line.

    q and k of token m are turned by RoPE (positions 0 .. n-1, pairs (2i, 2i+1), base 10000), v is
    not; then scaled dot-product attention. Returns True if every check passed. attn_lib.position.rope
    (and rope_matrix) is forbidden: turn the pairs yourself; scaled_dot_product_attention is allowed.
    """
    lang = None if lang is None else check_language(lang)
    return report(run_rope_checks(fn, batched, timeout, forbid), lang)


# --- layer norm -----------------------------------------------------------------------------------


def _layer_norm_cases():
    rng = np.random.default_rng(9)
    constant = rng.standard_normal((3, 5))
    constant[1] = 2.5  # one token whose features are all equal: variance 0
    specs = [
        ("case_random", rng.normal(2.0, 3.0, (4, 6))),
        ("case_batch", rng.normal(-1.0, 2.0, (2, 3, 5))),
        ("case_single", rng.normal(0.5, 1.5, (1, 7))),
        ("case_ln_constant", constant),
    ]
    cases = []
    for kind, x in specs:
        d = x.shape[-1]
        gamma, beta = 1 + 0.5 * rng.standard_normal(d), rng.standard_normal(d)
        shapes = f"x {x.shape}, gamma ({d},), beta ({d},)"
        cases.append(Case(kind, shapes, (x, gamma, beta), {}, Reference(_layer_norm_reference)))
    return cases


def _layer_norm_reference(x, gamma, beta):
    return layer_norm(x, gamma, beta, eps=LN_EPS)


def _normalised(x, axis=-1, ddof=0, center=True, sqrt=True):
    """(x - mean) / sqrt(var + eps) over `axis`, with one of the classic mistakes switched on."""
    mean = x.mean(axis=axis, keepdims=True) if center else 0.0
    if center:
        var = x.var(axis=axis, keepdims=True, ddof=ddof)
    else:
        var = (x**2).mean(axis=axis, keepdims=True)  # RMSNorm's mean square
    return (x - mean) / (np.sqrt(var + LN_EPS) if sqrt else var + LN_EPS)


def layer_norm_mistake(case, got):
    """Which wrong layer norm `got` is, as a Finding, or None."""
    x, gamma, beta = case.args
    if case.kind == "case_ln_constant" and not np.isfinite(got).all() and np.isfinite(got[0]).all():
        return Finding("ln_eps_missing")
    every_axis = tuple(range(x.ndim))
    candidates = [
        ("ln_wrong_axis", {}, lambda: _normalised(x, axis=-2) * gamma + beta),
        ("ln_all_axes", {}, lambda: _normalised(x, axis=every_axis) * gamma + beta),
        ("ln_unbiased", {"d": x.shape[-1], "d_1": x.shape[-1] - 1}, lambda: _normalised(x, ddof=1) * gamma + beta),
        ("ln_rms", {}, lambda: _normalised(x, center=False) * gamma + beta),
        ("ln_no_affine", {}, lambda: _normalised(x)),
        ("ln_gamma_beta_swapped", {}, lambda: _normalised(x) * beta + gamma),
        ("ln_var_not_std", {}, lambda: _normalised(x, sqrt=False) * gamma + beta),
    ]
    return first_match(got, candidates)


@numbers_judge
def _judge_layer_norm(case, got):
    return layer_norm_mistake(case, got) or difference(got, case.expected)


def _layer_norm_error(case, exc, passed):
    if isinstance(exc, ValueError) and "broadcast" in str(exc):
        return Finding("ln_keepdims", {"error": error_text(exc)})
    return None


def run_layer_norm_checks(fn, timeout=DEFAULT_TIMEOUT, forbid=("layer_norm",)):
    """fn: (x [..., d], gamma [d], beta [d]) -> [..., d], with eps = 1e-5 as default. Returns the `Result`."""
    return run_cases("layer_norm", fn, _layer_norm_cases(), _judge_layer_norm, timeout, _layer_norm_error, forbid)


def check_layer_norm(fn, lang=None, timeout=DEFAULT_TIMEOUT, forbid=("layer_norm",)):
    """fn: (x [..., d], gamma [d], beta [d]) -> [..., d], each token normalised over its d features, eps = 1e-5.

    Prints one verdict line; True if every check passed. attn_lib.block.layer_norm is forbidden: write it
    yourself (forbid=() allows it).
    """
    lang = None if lang is None else check_language(lang)
    return report(run_layer_norm_checks(fn, timeout, forbid), lang)
