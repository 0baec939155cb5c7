"""Notebook 11's checker: each classic mistake in the online-softmax update gets its own diagnosis.

A correct learner-style update passes, in float64 and float32; chaining the checker's own update over the
blocks of a row gives softmax(s) @ v, as tiled_attention does; every wrong version below is diagnosed with
exactly the i18n key next to it (test_exercises.py counts these keys when it asks that every diagnosis is
reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.efficient import tiled_attention
from attn_lib.exercises.efficient import _online_update as online_update
from attn_lib.i18n import t


def learner_update(m, ell, o, s, v, alpha_of=None, own_max=False, forget=False, rescale=("l", "o"), divide=False):
    """The update as the notebook writes it; the keyword arguments make the classic mistakes."""
    m_new = s.max(axis=-1) if forget else np.maximum(m, s.max(axis=-1))
    alpha = np.exp(m - m_new) if alpha_of is None else alpha_of(m, m_new)
    p = np.exp(s - (s.max(axis=-1, keepdims=True) if own_max else m_new[:, None]))
    ell_new = (alpha * ell if "l" in rescale else ell) + p.sum(axis=-1)
    o_new = (alpha[:, None] * o if "o" in rescale else o) + p @ v
    return m_new, ell_new, o_new / ell_new[:, None] if divide else o_new


WRONG = [
    ("online_update", "online_no_rescale", lambda *a: learner_update(*a, rescale=())),
    (
        "online_update",
        "online_alpha_inverted",
        lambda *a: learner_update(*a, alpha_of=lambda m, m_new: np.exp(m_new - m)),
    ),
    ("online_update", "online_half_rescaled", lambda *a: learner_update(*a, rescale=("l",))),
    ("online_update", "online_half_rescaled", lambda *a: learner_update(*a, rescale=("o",))),
    ("online_update", "online_block_max", lambda *a: learner_update(*a, own_max=True)),
    ("online_update", "online_max_forgotten", lambda *a: learner_update(*a, forget=True)),
    ("online_update", "online_normalised", lambda *a: learner_update(*a, divide=True)),
    ("online_update", "online_not_triple", lambda *a: learner_update(*a)[1:]),
    ("online_update", "online_part_shape", lambda *a: (*learner_update(*a)[:2], learner_update(*a)[2].T)),
    ("online_update", "online_part_wrong", lambda *a: (*learner_update(*a)[:2], learner_update(*a)[2] + 1.0)),
]


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}-{i}" for i, (e, k, _) in enumerate(WRONG)])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(ex.run_online_update_checks, ex.check_online_update, fn, key, capsys)


def test_the_half_rescaled_diagnosis_names_what_was_missed():
    result = ex.run_online_update_checks(lambda *a: learner_update(*a, rescale=("l",)))
    assert (result.fields["done"], result.fields["missed"]) == ("ell", "o")


def test_learner_code_passes_in_float64_and_float32(capsys):
    assert ex.check_online_update(learner_update, lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t('exercises.title_online_update', 'en')}:") and out.count("\n") == 1

    def in_float32(*args):
        return learner_update(*(a.astype(np.float32) for a in args))

    assert ex.run_online_update_checks(in_float32).ok


@pytest.mark.parametrize("block", [1, 3, 7, 20])
def test_chained_updates_are_attention_over_the_whole_row(block):
    rng = np.random.default_rng(block)
    q, k, v = rng.normal(size=(4, 3)), rng.normal(size=(13, 3)), rng.normal(size=(13, 2))
    s = q @ k.T / np.sqrt(3)  # [4, 13]
    state = (np.full(4, -np.inf), np.zeros(4), np.zeros((4, 2)))
    for start in range(0, 13, block):
        state = online_update(*state, s[:, start : start + block], v[start : start + block])
    m, ell, o = state
    expected, _ = scaled_dot_product_attention(q, k, v)
    np.testing.assert_allclose(o / ell[:, None], expected, rtol=1e-12)
    np.testing.assert_allclose(o / ell[:, None], tiled_attention(q, k, v, block_k=block), rtol=1e-10)
    np.testing.assert_allclose(m, s.max(axis=-1))
