"""A BERT encoder's forward pass in numpy, built on attn_lib.multi_head_attention.

One encoder layer (post-layer-norm, as in BERT):

    A = LayerNorm(X + MultiHead(X))                      MultiHead with biases on Q, K, V and O
    Y = LayerNorm(A + GELU(A W_1 + b_1) W_2 + b_2)       the position-wise feed-forward network

The input X is the sum of three learned embeddings (token, position, segment) followed by a layer
norm. A sentence embedding (sentence-transformers style) is the mean of the last hidden states over
the real tokens, scaled to length 1. Weights are stored for ``x @ w`` (PyTorch's Linear stores the
transpose). Everything works on one sentence [n, ...] or a padded batch [b, n, ...].

The seam: `encoder_layer` and `bert_encoder` take a keyword-only ``attention=`` that replaces the scaled
dot-product step inside every head of every layer, e.g. a learner's own function from notebook 04 or 05.
It must do what attn_lib.scaled_dot_product_attention does: called as ``attention(q, k, v, mask=mask)``
with q, k, v float [..., h, n, d_k] (already projected, biases added, split into heads) and mask bool
[..., 1, 1, n] (True = a real token; None when there is no padding mask), it returns
(output [..., h, n, d_k], weights [..., h, n, n]). The default, None, is attn_lib's own
multi_head_attention, unchanged.
"""

import numpy as np

from attn_lib._checks import describe_value
from attn_lib.block import erf, feed_forward, feed_forward_unchecked, gelu, layer_norm, layer_norm_unchecked  # noqa: F401 (erf, gelu, feed_forward, layer_norm: part of this module's API)
from attn_lib.multihead import merge_heads, multi_head_attention, split_heads


def padding_mask(attention_mask):
    """[..., n] 0/1 -> bool [..., 1, 1, n]: query i may attend to key j iff j is a real token (not padding).

    The two inserted axes broadcast over the heads and the queries of multi_head_attention's weights
    [..., h, n, n]. Padded query rows still attend to the real tokens; their outputs are ignored later.
    """
    keep = np.asarray(attention_mask).astype(bool)  # [..., n]
    return keep[..., None, None, :]  # [..., n] -> [..., 1, 1, n]


def embed_tokens(input_ids, params, token_type_ids=None, eps=1e-12):
    """int [..., n] -> [..., n, d_model]: LayerNorm(token embedding + position embedding + segment embedding)."""
    input_ids = np.asarray(input_ids)
    n = input_ids.shape[-1]
    token_type_ids = np.zeros_like(input_ids) if token_type_ids is None else np.asarray(token_type_ids)
    x = (
        params["word_embeddings"][input_ids]  # [..., n] -> [..., n, d_model]
        + params["position_embeddings"][:n]  # [n, d_model], positions 0..n-1
        + params["token_type_embeddings"][token_type_ids]  # [..., n] -> [..., n, d_model]
    )
    return layer_norm_unchecked(x, params["embeddings_ln_gamma"], params["embeddings_ln_beta"], eps)


def _check_attention_result(value, q, weights_shape):
    """The (output, weights) pair a replacement `attention` returned, as arrays of q's dtype, or a clear error."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(
            f"attention must return (output, weights) like scaled_dot_product_attention, got {type(value).__name__}"
        )
    output, weights = (np.asarray(a, dtype=q.dtype) for a in value)
    if output.shape != q.shape or weights.shape != weights_shape:
        raise ValueError(
            f"attention returned output {output.shape} and weights {weights.shape}; for q, k, v {q.shape} they"
            f" must be [..., h, n, d_k] = {q.shape} and [..., h, n, n] = {weights_shape}"
        )
    if not (np.isfinite(output).all() and np.isfinite(weights).all()):
        raise ValueError("attention returned NaN or inf; the output and the weights must be finite")
    return output, weights


def multi_head_with(attention, x, layer, n_heads, mask=None):
    """[..., n, d_model] -> output [..., n, d_model], weights [..., h, n, n]: BERT's multi-head step, with
    `attention` (the contract in the module docstring) in place of scaled_dot_product_attention.

    The same steps as multi_head_attention with biases: with attention=scaled_dot_product_attention the
    results are bit for bit those of multi_head_attention.
    """
    q = split_heads(x @ layer["w_q"] + layer["b_q"], n_heads)  # [..., n, d_model] -> [..., h, n, d_k]
    k = split_heads(x @ layer["w_k"] + layer["b_k"], n_heads)  # [..., h, n, d_k]
    v = split_heads(x @ layer["w_v"] + layer["b_v"], n_heads)  # [..., h, n, d_k]
    n = q.shape[-2]
    heads, weights = _check_attention_result(attention(q, k, v, mask=mask), q, (*q.shape[:-1], n))
    return merge_heads(heads) @ layer["w_o"] + layer["b_o"], weights  # [..., n, d_model] x [d_model, d_model]


def encoder_layer(x, layer, n_heads, mask=None, eps=1e-12, *, attention=None):
    """[..., n, d_model] -> [..., n, d_model], weights [..., h, n, n]: attention, then feed-forward, each
    followed by a residual connection and a layer norm.

    `attention`: None for attn_lib's multi_head_attention, or a replacement for the scaled dot-product
    step in every head (the contract is in the module docstring).
    """
    if attention is None:
        heads_out, weights = multi_head_attention(
            x, layer["w_q"], layer["w_k"], layer["w_v"], layer["w_o"], n_heads, mask=mask,
            b_q=layer["b_q"], b_k=layer["b_k"], b_v=layer["b_v"], b_o=layer["b_o"],
        )  # fmt: skip
    else:
        heads_out, weights = multi_head_with(attention, x, layer, n_heads, mask)
    # the model's own weights need no check at every call (the file is checked against its SHA-256 when loaded)
    x = layer_norm_unchecked(x + heads_out, layer["ln1_gamma"], layer["ln1_beta"], eps)  # [..., n, d_model]
    ff = feed_forward_unchecked(x, layer["w_1"], layer["b_1"], layer["w_2"], layer["b_2"])  # [..., n, d_model]
    return layer_norm_unchecked(x + ff, layer["ln2_gamma"], layer["ln2_beta"], eps), weights


def bert_encoder(input_ids, params, n_heads, attention_mask=None, eps=1e-12, *, attention=None):
    """int [..., n] -> hidden states [..., L+1, n, d_model], weights [..., L, h, n, n].

    hidden_states[..., 0, :, :] is the embedding layer's output and hidden_states[..., l, :, :] the
    output of layer l (so [..., -1, :, :] is the last hidden state); weights[..., l, i] is head i of
    layer l+1. `attention_mask` (1 = real token, 0 = padding; default all 1) keeps padding out of
    every head's keys. `attention` (keyword-only, default None = attn_lib's own) replaces the scaled
    dot-product step in every head of every layer; see the module docstring for its contract.
    """
    if attention is not None and not callable(attention):
        raise TypeError(
            f"attention must be a function like scaled_dot_product_attention or None, got {describe_value(attention)}"
        )
    mask = None if attention_mask is None else padding_mask(attention_mask)  # [..., 1, 1, n]
    x = embed_tokens(input_ids, params, eps=eps)  # [..., n, d_model]
    hidden, weights = [x], []
    for layer in params["layers"]:
        x, w = encoder_layer(x, layer, n_heads, mask, eps, attention=attention)  # [..., n, d_model], [..., h, n, n]
        hidden.append(x)
        weights.append(w)
    return np.stack(hidden, axis=-3), np.stack(weights, axis=-4)  # [..., L+1, n, d_model], [..., L, h, n, n]


def mean_pooling(hidden, attention_mask=None):
    """[..., n, d_model], [..., n] -> [..., d_model]: the average of the hidden states of the real tokens."""
    if attention_mask is None:
        return hidden.mean(axis=-2)
    keep = np.asarray(attention_mask).astype(hidden.dtype)[..., None]  # [..., n] -> [..., n, 1]
    total = (hidden * keep).sum(axis=-2)  # [..., n, d_model] -> [..., d_model]
    return total / np.maximum(keep.sum(axis=-2), 1e-9)  # divided by the number of real tokens


def l2_normalize(x, eps=1e-12):
    """[..., d] -> [..., d]: x / ||x||, so that a dot product of two results is their cosine similarity."""
    return x / np.maximum(np.linalg.norm(x, axis=-1, keepdims=True), eps)
