"""The stored seeds experiment of notebook 08: one row re-derived, the tolerances justified, the pictures drawn."""

import copy
import inspect

import numpy as np
import pytest

from attn_lib.models.corpus import make_corpus
from attn_lib.models.tiny_experiment import (
    ANSWER_KINDS,
    LOSS_RTOL,
    NORM_RTOL,
    WEIGHT_TOLERANCE,
    hidden_city_answers,
    load_seed_table,
    measure,
    row_differences,
    stored_row,
)
from attn_lib.models.tiny_model import attention_mask
from attn_lib.models.tiny_training import ablation_accuracy, predict, role_attention, train


@pytest.fixture(scope="module")
def corpus():
    return make_corpus()


@pytest.fixture(scope="module")
def table():
    return load_seed_table()


@pytest.fixture(scope="module")
def seed0(corpus):
    """Seed 0 with the default settings, measured: the row the notebook trains live."""
    result = train(corpus, seed=0)
    return result, measure(corpus, result)


def test_the_table_was_made_with_todays_settings_and_corpus(table, corpus):
    parameters = inspect.signature(train).parameters
    for name, value in table["settings"].items():
        default = parameters[name].default
        assert (np.dtype(default).name if name == "dtype" else default) == value, f"train's default {name} changed"
    sizes = {
        "cities": len(corpus.city_dishes),
        **{name: len(getattr(corpus, name)) for name in ("train", "validation", "test")},
    }
    assert table["corpus"] == sizes, "the corpus changed since the table was made: re-run the benchmark"
    seeds = {row["seed"] for row in table["runs"]}
    assert len(seeds) >= 5 and {row["weight_decay"] for row in table["runs"]} == {
        table["settings"]["weight_decay"],
        0.0,
    }
    assert len(table["runs"]) == 2 * len(seeds)  # every seed with and without weight decay


def test_a_rerun_of_seed_0_reproduces_its_stored_row(table, corpus, seed0):
    _, row = seed0
    assert row_differences(row, stored_row(table, 0), corpus) == []


def test_the_tolerances_are_far_above_float_rounding(corpus, seed0, table):
    # The same seed trained in float64 is a much larger perturbation than another BLAS or thread count
    # (which only reorders float32 sums); it must still land well inside every tolerance.
    _, row32 = seed0
    row64 = measure(corpus, train(corpus, seed=0, dtype=np.float64))
    assert row_differences(row64, row32, corpus) == []
    for name in ("today_weight", "yesterday_weight"):
        gap = np.abs(np.subtract(row64[name], row32[name])).max()
        assert gap < WEIGHT_TOLERANCE / 10, f"{name}: float32 and float64 differ by {gap:.2e}"
    assert abs(row64["train_loss"] - row32["train_loss"]) < LOSS_RTOL / 10 * row32["train_loss"]
    assert abs(row64["weight_norm"] - row32["weight_norm"]) < NORM_RTOL / 10 * row32["weight_norm"]
    for name in ("steps", "reached_target", "test_accuracy", "hidden", "answers_today_hidden"):
        assert row64[name] == row32[name], name  # counted quantities do not move at all


def test_row_differences_catches_a_changed_number(table, corpus):
    stored = stored_row(table, 0)
    one_sentence = 1 / len(corpus.test)
    assert row_differences(copy.deepcopy(stored), stored, corpus) == []
    cases = {
        "steps": lambda r: r.update(steps=r["steps"] + 10),
        "test_accuracy": lambda r: r.update(test_accuracy=r["test_accuracy"] - 2 * one_sentence),
        "today_weight layer 2 head 1": lambda r: r["today_weight"][1].__setitem__(0, r["today_weight"][1][0] - 0.02),
        "hidden today": lambda r: r["hidden"].update(today=r["hidden"]["today"] + 2 * one_sentence),
        "train_loss": lambda r: r.update(train_loss=r["train_loss"] * 1.5),
        "weight_norm": lambda r: r.update(weight_norm=r["weight_norm"] * 1.01),
    }
    for name, change in cases.items():
        row = copy.deepcopy(stored)
        change(row)
        found = row_differences(row, stored, corpus)
        assert len(found) == 1 and found[0].startswith(name), (name, found)
    within = copy.deepcopy(stored)
    within["test_accuracy"] -= one_sentence  # one sentence either way is allowed
    within["today_weight"][1][0] += WEIGHT_TOLERANCE / 2
    assert row_differences(within, stored, corpus) == []
    with pytest.raises(ValueError, match="no stored run with seed=99"):
        stored_row(table, 99)


def test_measure_reports_on_the_test_split(corpus, seed0):
    result, row = seed0
    params, config, test = result.params, result.config, corpus.test
    np.testing.assert_allclose(row["today_weight"], role_attention(params, config, test, "today"))
    assert row["test_accuracy"] == np.mean(predict(params, config, test) == test.target)
    assert row["validation_accuracy"] == result.history[-1]["validation_accuracy"] >= 0.99
    assert row["hidden"]["today"] == ablation_accuracy(params, config, test, "today")
    assert [step for step, _, _ in row["history"]] == [h["step"] for h in result.history]
    norm = np.sqrt(sum(float(np.sum(p.astype(np.float64) ** 2)) for p in params.values()))
    assert row["weight_norm"] == pytest.approx(norm, rel=1e-12)


def test_hidden_city_answers_sort_every_answer_once(corpus, seed0):
    result, row = seed0
    params, config, test = result.params, result.config, corpus.test
    dishes = np.array([corpus.vocab.index(d) for _, d in corpus.city_dishes])
    for role, hidden in (("today", test.today), ("yesterday", test.yesterday)):
        shares = hidden_city_answers(params, config, test, dishes, role)
        assert list(shares) == list(ANSWER_KINDS) and sum(shares.values()) == pytest.approx(1.0)
        # independently: the answers with that city's column masked, sorted by hand
        answers = predict(params, config, test, attention_mask(test.tokens.shape[1], hidden))
        today_dish, yesterday_dish = dishes[test.pairs[:, 1]], dishes[test.pairs[:, 0]]
        by_hand = {
            "today_dish": np.mean(answers == today_dish),
            "yesterday_dish": np.mean(answers == yesterday_dish),
            "another_dish": np.mean(np.isin(answers, dishes) & (answers != today_dish) & (answers != yesterday_dish)),
            "not_a_dish": np.mean(~np.isin(answers, dishes)),
        }
        assert shares == pytest.approx(by_hand)
        assert shares["today_dish"] == ablation_accuracy(params, config, test, role)
    assert row["answers_today_hidden"] == hidden_city_answers(params, config, test, dishes, "today")
    with pytest.raises(ValueError, match="role='tomorrow'"):
        hidden_city_answers(params, config, test, dishes, "tomorrow")


def test_the_stored_rows_are_consistent(table):
    for row in table["runs"]:
        assert sum(row["answers_today_hidden"].values()) == pytest.approx(1.0, abs=1e-6)
        assert row["answers_today_hidden"]["today_dish"] == pytest.approx(row["hidden"]["today"], abs=1e-6)
        history = np.array(row["history"])
        assert history[-1, 0] == row["steps"] and history[-1, 2] == pytest.approx(row["validation_accuracy"])
        assert row["reached_target"] == (row["validation_accuracy"] >= table["settings"]["target_accuracy"])


def test_bad_arguments_are_named(corpus, seed0):
    result, _ = seed0
    with pytest.raises(TypeError, match="result must be the TrainResult"):
        measure(corpus, result.params)
    with pytest.raises(TypeError, match="corpus must be a Corpus"):
        measure(corpus.test, result)


# --- the pictures -----------------------------------------------------------------------------------


def test_experiment_plots_draw_in_both_languages(table):
    from matplotlib.figure import Figure

    from attn_lib.i18n import t
    from attn_lib.pictures.training_plots import plot_progress, plot_seeds, plot_weight_decay

    default = [row for row in table["runs"] if row["weight_decay"] == table["settings"]["weight_decay"]]
    no_decay = [row for row in table["runs"] if row["weight_decay"] == 0.0]
    for lang in ("en", "zh"):
        fig = plot_seeds(default, table["chance"]["uniform_over_dishes"], lang=lang)
        assert isinstance(fig, Figure) and fig.axes[0].get_ylabel() == t("tiny.test_accuracy", lang)
        assert [tick.get_text() for tick in fig.axes[1].get_xticklabels()] == [str(row["seed"]) for row in default]
        fig.canvas.draw()  # every label rendered: a missing glyph would raise (conftest)
        fig = plot_weight_decay(default, no_decay, table["settings"]["target_accuracy"], lang=lang)
        assert len(fig.axes[0].get_lines()) == len(default) + len(no_decay) + 1  # one curve per run, and the target
        fig.canvas.draw()
        history = np.array(default[0]["history"])
        fig = plot_progress(history[:, 0], history[:, 1], history[:, 0], history[:, 2], 300, 0.99, done=True, lang=lang)
        expected = t("tiny.progress_done", lang, steps=int(history[-1, 0]), accuracy=history[-1, 2])
        assert fig.axes[0].get_title() == expected
        fig.canvas.draw()
    with pytest.raises(TypeError, match="runs must be a non-empty list of rows"):
        plot_seeds([], 0.05)
    with pytest.raises(ValueError, match="is not a row of"):
        plot_seeds([{"seed": 0}], 0.05)
    with pytest.raises(ValueError, match="lengths differ"):
        plot_progress([0, 1], [1.0], [0], [0.5], 10)
