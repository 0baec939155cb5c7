"""The arithmetic of SmolLM2 in numpy (attn_lib.models.smollm2.model): how each product is summed and on how many cores,
and RoPE's pairs turned in four operations (`turn_pairs`).

Precision. The weights are float32 (the dequantized 4-bit numbers, exact in float32; the embedding is kept as its 8-bit
codes and scales, `Q8Embedding`, and dequantized, exactly, as it is used). Every product of an activation and a weight
is a float32 product summed in float32 by the BLAS in blocks of 64 along the inner dimension, the blocks' sums added in
float64 (`linear`, and the unembedding, `unembed`; for one position the unembedding sums each block of 32 codes times
the activations in float32 and multiplies the sum by the block's scale in float64, exactly: fewer roundings, measured
7.2e-8 of the largest logit from x E^T in float64 against 1.0e-7 before); the residual stream, RMSNorm, RoPE, the
attention step and SiLU are float64; the KV cache holds float32; the logits come out float32. Measured on six prompts
(tests/test_smollm.py): this is within 5.2e-5 of the same model computed entirely in float64 on two AMD EPYC machines
(one with AVX-512, one with AVX2 only), where plain float32 numpy is within 7.1e-5 to 1.2e-4 and transformers' float32
model within 9.3e-5 to 1.1e-4, by processor (which is why the float32 logits of numpy and transformers agree to about
1e-4, and no closer: it is transformers' own rounding). The unembedding was once one float32 product, as transformers
computes it: within 5e-5 on the Intel machines measured then, but 6.2e-5 on both AMD machines, where it alone made the
difference. The blocks are not free: on one thread a 16 x 576 x 1536 product took 0.41 ms summed this way against
0.26-0.28 ms as one float32 product on an Intel machine, 1.16 ms against 0.76 ms on the AVX2 machine (there a 16-token
forward pass took 337 ms against 258 ms; benchmarks/smollm_precision.py). Blocks of 96 were as precise and a little
cheaper there; blocks of 192 were no better than one product.

Layout. The weight matrices are kept as the GGUF file stores them, one row of K weights per output ([m, K],
C-contiguous), and used as their transposes w = rows.T ([K, m], views: x @ w as on paper). For a few positions
OpenBLAS multiplies faster with the weights on the left, w^T h^T, than h @ w, and faster still when each call
reads ROWS whole rows (contiguous memory) rather than a narrow strip of every row: `_product` computes the blocked
sum that way, the same numbers (measured bit for bit on 16 positions). On the AMD EPYC with AVX-512, in one
process with both layouts loaded and timed in turn (12 pairs), a 16-token forward pass took a median of 112 ms
against 135 ms (a paired ratio of 0.80), a decoding step 54 ms against 52 ms. One position (a decoding step) is
summed along each row by np.einsum: BLAS's matrix-vector product on strips of the rows took twice as long.

Threads. The model's products are small (at most 576 x 1536 for 16 tokens; the unembedding 576 x 49,152):
BLAS's own threads help on a quiet machine but, on a busy one, spin against other work for the same cores
(on 2 cores at a load of 2-3: a 16-token forward pass took 0.56-4.3 s with numpy's two BLAS threads, 0.14 s
with one). So `forward` runs with BLAS on one thread (attn_lib._threads, as tiled_attention does) and
splits each product of at least PARALLEL_PRODUCT multiply-adds into column blocks of a multiple of 64,
one per core, in the course's pool of threads (numpy releases the GIL in matrix products). Each column is
the same sum of the same float32 products either way (tests/test_smollm.py compares the two). The
unembedding splits the vocabulary's rows over the cores instead (`Q8Embedding.unembed`), and the feed-forward
its hidden units (`feed_forward`): each thread computes its units from W_gate and W_up, SiLU and their product,
and its part of the sum over them through W_down, so the threads meet once per feed-forward instead of twice
and SiLU runs on every core (the parts are added in float64: the same logits to float32's last bit on the
prompts measured). Every meeting costs: a sleeping thread wakes some 60 microseconds after it is handed work
(measured on the AMD EPYC), against 250-800 microseconds of work per thread in a product. In one process,
timed in turn with the version before it (20 pairs, the AMD EPYC with AVX-512), this feed-forward and the
queries and keys turned by RoPE in one call made a 16-token forward pass 7-8% faster (paired ratios 0.92-0.93).
Splitting the attention step itself over the cores by heads made it slower (1.04): its pieces are too small.
"""

import numpy as np

from attn_lib._threads import ThreadpoolController, default_threads, executor
from attn_lib.block import silu

BLOCK = 64  # the inner dimension is summed in float32 blocks of this many products (see "Precision")
PARALLEL_PRODUCT = 2_000_000  # multiply-adds from which a product is split over the cores (see "Threads")
ROWS = 512  # rows of w^T (outputs) multiplied at a time by `_product` (see "Layout")


def _product(h, w):
    """[n, K] (any float), float32 [K, m] -> float64 [n, m]: h @ w as float32 products, summed in float32
    blocks of BLOCK along K, the blocks added in float64 (see "Precision" above).

    Computed as (w^T h^T)^T, ROWS rows of w^T at a time (see "Layout"): fastest when w is the transpose of a
    C-contiguous [m, K] array, as the model keeps its weights; any [K, m] array gives the same numbers.
    A float64 w (the model converted with `as_float64`, the tests' reference) gives the float64 product.
    """
    h = np.asarray(h, dtype=w.dtype)
    (n, K), m = h.shape, w.shape[1]
    if K % BLOCK or w.dtype == np.float64:
        return (h @ w).astype(np.float64, copy=False)
    rows = w.T  # [m, K]: one row per output, its K weights side by side
    if n == 1:  # a decoding step: one sum of products per block and output, [B, m]
        partial = np.einsum("mbk,bk->bm", rows.reshape(m, K // BLOCK, BLOCK), h.reshape(K // BLOCK, BLOCK))
        return partial.sum(axis=0, dtype=np.float64)[None]  # [1, m]
    h_blocks = np.ascontiguousarray(h.T).reshape(K // BLOCK, BLOCK, n)  # [B, BLOCK, n]
    out = np.empty((n, m), np.float64)
    step = _rows_per_call(n, K)
    for r0 in range(0, m, step):
        chunk = rows[r0 : r0 + step]  # [r, K]
        blocks = chunk.reshape(len(chunk), K // BLOCK, BLOCK).transpose(1, 0, 2)  # [B, r, BLOCK]
        out[:, r0 : r0 + step] = np.matmul(blocks, h_blocks).sum(axis=0, dtype=np.float64).T  # [B, r, n] -> [n, r]
    return out


SCRATCH_BYTES = 4 << 20  # the most `_product`'s [B, r, n] float32 partial sums may take at once (see "Memory")


def _rows_per_call(n, K):
    """ROWS rows of w^T per call, fewer (a multiple of BLOCK, at least BLOCK) when n positions would make the [B, r, n]
    partial sums larger than SCRATCH_BYTES: a 560-token prompt held 40 MiB of them per product otherwise, which a
    notebook's memory budget counts. Each output is the same sum whatever r (its row of w^T and h's blocks)."""
    fits = SCRATCH_BYTES // (4 * n * (K // BLOCK))
    return ROWS if fits >= ROWS else max(BLOCK, fits // BLOCK * BLOCK)


def _parts(n, K, m):
    """-> the number of column blocks (one per core) a product [n, K] x [K, m] is split into: 1 below
    PARALLEL_PRODUCT multiply-adds (see "Threads"), or without threadpoolctl."""
    parts = min(default_threads(), m // BLOCK) if ThreadpoolController is not None else 1
    return 1 if n * K * m < PARALLEL_PRODUCT else max(parts, 1)


def _edges(m, parts):
    """-> [0, ..., m]: `parts` ranges of columns, each a multiple of BLOCK wide but the last."""
    return [m * i // parts // BLOCK * BLOCK for i in range(parts)] + [m]


def _in_columns(product, h, w, dtype):
    """product(h, w[:, columns]) for column blocks of w, one per core, in threads -> the [n, m] result."""
    n, m = h.shape[0], w.shape[1]
    parts = _parts(n, h.shape[1], m)
    if parts < 2:
        return product(h, w)
    out = np.empty((n, m), dtype)
    edges = _edges(m, parts)

    def part(i):
        out[:, edges[i] : edges[i + 1]] = product(h, w[:, edges[i] : edges[i + 1]])

    _in_threads(part, parts)
    return out


def _in_threads(part, parts):
    """part(0), ..., part(parts - 1), each in a thread of the course's pool, part(0) in the calling thread."""
    futures = [executor(parts - 1).submit(part, i) for i in range(1, parts)]
    part(0)
    for future in futures:
        future.result()


def linear(h, w):
    """[n, K] (any float), float32 [K, m] -> float64 [n, m]: the model's product (see "Precision", "Threads")."""
    return _in_columns(_product, h, w, np.float64)


def feed_forward(h, w_gate, w_up, w_down, fused=None, activation=silu):
    """[n, d] -> float64 [n, d]: SwiGLU, (SiLU(h W_gate) * (h W_up)) W_down, each product summed as `linear` sums
    (GeGLU, Gemma's, with activation=attn_lib.block.gelu_tanh).

    On several cores each thread takes a range of the d_ff hidden units, a multiple of BLOCK wide: their columns
    of W_gate and W_up, SiLU and the product of the two, and their rows of W_down, and returns that part of the
    sum over the hidden units; the parts are added in float64 (see "Threads": the threads meet once per
    feed-forward instead of twice, and SiLU runs on every core). fused: [W_gate | W_up] in one array (the
    model's), multiplied in one product when the feed-forward runs in one piece.
    """
    n, (d, d_ff) = h.shape[0], w_gate.shape
    parts = _parts(n, d, 2 * d_ff)  # as `linear` would split h [W_gate | W_up]
    if parts < 2 or w_gate.dtype == np.float64:
        gate, up = np.split(linear(h, fused), 2, axis=1) if fused is not None else (linear(h, w_gate), linear(h, w_up))
        return linear(activation(gate) * up, w_down)
    edges, sums = _edges(d_ff, parts), [None] * parts

    def part(i):
        units = slice(edges[i], edges[i + 1])
        hidden = activation(_product(h, w_gate[:, units])) * _product(h, w_up[:, units])  # [n, units]
        sums[i] = _product(hidden, w_down[units])  # [n, units] x [units, d]: this range's part of the sum

    _in_threads(part, parts)
    return sum(sums[1:], sums[0])


def unembed(x, embedding):
    """[n, d] -> logits [n, V] = x E^T.

    embedding: a Q8Embedding (the model as read: summed as `linear` sums, see "Precision", rounded to float32)
    or an array (float64 in the tests' reference model), multiplied in its own dtype.
    """
    if isinstance(embedding, Q8Embedding):
        return embedding.unembed(x)
    return _in_columns(lambda a, b: a @ b, x.astype(embedding.dtype), embedding.T, embedding.dtype)


CHUNK_ROWS = 512  # rows of the 8-bit embedding dequantized at a time by `Q8Embedding.unembed` (a 1.1 MiB buffer)
STEP_ROWS = 1024  # rows of codes converted to float32 at a time for one position (`Q8Embedding._unembed_one`)
#: positions unembedded by one product, from the first: a position's logits then depend on its block of 16 alone,
#: not on how many positions come after it (a BLAS's order of summation can depend on the number of rows), so
#: forward(ids, losses=True), which unembeds the same blocks one at a time, gives forward(ids)'s very logits
POSITION_ROWS = 16
Q8_BLOCK = 32  # weights per Q8_0 block: one scale each


class Q8Embedding:
    """The embedding matrix E [V, d] kept as the GGUF file stores it (Q8_0): int8 codes [V, d] and one float32
    scale per block of 32 along a row [V, d / 32], E = code x scale. Each such product is exact in float32 (an
    8-bit code times a float16 scale needs at most 19 bits), so these are the float32 numbers, in 30 MiB
    instead of 108 MiB.

    E[ids] dequantizes those rows; np.asarray(E) (or E.astype) the whole matrix. `unembed` computes x E^T
    without ever holding E in float32: CHUNK_ROWS rows at a time are dequantized into a buffer that stays in
    the processor's cache and multiplied there, summed as `linear` sums (blocks of 64 products added in
    float64) and POSITION_ROWS positions at a time (tests/test_smollm.py checks it against x E^T in float64).
    For a prompt of 16 positions that is about as fast as one float32 product (it reads one byte per weight
    instead of four). For one position, a decoding step, multiplying every code by its scale cost more than the
    product itself, so `_unembed_one` converts the codes alone (exact) and applies each scale to its block's
    sum: on the AMD EPYC with AVX-512, Gemma 3's 262,144 x 640 took 25 ms instead of 53 (paired ratio 0.47, 10
    pairs), SmolLM2's 49,152 x 576 14 ms instead of 28 (benchmarks/gemma_speed.py and smollm_speed.py measure
    the models' steps). Not kept: the codes laid out block by block ([d / 32, V, 32], 39 ms instead of 48 ms on
    one core, but then E.codes is not the file's [V, d]), a float16 copy of E (320 MiB more, and numpy has no
    float16 BLAS).
    """

    def __init__(self, codes, scales):
        codes, scales = np.asarray(codes), np.asarray(scales)
        if codes.ndim != 2 or codes.dtype != np.int8 or scales.dtype != np.float32:
            raise TypeError(f"need int8 codes [V, d] and float32 scales, got {codes.dtype} and {scales.dtype}")
        if scales.shape != (codes.shape[0], codes.shape[1] // Q8_BLOCK) or codes.shape[1] % Q8_BLOCK:
            raise ValueError(f"codes [V, d] need scales [V, d / {Q8_BLOCK}], got {codes.shape} and {scales.shape}")
        self.codes, self.scales = codes, scales
        self.shape, self.ndim, self.dtype = codes.shape, 2, np.dtype(np.float32)

    @property
    def nbytes(self):
        """The bytes held: the codes and the scales."""
        return self.codes.nbytes + self.scales.nbytes

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return f"Q8Embedding({self.shape[0]} x {self.shape[1]}, {self.nbytes / 2**20:.1f} MiB)"

    def __getitem__(self, rows):
        """E[rows] -> float32 [..., d]: those rows dequantized."""
        codes, scales = self.codes[rows], self.scales[rows]  # [..., d], [..., d / 32]
        blocks = codes.reshape(*codes.shape[:-1], -1, Q8_BLOCK) * scales[..., None]  # [..., d / 32, 32], float32
        return blocks.reshape(codes.shape)

    def __array__(self, dtype=None, copy=None):
        return self[:] if dtype is None else self[:].astype(dtype)

    def astype(self, dtype):
        """-> the whole matrix, dequantized, as a numpy array of `dtype`."""
        return np.asarray(self, dtype=dtype)

    def _dequantize_into(self, buf, r0, r1):
        """buf[: r1 - r0] = E[r0:r1] in float32 -> that view."""
        rows = buf[: r1 - r0]
        np.copyto(rows, self.codes[r0:r1], casting="unsafe")  # int8 -> float32
        rows.reshape(r1 - r0, -1, Q8_BLOCK)[...] *= self.scales[r0:r1, :, None]  # each block times its scale
        return rows

    def _unembed_one(self, buf, x_blocks, r0, r1):
        """One position's logits for rows r0:r1 -> float64 [r1 - r0]: each block of 32 codes times x's 32 numbers,
        summed in float32 (one matrix-vector product per block), times the block's scale and added in float64."""
        rows = buf[: r1 - r0]
        np.copyto(rows, self.codes[r0:r1], casting="unsafe")  # int8 -> float32, exact; the scales come after
        blocks = rows.reshape(r1 - r0, -1, Q8_BLOCK).transpose(1, 0, 2)  # [d / 32, rows, 32], views
        sums = np.matmul(blocks, x_blocks)[..., 0]  # [d / 32, rows]: per block, sum of code x activation
        return np.einsum("br,rb->r", sums.astype(np.float64), self.scales[r0:r1])  # sum of block sum x scale

    def unembed(self, x):
        """[n, d] -> float32 logits [n, V] = x E^T, the vocabulary split over the cores (see "Threads").

        Several positions: CHUNK_ROWS rows dequantized at a time, multiplied as `linear` multiplies. One position
        (a decoding step): STEP_ROWS rows of codes at a time, the scales applied to each block's sum instead
        (`_unembed_one`): no pass that multiplies every code by its scale, and BLAS sums each block.
        """
        x = np.asarray(x, dtype=np.float32)
        n, V = x.shape[0], self.shape[0]
        out = np.empty((n, V), np.float32)
        chunk = STEP_ROWS if n == 1 else CHUNK_ROWS
        parts = min(default_threads(), V // chunk) if ThreadpoolController is not None else 1
        edges = [V * i // parts // chunk * chunk for i in range(parts)] + [V]  # [0, ..., V]

        def part(i):
            buf = np.empty((chunk, self.shape[1]), np.float32)  # this thread's
            for r0 in range(edges[i], edges[i + 1], chunk):
                r1 = min(r0 + chunk, edges[i + 1])
                if n == 1:
                    out[0, r0:r1] = self._unembed_one(buf, x.reshape(-1, Q8_BLOCK, 1), r0, r1)
                    continue
                rows = self._dequantize_into(buf, r0, r1).T  # [d, rows]
                for p0 in range(0, n, POSITION_ROWS):  # [POSITION_ROWS, d] x [d, rows], summed as `linear` sums
                    out[p0 : p0 + POSITION_ROWS, r0:r1] = _product(x[p0 : p0 + POSITION_ROWS], rows)

        _in_threads(part, parts)
        return out


# --- RoPE: its tables made once per forward pass, the pairs turned in four operations ---------------------------


def rope_tables(positions, d, base, halves=False):
    """-> (C, S), float64 [n, d]: per position, each pair's (cos, cos) and (-sin, sin) of position.rope's angle,
    laid out for `turn_pairs` (halves=True: (cos | cos) and (-sin | sin), laid out for `turn_halves`); the tables
    of the last few (positions, base) asked for are kept (a forward pass asks once per layer; Gemma alternates
    two bases)."""
    key = (positions.tobytes(), d, base, halves)
    tables = _ROPE_TABLES.get(key)
    if tables is None:
        angles = positions.astype(np.float64)[:, None] * (base ** (-np.arange(0, d, 2) / d))  # position._theta's
        cos, sin = np.cos(angles), np.sin(angles)  # [n, d/2]
        if halves:
            tables = np.concatenate([cos, cos], axis=-1), np.concatenate([-sin, sin], axis=-1)
        else:
            tables = np.repeat(cos, 2, axis=-1), np.stack([-sin, sin], axis=-1).reshape(len(positions), d)
        if len(_ROPE_TABLES) >= 4:  # a dict keeps its order: drop the oldest (safe enough when two threads run)
            _ROPE_TABLES.pop(next(iter(_ROPE_TABLES)), None)
        _ROPE_TABLES[key] = tables
    return tables


_ROPE_TABLES = {}  # (positions, d, base, halves) -> tables, the last few of rope_tables


def turn_pairs(x, tables):
    """x [..., n, d] -> position.rope's rotation of every pair (a, b) = (x[2i], x[2i+1]) to (a cos - b sin,
    a sin + b cos), as x C + swap(x) S: four operations instead of eight, the very same numbers (a cos + b (-sin)
    rounds as a cos - b sin does; tests/test_smollm.py compares the two bit for bit)."""
    cos, sin = tables  # [n, d]: (cos, cos) and (-sin, sin) for each pair
    swapped = np.take(x, _PAIR_SWAP.setdefault(x.shape[-1], np.arange(x.shape[-1]) ^ 1), axis=-1)  # (b, a) per pair
    out = x * cos
    out += swapped * sin
    return out


_PAIR_SWAP = {}  # d -> [1, 0, 3, 2, ...]: the index of each feature's partner in its pair


def turn_halves(x, tables):
    """x [..., n, d] -> position.rope_halves's rotation of every pair (a, b) = (x[i], x[i + d/2]) (the NeoX layout,
    Gemma's), as x C + swap(x) S with the halves swapped: the very same numbers as rope_halves (tested)."""
    cos, sin = tables  # [n, d]: (cos | cos) and (-sin | sin)
    half = x.shape[-1] // 2
    swapped = np.concatenate([x[..., half:], x[..., :half]], axis=-1)  # (b, a) for each pair
    out = x * cos
    out += swapped * sin
    return out
