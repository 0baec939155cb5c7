"""The arithmetic of SmolLM2's products in numpy (attn_lib.models.smollm): how each is summed, and on how many cores.

Precision. The weights are float32 (the dequantized 4-bit numbers, exact in float32). Every product of an
activation and a weight is a float32 product summed in float32 by the BLAS in blocks of 64 along the
inner dimension, the blocks' sums added in float64 (`linear`); the residual stream, RMSNorm, RoPE, the
attention step and SiLU are float64; the KV cache holds float32; the logits come out float32. Measured on
six prompts (tests/test_smollm.py): this is within 5e-5 of the same model computed entirely in float64,
where plain float32 numpy is within 1.2e-4 and transformers' float32 model within 9.9e-5 (which is why
the float32 logits of numpy and transformers agree to about 1e-4, and no closer: it is transformers' own
rounding). The blocks are not free: on one thread a 16 x 576 x 1536 product took 0.41 ms summed this way
against 0.26-0.28 ms as one float32 product (most of the difference is the float64 sum of the blocks).

Threads. The model's products are small (at most 576 x 1536 for 16 tokens; the unembedding 576 x 49,152):
BLAS's own threads help on a quiet machine but, on a busy one, spin against other work for the same cores
(on 2 cores at a load of 2-3: a 16-token forward pass took 0.56-4.3 s with numpy's two BLAS threads, 0.14 s
with one). So `forward` runs with BLAS on one thread (attn_lib._threads, as tiled_attention does) and
splits each product of at least PARALLEL_PRODUCT multiply-adds into column blocks of a multiple of 64,
one per core, in the course's pool of threads (numpy releases the GIL in matrix products). Each column is
the same sum of the same float32 products either way (tests/test_smollm.py compares the two).
"""

import numpy as np

from attn_lib._threads import ThreadpoolController, _executor, default_threads

BLOCK = 64  # the inner dimension is summed in float32 blocks of this many products (see "Precision")
PARALLEL_PRODUCT = 2_000_000  # multiply-adds from which a product is split over the cores (see "Threads")


def _product(h, w):
    """[n, K] (any float), float32 [K, m] -> float64 [n, m]: h @ w as float32 products, summed in float32
    blocks of BLOCK along K, the blocks added in float64 (see "Precision" above).

    A float64 w (the model converted with `as_float64`, the tests' reference) gives the float64 product.
    """
    h = np.asarray(h, dtype=w.dtype)
    n, K = h.shape
    if K % BLOCK or w.dtype == np.float64:
        return (h @ w).astype(np.float64, copy=False)
    blocks = h.reshape(n, K // BLOCK, BLOCK).transpose(1, 0, 2)  # [n, K] -> [B, n, BLOCK]
    partial = np.matmul(blocks, w.reshape(K // BLOCK, BLOCK, -1))  # [B, n, BLOCK] x [B, BLOCK, m] -> [B, n, m]
    return partial.sum(axis=0, dtype=np.float64)  # [n, m]


def _in_columns(product, h, w, dtype):
    """product(h, w[:, columns]) for column blocks of w, one per core, in threads -> the [n, m] result."""
    n, m = h.shape[0], w.shape[1]
    parts = min(default_threads(), m // BLOCK) if ThreadpoolController is not None else 1
    if parts < 2 or n * h.shape[1] * m < PARALLEL_PRODUCT:
        return product(h, w)
    out = np.empty((n, m), dtype)
    edges = [m * i // parts // BLOCK * BLOCK for i in range(parts)] + [m]  # [0, ..., m]: blocks of BLOCK columns

    def part(i):
        out[:, edges[i] : edges[i + 1]] = product(h, w[:, edges[i] : edges[i + 1]])

    futures = [_executor(parts - 1).submit(part, i) for i in range(1, parts)]
    part(0)  # the calling thread takes the first block
    for future in futures:
        future.result()
    return out


def linear(h, w):
    """[n, K] (any float), float32 [K, m] -> float64 [n, m]: the model's product (see "Precision", "Threads")."""
    return _in_columns(_product, h, w, np.float64)


def unembed(x, embedding):
    """[n, d] -> float32 logits [n, V] = x E^T (one float32 product, as transformers computes it)."""
    return _in_columns(lambda a, b: a @ b, x.astype(embedding.dtype), embedding.T, embedding.dtype)
