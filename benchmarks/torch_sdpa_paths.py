"""Which kernel PyTorch's CPU scaled_dot_product_attention runs, and what that does to the comparison with numpy.

    python benchmarks/torch_sdpa_paths.py              # n = 1024 and 2048, about 2-4 minutes on 2 cores
    python benchmarks/torch_sdpa_paths.py --quick      # n = 256, one round: a smoke run
    python benchmarks/torch_sdpa_paths.py --threads 1  # numpy's BLAS and PyTorch on one thread each

PyTorch's CPU SDPA runs its unfused "math" kernel for a 3-D array [h, n, d_k], which forms the whole n x n
matrix, like the plain formula; the same numbers as a 4-D array [1, h, n, d_k] (a batch of one, the shape
models use) go to its fused CPU kernel, an online softmax over blocks like attn_lib's tiled_attention. This
script times both next to attn_lib's two exact paths on the same float32 inputs (h = 12, d_k = 64), each
method in a process of its own (benchmarks/own_process.py: numpy's and PyTorch's thread pools slow each
other down in one process), rotating the order each round, and records the kernel PyTorch ran (from its
profiler, in PyTorch's process) and the thread counts of both libraries.
Writes benchmarks/results/torch_sdpa_paths.md (torch_sdpa_paths_<k>threads.md with --threads k). Exits with
status 1 when PyTorch is missing, when the kernels are not the ones named above (the notebook's text would
then be out of date), or when an output differs from PyTorch's by more than 1e-5.
"""

import argparse
import ctypes
import importlib.util
import os
import platform
import subprocess
import sys
from pathlib import Path

if "--threads" in sys.argv[:-1]:  # BLAS reads its thread count once, when numpy is imported: set it first
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_var] = sys.argv[sys.argv.index("--threads") + 1]

import numpy as np  # noqa: E402
from own_process import alternate, median  # noqa: E402

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


#: the names of this script's table -> the methods of own_process.py
METHODS = {
    "attn_lib sdpa": "attn_lib sdpa",
    "attn_lib tiled": "tiled",
    "torch 3-D [h, n, d_k]": "torch math",
    "torch 4-D [1, h, n, d_k]": "torch fused",
}


def bench(n, causal, rounds, reps, threads):
    got = alternate(list(METHODS.values()), n, causal, rounds, reps, threads=threads, outputs=True)
    reference = got["outputs"]["torch fused"]
    return {
        "n": n,
        "causal": causal,
        "reps": rounds * reps,
        "median_ms": {name: median(got["times"][method]) * 1e3 for name, method in METHODS.items()},
        "kernels": {
            "3-D [h, n, d_k]": got["kernel"]["torch math"],
            "4-D [1, h, n, d_k]": got["kernel"]["torch fused"],
        },
        "torch_threads": got["threads"]["torch fused"],
        "max_diff": max(float(np.abs(out - reference).max()) for out in got["outputs"].values()),
        "load": got["load"],
    }


def torch_config():
    """PyTorch's version, thread count and BLAS, asked in a process of its own (PyTorch is never imported here)."""
    code = (
        "import torch; c = torch.__config__.show();"
        "print(torch.__version__, torch.get_num_threads(),"
        " c.split('BLAS_INFO=')[1].split(',')[0] if 'BLAS_INFO=' in c else 'unknown')"
    )
    version, threads, blas = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    return version, threads, blas


def environment(args):
    blas = np.show_config(mode="dicts").get("Build Dependencies", {}).get("blas", {})
    env = {key: value for key, value in os.environ.items() if key.startswith(("OPENBLAS", "OMP_", "MKL_"))}
    version, threads, torch_blas = torch_config()
    return [
        f"python {platform.python_version()}, numpy {np.__version__}, torch {version}",
        f"cpu count {os.cpu_count()}, load average at start {os.getloadavg()[0]:.1f}",
        f"thread/BLAS environment variables: {env or 'none set'}",
        f"numpy's BLAS: {blas.get('name')} {blas.get('version')}, {openblas_threads()} threads",
        f"PyTorch: {args.threads or threads} threads, BLAS {torch_blas}"
        + (f" (--threads {args.threads})" if args.threads else ""),
        "each method in a process of its own (benchmarks/own_process.py), the order rotated each round",
    ]


def table(rows):
    names = list(rows[0]["median_ms"])
    head = ["n", "mask", *(f"{name} ms" for name in names), "max abs diff", "calls", "load before / after"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [str(row["n"]), "causal" if row["causal"] else "none"]
        cells += [f"{row['median_ms'][name]:.1f}" for name in names]
        cells += [f"{row['max_diff']:.1e}", str(row["reps"]), f"{row['load'][0]:.2f} / {row['load'][1]:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n = 256, one round (a smoke run)")
    parser.add_argument("--threads", type=int, help="threads for numpy's BLAS and PyTorch (default: unchanged)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="folder for the results file")
    args = parser.parse_args(argv)
    if importlib.util.find_spec("torch") is None:
        print("PyTorch is not installed: nothing to compare (pip install torch, for this benchmark only)")
        return 1
    sizes, rounds, reps = ((256,), 1, 2) if args.quick else ((1024, 2048), 3, 2)
    command = "python benchmarks/torch_sdpa_paths.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = ["# PyTorch's CPU attention kernels against attn_lib", "", f"Command: `{command.strip()}`", ""]
    lines += [f"- {line}" for line in environment(args)]
    print("\n".join(lines), flush=True)
    rows = []
    for n in sizes:
        for causal in (False, True):
            rows.append(bench(n, causal, rounds, reps, args.threads))
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
