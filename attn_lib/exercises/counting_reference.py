"""Notebook 01's counting reference: what followed the last k tokens, and its classic mistakes as options.

`window_counts` is the reference of `attn_lib.exercises.counting.check_window_counts` (which re-exports
it). It sits alone in this module, importing nothing of the package, so that `attn_lib.exercises.forbid`
can forbid it: the checker's own public answer may not stand in for the learner's.
"""


def window_counts(
    corpus, context, k, *, start=False, width=None, first_only=False, weighted=True, stream=False, last=False
):
    """What followed the last k tokens of `context` in `corpus`, or one classic mistake when asked.

    start: the first k tokens instead of the last; width: a window of `width` tokens instead of k;
    first_only: only the first occurrence in each sentence; weighted=False: every sentence counted
    once; stream: the sentences joined into one long text (so windows run across sentence ends);
    last: the window's own last token counted, wherever the window occurs, instead of the next one.
    """
    width = k if width is None else width
    window = tuple(context[:width] if start else context[len(context) - width :])
    sentences = [(sentence.split(), count if weighted else 1) for sentence, count in corpus]
    if stream:
        sentences = [([token for tokens, count in sentences for _ in range(count) for token in tokens], 1)]
    counts = {}
    for tokens, count in sentences:
        for i in range(len(tokens) - len(window) + last):
            if tuple(tokens[i : i + len(window)]) == window:
                token = tokens[i + len(window) - last]
                counts[token] = counts.get(token, 0) + count
                if first_only:
                    break
    return counts
