"""The seeds experiment of notebook 08: what one trained tiny model does, as one row of numbers.

    result = train(corpus, seed=3)
    row = measure(corpus, result)            # test accuracy, attention on each city, ablations, ...
    table = load_seed_table()                # the rows benchmarks/learned_attention_seeds.py stored
    row_differences(row, stored_row(table, seed=3), corpus)   # [] when a re-run reproduces it

Every number of a row is measured on `corpus.test`, the city pairs that neither trained the model nor
decided when it stopped (`train` stops on `corpus.validation`), except `validation_accuracy` and the
`history`, which are what `train` saw.
"""

import json
from importlib import resources

import numpy as np

from attn_lib._checks import describe_value
from attn_lib.models.tiny_model import attention_mask
from attn_lib.models.tiny_training import (
    ROLES,
    TrainResult,
    ablation_accuracy,
    accuracy,
    check_corpus,
    check_split,
    predict,
    role_attention,
)

#: What an answer can be: today's dish (the right one), yesterday's dish, another city's dish, no dish at all.
ANSWER_KINDS = ("today_dish", "yesterday_dish", "another_dish", "not_a_dish")

#: How far a re-run may be from a stored row (see `row_differences`): attention weights absolute;
#: the training loss and the parameters' norm relative.
WEIGHT_TOLERANCE, LOSS_RTOL, NORM_RTOL = 0.005, 0.01, 0.001


def hidden_city_answers(params, config, split, dishes, role="today"):
    """-> {kind: share of sentences} for the answers given when the `role` city is hidden from every token.

    `dishes` [C] holds the token id of each city's dish (index = city index, as in `split.pairs`).
    The kinds are ANSWER_KINDS and the shares sum to 1; "today_dish" (the right answer) is the
    ablation accuracy, "yesterday_dish" is never right (the two cities of a sentence always differ).
    """
    check_split(split)
    if role not in ROLES:
        raise ValueError(f"role={role!r} must be one of {ROLES}")
    dishes = np.asarray(dishes)
    hidden = split.today if role == "today" else split.yesterday
    answers = predict(params, config, split, attention_mask(split.tokens.shape[1], hidden))  # [B]
    today, yesterday = answers == split.target, answers == dishes[split.pairs[:, 0]]  # [B] each
    another = np.isin(answers, dishes) & ~today & ~yesterday
    kinds = (today, yesterday, another, ~(today | yesterday | another))
    return {kind: float(np.mean(share)) for kind, share in zip(ANSWER_KINDS, kinds, strict=True)}


def measure(corpus, result):
    """A trained model (TrainResult of `train(corpus, ...)`) -> its row: a dict of plain numbers and lists.

    seed, weight_decay, reached_target, steps, validation_accuracy (when it stopped), train_loss (then),
    weight_norm (the square root of the sum of every parameter squared), test_accuracy, train_accuracy;
    today_weight, yesterday_weight [layers][heads]: the blank's average weight on each city over the
    test sentences; hidden: test accuracy with the today-city hidden from every token ("today"), from
    the blank's query only ("today_from_blank"), and with the yesterday-city hidden ("yesterday");
    answers_today_hidden: `hidden_city_answers` for the today-city; history: [step, loss, validation
    accuracy] at every evaluation.
    """
    check_corpus(corpus)
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be the TrainResult returned by train(), got {describe_value(result)}")
    params, config, test = result.params, result.config, corpus.test
    dishes = [corpus.vocab.index(dish) for _, dish in corpus.city_dishes]
    last = result.history[-1]
    return {
        "seed": result.settings.get("seed"),
        "weight_decay": result.settings.get("weight_decay"),
        "reached_target": bool(result.reached_target),
        "steps": int(result.steps),
        "validation_accuracy": last["validation_accuracy"],
        "train_loss": float(last["loss"]),
        "weight_norm": float(np.sqrt(sum(np.sum(np.square(p, dtype=np.float64)) for p in params.values()))),
        "test_accuracy": accuracy(params, config, test),
        "train_accuracy": accuracy(params, config, corpus.train),
        "today_weight": role_attention(params, config, test, "today").tolist(),  # [L][h]
        "yesterday_weight": role_attention(params, config, test, "yesterday").tolist(),  # [L][h]
        "hidden": {
            "today": ablation_accuracy(params, config, test, "today"),
            "today_from_blank": ablation_accuracy(params, config, test, "today", scope="blank"),
            "yesterday": ablation_accuracy(params, config, test, "yesterday"),
        },
        "answers_today_hidden": hidden_city_answers(params, config, test, dishes, "today"),
        "history": [[h["step"], float(h["loss"]), h["validation_accuracy"]] for h in result.history],
    }


def load_seed_table():
    """-> the stored experiment (attn_lib/models/data/learned_attention_seeds.json): settings, corpus sizes, runs.

    `runs` holds one `measure` row per (seed, weight_decay), plus the seconds each training took.
    """
    text = (
        resources.files("attn_lib.models").joinpath("data", "learned_attention_seeds.json").read_text(encoding="utf-8")
    )
    return json.loads(text)


def stored_row(table, seed, weight_decay=None):
    """The row of `table` (from `load_seed_table`) for `seed` and `weight_decay` (default: the table's default)."""
    weight_decay = table["settings"]["weight_decay"] if weight_decay is None else weight_decay
    for row in table["runs"]:
        if row["seed"] == seed and row["weight_decay"] == weight_decay:
            return row
    have = sorted({(row["seed"], row["weight_decay"]) for row in table["runs"]})
    raise ValueError(f"no stored run with seed={seed!r} and weight_decay={weight_decay!r}; stored: {have}")


def row_differences(row, stored, corpus):
    """-> a list of sentences, one per number of `row` that is not within tolerance of `stored` ([] if none).

    Counts (steps, whether the target was reached) must be equal; an accuracy or a share may differ by
    one sentence of the split it counts (1 / len(corpus.test), ...); attention weights by
    WEIGHT_TOLERANCE; the training loss and the weight norm by LOSS_RTOL and NORM_RTOL of their value.
    The model trains in float32, and another BLAS (or number of threads) rounds sums in another order:
    float32 and float64 runs of the same seed agree far more closely than these bounds
    (tests/test_tiny_experiment.py measures it), while a change to the corpus, the model or the
    training moves the numbers by much more.
    """
    check_corpus(corpus)
    one = {name: 1 / len(getattr(corpus, name)) + 1e-9 for name in ("train", "validation", "test")}
    found = []

    def check(name, new, old, tolerance, relative=False):
        allowed = tolerance * abs(old) if relative else tolerance
        if (new != old) if tolerance == 0 else not abs(new - old) <= allowed:
            found.append(f"{name}: {new!r} now, {old!r} stored (allowed difference {allowed:.3g})")

    for name in ("seed", "weight_decay", "reached_target", "steps"):
        check(name, row[name], stored[name], 0)
    check("validation_accuracy", row["validation_accuracy"], stored["validation_accuracy"], one["validation"])
    check("train_accuracy", row["train_accuracy"], stored["train_accuracy"], one["train"])
    check("test_accuracy", row["test_accuracy"], stored["test_accuracy"], one["test"])
    check("train_loss", row["train_loss"], stored["train_loss"], LOSS_RTOL, relative=True)
    check("weight_norm", row["weight_norm"], stored["weight_norm"], NORM_RTOL, relative=True)
    for name in ("today_weight", "yesterday_weight"):
        for (layer, head), value in np.ndenumerate(np.asarray(row[name])):
            check(f"{name} layer {layer + 1} head {head + 1}", value, stored[name][layer][head], WEIGHT_TOLERANCE)
    for group in ("hidden", "answers_today_hidden"):
        for key, value in row[group].items():
            check(f"{group} {key}", value, stored[group][key], one["test"])
    return found
