"""attn_lib.sampling: greedy, temperature, top-k, top-p and the seeded sampler, each against its stated rule.

A plain-loop spec for each filter (the rule as the module docstring writes it, token by token) is
compared with the vectorised function on random logits, with and without ties; the worked example of
top-p; what temperature does; the sampler's draws against its distribution; and the errors at the
boundary. The comparison with Hugging Face's warpers is in test_sampling_hf.py.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from attn_lib import softmax
from attn_lib.sampling import (
    apply_temperature,
    greedy,
    sample,
    sampler,
    sampling_distribution,
    top_k_filter,
    top_p_filter,
)

FAST = settings(deadline=None, max_examples=60)
rows = hnp.arrays(np.float64, st.integers(1, 9), elements=st.integers(-4, 4).map(float))  # small integers: ties


# --- plain-loop specs: the rules as the docstring states them ------------------------------------------


def spec_top_k(z, k):
    """Keep token j when fewer than k logits are larger than z_j."""
    return np.array([z[j] if sum(z_i > z[j] for z_i in z) < k else -np.inf for j in range(len(z))])


def spec_top_p(z, p):
    """Keep token j when the tokens more likely than j hold less than p (everything when p = 1)."""
    probs = softmax(z)
    kept = [p == 1 or sum(probs[i] for i in range(len(z)) if probs[i] > probs[j]) < p for j in range(len(z))]
    return np.where(kept, z, -np.inf)


@FAST
@given(z=rows, k=st.integers(1, 10))
def test_top_k_follows_its_rule_ties_included(z, k):
    got = top_k_filter(z, k)
    np.testing.assert_array_equal(got, spec_top_k(z, k))
    assert np.isfinite(got).sum() >= min(k, len(z))  # ties can keep more than k, never fewer


@FAST
@given(z=rows, p=st.floats(0.01, 1.0))
def test_top_p_follows_its_rule_ties_included(z, p):
    got = top_p_filter(z, p)
    expected = spec_top_p(z, p)
    # the rule compares a sum with p: allow rounding to decide where the sum is within 1e-12 of p
    probs = softmax(z)
    ahead = np.array([probs[probs > probs[j]].sum() for j in range(len(z))])
    decided = np.abs(ahead - p) > 1e-12
    np.testing.assert_array_equal(got[decided], expected[decided])
    kept = np.isfinite(got)
    assert probs[kept].sum() >= p - 1e-12  # the kept tokens reach p ...
    assert kept[np.argmax(z)]  # ... and the most likely token is always among them


def test_top_k_and_top_p_on_continuous_logits_keep_the_smallest_set():
    rng = np.random.default_rng(0)
    for _ in range(200):
        z = rng.normal(0.0, 2.0, 30)
        k, p = int(rng.integers(1, 30)), float(rng.uniform(0.05, 0.99))
        assert np.isfinite(top_k_filter(z, k)).sum() == k  # no ties: exactly k
        kept = np.sort(softmax(z)[np.isfinite(top_p_filter(z, p))])[::-1]  # decreasing
        assert kept.sum() >= p and kept[:-1].sum() < p  # without the last one kept, p is not reached


def test_top_p_worked_example_of_the_docstring():
    z = np.log([0.5, 0.3, 0.2])
    np.testing.assert_allclose(sampling_distribution(z, top_p=0.6), [0.625, 0.375, 0.0])  # 0.3 crosses p: kept
    np.testing.assert_allclose(sampling_distribution(z, top_p=0.5), [1.0, 0.0, 0.0])  # 0.5 reaches p alone
    np.testing.assert_allclose(sampling_distribution(z, top_p=0.81), [0.5, 0.3, 0.2])
    np.testing.assert_allclose(sampling_distribution(z, top_p=1.0), [0.5, 0.3, 0.2])


def test_ties_are_kept_together_and_do_not_depend_on_token_order():
    z = np.array([3.0, 2.0, 2.0, 2.0, 1.0])
    assert np.isfinite(top_k_filter(z, 2)).tolist() == [True, True, True, True, False]  # 3 tied with the 2nd
    assert np.isfinite(top_k_filter(z, 1)).tolist() == [True, False, False, False, False]
    probs = softmax(z)
    p = probs[0] + 0.5 * probs[1]  # crossed inside the tie: the whole tie stays
    assert np.isfinite(top_p_filter(z, p)).tolist() == [True, True, True, True, False]
    perm = np.array([4, 2, 0, 3, 1])  # the same logits under other token ids: the same tokens kept
    for k in range(1, 6):
        np.testing.assert_array_equal(top_k_filter(z[perm], k), top_k_filter(z, k)[perm])
        np.testing.assert_array_equal(top_p_filter(z[perm], 0.1 * k + 0.05), top_p_filter(z, 0.1 * k + 0.05)[perm])


def test_filters_work_row_by_row_and_keep_the_dtype():
    rng = np.random.default_rng(1)
    z = rng.normal(size=(2, 3, 11)).astype(np.float32)  # [batch, rows, V]
    for name, fn, arg in (("top-k", top_k_filter, 4), ("top-p", top_p_filter, 0.7)):
        got = fn(z, arg)
        assert got.dtype == np.float32 and got.shape == z.shape, name
        for index in np.ndindex(z.shape[:-1]):
            np.testing.assert_array_equal(got[index], fn(z[index], arg), err_msg=name)
    assert apply_temperature(z, 0.5).dtype == np.float32
    np.testing.assert_array_equal(greedy(z), z.argmax(-1))


def test_filters_compose_and_an_already_filtered_token_stays_out():
    z = np.array([2.0, -np.inf, 1.0, 0.5, -np.inf])
    assert np.isneginf(top_k_filter(z, 4)[[1, 4]]).all() and np.isfinite(top_k_filter(z, 4)[[0, 2, 3]]).all()
    assert np.isneginf(top_p_filter(z, 0.99)[[1, 4]]).all()
    probs = sampling_distribution(z, temperature=0.7, top_k=2, top_p=0.99)
    assert probs.sum() == pytest.approx(1.0) and (probs > 0).tolist() == [True, False, True, False, False]


def test_greedy_takes_the_largest_and_the_lowest_id_among_ties():
    assert greedy([0.1, 2.0, -1.0]) == 1 and isinstance(greedy([0.1, 2.0]), int)
    assert greedy([1.0, 3.0, 3.0, -np.inf]) == 1


# --- temperature ---------------------------------------------------------------------------------------


def test_temperature_divides_the_logits():
    z = np.array([2.0, 1.0, 0.0, -1.0])
    np.testing.assert_allclose(apply_temperature(z, 0.5), z / 0.5)
    np.testing.assert_allclose(sampling_distribution(z, temperature=0.5), softmax(z / 0.5))
    p = softmax(z)  # on the probabilities it is a power: softmax(z / T) is p^(1/T), renormalised
    np.testing.assert_allclose(sampling_distribution(z, temperature=2.0), p**0.5 / (p**0.5).sum())
    assert sampling_distribution(z, temperature=1e-3)[0] == pytest.approx(1.0)  # T -> 0: greedy
    np.testing.assert_allclose(sampling_distribution(z, temperature=1e4), 0.25, atol=1e-3)  # T -> inf: uniform
    np.testing.assert_allclose(sampling_distribution(z + 100.0, temperature=0.3), sampling_distribution(z, 0.3))


def test_top_k_ignores_temperature_and_top_p_does_not():
    z = np.array([3.0, 2.5, 1.0, 0.0, -0.5])
    for t in (0.3, 1.0, 3.0):
        np.testing.assert_array_equal(np.isfinite(top_k_filter(apply_temperature(z, t), 2)), z >= 2.5)
    kept = [np.isfinite(top_p_filter(apply_temperature(z, t), 0.9)).sum() for t in (0.3, 1.0, 3.0)]
    assert kept == sorted(kept) and kept[0] < kept[-1]  # a flatter distribution needs more tokens to reach p


# --- the sampler ----------------------------------------------------------------------------------------


def test_sampled_frequencies_match_the_distribution():
    z = np.array([2.0, 1.0, 0.0, -1.0, -np.inf])
    pick = sampler(seed=7)
    draws = np.array([pick(z) for _ in range(6000)])
    freq = np.bincount(draws, minlength=5) / len(draws)
    np.testing.assert_allclose(freq, softmax(z), atol=0.02)
    assert freq[4] == 0.0  # a token of probability 0 is never drawn


def test_a_filtered_out_token_is_never_drawn():
    rng = np.random.default_rng(3)
    z = rng.normal(size=(400, 12))  # 400 rows drawn at once
    allowed = np.isfinite(top_p_filter(top_k_filter(z, 5), 0.8))
    ids = sample(z, rng, top_k=5, top_p=0.8)
    assert ids.shape == (400,) and allowed[np.arange(400), ids].all()


def test_the_same_seed_draws_the_same_tokens():
    z = np.random.default_rng(0).normal(size=20)
    first = [sampler(seed=5, temperature=1.3, top_k=8)(z) for _ in range(3)]
    assert len(set(first)) == 1  # a fresh sampler with the same seed: the same first draw
    a, b = sampler(seed=5), sampler(seed=5)
    assert [a(z) for _ in range(30)] == [b(z) for _ in range(30)]
    c, d = sampler(seed=5), sampler(seed=6)
    assert [c(z) for _ in range(30)] != [d(z) for _ in range(30)]  # another seed, other draws


def test_one_token_and_one_row():
    assert sample([0.0], np.random.default_rng(0)) == 0
    assert top_p_filter([1.5], 0.3).tolist() == [1.5] and top_k_filter([1.5], 3).tolist() == [1.5]


# --- errors at the boundary -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: apply_temperature([1.0, 2.0], 0), ValueError, "temperature=0 must be a finite number > 0"),
        (lambda: apply_temperature([1.0, 2.0], -1.0), ValueError, "temperature=-1.0"),
        (lambda: apply_temperature([1.0, 2.0], float("nan")), ValueError, "temperature=nan"),
        (lambda: apply_temperature([1.0, 2.0], "hot"), TypeError, "temperature must be a positive number"),
        (lambda: apply_temperature([1.0, 2.0], True), TypeError, "temperature must be a positive number"),
        (lambda: top_k_filter([1.0, 2.0], 0), ValueError, "k=0 must be a positive integer"),
        (lambda: top_k_filter([1.0, 2.0], 1.5), TypeError, "k must be a positive integer"),
        (lambda: top_p_filter([1.0, 2.0], 0.0), ValueError, "p=0.0 must lie in (0, 1]"),
        (lambda: top_p_filter([1.0, 2.0], 1.5), ValueError, "p=1.5 must lie in (0, 1]"),
        (lambda: sampling_distribution([1.0, 2.0], top_p=2), ValueError, "top_p=2 must lie in (0, 1]"),
        (lambda: sampling_distribution([1.0, 2.0], top_k=-3), ValueError, "top_k=-3 must be a positive integer"),
        (lambda: greedy([1.0, np.nan]), ValueError, "logits contains NaN"),
        (lambda: greedy([1.0, np.inf]), ValueError, "logits contains inf"),
        (lambda: greedy(3.0), ValueError, "logits must have at least 1 dimensions"),
        (lambda: greedy(np.zeros((2, 0))), ValueError, "the vocabulary axis (the last) must hold at least one token"),
        (lambda: greedy("今天"), TypeError, "logits must be an array"),
        (lambda: greedy([[0.0, 1.0], [-np.inf, -np.inf]]), ValueError, "logits[1] is -inf for every token"),
        (lambda: sample([0.0, 1.0], rng=0), TypeError, "rng must be a numpy Generator"),
        (lambda: sampler(seed=-1), ValueError, "seed=-1 must be a non-negative integer"),
        (lambda: sampler(temperature=0), ValueError, "temperature=0"),
        (lambda: sampler(top_k=0), ValueError, "top_k=0"),
    ],
)
def test_bad_input_is_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    assert words in str(info.value)
