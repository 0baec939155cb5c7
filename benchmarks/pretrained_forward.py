"""How long all-MiniLM-L6-v2 takes in attn_lib's numpy: loading it, and one forward pass of a 16-token sentence.

    python benchmarks/pretrained_forward.py [--repeats 50]

Prints a Markdown table (median over the repeats). Budget: a 16-token forward pass in at most 30 ms.
numpy's BLAS may use several threads; on a busy machine OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1)
is often faster. The model files must be installed or cached already (python -m attn_lib.models.fetch).
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np

from attn_lib.models.fetch import find_model_files
from attn_lib.models.minilm.pretrained import load_minilm

SENTENCE = "The animal didn't cross the street because it was too tired."  # 16 word pieces with [CLS], [SEP]
BUDGET_MS = 30.0


def time_ms(fn, repeats):
    """(median, fastest) wall time of fn() in milliseconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=50)
    args = parser.parse_args()

    model = load_minilm()
    tokens, _, _ = model.tokenize(SENTENCE)
    assert len(tokens) == 16, tokens
    load_repeats = max(3, args.repeats // 10)
    rows = [
        ("find files + SHA-256 check", time_ms(lambda: find_model_files(download=False), load_repeats)),
        ("load_minilm (files, weights, tokenizer)", time_ms(lambda: load_minilm(download=False), load_repeats)),
        ("tokenize, 16 tokens", time_ms(lambda: model.tokenize(SENTENCE), args.repeats)),
        ("forward pass, 16 tokens (6 layers x 12 heads)", time_ms(lambda: model.run(SENTENCE), args.repeats)),
        ("forward pass, batch of 8 x 16 tokens", time_ms(lambda: model.run([SENTENCE] * 8), args.repeats // 5 or 1)),
    ]
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    print(f"all-MiniLM-L6-v2 in numpy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs,")
    print(f"BLAS threads: {threads}; median of {args.repeats} runs ({load_repeats} for loading)\n")
    print("| step | median ms | fastest ms |")
    print("|---|---:|---:|")
    for name, (median, fastest) in rows:
        print(f"| {name} | {median:.2f} | {fastest:.2f} |")
    forward = rows[3][1][0]
    verdict = "within" if forward <= BUDGET_MS else "OVER"
    print(f"\nforward pass: {forward:.1f} ms, {verdict} the {BUDGET_MS:.0f} ms budget")


if __name__ == "__main__":
    main()
