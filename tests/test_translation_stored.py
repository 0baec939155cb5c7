"""Notebook 09's stored model: the weights give the stored numbers, a re-training reproduces them, the table is today's.

The weights (attn_lib/models/data/translation_seed0.npz) and the table over seeds (translation_seeds.json) are made
by benchmarks/train_translation.py. Re-training seed 0 takes a few seconds of CPU; it runs in a fresh process on one
BLAS thread, and its row must match the stored one within the tolerances of
attn_lib.models.translation_experiment.row_differences, which rest on the stored float32 drift (checked below).
"""

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from attn_lib.models import translation_experiment as E
from attn_lib.models.encoder_decoder import Seq2SeqConfig, count_parameters
from attn_lib.models.translation_corpus import make_parallel_corpus
from attn_lib.models.translation_decoding import baseline_alignments
from attn_lib.models.translation_training import SETTINGS

ROOT = Path(__file__).resolve().parents[1]
RETRAIN = """
import json
from attn_lib.models.translation_corpus import make_parallel_corpus
from attn_lib.models.translation_experiment import measure
from attn_lib.models.translation_training import train
corpus = make_parallel_corpus()
print(json.dumps(measure(corpus, train(corpus, seed=0)), ensure_ascii=False))
"""


@pytest.fixture(scope="module")
def corpus():
    return make_parallel_corpus()


@pytest.fixture(scope="module")
def table():
    return E.load_translation_table()


def test_the_table_was_made_with_todays_settings_corpus_and_model(table, corpus):
    assert table["settings"] == SETTINGS, "train()'s settings changed: re-run benchmarks/train_translation.py"
    assert table["source_vocab"] == list(corpus.source_vocab) and table["target_vocab"] == list(corpus.target_vocab)
    assert table["corpus"] == {name: len(getattr(corpus, name)) for name in ("train", "validation", "test")}
    config = Seq2SeqConfig(**table["config"])
    assert table["parameters"] == count_parameters(config) == 47_256
    assert table["baselines"] == pytest.approx(baseline_alignments(corpus.test))
    for drop in (SETTINGS["drop"], 0.0):  # at least five seeds of each, the same seeds
        seeds = sorted(row["seed"] for row in table["runs"] if row["drop"] == drop)
        assert seeds == list(range(len(seeds))) and len(seeds) >= 5
    assert "cpu" in table["measured_on"]


def test_the_stored_weights_give_the_stored_numbers(table, corpus):
    params, config = E.load_translation_model(corpus)
    assert sum(p.size for p in params.values()) == table["parameters"]
    now, stored = E.measure_params(corpus, params, config), E.stored_row(table, 0, SETTINGS["drop"])
    for name in ("test_loss", "test_exact", "shown_head_test_alignment"):
        assert now[name] == pytest.approx(stored[name], abs=1e-7), name  # the same weights (stored to 7 decimals)
    np.testing.assert_allclose(now["test_alignment"], stored["test_alignment"], atol=1e-6)
    assert now["shown_head"] == stored["shown_head"] and now["article"] == stored["article"]


def test_the_tolerances_are_wider_than_what_other_roundings_move(table):
    drift = table["float32_drift"]  # seed 0 trained in float32 instead of float64, number by number
    assert drift["test_loss"] <= E.LOSS_TOLERANCE / 5 and drift["validation_loss"] <= E.LOSS_TOLERANCE / 5
    assert drift["test_exact"] <= E.SHARE_TOLERANCE / 5 and drift["test_alignment"] <= E.SHARE_TOLERANCE / 5


def test_row_differences_sees_a_changed_row(table):
    stored = E.stored_row(table, 0, SETTINGS["drop"])
    assert E.row_differences(stored, stored) == []
    for change in (
        lambda r: r.update(test_loss=r["test_loss"] + 2 * E.LOSS_TOLERANCE),
        lambda r: r.update(test_exact=r["test_exact"] - 2 / 126),
        lambda r: r["test_alignment"][1].__setitem__(2, r["test_alignment"][1][2] + 0.05),
        lambda r: r.update(article=["the weather in Chengdu is nice today", *r["article"][1:]]),
        lambda r: r.update(drop=0.0),
    ):
        row = copy.deepcopy(stored)
        change(row)
        assert len(E.row_differences(row, stored)) == 1


def test_a_corpus_with_other_vocabularies_is_refused(corpus):
    other = copy.copy(corpus)
    object.__setattr__(other, "target_vocab", corpus.target_vocab[:-1])
    with pytest.raises(ValueError, match="run benchmarks/train_translation.py"):
        E.load_translation_model(other)
    with pytest.raises(ValueError, match="no stored run"):
        E.stored_row(E.load_translation_table(), 0, 0.3)


def test_the_stored_files_stay_small():
    data = ROOT / "attn_lib" / "models" / "data"
    assert (data / E.WEIGHTS_FILE).stat().st_size + (data / E.TABLE_FILE).stat().st_size <= 2 * 2**20


def test_re_training_seed_0_reproduces_its_stored_row(table):
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", RETRAIN], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    row = json.loads(done.stdout.strip().splitlines()[-1])
    differences = E.row_differences(row, E.stored_row(table, 0, SETTINGS["drop"]))
    assert differences == [], "re-run benchmarks/train_translation.py if the model or its training changed:\n" + (
        "\n".join(differences)
    )
