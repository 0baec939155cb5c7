"""The article's data in attn_lib.examples: exact numbers, and the facts the course states about them."""

import numpy as np

from attn_lib import examples

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


def test_models_heads_times_d_k_is_d_model_except_gemma():
    exceptions = []
    for entry in examples.MODELS:
        assert {"model", "d_model", "n_heads", "d_k", "n_layers"} <= set(entry)
        if entry["d_k"] * entry["n_heads"] != entry["d_model"]:
            exceptions.append(entry["model"])
    assert exceptions == ["Gemma-7B"]


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
