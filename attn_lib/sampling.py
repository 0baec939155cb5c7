"""Choosing the next token from a model's logits: greedy, temperature, top-k, top-p, and a seeded sampler.

A language model's last layer gives one logit z_w per token w of the vocabulary (V tokens), and
softmax(z) is its next-token distribution (notebooks 01 and 02). To write, it picks a token, appends
it and runs again (`attn_lib.models.generation`). The ways of picking, each a few lines:

    greedy(z)                          argmax_w z_w: always the most likely token
    apply_temperature(z, T)            z / T: T < 1 sharpens softmax(z / T), T > 1 flattens it
    top_k_filter(z, k)                 only the k largest logits kept, the others set to -inf
    top_p_filter(z, p)                 only the most likely tokens whose probability reaches p kept
    sampling_distribution(z, T, k, p)  softmax(top_p(top_k(z / T))): the distribution `sample` draws from
    sample(z, rng, T, k, p)            one token drawn from it, with a numpy Generator
    sampler(seed, T, k, p)             a function logits -> token with its own seeded generator

The filters map logits to logits (a dropped token gets -inf, so softmax gives it probability 0 and
spreads the rest over the tokens kept) and compose. `sampling_distribution` applies them in the order
of Hugging Face's ``generate``: temperature, then top-k, then top-p (top-k's choice does not depend on
T; top-p's does, because T changes the probabilities).

Conventions, stated once (tests/test_sampling.py checks them, against Hugging Face's warpers where
transformers is installed):

- **greedy**: among tied largest logits, the lowest token id (numpy's argmax).
- **top-k** keeps token j when fewer than k logits are *larger* than z_j. Without ties that is exactly
  the k largest; tokens tied with the k-th largest are all kept, so more than k may survive. This is
  Hugging Face's ``TopKLogitsWarper`` (it keeps every logit >= the k-th largest), and it does not
  depend on the order of the vocabulary: breaking a tie by token id would keep 很好 or 不错 depending
  on which happened to get the lower id.
- **top-p** (nucleus sampling, Holtzman et al. 2020) keeps token j when the probability of the tokens
  *more likely* than j adds up to less than p. So the token that crosses p is kept, as in Hugging
  Face's ``TopPLogitsWarper``, and the most likely token always is. Worked example, probabilities
  (0.5, 0.3, 0.2) and p = 0.6: ahead of 0.5 lies 0 < 0.6, kept; ahead of 0.3 lies 0.5 < 0.6, kept (it
  crosses p); ahead of 0.2 lies 0.8, dropped: (0.625, 0.375, 0) after renormalising. Tokens tied with
  the last one kept are kept too (the same rule as top-k; Hugging Face's choice among tied tokens
  depends on its sort). When the mass ahead of a token equals p exactly (0.5 + 0.3 = 0.8 for p = 0.8),
  rounding decides; the probabilities are summed in float64.
"""

import math
import numbers

import numpy as np

from attn_lib._checks import as_float_array, check_positive_int, check_seed, describe_value, work_dtype
from attn_lib.core import softmax


def _check_logits(logits):
    """`logits` as a float array [..., V] (-inf allowed: a token filtered out), each row with a finite entry."""
    z = as_float_array(logits, "logits", allow_neg_inf=True, min_ndim=1)
    if z.shape[-1] == 0:
        raise ValueError(f"logits has shape {z.shape}: the vocabulary axis (the last) must hold at least one token")
    empty = ~np.isfinite(z).any(axis=-1)  # [...]: rows with nothing left to choose
    if empty.any():
        where = tuple(int(i) for i in np.argwhere(empty)[0]) if z.ndim > 1 else ()
        raise ValueError(f"logits{list(where) if where else ''} is -inf for every token: no token is left to choose")
    return z


def _check_temperature(temperature):
    """`temperature` as a positive finite float: any real number is accepted (int, float, numpy, Fraction, ...)."""
    if isinstance(temperature, bool) or not isinstance(temperature, numbers.Real):
        raise TypeError(f"temperature must be a positive number, got {describe_value(temperature)}")
    shown = repr(temperature) if len(repr(temperature)) <= 40 else repr(temperature)[:36] + " ..."
    try:
        value = float(temperature)  # a Fraction or a large int too (np.isfinite refuses a Fraction)
    except OverflowError:
        raise ValueError(
            f"temperature={shown} is larger than a float can hold (about 1.8e308): at such a temperature every"
            " token is equally likely; pass a smaller number"
        ) from None
    if not (math.isfinite(value) and value > 0):
        if value == 0 and temperature > 0:  # a positive Fraction that rounds to 0.0 as a float
            raise ValueError(
                f"temperature={shown} is too close to 0 to be a float (it rounds to 0.0); the limit T -> 0 is"
                " greedy(logits): use that"
            )
        raise ValueError(
            f"temperature={shown} must be a finite number > 0 (the limit T -> 0 is greedy(logits): use that)"
        )
    return value


def _check_p(p, name="p"):
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"{name} must be a probability in (0, 1], got {describe_value(p)}")
    if not 0 < p <= 1:
        raise ValueError(
            f"{name}={p!r} must lie in (0, 1]: the share of probability the kept tokens reach (1 keeps all)"
        )
    return float(p)


def greedy(logits):
    """[..., V] -> [...] token ids: the largest logit of each row (the lowest id among ties); [V] -> an int."""
    z = _check_logits(logits)
    ids = np.argmax(z, axis=-1)  # [...]
    return int(ids) if z.ndim == 1 else ids


def apply_temperature(logits, temperature):
    """[..., V] -> [..., V]: z / T. softmax(z / T) is sharper than softmax(z) for T < 1, flatter for T > 1.

    The division is done in float64 and the result returned in the dtype the logits are computed in:
    float32 and float64 are kept, float16 logits give float32 ones (the package computes float16 in
    float32; z / T for T < 1 can pass float16's largest number, 65504). A temperature so small that a
    logit divided by it overflows that dtype is refused with a ValueError that names the smallest one
    that fits (greedy(logits) is the limit T -> 0). -inf (a token filtered out) stays -inf.
    """
    z = _check_logits(logits)
    temperature = _check_temperature(temperature)
    dtype = work_dtype(z.dtype)  # float16 -> float32
    with np.errstate(over="ignore", under="ignore"):  # an overflow is found and named below
        scaled = (z.astype(np.float64, copy=False) / temperature).astype(dtype, copy=False)
    _check_scaled(z, scaled, temperature)
    return scaled


def _check_scaled(z, scaled, temperature):
    """Raise ValueError if z / temperature turned a finite logit into inf (or NaN) in scaled's dtype."""
    if np.isfinite(scaled).all():  # the usual case, in one pass
        return
    bad = ~np.isfinite(scaled) & np.isfinite(z)
    if not bad.any():
        return  # only the -inf of filtered tokens
    where = tuple(int(i) for i in np.argwhere(bad)[0])
    dtype = scaled.dtype
    largest = float(np.finfo(dtype).max)
    smallest_t = float(np.max(np.abs(z[np.isfinite(z)]), initial=0.0)) / largest  # |z| / T <= largest
    wider = "" if dtype == np.float64 else ", float64 logits (logits.astype(np.float64)),"
    raise ValueError(
        f"temperature={temperature:.4g} is too small for these logits: logits{list(where)} / temperature ="
        f" {float(z[where]):.4g} / {temperature:.4g} overflows {dtype} (largest {largest:.4g}). Use a temperature"
        f" of at least {_rounded_up(smallest_t * (1 + 1e-6))}{wider} or greedy(logits), the limit T -> 0"
    )


def _rounded_up(x):
    """x > 0 with 4 significant digits, never below x: a bound a message states must hold as it is written."""
    shown = f"{x:.3e}"
    if float(shown) < x:
        mantissa, exponent = shown.split("e")
        shown = f"{float(mantissa) + 0.001:.3f}e{exponent}"
    return f"{float(shown):.4g}"


def top_k_filter(logits, k):
    """[..., V] -> [..., V]: z_j kept where fewer than k logits are larger (ties with the k-th kept), else -inf."""
    z = _check_logits(logits)
    k = check_positive_int(k, "k")
    if k >= z.shape[-1]:
        return z.copy()  # k >= V keeps every token
    kth = np.partition(z, -k, axis=-1)[..., -k, None]  # [..., 1]: the k-th largest logit of each row
    return np.where(z >= kth, z, -np.inf)  # z_j >= the k-th largest <=> fewer than k logits above z_j


def top_p_filter(logits, p):
    """[..., V] -> [..., V]: z_j kept where the tokens more likely than j hold less than p, else -inf."""
    z = _check_logits(logits)
    if _check_p(p) == 1.0:
        return z.copy()  # p = 1 keeps every token (a sum of probabilities may round to just below 1)
    order = np.argsort(-z, axis=-1, kind="stable")  # [..., V]: most likely first
    probs = np.take_along_axis(softmax(z.astype(np.float64)), order, axis=-1)  # [..., V], decreasing
    ahead = np.cumsum(probs, axis=-1) - probs  # [..., V]: the probability of the tokens ahead of each one
    n_kept = (ahead < p).sum(axis=-1, keepdims=True)  # [..., 1], at least 1: the token that crosses p is kept
    last = np.take_along_axis(z, np.take_along_axis(order, n_kept - 1, axis=-1), axis=-1)  # [..., 1]
    return np.where(z >= last, z, -np.inf)  # tokens tied with the last one kept stay too


def sampling_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    """[..., V] -> [..., V] float64: softmax(top_p(top_k(z / T))), the distribution `sample` draws from."""
    z = apply_temperature(logits, temperature)
    if top_k is not None:
        z = top_k_filter(z, check_positive_int(top_k, "top_k"))
    if top_p is not None:
        z = top_p_filter(z, _check_p(top_p, "top_p"))
    return softmax(z.astype(np.float64))


def sample(logits, rng, temperature=1.0, top_k=None, top_p=None):
    """[..., V], numpy Generator -> [...] token ids drawn from `sampling_distribution`; [V] -> an int.

    One uniform draw u in [0, 1) per row picks the first token whose cumulative probability exceeds u:
    token w is picked with probability P(w), and a token with probability 0 never is.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator (numpy.random.default_rng(seed)), got {describe_value(rng)}")
    probs = sampling_distribution(logits, temperature, top_k, top_p)  # [..., V]
    cumulative = np.cumsum(probs, axis=-1)  # [..., V]
    u = rng.random(probs.shape[:-1])[..., None] * cumulative[..., -1:]  # [..., 1], scaled to the rounded total
    ids = np.argmax(cumulative > u, axis=-1)  # [...]: the first token past u
    return int(ids) if probs.ndim == 1 else ids


def sampler(seed=0, temperature=1.0, top_k=None, top_p=None):
    """-> pick(logits [..., V]) -> token ids: `sample` with these settings and its own default_rng(seed).

    The same seed gives the same draws, in the same order: a fresh sampler(seed) repeats a run.
    """
    rng = np.random.default_rng(check_seed(seed))
    _check_temperature(temperature)
    if top_k is not None:
        check_positive_int(top_k, "top_k")
    if top_p is not None:
        _check_p(top_p, "top_p")
    return lambda logits: sample(logits, rng, temperature, top_k, top_p)
