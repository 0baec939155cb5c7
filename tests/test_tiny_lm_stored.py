"""Notebook 13's stored model: the weights give the stored numbers, a re-training reproduces them, the table is today's.

The weights (attn_lib/models/data/tiny_lm_seed0.npz) and the table over seeds (tiny_lm_seeds.json) are
made by benchmarks/train_tiny_lm.py. Re-training seed 0 takes about 20 s of CPU; it runs in a fresh
process on one BLAS thread (several threads only make such small products slower), and its row must
match the stored one within the tolerances of attn_lib.models.lm_experiment.row_differences, which rest
on the stored float64 drift (checked below).
"""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attn_lib.models import lm_experiment as E
from attn_lib.models.lm_corpus import make_lm_corpus
from attn_lib.models.lm_training import SETTINGS
from attn_lib.models.tiny_lm import LMConfig, count_parameters

ROOT = Path(__file__).resolve().parents[1]
RETRAIN = """
import json
from attn_lib.models.lm_corpus import make_lm_corpus
from attn_lib.models.lm_experiment import measure
from attn_lib.models.lm_training import train
corpus = make_lm_corpus()
print(json.dumps(measure(corpus, train(corpus, seed=0)), ensure_ascii=False))
"""


@pytest.fixture(scope="module")
def corpus():
    return make_lm_corpus()


@pytest.fixture(scope="module")
def table():
    return E.load_lm_table()


def test_the_table_was_made_with_todays_settings_corpus_and_model(table, corpus):
    assert table["settings"] == SETTINGS, "train()'s settings changed: re-run benchmarks/train_tiny_lm.py"
    assert table["vocab"] == list(corpus.vocab)
    assert table["corpus"] == {name: len(getattr(corpus, name)) for name in ("train", "validation", "test")}
    config = LMConfig(**table["config"])
    assert (config.vocab_size, config.max_len) == (len(corpus.vocab), corpus.max_len - 1)
    assert table["parameters"] == count_parameters(config) == 32_352
    assert sorted(row["seed"] for row in table["runs"]) == list(range(len(table["runs"]))) and len(table["runs"]) >= 3


def test_the_stored_weights_give_the_stored_numbers(table, corpus):
    params, config = E.load_tiny_lm(corpus)
    assert {p.dtype for p in params.values()} == {np.dtype(np.float32)}
    assert sum(p.size for p in params.values()) == table["parameters"]
    now, stored = E.measure_params(corpus, params, config), E.stored_row(table, 0)
    for name in ("test_loss", "test_perplexity", "blank_accuracy"):
        assert now[name] == pytest.approx(stored[name], abs=1e-5), name  # the same weights: rounding only
    for word, p in now["weather"].items():
        assert p == pytest.approx(stored["weather"][word], abs=1e-5), word
    assert now["article"][0] == stored["article"][0] == "小笼包"


def test_the_counted_baselines_are_todays(table, corpus):
    now = E.counted_baselines(corpus)
    for group in ("loss", "blank_accuracy"):
        for name, value in now[group].items():
            assert value == pytest.approx(table["counted"][group][name], abs=1e-6), name
    assert now["weights"] == table["counted"]["weights"]


def test_the_tolerances_are_wider_than_what_other_roundings_move(table):
    drift = table["float64_drift"]  # seed 0 trained in float64 instead of float32, number by number
    assert drift["test_loss"] <= E.LOSS_TOLERANCE / 5 and drift["validation_loss"] <= E.LOSS_TOLERANCE / 5
    assert drift["weather"] <= E.PROBABILITY_TOLERANCE / 5
    n_blank = 288
    assert drift["blank_accuracy"] <= E.BLANK_SENTENCES / 5 / n_blank + 1e-9


def test_row_differences_sees_a_changed_row(table, corpus):
    stored = E.stored_row(table, 0)
    assert E.row_differences(stored, stored, corpus) == []
    for change in (
        lambda r: r.update(test_loss=r["test_loss"] + 2 * E.LOSS_TOLERANCE),
        lambda r: r.update(blank_accuracy=r["blank_accuracy"] - 5 / 288),
        lambda r: r["weather"].update({"真热": r["weather"]["真热"] + 0.06}),
        lambda r: r.update(article=["烤鸭", 0.9]),
        lambda r: r.update(steps=1000),
    ):
        row = copy.deepcopy(stored)
        change(row)
        assert len(E.row_differences(row, stored, corpus)) == 1


def test_a_corpus_with_another_vocabulary_is_refused():
    with pytest.raises(ValueError, match="run benchmarks/train_tiny_lm.py"):
        E.load_tiny_lm(make_lm_corpus(per_template=3))


def test_the_stored_files_stay_small():
    data = ROOT / "attn_lib" / "models" / "data"
    assert (data / E.WEIGHTS_FILE).stat().st_size + (data / E.TABLE_FILE).stat().st_size <= 2 * 2**20


def test_re_training_seed_0_reproduces_its_stored_row(table, corpus):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", RETRAIN], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads(done.stdout.strip().splitlines()[-1])
    differences = E.row_differences(row, E.stored_row(table, 0), corpus)
    assert differences == [], "re-run benchmarks/train_tiny_lm.py if the model or its training changed:\n" + "\n".join(
        differences
    )
