"""Notebook 13's tiny decoder-only language model in numpy: forward, backward written out, and a KV-cache step.

    x_0 = E[tokens] + P[positions]                             token + learned position embeddings (07)
    a_l = x_{l-1} + MultiHead(LN_1(x_{l-1}))   (causal)        l = 1 .. L: pre-norm blocks (07)
    x_l = a_l + FFN(LN_2(a_l)),  FFN(z) = GELU(z W_1 + b_1) W_2 + b_2
    logits = LN_f(x_L) E^T                                     a final norm, then the unembedding (tied to E)
    loss = the mean over every real position of cross-entropy(logits, the next token)

Reused from notebook 08's model (attn_lib.models.tiny_model, unchanged): embed / embed_backward (x_0 and
its scatter-add), attention_layer / attention_layer_backward (causal multi-head attention without
biases; it returns z + MultiHead(z) with its own residual, so here MultiHead(z) = attention_layer(z) - z,
and the d_out that its backward adds for that residual is subtracted again), cross_entropy /
cross_entropy_backward (on the [N, V] logits of the N real positions). From notebook 07: block.layer_norm
and block.gelu (forward); from notebook 11: efficient.KVCache (decoding). Written here: LayerNorm and
GELU backward (GELU' = Phi + u phi, with Phi = GELU(u) / u), the feed-forward backward, the tied
unembedding and its gradient.

Names: B sentences, n positions, d = d_model, h heads, d_k = d / h, F = d_ff, V vocabulary, L layers.
"""

import math
from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_float_dtype, check_heads_divide, check_positive_int, describe_value
from attn_lib.block import gelu, layer_norm, layer_norm_unchecked
from attn_lib.core import causal_mask
from attn_lib.efficient import KVCache
from attn_lib.models.tiny_model import (
    attention_layer,
    attention_layer_backward,
    cross_entropy,
    cross_entropy_backward,
    embed,
    embed_backward,
)
from attn_lib.multihead import merge_heads, split_heads

BLOCK_NAMES = ("ln1_gamma", "ln1_beta", "w_q", "w_k", "w_v", "w_o", "ln2_gamma", "ln2_beta", "w_1", "b_1", "w_2", "b_2")


@dataclass(frozen=True)
class LMConfig:
    """The sizes: vocabulary V, positions n_max, d_model, heads h, layers L, d_ff F, and LayerNorm's eps."""

    vocab_size: int
    max_len: int
    d_model: int = 32
    n_heads: int = 4
    n_layers: int = 2
    d_ff: int = 128
    eps: float = 1e-5

    def __post_init__(self):
        for name in ("vocab_size", "max_len", "d_model", "n_heads", "n_layers", "d_ff"):
            check_positive_int(getattr(self, name), name)
        check_heads_divide(self.d_model, self.n_heads)


def _check_config(config):
    if not isinstance(config, LMConfig):
        raise TypeError(f"config must be an LMConfig, got {describe_value(config)}")


def init_params(config, seed=0, dtype=np.float32):
    """LMConfig -> {name: array}: seeded normal weights; LayerNorm gammas 1, betas and biases 0.

    E [V, d] and P [n_max, d] ~ N(0, 0.1^2); W_q, W_k, W_v, W_1 ~ N(0, 1/fan_in); the two matrices
    that write into the residual stream (W_o, W_2) also get 1/sqrt(2L), as GPT-2. dtype: a floating dtype
    (an integer one would round every weight to 0).
    """
    _check_config(config)
    dtype = check_float_dtype(dtype, "dtype")
    rng = np.random.default_rng(seed)
    d, F, L = config.d_model, config.d_ff, config.n_layers
    params = {
        "tok_emb": rng.normal(0.0, 0.1, (config.vocab_size, d)),
        "pos_emb": rng.normal(0.0, 0.1, (config.max_len, d)),
    }
    for layer in range(1, L + 1):
        p = {"ln1_gamma": np.ones(d), "ln1_beta": np.zeros(d), "ln2_gamma": np.ones(d), "ln2_beta": np.zeros(d)}
        for name in ("w_q", "w_k", "w_v"):
            p[name] = rng.normal(0.0, d**-0.5, (d, d))  # [d, d]
        p["w_o"] = rng.normal(0.0, d**-0.5 / np.sqrt(2 * L), (d, d))  # [d, d]
        p["w_1"], p["b_1"] = rng.normal(0.0, d**-0.5, (d, F)), np.zeros(F)  # [d, F], [F]
        p["w_2"], p["b_2"] = rng.normal(0.0, F**-0.5 / np.sqrt(2 * L), (F, d)), np.zeros(d)  # [F, d], [d]
        params.update({f"layer{layer}.{name}": p[name] for name in BLOCK_NAMES})
    params["lnf_gamma"], params["lnf_beta"] = np.ones(d), np.zeros(d)
    return {name: value.astype(dtype) for name, value in params.items()}


def count_parameters(config):
    """-> V d + n_max d + L (4 d^2 + 2 d F + F + 5 d) + 2 d: the unembedding is E again, counted once."""
    _check_config(config)
    d, F = config.d_model, config.d_ff
    return config.vocab_size * d + config.max_len * d + config.n_layers * (4 * d * d + 2 * d * F + F + 5 * d) + 2 * d


def block_weights(params, layer):
    """-> {name: array} of block `layer` (1-based), under the names of BLOCK_NAMES."""
    return {name: params[f"layer{layer}.{name}"] for name in BLOCK_NAMES}


def check_tokens(config, tokens):
    """`tokens` as an int array [B, n] of ids of the vocabulary with n <= max_len, else a clear error."""
    tokens = np.asarray(tokens)
    if tokens.ndim != 2 or tokens.dtype.kind not in "iu" or tokens.shape[1] == 0:
        raise ValueError(f"tokens must be a 2-D integer array [B, n] with n >= 1, got {describe_value(tokens)}")
    if tokens.min() < 0 or tokens.max() >= config.vocab_size:
        raise ValueError(
            f"token ids must lie in 0..{config.vocab_size - 1} (vocab_size), got {tokens.min()}..{tokens.max()}"
        )
    if tokens.shape[1] > config.max_len:
        raise ValueError(f"tokens has n={tokens.shape[1]} positions; the model has only max_len={config.max_len}")
    return tokens


# --- the pieces written here: LayerNorm and GELU backward, the feed-forward network ----------------


def layer_norm_backward(d_y, x, gamma, eps):
    """dL/dy [..., d], x [..., d] -> dL/dx [..., d], dL/dgamma [d], dL/dbeta [d] for y = x_hat gamma + beta.

    dx = (dx_hat - mean(dx_hat) - x_hat mean(dx_hat x_hat)) / sqrt(var + eps), with dx_hat = dy gamma.
    """
    mean = x.mean(axis=-1, keepdims=True)  # [..., 1]
    rstd = 1.0 / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)  # [..., 1]
    x_hat = (x - mean) * rstd  # [..., d]
    d_x_hat = d_y * gamma  # [..., d]
    d_x = rstd * (d_x_hat - d_x_hat.mean(-1, keepdims=True) - x_hat * (d_x_hat * x_hat).mean(-1, keepdims=True))
    flat = (-1, x.shape[-1])
    return d_x, (d_y * x_hat).reshape(flat).sum(0), d_y.reshape(flat).sum(0)  # [..., d], [d], [d]


def gelu_backward(d_g, u, g):
    """dL/dg [...], u [...], g = GELU(u) [...] -> dL/du [...]: GELU'(u) = Phi(u) + u phi(u).

    GELU(u) = u Phi(u), so Phi(u) = GELU(u) / u is read off the forward's output (Phi(0) = 1/2): no
    second erf, which would be half the cost of a training step. phi(u) = exp(-u^2 / 2) / sqrt(2 pi).
    """
    phi_cdf = np.divide(g, u, out=np.full_like(u, 0.5), where=u != 0)  # Phi(u)
    phi_pdf = np.exp(-0.5 * u * u) / math.sqrt(2.0 * math.pi)  # phi(u)
    return d_g * (phi_cdf + u * phi_pdf)


def ffn_forward(z, p):
    """[..., d] -> [..., d], cache: GELU(z W_1 + b_1) W_2 + b_2."""
    u = z @ p["w_1"] + p["b_1"]  # [..., d] x [d, F] -> [..., F]
    g = gelu(u)  # [..., F]
    return g @ p["w_2"] + p["b_2"], (z, u, g)  # [..., F] x [F, d] -> [..., d]


def ffn_backward(d_f, p, cache):
    """dL/df [..., d] -> dL/dz [..., d] and the gradients of w_1 [d, F], b_1 [F], w_2 [F, d], b_2 [d]."""
    z, u, g = cache
    F, d = p["w_2"].shape
    d_g = d_f @ p["w_2"].T  # [..., d] x [d, F] -> [..., F]
    d_u = gelu_backward(d_g, u, g)  # [..., F]
    grads = {
        "w_2": g.reshape(-1, F).T @ d_f.reshape(-1, d),  # [F, B*n] x [B*n, d] -> [F, d]
        "b_2": d_f.reshape(-1, d).sum(0),
        "w_1": z.reshape(-1, d).T @ d_u.reshape(-1, F),  # [d, B*n] x [B*n, F] -> [d, F]
        "b_1": d_u.reshape(-1, F).sum(0),
    }
    return d_u @ p["w_1"].T, grads  # [..., F] x [F, d] -> [..., d]


# --- one pre-norm block ----------------------------------------------------------------------------


def block_forward(x, p, n_heads, mask, eps):
    """[B, n, d] -> [B, n, d], cache: a = x + MultiHead(LN_1(x)); y = a + FFN(LN_2(a))."""
    z1 = layer_norm(x, p["ln1_gamma"], p["ln1_beta"], eps)  # [B, n, d]
    out, attn_cache = attention_layer(z1, p, n_heads, mask)  # z1 + MultiHead(z1): [B, n, d]
    a = x + (out - z1)  # the residual around the sublayer carries x, not z1
    z2 = layer_norm(a, p["ln2_gamma"], p["ln2_beta"], eps)  # [B, n, d]
    f, ffn_cache = ffn_forward(z2, p)  # [B, n, d]
    return a + f, (x, attn_cache, a, ffn_cache)


def block_backward(d_y, p, cache, eps):
    """dL/dy [B, n, d] -> dL/dx [B, n, d] and the gradients of the block's parameters (BLOCK_NAMES)."""
    x, attn_cache, a, ffn_cache = cache
    d_z2, grads = ffn_backward(d_y, p, ffn_cache)
    d_a, grads["ln2_gamma"], grads["ln2_beta"] = layer_norm_backward(d_z2, a, p["ln2_gamma"], eps)
    d_a = d_a + d_y  # the residual path around the feed-forward network
    d_z1_and_residual, attn_grads = attention_layer_backward(d_a, p, attn_cache)
    grads.update(attn_grads)
    d_z1 = d_z1_and_residual - d_a  # attention_layer's backward adds its own residual's d_out: take it out
    d_x, grads["ln1_gamma"], grads["ln1_beta"] = layer_norm_backward(d_z1, x, p["ln1_gamma"], eps)
    return d_x + d_a, grads  # + the residual path around attention


# --- the whole model -------------------------------------------------------------------------------


def forward(params, config, tokens):
    """[B, n] ids -> the final hidden states LN_f(x_L) [B, n, d] and the caches of every step.

    The attention weights of layer l are ``caches["blocks"][l - 1][1]["weights"]`` [B, h, n, n].
    """
    _check_config(config)
    tokens = check_tokens(config, tokens)
    n = tokens.shape[1]
    mask = causal_mask(n)  # [n, n]
    x = embed(params, tokens)  # [B, n] -> [B, n, d]
    blocks = []
    for layer in range(1, config.n_layers + 1):
        x, cache = block_forward(x, block_weights(params, layer), config.n_heads, mask, config.eps)  # [B, n, d]
        blocks.append(cache)
    h = layer_norm(x, params["lnf_gamma"], params["lnf_beta"], config.eps)  # [B, n, d]
    return h, {"tokens": tokens, "x_L": x, "blocks": blocks}


def attention_weights(caches):
    """The caches of `forward` -> weights [L, B, h, n, n]: every layer's attention weights."""
    return np.stack([block[1]["weights"] for block in caches["blocks"]])


def unembed(params, h):
    """[..., d] -> logits [..., V] = h E^T (tied: the token embedding table, read backwards)."""
    return h @ params["tok_emb"].T  # [..., d] x [d, V] -> [..., V]


def next_token_targets(tokens):
    """ids [B, n] -> inputs [B, n-1], targets [B, n-1], real [B, n-1] bool (the target is not <pad> = 0)."""
    return tokens[:, :-1], tokens[:, 1:], tokens[:, 1:] != 0


def loss_and_gradients(params, config, inputs, targets, real):
    """[B, n] inputs, targets, real -> (the mean cross-entropy over the N real positions, {name: dL/dparam})."""
    h, caches = forward(params, config, inputs)  # [B, n, d]
    h_real = h[real]  # [B, n, d] -> [N, d]
    loss, probs = cross_entropy(unembed(params, h_real), targets[real])  # [N, V]
    d_logits = cross_entropy_backward(probs, targets[real])  # [N, V], already divided by N
    d_h = np.zeros_like(h)
    d_h[real] = d_logits @ params["tok_emb"]  # [N, V] x [V, d] -> [N, d], scattered back to [B, n, d]
    d_x, d_gamma, d_beta = layer_norm_backward(d_h, caches["x_L"], params["lnf_gamma"], config.eps)
    grads = {"lnf_gamma": d_gamma, "lnf_beta": d_beta}
    for layer in range(config.n_layers, 0, -1):
        d_x, block_grads = block_backward(d_x, block_weights(params, layer), caches["blocks"][layer - 1], config.eps)
        grads.update({f"layer{layer}.{name}": g for name, g in block_grads.items()})
    grads.update(embed_backward(d_x, caches["tokens"], params))
    grads["tok_emb"] += d_logits.T @ h_real  # tied: the unembedding's share, [V, N] x [N, d] -> [V, d]
    return loss, grads


def mean_loss(params, config, inputs, targets, real):
    """-> the mean cross-entropy over the real positions (no gradients: for finite differences)."""
    h, _ = forward(params, config, inputs)  # [B, n, d]
    return cross_entropy(unembed(params, h[real]), targets[real])[0]


# --- decoding with a KV cache ----------------------------------------------------------------------


def new_caches(config, dtype=np.float32):
    """-> one efficient.KVCache per layer, keys and values [h, n_max, d_k] each."""
    _check_config(config)
    d_k = config.d_model // config.n_heads
    return [KVCache(config.max_len, d_k, batch_shape=(config.n_heads,), dtype=dtype) for _ in range(config.n_layers)]


def _check_caches(config, caches, start):
    """Raise unless `caches` are new_caches(config)'s, one per layer, each holding exactly `start` tokens.

    A wrong start would not fail by itself: the token would get the position embedding P[start] of another
    place while the caches put it after the tokens they hold, and the logits would be silently wrong.
    """
    if not isinstance(caches, (list, tuple)):
        raise TypeError(f"caches must be the list new_caches(config) returns, got {describe_value(caches)}")
    if len(caches) != config.n_layers:
        raise ValueError(
            f"caches holds {len(caches)} caches but the model has {config.n_layers} layers (one cache each):"
            " make them with new_caches(config)"
        )
    lengths = [cache.length for cache in caches]
    if any(length != lengths[0] for length in lengths):
        raise ValueError(
            f"the caches hold different numbers of tokens ({lengths}): every layer must have seen the same tokens;"
            " start again with new_caches(config)"
        )
    if start != lengths[0]:
        raise ValueError(
            f"start={start} but the caches hold {lengths[0]} tokens: start must be the number of tokens already in"
            f" the caches (the position of ids[0]), here start={lengths[0]}"
        )


def decode_step(params, config, caches, ids, start):
    """ids [m] at positions start .. start+m-1 -> logits [V] of the last one; their keys and values are stored.

    m = the prompt's length for the first call (a prefill: causal among its m tokens, in one go), then 1
    for each new token. `start` must be the number of tokens already in the caches: the position
    embedding P[start] is what tells the model where the token stands.
    """
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.dtype.kind not in "iu" or not len(ids):
        raise ValueError(f"ids must be a non-empty 1-D integer array [m], got {describe_value(ids)}")
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 0:
        raise TypeError(f"start must be a non-negative integer (the position of ids[0]), got {describe_value(start)}")
    if start + len(ids) > config.max_len:
        raise ValueError(
            f"positions {start}..{start + len(ids) - 1} do not exist: the model has max_len={config.max_len} positions"
        )
    check_tokens(config, ids[None])
    _check_caches(config, caches, start)
    x = params["tok_emb"][ids] + params["pos_emb"][start : start + len(ids)]  # [m, d]
    # block.layer_norm_unchecked: layer_norm's arithmetic without its input checks, run for every token written (the
    # weights were checked when the model was built or loaded; the caches still check what they store)
    for layer, cache in enumerate(caches, start=1):
        p = block_weights(params, layer)
        z = layer_norm_unchecked(x, p["ln1_gamma"], p["ln1_beta"], config.eps)  # [m, d]
        q, k, v = (split_heads(z @ p[name], config.n_heads) for name in ("w_q", "w_k", "w_v"))  # [h, m, d_k]
        heads = cache.decode_step(q, k, v)  # [h, m, d_k]: each attends over the cached positions up to its own
        x = x + merge_heads(heads) @ p["w_o"]  # [h, m, d_k] -> [m, d]
        x = x + ffn_forward(layer_norm_unchecked(x, p["ln2_gamma"], p["ln2_beta"], config.eps), p)[0]  # [m, d]
    h_last = layer_norm_unchecked(x[-1], params["lnf_gamma"], params["lnf_beta"], config.eps)  # [d]
    return unembed(params, h_last)  # [V]
