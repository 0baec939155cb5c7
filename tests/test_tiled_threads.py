"""tiled_attention and the blocked paths on every core (issue 29): same results, threads, BLAS, the bounded shortcut.

Most tests run twice (module-scoped parameter `mode`): "serial" (the default thread count is 1) and
"threaded" (at least 2 threads and no small-input cut-off, so that even tiny inputs go through the pool
of threads with several tasks per call). The reference for the differential tests is the implementation
before issue 29 (`previous_tiled_attention`, below: one thread of Python, BLAS with its own threads, a
new array for every step), and the formula itself (`scaled_dot_product_attention`) in float64.
"""

import multiprocessing
import threading
import time

import numpy as np
import pytest

import attn_lib._threads as threads_module
import attn_lib.efficient as efficient
from attn_lib import scaled_dot_product_attention
from attn_lib._tiles import plan_blocks
from attn_lib.core import add_float_mask, check_no_overflow, may_overflow
from attn_lib.efficient import _hidden_in_block, _prepare, blocked_attention_with_weights, tiled_attention


@pytest.fixture(scope="module", params=["serial", "threaded"], autouse=True)
def mode(request):
    """serial: one thread unless a test says otherwise; threaded: 2+ threads and no small-input cut-off."""
    saved = threads_module.default_threads, threads_module.MIN_PARALLEL_WORK
    if request.param == "serial":
        threads_module.default_threads = lambda: 1
    else:
        threads_module.default_threads = lambda: max(2, saved[0]())
        threads_module.MIN_PARALLEL_WORK = 0
    yield request.param
    threads_module.default_threads, threads_module.MIN_PARALLEL_WORK = saved


def previous_tiled_attention(q, k, v, mask=None, causal=False, block_q=256, block_k=512, scale=None, window=None):
    """attn_lib.efficient.tiled_attention before issue 29 (its loop, verbatim but for the argument checks)."""
    q, k, v, batch, mask, dtype, scale = _prepare(q, k, v, mask, scale)
    n_q, n_k, d_v = q.shape[-2], k.shape[-2], v.shape[-1]
    offset = n_k - n_q
    check_overflow = may_overflow(q, k, scale)
    q, k = np.broadcast_to(q, (*batch, *q.shape[-2:])), np.broadcast_to(k, (*batch, *k.shape[-2:]))
    q = q * q.dtype.type(scale)
    output = np.empty((*batch, n_q, d_v), dtype)
    patterns = {}
    for i0 in range(0, n_q, block_q):
        i1 = min(i0 + block_q, n_q)
        q_blk = q[..., i0:i1, :]
        run_max = np.full((*batch, i1 - i0, 1), -np.inf, q.dtype)
        run_sum = np.zeros((*batch, i1 - i0, 1), q.dtype)
        acc = np.zeros((*batch, i1 - i0, d_v), q.dtype)
        p0, p1 = offset + i0, offset + i1 - 1
        k_end = min(n_k, p1 + 1 if causal else n_k if window is None else p1 + window)
        k_start = 0 if window is None else max(0, p0 - window + 1)
        for j0 in range(k_start, k_end, block_k):
            j1 = min(j0 + block_k, k_end)
            s = q_blk @ np.swapaxes(k[..., j0:j1, :], -1, -2)
            if check_overflow:
                check_no_overflow(s, q.dtype)
            hidden = _hidden_in_block(p0, p1, j0, j1, causal, window, patterns)
            if hidden is not None:
                np.copyto(s, -np.inf, where=hidden)
            if mask is not None:
                m_blk = mask[..., i0:i1, j0:j1]
                s = np.where(m_blk, s, -np.inf) if m_blk.dtype.kind == "b" else add_float_mask(s, m_blk)
            new_max = np.maximum(run_max, s.max(axis=-1, keepdims=True))
            ref = np.where(np.isneginf(new_max), 0, new_max)
            alpha = np.exp(run_max - ref)
            p = np.exp(np.subtract(s, ref, out=s), out=s)
            run_sum = run_sum * alpha + p.sum(axis=-1, keepdims=True)
            acc = acc * alpha + p @ v[..., j0:j1, :]
            run_max = new_max
        if q.dtype == dtype:
            np.divide(acc, np.where(run_sum > 0, run_sum, 1), out=output[..., i0:i1, :])
        else:
            output[..., i0:i1, :] = acc / np.where(run_sum > 0, run_sum, 1)
    return output


def rect_window(n_q, n_k, window, causal):
    """The mask tiled_attention(causal=..., window=...) means, with query i at position n_k - n_q + i."""
    p = np.arange(n_k - n_q, n_k)[:, None]
    j = np.arange(n_k)
    return ((p - j >= 0) & (p - j < window)) if causal else (np.abs(p - j) < window)


def random_case(rng, dtypes=(np.float16, np.float32, np.float64)):
    """Random sizes, broadcast batch axes, masks (none, bool, float; broadcast), causal, window, scale, blocks."""
    dtype = dtypes[rng.integers(len(dtypes))]
    n_q, n_k = int(rng.integers(1, 300)), int(rng.integers(1, 300))
    d_k, d_v = int(rng.integers(1, 70)), int(rng.integers(1, 70))
    batch = [(), (3,), (2, 3), (1, 2)][rng.integers(4)]
    q = rng.normal(size=(*(b if rng.random() < 0.7 else 1 for b in batch), n_q, d_k)).astype(dtype)
    k = rng.normal(size=(*batch, n_k, d_k)).astype(dtype)
    v = rng.normal(size=(*batch[-1:], n_k, d_v)).astype(dtype)
    kind = ["none", "bool", "float"][rng.integers(3)]
    mask = None
    if kind != "none":
        shape = [(n_q, n_k), (1, n_k), (n_q, 1), (*batch, n_q, n_k)][rng.integers(4)]
        allowed = rng.random(shape) < rng.uniform(0.3, 1.0)
        mask = allowed if kind == "bool" else np.where(allowed, rng.normal(size=shape), -np.inf)
    kwargs = {
        "mask": mask,
        "causal": bool(rng.random() < 0.5),
        "window": int(rng.integers(1, 2 * max(n_q, n_k))) if rng.random() < 0.3 else None,
        "scale": None if rng.random() < 0.7 else float(rng.uniform(0.05, 1.0)),
    }
    blocks = {} if rng.random() < 0.5 else {"block_q": int(rng.integers(1, 200)), "block_k": int(rng.integers(1, 400))}
    return q, k, v, kwargs, blocks


def score_bound(q, k, kwargs):
    """-> the size of the scores the softmax sees: max |scale q k^T| plus the largest finite float mask entry."""
    scale = kwargs["scale"] if kwargs["scale"] is not None else 1 / np.sqrt(q.shape[-1])
    bound = float(np.abs(scale * (q.astype(np.float64) @ np.swapaxes(k, -1, -2).astype(np.float64))).max(initial=0))
    mask = kwargs["mask"]
    if mask is not None and mask.dtype != bool:
        bound += float(np.abs(mask[np.isfinite(mask)]).max(initial=0))
    return bound


def float64_truth(q, k, v, kwargs):
    """The formula in float64, with causal and window written as an explicit mask."""
    n_q, n_k = q.shape[-2], k.shape[-2]
    allowed = np.ones((n_q, n_k), bool)
    if kwargs["causal"] or kwargs["window"] is not None:
        allowed = rect_window(n_q, n_k, kwargs["window"] or n_q + n_k, kwargs["causal"])
    user = kwargs["mask"]
    if user is None:
        mask = allowed
    elif user.dtype == bool:
        mask = allowed & user
    else:
        mask = np.where(allowed, user.astype(q.dtype).astype(np.float64), -np.inf)  # rounded as tiled rounds it
    wide = (x.astype(np.float64) for x in (q, k, v))
    return scaled_dot_product_attention(*wide, mask=mask, scale=kwargs["scale"])[0]


# --- the same results ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_differential_against_the_previous_implementation_and_the_formula(seed):
    """Same dtype, shape and zero rows as before issue 29; as close to the float64 formula as before (or 1e-6)."""
    rng = np.random.default_rng(1000 + seed)
    q, k, v, kwargs, blocks = random_case(rng)
    before = previous_tiled_attention(q, k, v, **kwargs)
    got = tiled_attention(q, k, v, **kwargs, **blocks)
    assert got.dtype == before.dtype and got.shape == before.shape
    np.testing.assert_array_equal(before == 0, got == 0)  # the same rows with no visible key (all-zero outputs)
    truth = float64_truth(q, k, v, kwargs)
    if got.dtype == np.float16:  # both round a float32 result once: at most one float16 step apart ...
        ulp = np.spacing(np.abs(before)).astype(np.float32)
        # ... plus the float32 sums' own rounding, at the size of the values summed: a result near 0 made by terms
        # of size |v| cancelling can differ by more than its float16 step (seed 0 on an AMD EPYC with AVX2: at
        # -6.9e-5, two steps of 6e-8)
        ulp += 4 * np.finfo(np.float32).eps * np.abs(v.astype(np.float32)).max()
        assert (np.abs(got.astype(np.float32) - before.astype(np.float32)) <= ulp).all()
    else:
        tol = 1e-12 if got.dtype == np.float64 else 1e-6
        before_error = np.abs(before - truth).max(initial=0)
        assert np.abs(got - truth).max(initial=0) <= max(tol, 2 * before_error), before_error
        assert np.abs(got - before).max(initial=0) <= max(tol, 2 * before_error)


@pytest.mark.parametrize("seed", range(30))
def test_the_general_path_with_the_previous_blocks_does_the_same_arithmetic(seed, monkeypatch, mode):
    """The online softmax (shortcut off) on the previous blocks of 256 x 512: bit for bit in one thread.

    Threaded, OpenBLAS on one thread (inside the workers) may round a product differently from OpenBLAS on
    its own threads (the previous implementation) in the last bit: then a few ulp of the scores, which move
    the output by a few ulp of the scores times the values (seed 18 on an AMD EPYC with AVX2: 1.2e-14 where
    the output is 0.014, 5.8e-13 of it).
    """
    monkeypatch.setattr(efficient, "_bounded_heads", lambda *args: None)
    rng = np.random.default_rng(4000 + seed)
    q, k, v, kwargs, _ = random_case(rng)
    before = previous_tiled_attention(q, k, v, **kwargs)
    got = tiled_attention(q, k, v, **kwargs, block_q=256, block_k=512)
    if mode == "serial":
        np.testing.assert_array_equal(got, before)
    else:
        eps = np.finfo(before.dtype).eps
        atol = 4 * eps * (1.0 + score_bound(q, k, kwargs)) * float(np.abs(v).max())
        np.testing.assert_allclose(got, before, rtol=4 * eps, atol=atol)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("window", [None, 300])
def test_the_benchmark_shape_is_as_close_to_the_truth_as_before(causal, window):
    rng = np.random.default_rng(11)
    q, k, v = (rng.standard_normal((12, 2048, 64), dtype=np.float32) for _ in range(3))
    before = previous_tiled_attention(q, k, v, causal=causal, window=window)
    got = tiled_attention(q, k, v, causal=causal, window=window)
    wide = (x.astype(np.float64) for x in (q, k, v))
    truth = previous_tiled_attention(*wide, causal=causal, window=window)
    assert np.abs(got - before).max() <= 1.5e-6  # measured: 2e-7 without a mask, 1e-6 causal (rows with few keys)
    assert np.abs(got - truth).max() <= max(1e-6, 2 * np.abs(before - truth).max())


@pytest.mark.parametrize("seed", range(20))
def test_blocked_with_weights_is_bit_for_bit_the_same_rows(seed):
    """Threads change which thread computes a block of rows, never the operations on it."""
    rng = np.random.default_rng(2000 + seed)
    q, k, v, kwargs, _ = random_case(rng)
    block_bytes = int(rng.integers(1, 1 << 16))
    one = blocked_attention_with_weights(q, k, v, kwargs["mask"], kwargs["scale"], block_bytes, threads=1)
    many = blocked_attention_with_weights(q, k, v, kwargs["mask"], kwargs["scale"], block_bytes)
    for a, b in zip(many, one, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(40))
def test_differential_against_pytorch(seed):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(3000 + seed)
    q, k, v, kwargs, blocks = random_case(rng, dtypes=(np.float32, np.float64))
    got = tiled_attention(q, k, v, **kwargs, **blocks)
    n_q, n_k = q.shape[-2], k.shape[-2]
    allowed = np.ones((n_q, n_k), bool)
    if kwargs["causal"] or kwargs["window"] is not None:
        allowed = rect_window(n_q, n_k, kwargs["window"] or n_q + n_k, kwargs["causal"])
    user = kwargs["mask"]
    if user is None:
        additive = np.where(allowed, 0.0, -np.inf)
    elif user.dtype == bool:
        additive = np.where(allowed & user, 0.0, -np.inf)
    else:
        additive = np.where(allowed, user, -np.inf)
    batch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    additive = np.broadcast_to(additive.astype(q.dtype), (*batch, n_q, n_k))
    tq, tk, tv, tm = (
        torch.from_numpy(np.array(np.broadcast_to(x, (*batch, *x.shape[-2:])))) for x in (q, k, v, additive)
    )
    with torch.no_grad():
        expected = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, attn_mask=tm, scale=kwargs["scale"])
    expected = expected.numpy()
    empty = np.isneginf(additive).all(axis=-1)  # rows with no visible key: attn_lib gives zeros
    assert (got[empty] == 0).all()
    tol = 2e-6 if q.dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got[~empty], expected[~empty], rtol=tol, atol=tol)


@pytest.mark.parametrize("causal", [False, True])
def test_against_pytorchs_fused_kernel_on_4d_input(causal):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(12)
    q, k, v = (rng.standard_normal((1, 12, 1024, 64), dtype=np.float32) for _ in range(3))
    with torch.no_grad():
        expected = torch.nn.functional.scaled_dot_product_attention(
            *(torch.from_numpy(x) for x in (q, k, v)), is_causal=causal
        ).numpy()
    assert np.abs(tiled_attention(q, k, v, causal=causal) - expected).max() <= 1e-6


# --- the bounded shortcut: the same mathematics, and the boundary where it stops -------------------------------


def paths_taken(monkeypatch):
    """A list that records, per block of query rows, which path ran: "bounded" or "general"."""
    taken = []
    for name, label in (("_softmax_sums", "bounded"), ("_online_softmax", "general")):
        real = getattr(efficient, name)
        monkeypatch.setattr(
            efficient, name, lambda *args, real=real, label=label: (taken.append(label), real(*args))[1]
        )
    return taken


def test_ordinary_inputs_take_the_shortcut_and_large_scores_the_online_softmax(monkeypatch):
    taken = paths_taken(monkeypatch)
    rng = np.random.default_rng(20)
    q, k, v = (rng.standard_normal((3, 200, 64), dtype=np.float32) for _ in range(3))
    small = tiled_attention(q, k, v, block_q=64, block_k=50)  # scores: scale |q| |k| about 1/8 * 10 * 10
    assert set(taken) == {"bounded"}
    taken.clear()
    large = tiled_attention(10 * q, k, v, block_q=64, block_k=50)  # up to 10 times larger scores
    assert set(taken) == {"general"}
    for x, out, tol in ((q, small, 1e-6), (10 * q, large, 1e-4)):  # float32 scores of about 10 and 100
        expected = scaled_dot_product_attention(*(a.astype(np.float64) for a in (x, k, v)))[0]
        np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_boundary_of_the_shortcut_is_scale_times_the_largest_norms(monkeypatch, dtype):
    """q = k = e_1 rows: the largest score is exactly the scale. B takes the shortcut; the next number after B not."""
    taken = paths_taken(monkeypatch)
    bound = efficient._EXP_BOUND[np.dtype(dtype)]
    rng = np.random.default_rng(21)
    n, d = 40, 8
    q, k = (rng.uniform(-0.3, 0.3, (n, d)).astype(dtype) for _ in range(2))  # norms below 0.3 sqrt(8) < 1 ...
    q[0], k[-1] = np.eye(d, dtype=dtype)[0], np.eye(d, dtype=dtype)[0]  # ... but one row each of norm exactly 1
    v = rng.standard_normal((n, 5)).astype(dtype)
    assert (q @ k.T).max() == 1  # so the largest score is the scale itself
    for scale, path in ((bound, "bounded"), (float(np.nextafter(dtype(bound), dtype(np.inf))), "general")):
        taken.clear()
        got = tiled_attention(q, k, v, scale=scale, block_q=16, block_k=16)
        assert set(taken) == {path}, (scale, taken)
        truth = scaled_dot_product_attention(*(a.astype(np.float64) for a in (q, k, v)), scale=scale)[0]
        tol = 5e-5 if dtype == np.float32 else 1e-12  # scores up to 30 (300): weights over a wide range
        np.testing.assert_allclose(got, truth, rtol=tol, atol=tol)


@pytest.mark.parametrize("seed", range(20))
def test_the_shortcut_equals_the_online_softmax_up_to_rounding(seed, monkeypatch):
    """The same inputs with the shortcut and without it: a few ulp apart (both against the float64 truth)."""
    rng = np.random.default_rng(5000 + seed)
    q, k, v, kwargs, blocks = random_case(rng, dtypes=(np.float32, np.float64))
    kwargs["mask"] = None if kwargs["mask"] is None or kwargs["mask"].dtype != bool else kwargs["mask"]
    q = q * rng.uniform(0.2, 2.5)  # scores from small to near the bound
    shortcut = tiled_attention(q, k, v, **kwargs, **blocks)
    monkeypatch.setattr(efficient, "_bounded_heads", lambda *args: None)
    general = tiled_attention(q, k, v, **kwargs, **blocks)
    truth = float64_truth(q, k, v, kwargs)
    eps = np.finfo(q.dtype).eps
    scale = max(1.0, float(np.abs(truth).max(initial=0)))
    np.testing.assert_allclose(shortcut, general, rtol=64 * eps, atol=64 * eps * scale)
    assert np.abs(shortcut - truth).max(initial=0) <= max(2 * np.abs(general - truth).max(initial=0), 8 * eps * scale)


def test_float_masks_always_take_the_online_softmax(monkeypatch):
    """-1e9 on every key of a row means uniform weights in float32 (-1e9 + s rounds to -1e9), as in the formula.

    The shortcut would add up exp(-1e9) = 0 for every key and give that row zeros instead.
    """
    taken = paths_taken(monkeypatch)
    rng = np.random.default_rng(22)
    q, k, v = (rng.standard_normal((6, 8)).astype(np.float32) for _ in range(3))
    mask = np.zeros((6, 6), np.float32)
    mask[2] = -1e9
    got = tiled_attention(q, k, v, mask=mask)
    assert set(taken) == {"general"}
    np.testing.assert_allclose(got[2], v.mean(axis=0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got, scaled_dot_product_attention(q, k, v, mask=mask)[0], rtol=1e-5, atol=1e-6)


def test_tiny_values_take_the_online_softmax_where_the_shortcut_would_lose_digits(monkeypatch):
    """Scores all near -30 and v ~ 1e-30: exp(s) v ~ 1e-43 is below float32's normal numbers (1.2e-38)."""
    taken = paths_taken(monkeypatch)
    rng = np.random.default_rng(23)
    n, d = 64, 4
    q = np.zeros((n, d), np.float32)
    q[:, 0] = 1
    k = np.zeros((n, d), np.float32)
    k[:, 0] = -1 + 0.01 * rng.random(n).astype(np.float32)  # scores -30 ... -29.7 at scale 30
    v = (1e-30 * rng.standard_normal((n, 3))).astype(np.float32)
    got = tiled_attention(q, k, v, scale=30.0)
    assert set(taken) == {"general"}
    truth = scaled_dot_product_attention(*(a.astype(np.float64) for a in (q, k, v)), scale=30.0)[0]
    np.testing.assert_allclose(got, truth, rtol=1e-5)
    # the guard is needed: the shortcut's sums on these inputs are off by far more than float32's rounding
    s = (q @ k.T) * np.float32(30.0)
    shortcut = np.exp(s) @ v / np.exp(s).sum(axis=-1, keepdims=True)
    assert np.abs(shortcut - truth).max() / np.abs(truth).max() > 1e-3


def test_huge_values_take_the_online_softmax_where_the_sums_could_overflow(monkeypatch):
    """Scores up to 30 but |v| ~ 1e30: sum_j exp(s_j) v_j could reach 1e13 n_k 1e30, beyond float32's 3.4e38."""
    taken = paths_taken(monkeypatch)
    rng = np.random.default_rng(24)
    q, k = (rng.standard_normal((50, 8)).astype(np.float32) for _ in range(2))
    v = (1e30 * rng.standard_normal((50, 3))).astype(np.float32)
    got = tiled_attention(q, k, v)
    assert set(taken) == {"general"}
    truth = scaled_dot_product_attention(*(a.astype(np.float64) for a in (q, k, v)))[0]
    np.testing.assert_allclose(got, truth, rtol=1e-5, atol=1e-6 * np.abs(truth).max())
    taken.clear()
    tiled_attention(q, k, v / np.float32(1e30))  # the same scores with ordinary values: the shortcut
    assert set(taken) == {"bounded"}


# --- threads: the argument, small inputs, BLAS, concurrent callers, fork, errors, memory ------------------------


def test_threads_must_be_a_positive_integer():
    q, k, v = np.ones((4, 3)), np.ones((5, 3)), np.ones((5, 2))
    with pytest.raises(ValueError, match="threads=0 must be a positive integer"):
        tiled_attention(q, k, v, threads=0)
    with pytest.raises(TypeError, match="threads must be a positive integer, got float 2.0"):
        tiled_attention(q, k, v, threads=2.0)
    with pytest.raises(TypeError, match="threads must be a positive integer, got bool True"):
        blocked_attention_with_weights(q, k, v, threads=True)


def threads_seen(monkeypatch, delay=0.0):
    """A set that records the thread of every block of query rows (each block waits `delay` s, releasing the GIL)."""
    seen = set()
    for name in ("_softmax_sums", "_online_softmax"):
        real = getattr(efficient, name)

        def recording(*args, real=real):
            seen.add(threading.get_ident())
            time.sleep(delay)
            return real(*args)

        monkeypatch.setattr(efficient, name, recording)
    return seen


def test_threads_are_used_for_large_inputs_only(monkeypatch):
    monkeypatch.setattr(threads_module, "MIN_PARALLEL_WORK", 50_000_000)
    seen = threads_seen(monkeypatch, delay=0.005)
    rng = np.random.default_rng(16)
    small = rng.standard_normal((2, 64, 16), dtype=np.float32)  # 0.3 M multiply-adds
    tiled_attention(small, small, small, threads=2)
    assert seen == {threading.get_ident()}
    seen.clear()
    large = rng.standard_normal((12, 256, 64), dtype=np.float32)  # 100 M multiply-adds
    tiled_attention(large, large, large, threads=2)
    assert len(seen) == 2 and threading.get_ident() in seen
    seen.clear()
    tiled_attention(large, large, large, threads=1)
    assert seen == {threading.get_ident()}


def test_without_threadpoolctl_one_thread_and_blas_untouched(monkeypatch):
    monkeypatch.setattr(threads_module, "ThreadpoolController", None)
    monkeypatch.setattr(threads_module, "blas_single_thread", None)  # calling it would fail
    seen = threads_seen(monkeypatch)
    rng = np.random.default_rng(17)
    q = rng.standard_normal((4, 100, 8))
    assert threads_module.resolve_threads(None) == 1
    got = tiled_attention(q, q, q, threads=2, block_q=10)
    assert seen == {threading.get_ident()}
    np.testing.assert_allclose(got, scaled_dot_product_attention(q, q, q)[0], rtol=1e-12, atol=1e-12)


def blas_threads():
    from threadpoolctl import threadpool_info

    return [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]


def test_blas_is_on_one_thread_during_a_call_and_restored_after_it_and_after_an_error(monkeypatch):
    monkeypatch.setattr(threads_module, "MIN_PARALLEL_WORK", 0)
    before = blas_threads()
    during = []
    real = efficient._online_softmax
    monkeypatch.setattr(efficient, "_online_softmax", lambda *args: (during.append(blas_threads()), real(*args))[1])
    rng = np.random.default_rng(14)
    q = 10 * rng.standard_normal((4, 300, 16))  # large scores: the online softmax
    tiled_attention(q, q, q, threads=2)
    assert during and all(counts == [1] * len(before) for counts in during)
    assert blas_threads() == before
    big = np.full((520, 4), 1e30, dtype=np.float32)
    with np.errstate(over="ignore"), pytest.raises(ValueError, match="overflowed float32"):
        tiled_attention(big, big, big, threads=2, block_q=16)  # many tasks: the first error stops the others
    assert blas_threads() == before


def test_concurrent_callers_get_their_own_results_and_blas_is_restored():
    before = blas_threads()
    rng = np.random.default_rng(15)
    inputs = [tuple(rng.standard_normal((6, 400, 32)) for _ in range(3)) for _ in range(4)]
    expected = [previous_tiled_attention(*x, causal=True) for x in inputs]
    results, errors = [None] * 4, []

    def call(i):
        try:
            results[i] = tiled_attention(*inputs[i], causal=True, threads=2, block_q=64)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    callers = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert not errors
    for got, want in zip(results, expected, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert blas_threads() == before


def _child_call(q):
    threads_module.MIN_PARALLEL_WORK = 0
    return tiled_attention(q, q, q, threads=2, block_q=32)


def test_threads_work_in_a_forked_child():
    """The pool is process-wide: a child made by os.fork() must not wait for its parent's (absent) threads."""
    rng = np.random.default_rng(17)
    q = rng.standard_normal((4, 300, 16))
    expected = tiled_attention(q, q, q, threads=2, block_q=32)  # the parent's pool exists now (threaded mode)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        got = pool.apply_async(_child_call, (q,)).get(timeout=120)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_the_callers_errstate_holds_in_every_thread():
    """numpy's error state is a context variable: the workers run in a copy of the caller's context."""
    q = np.zeros((300, 2))
    q[:, 0] = np.linspace(0, 300, 300)
    k = q[::-1].copy()
    v = np.ones((300, 2))
    with np.errstate(under="raise"), pytest.raises(FloatingPointError, match="underflow"):
        tiled_attention(q, k, v, scale=10.0, block_q=8, threads=2)  # exp of scores thousands below the max
    tiled_attention(q, k, v, scale=10.0, block_q=8, threads=2)  # numpy's default: underflow to 0 is fine


def test_a_keyboard_interrupt_in_a_worker_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(threads_module, "MIN_PARALLEL_WORK", 0)
    calls = []

    def interrupted(*args):
        calls.append(threading.get_ident())
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args)

    real = efficient._softmax_sums
    monkeypatch.setattr(efficient, "_softmax_sums", interrupted)
    q = np.random.default_rng(18).standard_normal((2, 400, 8))
    with pytest.raises(KeyboardInterrupt):
        tiled_attention(q, q, q, threads=2, block_q=8)  # 100 tasks: the others stop after their current one
    assert len(calls) < 100


# --- the diagonal block split finer (causal, chosen block sizes) ------------------------------------------------


def covered(n_q, n_k, block_q, block_k, causal, window, split):
    """[n_q, n_k]: how many times the plan computes each score, and the scores it computes in all."""
    seen = np.zeros((n_q, n_k), int)
    plans = plan_blocks(n_q, n_k, block_q, block_k, causal, window, split)
    for _, i0, i1, blocks in plans:
        for j0, j1, r0 in blocks:
            seen[i0 + r0 : i1, j0:j1] += 1
    return seen, sum(cost for cost, *_ in plans)


@pytest.mark.parametrize(
    "n_q, n_k, block_q, block_k, window",
    [(2048, 2048, 512, 512, None), (300, 700, 128, 256, None), (1000, 1000, 512, 512, 300), (700, 300, 256, 512, None)],
)
def test_the_split_diagonal_computes_every_visible_score_once_and_fewer_hidden_ones(n_q, n_k, block_q, block_k, window):
    position = np.arange(n_k - n_q, n_k)[:, None]  # query i sits at position n_k - n_q + i
    visible = np.arange(n_k) <= position
    if window is not None:
        visible &= position - np.arange(n_k) < window
    split, split_cost = covered(n_q, n_k, block_q, block_k, True, window, split=True)
    whole, whole_cost = covered(n_q, n_k, block_q, block_k, True, window, split=False)
    assert (split[visible] == 1).all() and (whole[visible] == 1).all() and split.max() == 1
    assert split_cost == split.sum() and whole_cost == whole.sum(), "a plan's cost is the scores it computes"
    assert split_cost < whole_cost, "the split computes fewer of the hidden scores"
    if (n_q, n_k, block_q, block_k) == (2048, 2048, 512, 512):  # 10 blocks of 512 x 512 -> 4 x 0.625 + 6 = 8.5
        assert split_cost / whole_cost == pytest.approx(0.85)


@pytest.mark.parametrize("n, dtype", [(1024, np.float64), (777, np.float32), (2048, np.float32)])
def test_chosen_blocks_with_the_split_diagonal_match_the_formula(n, dtype):
    rng = np.random.default_rng(n)
    q, k, v = (rng.standard_normal((3, n, 32)).astype(dtype) for _ in range(3))
    expected = scaled_dot_product_attention(q, k, v, mask=np.tril(np.ones((n, n), bool)))[0]
    for shortcut in (True, False):  # the bounded sums and the online softmax
        with pytest.MonkeyPatch.context() as patch:
            if not shortcut:
                patch.setattr(efficient, "_bounded_heads", lambda *args: None)
            got = tiled_attention(q, k, v, causal=True)
        tol = 1e-12 if dtype == np.float64 else 2e-6
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
