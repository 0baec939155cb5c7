"""The counted next-token model, checked against counts made by hand on a corpus built here."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib.examples import SHANGHAI_TOKENS, TINY_CORPUS, WEATHER_CONTINUATIONS
from attn_lib.models.ngram import count_next_tokens, next_token_distribution

# A corpus small enough to count by hand:
#   "a b c" x3, "a b d" x1, "x b c" x2, "a b" x5 (nothing follows the final b), "c a b d" x1
CORPUS = (
    ("a b c", 3),
    ("a b d", 1),
    (("x", "b", "c"), 2),
    ("a b", 5),
    ("c a b d", 1),
)


def test_bigram_counts_by_hand():
    # after "b": c in "a b c" (3) and "x b c" (2) = 5; d in "a b d" (1) and "c a b d" (1) = 2
    assert count_next_tokens(CORPUS, "b", 2) == {"c": 5, "d": 2}


def test_trigram_sees_one_more_token():
    # after "a b": c 3, d 1 + 1 = 2; "x b c" no longer counts, and "a b" x5 has no next token
    assert count_next_tokens(CORPUS, "z a b", 3) == {"c": 3, "d": 2}
    assert count_next_tokens(CORPUS, ["x", "b"], 3) == {"c": 2}


def test_unigram_counts_every_token_and_ignores_context():
    expected = {"b": 12, "a": 10, "c": 6, "d": 2, "x": 2}
    assert count_next_tokens(CORPUS, "", 1) == expected
    assert count_next_tokens(CORPUS, "anything at all", 1) == expected


def test_counts_never_cross_sentences():
    # "c" ends sentences and "a" starts one, but "c a" only occurs inside "c a b d"
    assert count_next_tokens(CORPUS, "c", 2) == {"a": 1}


def test_unseen_context_gives_no_counts_and_no_distribution():
    assert count_next_tokens(CORPUS, "d", 2) == {}
    with pytest.raises(ValueError, match="never occurs"):
        next_token_distribution(CORPUS, "q a", 3)


def test_keys_sorted_by_count_ties_by_first_occurrence():
    corpus = (("s y", 1), ("s z", 2), ("s w", 1))
    assert list(count_next_tokens(corpus, "s", 2)) == ["z", "y", "w"]


def test_distribution_is_counts_over_total():
    tokens, probs = next_token_distribution(CORPUS, "b", 2)
    assert tokens == ("c", "d")
    assert probs.dtype == np.float64 and probs.shape == (2,)
    np.testing.assert_allclose(probs, [5 / 7, 2 / 7])


def test_tiny_corpus_weather_example():
    weather = [(s, c) for s, c in TINY_CORPUS if s.split()[:2] == ["今天", "天气"]]
    expected = {}
    for sentence, count in weather:
        expected[sentence.split()[2]] = expected.get(sentence.split()[2], 0) + count
    tokens, probs = next_token_distribution(TINY_CORPUS, "今天 天气", 3)
    assert set(tokens) == {"很好", "不错", "真热"}
    np.testing.assert_allclose(probs, [expected[t] / sum(expected.values()) for t in tokens])


def test_tiny_corpus_gives_notebook_01s_numbers():
    """The exact numbers notebook 01 prints (and its text states), pinned here rather than in the notebook."""
    assert sum(count for _, count in TINY_CORPUS) == 33
    assert len({token for sentence, _ in TINY_CORPUS for token in sentence.split()}) == 22
    tokens, probs = next_token_distribution(TINY_CORPUS, "今天 天气", 3)
    assert tokens == WEATHER_CONTINUATIONS and probs.tolist() == [0.5, 0.3, 0.2]
    tokens, probs = next_token_distribution(TINY_CORPUS, "今天 天气", 2)  # 天气 alone: 昨天/明天 count too
    assert tokens == WEATHER_CONTINUATIONS
    np.testing.assert_allclose(probs, [6 / 13, 5 / 13, 2 / 13], rtol=1e-15)
    bigram = count_next_tokens(TINY_CORPUS, "今天 在 北京 吃了", 2)
    assert bigram == {"烤鸭": 6, "小笼包": 6, "火锅": 4, "肉夹馍": 2, "热干面": 2}
    for city in ("上海", "成都"):
        assert count_next_tokens(TINY_CORPUS, f"今天 在 {city} 吃了", 2) == bigram
    assert count_next_tokens(TINY_CORPUS, list(SHANGHAI_TOKENS), 2) == bigram
    assert count_next_tokens(TINY_CORPUS, "今天 在 上海 吃了", 3) == {"小笼包": 4}
    for city in ("北京", "上海", "成都"):
        assert count_next_tokens(TINY_CORPUS, f"今天 在 {city} 和 朋友 吃了", 3) == {"烤鸭": 2, "小笼包": 2, "火锅": 1}
    prompt = "今天 在 上海 和 朋友 吃了"
    assert count_next_tokens(TINY_CORPUS, prompt, 4) == {"烤鸭": 2, "小笼包": 2, "火锅": 1}
    assert count_next_tokens(TINY_CORPUS, prompt, 5) == count_next_tokens(TINY_CORPUS, prompt, 6) == {"小笼包": 2}
    assert count_next_tokens(TINY_CORPUS, prompt, 7) == {}


@settings(deadline=None, max_examples=50)
@given(
    st.lists(
        st.tuples(st.lists(st.sampled_from("abcd"), min_size=1, max_size=6), st.integers(1, 5)), min_size=1, max_size=8
    ),
    st.lists(st.sampled_from("abcd"), min_size=2, max_size=4),
    st.integers(1, 3),
)
def test_matches_plain_loop_and_sums_to_one(corpus, context, order):
    corpus = [(tuple(tokens), count) for tokens, count in corpus]
    window = tuple(context[len(context) - (order - 1) :])
    expected = {}
    for tokens, count in corpus:  # spec: every position whose preceding n - 1 tokens equal the window
        for j in range(order - 1, len(tokens)):
            if tokens[j - (order - 1) : j] == window:
                expected[tokens[j]] = expected.get(tokens[j], 0) + count
    assert count_next_tokens(corpus, context, order) == expected
    if expected:
        tokens, probs = next_token_distribution(corpus, context, order)
        np.testing.assert_allclose(probs.sum(), 1.0)
        np.testing.assert_allclose(probs, [expected[t] / sum(expected.values()) for t in tokens])
        assert all(np.diff(probs) <= 1e-12)  # most likely first


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"order": 0}, ValueError, "order=0 must be at least 1"),
        ({"order": 2.0}, TypeError, "order must be a positive integer"),
        ({"order": True}, TypeError, "order must be a positive integer"),
        ({"order": 4}, ValueError, "context has 2 token"),
        ({"context": 3}, TypeError, "context must be a string"),
        ({"context": ["a", ""]}, TypeError, "context must be a string"),
        ({"corpus": "a b c"}, TypeError, "corpus must be a list/tuple"),
        ({"corpus": ()}, ValueError, "corpus is empty"),
        ({"corpus": (("a b", 1), "a b")}, TypeError, r"corpus\[1\] must be a \(sentence, count\) pair"),
        ({"corpus": (("a b", 0),)}, ValueError, r"corpus\[0\] has count 0"),
        ({"corpus": (("a b", 1.5),)}, ValueError, r"corpus\[0\] has count 1.5"),
        ({"corpus": ((["a", 2], 1),)}, TypeError, r"corpus\[0\]\[0\] must be a string"),
    ],
)
def test_bad_input_gets_a_clear_error(kwargs, error, pattern):
    args = {"corpus": CORPUS, "context": "a b", "order": 2, **kwargs}
    with pytest.raises(error, match=pattern):
        count_next_tokens(**args)
    with pytest.raises(error, match=pattern):
        next_token_distribution(**args)
