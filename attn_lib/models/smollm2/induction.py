"""Induction heads in a real model: found by a computed rule, then switched off to see what they do.

An induction head (Olsson et al. 2022, "In-context learning and induction heads") completes a repeat:
having seen ... A B ... once, at the next A it looks at the token that followed the first A, B, and the
model predicts B again. The rule that finds them: feed n random tokens r_0 .. r_{n-1} twice; at position
n + i (the second r_i) such a head puts its weight on position i + 1 (the token that followed the first
r_i). A head's score is that weight averaged over i = 0 .. n-1; a head that spreads its weight evenly over
the positions it may see scores about 1 / (n + i + 1) (`chance_score`).

    tokens = repeated_random_tokens(ordinary_tokens(model), n=50, seed=0)          # [100]
    losses, weights = forward(model, tokens, keep_weights=True, losses=True)       # [99], [30][9, 100, 100]
    scores = induction_scores(weights, 50)                                         # [30, 9]
    top_heads(scores, 5)                                                           # [(layer, head, score)], from 0
    copy_loss(model, tokens, heads=...)        # the second half's loss with those heads' outputs set to zero

Layers and heads count from 0 here; the notebook shows them from 1, as notebook 10 does.
"""

import numpy as np

from attn_lib._checks import check_positive_int, check_seed
from attn_lib.models.smollm2.model import forward


def ordinary_tokens(model):
    """-> int [m]: ids of plain word tokens, a space followed by 3 or more ASCII letters (' house', ' river')."""
    ids = []
    for i in range(model.config.vocab_size):
        piece = model.tokenizer.id_to_token(i)  # byte-level spelling: 'Ġ' is a space
        if piece.startswith("Ġ") and len(piece) >= 4 and piece[1:].isascii() and piece[1:].isalpha():
            ids.append(i)
    return np.array(ids)


def repeated_random_tokens(candidates, n, seed):
    """int [m], n, seed -> int [2n]: n distinct tokens drawn with default_rng(seed), then the same n again."""
    n = check_positive_int(n, "n")
    first = np.random.default_rng(check_seed(seed)).choice(candidates, size=n, replace=False)  # [n]
    return np.concatenate([first, first])  # [2n]


def induction_scores(weights, n):
    """weights [L][h, 2n, 2n] of a sequence repeated twice -> [L, h]: mean weight from position n + i to i + 1.

    i runs over 0 .. n-1 (for i = n-1 the token after the first occurrence is position n itself).
    """
    i = np.arange(n)
    return np.stack([w[:, n + i, i + 1].mean(axis=-1) for w in weights])  # [L][h, n] -> [L, h]


def chance_score(n):
    """The score of a head that spreads its weight evenly: the mean over i of 1 / (n + i + 1)."""
    return float(np.mean(1.0 / (n + np.arange(n) + 1)))


def top_heads(scores, k=5):
    """[L, h] -> [(layer, head, score)] for the k largest scores, largest first (layers and heads from 0)."""
    flat = np.argsort(scores, axis=None, kind="stable")[::-1][:k]
    layers, heads = np.unravel_index(flat, scores.shape)
    return [(int(layer), int(head), float(scores[layer, head])) for layer, head in zip(layers, heads, strict=True)]


def without_heads(heads, n_layers, group):
    """-> an attention function for forward(attention=...) that sets the outputs of `heads` to zero.

    heads: (layer, head) pairs, from 0. forward calls the function once per layer, in order, with the query
    heads grouped as [h_kv, group, n_q, d] (attn_lib.grouped.grouped_attention), so head j is [j // group,
    j % group]. Its weights are returned unchanged (a head switched off still computes them).
    """
    from attn_lib.core import scaled_dot_product_attention

    calls = [0]
    off = {(int(layer), int(head)) for layer, head in heads}

    def attention(q, k, v, mask=None):
        layer = calls[0] % n_layers
        calls[0] += 1
        output, weights = scaled_dot_product_attention(q, k, v, mask=mask)
        for lay, head in off:
            if lay == layer:
                output[head // group, head % group] = 0  # [h_kv, group, n_q, d]: query head `head`
        return output, weights

    return attention


def copy_loss(model, tokens, heads=()):
    """tokens [2n] -> the mean next-token loss (nats) over the second half, with `heads` switched off.

    Position n + i - 1 predicts token n + i for i = 1 .. n - 1: each of them has been seen once already.
    """
    n = len(tokens) // 2
    cfg = model.config
    attention = without_heads(heads, cfg.n_layers, cfg.n_heads // cfg.n_kv_heads) if heads else None
    losses = forward(model, tokens, attention=attention, losses=True)  # [2n - 1]: position t predicts token t + 1
    return float(losses[n:].mean())  # positions n .. 2n - 2: the second r_1 .. r_{n-1}
