"""How long check_in_real_model takes for a correct learner function (budget: 2 s), and where the time goes.

    python benchmarks/real_model_check.py [--repeats 10]

Prints a Markdown table (median and fastest over the repeats, after one warm-up call). The check runs
the exercise's small-input checker, then all-MiniLM-L6-v2 on attn_lib.exercises.capstone.SENTENCES twice (the
model's own run and the run with the learner's function). The first call without ``model=`` also loads
the model (timed separately). numpy's BLAS may use several threads; on a busy machine
OPENBLAS_NUM_THREADS=1 (or OMP_NUM_THREADS=1) is often faster. The model files must be installed or
cached already (python -m attn_lib.models.fetch).
"""

import argparse
import os
import platform
import statistics
import time

import numpy as np

from attn_lib import exercises
from attn_lib.exercises import capstone
from attn_lib.models.minilm.pretrained import load_minilm

BUDGET_S = 2.0


def my_attention(q, k, v, mask=None):
    """A correct attention as a learner writes it in notebook 04."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])  # [..., n_q, n_k]
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights  # [..., n_q, d_v], [..., n_q, n_k]


def my_multi_head(x, w_q, w_k, w_v, w_o, n_heads, mask=None):
    """A correct multi-head attention as a learner writes it in notebook 06."""
    *batch, n, d_model = x.shape

    def split(a):  # [..., n, d_model] -> [..., h, n, d_k]
        return np.swapaxes(a.reshape(*batch, n, n_heads, d_model // n_heads), -2, -3)

    heads, weights = my_attention(split(x @ w_q), split(x @ w_k), split(x @ w_v), mask)
    return np.swapaxes(heads, -2, -3).reshape(*batch, n, d_model) @ w_o, weights


def time_s(fn, repeats):
    """(median, fastest) wall time of fn() in seconds, after one warm-up call."""
    fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()

    start = time.perf_counter()
    result = capstone.run_in_real_model_checks(my_attention)  # loads the model once (cached for later calls)
    first_call = time.perf_counter() - start
    assert result.ok, result.verdict("en")
    model = load_minilm(download=False)
    sentences = list(capstone.SENTENCES)
    rows = [
        ("small-input checks (run_attention_checks)", time_s(lambda: exercises.run_attention_checks(my_attention), 3)),
        ("model run of the sentences, attn_lib's attention", time_s(lambda: model.run(sentences), args.repeats)),
        (
            "model run of the sentences, my_attention",
            time_s(lambda: model.run(sentences, attention=my_attention), args.repeats),
        ),
        (
            "check_in_real_model(my_attention), model loaded",
            time_s(lambda: capstone.run_in_real_model_checks(my_attention, model=model), args.repeats),
        ),
        (
            "check_in_real_model(my_multi_head), model loaded",
            time_s(lambda: capstone.run_in_real_model_checks(my_multi_head, model=model), args.repeats),
        ),
        (
            "check_in_real_model(my_attention), default model",
            time_s(lambda: capstone.run_in_real_model_checks(my_attention), args.repeats),
        ),
    ]
    threads = os.environ.get("OPENBLAS_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or "default"
    _, input_ids, _ = model.tokenize(sentences)
    print(f"check_in_real_model in numpy {np.__version__}, Python {platform.python_version()}, {os.cpu_count()} CPUs,")
    print(f"BLAS threads: {threads}; {input_ids.shape[0]} sentences padded to {input_ids.shape[1]} tokens;")
    print(f"median of {args.repeats} runs\n")
    print(f"first call, loading the model too: {first_call:.2f} s\n")
    print("| step | median s | fastest s |")
    print("|---|---:|---:|")
    for name, (median, fastest) in rows:
        print(f"| {name} | {median:.3f} | {fastest:.3f} |")
    worst = max(rows[3][1][0], rows[4][1][0], rows[5][1][0])
    verdict = "within" if worst <= BUDGET_S else "OVER"
    print(f"\ncheck_in_real_model, a correct function: {worst:.2f} s (median), {verdict} the {BUDGET_S:g} s budget")


if __name__ == "__main__":
    main()
