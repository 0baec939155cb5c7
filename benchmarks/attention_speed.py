"""How fast, and how much memory: attn_lib's attention paths against PyTorch's CPU kernels, each in its own process.

    python benchmarks/attention_speed.py                    # n = 2048, 4096, 8192: about 10-15 minutes on 2 cores
    python benchmarks/attention_speed.py --wait-load 0.5    # first wait (up to --max-wait s) for a quiet machine
    python benchmarks/attention_speed.py --quick            # n = 512, one round, small other sections: a smoke run
    python benchmarks/attention_speed.py --sizes 2048 --rounds 5
    python benchmarks/attention_speed.py --threads 1        # numpy's BLAS and PyTorch on one thread each
    python benchmarks/attention_speed.py --window-only      # only the sliding window (n = 8192, W = 1024)
    python benchmarks/attention_speed.py --stored benchmarks/results/attention_speed.json   # measure nothing:
                                             # notebook 11's table and the plot again, from a stored run

The main table (issue 29): `tiled_attention` against PyTorch's fused CPU kernel (4-D input [1, h, n, d_k],
the shape models use), float32, h = 12, d_k = 64, without a mask and causal. Each library runs in a
process of its own (benchmarks/own_process.py: numpy's and PyTorch's thread pools slow each other down in
one process), one process per (method, n, mask) and round, the order of the methods rotated each round;
the table reports the median over all timed calls and the 1-minute load average before and after each
row. At the smallest n the methods that form the whole n x n matrix are timed too: the plain formula,
`scaled_dot_product_attention` and PyTorch's unfused math kernel (3-D input).

The other sections run in this process, with numpy only (PyTorch is never imported here): where the time
of the online softmax goes (each step over every block, one thread), decoding 1024 tokens with and
without a KV cache, tiled attention's memory at n = 32,768 (one head; PyTorch's output for the comparison
comes from a process of its own), and sliding-window attention, tiled_attention(causal=True, window=1024)
against full causal tiled_attention at n = 8192 (WINDOW_HEADS heads; target: at least 3x faster).

Writes benchmarks/results/attention_speed.{md,json,png} (--window-only and --quick write nothing unless
--out is given) and, from the same run, the figures notebook 11 prints and draws:
attn_lib/models/data/attention_speed.json (`attn_lib.models.speed_table.load_speed_table`; not with --out,
so a run elsewhere leaves the notebook's table alone). Exits with status 1 when a target is missed, among
them tiled_attention <= 1.5x PyTorch's fused kernel at n = 2048, with and without the causal mask.
"""

import argparse
import datetime
import gc
import importlib.util
import json
import os
import platform
import sys
import time
import tracemalloc
from importlib import metadata
from pathlib import Path

if "--threads" in sys.argv[:-1]:  # BLAS reads its thread count once, when numpy is imported: set it first
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = sys.argv[sys.argv.index("--threads") + 1]

import numpy as np  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from own_process import METHODS, alternate, inputs, load, machine, measure, median  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

from attn_lib import causal_mask, scaled_dot_product_attention  # noqa: E402
from attn_lib.efficient import KVCache, _block_sizes, tiled_attention  # noqa: E402
from attn_lib.pictures.heatmaps import use_cjk_font  # noqa: E402
from attn_lib.sliding_window import sliding_window_mask  # noqa: E402

H, D_K = 12, 64
WINDOW_N, WINDOW, WINDOW_HEADS = 8192, 1024, 4  # the sliding-window case (issue 17)
TARGET_RATIO = 1.5  # tiled_attention / PyTorch's fused kernel at n = 2048 (issue 29)
RESULTS = Path(__file__).resolve().parent / "results"
PACKAGE_TABLE = Path(__file__).resolve().parents[1] / "attn_lib" / "models" / "data" / "attention_speed.json"
MIB = 2**20
HAVE_TORCH = importlib.util.find_spec("torch") is not None


def reps_for(n, quick):
    """Timed calls per process (after one warm-up call)."""
    return 2 if quick else 5 if n <= 2048 else 3 if n <= 4096 else 2


def speed_rows(sizes, rounds, quick, threads):
    """The main table: one row per (n, mask), every method in processes of its own, alternating."""
    rows = []
    for n in sizes:
        for causal in (False, True):
            methods = ["torch fused", "tiled", "tiled, 1 thread"]
            if n == sizes[0]:  # the methods that form the n x n matrix: once, at the smallest n
                methods += ["torch math", "attn_lib sdpa", "naive"]
            if not HAVE_TORCH:
                methods = [m for m in methods if not m.startswith("torch")]
            got = alternate(methods, n, causal, rounds, reps_for(n, quick), threads=threads, outputs=True)
            reference = got["outputs"].get("torch fused", got["outputs"]["tiled"])
            row = {
                "n": n,
                "mask": "causal" if causal else "none",
                "median_ms": {m: median(t) * 1e3 for m, t in got["times"].items()},
                "calls": {m: len(t) for m, t in got["times"].items()},
                "times_ms": {m: [x * 1e3 for x in t] for m, t in got["times"].items()},
                "peak_mib": got["peak_mib"],
                "kernel": got["kernel"],
                "torch_threads": got["threads"],
                "max_abs_diff": max(float(np.abs(out - reference).max()) for out in got["outputs"].values()),
                "load": got["load"],
            }
            rows.append(row)
            print(format_row(row), flush=True)
    return rows


TABLE_HEAD = (
    "| n | mask | torch fused ms | tiled ms | tiled / torch fused | tiled, 1 thread ms | 1 thread / torch fused"
    " | torch math ms | attn_lib sdpa ms | naive ms | tiled MiB | max abs diff | calls | load before / after |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)


def format_row(row):
    med = row["median_ms"]
    fused = med.get("torch fused")

    def ms(name):
        return f"{med[name]:.1f}" if name in med else "-"

    def ratio(name):
        return f"{med[name] / fused:.2f}" if fused and name in med else "-"

    cells = [
        str(row["n"]),
        row["mask"],
        ms("torch fused"),
        ms("tiled"),
        ratio("tiled"),
        ms("tiled, 1 thread"),
        ratio("tiled, 1 thread"),
        ms("torch math"),
        ms("attn_lib sdpa"),
        ms("naive"),
        f"{row['peak_mib']['tiled']:.0f}",
        f"{row['max_abs_diff']:.1e}",
        str(row["calls"]["tiled"]),
        f"{row['load'][0]:.2f} / {row['load'][1]:.2f}",
    ]
    return "| " + " | ".join(cells) + " |"


def breakdown(n, reps, block=512):
    """Where the time of the online softmax goes: each step over every [block x block] block, timed alone.

    One thread (BLAS too), 12 heads, no mask, float32: the steps of attn_lib's general path in the order it
    runs them, each wrapped in its own timer. "exp, into a new array" is timed beside the in-place exp (and
    left out of the total): what working in place saves on that step.
    """
    q, k, v = inputs(n)
    q = q * np.float32(1 / np.sqrt(D_K))
    s = np.empty((block, block), np.float32)
    acc = np.empty((block, D_K), np.float32)
    steps = ["Q K^T (matrix product)", "max and subtract", "exp, in place", "row sums", "P V (matrix product)"]
    totals = {name: [] for name in [*steps, "exp, into a new array"]}
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(reps):
            spent = dict.fromkeys(totals, 0.0)
            for h in range(H):
                for i in range(0, n, block):
                    for j in range(0, n, block):
                        t0 = time.perf_counter()
                        np.matmul(q[h, i : i + block], k[h, j : j + block].T, out=s)  # [bq, d_k] x [d_k, bk]
                        t1 = time.perf_counter()
                        np.subtract(s, s.max(axis=-1, keepdims=True), out=s)
                        t2 = time.perf_counter()
                        fresh = np.exp(s)  # a new [bq, bk] array, as `p = np.exp(s - m)` makes
                        t3 = time.perf_counter()
                        del fresh
                        t4 = time.perf_counter()
                        np.exp(s, out=s)
                        t5 = time.perf_counter()
                        s.sum(axis=-1, keepdims=True)
                        t6 = time.perf_counter()
                        np.matmul(s, v[h, j : j + block], out=acc)  # [bq, bk] x [bk, d_v]
                        t7 = time.perf_counter()
                        for name, dt in zip(steps, (t1 - t0, t2 - t1, t5 - t4, t6 - t5, t7 - t6), strict=True):
                            spent[name] += dt
                        spent["exp, into a new array"] += t3 - t2
            for name, seconds in spent.items():
                totals[name].append(seconds)
    return {
        "n": n,
        "heads": H,
        "block": block,
        "reps": reps,
        "median_ms": {name: median(t) * 1e3 for name, t in totals.items()},
        "total_ms": sum(median(totals[name]) for name in steps) * 1e3,
        "steps": steps,
    }


def breakdown_lines(b):
    lines = [
        f"## Where the time goes: the online softmax's steps over every block, n = {b['n']}, h = {b['heads']},"
        f" blocks of {b['block']} x {b['block']}, one thread",
        "",
        "| step | ms | share |",
        "|---|---|---|",
    ]
    for name in b["steps"]:
        lines.append(f"| {name} | {b['median_ms'][name]:.1f} | {b['median_ms'][name] / b['total_ms']:.0%} |")
    lines += [
        f"| total | {b['total_ms']:.1f} | 100% |",
        f"| (exp, into a new array instead) | {b['median_ms']['exp, into a new array']:.1f} | |",
        "",
        "Each step timed alone (numpy and BLAS on one thread, no mask, medians of"
        f" {b['reps']} passes over all blocks). The two matrix products do 2 x 64 multiply-adds per score;"
        " max and subtract, exp and the row sums are passes over each block of scores. When no score can"
        " overflow exp, tiled_attention skips max and subtract (its bounded shortcut).",
    ]
    return lines


def decode_benchmark(n_tokens, rng, reps):
    """Decode n_tokens one at a time: with a KV cache, and by recomputing causal attention each step."""
    q, k, v = (rng.standard_normal((H, n_tokens, D_K), dtype=np.float32) for _ in range(3))

    def with_cache():
        cache = KVCache(n_tokens, D_K, batch_shape=(H,), dtype=np.float32)
        return np.stack([cache.decode_step(q[:, t], k[:, t], v[:, t]) for t in range(n_tokens)], axis=-2)

    def without_cache():  # step t: full causal attention over tokens 0..t, keep the newest row
        steps = []
        for t in range(1, n_tokens + 1):
            out, _ = scaled_dot_product_attention(q[:, :t], k[:, :t], v[:, :t], mask=causal_mask(t))
            steps.append(out[:, -1])
        return np.stack(steps, axis=-2)

    cached_times, cached = zip(*(timed(with_cache) for _ in range(reps)), strict=True)
    full_time, full = timed(without_cache)  # slow: once is enough
    reference, _ = scaled_dot_product_attention(q, k, v, mask=causal_mask(n_tokens))
    return {
        "tokens": n_tokens,
        "cache_s": float(np.median(cached_times)),
        "full_s": full_time,
        "diff_cache_vs_full": float(np.abs(cached[0] - full).max()),
        "diff_cache_vs_causal": float(np.abs(cached[0] - reference).max()),
    }


def timed(fn):
    gc.collect()
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def long_sequence(n, folder):
    """Tiled attention on one long head: peak numpy memory, and agreement with PyTorch (run in its own process)."""
    q, k, v = inputs(n, heads=1)
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    out = tiled_attention(q, k, v)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / MIB
    tracemalloc.stop()
    result = {"n": n, "peak_mib": peak, "seconds": seconds, "full_scores_mib": n * n * 4 / MIB}
    if HAVE_TORCH:
        measure("torch fused", n, False, 0, save=folder / "long.npy", heads=1)
        result["diff_vs_torch"] = float(np.abs(out - np.load(folder / "long.npy")).max())
    return result


def sliding_window_benchmark(n, window, heads, rng, reps):
    """Causal tiled attention with and without a window of `window` keys: medians of interleaved runs, and exactness."""
    q, k, v = (rng.standard_normal((heads, n, D_K), dtype=np.float32) for _ in range(3))
    methods = {
        "full causal": lambda: tiled_attention(q, k, v, causal=True),
        "window": lambda: tiled_attention(q, k, v, causal=True, window=window),
    }
    times = {name: [] for name in methods}
    outputs = {name: fn() for name, fn in methods.items()}  # warm-up
    for rep in range(reps):
        for name in list(methods)[rep % 2 :] + list(methods)[: rep % 2]:  # alternate which runs first
            times[name].append(timed(methods[name])[0])
    # the same result with the window given as an explicit mask: no block is skipped, every score is masked
    reference = tiled_attention(q, k, v, mask=sliding_window_mask(n, window))
    full, windowed = (float(np.median(times[name])) for name in methods)
    return {
        "n": n,
        "window": window,
        "heads": heads,
        "reps": reps,
        "full_s": full,
        "window_s": windowed,
        "speedup": full / windowed,
        "diff_vs_mask": float(np.abs(outputs["window"] - reference).max()),
        "scores_full": n * (n + 1) // 2,
        "scores_window": sum(min(i + 1, window) for i in range(n)),
        "computed_full": computed_scores(n, None),
        "computed_window": computed_scores(n, window),
    }


def computed_scores(n, window):
    """Scores tiled_attention(causal=True, window=...) computes with its default blocks of queries (whole key ranges).

    A block of queries at positions p0 .. p1 reads keys max(0, p0 - window + 1) .. p1 (0 .. p1 without a window), so
    the corners beyond the diagonal and before the window are computed and then masked.
    """
    block_q, _ = _block_sizes(n, n, 4, window)  # float32
    total = 0
    for p0 in range(0, n, block_q):
        p1 = min(p0 + block_q, n) - 1
        start = 0 if window is None else max(0, p0 - window + 1)
        total += (p1 - p0 + 1) * (p1 + 1 - start)
    return total


def window_lines(r):
    return [
        f"## Sliding-window attention: n = {r['n']}, window = {r['window']}, h = {r['heads']}, d_k = {D_K}, float32",
        "",
        "| method | median seconds | speed-up |",
        "|---|---|---|",
        f"| `tiled_attention(causal=True)` | {r['full_s']:.2f} | 1 |",
        f"| `tiled_attention(causal=True, window={r['window']})` | {r['window_s']:.2f} | {r['speedup']:.1f}x |",
        "",
        f"Scores inside the mask: {r['scores_full']:,} causal, {r['scores_window']:,} with the window"
        f" ({r['scores_full'] / r['scores_window']:.1f}x fewer); scores computed with whole blocks of"
        f" {_block_sizes(r['n'], r['n'], 4)[0]} queries (causal) and {_block_sizes(r['n'], r['n'], 4, r['window'])[0]}"
        " (window):"
        f" {r['computed_full']:,} and {r['computed_window']:,} ({r['computed_full'] / r['computed_window']:.1f}x"
        " fewer), per head. The key blocks outside every window are never computed."
        f" Largest difference from tiled_attention with the explicit sliding_window_mask: {r['diff_vs_mask']:.1e}."
        f" Medians of {r['reps']} interleaved runs.",
    ]


def window_target(result):
    ok = result["speedup"] >= 3 and result["diff_vs_mask"] <= 1e-5
    return (
        f"- sliding window, n={result['n']}, W={result['window']}: {result['speedup']:.1f}x faster than full causal"
        f" tiled attention (target >= 3), same outputs as with the explicit mask to 1e-5: {'met' if ok else 'MISSED'}"
    )


def targets(rows, decode, long):
    """The issues' targets, each with what this run measured."""
    lines = []
    for row in rows:
        med, mask = row["median_ms"], "causal" if row["mask"] == "causal" else "no mask"
        if row["n"] == 2048 and "torch fused" in med:
            ratio = med["tiled"] / med["torch fused"]
            lines.append(
                f"- n=2048, {mask}: tiled_attention / PyTorch's fused kernel = {ratio:.2f} (target <= {TARGET_RATIO})"
                f" {'met' if ratio <= TARGET_RATIO else 'MISSED'}"
            )
        if row["n"] == 2048 and "torch math" in med:
            best = min(med["tiled"], med["attn_lib sdpa"])
            ratio, speedup = best / med["torch math"], med["naive"] / best
            lines.append(
                f"- n=2048, {mask}: best attn_lib / PyTorch's unfused math kernel (the same algorithm) = {ratio:.2f}"
                f" (target <= 1.0) {'met' if ratio <= 1.0 else 'MISSED'}; naive / best = {speedup:.1f} (target >= 3)"
                f" {'met' if speedup >= 3 else 'MISSED'}"
            )
    peak_ok = long["peak_mib"] <= 64 and long.get("diff_vs_torch", 0) <= 1e-5
    lines.append(
        f"- n={long['n']}, h=1: tiled peak {long['peak_mib']:.1f} MiB (target <= 64), matches PyTorch"
        f" to 1e-5: {'met' if peak_ok else 'MISSED'}"
    )
    speedup = decode["full_s"] / decode["cache_s"]
    same = decode["diff_cache_vs_full"] <= 1e-5
    lines.append(
        f"- KV cache, {decode['tokens']} tokens: {speedup:.0f}x faster (target >= 10), same outputs to 1e-5:"
        f" {'met' if speedup >= 10 and same else 'MISSED'}"
    )
    return lines


def environment():
    """Versions, cores, thread pools (PyTorch's version read from its metadata: it is not imported here)."""
    torch_version = metadata.version("torch") if HAVE_TORCH else None
    info = {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch_version,
        "cpus": os.cpu_count(),
        "cpu": machine()[0],
        "blas": [
            f"{p.get('internal_api')} {p.get('version')}, core type {p.get('architecture')}, {p.get('num_threads')}"
            " threads"
            for p in threadpool_info()
        ],
        "env": {key: value for key, value in os.environ.items() if key.startswith(("OPENBLAS", "OMP_", "MKL_"))},
    }
    lines = [
        f"python {info['python']}, numpy {info['numpy']}, torch {torch_version or 'not installed'}",
        f"CPU: {info['cpu']}; cpu count {info['cpus']}; numpy's BLAS: {'; '.join(info['blas'])}",
        f"thread/BLAS environment variables: {info['env'] or 'none set'}",
    ]
    return info, lines


def wait_for_quiet(threshold, max_wait):
    """Wait until the 1-minute load average is below `threshold` (checked every 10 s), at most `max_wait` seconds."""
    start = time.monotonic()
    while load() >= threshold and time.monotonic() - start < max_wait:
        time.sleep(10)
    waited = time.monotonic() - start
    quiet = load() < threshold
    print(f"load {load():.2f} after waiting {waited:.0f} s for < {threshold}: {'quiet' if quiet else 'NOT quiet'}")
    return {"threshold": threshold, "waited_s": round(waited), "quiet": quiet, "load": os.getloadavg()}


def plot(rows, path):
    use_cjk_font()
    fig = Figure(figsize=(10, 4), layout="constrained")
    axes = fig.subplots(1, 2, sharey=True)
    for ax, mask in zip(axes, ("none", "causal"), strict=True):
        sel = [row for row in rows if row["mask"] == mask]
        for name, marker in (("torch fused", "+"), ("tiled", "^"), ("tiled, 1 thread", "v")):
            if all(name in row["median_ms"] for row in sel):
                ax.plot([r["n"] for r in sel], [r["median_ms"][name] for r in sel], marker=marker, label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("sequence length n")
        ax.set_title(f"h={H}, d_k={D_K}, float32, {'causal mask' if mask == 'causal' else 'no mask'}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("median ms per call")
    axes[0].legend()
    fig.suptitle("tiled_attention against PyTorch's fused CPU kernel, each library in a process of its own")
    fig.savefig(path, dpi=100)


def package_table(stored):
    """The figures notebook 11 reads, taken from a run's results (the `stored` dict of main).

    Milliseconds to 3 decimals, so that the ratios the notebook computes are those of attention_speed.md.
    """
    names = [name for name in stored["methods"] if any(name in row["median_ms"] for row in stored["speed"])]
    split = stored["breakdown"]
    return {
        "about": "Made by benchmarks/attention_speed.py from the run in benchmarks/results/attention_speed.json"
        " (median milliseconds per call; each library in a process of its own). Notebook 11 prints and draws it.",
        "command": stored["command"],
        "date": stored["date"],
        "machine": {key: stored["machine"][key] for key in ("cpus", "cpu", "python", "numpy", "torch", "blas")},
        "load_start": [round(x, 2) for x in stored["load"]["start"]],
        "load_end": [round(x, 2) for x in stored["load"]["end"]],
        "heads": stored["heads"],
        "d_k": stored["d_k"],
        "dtype": stored["dtype"],
        "rounds": stored["rounds"],
        "target_ratio": stored["target_ratio"],
        "methods": {name: stored["methods"][name] for name in names},
        "rows": [
            {
                "n": row["n"],
                "mask": row["mask"],
                "median_ms": {name: round(ms, 3) for name, ms in row["median_ms"].items()},
                "calls": row["calls"]["tiled"],
                "load": [round(x, 2) for x in row["load"]],
                "max_abs_diff": float(f"{row['max_abs_diff']:.1e}"),
            }
            for row in stored["speed"]
        ],
        "breakdown": {
            "n": split["n"],
            "heads": split["heads"],
            "block": split["block"],
            "reps": split["reps"],
            "steps": split["steps"],
            "median_ms": {name: round(ms, 3) for name, ms in split["median_ms"].items()},
        },
    }


def write_package_table(stored, path=PACKAGE_TABLE):
    path.write_text(json.dumps(package_table(stored), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 512, one round, small other sections (a smoke run)")
    parser.add_argument("--sizes", default="2048,4096,8192", help="sequence lengths of the main table")
    parser.add_argument("--rounds", type=int, default=3, help="processes per method and row (default 3)")
    parser.add_argument("--threads", type=int, help="threads for numpy's BLAS and PyTorch (default: unchanged)")
    parser.add_argument("--wait-load", type=float, help="first wait until the 1-minute load average is below this")
    parser.add_argument("--max-wait", type=float, default=3600, help="seconds to wait for that at most (default 3600)")
    parser.add_argument("--out", type=Path, help=f"folder for attention_speed.{{md,json,png}} (default {RESULTS})")
    parser.add_argument("--window-only", action="store_true", help="only the sliding-window case")
    parser.add_argument("--stored", type=Path, help="measure nothing: notebook 11's table and the plot from this JSON")
    args = parser.parse_args(argv)
    if args.stored:
        stored = json.loads(args.stored.read_text(encoding="utf-8"))
        write_package_table(stored)
        plot(stored["speed"], args.stored.with_suffix(".png"))
        print(f"wrote {args.stored.with_suffix('.png')}")
        return 0
    rng = np.random.default_rng(0)
    window_n, window_size = (2048, 256) if args.quick else (WINDOW_N, WINDOW)
    if args.threads:
        from attn_lib import _threads  # tiled_attention's threads follow --threads too (the children's: own_process)

        _threads.default_threads = lambda: args.threads
    quiet = wait_for_quiet(args.wait_load, args.max_wait) if args.wait_load else None
    start_load = os.getloadavg()
    if args.window_only:
        print(f"load average at start {start_load[0]:.2f} (on {os.cpu_count()} CPUs)\n", flush=True)
        window = sliding_window_benchmark(window_n, window_size, WINDOW_HEADS, rng, reps=2 if args.quick else 5)
        print("\n".join([*window_lines(window), "", window_target(window)]))
        print(f"\nLoad average at the end: {os.getloadavg()[0]:.2f} (on {os.cpu_count()} CPUs).")
        return 0 if "MISSED" not in window_target(window) else 1
    sizes = [512] if args.quick else [int(n) for n in args.sizes.split(",")]
    rounds = 1 if args.quick else args.rounds
    command = "python benchmarks/attention_speed.py " + " ".join(sys.argv[1:] if argv is None else argv)
    info, env_lines = environment()
    lines = ["# Attention speed and memory", "", f"Command: `{command.strip()}`", ""]
    lines += [f"- {line}" for line in env_lines]
    lines.append(f"- load average at start (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in start_load)}")
    if quiet:
        lines.append(
            f"- waited {quiet['waited_s']} s for a 1-minute load below {quiet['threshold']}:"
            f" {'found' if quiet['quiet'] else 'NOT found, run anyway'}"
        )
    print("\n".join(lines) + "\n\n" + TABLE_HEAD, flush=True)
    rows = speed_rows(sizes, rounds, args.quick, args.threads)
    split = breakdown(sizes[0], reps=1 if args.quick else 3)
    print("\n".join(["", *breakdown_lines(split)]), flush=True)
    decode = decode_benchmark(128 if args.quick else 1024, rng, reps=3)
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        long = long_sequence(4096 if args.quick else 32768, Path(folder))
    window = sliding_window_benchmark(window_n, window_size, WINDOW_HEADS, rng, reps=2 if args.quick else 5)
    end_load = os.getloadavg()
    goals = [*targets(rows, decode, long), window_target(window)]
    lines += [
        "",
        "## tiled_attention against PyTorch's fused kernel (medians, milliseconds; each library in its own process)",
        "",
        TABLE_HEAD,
        *(format_row(row) for row in rows),
        "",
        "`tiled` runs on every core (threads=None, the default), `tiled, 1 thread` with threads=1; both keep numpy's"
        " BLAS on one thread while they run. PyTorch gets the same numbers as 4-D `[1, h, n, d_k]` tensors (its fused"
        " flash-attention CPU kernel, the shape models use) and, at the smallest n, as 3-D `[h, n, d_k]` tensors (its"
        " unfused math kernel, which forms the n x n matrix like the formula). Every method runs in a fresh process"
        f" per row and round ({rounds} rounds, the order rotated; `calls` timed calls per method, after one warm-up"
        " call per process). `max abs diff`: the largest difference of any method's output from PyTorch's fused"
        " kernel. `tiled MiB`: numpy's peak memory during one call of tiled_attention, its result included.",
        "",
        *breakdown_lines(split),
        "",
        f"## Decoding {decode['tokens']} tokens (h={H}, d_k={D_K}, float32)",
        "",
        "| method | seconds | speed-up |",
        "|---|---|---|",
        f"| recompute causal attention over the prefix at every step | {decode['full_s']:.2f} | 1 |",
        f"| KV cache (`KVCache.decode_step`) | {decode['cache_s']:.3f} | {decode['full_s'] / decode['cache_s']:.0f}x |",
        "",
        f"Largest difference between the two decoders' outputs: {decode['diff_cache_vs_full']:.1e};"
        f" between the cache's outputs and one call of causal attention: {decode['diff_cache_vs_causal']:.1e}.",
        "",
        f"## One long head: n = {long['n']}, h = 1, d_k = {D_K}, float32",
        "",
        f"tiled_attention: peak numpy memory {long['peak_mib']:.1f} MiB (the full score matrix alone would be"
        f" {long['full_scores_mib']:.0f} MiB), {long['seconds']:.1f} s; largest difference from PyTorch: "
        + (f"{long['diff_vs_torch']:.1e}." if "diff_vs_torch" in long else "PyTorch not installed."),
        "",
        *window_lines(window),
        "",
        f"Load average at the end (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in end_load)}"
        f" (on {os.cpu_count()} CPUs).",
        "",
        "## Targets",
        "",
        *goals,
    ]
    text = "\n".join(lines) + "\n"
    print(text[text.index("\n## Decoding") :])
    out = args.out or (None if args.quick else RESULTS)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "attention_speed.md").write_text(text, encoding="utf-8")
        stored = {
            "command": command.strip(),
            "date": datetime.date.today().isoformat(),
            "machine": info,
            "load": {"start": start_load, "end": end_load, "quiet_wait": quiet},
            "heads": H,
            "d_k": D_K,
            "dtype": "float32",
            "rounds": rounds,
            "methods": {name: METHODS[name] for name in METHODS},
            "speed": rows,
            "breakdown": split,
            "decode": decode,
            "long": long,
            "window": window,
            "target_ratio": TARGET_RATIO,
            "targets": goals,
        }
        (out / "attention_speed.json").write_text(json.dumps(stored, indent=1) + "\n", encoding="utf-8")
        plot(rows, out / "attention_speed.png")
        print(f"wrote {out / 'attention_speed.md'}, .json and .png")
        if args.out is None:  # the default results: notebook 11's table follows them
            write_package_table(stored)
    return 1 if "MISSED" in text else 0


if __name__ == "__main__":
    sys.exit(main())
