"""A tiny causal transformer in numpy, forward and backward written out, that learns where to look.

The model reads 我昨天在北京吃了烤鸭，今天在上海吃了 and predicts the next token at the blank:

    x_0 = E[tokens] + P[positions]                              token + position embeddings
    x_l = x_{l-1} + MultiHead(x_{l-1}) with a causal mask        l = 1 .. n_layers (residual)
    logits = x_L[blank] W_out + b_out                           read out at the blank only
    loss = mean cross-entropy(logits, the today-city's dish)

No layer norm and no MLP: attention has to do all the routing. Each forward step has its backward
step below it; `gradients` chains them. Weights follow attn_lib.multihead's convention: ``w_q`` is
[d_model, d_model], used as ``x @ w_q``, head i uses columns i*d_k:(i+1)*d_k.

Names: B sentences, n positions, d = d_model, h heads, d_k = d / h, V vocabulary size.
"""

from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_heads_divide, check_positive_int, describe_value
from attn_lib.core import causal_mask, scaled_dot_product_attention, softmax
from attn_lib.multihead import merge_heads, split_heads

WEIGHT_NAMES = ("w_q", "w_k", "w_v", "w_o")


@dataclass(frozen=True)
class TinyConfig:
    """The model's sizes: vocabulary V, longest sentence n_max, d_model, heads h, attention layers."""

    vocab_size: int
    max_len: int
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 2

    def __post_init__(self):
        for name in ("vocab_size", "max_len", "d_model", "n_heads", "n_layers"):
            check_positive_int(getattr(self, name), name)
        check_heads_divide(self.d_model, self.n_heads)


def init_params(config, seed=0, dtype=np.float64):
    """TinyConfig -> {name: array}: embeddings N(0, 1), projections N(0, 1/d), read-out N(0, 1/d)."""
    if not isinstance(config, TinyConfig):
        raise TypeError(f"config must be a TinyConfig, got {describe_value(config)}")
    rng = np.random.default_rng(seed)
    d, V = config.d_model, config.vocab_size
    params = {
        "tok_emb": rng.normal(0.0, 1.0, (V, d)),  # [V, d]
        "pos_emb": rng.normal(0.0, 1.0, (config.max_len, d)),  # [n_max, d]
    }
    for layer in range(1, config.n_layers + 1):
        for name in WEIGHT_NAMES:
            params[f"layer{layer}.{name}"] = rng.normal(0.0, d**-0.5, (d, d))  # [d, d]
    params["w_out"] = rng.normal(0.0, d**-0.5, (d, V))  # [d, V]
    params["b_out"] = np.zeros(V)  # [V]
    return {name: value.astype(dtype) for name, value in params.items()}


def attention_mask(n, blocked=None, scope="all"):
    """-> bool [n, n] causal mask, or [B, 1, n, n] if `blocked` [B] names one key position per sentence.

    A blocked key gets False in every row (scope="all": no token may read it, in every layer) or
    only in the rows from `scope` = an int array [B] of query positions (e.g. the blanks).
    """
    mask = causal_mask(n)  # [n, n]
    if blocked is None:
        return mask
    blocked = _check_positions(blocked, n, "blocked")
    keys = np.arange(n)[None, None, :] == blocked[:, None, None]  # [B, 1, n]: the key to hide
    if isinstance(scope, str) and scope == "all":
        rows = np.ones((len(blocked), n, 1), dtype=bool)  # [B, n, 1]
    else:
        scope = _check_positions(scope, n, "scope", len(blocked))
        rows = (np.arange(n)[None, :] == scope[:, None])[:, :, None]  # [B, n, 1]
    return (mask[None] & ~(rows & keys))[:, None]  # [B, n, n] -> [B, 1, n, n], broadcast over heads


def _check_positions(positions, n, name, size=None):
    """`positions` as an int array [B] of indices into n positions, else a ValueError naming `name`."""
    if isinstance(positions, str):
        raise TypeError(f"{name} must be an integer array of positions, got {describe_value(positions)}")
    positions = np.asarray(positions)
    if positions.ndim != 1 or positions.dtype.kind not in "iu" or (size is not None and len(positions) != size):
        expected = f"[B] = ({size},)" if size is not None else "[B]"
        raise ValueError(f"{name} must be a 1-D integer array {expected} of positions, got {describe_value(positions)}")
    if positions.size and (positions.min() < 0 or positions.max() >= n):
        raise ValueError(f"{name} positions must lie in 0..{n - 1}, got {positions.min()}..{positions.max()}")
    return positions


# --- forward and backward, step by step ------------------------------------------------------------


def embed(params, tokens):
    """[B, n] ids -> x [B, n, d]: token embedding plus position embedding."""
    n = tokens.shape[1]
    return params["tok_emb"][tokens] + params["pos_emb"][:n]  # [B, n, d] + [n, d] -> [B, n, d]


def embed_backward(dx, tokens, params):
    """dL/dx [B, n, d] -> gradients of tok_emb [V, d] and pos_emb [n_max, d]."""
    d_tok = np.zeros_like(params["tok_emb"])
    np.add.at(d_tok, tokens.ravel(), dx.reshape(-1, dx.shape[-1]))  # scatter-add each row to its token
    d_pos = np.zeros_like(params["pos_emb"])
    d_pos[: dx.shape[1]] = dx.sum(axis=0)  # [B, n, d] -> [n, d]
    return {"tok_emb": d_tok, "pos_emb": d_pos}


def attention_layer(x, w, n_heads, mask):
    """[B, n, d] -> x + MultiHead(x) [B, n, d], and a cache for the backward pass (weights in it)."""
    q = split_heads(x @ w["w_q"], n_heads)  # [B, n, d] -> [B, h, n, d_k]
    k = split_heads(x @ w["w_k"], n_heads)  # [B, n, d] -> [B, h, n, d_k]
    v = split_heads(x @ w["w_v"], n_heads)  # [B, n, d] -> [B, h, n, d_k]
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)  # [B, h, n, d_k], [B, h, n, n]
    concat = merge_heads(heads)  # [B, h, n, d_k] -> [B, n, d]
    out = x + concat @ w["w_o"]  # residual: [B, n, d]
    return out, {"x": x, "q": q, "k": k, "v": v, "weights": weights, "concat": concat}


def attention_layer_backward(d_out, w, cache):
    """dL/d(output) [B, n, d] -> dL/dx [B, n, d] and the gradients of w_q, w_k, w_v, w_o [d, d]."""
    x, q, k, v, weights, concat = (cache[key] for key in ("x", "q", "k", "v", "weights", "concat"))
    d = x.shape[-1]
    h = q.shape[1]
    grads = {"w_o": concat.reshape(-1, d).T @ d_out.reshape(-1, d)}  # [d, B*n] x [B*n, d] -> [d, d]
    d_heads = split_heads(d_out @ w["w_o"].T, h)  # [B, n, d] -> [B, h, n, d_k]
    # output = weights @ v
    d_weights = d_heads @ np.swapaxes(v, -1, -2)  # [B, h, n, d_k] x [B, h, d_k, n] -> [B, h, n, n]
    d_v = np.swapaxes(weights, -1, -2) @ d_heads  # [B, h, n, n] x [B, h, n, d_k] -> [B, h, n, d_k]
    # weights = softmax(scores): dS = W * (dW - rowsum(dW * W)); masked entries have W = 0, so dS = 0
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))  # [B, h, n, n]
    # scores = q k^T / sqrt(d_k)
    scale = q.shape[-1] ** -0.5
    d_q = d_scores @ k * scale  # [B, h, n, n] x [B, h, n, d_k] -> [B, h, n, d_k]
    d_k = np.swapaxes(d_scores, -1, -2) @ q * scale  # [B, h, n, n] x [B, h, n, d_k] -> [B, h, n, d_k]
    d_x = d_out.copy()  # the residual path
    for name, d_proj in (("w_q", d_q), ("w_k", d_k), ("w_v", d_v)):
        d_proj = merge_heads(d_proj)  # [B, h, n, d_k] -> [B, n, d]
        grads[name] = x.reshape(-1, d).T @ d_proj.reshape(-1, d)  # [d, B*n] x [B*n, d] -> [d, d]
        d_x += d_proj @ w[name].T  # [B, n, d] x [d, d] -> [B, n, d]
    return d_x, grads


def readout(params, x, blank):
    """x [B, n, d], blank [B] -> logits [B, V] at the blank position of each sentence."""
    x_blank = x[np.arange(len(blank)), blank]  # [B, n, d] -> [B, d]
    return x_blank @ params["w_out"] + params["b_out"], x_blank  # [B, d] x [d, V] -> [B, V]


def readout_backward(d_logits, x_blank, blank, x_shape, params):
    """dL/dlogits [B, V] -> dL/dx [B, n, d] (non-zero only at the blanks), grads of w_out and b_out."""
    d_x = np.zeros(x_shape, dtype=d_logits.dtype)
    d_x[np.arange(len(blank)), blank] = d_logits @ params["w_out"].T  # [B, V] x [V, d] -> [B, d]
    return d_x, {"w_out": x_blank.T @ d_logits, "b_out": d_logits.sum(axis=0)}  # [d, V], [V]


def cross_entropy(logits, target):
    """logits [B, V], target [B] -> (mean loss, probabilities [B, V]).

    Each token's loss is -log p(target) = log sum_j exp(z_j - m) - (z_target - m), m = max_j z_j (log-softmax),
    which never needs the probability itself: it is exact however small p is (a true loss of 100 is 100, in
    float32 too), where -log(p) would meet p = 0 once p underflows (below 1.2e-38 in float32, loss 87.3).
    """
    probs = softmax(logits, axis=-1)  # [B, V], for the backward pass
    z = np.asarray(logits)
    z = z.astype(np.result_type(z.dtype, np.float32), copy=False)  # float16 (and integers) in a wider dtype
    shifted = z - z.max(axis=-1, keepdims=True)  # [B, V], at most 0: exp never overflows
    log_sum = np.log(np.exp(shifted).sum(axis=-1))  # [B], between 0 and log V
    picked = shifted[np.arange(len(target)), target]  # [B]: z_target - m
    return float(np.mean(log_sum - picked)), probs


def cross_entropy_backward(probs, target):
    """dL/dlogits [B, V] = (probs - one_hot(target)) / B."""
    d_logits = probs.copy()
    d_logits[np.arange(len(target)), target] -= 1.0
    return d_logits / len(target)


# --- the whole model -------------------------------------------------------------------------------


def _layer_weights(params, layer):
    return {name: params[f"layer{layer}.{name}"] for name in WEIGHT_NAMES}


def check_batch(config, tokens, blank):
    """Validate token ids [B, n] and blank positions [B] against the config; return them as int arrays."""
    tokens, blank = np.asarray(tokens), np.asarray(blank)
    if tokens.ndim != 2 or tokens.dtype.kind not in "iu":
        raise ValueError(f"tokens must be a 2-D integer array [B, n], got {describe_value(tokens)}")
    if tokens.size and (tokens.min() < 0 or tokens.max() >= config.vocab_size):
        raise ValueError(
            f"token ids must lie in 0..{config.vocab_size - 1} (vocab_size), got {tokens.min()}..{tokens.max()}"
        )
    if tokens.shape[1] > config.max_len:
        raise ValueError(
            f"sentences have n={tokens.shape[1]} positions but the model knows only max_len={config.max_len}"
        )
    return tokens, _check_positions(blank, tokens.shape[1], "blank", tokens.shape[0])


def forward(params, config, tokens, blank, mask=None):
    """[B, n] ids, [B] blank positions -> logits [B, V] at the blanks, and the caches of every step.

    `mask` defaults to the causal mask; pass `attention_mask(n, blocked, scope)` to hide a token.
    The attention weights of layer l are in ``caches["layers"][l - 1]["weights"]`` [B, h, n, n].
    """
    tokens, blank = check_batch(config, tokens, blank)
    mask = attention_mask(tokens.shape[1]) if mask is None else mask
    x = embed(params, tokens)  # [B, n, d]
    layers = []
    for layer in range(1, config.n_layers + 1):
        x, cache = attention_layer(x, _layer_weights(params, layer), config.n_heads, mask)  # [B, n, d]
        layers.append(cache)
    logits, x_blank = readout(params, x, blank)  # [B, V]
    return logits, {"tokens": tokens, "blank": blank, "x_shape": x.shape, "x_blank": x_blank, "layers": layers}


def gradients(params, config, tokens, blank, target):
    """-> (loss, {name: dL/dparam}) for one batch: the forward pass, then each step's backward in reverse."""
    logits, caches = forward(params, config, tokens, blank)
    loss, probs = cross_entropy(logits, np.asarray(target))
    d_logits = cross_entropy_backward(probs, np.asarray(target))  # [B, V]
    d_x, grads = readout_backward(d_logits, caches["x_blank"], caches["blank"], caches["x_shape"], params)
    for layer in range(config.n_layers, 0, -1):
        d_x, layer_grads = attention_layer_backward(d_x, _layer_weights(params, layer), caches["layers"][layer - 1])
        grads.update({f"layer{layer}.{name}": g for name, g in layer_grads.items()})
    grads.update(embed_backward(d_x, caches["tokens"], params))
    return loss, grads


def batch_loss(params, config, tokens, blank, target):
    """The mean cross-entropy of the batch (for finite-difference checks)."""
    logits, _ = forward(params, config, tokens, blank)
    return cross_entropy(logits, np.asarray(target))[0]
