"""Sliding-window attention (notebook 12): each query sees only the last `window` keys, itself included.

The mask convention of the course (True = may attend) with one more rule: query i may see key j when

    0 <= i - j < window          keys i - window + 1, ..., i: `window` keys, the query's own among them.

So `sliding_window_mask(n, window)` already *contains* the causal mask: it is the causal mask with
the keys older than the window removed, `sliding_window_mask(n, w) == band & causal_mask(n)` where
`band = sliding_window_mask(n, w, causal=False)` is the two-sided band |i - j| < w (Longformer's
kind of window, for a model that may look ahead). Combining it with `causal_mask` (or any other
boolean mask, e.g. padding) is `&`, and `sliding_window_mask(n, n)` is `causal_mask(n)`.

Counting convention: window = W keys, i - W + 1 .. i, as in Hugging Face's transformers (a key is
visible when i - j < W). The Mistral 7B paper's prose says "between i - W and i", which would be
W + 1 positions, and some implementations write i - j <= W.

Porting a two-sided window (`causal=False`, |i - j| < W): Longformer's `attention_window=A` lets a token
see A/2 keys on each side, |i - j| <= A/2, which is W = A/2 + 1 here; Hugging Face's bidirectional
`sliding_window=S` means |i - j| <= S, which is W = S + 1 here.

One layer lets position i read positions back to i - (W - 1). Stacked layers compose: position i
of layer 2 reads positions of layer 1 that themselves read back W - 1 further, so after L layers
output i depends on inputs i - L (W - 1) .. i: L (W - 1) + 1 positions, at most L x W.
`receptive_field_mask` computes this by boolean matrix products, with no formula assumed.
"""

import numpy as np

from attn_lib._checks import check_positive_int, describe_value
from attn_lib.core import causal_mask


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {describe_value(value)}")
    return bool(value)


def sliding_window_mask(n, window, causal=True):
    """(n, window) -> bool [n, n]: True where 0 <= i - j < window (query i sees the last `window` keys, up to itself).

    `causal=False` gives the two-sided band |i - j| < window instead (keys up to window - 1 positions
    ahead too); `sliding_window_mask(n, w) == sliding_window_mask(n, w, causal=False) & causal_mask(n)`.
    So Longformer's attention_window=A is window=A // 2 + 1 here, and Hugging Face's bidirectional
    sliding_window=S is window=S + 1 (both count the keys on one side, without the query's own).
    A window of n or more is the causal mask (or, two-sided, every key).
    """
    n = check_positive_int(n, "n")
    window = check_positive_int(window, "window")
    causal = _check_bool(causal, "causal")
    allowed = causal_mask(n)  # [n, n]: key j <= query i (and the size checks of causal_mask)
    positions = np.arange(n)
    distance = positions[:, None] - positions  # [n, 1] - [n] -> [n, n]: i - j
    near = distance < window if causal else np.abs(distance) < window  # [n, n]
    return allowed & near if causal else near


def receptive_field_mask(mask, n_layers):
    """bool [n, n] (one layer's mask), L -> bool [n, n]: which inputs output i can depend on after L layers.

    Layer l's output i mixes the previous layer's outputs j with mask[i, j] True, so after L layers
    output i depends on input j when a chain i -> j_1 -> ... -> j exists: the boolean matrix power
    mask^L (boolean product: (A B)[i, j] = OR_k A[i, k] AND B[k, j]). The residual connections of a
    real block add the direct path i -> i, which a mask with a True diagonal (causal, sliding
    window) already holds. This describes what attention *can* carry, not what a trained model does.
    """
    if isinstance(mask, (str, bytes)) or mask is None:
        raise TypeError(f"mask must be a boolean array [n, n], got {describe_value(mask)}")
    mask = np.asarray(mask)
    if mask.dtype.kind != "b" or mask.ndim != 2 or mask.shape[0] != mask.shape[1]:
        raise ValueError(f"mask must be a square boolean array [n, n] (True = may attend), got {describe_value(mask)}")
    n_layers = check_positive_int(n_layers, "n_layers")
    step = mask.astype(np.float64)  # 0/1: a product counts the chains, > 0 says whether one exists
    reach = mask.copy()
    for _ in range(n_layers - 1):
        reach = (step @ reach.astype(np.float64)) > 0  # [n, n] x [n, n] -> [n, n]: one layer further back
    return reach


def receptive_field(window, n_layers):
    """(W, L) -> L (W - 1) + 1: how many positions (the token's own included) output i can depend on after L layers.

    Valid for a token at least L (W - 1) positions into the sequence (earlier tokens have fewer
    positions before them). Each layer reaches W - 1 positions further back; L x W is the usual
    round figure, an overcount by L - 1.
    """
    window = check_positive_int(window, "window")
    n_layers = check_positive_int(n_layers, "n_layers")
    return n_layers * (window - 1) + 1
