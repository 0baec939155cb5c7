"""A counted next-token model: the simplest language model, and why a short window is not enough.

An n-gram model of ``order`` n predicts the next token from the last n - 1 tokens only:

    P(next = w | context) = count(last n-1 tokens of context, then w) / count(last n-1 tokens, then anything)

The corpus is a sequence of ``(sentence, count)`` pairs, as in `attn_lib.examples.TINY_CORPUS`:
a sentence is either a string of tokens separated by spaces or a sequence of token strings, and
``count`` says how many times it occurs. N-grams are counted inside each sentence, never across two.

Notebook 01 asks what follows one context (`count_next_tokens`, `next_token_distribution`). Notebook 13
scores every token of held-out sentences, to compare a counted model with a trained one: `count_windows`
(the start of each sentence padded with a begin marker), add-one smoothing (`add_one_log_probs`) or
interpolation with weights chosen on validation sentences (`interpolation_parts`, `fit_interpolation`,
`interpolated_log_probs`), and `perplexity`.
"""

import itertools
import numbers

import numpy as np

from attn_lib._checks import describe_value


def _tokens(value, name):
    """A string split on whitespace, or a sequence of non-empty strings, as a tuple of tokens."""
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, (list, tuple)) and all(isinstance(tok, str) and tok.strip() for tok in value):
        return tuple(value)
    raise TypeError(
        f"{name} must be a string of space-separated tokens or a list/tuple of non-empty token strings,"
        f" got {describe_value(value)}"
    )


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, numbers.Integral):
        raise TypeError(f"order must be a positive integer (2 = bigram, 3 = trigram), got {describe_value(order)}")
    if order < 1:
        raise ValueError(f"order={order} must be at least 1 (1 = unigram, 2 = bigram, 3 = trigram)")
    return int(order)


def _check_corpus(corpus):
    """The corpus as a list of (tokens, count) pairs, with a clear error for any malformed entry."""
    if isinstance(corpus, (str, bytes)) or not isinstance(corpus, (list, tuple)):
        raise TypeError(f"corpus must be a list/tuple of (sentence, count) pairs, got {describe_value(corpus)}")
    if not corpus:
        raise ValueError("corpus is empty: there is nothing to count")
    pairs = []
    for i, entry in enumerate(corpus):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise TypeError(f"corpus[{i}] must be a (sentence, count) pair, got {describe_value(entry)}")
        sentence, count = entry
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < 1:
            raise ValueError(f"corpus[{i}] has count {count!r}; a count must be a positive integer")
        pairs.append((_tokens(sentence, f"corpus[{i}][0]"), int(count)))
    return pairs


def count_next_tokens(corpus, context, order):
    """(corpus, context, n) -> {token: count}: what followed the last n - 1 tokens of `context`.

    Keys appear in order of decreasing count, ties in order of first occurrence in the corpus.
    An empty dict means the corpus never contains that (n - 1)-token context followed by a token.
    """
    pairs = _check_corpus(corpus)
    context = _tokens(context, "context")
    order = _check_order(order)
    if len(context) < order - 1:
        raise ValueError(
            f"context has {len(context)} token(s) {context} but an order-{order} model conditions on the"
            f" last {order - 1}; pass a longer context or a smaller order"
        )
    window = context[len(context) - (order - 1) :]  # the last n - 1 tokens: all the model ever sees
    counts = {}
    for tokens, count in pairs:
        for i in range(len(tokens) - len(window)):
            if tokens[i : i + len(window)] == window:
                nxt = tokens[i + len(window)]
                counts[nxt] = counts.get(nxt, 0) + count
    return dict(sorted(counts.items(), key=lambda item: -item[1]))  # stable sort keeps first-seen order


def next_token_distribution(corpus, context, order):
    """(corpus, context, n) -> (tokens, probabilities [V]): counts divided by their total; sums to 1.

    Raises ValueError when the context never occurs in the corpus: counting gives no estimate then.
    """
    counts = count_next_tokens(corpus, context, order)
    if not counts:
        window = _tokens(context, "context")[-(order - 1) :] if order > 1 else ()
        raise ValueError(
            f"the {order - 1}-token context {' '.join(window)!r} never occurs in the corpus followed by a"
            f" token, so an order-{order} counted model has no estimate for it"
        )
    tokens = tuple(counts)
    values = np.array([counts[tok] for tok in tokens], dtype=np.float64)  # [V]
    return tokens, values / values.sum()  # [V] -> [V], sums to 1


# --- every token scored: smoothing for unseen windows, and perplexity (notebook 13) ----------------------
#
# To compare a counted model with a trained one on held-out sentences, every token of every sentence is
# predicted, the first ones too: a sentence's start is padded with n - 1 copies of a begin marker, so the
# first token's window is (<bos>, ..., <bos>). A window never seen in training, or a token never seen after
# it, would get probability 0 and an infinite loss; two standard fixes (Jurafsky & Martin, chapter 3):
#
#     add-one (Laplace)   P(w | c) = (count(c, w) + 1) / (count(c) + V)       V = the tokens that can come next
#     interpolated        P(w | c) = l_n P_ML(w | last n-1) + ... + l_1 P_ML(w) + l_0 / V      (Jelinek-Mercer)
#
# In the interpolated model a window never seen falls back to the next shorter window's P_ML, and the
# weights l are chosen on a validation corpus (`fit_interpolation`), never on the test sentences.

BOS = "<bos>"


def windows(tokens, order, start=BOS):
    """tokens [m] -> [(the n - 1 tokens before token i, token i)] for i = 0 .. m-1, the start padded with `start`."""
    padded = (start,) * (order - 1) + tuple(tokens)
    return [(padded[i : i + order - 1], padded[i + order - 1]) for i in range(len(tokens))]


def count_windows(corpus, order, start=BOS):
    """(corpus, n) -> {window (n - 1 tokens): {token: count}} over every token of every sentence (start padded)."""
    pairs, order = _check_corpus(corpus), _check_order(order)
    table = {}
    for tokens, count in pairs:
        for window, token in windows(tokens, order, start):
            row = table.setdefault(window, {})
            row[token] = row.get(token, 0) + count
    return table


def _scored(sentences, vocabulary):
    """The (tokens, count) pairs of `sentences`, every token checked to be in `vocabulary`, and the vocabulary set."""
    pairs = _check_corpus(sentences)
    if isinstance(vocabulary, str) or not hasattr(vocabulary, "__iter__"):
        raise TypeError(
            f"vocabulary must be a collection of the tokens that can come next, got {describe_value(vocabulary)}"
        )
    vocabulary = set(vocabulary)
    unknown = sorted({tok for tokens, _ in pairs for tok in tokens} - vocabulary)
    if unknown:
        raise ValueError(f"tokens {unknown[:5]} of the sentences are not in the vocabulary: smoothing needs every one")
    return pairs, vocabulary


def add_one_log_probs(corpus, sentences, order, vocabulary, start=BOS):
    """-> log P [N] of every token of `sentences` (each as often as its count) under add-one smoothing.

    P(w | c) = (count(c, w) + 1) / (count(c) + V), counted on `corpus`; V = len(vocabulary), the tokens
    that can come next. A window never seen gets 1 / V for every token.
    """
    table = count_windows(corpus, order, start)
    pairs, vocabulary = _scored(sentences, vocabulary)
    out = []
    for tokens, count in pairs:
        for window, token in windows(tokens, order, start):
            row = table.get(window, {})
            out += [np.log((row.get(token, 0) + 1) / (sum(row.values()) + len(vocabulary)))] * count
    return np.array(out)  # [N]


def interpolation_parts(corpus, sentences, order, vocabulary, start=BOS):
    """-> [N, order + 1]: P_ML(w | last n-1 tokens), ..., P_ML(w | last 1), P_ML(w), 1 / V for every token.

    P_ML are the counted probabilities of `corpus` (count(c, w) / count(c)); a window never seen takes
    the next shorter window's value, so every column is a distribution over the vocabulary.
    """
    order = _check_order(order)
    tables = {n: count_windows(corpus, n, start) for n in range(1, order + 1)}
    totals = {n: {window: sum(row.values()) for window, row in tables[n].items()} for n in tables}
    pairs, vocabulary = _scored(sentences, vocabulary)
    out = []
    for tokens, count in pairs:
        by_order = {n: windows(tokens, n, start) for n in range(1, order + 1)}  # every token's window, once
        for i in range(len(tokens)):
            probs = [1.0 / len(vocabulary)]
            for n in range(1, order + 1):  # shortest window first, so an unseen window can fall back
                window, token = by_order[n][i]
                row = tables[n].get(window)
                probs.append(probs[-1] if row is None else row.get(token, 0) / totals[n][window])
            out += [probs[::-1]] * count  # [order n, ..., 1, uniform]
    return np.array(out)  # [N, order + 1]


def fit_interpolation(parts, step=0.05):
    """[N, k] parts of a *validation* corpus -> weights [k] (summing to 1, the uniform's >= 0.001) of lowest loss.

    A grid search over the weights in steps of `step`: the mean of -log(parts @ weights) is the loss.
    """
    parts = np.asarray(parts, dtype=np.float64)
    k = parts.shape[-1]
    ticks = np.arange(0.0, 1.0 + 1e-9, step)
    grid = [w + (1.0 - sum(w),) for w in itertools.product(ticks, repeat=k - 1) if sum(w) <= 0.999 + 1e-9]
    grid = np.array(grid)  # [G, k]
    losses = np.concatenate([-np.log(parts @ grid[i : i + 128].T).mean(axis=0)  # [N, k] x [k, 128] -> [128]
                             for i in range(0, len(grid), 128)])  # fmt: skip  # 128 at a time: a few MB, not 100
    return grid[int(np.argmin(losses))]


def interpolated_log_probs(parts, weights):
    """[N, k] parts, weights [k] -> log P [N] = log(parts @ weights)."""
    return np.log(np.asarray(parts) @ np.asarray(weights))


def perplexity(log_probs):
    """log P [N] of N tokens -> exp(-mean log P): the number of equally likely tokens the model is as unsure as."""
    log_probs = np.asarray(log_probs, dtype=np.float64)
    if log_probs.ndim != 1 or not len(log_probs):
        raise ValueError(
            f"log_probs must be a non-empty 1-D array of log-probabilities, got {describe_value(log_probs)}"
        )
    return float(np.exp(-log_probs.mean()))


def most_likely_next(table, context, order, start=BOS):
    """(count_windows(corpus, n), context, n) -> the most counted token after the last n - 1 tokens, or None if unseen.

    Ties go to the token counted first; the context's start is padded with `start`, as the table's was.
    """
    order = _check_order(order)
    padded = (start,) * (order - 1) + _tokens(context, "context")
    row = table.get(padded[len(padded) - (order - 1) :])  # the last n - 1 tokens ((), for a unigram)
    return None if not row else max(row, key=row.get)
