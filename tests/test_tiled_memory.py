"""tiled_attention's memory bound (issue 29): n = 32,768 keys within 64 MiB traced, threaded and on one thread.

Apart from tests/test_tiled_threads.py, whose module-wide fixture runs every test twice (serial and threaded):
these calls name their threads, so both runs would be the same.
"""

import tracemalloc

import numpy as np
import pytest

from attn_lib.efficient import tiled_attention


@pytest.mark.parametrize(("threads", "n_q"), [(2, 32_768), (1, 4096)])
def test_memory_stays_within_64_mib_for_32768_keys(threads, n_q):
    rng = np.random.default_rng(13)
    q, k, v = (rng.standard_normal((1, n, 64), dtype=np.float32) for n in (n_q, 32_768, 32_768))
    tracemalloc.start()
    tracemalloc.reset_peak()
    out = tiled_attention(q, k, v, threads=threads)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    assert peak <= 64, f"threads={threads}: peak {peak:.1f} MiB"
    assert out.shape == (1, n_q, 64) and np.isfinite(out).all()
