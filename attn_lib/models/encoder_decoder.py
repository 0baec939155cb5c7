"""Notebook 09's encoder–decoder transformer in numpy: forward and backward written out, with attention dropout.

    encoder  e_0 = E_src[source] + PE                                  sinusoidal positions (07)
             a   = e + Dropout(MultiHead(LN(e)))   padding mask        l = 1 .. L_enc, pre-norm blocks (07)
             e_l = a + FFN(LN(a))
             memory = LN_enc(e_L)                                      [B, S, d]: what the decoder reads
    decoder  y_0 = E_tgt[target[:, :-1]] + PE                          <bos> and the words written so far
             a   = y + MultiHead(LN(y))              causal mask       self-attention over the target
             c   = a + CrossAttention(LN(a), memory) padding mask      queries from the target, keys and
             y_l = c + FFN(LN(c))                                      values from the source (the encoder)
             logits = LN_dec(y_L) W_out + b_out                        [B, T, V_tgt]
    loss = the mean cross-entropy over every real target position (<pad> targets left out)

Attention dropout (attn_lib.dropout) drops entries of every attention's weights after the softmax, in
training only: the kept weights are divided by 1 - p, so nothing changes at evaluation on average.

Reused: notebook 13's LayerNorm backward and feed-forward network (attn_lib.models.tiny_lm), notebook
08's cross-entropy (attn_lib.models.tiny_model); from the formulas: core.scaled_dot_product_attention
for the weights, multihead.split_heads / merge_heads, position.sinusoidal_encoding, block.layer_norm,
dropout.dropout. Written here: the attention step with separate query and key/value inputs, and its
backward pass, which gives gradients for both inputs (for self-attention they are one input, added).

Names: B sentences, S source positions, T target positions, d = d_model, h heads, d_k = d / h, F = d_ff.
"""

from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_heads_divide, check_positive_int, describe_value
from attn_lib.block import layer_norm
from attn_lib.core import causal_mask, scaled_dot_product_attention
from attn_lib.dropout import dropout
from attn_lib.models.tiny_lm import ffn_backward, ffn_forward, layer_norm_backward
from attn_lib.models.tiny_model import cross_entropy, cross_entropy_backward
from attn_lib.multihead import merge_heads, split_heads
from attn_lib.position import sinusoidal_encoding

ATTENTION = ("w_q", "w_k", "w_v", "w_o")
FFN = ("w_1", "b_1", "w_2", "b_2")
ENCODER_BLOCK = ("ln1_gamma", "ln1_beta", *ATTENTION, "ln2_gamma", "ln2_beta", *FFN)
DECODER_BLOCK = (
    "ln1_gamma", "ln1_beta", *(f"self_{w}" for w in ATTENTION), "ln2_gamma", "ln2_beta",
    *(f"cross_{w}" for w in ATTENTION), "ln3_gamma", "ln3_beta", *FFN,
)  # fmt: skip


@dataclass(frozen=True)
class Seq2SeqConfig:
    """The sizes: both vocabularies, d_model, heads h, encoder and decoder layers, d_ff, LayerNorm's eps."""

    source_vocab_size: int
    target_vocab_size: int
    d_model: int = 32
    n_heads: int = 4
    encoder_layers: int = 2
    decoder_layers: int = 2
    d_ff: int = 64
    eps: float = 1e-5

    def __post_init__(self):
        for name in ("source_vocab_size", "target_vocab_size", "d_model", "n_heads", "encoder_layers"):
            check_positive_int(getattr(self, name), name)
        for name in ("decoder_layers", "d_ff"):
            check_positive_int(getattr(self, name), name)
        check_heads_divide(self.d_model, self.n_heads)
        if self.d_model % 2:
            raise ValueError(f"d_model={self.d_model} must be even: the sinusoidal positions come in (sin, cos) pairs")


def check_config(config):
    if not isinstance(config, Seq2SeqConfig):
        raise TypeError(f"config must be a Seq2SeqConfig, got {describe_value(config)}")


def init_params(config, seed=0, dtype=np.float64):
    """Seq2SeqConfig -> {name: array}: seeded normal weights; LayerNorm gammas 1, betas and biases 0.

    Embeddings ~ N(0, 1), about the size of the sinusoidal positions added to them; W_q, W_k, W_v, W_1,
    W_out ~ N(0, 1/fan_in); the matrices that write into the residual stream (W_o, W_2) also get
    1/sqrt(2 L) for the L blocks of their side, as GPT-2 does.
    """
    check_config(config)
    rng = np.random.default_rng(seed)
    d, F = config.d_model, config.d_ff

    def attention(prefix, layers):
        w = {f"{prefix}{name}": rng.normal(0.0, d**-0.5, (d, d)) for name in ("w_q", "w_k", "w_v")}
        w[f"{prefix}w_o"] = rng.normal(0.0, d**-0.5 / np.sqrt(2 * layers), (d, d))
        return w

    def feed_forward(layers):
        return {"w_1": rng.normal(0.0, d**-0.5, (d, F)), "b_1": np.zeros(F),
                "w_2": rng.normal(0.0, F**-0.5 / np.sqrt(2 * layers), (F, d)), "b_2": np.zeros(d)}  # fmt: skip

    def norms(*names):
        return {k: v for n in names for k, v in ((f"{n}_gamma", np.ones(d)), (f"{n}_beta", np.zeros(d)))}

    params = {
        "src_emb": rng.normal(0.0, 1.0, (config.source_vocab_size, d)),
        "tgt_emb": rng.normal(0.0, 1.0, (config.target_vocab_size, d)),
    }
    for layer in range(1, config.encoder_layers + 1):
        p = norms("ln1", "ln2") | attention("", config.encoder_layers) | feed_forward(config.encoder_layers)
        params.update({f"enc{layer}.{name}": p[name] for name in ENCODER_BLOCK})
    for layer in range(1, config.decoder_layers + 1):
        p = norms("ln1", "ln2", "ln3") | attention("self_", config.decoder_layers)
        p |= attention("cross_", config.decoder_layers) | feed_forward(config.decoder_layers)
        params.update({f"dec{layer}.{name}": p[name] for name in DECODER_BLOCK})
    params |= {"enc_norm_gamma": np.ones(d), "enc_norm_beta": np.zeros(d)}
    params |= {"dec_norm_gamma": np.ones(d), "dec_norm_beta": np.zeros(d)}
    params |= {
        "w_out": rng.normal(0.0, d**-0.5, (d, config.target_vocab_size)),
        "b_out": np.zeros(config.target_vocab_size),
    }
    return {name: value.astype(dtype) for name, value in params.items()}


def count_parameters(config):
    """-> the number of learned numbers: embeddings, blocks, final norms, the output layer."""
    check_config(config)
    d, F = config.d_model, config.d_ff
    ffn, attention = 2 * d * F + F + d, 4 * d * d
    encoder = config.encoder_layers * (attention + ffn + 4 * d)
    decoder = config.decoder_layers * (2 * attention + ffn + 6 * d)
    return (
        (config.source_vocab_size + config.target_vocab_size) * d
        + encoder
        + decoder
        + 4 * d
        + (d + 1) * config.target_vocab_size
    )


def block(params, side, layer):
    """-> {name: array} of block `layer` (1-based) of `side` ("enc" or "dec"), without the prefix."""
    names = ENCODER_BLOCK if side == "enc" else DECODER_BLOCK
    return {name: params[f"{side}{layer}.{name}"] for name in names}


# --- the masks --------------------------------------------------------------------------------------


def padding_mask(source):
    """source ids [B, S] (<pad> = 0) -> bool [B, 1, 1, S]: True where a query may read the key (a real token).

    The same mask serves the encoder's self-attention and the decoder's cross-attention: it hides keys,
    never queries, and broadcasts over the heads and the queries ([B, h, S, S] or [B, h, T, S]).
    """
    return (np.asarray(source) != 0)[:, None, None, :]


def check_ids(ids, vocab_size, name):
    """ids as a 2-D int array [B, n] of a vocabulary of `vocab_size`, else an error naming `name`."""
    ids = np.asarray(ids)
    if ids.ndim != 2 or ids.dtype.kind not in "iu" or ids.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D integer array [B, n] with n >= 1, got {describe_value(ids)}")
    if ids.min() < 0 or ids.max() >= vocab_size:
        raise ValueError(f"{name} ids must lie in 0..{vocab_size - 1}, got {ids.min()}..{ids.max()}")
    if (ids[:, 0] == 0).any():
        raise ValueError(f"{name} has a sentence that starts with <pad> (id 0): every sentence needs a real token")
    return ids


# --- one attention step, queries from z_q, keys and values from z_kv ----------------------------------


def attention_forward(z_q, z_kv, w, n_heads, mask, drop=0.0, rng=None):
    """[B, n_q, d], [B, n_k, d] -> MultiHead(z_q, z_kv) [B, n_q, d] (no residual) and a cache for backward.

    Self-attention is z_kv = z_q. With drop > 0 (training), the weights lose entries to dropout; the
    cache keeps both the softmax's weights ("weights", what the heatmaps show) and the kept mask.
    """
    q = split_heads(z_q @ w["w_q"], n_heads)  # [B, n_q, d] -> [B, h, n_q, d_k]
    k = split_heads(z_kv @ w["w_k"], n_heads)  # [B, n_k, d] -> [B, h, n_k, d_k]
    v = split_heads(z_kv @ w["w_v"], n_heads)  # [B, n_k, d] -> [B, h, n_k, d_k]
    heads, weights = scaled_dot_product_attention(q, k, v, mask=mask)  # [B, h, n_q, d_k], [B, h, n_q, n_k]
    keep = None
    if drop > 0:
        dropped, keep = dropout(weights, drop, rng)  # [B, h, n_q, n_k]
        heads = dropped @ v  # [B, h, n_q, n_k] x [B, h, n_k, d_k] -> [B, h, n_q, d_k]
    concat = merge_heads(heads)  # [B, h, n_q, d_k] -> [B, n_q, d]
    cache = {"z_q": z_q, "z_kv": z_kv, "q": q, "k": k, "v": v, "weights": weights, "keep": keep, "drop": drop}
    return concat @ w["w_o"], cache | {"concat": concat}  # [B, n_q, d] x [d, d] -> [B, n_q, d]


def attention_backward(d_out, w, cache):
    """dL/d(output) [B, n_q, d] -> dL/dz_q [B, n_q, d], dL/dz_kv [B, n_k, d], grads of w_q, w_k, w_v, w_o."""
    z_q, z_kv, q, k, v, weights, concat = (cache[n] for n in ("z_q", "z_kv", "q", "k", "v", "weights", "concat"))
    d, h = z_q.shape[-1], q.shape[1]
    grads = {"w_o": concat.reshape(-1, d).T @ d_out.reshape(-1, d)}  # [d, B*n_q] x [B*n_q, d] -> [d, d]
    d_heads = split_heads(d_out @ w["w_o"].T, h)  # [B, n_q, d] -> [B, h, n_q, d_k]
    used = weights
    if cache["keep"] is not None:  # output = (weights * keep / (1 - p)) @ v
        used = weights * cache["keep"] / (1.0 - cache["drop"])
    d_used = d_heads @ np.swapaxes(v, -1, -2)  # [B, h, n_q, d_k] x [B, h, d_k, n_k] -> [B, h, n_q, n_k]
    d_v = np.swapaxes(used, -1, -2) @ d_heads  # [B, h, n_k, n_q] x [B, h, n_q, d_k] -> [B, h, n_k, d_k]
    d_weights = d_used if cache["keep"] is None else d_used * cache["keep"] / (1.0 - cache["drop"])
    # weights = softmax(scores): dS = W * (dW - rowsum(dW * W)); masked keys have W = 0, so dS = 0 there
    d_scores = weights * (d_weights - np.sum(d_weights * weights, axis=-1, keepdims=True))  # [B, h, n_q, n_k]
    scale = q.shape[-1] ** -0.5  # scores = q k^T / sqrt(d_k)
    d_q = merge_heads(d_scores @ k * scale)  # [B, h, n_q, n_k] x [B, h, n_k, d_k] -> [B, n_q, d]
    d_k = merge_heads(np.swapaxes(d_scores, -1, -2) @ q * scale)  # -> [B, n_k, d]
    d_v = merge_heads(d_v)  # [B, h, n_k, d_k] -> [B, n_k, d]
    grads["w_q"] = z_q.reshape(-1, d).T @ d_q.reshape(-1, d)  # [d, B*n_q] x [B*n_q, d] -> [d, d]
    grads["w_k"] = z_kv.reshape(-1, d).T @ d_k.reshape(-1, d)  # [d, B*n_k] x [B*n_k, d] -> [d, d]
    grads["w_v"] = z_kv.reshape(-1, d).T @ d_v.reshape(-1, d)
    d_z_q = d_q @ w["w_q"].T  # [B, n_q, d]
    d_z_kv = d_k @ w["w_k"].T + d_v @ w["w_v"].T  # [B, n_k, d]
    return d_z_q, d_z_kv, grads


def _weights(p, prefix):
    return {name: p[f"{prefix}{name}"] for name in ATTENTION}


# --- the blocks ------------------------------------------------------------------------------------


def encoder_block_forward(x, p, n_heads, mask, eps, drop=0.0, rng=None):
    """[B, S, d] -> [B, S, d], cache: a = x + MultiHead(LN_1(x)) (padding mask); e = a + FFN(LN_2(a))."""
    z1 = layer_norm(x, p["ln1_gamma"], p["ln1_beta"], eps)  # [B, S, d]
    att, att_cache = attention_forward(z1, z1, p, n_heads, mask, drop, rng)  # [B, S, d]
    a = x + att  # the residual around attention
    z2 = layer_norm(a, p["ln2_gamma"], p["ln2_beta"], eps)
    f, ffn_cache = ffn_forward(z2, p)  # [B, S, d]
    return a + f, {"x": x, "attention": att_cache, "a": a, "ffn": ffn_cache}


def encoder_block_backward(d_y, p, cache, eps):
    """dL/de [B, S, d] -> dL/dx [B, S, d] and the gradients of the block's parameters (ENCODER_BLOCK)."""
    d_z2, grads = ffn_backward(d_y, p, cache["ffn"])
    d_a, grads["ln2_gamma"], grads["ln2_beta"] = layer_norm_backward(d_z2, cache["a"], p["ln2_gamma"], eps)
    d_a = d_a + d_y  # the residual around the feed-forward network
    d_zq, d_zkv, att_grads = attention_backward(d_a, p, cache["attention"])
    grads.update(att_grads)
    d_x, grads["ln1_gamma"], grads["ln1_beta"] = layer_norm_backward(d_zq + d_zkv, cache["x"], p["ln1_gamma"], eps)
    return d_x + d_a, grads  # + the residual around attention


def decoder_block_forward(y, memory, p, n_heads, masks, eps, drop=0.0, rng=None):
    """[B, T, d], memory [B, S, d] -> [B, T, d], cache: causal self-attention, cross-attention, FFN (pre-norm).

    masks = (the causal mask [T, T], the source's padding mask [B, 1, 1, S]).
    """
    z1 = layer_norm(y, p["ln1_gamma"], p["ln1_beta"], eps)  # [B, T, d]
    att, self_cache = attention_forward(z1, z1, _weights(p, "self_"), n_heads, masks[0], drop, rng)
    a = y + att  # [B, T, d]
    z2 = layer_norm(a, p["ln2_gamma"], p["ln2_beta"], eps)
    cross, cross_cache = attention_forward(z2, memory, _weights(p, "cross_"), n_heads, masks[1], drop, rng)
    c = a + cross  # [B, T, d]: queries from the target, keys and values from the source
    z3 = layer_norm(c, p["ln3_gamma"], p["ln3_beta"], eps)
    f, ffn_cache = ffn_forward(z3, p)
    return c + f, {"y": y, "self": self_cache, "a": a, "cross": cross_cache, "c": c, "ffn": ffn_cache}


def decoder_block_backward(d_out, p, cache, eps):
    """dL/dy_l [B, T, d] -> dL/dy [B, T, d], dL/dmemory [B, S, d], the gradients of DECODER_BLOCK."""
    d_z3, grads = ffn_backward(d_out, p, cache["ffn"])
    d_c, grads["ln3_gamma"], grads["ln3_beta"] = layer_norm_backward(d_z3, cache["c"], p["ln3_gamma"], eps)
    d_c = d_c + d_out  # the residual around the feed-forward network
    d_z2, d_memory, cross_grads = attention_backward(d_c, _weights(p, "cross_"), cache["cross"])
    grads.update({f"cross_{name}": g for name, g in cross_grads.items()})
    d_a, grads["ln2_gamma"], grads["ln2_beta"] = layer_norm_backward(d_z2, cache["a"], p["ln2_gamma"], eps)
    d_a = d_a + d_c  # the residual around cross-attention
    d_zq, d_zkv, self_grads = attention_backward(d_a, _weights(p, "self_"), cache["self"])
    grads.update({f"self_{name}": g for name, g in self_grads.items()})
    d_y, grads["ln1_gamma"], grads["ln1_beta"] = layer_norm_backward(d_zq + d_zkv, cache["y"], p["ln1_gamma"], eps)
    return d_y + d_a, d_memory, grads


# --- the whole model -------------------------------------------------------------------------------


def embed(table, ids):
    """ids [B, n] -> E[ids] + PE [B, n, d]: the token's row plus notebook 07's sinusoidal position code."""
    n, d = ids.shape[1], table.shape[1]
    return table[ids] + sinusoidal_encoding(n, d).astype(table.dtype)  # [B, n, d] + [n, d]


def encode(params, config, source, drop=0.0, rng=None):
    """source ids [B, S] -> memory [B, S, d] (the encoder's output, after its final norm) and the caches."""
    check_config(config)
    source = check_ids(source, config.source_vocab_size, "source")
    mask = padding_mask(source)  # [B, 1, 1, S]
    x = embed(params["src_emb"], source)  # [B, S, d]
    blocks = []
    for layer in range(1, config.encoder_layers + 1):
        x, cache = encoder_block_forward(x, block(params, "enc", layer), config.n_heads, mask, config.eps, drop, rng)
        blocks.append(cache)
    memory = layer_norm(x, params["enc_norm_gamma"], params["enc_norm_beta"], config.eps)  # [B, S, d]
    return memory, {"source": source, "mask": mask, "x_L": x, "blocks": blocks}


def decode(params, config, memory, source_mask, inputs, drop=0.0, rng=None):
    """memory [B, S, d], its padding mask, target inputs [B, T] (<bos> w_1 ...) -> logits [B, T, V_tgt], caches."""
    inputs = check_ids(inputs, config.target_vocab_size, "inputs")
    masks = (causal_mask(inputs.shape[1]), source_mask)  # [T, T], [B, 1, 1, S]
    y = embed(params["tgt_emb"], inputs)  # [B, T, d]
    blocks = []
    for layer in range(1, config.decoder_layers + 1):
        p = block(params, "dec", layer)
        y, cache = decoder_block_forward(y, memory, p, config.n_heads, masks, config.eps, drop, rng)
        blocks.append(cache)
    h = layer_norm(y, params["dec_norm_gamma"], params["dec_norm_beta"], config.eps)  # [B, T, d]
    logits = h @ params["w_out"] + params["b_out"]  # [B, T, d] x [d, V] -> [B, T, V]
    return logits, {"inputs": inputs, "y_L": y, "h": h, "blocks": blocks}


def forward(params, config, source, target, drop=0.0, rng=None):
    """source [B, S], target [B, T + 1] (<bos> words <eos> <pad>...) -> logits [B, T, V_tgt] and the caches.

    The decoder reads target[:, :-1] and is scored on target[:, 1:] (teacher forcing: during training it
    always sees the right words so far, never its own guesses). Cross-attention weights of decoder layer l:
    ``caches["decoder"]["blocks"][l - 1]["cross"]["weights"]`` [B, h, T, S].
    """
    memory, enc = encode(params, config, source, drop, rng)
    target = check_ids(target, config.target_vocab_size, "target")
    if len(target) != len(memory):
        raise ValueError(f"source has {len(memory)} sentences but target has {len(target)}: one translation each")
    logits, dec = decode(params, config, memory, enc["mask"], target[:, :-1], drop, rng)
    return logits, {"encoder": enc, "decoder": dec, "memory": memory}


def cross_attention_weights(caches):
    """The caches of `forward` -> [L_dec, B, h, T, S]: every decoder layer's cross-attention weights."""
    return np.stack([b["cross"]["weights"] for b in caches["decoder"]["blocks"]])


def loss_and_gradients(params, config, source, target, drop=0.0, rng=None):
    """-> (the mean cross-entropy over the real target positions, {name: dL/dparam}) for one batch."""
    logits, caches = forward(params, config, source, target, drop, rng)
    outputs, real = target[:, 1:], target[:, 1:] != 0  # [B, T] each: the words to write, and which are real
    loss, probs = cross_entropy(logits[real], outputs[real])  # [N, V]
    d_logits = np.zeros_like(logits)
    d_logits[real] = cross_entropy_backward(probs, outputs[real])  # [N, V], already divided by N
    dec, enc = caches["decoder"], caches["encoder"]
    d = config.d_model
    grads = {
        "w_out": dec["h"].reshape(-1, d).T @ d_logits.reshape(-1, d_logits.shape[-1]),
        "b_out": d_logits.sum((0, 1)),
    }
    d_y, grads["dec_norm_gamma"], grads["dec_norm_beta"] = layer_norm_backward(
        d_logits @ params["w_out"].T, dec["y_L"], params["dec_norm_gamma"], config.eps
    )
    d_memory = np.zeros_like(caches["memory"])
    for layer in range(config.decoder_layers, 0, -1):
        d_y, d_mem, g = decoder_block_backward(d_y, block(params, "dec", layer), dec["blocks"][layer - 1], config.eps)
        d_memory += d_mem  # every decoder layer reads the same memory
        grads.update({f"dec{layer}.{name}": value for name, value in g.items()})
    grads["tgt_emb"] = _embedding_grad(params["tgt_emb"], dec["inputs"], d_y)
    d_x, grads["enc_norm_gamma"], grads["enc_norm_beta"] = layer_norm_backward(
        d_memory, enc["x_L"], params["enc_norm_gamma"], config.eps
    )
    for layer in range(config.encoder_layers, 0, -1):
        d_x, g = encoder_block_backward(d_x, block(params, "enc", layer), enc["blocks"][layer - 1], config.eps)
        grads.update({f"enc{layer}.{name}": value for name, value in g.items()})
    grads["src_emb"] = _embedding_grad(params["src_emb"], enc["source"], d_x)
    return loss, grads


def _embedding_grad(table, ids, d_x):
    """dL/dx [B, n, d] -> dL/dE [V, d]: each row scatter-added to its token (the positions have no parameters)."""
    d_table = np.zeros_like(table)
    np.add.at(d_table, ids.ravel(), d_x.reshape(-1, d_x.shape[-1]))
    return d_table


def mean_loss(params, config, source, target):
    """-> the mean cross-entropy over the real target positions, at evaluation (no dropout, no gradients)."""
    logits, _ = forward(params, config, source, target)
    real = target[:, 1:] != 0
    return cross_entropy(logits[real], target[:, 1:][real])[0]
