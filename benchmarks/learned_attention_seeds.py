"""Train the tiny model of notebook 08 from many seeds, with and without weight decay; store the table.

For every seed, `train` runs with its defaults (stopping on the validation city pairs) and again with
weight_decay=0; `attn_lib.models.tiny_experiment.measure` takes each model's row on the test city pairs (test
accuracy, each head's weight on the two cities, ablations, what the model answers with the today-city
hidden, the training history) and the wall-clock seconds are added. The table is written to
attn_lib/models/data/learned_attention_seeds.json, which notebook 08 reads (and checks its own live run
against) and tests/test_tiny_experiment.py re-derives one row of. A markdown summary is printed.

    python benchmarks/learned_attention_seeds.py [--seeds 10] [--out PATH]

Runs on one BLAS thread; the seconds depend on the machine (and on its load), the other numbers do not.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # one core: must be set before numpy is imported

import argparse  # noqa: E402
import inspect  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from attn_lib.models.corpus import make_corpus  # noqa: E402
from attn_lib.models.tiny_experiment import measure  # noqa: E402
from attn_lib.models.tiny_training import train  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "attn_lib" / "models" / "data" / "learned_attention_seeds.json"
SETTINGS = ("d_model", "n_heads", "n_layers", "lr", "weight_decay", "max_steps", "target_accuracy", "eval_every")


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
    parser.add_argument("--seeds", type=int, default=10, help="train seeds 0 .. SEEDS-1 (default 10)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()

    corpus = make_corpus()
    defaults = {name: p.default for name, p in inspect.signature(train).parameters.items() if name in SETTINGS}
    default_dtype = inspect.signature(train).parameters["dtype"].default
    runs = []
    for weight_decay in (defaults["weight_decay"], 0.0):
        for seed in range(args.seeds):
            start = time.perf_counter()
            result = train(corpus, seed=seed, weight_decay=weight_decay)
            seconds = time.perf_counter() - start
            runs.append({**measure(corpus, result), "seconds": round(seconds, 2)})
            row = runs[-1]
            print(f"seed {seed}, weight decay {weight_decay}: {row['steps']} steps, {seconds:.1f} s", file=sys.stderr)

    n_cities = len(corpus.city_dishes)
    table = {
        "about": "Made by benchmarks/learned_attention_seeds.py: one row per (seed, weight_decay), measured on"
        " the test city pairs with attn_lib.models.tiny_experiment.measure. Seconds: wall clock, one BLAS thread,"
        " on the machine named below (shared, so indicative only).",
        "settings": {**defaults, "dtype": np.dtype(default_dtype).name},
        "corpus": {
            "cities": n_cities,
            **{name: len(getattr(corpus, name)) for name in ("train", "validation", "test")},
        },
        "chance": {"uniform_over_dishes": 1 / n_cities, "any_dish_but_the_other_city": 1 / (n_cities - 1)},
        "measured_on": {"python": platform.python_version(), "numpy": np.__version__, "machine": platform.machine()},
        "runs": rounded(runs),
    }
    args.out.write_text(json.dumps(table, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out.name}: {len(runs)} runs\n")

    print(
        "| seed | weight decay | reached | steps | s | val acc | test acc | L2 heads → today | L2 heads → yesterday"
        " | today hidden | from blank only | yesterday hidden | answers yesterday's dish |"
    )
    print("|---:|---:|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|")
    for row in runs:
        heads_t = " / ".join(f"{w:.2f}" for w in row["today_weight"][-1])
        heads_y = " / ".join(f"{w:.2f}" for w in row["yesterday_weight"][-1])
        hidden = row["hidden"]
        print(
            f"| {row['seed']} | {row['weight_decay']:g} | {'yes' if row['reached_target'] else 'no'} | {row['steps']}"
            f" | {row['seconds']:.1f} | {row['validation_accuracy']:.3f} | {row['test_accuracy']:.3f} | {heads_t}"
            f" | {heads_y} | {hidden['today']:.3f} | {hidden['today_from_blank']:.3f} | {hidden['yesterday']:.3f}"
            f" | {row['answers_today_hidden']['yesterday_dish']:.2f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
