"""Notebook 09's stored translation model and its table over seeds: one trained model as one row of numbers.

    result = train(corpus, seed=0)                    # attn_lib.models.translation_training, a few seconds
    row = measure(corpus, result)                     # test loss, exact match, alignment per layer and head ...
    table = load_translation_table()                  # the rows benchmarks/train_translation.py stored
    params, config = load_translation_model(corpus)   # seed 0's weights (attention dropout 0.1), stored beside it
    row_differences(row, stored_row(table, 0, 0.1))   # [] when a re-run reproduces the stored row

Every number of a row is measured on `corpus.test`, which neither trained the model nor chose anything,
except the `validation_*` numbers and the `history`, which are what training saw, and `shown_head`: what the
notebook draws, the one head (or one layer's heads averaged, head -1) whose cross-attention aligns best on
validation; its test accuracy is `shown_head_test_alignment`.
"""

import json
from importlib import resources

import numpy as np

from attn_lib._checks import describe_value
from attn_lib.models.encoder_decoder import Seq2SeqConfig, mean_loss
from attn_lib.models.translation_corpus import ARTICLE_SENTENCES, ParallelCorpus
from attn_lib.models.translation_decoding import (
    alignment_accuracy,
    reference_cross_weights,
    translate,
    translations,
)
from attn_lib.models.translation_training import TranslationTrainResult, trim

TABLE_FILE, WEIGHTS_FILE = "translation_seeds.json", "translation_seed0.npz"

#: How far a re-run may be from a stored row (see `row_differences`): losses in nats, alignment accuracies and
#: exact-match shares absolute.
LOSS_TOLERANCE, SHARE_TOLERANCE = 1e-4, 0.01


def measure(corpus, result):
    """A trained model (the TranslationTrainResult of `train(corpus, ...)`) -> its row: plain numbers and lists."""
    if not isinstance(corpus, ParallelCorpus):
        raise TypeError(f"corpus must be a ParallelCorpus, got {describe_value(corpus)}")
    if not isinstance(result, TranslationTrainResult):
        raise TypeError(f"result must be the TranslationTrainResult returned by train(), got {describe_value(result)}")
    row = {"seed": result.settings.get("seed"), "drop": result.settings.get("drop"), "steps": int(result.steps)}
    row["best_step"] = int(result.best_step)
    kept = next(h for h in result.history if h["step"] == result.best_step)
    row["validation_loss"], row["validation_exact"] = kept["validation_loss"], kept["validation_exact"]
    row.update(measure_params(corpus, result.params, result.config))
    row["history"] = [[h["step"], h["train_loss"], h["validation_loss"], h["validation_exact"]] for h in result.history]
    return row


def measure_params(corpus, params, config):
    """-> the numbers of one set of parameters: on validation (to choose a head) and on test (to report)."""
    validation_weights = reference_cross_weights(params, config, corpus.validation)  # [L, B, h, T, S]
    validation_alignment = alignment_accuracy(validation_weights, corpus.validation.align)  # [L, h]
    test_weights = reference_cross_weights(params, config, corpus.test)
    test_alignment = alignment_accuracy(test_weights, corpus.test.align)  # [L, h]
    test_mean = alignment_accuracy(test_weights.mean(axis=2, keepdims=True), corpus.test.align)[:, 0]  # [L]
    # what the notebook draws: the one head, or one layer's heads averaged, that aligns best on validation
    validation_mean = alignment_accuracy(validation_weights.mean(axis=2, keepdims=True), corpus.validation.align)
    candidates = np.concatenate([validation_alignment, validation_mean], axis=1)  # [L, h + 1]: column h = averaged
    layer, head = np.unravel_index(np.argmax(candidates), candidates.shape)
    shown = test_mean[layer] if head == config.n_heads else test_alignment[layer, head]
    article = corpus.encode(ARTICLE_SENTENCES)
    written = translations(corpus, translate(params, config, article.source)[0])
    test = translations(corpus, translate(params, config, corpus.test.source)[0])
    misses = [[" ".join(p.source), " ".join(words)] for p, words in zip(corpus.test.pairs, test, strict=True)
              if words != list(p.target)]  # fmt: skip
    return {
        "test_loss": float(mean_loss(params, config, *trim(corpus.test.source, corpus.test.target))),
        "test_exact": 1.0 - len(misses) / len(corpus.test),
        "test_misses": misses,  # [Chinese, what the model wrote] for every test sentence not translated exactly
        "validation_alignment": validation_alignment.round(6).tolist(),
        "test_alignment": test_alignment.round(6).tolist(),
        "test_alignment_mean": test_mean.tolist(),  # each layer's heads' weights averaged
        "shown_head": [int(layer), -1 if head == config.n_heads else int(head)],  # -1: the layer's heads averaged
        "shown_head_test_alignment": float(shown),
        "article": [" ".join(words) for words in written],
    }


def _data(name):
    return resources.files("attn_lib.models").joinpath("data", name)


def load_translation_table():
    """-> the stored experiment (data/translation_seeds.json): settings, config, vocabularies, baselines, runs."""
    return json.loads(_data(TABLE_FILE).read_text(encoding="utf-8"))


def load_translation_model(corpus=None):
    """-> (params, config): seed 0's stored weights (float64, attention dropout 0.1 in training) and their config.

    With `corpus`, its vocabularies must be the ones the weights were trained on.
    """
    table = load_translation_table()
    if corpus is not None and (
        tuple(corpus.source_vocab) != tuple(table["source_vocab"])
        or tuple(corpus.target_vocab) != tuple(table["target_vocab"])
    ):
        raise ValueError(
            "the stored weights were trained on other vocabularies than this corpus's: run"
            " benchmarks/train_translation.py to train and store them again"
        )
    with _data(WEIGHTS_FILE).open("rb") as file, np.load(file) as stored:
        params = {name: stored[name] for name in stored.files}
    return params, Seq2SeqConfig(**table["config"])


def stored_row(table, seed, drop):
    """The row of `table` (from `load_translation_table`) for `seed` trained with attention dropout `drop`."""
    for row in table["runs"]:
        if row["seed"] == seed and row["drop"] == drop:
            return row
    stored = sorted((row["seed"], row["drop"]) for row in table["runs"])
    raise ValueError(f"no stored run with seed={seed!r} and drop={drop!r}; stored (seed, drop): {stored}")


def drift(row, other):
    """-> {number: |row's - other's|}: how far two rows of the same seed are apart, number by number."""
    out = {name: abs(row[name] - other[name]) for name in ("validation_loss", "test_loss", "test_exact")}
    out["test_alignment"] = float(np.abs(np.subtract(row["test_alignment"], other["test_alignment"])).max())
    return out


def row_differences(row, stored):
    """-> a list of sentences, one per number of `row` not within tolerance of `stored` ([] if none).

    The seed, the dropout rate, the steps, the article's translations and the test sentences translated wrong
    must be equal; the losses may
    differ by LOSS_TOLERANCE nats, the exact-match shares and every head's alignment accuracy by
    SHARE_TOLERANCE. Another BLAS (or number of threads) sums in another order; how far that moves a
    row is bounded by how far a float32 run of the same seed lands from the stored float64 one, which
    benchmarks/train_translation.py measures and stores (`float32_drift`, checked against these
    tolerances by tests/test_translation_stored.py).
    """
    found = []
    for name in ("seed", "drop", "steps", "article", "test_misses"):
        if row[name] != stored[name]:
            found.append(f"{name}: {row[name]!r} now, {stored[name]!r} stored")
    for name, allowed in (("validation_loss", LOSS_TOLERANCE), ("test_loss", LOSS_TOLERANCE),
                          ("validation_exact", SHARE_TOLERANCE), ("test_exact", SHARE_TOLERANCE)):  # fmt: skip
        if not abs(row[name] - stored[name]) <= allowed:
            found.append(f"{name}: {row[name]!r} now, {stored[name]!r} stored (allowed difference {allowed:g})")
    worst = float(np.abs(np.subtract(row["test_alignment"], stored["test_alignment"])).max())
    if not worst <= SHARE_TOLERANCE:
        found.append(f"test_alignment: a head moved by {worst:.3g} (allowed difference {SHARE_TOLERANCE:g})")
    return found
