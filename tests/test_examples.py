"""The article's data in attn_lib.examples: exact numbers, and the facts the course states about them."""

import numpy as np
import pytest

from attn_lib import examples
from attn_lib.core import softmax

# Copied by hand from the article's worked example (猫吃鱼, 4-dimensional embeddings, one row per token).
ARTICLE_EMBEDDINGS = [
    [0.1, 0.2, 0.3, 0.4],  # 猫
    [0.5, 0.6, 0.7, 0.8],  # 吃
    [0.2, 0.3, 0.1, 0.5],  # 鱼
]


def test_cat_embeddings_are_the_articles_numbers():
    x = np.array(examples.CAT_EMBEDDINGS)
    assert x.shape == (3, 4) == (len(examples.CAT_TOKENS), 4)
    assert x.tolist() == ARTICLE_EMBEDDINGS
    assert examples.CAT_TOKENS == ("猫", "吃", "鱼")


def test_article_cat_weights_are_rows_of_probabilities_without_a_causal_mask():
    w = np.array(examples.ARTICLE_CAT_WEIGHTS)
    assert w.shape == (3, 3)
    assert (w >= 0).all()
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-12)
    assert w[0, 2] != 0  # 猫 attends to 鱼, a later token: the article's matrix has no causal mask
    assert (w[np.triu_indices(3, k=1)] > 0).any()


def test_models_heads_times_d_k_is_d_model_except_gemma_and_two_gpt3_models():
    exceptions = []
    for entry in examples.MODELS:
        assert {"model", "d_model", "n_heads", "d_k", "n_layers"} <= set(entry)
        if entry["d_k"] * entry["n_heads"] != entry["d_model"]:
            exceptions.append(entry["model"])
    assert exceptions == ["GPT-3 1.3B", "GPT-3 13B", "Gemma-7B"]


def test_the_articles_own_gpt3_models_break_its_rules_as_printed_in_the_gpt3_paper():
    """Table 2.1 of Brown et al. 2020: 1.3B has 24 heads of 128 at d_model 2048, 13B 40 heads of 128 at 5140."""
    by_name = {entry["model"]: entry for entry in examples.MODELS}
    small, large = by_name["GPT-3 1.3B"], by_name["GPT-3 13B"]
    assert (small["d_model"], small["n_heads"], small["d_k"], small["n_layers"]) == (2048, 24, 128, 24)
    assert (large["d_model"], large["n_heads"], large["d_k"], large["n_layers"]) == (5140, 40, 128, 40)
    assert small["d_model"] % small["n_heads"] == 8 and large["d_model"] % large["n_heads"] == 20  # not divisible
    assert large["d_model"] % 64 == 20  # not a multiple of 64 either
    not_divisible = [entry["model"] for entry in examples.MODELS if entry["d_model"] % entry["n_heads"]]
    assert not_divisible == ["GPT-3 1.3B", "GPT-3 13B"]


def test_the_d_model_table_names_models_that_exist():
    names = {entry["model"] for entry in examples.MODELS}
    for row in examples.ARTICLE_D_MODEL_TABLE:
        assert set(row["named"]) <= names, row
        for name in row["named"]:  # the family is in the row's text ("GPT-3 (1.3B-13B)" names 1.3B, ..., 13B)
            assert name.split()[0].split("-")[0] in row["models"], (name, row["models"])
    large = next(row for row in examples.ARTICLE_D_MODEL_TABLE if row["size"] == "large")
    assert {"GPT-3 1.3B", "GPT-3 13B", "LLaMA-7B", "LLaMA-13B"} <= set(large["named"])


def test_models_include_the_facts_the_course_quotes():
    by_name = {entry["model"]: entry for entry in examples.MODELS}
    assert len(by_name) == len(examples.MODELS)
    assert (by_name["GPT-3 175B"]["n_heads"], by_name["GPT-3 175B"]["d_k"]) == (96, 128)
    assert (by_name["GPT-J 6B"]["n_heads"], by_name["GPT-J 6B"]["d_k"]) == (16, 256)
    assert (by_name["BERT-Base"]["d_model"], by_name["BERT-Base"]["n_heads"]) == (768, 12)
    assert any(entry["d_k"] != 64 for entry in examples.MODELS)  # d_k = 64 is a convention, not a rule


def test_shanghai_tokens_spell_the_sentence():
    assert "".join(examples.SHANGHAI_TOKENS) == examples.SHANGHAI_SENTENCE
    assert examples.SHANGHAI_TOKENS.index("上海") > examples.SHANGHAI_TOKENS.index("北京")
    assert "".join(examples.ANIMAL_TOKENS[:2]) == "Theanimal"
    assert " ".join(examples.ANIMAL_TOKENS) == examples.ANIMAL_SENTENCE


# --- the running 猫吃鱼 example ----------------------------------------------------------------------


def by_hand(x, w_q, w_k, w_v, allowed):
    """The worked example with plain loops: scores, scaled scores, softmax over the visible keys, output."""
    n, d_k = len(x), w_q.shape[1]
    q = [[sum(x[i][c] * w_q[c][j] for c in range(len(x[i]))) for j in range(d_k)] for i in range(n)]
    k = [[sum(x[i][c] * w_k[c][j] for c in range(len(x[i]))) for j in range(d_k)] for i in range(n)]
    v = [[sum(x[i][c] * w_v[c][j] for c in range(len(x[i]))) for j in range(w_v.shape[1])] for i in range(n)]
    weights = np.zeros((n, n))
    for i in range(n):
        scores = [sum(q[i][c] * k[j][c] for c in range(d_k)) / d_k**0.5 for j in range(n)]
        visible = [j for j in range(n) if allowed[i][j]]
        top = max(scores[j] for j in visible)
        total = sum(np.exp(scores[j] - top) for j in visible)
        for j in visible:
            weights[i, j] = np.exp(scores[j] - top) / total
    output = weights @ np.array(v)
    return weights, output


def standardised_by_hand(x):
    """Each column minus its mean over the rows, then every entry divided by one standard deviation."""
    n, d = len(x), len(x[0])
    means = [sum(x[i][c] for i in range(n)) / n for c in range(d)]
    centred = [[x[i][c] - means[c] for c in range(d)] for i in range(n)]
    std = (sum(v * v for row in centred for v in row) / (n * d)) ** 0.5  # the centred entries have mean 0
    return [[v / std for v in row] for row in centred]


def layer_norm_by_hand(row, eps=1e-5):
    mean = sum(row) / len(row)
    var = sum((v - mean) ** 2 for v in row) / len(row)
    return [(v - mean) / (var + eps) ** 0.5 for v in row]


def test_cat_example_matches_a_computation_by_hand():
    x = standardised_by_hand(ARTICLE_EMBEDDINGS)
    np.testing.assert_allclose(examples.CAT_INPUTS, x, rtol=1e-12)
    for causal in (False, True):
        ex = examples.cat_example(causal=causal)
        weights, output = by_hand(x, ex.w_q, ex.w_k, ex.w_v, ex.mask)
        np.testing.assert_allclose(ex.weights, weights, rtol=1e-12)
        np.testing.assert_allclose(ex.output, output, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(ex.scores, ex.q @ ex.k.T)
        np.testing.assert_allclose(ex.scaled_scores, ex.scores / np.sqrt(2))
        np.testing.assert_allclose(ex.x, x, rtol=1e-12)
        assert ex.x_article.tolist() == ARTICLE_EMBEDDINGS and ex.tokens == ("猫", "吃", "鱼")
        assert ex.q.shape == ex.k.shape == ex.v.shape == (3, 2) and ex.w_q.shape == (4, 2)


def test_standardising_keeps_the_differences_between_tokens_and_layer_norm_does_not():
    """Notebook 03's correction: 吃 = 猫 + 0.4, so LayerNorm (each token on its own) maps them to one vector,
    [-1.341, -0.447, 0.447, 1.341]; standardising over the tokens keeps every difference, rescaled by one number."""
    cat, eat = (layer_norm_by_hand(row) for row in ARTICLE_EMBEDDINGS[:2])
    np.testing.assert_allclose(cat, eat, atol=1e-12)
    np.testing.assert_allclose(cat, [-1.341, -0.447, 0.447, 1.341], atol=5e-4)
    np.testing.assert_allclose(np.subtract(ARTICLE_EMBEDDINGS[1], ARTICLE_EMBEDDINGS[0]), 0.4, atol=1e-12)
    x, raw = np.array(examples.CAT_INPUTS), np.array(ARTICLE_EMBEDDINGS)
    np.testing.assert_allclose(x.sum(axis=0), 0.0, atol=1e-12)  # every column centred
    assert x.var() == pytest.approx(1.0)
    ratio = (x[:, None] - x[None]) / np.where(raw[:, None] == raw[None], 1.0, raw[:, None] - raw[None])
    off = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(ratio[off], ratio[off].flat[0])  # one scale for every difference of two tokens
    for bad in ([1.0, 2.0], [[1.0, 2.0]], [[1.0, np.nan], [0.0, 1.0]]):
        with pytest.raises(ValueError, match="finite 2-D array"):
            examples.standardise_embeddings(bad)
    with pytest.raises(ValueError, match="identical rows"):
        examples.standardise_embeddings([[1.0, 2.0], [1.0, 2.0]])


@pytest.mark.parametrize("scale", [True, False])
def test_the_running_example_rows_do_not_all_pick_one_key_at_any_offered_d_k(scale):
    """The issue's property, at every d_k the widget offers, scaled and not: for the running example, and
    for any seed (the columns of the standardised X sum to 0, so the columns of Q Kᵀ do too)."""
    for d_k in examples.CAT_D_KS:
        ex = examples.cat_example(d_k)
        weights = ex.weights if scale else softmax(ex.scores)
        assert len(set(weights.argmax(axis=-1).tolist())) > 1, f"d_k = {d_k}, scale = {scale}: {weights.round(3)}"
        np.testing.assert_allclose(ex.scores.sum(axis=0), 0.0, atol=1e-9)  # why: every column sums to 0
    shared = examples.rows_share_top_key(examples.cat_weights(examples.CAT_INPUTS, range(200), scale=scale))
    assert not shared.any()


def test_with_the_raw_embeddings_the_rows_mostly_pick_one_key():
    """Why the example is standardised: with the article's X, for most seeds and at every d_k, every row's
    largest weight is on one key; at large d_k without scaling, for the course's seed, on 吃, the longest key
    (what the d_k widget's note says)."""
    raw = np.array(ARTICLE_EMBEDDINGS)
    shared = examples.rows_share_top_key(examples.cat_weights(raw, range(500)))  # [d_ks, seeds]
    assert (shared.mean(axis=1) > 0.6).all()
    assert examples.rows_share_top_key(examples.cat_weights(raw, [examples.CAT_SEED])).any()
    for d_k in (128, 256, 512):
        weights = examples.cat_weights(raw, [examples.CAT_SEED], d_ks=(d_k,), scale=False)[0, 0]
        assert weights.argmax(axis=-1).tolist() == [1, 1, 1]  # 吃
        _, w_k, _ = examples.cat_projections(d_k)
        assert np.linalg.norm(raw @ w_k, axis=-1).argmax() == 1  # 吃's key is the longest


def test_cat_example_makes_the_readable_picture_its_seed_was_chosen_for():
    """CAT_SEED's criteria at d_k = 2 without a mask: a clear winner in every row, no weight above 0.8, two rows
    at least 0.3 apart (L1), at most one row on its own token; and it is the first seed that meets them."""
    weights = examples.cat_example().weights
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)
    l1 = max(np.abs(weights[i] - weights[j]).sum() for i in range(3) for j in range(3))
    assert l1 >= 0.3
    assert examples.largest_row_distance(weights) == pytest.approx(l1)
    ranked = np.sort(weights, axis=-1)
    assert (ranked[:, -1] - ranked[:, -2]).min() >= 0.08 and weights.max() <= 0.8
    assert (weights.argmax(axis=-1) == np.arange(3)).sum() <= 1
    assert examples.CAT_SEED == 0  # the first seed tried: tools/choose_cat_seed.py


def test_cat_example_causal_version():
    ex = examples.cat_example(causal=True)
    assert np.all(ex.weights[np.triu_indices(3, k=1)] == 0)  # exactly 0 above the diagonal
    np.testing.assert_allclose(ex.weights.sum(axis=-1), 1.0)
    np.testing.assert_array_equal(ex.mask, np.tril(np.ones((3, 3), dtype=bool)))
    np.testing.assert_allclose(ex.weights[2], examples.cat_example().weights[2])  # the last token sees everything


def test_cat_projections_grow_by_columns_and_have_variance_one_over_d_model():
    small, large = examples.cat_projections(2), examples.cat_projections(64, d_v=5)
    for w_small, w_large in zip(small, large, strict=True):
        np.testing.assert_array_equal(w_small, w_large[:, : w_small.shape[1]])
    assert [w.shape for w in large] == [(4, 64), (4, 64), (4, 5)]
    for w_a, w_b in zip(
        examples.cat_projections(2), examples.cat_projections(2, seed=examples.CAT_SEED + 1), strict=True
    ):
        assert not np.allclose(w_a, w_b)
    widest = np.concatenate(examples.cat_projections(512)).ravel()  # 3 x 4 x 512 entries drawn from N(0, 1/4)
    assert abs(widest.var() - 0.25) < 0.02 and abs(widest.mean()) < 0.02
    for bad in (0, 513, 2.0, True):
        with pytest.raises(ValueError, match="d_k must be an integer from 1 to 512"):
            examples.cat_projections(bad)


def test_article_x_rows_are_nearly_parallel_and_random_projections_keep_them_alike():
    """Cosines 0.91-0.97 between the rows of the article's X, so most random projections give rows of weights
    that barely differ; standardised, most give rows that differ."""
    cosines = examples.row_cosines(ARTICLE_EMBEDDINGS)
    a, b = np.array(ARTICLE_EMBEDDINGS[0]), np.array(ARTICLE_EMBEDDINGS[1])
    assert cosines[0, 1] == pytest.approx(a @ b / np.sqrt((a @ a) * (b @ b)))
    np.testing.assert_allclose(np.diag(cosines), 1.0)
    off_diagonal = cosines[~np.eye(3, dtype=bool)]
    assert off_diagonal.min() > 0.90 and off_diagonal.max() < 0.97
    raw = examples.projection_spreads(range(500), x=ARTICLE_EMBEDDINGS)
    standardised = examples.projection_spreads(range(500))
    assert np.median(raw) < 0.3 < np.median(standardised)
    assert examples.projection_spreads([examples.CAT_SEED])[0] == pytest.approx(
        examples.largest_row_distance(examples.cat_example().weights)
    )


def test_row_helpers_reject_bad_input():
    assert examples.largest_row_distance([[1.0, 0.0], [0.0, 1.0]]) == 2.0
    with pytest.raises(ValueError, match="at least 2 rows"):
        examples.largest_row_distance([[1.0, 0.0]])
    with pytest.raises(ValueError, match="row of zeros"):
        examples.row_cosines([[1.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="finite 2-D array"):
        examples.row_cosines([1.0, 2.0])


def test_the_d_model_facts_notebook_03_prints():
    """What notebook 03 prints and says about the article's table and its rules, pinned here instead of there."""
    by_name = {entry["model"]: entry for entry in examples.MODELS}
    widths = {name: entry["d_model"] for name, entry in by_name.items()}
    assert sorted(name for name, width in widths.items() if width % 64) == ["GPT-3 13B", "TinyBERT-4L-312D"]
    assert widths["TinyBERT-4L-312D"] == 12 * 26 and widths["TinyBERT-4L-312D"] % 64 == 56
    assert sorted({entry["d_k"] for entry in examples.MODELS} - {64}) == [26, 32, 80, 96, 128, 256]
    gemma = by_name["Gemma-7B"]
    assert (gemma["n_heads"], gemma["d_model"] // gemma["n_heads"], gemma["d_k"]) == (16, 192, 256)
    ranges = {}
    for row in examples.ARTICLE_D_MODEL_TABLE:
        low, _, high = row["d_model"].partition("-")
        ranges[row["size"]] = (int(low), int(high or low))
    assert ranges == {"small": (768, 768), "medium": (1024, 1280), "large": (1600, 5120), "very large": (6656, 12288)}
    unnamed = []  # range ends whose models the row does not name
    for row in examples.ARTICLE_D_MODEL_TABLE:
        for end in sorted(set(ranges[row["size"]])):
            at_end = {name for name, width in widths.items() if width == end}
            assert at_end, f"no model in MODELS has the width {end}"
            if not at_end & set(row["named"]):
                unnamed.append((end, sorted(at_end)))
    assert unnamed == [(1280, ["GPT-2 Large"]), (1600, ["GPT-2 XL"]), (6656, ["LLaMA-33B"])]

    def row_of(width):
        return next((size for size, (low, high) in ranges.items() if low <= width <= high), None)

    outside = [
        name for row in examples.ARTICLE_D_MODEL_TABLE for name in row["named"] if row_of(widths[name]) != row["size"]
    ]
    assert outside == ["GPT-3 13B"]  # 5140 > 5120, the end of the row that names it
    assert row_of(widths["GPT-NeoX-20B"]) is None and row_of(widths["GPT-3 13B"]) is None
