"""Notebook 13's stored model and its table over seeds: one trained model as one row of numbers.

    result = train(corpus, seed=0)                  # attn_lib.models.lm_training, about 20 s of CPU
    row = measure(corpus, result)                   # test loss, perplexity, blank accuracy, P(. | 今天天气), ...
    table = load_lm_table()                         # the rows benchmarks/train_tiny_lm.py stored
    params, config = load_tiny_lm(corpus)           # seed 0's weights, stored beside the table
    row_differences(row, stored_row(table, 0), corpus)   # [] when a re-run reproduces the stored row

Every number of a row is measured on `corpus.test`, which neither trained the model nor chose its
checkpoint, except `validation_loss` and the `history`, which are what `train` saw.
"""

import json
from importlib import resources

import numpy as np

from attn_lib._checks import describe_value
from attn_lib.models.generation import next_token_logits
from attn_lib.models.lm_corpus import BOS, PAD, LMCorpus
from attn_lib.models.lm_training import LMTrainResult, blank_accuracy, split_loss
from attn_lib.models.ngram import (
    add_one_log_probs,
    count_windows,
    fit_interpolation,
    interpolated_log_probs,
    interpolation_parts,
    most_likely_next,
)
from attn_lib.models.tiny_lm import LMConfig
from attn_lib.sampling import sampling_distribution

TABLE_FILE, WEIGHTS_FILE = "tiny_lm_seeds.json", "tiny_lm_seed0.npz"
#: The three continuations of 今天天气 in notebook 01's counts, and the article's sentence before its blank.
WEATHER = ("很好", "不错", "真热")
ARTICLE = "我 昨天 在 北京 吃了 烤鸭 ， 今天 在 上海 吃了"

#: How far a re-run may be from a stored row (see `row_differences`): losses in nats, probabilities
#: absolute, blank accuracy in test sentences.
LOSS_TOLERANCE, PROBABILITY_TOLERANCE, BLANK_SENTENCES = 0.01, 0.05, 4


def measure(corpus, result):
    """A trained model (the LMTrainResult of `train(corpus, ...)`) -> its row: a dict of plain numbers and lists.

    seed, steps, best_step, validation_loss (of the checkpoint kept), test_loss (nats per token),
    test_perplexity, blank_accuracy (今天在上海吃了_ on the test city pairs), weather (P(w | 今天 天气) for
    很好, 不错, 真热), weather_top (the five most likely next tokens and their probabilities), article
    (the answer after the article's sentence and its probability), history ([step, train loss, validation
    loss] at every evaluation).
    """
    if not isinstance(corpus, LMCorpus):
        raise TypeError(f"corpus must be an LMCorpus, got {describe_value(corpus)}")
    if not isinstance(result, LMTrainResult):
        raise TypeError(f"result must be the LMTrainResult returned by train(), got {describe_value(result)}")
    params, config = result.params, result.config
    row = {"seed": result.settings.get("seed"), "steps": int(result.steps), "best_step": int(result.best_step)}
    row["validation_loss"] = min(h["validation_loss"] for h in result.history)
    row.update(measure_params(corpus, params, config))
    row["history"] = [[h["step"], h["train_loss"], h["validation_loss"]] for h in result.history]
    return row


def measure_params(corpus, params, config):
    """-> the test numbers of one set of parameters (the part of `measure` that needs no training history)."""
    test_loss = split_loss(params, config, corpus.test)
    weather = sampling_distribution(next_token_logits(params, config, corpus, "今天 天气"))  # [V]
    article = sampling_distribution(next_token_logits(params, config, corpus, ARTICLE))  # [V]
    top = np.argsort(-weather, kind="stable")[:5]
    return {
        "test_loss": test_loss,
        "test_perplexity": float(np.exp(test_loss)),
        "blank_accuracy": blank_accuracy(params, config, corpus.test),
        "weather": {w: float(weather[corpus.index[w]]) for w in WEATHER},
        "weather_top": [[corpus.vocab[i], float(weather[i])] for i in top],
        "article": [corpus.vocab[int(np.argmax(article))], float(article.max())],
    }


def counted_baselines(corpus):
    """-> notebook 01's counted bigram and trigram on the same test tokens as the model, trained on corpus.train.

    {"loss": {"bigram add-one": nats per token, "trigram add-one", "bigram interpolated", "trigram
    interpolated"}, "weights": {"bigram": [l_2, l_1, l_0], "trigram": [l_3, l_2, l_1, l_0]} (chosen on
    corpus.validation), "blank_accuracy": {"bigram", "trigram"} (the most counted token after the final
    吃了's window, on the test city pairs; a window never seen counts as wrong)}.
    """
    vocabulary = [w for w in corpus.vocab if w not in (PAD, BOS)]  # every token that can come next
    train, validation, test = (corpus.counted(name) for name in ("train", "validation", "test"))
    out = {"loss": {}, "weights": {}, "blank_accuracy": {}}
    for name, order in (("bigram", 2), ("trigram", 3)):
        out["loss"][f"{name} add-one"] = float(-add_one_log_probs(train, test, order, vocabulary).mean())
        weights = fit_interpolation(interpolation_parts(train, validation, order, vocabulary))
        parts = interpolation_parts(train, test, order, vocabulary)
        out["loss"][f"{name} interpolated"] = float(-interpolated_log_probs(parts, weights).mean())
        out["weights"][name] = [round(float(w), 6) for w in weights]
        table = count_windows(train, order)
        right = [
            most_likely_next(table, tokens[:blank], order) == dish  # blank counts <bos>: up to the final 吃了
            for tokens, source, blank, dish in corpus.sentences["test"]
            if source == 1
        ]
        out["blank_accuracy"][name] = float(np.mean(right))
    return out


def _data(name):
    return resources.files("attn_lib.models").joinpath("data", name)


def load_lm_table():
    """-> the stored experiment (models/data/tiny_lm_seeds.json): settings, config, vocab, corpus sizes, runs."""
    return json.loads(_data(TABLE_FILE).read_text(encoding="utf-8"))


def load_tiny_lm(corpus=None):
    """-> (params, config): seed 0's stored weights (float32) and their LMConfig.

    With `corpus`, its vocabulary must be the one the weights were trained on (a changed corpus needs
    benchmarks/train_tiny_lm.py run again).
    """
    table = load_lm_table()
    if corpus is not None and tuple(corpus.vocab) != tuple(table["vocab"]):
        raise ValueError(
            f"the stored weights were trained on a vocabulary of {len(table['vocab'])} tokens that differs from"
            f" this corpus's {len(corpus.vocab)}: run benchmarks/train_tiny_lm.py to train and store them again"
        )
    with _data(WEIGHTS_FILE).open("rb") as file, np.load(file) as stored:
        params = {name: stored[name] for name in stored.files}
    return params, LMConfig(**table["config"])


def stored_row(table, seed):
    """The row of `table` (from `load_lm_table`) for `seed`."""
    for row in table["runs"]:
        if row["seed"] == seed:
            return row
    raise ValueError(f"no stored run with seed={seed!r}; stored: {sorted(row['seed'] for row in table['runs'])}")


def drift(row, other):
    """-> {number: |row's - other's|}: how far two rows of the same seed are apart, number by number."""
    out = {name: abs(row[name] - other[name]) for name in ("validation_loss", "test_loss", "blank_accuracy")}
    out["weather"] = max(abs(p - other["weather"][w]) for w, p in row["weather"].items())
    return out


def row_differences(row, stored, corpus):
    """-> a list of sentences, one per number of `row` not within tolerance of `stored` ([] if none).

    The seed and the steps must be equal (not the best step: two evaluations close in loss may swap);
    the losses may differ by LOSS_TOLERANCE nats, the probabilities by PROBABILITY_TOLERANCE, the blank
    accuracy by BLANK_SENTENCES test sentences, and the article's answer must be the same token. The
    model trains in float32 over 1,500 minibatch steps, and another BLAS (or number of threads) rounds
    its sums in another order. How far that can move a row is bounded by how far a float64 run of the
    same seed lands from the float32 one, which benchmarks/train_tiny_lm.py measures and stores
    (`float64_drift`): for seed 0, at most a fifth of each bound (tests/test_tiny_lm_stored.py checks
    it), while a change to the corpus, the model or the training moves the numbers by much more.
    """
    n_blank = int((corpus.test.blank >= 0).sum())
    found = []

    def check(name, new, old, allowed):
        if (new != old) if allowed == 0 else not abs(new - old) <= allowed:
            found.append(f"{name}: {new!r} now, {old!r} stored (allowed difference {allowed:.3g})")

    for name in ("seed", "steps"):
        check(name, row[name], stored[name], 0)
    for name in ("validation_loss", "test_loss"):
        check(name, row[name], stored[name], LOSS_TOLERANCE)
    check("blank_accuracy", row["blank_accuracy"], stored["blank_accuracy"], BLANK_SENTENCES / n_blank + 1e-9)
    for word, p in row["weather"].items():
        check(f"P({word} | 今天 天气)", p, stored["weather"][word], PROBABILITY_TOLERANCE)
    if row["article"][0] != stored["article"][0]:
        found.append(f"the article's blank: {row['article'][0]} now, {stored['article'][0]} stored")
    return found
