"""The tiny model of notebook 08: its corpus, its hand-written gradients, its training and what it learns."""

import dataclasses

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from attn_lib import multi_head_attention
from attn_lib.models.corpus import CITY_DISHES, PAD, TEMPLATES, fill_template, make_corpus, split_city_pairs
from attn_lib.models.tiny_model import (
    TinyConfig,
    attention_layer,
    attention_mask,
    batch_loss,
    forward,
    gradients,
    init_params,
)
from attn_lib.models.tiny_training import ablation_accuracy, accuracy, adam_step, blank_attention, role_attention, train


@pytest.fixture(scope="module")
def corpus():
    return make_corpus()


@pytest.fixture(scope="module")
def trained(corpus):
    return train(corpus, seed=0)


# --- the corpus -----------------------------------------------------------------------------------


SPLITS = ("train", "validation", "test")


def test_no_city_pair_is_in_two_splits(corpus):
    pairs = {name: {frozenset(p) for p in getattr(corpus, name).pairs.tolist()} for name in SPLITS}
    assert all(pairs.values())
    for i, a in enumerate(SPLITS):
        for b in SPLITS[i + 1 :]:
            assert not pairs[a] & pairs[b], f"{a} and {b} share city pairs"  # not even in the other order
    assert {(0, 1), (1, 0)} <= {tuple(p) for p in corpus.test.pairs.tolist()}  # 北京/上海: a test pair
    # every city is still seen in every split as today's and as yesterday's city
    for name in SPLITS:
        split = getattr(corpus, name)
        assert set(split.pairs[:, 0]) == set(split.pairs[:, 1]) == set(range(len(CITY_DISHES))), name
    assert (len(corpus.train), len(corpus.validation), len(corpus.test)) == (1872, 288, 288)  # the documented sizes


def test_the_corpus_is_deterministic(corpus):
    again = make_corpus()
    for name in SPLITS:
        for field in ("tokens", "blank", "target", "today", "yesterday", "pairs", "template"):
            np.testing.assert_array_equal(getattr(getattr(again, name), field), getattr(getattr(corpus, name), field))
    other = make_corpus(seed=1)
    assert not np.array_equal(other.test.pairs, corpus.test.pairs)  # the seed does choose the split


@pytest.mark.parametrize("n_cities, validation, test", [(7, 2, 2), (9, 2, 4), (18, 6, 2), (18, 2, 12)])
def test_split_city_pairs_covers_every_ordered_pair_once(n_cities, validation, test):
    train_pairs, val_pairs, test_pairs = split_city_pairs(n_cities, validation, test, seed=3)
    everything = [(y, t) for y in range(n_cities) for t in range(n_cities) if y != t]
    assert sorted(train_pairs + val_pairs + test_pairs) == everything
    for pairs, partners in ((val_pairs, validation), (test_pairs, test)):
        assert (np.bincount([y for y, _ in pairs], minlength=n_cities) == partners).all()
        assert (np.bincount([t for _, t in pairs], minlength=n_cities) == partners).all()
    unordered = [{frozenset(p) for p in pairs} for pairs in (train_pairs, val_pairs, test_pairs)]
    assert not (unordered[0] & unordered[1] or unordered[0] & unordered[2] or unordered[1] & unordered[2])


def test_sentences_say_what_their_labels_say(corpus):
    for split in (corpus.train, corpus.validation, corpus.test):
        rows = np.arange(len(split))
        vocab = np.array(corpus.vocab)
        cities = np.array([c for c, _ in CITY_DISHES])
        dishes = np.array([d for _, d in CITY_DISHES])
        assert (vocab[split.tokens[rows, split.today]] == cities[split.pairs[:, 1]]).all()
        assert (vocab[split.tokens[rows, split.yesterday]] == cities[split.pairs[:, 0]]).all()
        assert (vocab[split.target] == dishes[split.pairs[:, 1]]).all()
        assert (vocab[split.tokens[rows, split.blank]] == "吃了").all()
        after_blank = np.arange(split.tokens.shape[1])[None, :] > split.blank[:, None]
        assert (vocab[split.tokens][after_blank] == PAD).all() and (vocab[split.tokens][~after_blank] != PAD).all()
    assert corpus.max_len <= 16


def test_no_position_and_not_the_latest_city_gives_the_answer(corpus):
    split = corpus.train
    for position in range(corpus.max_len):
        assert np.mean(split.today == position) < 0.3  # no fixed slot holds the today-city
    assert len(set(split.today - split.blank)) >= 6  # nor a fixed distance back from the blank
    latest_is_today = split.today > split.yesterday
    assert 0.3 < latest_is_today.mean() < 0.7  # "the most recent city" is wrong about half the time


def test_the_article_sentence_is_the_plain_first_template():
    tokens, dish, today, yesterday = fill_template(TEMPLATES[0], 0, 1)  # 北京 yesterday, 上海 today
    assert "".join(tokens) == "我昨天在北京吃了烤鸭，今天在上海吃了"
    assert (dish, tokens[today], tokens[yesterday]) == ("小笼包", "上海", "北京")


# --- the model: gradients ---------------------------------------------------------------------------


def numerical_gradient(f, array, eps=1e-6):
    """Central differences of the scalar f() with respect to every entry of `array` (changed in place)."""
    grad = np.zeros_like(array)
    for i in np.ndindex(array.shape):
        old = array[i]
        array[i] = old + eps
        plus = f()
        array[i] = old - eps
        minus = f()
        array[i] = old
        grad[i] = (plus - minus) / (2 * eps)
    return grad


def test_every_gradient_matches_finite_differences(corpus):
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model=4, n_heads=2, n_layers=2)
    params = init_params(config, seed=1, dtype=np.float64)
    pick = np.arange(0, len(corpus.train), 311)  # a few sentences of different templates
    batch = corpus.train.tokens[pick], corpus.train.blank[pick], corpus.train.target[pick]
    _, grads = gradients(params, config, *batch)
    assert set(grads) == set(params)
    for name, value in params.items():
        numeric = numerical_gradient(lambda: batch_loss(params, config, *batch), value)
        error = np.linalg.norm(numeric - grads[name]) / (np.linalg.norm(numeric) + np.linalg.norm(grads[name]))
        assert grads[name].shape == value.shape
        assert error < 1e-6, f"{name}: relative error {error:.2e}"


def test_gradients_match_pytorch_autograd(corpus):
    torch = pytest.importorskip("torch")
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model=6, n_heads=3, n_layers=2)
    params = init_params(config, seed=2)
    tokens, blank, target = corpus.test.tokens[:9], corpus.test.blank[:9], corpus.test.target[:9]
    loss, grads = gradients(params, config, tokens, blank, target)

    p = {name: torch.tensor(value, requires_grad=True) for name, value in params.items()}
    n, h = tokens.shape[1], config.n_heads
    x = p["tok_emb"][torch.from_numpy(tokens)] + p["pos_emb"][:n]
    for layer in (1, 2):
        w = {name: p[f"layer{layer}.{name}"] for name in ("w_q", "w_k", "w_v", "w_o")}
        q, k, v = ((x @ w[name]).unflatten(-1, (h, -1)).transpose(1, 2) for name in ("w_q", "w_k", "w_v"))
        causal = torch.ones(n, n, dtype=torch.bool).tril()
        heads = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=causal)
        x = x + heads.transpose(1, 2).flatten(-2) @ w["w_o"]
    logits = x[torch.arange(len(blank)), torch.from_numpy(blank)] @ p["w_out"] + p["b_out"]
    torch_loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(target))
    torch_loss.backward()
    np.testing.assert_allclose(loss, torch_loss.item(), rtol=1e-10)
    for name in params:
        np.testing.assert_allclose(grads[name], p[name].grad.numpy(), rtol=1e-8, atol=1e-12, err_msg=name)


@settings(deadline=None, max_examples=20)
@given(batch=st.integers(1, 4), n=st.integers(2, 7), d_k=st.integers(1, 3), h=st.integers(1, 3))
def test_attention_layer_is_residual_plus_multi_head_attention(batch, n, d_k, h):
    d = h * d_k  # d_model
    assume(len({batch, n, d, h}) == 4)  # distinct sizes, so a swapped axis cannot pass
    rng = np.random.default_rng(batch * 100 + n * 10 + d)
    x = rng.normal(size=(batch, n, d))
    w = {name: rng.normal(size=(d, d)) for name in ("w_q", "w_k", "w_v", "w_o")}
    out, cache = attention_layer(x, w, h, attention_mask(n))
    expected, weights = multi_head_attention(x, w["w_q"], w["w_k"], w["w_v"], w["w_o"], h, mask=attention_mask(n))
    assert out.shape == (batch, n, d) and cache["weights"].shape == (batch, h, n, n)
    np.testing.assert_allclose(out, x + expected, atol=1e-12)
    np.testing.assert_allclose(cache["weights"], weights, atol=1e-12)


def test_padding_after_the_blank_changes_nothing(corpus):
    config = TinyConfig(len(corpus.vocab), corpus.max_len + 3, d_model=8, n_heads=2)
    params = init_params(config, seed=4)
    split = corpus.test
    logits, _ = forward(params, config, split.tokens, split.blank)
    longer = np.pad(split.tokens, ((0, 0), (0, 3)), constant_values=7)  # any tokens after the blank
    logits_longer, _ = forward(params, config, longer, split.blank)
    np.testing.assert_allclose(logits, logits_longer, atol=1e-12)  # causal: the blank never sees them


def test_a_blocked_token_gets_exactly_zero_weight(corpus):
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model=8, n_heads=2)
    params = init_params(config, seed=5)
    split = corpus.test
    rows = np.arange(len(split))
    for scope in ("all", split.blank):
        mask = attention_mask(corpus.max_len, split.today, scope)
        _, caches = forward(params, config, split.tokens, split.blank, mask=mask)
        for cache in caches["layers"]:
            assert (cache["weights"][rows, :, split.blank, split.today] == 0).all()
            np.testing.assert_allclose(cache["weights"].sum(-1)[rows, :, split.blank], 1.0)


def test_adam_first_step_moves_each_entry_by_lr_against_its_gradient():
    params = {"w": np.array([[1.0, -2.0], [0.5, 3.0]])}
    grads = {"w": np.array([[0.3, -4.0], [1e-3, 2.0]])}
    adam_step(params, grads, state := {}, lr=0.1)
    np.testing.assert_allclose(params["w"], [[0.9, -1.9], [0.4, 2.9]], atol=1e-4)
    assert state["t"] == 1


# --- training and what the model learned ----------------------------------------------------------


def test_training_reaches_the_targets(corpus, trained):
    params, config = trained.params, trained.config
    assert trained.reached_target and trained.history[-1]["validation_accuracy"] >= 0.99
    assert accuracy(params, config, corpus.test) >= 0.99  # seed 0; other seeds: tests/test_tiny_experiment.py
    today = role_attention(params, config, corpus.test, "today")  # [layers, heads]
    yesterday = role_attention(params, config, corpus.test, "yesterday")
    layer, head = np.unravel_index(np.argmax(today), today.shape)
    assert today[layer, head] >= 0.8
    assert yesterday[layer, head] <= 0.05


def test_blocking_the_today_city_breaks_the_model_and_yesterday_does_not(corpus, trained):
    params, config = trained.params, trained.config
    chance = 1 / len(CITY_DISHES)
    assert ablation_accuracy(params, config, corpus.test, "today") < 2 * chance
    assert ablation_accuracy(params, config, corpus.test, "yesterday") >= 0.97


def test_checkpoints_record_training(corpus, trained):
    steps = [step for step, _ in trained.checkpoints]
    assert steps[0] == 0 and steps[-1] == trained.steps and steps == sorted(set(steps))
    first, last = trained.checkpoints[0][1], trained.checkpoints[-1][1]
    assert accuracy(first, trained.config, corpus.test) < 0.2  # untrained: near chance
    for name, value in trained.params.items():
        np.testing.assert_array_equal(last[name], value)
        assert last[name] is not value  # copies, not references to the live arrays


def test_training_never_looks_at_the_test_split(corpus, trained):
    # scramble the test sentences: if train() read them at all, something about the run would change
    rng = np.random.default_rng(0)
    scrambled = dataclasses.replace(
        corpus.test, tokens=rng.permutation(corpus.test.tokens), target=rng.permutation(corpus.test.target)
    )
    again = train(dataclasses.replace(corpus, test=scrambled), seed=0)
    assert again.steps == trained.steps and again.history == trained.history
    for name, value in trained.params.items():
        np.testing.assert_array_equal(again.params[name], value)


def test_training_stops_on_the_validation_split(corpus):
    # validation sentences whose answers are all wrong: the target can never be met, training runs to the end
    wrong = dataclasses.replace(corpus.validation, target=np.roll(corpus.validation.target, 1))
    result = train(dataclasses.replace(corpus, validation=wrong), seed=0, max_steps=12, eval_every=4)
    assert not result.reached_target and result.steps == 12
    assert [h["step"] for h in result.history] == [0, 4, 8, 12]
    assert all(h["validation_accuracy"] < 0.2 for h in result.history)


def test_progress_is_called_once_per_step_and_sees_what_history_records(corpus):
    events = []
    result = train(corpus, seed=0, max_steps=12, eval_every=5, target_accuracy=1.0, progress=events.append)
    assert [e["step"] for e in events] == list(range(result.steps + 1)) == list(range(13))
    assert all(e["max_steps"] == 12 for e in events) and [e["done"] for e in events] == [False] * 12 + [True]
    measured = [
        (e["step"], e["loss"], e["validation_accuracy"]) for e in events if e["validation_accuracy"] is not None
    ]
    assert measured == [(h["step"], h["loss"], h["validation_accuracy"]) for h in result.history]
    assert [step for step, _, _ in measured] == [0, 5, 10, 12]
    assert result.settings["seed"] == 0 and result.settings["max_steps"] == 12 and result.settings["dtype"] == "float32"
    with pytest.raises(TypeError, match="progress must be a function"):
        train(corpus, max_steps=1, progress="tqdm")


def test_blank_attention_rows_are_distributions(corpus, trained):
    weights = blank_attention(trained.params, trained.config, corpus.test)
    config, split = trained.config, corpus.test
    assert weights.shape == (config.n_layers, config.n_heads, len(split), corpus.max_len)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-5)
    after_blank = np.arange(corpus.max_len)[None, :] > split.blank[:, None]
    assert (weights[:, :, after_blank] == 0).all()  # the causal mask: nothing after the blank


# --- bad input ------------------------------------------------------------------------------------


def test_bad_input_errors_name_the_argument(corpus):
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model=8, n_heads=2)
    params = init_params(config)
    tokens, blank = corpus.test.tokens[:3], corpus.test.blank[:3]
    with pytest.raises(ValueError, match="n_heads=3 does not divide d_model=8"):
        TinyConfig(10, 5, d_model=8, n_heads=3)
    with pytest.raises(ValueError, match="vocab_size=0"):
        TinyConfig(0, 5)
    with pytest.raises(TypeError, match="config must be a TinyConfig"):
        init_params({"d_model": 8})
    with pytest.raises(ValueError, match="token ids must lie in"):
        forward(params, config, tokens + 100, blank)
    with pytest.raises(ValueError, match="tokens must be a 2-D integer array"):
        forward(params, config, tokens.astype(float), blank)
    with pytest.raises(ValueError, match="max_len"):
        forward(params, config, np.zeros((2, corpus.max_len + 1), dtype=int), np.zeros(2, dtype=int))
    with pytest.raises(ValueError, match="blank must be a 1-D integer array"):
        forward(params, config, tokens, blank[:2])
    with pytest.raises(ValueError, match="blank positions must lie in"):
        forward(params, config, tokens, blank + corpus.max_len)
    with pytest.raises(ValueError, match="blocked positions must lie in"):
        attention_mask(4, np.array([4]))
    with pytest.raises(ValueError, match="role='tomorrow'"):
        role_attention(params, config, corpus.test, "tomorrow")
    with pytest.raises(ValueError, match="scope='everywhere'"):
        ablation_accuracy(params, config, corpus.test, "today", scope="everywhere")
    with pytest.raises(TypeError, match="split must be a corpus Split"):
        blank_attention(params, config, tokens)
    with pytest.raises(TypeError, match="corpus must be a Corpus"):
        train("我昨天在北京吃了烤鸭")
    with pytest.raises(ValueError, match=r"lr=2 must lie in \(0, 1\)"):
        train(corpus, lr=2)
    with pytest.raises(ValueError, match="max_steps=0"):
        train(corpus, max_steps=0)


def test_bad_corpus_input():
    with pytest.raises(ValueError, match="validation_partners=3 must be even"):
        split_city_pairs(10, 3)
    with pytest.raises(ValueError, match="test_partners=1 must be even"):
        split_city_pairs(10, 2, 1)
    with pytest.raises(ValueError, match=r"validation_partners \+ test_partners = 8 must be at most n_cities - 3 = 6"):
        split_city_pairs(9, 4, 4)
    with pytest.raises(ValueError, match="distinct cities and dishes"):
        make_corpus(city_dishes=CITY_DISHES[:5] + (("北京", "炸酱面"),))
    with pytest.raises(ValueError, match="must contain {T} and {Y} exactly once"):
        make_corpus(templates=("我 昨天 在 {Y} 吃了",))
    with pytest.raises(ValueError, match="outside the vocabulary"):
        make_corpus(templates=("明天 在 {T} ， 昨天 在 {Y} ， 今天 吃了",))
    with pytest.raises(TypeError, match="templates must be a non-empty sequence"):
        make_corpus(templates="我 昨天 在 {Y} 今天 在 {T} 吃了")


# --- pictures -------------------------------------------------------------------------------------


def test_plots_draw_in_both_languages(corpus, trained):
    from matplotlib.figure import Figure

    from attn_lib.i18n import t
    from attn_lib.models.tiny_training import attention_during_training
    from attn_lib.pictures.training_plots import plot_ablation, plot_blank_attention, plot_training

    split = corpus.test
    weights = blank_attention(trained.params, trained.config, split)[:, :, 0, : split.blank[0] + 1]  # [L, h, n]
    tokens = corpus.decode(split.tokens[0])
    steps, today, yesterday = attention_during_training(trained, split)
    assert steps.tolist() == [step for step, _ in trained.checkpoints] and today.shape == yesterday.shape
    history = trained.history
    assert history[0]["step"] == 0 and history[-1]["step"] == trained.steps
    for lang in ("en", "zh"):
        fig = plot_blank_attention(weights, tokens, split.today[0], split.yesterday[0], lang=lang)
        assert isinstance(fig, Figure) and fig._suptitle.get_text() == t("tiny.blank_attention_title", lang)
        assert [tick.get_text() for tick in fig.axes[0].get_xticklabels()] == tokens
        fig = plot_training(
            [h["step"] for h in history],
            [h["loss"] for h in history],
            [h["validation_accuracy"] for h in history],
            steps,
            today[:, -1, 0],
            yesterday[:, -1, 0],
            lang=lang,
        )
        assert fig.axes[1].get_title() == t("tiny.attention_training_title", lang)
        loss_axis, attention_axis, accuracy_axis = fig.axes  # the twin axis comes last
        assert loss_axis.get_yscale() == "log"  # as the live curve of the notebook's first cell
        today_colour = attention_axis.get_lines()[0].get_color()
        assert accuracy_axis.get_lines()[0].get_color() != today_colour  # one colour, one meaning
        fig = plot_ablation(1.0, 0.05, 0.99, 1 / 18, lang=lang)
        assert fig.axes[0].get_ylabel() == t("tiny.test_accuracy", lang)
        labels = [text.get_text() for text in fig.axes[0].texts if text.get_gid() == "chance_label"]
        assert labels == [t("tiny.chance_value", lang, chance=1 / 18)] and "0.056" in labels[0]
        fig.canvas.draw()  # renders every label: a missing glyph would raise (conftest)
    with pytest.raises(ValueError, match="tokens has 2 entries"):
        plot_blank_attention(weights, tokens[:2])
    with pytest.raises(ValueError, match="weights must be"):
        plot_blank_attention(weights[0, 0, None, None, None], tokens)
    with pytest.raises(ValueError, match="lengths differ"):
        plot_training([0, 1], [1.0], [0.5, 0.6], [0], [0.1], [0.1])
    with pytest.raises(ValueError, match="must lie in"):
        plot_ablation(1.2, 0.0, 1.0, 0.05)


def test_bundled_font_draws_every_corpus_token():
    from matplotlib.ft2font import FT2Font

    from attn_lib.models.corpus import build_vocab
    from attn_lib.pictures.heatmaps import BUNDLED_FONT

    charmap = FT2Font(str(BUNDLED_FONT)).get_charmap()
    han = sorted({char for token in build_vocab() for char in token if "\u4e00" <= char <= "\u9fff"})
    assert len(han) > 50 and not [char for char in han if ord(char) not in charmap]
