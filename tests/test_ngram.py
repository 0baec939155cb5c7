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


# --- every token scored (notebook 13): windows padded with <bos>, add-one, interpolation, perplexity ------

from attn_lib.models.ngram import (  # noqa: E402
    add_one_log_probs,
    count_windows,
    fit_interpolation,
    interpolated_log_probs,
    interpolation_parts,
    most_likely_next,
    perplexity,
    windows,
)

VOCAB = ("a", "b", "c", "d", "x")  # every token that can come next (V = 5)


def test_windows_pad_the_start_with_the_begin_marker():
    assert windows(("a", "b", "c"), 3) == [(("<bos>", "<bos>"), "a"), (("<bos>", "a"), "b"), (("a", "b"), "c")]
    assert windows(("a", "b"), 1) == [((), "a"), ((), "b")]


def test_window_counts_by_hand():
    table = count_windows(CORPUS, 2)
    assert table[("<bos>",)] == {"a": 3 + 1 + 5, "x": 2, "c": 1}  # the first token of each sentence
    assert table[("b",)] == {"c": 5, "d": 2}  # as count_next_tokens: the b at a sentence's end predicts nothing
    assert sum(sum(row.values()) for row in count_windows(CORPUS, 3).values()) == 3 * 3 + 3 + 2 * 3 + 5 * 2 + 4


def test_add_one_by_hand():
    # "a b d" under the bigram: P(a|<bos>) = (9+1)/(12+5), P(b|a) = (10+1)/(10+5), P(d|b) = (2+1)/(7+5)
    got = add_one_log_probs(CORPUS, [("a b d", 1)], 2, VOCAB)
    np.testing.assert_allclose(np.exp(got), [10 / 17, 11 / 15, 3 / 12])
    unseen = add_one_log_probs(CORPUS, [("d d", 2)], 2, VOCAB)  # (d, d) never seen; the window (d,) never either
    np.testing.assert_allclose(np.exp(unseen), [1 / 17, 1 / 17, 1 / 5, 1 / 5])  # the count 2 repeats each token
    for first in ("a", "b", "d"):  # P(w | first) over every w is a distribution (d: a window never seen)
        total = sum(np.exp(add_one_log_probs(CORPUS, [(f"{first} {w}", 1)], 2, VOCAB)[-1]) for w in VOCAB)
        assert total == pytest.approx(1.0), first


def test_interpolation_parts_fall_back_on_unseen_windows():
    parts = interpolation_parts(CORPUS, [("x b d", 1)], 3, VOCAB)  # [3 tokens, trigram, bigram, unigram, uniform]
    unigram_x = 2 / sum(sum(r.values()) for r in count_windows(CORPUS, 1).values())
    np.testing.assert_allclose(parts[0], [2 / 12, 2 / 12, unigram_x, 1 / 5])  # x after (<bos>, <bos>) / (<bos>,)
    np.testing.assert_allclose(parts[1], [1.0, 1.0, parts[1][2], 1 / 5])  # b after (<bos>, x): 2 of 2
    np.testing.assert_allclose(parts[2][:2], [0.0, 2 / 7])  # d after (x, b): never; after (b,): 2 of 7
    unseen = interpolation_parts(CORPUS, [("d d", 1)], 3, VOCAB)[1]  # (<bos>, d) and (d,) were never seen
    assert unseen[0] == unseen[1] == unseen[2]  # both fall back to the unigram


def test_fit_interpolation_picks_the_weights_of_lowest_loss():
    parts = np.array([[0.9, 0.5, 0.2], [0.0, 0.4, 0.2], [0.8, 0.6, 0.2]])
    weights = fit_interpolation(parts, step=0.1)
    grid = [(a, b, 1 - a - b) for a in np.arange(0, 1.01, 0.1) for b in np.arange(0, 1.01, 0.1) if a + b <= 0.999]
    best = min(grid, key=lambda w: -np.log(parts @ np.array(w)).mean())
    np.testing.assert_allclose(weights, best, atol=1e-9)
    assert weights[-1] >= 0.001 and weights.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(interpolated_log_probs(parts, weights), np.log(parts @ weights))


def test_perplexity_is_the_exponent_of_the_mean_loss():
    assert perplexity(np.log([0.25, 0.25, 0.25])) == pytest.approx(4.0)  # as unsure as 4 equally likely tokens
    assert perplexity(np.log([0.5, 0.125])) == pytest.approx(4.0)  # a geometric mean
    with pytest.raises(ValueError, match="non-empty 1-D"):
        perplexity([])


def test_most_likely_next_and_unseen_windows():
    table = count_windows(CORPUS, 3)
    assert most_likely_next(table, "z a b", 3) == "c" and most_likely_next(table, "q q", 3) is None
    assert most_likely_next(count_windows(CORPUS, 2), [], 2) == "a"  # the first token: a starts 9 of 12


def test_a_token_outside_the_vocabulary_is_named():
    with pytest.raises(ValueError, match=r"\['q'\] of the sentences are not in the vocabulary"):
        add_one_log_probs(CORPUS, [("a q", 1)], 2, VOCAB)
    with pytest.raises(TypeError, match="vocabulary must be a collection"):
        interpolation_parts(CORPUS, [("a", 1)], 2, "abcdx")
