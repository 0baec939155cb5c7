"""Dropout: during training, zero each entry with probability p and scale the kept ones by 1 / (1 - p).

Attention dropout (Vaswani et al. 2017, section 5.4 applies it to every sublayer's output; the
implementations apply it to the attention weights too) drops some of a row's weights after the softmax,
so that a head cannot rely on one key alone:

    W' = W * keep / (1 - p),    keep ~ Bernoulli(1 - p), drawn anew at every training step

Dividing by 1 - p keeps every entry's expected value: E[W'] = W (1 - p) / (1 - p) = W. So at evaluation
nothing is dropped and nothing is scaled, and the model sees, on average, the numbers it was trained on.
A row of W' no longer sums to 1; only its expected value does.
"""

import numbers

import numpy as np

from attn_lib._checks import as_float_array, describe_value


def check_rate(p):
    """`p` as a float in [0, 1), or an error naming `p` (p = 1 would drop everything and divide by 0)."""
    if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real):
        raise TypeError(f"p must be a number in [0, 1) (the probability of dropping an entry), got {describe_value(p)}")
    if not 0.0 <= float(p) < 1.0:
        raise ValueError(f"p must lie in [0, 1): the probability of dropping an entry, got p={p!r}")
    return float(p)


def dropout(x, p, rng=None, training=True):
    """[...] -> (x * keep / (1 - p) [...], keep bool [...]): drop each entry with probability p, in training only.

    With training=False, or p = 0, x comes back unchanged and keep is all True: dropout is a training-time
    noise, switched off to evaluate. `rng` (a numpy.random.Generator) draws the entries to keep, one
    uniform number each, kept where it is >= p; it is required when something can be dropped, so that a
    run is reproducible. The dtype of x is kept. `keep` is what the backward pass needs:
    dL/dx = dL/dx' * keep / (1 - p).
    """
    x = as_float_array(x, "x")
    p = check_rate(p)
    if not isinstance(training, (bool, np.bool_)):
        raise TypeError(f"training must be True or False, got {describe_value(training)}")
    if not training or p == 0.0:
        return x, np.ones(x.shape, dtype=bool)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator (e.g. np.random.default_rng(0)) when training with p={p}:"
            f" it draws the entries to drop; got {describe_value(rng)}"
        )
    keep = rng.random(x.shape) >= p  # [...]: True with probability 1 - p
    return x * keep / x.dtype.type(1.0 - p), keep
