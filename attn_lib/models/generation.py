"""Writing with notebook 13's model: append one token at a time, recomputing every position or reading a KV cache.

    step = cached_step(params, config)          # step(ids, start) -> logits [V]; keys and values are kept
    ids, logits = generate(params, config, prompt, pick=greedy, stop=end)          # with the KV cache
    ids, logits = generate(params, config, prompt, pick=greedy, stop=end, use_cache=False)   # recomputing
    write(params, config, corpus, "今天 天气", pick)   # words in, words out; stops at the end marker 。

Generation stops at the end marker 。 when `stop` is its id (as `write` does): the model was trained on
sentences that end there, and no position after an end marker ever had a loss, so what it writes
past one is noise. It also stops when the model's n_max positions are used up.

Multiply-adds (MACs) of one step, counted from the matrix products as attn_lib.models.tiny_lm computes
them (d = d_model, F = d_ff, L layers, V vocabulary; embedding look-ups, LayerNorm, softmax and GELU
are O(n d) elementwise work and are not counted):

    forward over n positions     L (4 n d^2 + 2 n d F + 2 n^2 d) + d V
        4 n d^2: the projections W_q, W_k, W_v, W_o; 2 n d F: W_1 and W_2; 2 n^2 d: Q K^T and weights @ V,
        dense n x n (the causal mask is applied to the scores computed, nothing is skipped); d V: the
        unembedding of the last position only (the only one a step needs)
    cached step at position t    L (4 d^2 + 2 d F + 2 (t + 1) d) + d V        (t + 1 keys in the cache)

Writing g tokens after a prompt of p tokens:

    recomputing   sum_{s=0}^{g-1} forward(p + s)
    cached        forward(p) + sum_{s=1}^{g-1} step(p + s - 1)

(the prefill of the p prompt tokens costs one forward(p); each later step feeds the token just written).
"""

import numpy as np

from attn_lib._checks import check_positive_int, describe_value
from attn_lib.models.lm_corpus import BOS, EOS, PAD, LMCorpus
from attn_lib.models.tiny_lm import attention_weights, decode_step, forward, new_caches, unembed
from attn_lib.sampling import greedy


def cached_step(params, config):
    """-> step(ids [m], start) -> logits [V] of the last of them, with its own KV caches (one per layer).

    Each call stores the keys and values of `ids`, fed at positions start .. start+m-1; `start` must be
    the number of tokens stored before (0 for the prompt). step.caches holds the caches.
    """
    caches = new_caches(config, params["tok_emb"].dtype)

    def step(ids, start):
        return decode_step(params, config, caches, ids, start)

    step.caches = caches
    return step


def generate(params, config, prompt, pick=greedy, max_new=None, stop=None, use_cache=True, suppress=()):
    """prompt ids [p] -> (ids [p + g], logits [g, V]): append pick(logits) until `stop`, max_new or n_max.

    use_cache=True: one prefill of the prompt, then one `cached_step` per new token. use_cache=False: the
    whole sequence through `forward` at every step, the last position unembedded. Both give the same
    tokens (tests/test_tiny_lm.py); `pick` maps logits [V] to a token id (attn_lib.sampling.greedy, sampler).
    `suppress`: ids `pick` never sees as candidates (their logits set to -inf); the logits returned are
    the model's own.
    """
    ids = [int(i) for i in np.asarray(prompt).reshape(-1)]
    if not ids:
        raise ValueError("prompt is empty: start with at least the begin marker <bos>")
    if not callable(pick):
        raise TypeError(f"pick must be a function logits [V] -> token id, got {describe_value(pick)}")
    max_new = config.max_len if max_new is None else check_positive_int(max_new, "max_new")
    step = cached_step(params, config) if use_cache else None
    steps = []
    for s in range(max_new):
        if len(ids) > config.max_len:  # the last token written has no position to be read at
            break
        if use_cache:
            new = ids if s == 0 else ids[-1:]  # the prefill, then the token just written
            logits = step(new, len(ids) - len(new))  # [V]
        else:
            h, _ = forward(params, config, np.array([ids]))  # [1, t, d]: every position again
            logits = unembed(params, h[0, -1])  # [d] -> [V]
        steps.append(logits)
        ids.append(int(pick(without(logits, suppress))))
        if ids[-1] == stop:
            break
    return np.array(ids), np.array(steps)  # [p + g], [g, V]


def without(logits, ids):
    """logits [V] -> a copy with the tokens `ids` set to -inf (unchanged when there are none)."""
    if not len(ids):
        return logits
    logits = np.array(logits, copy=True)
    logits[list(ids)] = -np.inf
    return logits


def never_next(corpus):
    """-> the ids of the tokens that never come next in the corpus, <pad> and <bos>: writing leaves them out.

    The model gives them a small probability (it was never trained to give them none); at a high
    temperature a sampler would draw them now and then, and a <bos> in the middle of a sentence means nothing.
    """
    return (corpus.index[PAD], corpus.index[BOS])


def prompt_ids(corpus, prompt):
    """words (a string with spaces, or a list) -> ids [p] of <bos> and the words."""
    if not isinstance(corpus, LMCorpus):
        raise TypeError(
            f"corpus must be an LMCorpus (attn_lib.models.lm_corpus.make_lm_corpus()), got {describe_value(corpus)}"
        )
    words = prompt.split() if isinstance(prompt, str) else list(prompt)
    return corpus.encode([BOS, *words])


def write(params, config, corpus, prompt, pick=greedy, max_new=None, use_cache=True):
    """prompt words -> the words written after them, up to and including the end marker 。 (or n_max).

    The tokens that never come next (`never_next`: <pad>, <bos>) are left out of the candidates.
    """
    ids = prompt_ids(corpus, prompt)
    written, _ = generate(params, config, ids, pick, max_new, corpus.index[EOS], use_cache, never_next(corpus))
    return corpus.decode(written[len(ids) :])


def next_token_logits(params, config, corpus, prompt):
    """prompt words -> logits [V] of the next token after <bos> + the words (one prefill)."""
    ids = prompt_ids(corpus, prompt)
    return cached_step(params, config)(ids, 0)


def last_position_attention(params, config, corpus, prompt):
    """prompt words -> (weights [L, h, n], tokens [n]): where the last position looks, in every layer and head."""
    ids = prompt_ids(corpus, prompt)
    _, caches = forward(params, config, ids[None])
    return attention_weights(caches)[:, 0, :, -1, :], corpus.decode(ids)  # [L, 1, h, n, n] -> [L, h, n]


# --- what a step costs ---------------------------------------------------------------------------------


def macs_forward(config, n):
    """-> the multiply-adds of `forward` over n positions, with the last position unembedded."""
    d, F, L, V = config.d_model, config.d_ff, config.n_layers, config.vocab_size
    return L * (4 * n * d * d + 2 * n * d * F + 2 * n * n * d) + d * V


def macs_cached_step(config, t):
    """-> the multiply-adds of one cached step for the token at position t (t + 1 keys once it is stored)."""
    d, F, L, V = config.d_model, config.d_ff, config.n_layers, config.vocab_size
    return L * (4 * d * d + 2 * d * F + 2 * (t + 1) * d) + d * V


def macs_generate(config, p, g, use_cache):
    """-> the multiply-adds of writing g tokens after a p-token prompt, with or without the KV cache."""
    p, g = check_positive_int(p, "p"), check_positive_int(g, "g")
    if not use_cache:
        return sum(macs_forward(config, p + s) for s in range(g))
    return macs_forward(config, p) + sum(macs_cached_step(config, p + s - 1) for s in range(1, g))
