"""Train notebook 13's tiny language model from several seeds on one core; store seed 0's weights and the table.

For every seed, `attn_lib.models.lm_training.train` runs with its settings (1,500 minibatch steps,
the best validation checkpoint kept), `attn_lib.models.lm_experiment.measure` takes its row on the
test split (test loss and perplexity, accuracy at 今天在上海吃了_ on the test city pairs, the next-token
distribution after 今天天气, the article's answer, the training history), and the wall-clock and CPU
seconds are added with the load averages before and after. Notebook 01's counted bigram and trigram
(add-one and interpolated) are scored on the same test tokens once, and seed 0 is trained again in
float64, to measure how far other roundings move its row (the re-training test's tolerances rest on it).

Writes attn_lib/models/data/tiny_lm_seeds.json (the table; notebook 13 reads it, tests/test_tiny_lm_stored.py
re-derives seed 0's row) and attn_lib/models/data/tiny_lm_seed0.npz (seed 0's float32 weights, the
model notebook 13 uses). Prints markdown tables. Exits with status 1 if a target is missed: seed 0
must beat the counted trigram's test perplexity and get at least 90% of the test blanks, and the
stored files must stay within 2 MB.

    python benchmarks/train_tiny_lm.py [--seeds 5] [--out-dir PATH]

Runs on one BLAS thread; the seconds depend on the machine and its load (the load averages are
printed beside them), the other numbers do not.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one core: must be set before numpy is imported

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
from dataclasses import asdict  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from attn_lib.models.lm_corpus import make_lm_corpus  # noqa: E402
from attn_lib.models.lm_experiment import TABLE_FILE, WEIGHTS_FILE, counted_baselines, drift, measure  # noqa: E402
from attn_lib.models.lm_training import SETTINGS, train  # noqa: E402
from attn_lib.models.tiny_lm import count_parameters  # noqa: E402

OUT_DIR = Path(__file__).resolve().parents[1] / "attn_lib" / "models" / "data"
MAX_BYTES = 2 * 2**20


def load():
    """-> '1.23, 1.10, 0.90': the load averages over 1, 5 and 15 minutes, as `uptime` prints them."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def rounded(value, digits=7):
    """Floats rounded to `digits` decimals (far below every tolerance), recursively, for a compact file."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {key: rounded(v, digits) for key, v in value.items()}
    if isinstance(value, list):
        return [rounded(v, digits) for v in value]
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="train seeds 0 .. SEEDS-1 (default 5)")
    parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    args = parser.parse_args()

    corpus = make_lm_corpus()
    runs, first = [], None
    for seed in range(args.seeds):
        before = load()
        result = train(corpus, seed=seed)
        row = measure(corpus, result)
        row |= {"seconds": round(result.seconds, 2), "cpu_seconds": round(result.cpu_seconds, 2)}
        row |= {"load_before": before, "load_after": load()}
        runs.append(row)
        first = first or result
        print(f"seed {seed}: {result.seconds:.1f} s ({result.cpu_seconds:.1f} s CPU), load {before} -> {load()}",
              file=sys.stderr)  # fmt: skip
    base = counted_baselines(corpus)
    config = first.config
    wide = measure(corpus, train(corpus, seed=0, dtype=np.float64))  # the same seed, other roundings
    float64_drift = drift(wide, runs[0])
    table = {
        "about": "Made by benchmarks/train_tiny_lm.py: one row per seed, measured on the test split with"
        " attn_lib.models.lm_experiment.measure; seed 0's weights are in tiny_lm_seed0.npz. Seconds: wall clock"
        " and CPU, one BLAS thread, on the machine named below (shared: see the load averages).",
        "settings": SETTINGS,
        "config": asdict(config),
        "parameters": count_parameters(config),
        "corpus": {name: len(getattr(corpus, name)) for name in ("train", "validation", "test")},
        "vocab": list(corpus.vocab),
        "counted": rounded(base),
        "float64_drift": rounded({"seed": 0, **float64_drift}),
        "measured_on": {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine()},
        "runs": rounded(runs),
    }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / TABLE_FILE).write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    np.savez(args.out_dir / WEIGHTS_FILE, **{name: p.astype(np.float32) for name, p in first.params.items()})
    sizes = {name: (args.out_dir / name).stat().st_size for name in (TABLE_FILE, WEIGHTS_FILE)}

    print(f"model: {config}, {count_parameters(config):,} parameters; corpus {table['corpus']}\n")
    print("| seed | best step | train s (CPU s) | load before -> after | val loss | test loss | test ppl | blank acc"
          " | P(很好 / 不错 / 真热 \\| 今天天气) | article's blank |")  # fmt: skip
    print("|---:|---:|---:|---|---:|---:|---:|---:|---|---|")
    for r in runs:
        weather = " / ".join(f"{p:.3f}" for p in r["weather"].values())
        print(
            f"| {r['seed']} | {r['best_step']} | {r['seconds']:.1f} ({r['cpu_seconds']:.1f}) | {r['load_before']} ->"
            f" {r['load_after']} | {r['validation_loss']:.4f} | {r['test_loss']:.4f} | {r['test_perplexity']:.3f}"
            f" | {r['blank_accuracy']:.3f} | {weather} | {r['article'][0]} {r['article'][1]:.3f} |"
        )
    print(
        "\n| counted model (train counts, same test tokens) | test loss | test ppl | blank acc |\n|---|---:|---:|---:|"
    )
    for name, loss in base["loss"].items():
        print(f"| {name} | {loss:.4f} | {np.exp(loss):.3f} | {base['blank_accuracy'][name.split()[0]]:.3f} |")
    print(f"\ninterpolation weights (chosen on validation): {base['weights']}")
    print(f"seed 0 trained in float64 instead of float32, how far each number moves: {float64_drift}")
    print(f"stored: {sizes} bytes (budget {MAX_BYTES:,} in all)")

    seed0 = runs[0]
    missed = []
    if not seed0["test_perplexity"] < np.exp(base["loss"]["trigram interpolated"]):
        missed.append("seed 0's test perplexity is not below the interpolated trigram's")
    if seed0["blank_accuracy"] < 0.9:
        missed.append("seed 0 gets fewer than 90% of the test blanks")
    if sum(sizes.values()) > MAX_BYTES:
        missed.append("the stored files exceed 2 MB")
    for line in missed:
        print("TARGET MISSED:", line)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
