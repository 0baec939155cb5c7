"""Which kernel PyTorch's CPU scaled_dot_product_attention runs, and what that does to the comparison with numpy.

    python benchmarks/torch_sdpa_paths.py              # n = 1024 and 2048, about 2-4 minutes on 2 cores
    python benchmarks/torch_sdpa_paths.py --quick      # n = 256, 2 repetitions: a smoke run
    python benchmarks/torch_sdpa_paths.py --threads 1  # numpy's BLAS and PyTorch on one thread each

benchmarks/attention_speed.py hands PyTorch the heads as a 3-D array [h, n, d_k]. For such inputs PyTorch's
CPU SDPA falls back to its unfused "math" kernel, which forms the whole n x n matrix, like the plain formula;
the same numbers as a 4-D array [1, h, n, d_k] (a batch of one) go to its fused CPU kernel, an online softmax
over blocks like attn_lib's tiled_attention. This script times both next to attn_lib's two exact paths, on the
same float32 inputs (h = 12, d_k = 64), interleaved round-robin so that a busy machine slows them all alike,
and records the kernel PyTorch ran (from its profiler) and the thread counts of both libraries.
Writes benchmarks/results/torch_sdpa_paths.md (torch_sdpa_paths_<k>threads.md with --threads k). Exits with
status 1 when PyTorch is missing, when the kernels are not the ones named above (the notebook's text would
then be out of date), or when an output differs from PyTorch's by more than 1e-5.
"""

import argparse
import ctypes
import gc
import os
import platform
import sys
import time
from pathlib import Path

if "--threads" in sys.argv[:-1]:  # BLAS reads its thread count once, when numpy is imported: set it first
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = sys.argv[sys.argv.index("--threads") + 1]

import numpy as np  # noqa: E402

from attn_lib import causal_mask, scaled_dot_product_attention  # noqa: E402
from attn_lib.efficient import tiled_attention  # noqa: E402

try:  # a cross-check only, never a dependency of the course
    import torch
    from torch.profiler import ProfilerActivity, profile
except ImportError:
    torch = None

H, D_K = 12, 64
RESULTS = Path(__file__).resolve().parent / "results"
EXPECTED_KERNELS = {  # input layout -> the kernel the notebook says PyTorch runs
    "3-D [h, n, d_k]": "aten::_scaled_dot_product_attention_math",
    "4-D [1, h, n, d_k]": "aten::_scaled_dot_product_flash_attention_for_cpu",
}


def openblas_threads():
    """The thread count of the OpenBLAS that numpy loaded (None if it cannot be asked)."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and line.strip().endswith(".so")}
    for path in sorted(paths):
        library = ctypes.CDLL(path)
        for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads"):
            if hasattr(library, name):
                return int(getattr(library, name)())
    return None


def torch_kernel(q, k, v, causal):
    """The name of the SDPA kernel PyTorch runs for these inputs, read from its profiler."""
    with profile(activities=[ProfilerActivity.CPU]) as prof, torch.no_grad():
        torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
    names = {event.key for event in prof.key_averages()}
    kernels = sorted(name for name in names if name.startswith("aten::_scaled_dot_product"))
    return kernels[0] if kernels else "unknown"


def methods_for(q, k, v, causal):
    """name -> zero-argument function returning the output [h, n, d_k] as a numpy array."""
    mask = causal_mask(q.shape[-2]) if causal else None
    methods = {
        "attn_lib sdpa": lambda: scaled_dot_product_attention(q, k, v, mask=mask)[0],
        "attn_lib tiled": lambda: tiled_attention(q, k, v, causal=causal),
    }
    tq, tk, tv = (torch.from_numpy(x) for x in (q, k, v))  # [h, n, d_k]: 3-D, as attention_speed.py passes them
    bq, bk, bv = (x[None] for x in (tq, tk, tv))  # [1, h, n, d_k]: the same numbers, a batch of one

    def torch_3d():
        with torch.no_grad():
            return torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, is_causal=causal).numpy()

    def torch_4d():
        with torch.no_grad():
            return torch.nn.functional.scaled_dot_product_attention(bq, bk, bv, is_causal=causal)[0].numpy()

    methods["torch 3-D [h, n, d_k]"] = torch_3d
    methods["torch 4-D [1, h, n, d_k]"] = torch_4d
    kernels = {
        "3-D [h, n, d_k]": torch_kernel(tq, tk, tv, causal),
        "4-D [1, h, n, d_k]": torch_kernel(bq, bk, bv, causal),
    }
    return methods, kernels


def timed(fn):
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def bench(n, causal, reps, rng):
    q, k, v = (rng.standard_normal((H, n, D_K), dtype=np.float32) for _ in range(3))
    methods, kernels = methods_for(q, k, v, causal)
    names = list(methods)
    outputs = {name: methods[name]() for name in names}  # warm-up, and the outputs for the cross-check
    times = {name: [] for name in names}
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:  # rotate the order
            times[name].append(timed(methods[name]))
    reference = outputs["torch 4-D [1, h, n, d_k]"]
    return {
        "n": n,
        "causal": causal,
        "reps": reps,
        "median_ms": {name: float(np.median(t)) * 1e3 for name, t in times.items()},
        "kernels": kernels,
        "max_diff": max(float(np.abs(out - reference).max()) for out in outputs.values()),
    }


def environment(args):
    blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    env = {key: value for key, value in os.environ.items() if key.startswith(("OPENBLAS", "OMP_", "MKL_"))}
    config = torch.__config__.show()
    torch_blas = config.split("BLAS_INFO=")[1].split(",")[0] if "BLAS_INFO=" in config else "unknown"
    return [
        f"python {platform.python_version()}, numpy {np.__version__}, torch {torch.__version__}",
        f"cpu count {os.cpu_count()}, load average at start {os.getloadavg()[0]:.1f}",
        f"thread/BLAS environment variables: {env or 'none set'}",
        f"numpy's BLAS: {blas.get('name')} {blas.get('version')}, {openblas_threads()} threads",
        f"PyTorch: {torch.get_num_threads()} threads, BLAS {torch_blas}"
        + (f" (--threads {args.threads})" if args.threads else ""),
    ]


def table(rows):
    names = list(rows[0]["median_ms"])
    head = ["n", "mask", *(f"{name} ms" for name in names), "max abs diff", "reps"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [str(row["n"]), "causal" if row["causal"] else "none"]
        cells += [f"{row['median_ms'][name]:.1f}" for name in names]
        cells += [f"{row['max_diff']:.1e}", str(row["reps"])]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 256, 2 repetitions (a smoke run)")
    parser.add_argument("--threads", type=int, help="threads for numpy's BLAS and PyTorch (default: unchanged)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the results file")
    args = parser.parse_args(argv)
    if torch is None:
        print("PyTorch is not installed: nothing to compare (pip install torch, for this benchmark only)")
        return 1
    if args.threads:
        torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    sizes, reps = ((256,), 2) if args.quick else ((1024, 2048), 5)
    command = "python benchmarks/torch_sdpa_paths.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = ["# PyTorch's CPU attention kernels against attn_lib", "", f"Command: `{command.strip()}`", ""]
    lines += [f"- {line}" for line in environment(args)]
    print("\n".join(lines), flush=True)
    rows = []
    for n in sizes:
        for causal in (False, True):
            rows.append(bench(n, causal, reps, rng))
            print(table(rows)[-1], flush=True)
    kernels = {layout: sorted({row["kernels"][layout] for row in rows}) for layout in EXPECTED_KERNELS}
    kernels_ok = all(kernels[layout] == [name] for layout, name in EXPECTED_KERNELS.items())
    same = max(row["max_diff"] for row in rows) <= 1e-5
    lines += [
        "",
        f"## One call, h = {H}, d_k = {D_K}, float32 (medians, milliseconds)",
        "",
        *table(rows),
        "",
        "`max abs diff`: the largest difference of any method's output from PyTorch's 4-D call.",
        "",
        "## The kernel PyTorch ran (its profiler)",
        "",
        *(f"- {layout}: {', '.join(f'`{name}`' for name in names)}" for layout, names in kernels.items()),
        "",
        f"Load average at the end: {os.getloadavg()[0]:.1f} (on {os.cpu_count()} CPUs).",
        "",
        "## Checks",
        "",
        "- the 3-D call runs the math kernel and the 4-D call the fused CPU kernel: "
        + ("met" if kernels_ok else "MISSED"),
        f"- every output within 1e-5 of PyTorch's: {'met' if same else 'MISSED'}",
    ]
    if not args.quick:
        name = "torch_sdpa_paths.md" if not args.threads else f"torch_sdpa_paths_{args.threads}threads.md"
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"\nwrote {args.out / name}")
    print("\n".join(lines[lines.index("## The kernel PyTorch ran (its profiler)") :]))
    return 0 if kernels_ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
