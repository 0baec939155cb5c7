"""Memory and time of the heatmaps, widgets and diagrams at the sizes a learner may ask for (issue 27, items 4 and 9).

    python benchmarks/picture_limits.py [--only NAME ...] [--timeout 120]

Each case runs in a fresh Python process (so one case's memory cannot hide in another's): it imports
attn_lib, records its resident memory, builds the picture or widget and renders it as PNG the way a
notebook shows it (figures: ``savefig(format="png", dpi=100, bbox_inches="tight")``, as the inline
backend does; widgets: their first frame), then reports the time taken (wall clock, and the process'
CPU time, which a busy shared machine inflates less; the budget is on the CPU time) and the peak
resident memory above the level after the imports (``ru_maxrss``, Linux and macOS). A case refused by the library's
stated limit counts as met if the refusal is a ValueError and comes at once. Prints a Markdown table and
exits with status 1 when a case is over budget (default 300 MB and 3 s) or fails otherwise.
"""

import argparse
import json
import os
import subprocess
import sys
import textwrap

BUDGET_MB = 300.0
BUDGET_S = 3.0

#: name -> the code that builds (and renders) one picture; `weights(h, n)` and `png(fig)` are defined for it.
CASES = {
    "plot_attention, 15 tokens (notebook 10)": "png(pictures.plot_attention(weights(1, 15)[0], tokens(15)))",
    "plot_attention, 150 tokens": "png(pictures.plot_attention(weights(1, 150)[0], tokens(150)))",
    "plot_attention, 512 tokens": "png(pictures.plot_attention(weights(1, 512)[0], tokens(512)))",
    "plot_attention, 512 tokens, causal mask": (
        "m = attn_lib.causal_mask(512)\n"
        "png(pictures.plot_attention(np.where(m, weights(1, 512)[0], 0), tokens(512), mask=m))"
    ),
    "plot_attention, 1024 tokens (its limit)": "png(pictures.plot_attention(weights(1, 1024)[0], tokens(1024)))",
    "plot_attention, 1025 tokens (refused)": "png(pictures.plot_attention(weights(1, 1025)[0], tokens(1025)))",
    "plot_heads, 12 heads x 128 tokens (one MiniLM layer)": "png(pictures.plot_heads(weights(12, 128), tokens(128)))",
    "plot_heads, 12 heads x 512 tokens": "png(pictures.plot_heads(weights(12, 512), tokens(512)))",
    "position_widget(max_offset=8192)": "widgets.position_widget(max_offset=8192)",
    "position_widget(max_offset=16384, max_distance=512, d=256) (its limits)": (
        "widgets.position_widget(max_offset=16384, max_distance=512, d=256)"
    ),
    "kv_heads_widget(d_head=1024)": "widgets.kv_heads_widget(d_head=1024)",
    "kv_heads_widget(n_heads=12, d_head=128) (its limits)": "widgets.kv_heads_widget(n_heads=12, d_head=128)",
    "window_widget(max_window=10**6)": "widgets.window_widget(max_window=10**6)",
    "window_widget(n=128, max_window=128, max_layers=128) (its limits)": (
        "w = widgets.window_widget(n=128, max_window=128, max_layers=128)\n"
        "w.controls['window'].value, w.controls['layers'].value = 2, 128"
    ),
    "draw_online_softmax_tiles, one 256-token tile": (
        "png(pictures.draw_online_softmax_tiles(256, 256, 256, 256, query_block=0))"
    ),
    "draw_online_softmax_tiles, 256 tokens in 32 x 32 tiles (its limits)": (
        "png(pictures.draw_online_softmax_tiles(256, 256, 8, 8, query_block=31))"
    ),
}

CHILD = """
import io, json, resource, sys, time
import numpy as np
import attn_lib
from attn_lib import pictures, widgets

def weights(h, n):
    rng = np.random.default_rng(0)
    return attn_lib.softmax(rng.standard_normal((h, n, n)))

def tokens(n):
    return [f"t{i}" for i in range(n)]

def png(fig):
    fig.savefig(io.BytesIO(), format="png", dpi=100, bbox_inches="tight")

def rss_mb():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes on macOS, KiB on Linux

png(pictures.plot_attention(weights(1, 3)[0], tokens(3)))  # fonts and the first figure: not the case's cost
base = rss_mb()
start, cpu = time.perf_counter(), time.process_time()
try:
CODE
    refused = None
except ValueError as exc:
    refused = str(exc)
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({"seconds": seconds, "cpu": cpu, "mb": rss_mb() - base, "refused": refused}))
"""


def run(code, timeout):
    child = CHILD.replace("CODE\n", textwrap.indent(code, "    ") + "\n")
    try:
        done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout} s (stopped)"}
    if done.returncode != 0:
        lines = (done.stderr or "").strip().splitlines()
        return {"error": lines[-1] if lines else f"exit code {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", help="run only the cases whose name contains one of these")
    parser.add_argument("--timeout", type=float, default=120.0, help="stop a case after this many seconds")
    args = parser.parse_args()
    os.environ.setdefault("MPLBACKEND", "Agg")
    print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
    print("| case | seconds (wall) | seconds (CPU) | peak MB above import | result |\n|---|---:|---:|---:|---|")
    ok = True
    for name, code in CASES.items():
        if args.only and not any(part in name for part in args.only):
            continue
        result = run(code, args.timeout)
        if "error" in result:
            ok = False
            print(f"| {name} | — | — | — | FAILED: {result['error']} |", flush=True)
            continue
        met = result["cpu"] <= BUDGET_S and result["mb"] <= BUDGET_MB
        ok &= met
        verdict = ("refused: " + result["refused"][:90] + "…") if result["refused"] else "drawn"
        print(
            f"| {name} | {result['seconds']:.2f} | {result['cpu']:.2f} | {result['mb']:.0f} | {verdict}"
            f"{'' if met else ' — OVER BUDGET'} |",
            flush=True,
        )
    print(f"budgets: {BUDGET_MB:.0f} MB and {BUDGET_S:.0f} s per case; " + ("all met" if ok else "A BUDGET WAS MISSED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
