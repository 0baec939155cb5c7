"""Which blocks of keys a block of queries reads, and which of their scores it must hide (causal, window).

Bookkeeping for `attn_lib.efficient.tiled_attention`: query i sits at position n_k - n_q + i of the
sequence (the queries are the last n_q positions); with `causal` it sees keys up to its own position,
with `window=W` only keys j with p - j < W (and |p - j| < W without `causal`).
"""

import numpy as np

#: With `causal` and `split`, a key block that crosses the diagonal is cut into pieces this many times narrower (when
#: it is at least MIN_SPLIT keys wide), and each piece is computed only for the query rows that see one of its keys:
#: the diagonal block of 512 x 512 scores then costs 0.62 of a full block instead of 1, of which 0.5 is needed.
DIAGONAL_SPLIT, MIN_SPLIT = 4, 256


def plan_blocks(n_q, n_k, block_q, block_k, causal, window, split=False):
    """[(scores, i0, i1, key blocks)]: each block of query rows, the key blocks [(j0, j1, r0), ...] it reads and the
    number of scores it computes. Rows i0 + r0 .. i1 - 1 read keys j0 .. j1 - 1: with `causal`, the first r0 rows of
    the block come before key j0 and see none of them (r0 = 0 for every block below the diagonal). Without `split`
    r0 is 0 and the key blocks are exactly block_k wide: every product then has the shapes it had before the split
    existed, so given blocks give the same bits as before."""
    plans = []
    for i0 in range(0, n_q, block_q):
        i1 = min(i0 + block_q, n_q)
        # the keys some query of this block may see: positions p0 .. p1 see keys k_start .. k_end - 1
        p0, p1 = n_k - n_q + i0, n_k - n_q + i1 - 1
        k_end = min(n_k, p1 + 1 if causal else n_k if window is None else p1 + window)
        k_start = 0 if window is None else max(0, p0 - window + 1)
        blocks = []
        for j0 in range(k_start, k_end, block_k):
            j1 = min(j0 + block_k, k_end)
            crosses = causal and split and j1 - 1 > p0 and block_k >= MIN_SPLIT
            step = block_k // DIAGONAL_SPLIT if crosses else block_k
            blocks += [(a, min(a + step, j1), max(0, a - p0) if causal and split else 0) for a in range(j0, j1, step)]
        plans.append((sum((i1 - i0 - r0) * (j1 - j0) for j0, j1, r0 in blocks), i0, i1, blocks))
    return plans


def _hidden_in_block(p0, p1, j0, j1, causal, window, cache=None):
    """bool [p1 - p0 + 1, j1 - j0]: which keys j0 .. j1-1 the queries at positions p0 .. p1 may not see.

    None when every query of the block may see every key of it (no mask to apply). The pattern depends
    only on p0 - j0 and the block's size, so `cache` (a dict) keeps the patterns already made.
    """
    future = causal and j1 - 1 > p0  # the first query of the block would see a key after itself
    too_old = window is not None and p1 - j0 >= window  # the last query would see a key outside its window
    too_new = window is not None and not causal and j1 - 1 - p0 >= window  # two-sided: too far ahead
    if not (future or too_old or too_new):
        return None
    key = (p0 - j0, p1 - p0, j1 - j0)
    if cache is not None and key in cache:
        return cache[key]
    distance = np.arange(p0, p1 + 1)[:, None] - np.arange(j0, j1)  # [bq, 1] - [bk] -> [bq, bk]: p - j
    hidden = distance < 0 if causal else np.zeros(distance.shape, bool)
    if window is not None:
        hidden |= distance >= window if causal else np.abs(distance) >= window
    if cache is not None:
        cache[key] = hidden
    return hidden
