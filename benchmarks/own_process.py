"""Time one attention method in a process of its own, so that numpy and PyTorch never share a process (issue 29).

    python benchmarks/own_process.py "tiled" 2048 1 5      # a child run by hand: method, n, causal (0/1), reps

numpy (OpenBLAS) and PyTorch (OpenMP) each keep a pool of threads; in one process the two pools take
turns on the same cores and slow each other down, so a comparison made in one process misleads.
`measure` starts a fresh Python for one (method, n, mask): it builds the benchmark's float32 inputs
(h = 12 heads, d_k = 64, seed 0, the same numbers in every process), warms up with one call, times
`reps` calls and prints the times as JSON. `alternate` runs every method of a list once per round in
such processes, rotating which goes first, and records the 1-minute load average before and after.
PyTorch is imported only in the processes of its own methods, so it stays an optional cross-check.
"""

import gc
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

H, D_K = 12, 64
#: method -> what it is, as the tables name it
METHODS = {
    "torch fused": "PyTorch, 4-D [1, h, n, d_k]: its fused CPU kernel (flash attention)",
    "torch math": "PyTorch, 3-D [h, n, d_k]: its unfused math kernel",
    "tiled": "attn_lib tiled_attention (threads = every core)",
    "tiled, 1 thread": "attn_lib tiled_attention(threads=1)",
    "attn_lib sdpa": "attn_lib scaled_dot_product_attention (returns the weights too)",
    "naive": "the formula as written in numpy (full n x n arrays)",
}


def machine():
    """-> (the CPU's name, its kind for the results' file name, numpy's BLAS as threadpoolctl sees it: its core type
    and threads). Every results file names the machine (issue 43: the same code was 0.91x transformers on an AMD EPYC
    and 1.7x on an Intel Xeon)."""
    info = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                key, _, value = line.partition(":")
                info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = info.get("flags", "").split()
    vendor = {"AuthenticAMD": "amd", "GenuineIntel": "intel"}.get(info.get("vendor_id"), platform.machine())
    kind = f"{vendor}_{'avx512' if 'avx512f' in flags else 'avx2' if 'avx2' in flags else 'base'}"
    name = info.get("model name", platform.processor())
    name = f"{name} (family {info.get('cpu family')}, model {info.get('model')})"
    try:
        import numpy  # noqa: F401 (loads the BLAS that threadpoolctl then finds)
        from threadpoolctl import threadpool_info

        blas = [f"{b.get('internal_api')} {b.get('version')}, core type {b.get('architecture')},"
                f" {b.get('num_threads')} threads"
                for b in threadpool_info() if b.get("user_api") == "blas"]  # fmt: skip
    except ImportError:
        blas = []
    return name, kind, "; ".join(blas) or "unknown"


def inputs(n, heads=H, seed=0):
    """q, k, v: float32 [heads, n, d_k], the same numbers in every process."""
    import numpy as np

    rng = np.random.default_rng(seed)
    return tuple(rng.standard_normal((heads, n, D_K), dtype=np.float32) for _ in range(3))


def naive_attention(q, k, v, m):
    """softmax(Q K^T / sqrt(d_k) + M) V, written plainly: every intermediate is a full [h, n, n] array."""
    import numpy as np

    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(np.float32(q.shape[-1]))  # [h, n, n]
    if m is not None:
        scores = scores + m
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)  # [h, n, n]
    return weights @ v  # [h, n, n] x [h, n, d_v] -> [h, n, d_v]


def build(method, q, k, v, causal):
    """A zero-argument function that computes `method` on q, k, v and returns the output as a numpy array."""
    import numpy as np

    if method.startswith("torch"):
        import torch

        tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))
        if method == "torch fused":  # 4-D, the shape models use
            tq, tk, tv = (x[None] for x in (tq, tk, tv))

        def call():
            with torch.no_grad():
                out = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal)
            return out.reshape(q.shape[:-1] + (v.shape[-1],)).numpy()

        return call
    from attn_lib import additive_mask, causal_mask, scaled_dot_product_attention
    from attn_lib.efficient import tiled_attention

    n = q.shape[-2]
    if method == "tiled":
        return lambda: tiled_attention(q, k, v, causal=causal)
    if method == "tiled, 1 thread":
        return lambda: tiled_attention(q, k, v, causal=causal, threads=1)
    if method == "attn_lib sdpa":
        mask = causal_mask(n) if causal else None
        return lambda: scaled_dot_product_attention(q, k, v, mask=mask)[0]
    if method == "naive":
        mask = additive_mask(causal_mask(n), dtype=np.float32) if causal else None
        return lambda: naive_attention(q, k, v, mask)
    raise SystemExit(f"unknown method {method!r}; known: {', '.join(METHODS)}")


def torch_kernel(q, k, v, causal):
    """The SDPA kernel PyTorch runs for these torch tensors, read from its profiler."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as prof, torch.no_grad():
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    kernels = sorted(e.key for e in prof.key_averages() if e.key.startswith("aten::_scaled_dot_product"))
    return kernels[0] if kernels else "unknown"


def child(method, n, causal, reps, save=None, heads=H, threads=None):
    """In the child process: {"times": seconds of each timed call, "peak_mib": numpy's peak (numpy methods)}."""
    q, k, v = inputs(n, heads)
    if threads and method.startswith("torch"):
        import torch

        torch.set_num_threads(threads)
    elif threads:
        from attn_lib import _threads

        _threads.default_threads = lambda: threads  # tiled_attention's default, as --threads says
    call = build(method, q, k, v, causal)
    out = call()  # warm-up
    if save:
        import numpy as np

        np.save(save, out)
    del out
    times = []
    for _ in range(reps):
        gc.collect()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    result = {"times": times}
    if method.startswith("torch"):
        import torch

        result["threads"] = torch.get_num_threads()
        tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))
        result["kernel"] = torch_kernel(
            *((x[None] for x in (tq, tk, tv)) if method == "torch fused" else (tq, tk, tv)), causal
        )
    else:
        gc.collect()
        tracemalloc.start()
        call()
        result["peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return result


def measure(method, n, causal, reps, save=None, heads=H, threads=None):
    """Run `child` in a fresh Python process and return its result (a dict)."""
    command = [sys.executable, __file__, method, str(n), str(int(causal)), str(reps), "--heads", str(heads)]
    if save:
        command += ["--save", str(save)]
    if threads:
        command += ["--threads", str(threads)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{method}, n={n}, causal={causal} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def load():
    """The 1-minute load average."""
    return os.getloadavg()[0]


def alternate(methods, n, causal, rounds, reps, heads=H, threads=None, outputs=False):
    """Every method once per round, each in its own process, the order rotated each round.

    -> {"times": {method: [seconds, ...]}, "peak_mib": {...}, "kernel": {...}, "load": [before, after],
    "outputs": {method: numpy output} when `outputs` (saved by the first round's processes)}.
    """
    result = {"times": {m: [] for m in methods}, "peak_mib": {}, "kernel": {}, "threads": {}, "load": [load()]}
    with tempfile.TemporaryDirectory() as folder:
        saves = {m: Path(folder) / f"{i}.npy" for i, m in enumerate(methods)} if outputs else {}
        for r in range(rounds):
            for method in methods[r % len(methods) :] + methods[: r % len(methods)]:
                save = saves.get(method) if r == 0 else None
                got = measure(method, n, causal, reps, save, heads, threads)
                result["times"][method] += got["times"]
                for key in ("peak_mib", "kernel", "threads"):
                    if key in got:
                        result[key][method] = got[key]
        if outputs:
            import numpy as np

            result["outputs"] = {m: np.load(path) for m, path in saves.items()}
    result["load"].append(load())
    return result


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("method", choices=list(METHODS))
    parser.add_argument("n", type=int)
    parser.add_argument("causal", type=int, choices=(0, 1))
    parser.add_argument("reps", type=int)
    parser.add_argument("--heads", type=int, default=H)
    parser.add_argument("--save", help="write the output of the warm-up call to this .npy file")
    parser.add_argument("--threads", type=int, help="PyTorch's threads, or tiled_attention's default, in this process")
    args = parser.parse_args(argv)
    print(json.dumps(child(args.method, args.n, bool(args.causal), args.reps, args.save, args.heads, args.threads)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
