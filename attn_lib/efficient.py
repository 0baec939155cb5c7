"""Efficient attention: the same softmax(Q K^T / sqrt(d_k) + M) V, computed without an n x n matrix.

The formula as written forms every score at once: n = 32,768 tokens make a 32,768 x 32,768 matrix,
4 GiB in float32, for one head. Three ways around it, each exact (equal to
`attn_lib.scaled_dot_product_attention` up to floating-point rounding):

- `tiled_attention`: blocks of queries against blocks of keys with an *online softmax* (the
  FlashAttention idea). A running maximum and a running sum per query row let each block's partial
  output be rescaled when a later block brings a larger score. At most one block of scores exists
  at any time, so memory grows with n, not n^2. The weights are never formed, so only the output
  is returned.
- `KVCache`: autoregressive decoding. The keys and values of past tokens never change (a causal
  model cannot see the future), so they are stored once and each new token attends over them:
  O(n) work per step instead of recomputing the whole O(n^2) attention.
- `blocked_attention_with_weights`: the full weights are still returned, but they are computed a
  block of query rows at a time, so the working block stays in the CPU cache.
  `scaled_dot_product_attention` takes this path by itself for long inputs (core's
  `attention_blocked`); this function exposes it for any size.

Speed, in plain numpy (issue 29): the blocks of query rows of all heads are independent, so
`tiled_attention` and `blocked_attention_with_weights` hand them to one thread per core (numpy
releases the GIL inside its matrix products and ufuncs; `attn_lib._threads`); each thread works in
place on one cache-sized block of scores (`np.exp(s, out=s)`) and normalises the d_v numbers of an
output row instead of its n_k weights. The time goes into the two matrix products per block
(Q K^T and P V, 2 d_k multiply-adds per score for d_v = d_k) and into the passes over each block of
scores (max, subtract, exp, sum); `benchmarks/attention_speed.py` measures both against PyTorch.

All three compute float16 inputs in float32 (the running max, sum and output of the online softmax
too) and round the results to float16 once, at the end, as FlashAttention does.

Causal rectangles: when there are fewer queries than keys (n_q < n_k, e.g. the new tokens of a
decoding step), `tiled_attention(causal=True)` and `KVCache` treat the queries as the *last* n_q
positions: query i sees keys 0 .. i + n_k - n_q (the mask is aligned to the bottom-right corner).
PyTorch's `scaled_dot_product_attention(is_causal=True)` aligns it to the top-left instead (query
i sees keys 0 .. i). Both agree when n_q == n_k.
"""

import numpy as np

from attn_lib._checks import (
    as_float_array,
    check_fits,
    check_float_dtype,
    check_kv_heads_divide,
    check_positive_int,
    describe_value,
    float_dtype,
    work_dtype,
)
from attn_lib._threads import MIN_PARALLEL_WORK, buffer, resolve_threads, run_tasks
from attn_lib._tiles import _hidden_in_block, plan_blocks
from attn_lib.core import (
    attention_blocked,
    check_mask,
    check_no_overflow,
    check_qkv,
    check_scale,
    may_overflow,
)


def _prepare(q, k, v, mask, scale):
    """Validated q, k, v (in the dtype to compute in), batch shape, mask (or None), result dtype and scale."""
    q, k, v, batch = check_qkv(q, k, v)
    dtype = float_dtype(q, k, v)
    work = work_dtype(dtype)  # float16 is computed in float32
    q, k, v = q.astype(work, copy=False), k.astype(work, copy=False), v.astype(work, copy=False)
    scale = check_scale(scale, q.shape[-1], work)
    if mask is not None:
        scores_shape = (*batch, q.shape[-2], k.shape[-2])
        mask = np.broadcast_to(check_mask(mask, scores_shape, dtype), scores_shape)  # a view: blocks slice it
    return q, k, v, batch, mask, dtype, scale


def _check_bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {describe_value(value)}")
    return bool(value)


# Default blocks: a [block_q, block_k] block of scores of about one core's L2 cache (1 MiB), at most 512 keys wide
# (beyond, q @ k^T got slower: OpenBLAS keeps a packed panel of k^T in L2) and 512 rows high.
_BLOCK_BYTES = 1 << 20
_MAX_BLOCK = 512
# Scores within +-_EXP_BOUND need no running max: exp(30) = 1.1e13 is far from float32's largest number
# (3.4e38) and exp(-30) = 9.4e-14 far from its smallest normal one (1.2e-38); likewise 300 in float64.
_EXP_BOUND = {np.dtype(np.float32): 30.0, np.dtype(np.float64): 300.0}


def tiled_attention(
    q, k, v, mask=None, causal=False, block_q=None, block_k=None, scale=None, window=None, threads=None
):
    """[..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v] -> output [..., n_q, d_v] (no weights).

    Same result as `scaled_dot_product_attention(q, k, v, mask, scale)[0]`, computed block by block
    with an online softmax, so at most one [block_q, block_k] block of scores per thread exists at a
    time. Only the output is returned: the n_q x n_k weights are exactly what this function avoids forming.

    `causal=True` lets query i see keys 0 .. i + (n_k - n_q): the queries are the last n_q positions
    of the sequence (for n_q == n_k this is `causal_mask(n)`). This bottom-right alignment differs
    from PyTorch's `is_causal=True` when n_q != n_k (PyTorch: query i sees keys 0 .. i); pass an
    explicit `mask` to get that. Key blocks entirely in the future of a query block are skipped,
    which halves the work. `mask` (boolean, True = may attend, or float, added to the scaled
    scores, broadcastable to [..., n_q, n_k]) may be combined with it. A query row with no visible
    key gets a zero output, as in `scaled_dot_product_attention`, whose rules for `scale`, float
    masks and dtypes apply here too (float16 is computed in float32, rounded once at the end).

    `window=W` (sliding-window attention, `attn_lib.sliding_window`): the query at position p sees
    only keys with p - j < W, i.e. the last W keys with causal=True (`sliding_window_mask(n, W)`),
    or the band |p - j| < W with causal=False (`sliding_window_mask(n, W, causal=False)`). Key
    blocks outside every query's window are never computed: the work grows like n x (W + block_q)
    instead of n^2 / 2.

    Speed. `block_q`, `block_k` default to blocks sized for the CPU cache (512 x 512 scores in
    float32). `threads` (default: every core this process may use) run the blocks of query rows of
    all heads in parallel, with BLAS on one thread meanwhile (`attn_lib._threads`); `threads=1`
    runs them one after another. Inputs below about 50 million multiply-adds (12 heads of n = 180)
    run in the calling thread, where threads would cost more than they give. With `causal` and chosen blocks, a key
    block that crosses the diagonal is cut in four and each piece computed only for the query rows that see one of its
    keys (`attn_lib._tiles.plan_blocks`): the diagonal block costs 0.62 of a full one instead of 1.

    The online softmax (`_online_softmax`) is the general path. A shortcut (`_softmax_sums`) skips
    its running maximum when no score can be large enough for exp to overflow: the same
    mathematics (see `_bounded_heads` for why, and when it applies), about 15 % faster.
    """
    chosen = scale  # None: the default, not worth naming in an overflow's message
    q, k, v, batch, mask, dtype, scale = _prepare(q, k, v, mask, scale)
    causal = _check_bool(causal, "causal")
    block_q = None if block_q is None else check_positive_int(block_q, "block_q")
    block_k = None if block_k is None else check_positive_int(block_k, "block_k")
    window = None if window is None else check_positive_int(window, "window")
    threads = resolve_threads(threads)
    n_q, n_k, d_k, d_v = q.shape[-2], k.shape[-2], q.shape[-1], v.shape[-1]
    work = q.dtype  # the dtype to compute in (float32 for float16 inputs)
    offset = n_k - n_q  # query i sits at position offset + i of the sequence
    check_overflow = may_overflow(q, k, scale)  # usually False: no need to look at every score
    output = np.empty((*batch, n_q, d_v), dtype)  # [..., n_q, d_v]
    if output.size == 0:
        return output
    bounded = _bounded_heads(q, k, v, scale, mask, check_overflow, batch)  # bool [*batch], or None
    q, k, v = (np.broadcast_to(x, (*batch, *x.shape[-2:])) for x in (q, k, v))  # views, nothing copied
    scale = work.type(scale)
    patterns = {}  # the masks of blocks on the diagonal or the window's edge, made once per shape

    # the tasks: one head and one block of query rows each, with the key blocks it reads; costliest first
    heads = int(np.prod(batch))
    split = block_k is None  # chosen blocks: the diagonal's split finer (given ones keep their sums' order)
    rows, block_k = _block_sizes(n_q, n_k, work.itemsize, window, block_q, block_k)
    plans = plan_blocks(n_q, n_k, rows, block_k, causal, window, split)
    multiply_adds = heads * sum(cost for cost, *_ in plans) * (d_k + d_v)
    if block_q is None and threads > 1 and multiply_adds >= MIN_PARALLEL_WORK:
        while rows > 64 and heads * len(plans) < 4 * threads:  # few heads: smaller blocks, so every thread has work
            rows //= 2
            plans = plan_blocks(n_q, n_k, rows, block_k, causal, window, split)
    tasks = sorted(((cost, b, *plan) for b in np.ndindex(*batch) for cost, *plan in plans), key=lambda t: -t[0])

    def attend(task, scratch):
        """One head b, query rows i0 .. i1 - 1: the online softmax over their key blocks, normalised into output."""
        _, b, i0, i1, key_blocks = task
        out = output[b][i0:i1]  # [bq, d_v]
        if not key_blocks:  # causal, more queries than keys: these rows see no key
            out[...] = 0
            return
        p0, p1 = offset + i0, offset + i1 - 1  # the positions of the block's queries
        # scaling q (bq x d_k numbers) is cheaper than scaling every score
        q_blk = np.multiply(q[b][i0:i1], scale, out=buffer(scratch, "q", (i1 - i0, d_k), work))  # [bq, d_k]

        def scores(j0, j1, r0):
            """Rows r0 .. of the block: their scores against keys j0 .. j1 - 1, masked, in this thread's scratch."""
            s = np.matmul(q_blk[r0:], k[b][j0:j1].T, out=buffer(scratch, "s", (i1 - i0 - r0, j1 - j0), work))
            if check_overflow:
                check_no_overflow(s, work, chosen)
            hidden = _hidden_in_block(p0 + r0, p1, j0, j1, causal, window, patterns)  # None, or bool [bq - r0, bk]
            if hidden is not None:
                np.copyto(s, -np.inf, where=hidden)  # the future, and keys outside the window
            if mask is not None:
                _apply_mask(s, mask[b][i0 + r0 : i1, j0:j1], scratch)
            return s

        softmax_sums = _softmax_sums if bounded is not None and bounded[b] else _online_softmax
        acc, total = softmax_sums(scores, v[b], key_blocks, scratch)  # [bq, d_v], [bq, 1]
        # normalise the output rows once (d_v numbers a row, not the weights); a row that saw no key keeps zeros
        np.divide(acc, np.where(total > 0, total, 1), out=out)  # float16: rounded once, here

    run_tasks(tasks, attend, threads, multiply_adds)
    return output


def _block_sizes(n_q, n_k, itemsize, window=None, block_q=None, block_k=None):
    """The blocks tiled_attention uses when block_q, block_k are not given: about _BLOCK_BYTES of scores.

    With a window of W keys each block of queries reads W + block_q - 1 keys, of which each query needs W:
    blocks of at most W / 4 queries (and at least 64) keep the corners it computes only to mask them small.
    """
    block_k = block_k or min(n_k, _MAX_BLOCK)
    if block_q is None:
        block_q = max(16, min(_MAX_BLOCK, n_q, _BLOCK_BYTES // (block_k * itemsize)))
        if window is not None:
            block_q = min(block_q, max(64, window // 4))
    return block_q, block_k


def _online_softmax(scores, v, key_blocks, scratch):
    """The online softmax of one block of query rows -> (unnormalised output o [bq, d_v], sum l [bq, 1]).

    For each block of keys (notebook 11, section 3), with s = scores(j0, j1, r0) for rows r0 .. of the block:
        m_new = max(m, max_j s_j),  alpha = exp(m - m_new),
        l = alpha l + sum_j exp(s_j - m_new),  o = alpha o + exp(s - m_new) @ v_j.
    In place: s is exponentiated where it lies (it is not needed again).
    """
    run_max = run_sum = acc = None
    for j0, j1, r0 in key_blocks:
        s = scores(j0, j1, r0)  # [bq - r0, bk]
        if acc is None:  # the block's rows: r0 + those of the first scores; nothing seen yet
            n_rows = r0 + s.shape[0]
            acc = buffer(scratch, "acc", (n_rows, v.shape[-1]), s.dtype)
            acc[...] = 0
            run_sum = np.zeros((n_rows, 1), s.dtype)
            run_max = np.full((n_rows, 1), -np.inf, s.dtype)
        new_max = s.max(axis=-1, keepdims=True)  # [bq - r0, 1]
        np.maximum(new_max, run_max[r0:], out=new_max)
        # a row that has seen only -inf keeps 0 as its reference, so exp gives 0, not NaN
        ref = np.where(np.isneginf(new_max), 0, new_max)
        p = np.exp(np.subtract(s, ref, out=s), out=s)  # [bq - r0, bk]
        alpha = np.exp(run_max[r0:] - ref)  # how much the earlier partial sums shrink under the new max (0 at first)
        run_sum[r0:] *= alpha
        run_sum[r0:] += p.sum(axis=-1, keepdims=True)
        acc[r0:] *= alpha
        acc[r0:] += np.matmul(p, v[j0:j1], out=buffer(scratch, "pv", (s.shape[0], v.shape[-1]), s.dtype))
        run_max[r0:] = new_max
    return acc, run_sum


def _softmax_sums(scores, v, key_blocks, scratch):
    """The online softmax without its running maximum, for scores known to lie within +-_EXP_BOUND.

    softmax(s)_j = exp(s_j - m) / sum_i exp(s_i - m) for any m: the running max m only keeps exp from
    overflowing. When every score lies in [-B, B] (B = 30 in float32), exp(s) lies in [e^-B, e^B],
    so the sums l = sum_j exp(s_j) and o = sum_j exp(s_j) v_j can be added up directly: one pass over
    each block of scores (exp) instead of four (max, subtract, exp, and the rescaling by alpha).
    """
    acc = run_sum = None
    for j0, j1, r0 in key_blocks:
        s = scores(j0, j1, r0)  # [bq - r0, bk]
        p = np.exp(s, out=s)
        if acc is None:  # the first block: it starts the sums (rows before r0, if any, have seen no key yet)
            n_rows = r0 + s.shape[0]
            acc = buffer(scratch, "acc", (n_rows, v.shape[-1]), s.dtype)
            acc[:r0] = 0
            np.matmul(p, v[j0:j1], out=acc[r0:])
            run_sum = np.zeros((n_rows, 1), s.dtype)
            run_sum[r0:] = p.sum(axis=-1, keepdims=True)
        else:
            acc[r0:] += np.matmul(p, v[j0:j1], out=buffer(scratch, "pv", (s.shape[0], v.shape[-1]), s.dtype))
            run_sum[r0:] += p.sum(axis=-1, keepdims=True)
    return acc, run_sum


def _bounded_heads(q, k, v, scale, mask, check_overflow, batch):
    """bool [*batch]: the heads whose scores all lie within +-B (B = _EXP_BOUND), so `_softmax_sums` applies.

    Why it is exact. Cauchy-Schwarz bounds every score: |scale q_i . k_j| <= scale |q_i| |k_j| <= scale
    max_i |q_i| max_j |k_j|. When that is at most B, exp(s) lies in [e^-B, e^B] for every score, and
    dividing by the sum gives the same weights as the running max would (the factor e^-m cancels), up
    to rounding. Checked besides: the sums cannot overflow (e^B n_k max|v| far below the dtype's largest
    number), and v is not so tiny that e^-B |v| would lose digits below the smallest normal number.
    None (the general path everywhere) for a float mask, whose finite large negative values (-1e9) must
    keep their meaning of "uniform weights when every key has one", and for inputs that may overflow.
    """
    bound = _EXP_BOUND.get(q.dtype)
    if bound is None or check_overflow or v.size == 0 or (mask is not None and mask.dtype.kind != "b"):
        return None
    # per head of q, k, v in their own batch shapes (not broadcast), then broadcast to [*batch]
    q_norm = np.sqrt(np.einsum("...ij,...ij->...i", q, q).max(axis=-1).astype(np.float64))
    k_norm = np.sqrt(np.einsum("...ij,...ij->...i", k, k).max(axis=-1).astype(np.float64))
    v_max = np.maximum(v.max(axis=(-2, -1)), -v.min(axis=(-2, -1))).astype(np.float64)  # max |v|, no copy of v
    info, n_k = np.finfo(q.dtype), k.shape[-2]
    with np.errstate(over="ignore"):
        small_scores = q_norm * k_norm * float(scale) <= bound
        no_overflow = np.exp(bound) * n_k * v_max < float(info.max) / 16
        no_underflow = v_max * info.eps >= n_k * float(info.smallest_subnormal) * np.exp(bound)
    return np.broadcast_to(small_scores & no_overflow & no_underflow, batch)


def _apply_mask(s, m, scratch):
    """In place on a block of scores s: a boolean mask block hides (False -> -inf), a float one is added."""
    if m.dtype.kind == "b":
        np.copyto(s, -np.inf, where=np.logical_not(m, out=buffer(scratch, "hidden", s.shape, np.bool_)))
    else:
        with np.errstate(over="ignore"):  # an overflow is found and named below
            np.add(s, m, out=s)
        if np.isposinf(s).any():
            raise ValueError(f"scores + mask overflowed to +inf in {s.dtype}; the float mask's values are too large")


def blocked_attention_with_weights(q, k, v, mask=None, scale=None, block_bytes=1 << 20, threads=None):
    """[..., n_q, d_k], [..., n_k, d_k], [..., n_k, d_v] -> output [..., n_q, d_v], weights [..., n_q, n_k].

    The result of `scaled_dot_product_attention`, computed one head and a few query rows at a time:
    each block of about `block_bytes` of scores is scaled, masked, exponentiated and normalised in
    place while it is still in the CPU cache, then multiplied by V. The weights are written straight
    into the preallocated result, so no n_q x n_k temporary exists besides the weights themselves.
    `scaled_dot_product_attention` takes this path by itself for long inputs; this function exposes
    it for any size and block size (for tests and benchmarks). `threads` as in `tiled_attention`.
    """
    q, k, v, batch, mask, dtype, scale = _prepare(q, k, v, mask, scale)
    block_bytes = check_positive_int(block_bytes, "block_bytes")
    threads = resolve_threads(threads)
    return attention_blocked(q, k, v, mask, q.dtype.type(scale), batch, block_bytes, dtype, threads)


class KVCache:
    """The keys and values of the tokens decoded so far, in preallocated buffers [..., capacity, d].

    Decoding one token: `append(k_t, v_t)` stores its key and value, then `attend(q_t)` lets its
    query attend over every stored position (itself included, never the future). Step t costs
    O(t * d) instead of the O(t^2 * d) of recomputing causal attention over the whole prefix, and the
    outputs are exactly those of causal attention over the full sequence. `decode_step(q_t, k_t, v_t)`
    does both.

    k_t, q_t: [..., d_k]; v_t: [..., d_v] (one token), or [..., m, d_k] / [..., m, d_v] for m tokens at
    once (e.g. the prompt); `attend` then applies the causal mask among those m tokens too, aligned
    bottom-right: the m queries are the last m of the n stored positions, so query i sees keys
    0 .. n - m + i (PyTorch's `is_causal=True` would let it see 0 .. i). Values are stored in the
    cache's `dtype`; a finite value that does not fit it (1e39 in float32) is refused, and a step
    that fails stores nothing. A float16 cache attends in float32 and rounds the output once.

    Grouped-query attention (`attn_lib.grouped`): with `n_query_heads=H`, the last entry of
    `batch_shape` is the number of key/value heads h_kv, and only those are stored; q_t then has H
    heads in that place ([..., H, (m,) d_k]), and query head i attends over K/V head i // (H / h_kv).
    The cache holds H / h_kv times fewer numbers than one with a key and a value per query head.
    """

    def __init__(self, capacity, d_k, d_v=None, batch_shape=(), dtype=np.float32, n_query_heads=None):
        self.capacity = check_positive_int(capacity, "capacity")
        d_k = check_positive_int(d_k, "d_k")
        d_v = d_k if d_v is None else check_positive_int(d_v, "d_v")
        if isinstance(batch_shape, (int, np.integer)):
            batch_shape = (batch_shape,)
        try:
            self.batch_shape = tuple(check_positive_int(b, "batch_shape entry") for b in batch_shape)
        except TypeError:
            raise TypeError(
                f"batch_shape must be a tuple of positive integers, got {describe_value(batch_shape)}"
            ) from None
        self.dtype = check_float_dtype(dtype, "dtype")
        self.query_shape = self.batch_shape  # q_t's leading axes: the same, unless heads are grouped
        self.group = 1  # query heads per stored key/value head
        if n_query_heads is not None:
            n_query_heads = check_positive_int(n_query_heads, "n_query_heads")
            if not self.batch_shape:
                raise ValueError(
                    "n_query_heads needs batch_shape to end with the number of key/value heads, e.g."
                    " batch_shape=(n_kv_heads,); got batch_shape=()"
                )
            check_kv_heads_divide(n_query_heads, self.batch_shape[-1])
            self.query_shape = (*self.batch_shape[:-1], n_query_heads)
            self.group = n_query_heads // self.batch_shape[-1]
        self.keys = np.zeros((*self.batch_shape, self.capacity, d_k), self.dtype)  # [..., capacity, d_k]
        self.values = np.zeros((*self.batch_shape, self.capacity, d_v), self.dtype)  # [..., capacity, d_v]
        self.length = 0  # positions 0 .. length-1 are filled

    def _tokens(self, x, name, d, lead=None):
        """x as [..., m, d] in the cache's dtype, checked against the leading axes `lead` and width d."""
        lead = self.batch_shape if lead is None else lead
        x = as_float_array(x, name, min_ndim=1)
        if x.ndim not in (len(lead) + 1, len(lead) + 2) or (x.shape[: len(lead)] != lead or x.shape[-1] != d):
            what = "batch_shape" if lead == self.batch_shape else "leading axes (n_query_heads heads last)"
            raise ValueError(
                f"{name} must have shape [*{what}, d] or [*{what}, m, d] with {what}"
                f" {lead} and d={d}, got shape {x.shape}"
            )
        x = check_fits(
            x, self.dtype, name, "the cache stores {dtype}: create it with dtype=np.float64, or rescale {name}"
        )
        return x[..., None, :] if x.ndim == len(self.batch_shape) + 1 else x  # one token: [..., d] -> [..., 1, d]

    def append(self, k_t, v_t):
        """Store the keys [..., (m,) d_k] and values [..., (m,) d_v] of the next m tokens (m = 1 if omitted)."""
        k_t = self._tokens(k_t, "k_t", self.keys.shape[-1])  # [..., m, d_k]
        v_t = self._tokens(v_t, "v_t", self.values.shape[-1])  # [..., m, d_v]
        if k_t.shape[-2] != v_t.shape[-2]:
            raise ValueError(f"k_t holds {k_t.shape[-2]} tokens but v_t holds {v_t.shape[-2]}: one value per key")
        m = k_t.shape[-2]
        if self.length + m > self.capacity:
            raise ValueError(
                f"the cache holds {self.length} of capacity={self.capacity} positions and cannot take {m} more;"
                " create it with a larger capacity"
            )
        self.keys[..., self.length : self.length + m, :] = k_t
        self.values[..., self.length : self.length + m, :] = v_t
        self.length += m

    def attend(self, q_t, scale=None):
        """[..., (m,) d_k] -> [..., (m,) d_v]: the last m stored tokens' queries attend over positions 0 .. own."""
        if self.length == 0:
            raise ValueError("the cache is empty: append(k_t, v_t) the current token before attend(q_t)")
        single = np.ndim(q_t) == len(self.batch_shape) + 1
        return self._attend(self._tokens(q_t, "q_t", self.keys.shape[-1], self.query_shape), single, scale)

    def _attend(self, q_t, single, scale):
        """`attend` for a validated q_t [..., m, d_k]; `single`: return [..., d_v] for one token."""
        m, n = q_t.shape[-2], self.length
        if m > n:
            raise ValueError(f"q_t holds {m} queries but the cache holds only {n} tokens; append their keys first")
        work = work_dtype(self.dtype)  # a float16 cache attends in float32
        scale, chosen = work.type(check_scale(scale, q_t.shape[-1], work)), scale
        keys, values = self.keys[..., :n, :], self.values[..., :n, :]  # views of the filled part
        if work != self.dtype:
            q_t, keys, values = q_t.astype(work), keys.astype(work), values.astype(work)
        if self.group > 1:  # query head i meets K/V head i // group: [..., H, m, d_k] -> [..., h_kv, group, m, d_k]
            q_t = q_t.reshape(*q_t.shape[:-3], -1, self.group, *q_t.shape[-2:])
            keys, values = keys[..., None, :, :], values[..., None, :, :]  # [..., h_kv, 1, n, d]: shared by the group
        scores = (q_t @ np.swapaxes(keys, -1, -2)) * scale  # [..., m, d_k] x [..., d_k, n] -> [..., m, n]
        check_no_overflow(scores, work, chosen)
        if m > 1:  # query i of the m new tokens sits at position n - m + i: hide what comes after it
            scores[..., np.arange(n) > np.arange(n - m, n)[:, None]] = -np.inf
        scores -= scores.max(axis=-1, keepdims=True)  # every row sees at least its own key: finite max
        weights = np.exp(scores, out=scores)
        weights /= weights.sum(axis=-1, keepdims=True)
        out = weights @ values  # [..., m, n] x [..., n, d_v] -> [..., m, d_v]
        out = out if work == self.dtype else out.astype(self.dtype)
        if self.group > 1:  # [..., h_kv, group, m, d_v] -> [..., H, m, d_v]
            out = out.reshape(*out.shape[:-4], -1, *out.shape[-2:])
        return out[..., 0, :] if single else out

    def decode_step(self, q_t, k_t, v_t, scale=None):
        """Append the current token's key and value, then return its attention output.

        All or nothing: if any argument is wrong (or the attention fails), nothing is stored, so the
        step can be retried.
        """
        single = np.ndim(q_t) == len(self.batch_shape) + 1
        q_t = self._tokens(q_t, "q_t", self.keys.shape[-1], self.query_shape)  # check q_t, scale before storing
        check_scale(scale, self.keys.shape[-1])
        length = self.length
        self.append(k_t, v_t)
        try:
            return self._attend(q_t, single, scale)
        except BaseException:
            self.length = length  # roll back: the step stored nothing
            raise
