"""Writing a translation with notebook 09's encoder–decoder, and measuring it: greedy decoding, exact match, alignment.

    ids, weights = translate(params, config, source)               # greedy, one word at a time, with caches
    ids_again, _ = translate(params, config, source, cache=False)  # the whole prefix recomputed at every step
    exact_match(params, config, split)                             # the share of sentences translated exactly
    alignment_accuracy(params, config, split)                      # [L, h]: how often each head's largest
                                                                   # cross-attention weight is on the right token

Decoding with caches. The source is read once: the encoder's output (the memory) does not change while the
decoder writes, so each decoder layer projects it to cross-attention keys and values once per sentence, not
once per word. The decoder's own self-attention keys and values grow by one position per word; they are
kept in notebook 11's `efficient.KVCache`, so each step computes only the new position. Both give exactly
what running the decoder over the whole prefix gives (`cache=False`), which the tests check.
"""

import numpy as np

from attn_lib.block import layer_norm
from attn_lib.core import scaled_dot_product_attention
from attn_lib.efficient import KVCache
from attn_lib.models.encoder_decoder import (
    block,
    check_config,
    check_ids,
    cross_attention_weights,
    decode,
    encode,
    forward,
)
from attn_lib.models.tiny_lm import ffn_forward
from attn_lib.multihead import merge_heads, split_heads
from attn_lib.position import sinusoidal_encoding

BOS, EOS = 1, 2  # target ids (attn_lib.models.translation_corpus)


def _check_length(max_len):
    if isinstance(max_len, bool) or not isinstance(max_len, (int, np.integer)) or max_len < 1:
        raise ValueError(f"max_len must be a positive integer (the most words to write), got {max_len!r}")
    return int(max_len)


def translate(params, config, source, max_len=12, cache=True):
    """source ids [B, S] -> (written ids [B, n], cross-attention weights [L_dec, B, h, n, S]), greedily.

    Each sentence starts from <bos> and takes the most likely word at every step, until it writes <eos>
    (included; after it a sentence writes <pad> = 0) or `max_len` words. Row t of the weights is the
    step that wrote word t. With cache=False the decoder recomputes the whole prefix at every step.
    """
    check_config(config)
    source = check_ids(source, config.source_vocab_size, "source")
    max_len = _check_length(max_len)
    memory, enc = encode(params, config, source)  # [B, S, d]: the source, read once
    if not cache:
        return _translate_recomputing(params, config, memory, enc["mask"], max_len)
    B, h, d = len(source), config.n_heads, config.d_model
    layers = [block(params, "dec", layer) for layer in range(1, config.decoder_layers + 1)]
    # the encoder's keys and values for cross-attention: once per sentence, not once per word
    cross_kv = [
        (split_heads(memory @ p["cross_w_k"], h), split_heads(memory @ p["cross_w_v"], h)) for p in layers
    ]  # each [B, h, S, d_k]
    caches = [KVCache(max_len, d // h, batch_shape=(B, h), dtype=memory.dtype) for _ in layers]
    positions = sinusoidal_encoding(max_len, d).astype(memory.dtype)  # [max_len, d]
    ids, written, weights = np.full(B, BOS), [], []
    finished = np.zeros(B, dtype=bool)
    for t in range(max_len):
        x = params["tgt_emb"][ids][:, None, :] + positions[t]  # [B, 1, d]: the last word, at position t
        step_weights = []
        for p, (k_src, v_src), kv in zip(layers, cross_kv, caches, strict=True):
            z = layer_norm(x, p["ln1_gamma"], p["ln1_beta"], config.eps)  # [B, 1, d]
            q, k, v = (split_heads(z @ p[f"self_{n}"], h) for n in ("w_q", "w_k", "w_v"))  # [B, h, 1, d_k]
            x = x + merge_heads(kv.decode_step(q, k, v)) @ p["self_w_o"]  # causal self-attention, from the cache
            z = layer_norm(x, p["ln2_gamma"], p["ln2_beta"], config.eps)
            q = split_heads(z @ p["cross_w_q"], h)  # [B, h, 1, d_k]: the new word's query
            heads, w = scaled_dot_product_attention(q, k_src, v_src, mask=enc["mask"])  # w: [B, h, 1, S]
            x = x + merge_heads(heads) @ p["cross_w_o"]
            x = x + ffn_forward(layer_norm(x, p["ln3_gamma"], p["ln3_beta"], config.eps), p)[0]
            step_weights.append(w[:, :, 0])  # [B, h, S]
        h_last = layer_norm(x[:, 0], params["dec_norm_gamma"], params["dec_norm_beta"], config.eps)  # [B, d]
        ids = np.where(finished, 0, np.argmax(h_last @ params["w_out"] + params["b_out"], axis=-1))  # [B]
        written.append(ids)
        weights.append(np.stack(step_weights))  # [L, B, h, S]
        finished |= ids == EOS
        if finished.all():
            break
    return np.stack(written, axis=1), np.stack(weights, axis=3)  # [B, n], [L, B, h, n, S]


def _translate_recomputing(params, config, memory, source_mask, max_len):
    """`translate` without caches: at every step the decoder runs over <bos> and every word written so far."""
    B = len(memory)
    inputs = np.full((B, 1), BOS)
    finished = np.zeros(B, dtype=bool)
    for _ in range(max_len):
        logits, caches = decode(params, config, memory, source_mask, inputs)  # [B, t + 1, V]
        ids = np.where(finished, 0, np.argmax(logits[:, -1], axis=-1))  # [B]
        inputs = np.concatenate([inputs, ids[:, None]], axis=1)
        finished |= ids == EOS
        if finished.all():
            break
    weights = np.stack([b["cross"]["weights"] for b in caches["blocks"]])  # [L, B, h, n, S]
    return inputs[:, 1:], weights


def translations(corpus, ids):
    """Written ids [B, n] -> one list of English words per sentence (up to <eos>)."""
    return [corpus.target_words(row) for row in ids]


def exact_match(params, config, split, corpus, max_len=12):
    """-> the share of `split`'s sentences whose greedy translation is, word for word, the reference."""
    ids, _ = translate(params, config, split.source, max_len)
    return float(
        np.mean([words == list(p.target) for words, p in zip(translations(corpus, ids), split.pairs, strict=True)])
    )


def reference_cross_weights(params, config, split):
    """-> cross-attention weights [L_dec, B, h, T, S] while the decoder reads the reference (teacher forcing).

    Row t is the step that writes word t of the reference, as in `translate`, whatever the model would
    have written itself: so every sentence is measured against its known alignment, split.align [B, T].
    """
    _, caches = forward(params, config, split.source, split.target)
    return cross_attention_weights(caches)


def alignment_accuracy(weights, align):
    """weights [..., B, h, T, S], align [B, T] -> [..., h]: for each head, the share of aligned words (align >= 0)
    whose largest weight is on the token they translate. Ties go to the first largest (numpy's argmax)."""
    aligned = align >= 0  # [B, T]
    hits = np.argmax(weights, axis=-1) == align[:, None, :]  # [..., B, h, T]
    return (hits & aligned[:, None, :]).sum(axis=(-3, -1)) / aligned.sum()  # [..., h]


def baseline_alignments(split):
    """-> {"diagonal": ..., "uniform": ...}: the alignment accuracy of two guesses that look at no weights.

    diagonal: word t translates source token t (the last one when t runs past it), as if the word order
    were the same; uniform: the expected score of a guess spread evenly over the sentence's real tokens.
    """
    aligned = split.align >= 0  # [B, T]
    lengths = (split.source != 0).sum(axis=1)  # [B]
    diagonal = np.minimum(np.arange(split.align.shape[1])[None, :], lengths[:, None] - 1)  # [B, T]
    uniform = np.broadcast_to(1.0 / lengths[:, None], split.align.shape)
    return {
        "diagonal": float(np.mean(diagonal[aligned] == split.align[aligned])),
        "uniform": float(uniform[aligned].mean()),
    }
