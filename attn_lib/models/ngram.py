"""A counted next-token model: the simplest language model, and why a short window is not enough.

An n-gram model of ``order`` n predicts the next token from the last n - 1 tokens only:

    P(next = w | context) = count(last n-1 tokens of context, then w) / count(last n-1 tokens, then anything)

The corpus is a sequence of ``(sentence, count)`` pairs, as in `attn_lib.examples.TINY_CORPUS`:
a sentence is either a string of tokens separated by spaces or a sequence of token strings, and
``count`` says how many times it occurs. N-grams are counted inside each sentence, never across two.
"""

import numbers

import numpy as np

from attn_lib._checks import _describe


def _tokens(value, name):
    """A string split on whitespace, or a sequence of non-empty strings, as a tuple of tokens."""
    if isinstance(value, str):
        return tuple(value.split())
    if isinstance(value, (list, tuple)) and all(isinstance(tok, str) and tok.strip() for tok in value):
        return tuple(value)
    raise TypeError(
        f"{name} must be a string of space-separated tokens or a list/tuple of non-empty token strings,"
        f" got {_describe(value)}"
    )


def _check_order(order):
    if isinstance(order, bool) or not isinstance(order, numbers.Integral):
        raise TypeError(f"order must be a positive integer (2 = bigram, 3 = trigram), got {_describe(order)}")
    if order < 1:
        raise ValueError(f"order={order} must be at least 1 (1 = unigram, 2 = bigram, 3 = trigram)")
    return int(order)


def _check_corpus(corpus):
    """The corpus as a list of (tokens, count) pairs, with a clear error for any malformed entry."""
    if isinstance(corpus, (str, bytes)) or not isinstance(corpus, (list, tuple)):
        raise TypeError(f"corpus must be a list/tuple of (sentence, count) pairs, got {_describe(corpus)}")
    if not corpus:
        raise ValueError("corpus is empty: there is nothing to count")
    pairs = []
    for i, entry in enumerate(corpus):
        if not isinstance(entry, (list, tuple)) or len(entry) != 2:
            raise TypeError(f"corpus[{i}] must be a (sentence, count) pair, got {_describe(entry)}")
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
