"""attn_lib.position: the sinusoidal table and RoPE against plain loops of the papers' formulas, and their properties.

The properties the notebook teaches are tested on many positions: a sinusoidal P_m . P_n depends only
on m - n; PE(pos + k) is a fixed rotation of PE(pos); RoPE keeps lengths and makes q_m . k_n depend
only on m - n, for any q, k and any offset.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import scaled_dot_product_attention
from attn_lib.position import (
    add_positions,
    frequencies,
    halves_permutation,
    rope,
    rope_halves,
    rope_matrix,
    sinusoidal_encoding,
)


def sinusoid_spec(n, d, base=10000.0):
    """Vaswani et al. 2017, section 3.5, as loops: PE(pos, 2i) = sin(pos / base^(2i/d)), PE(pos, 2i+1) = cos(...)."""
    table = [[0.0] * d for _ in range(n)]
    for pos in range(n):
        for i in range(d // 2):
            angle = pos / base ** (2 * i / d)
            table[pos][2 * i] = math.sin(angle)
            table[pos][2 * i + 1] = math.cos(angle)
    return table


def rope_spec(x, positions, base=10000.0):
    """Su et al. 2021, eq. (34), as loops: pair (x_2i, x_2i+1) of token m turned by m * base^(-2i/d)."""
    out = []
    for row, m in zip(x, positions, strict=True):
        d = len(row)
        new = [0.0] * d
        for i in range(d // 2):
            angle = m * base ** (-2 * i / d)
            a, b = float(row[2 * i]), float(row[2 * i + 1])
            new[2 * i] = a * math.cos(angle) - b * math.sin(angle)
            new[2 * i + 1] = a * math.sin(angle) + b * math.cos(angle)
        out.append(new)
    return out


@pytest.mark.parametrize("n, d, base", [(1, 2, 10000.0), (7, 6, 10000.0), (50, 16, 10000.0), (9, 8, 100.0)])
def test_sinusoidal_encoding_matches_the_paper_formula(n, d, base):
    np.testing.assert_allclose(sinusoidal_encoding(n, d, base), sinusoid_spec(n, d, base), rtol=0, atol=1e-12)


def test_frequencies_run_from_one_radian_down_towards_one_over_base():
    theta = frequencies(8)
    np.testing.assert_allclose(theta, [1, 10000**-0.25, 10000**-0.5, 10000**-0.75])
    assert theta[0] == 1 and np.all(np.diff(theta) < 0)


def test_sinusoidal_dot_product_depends_only_on_the_distance():
    d = 32
    p = sinusoidal_encoding(200, d)
    gram = p @ p.T  # [200, 200]: P_m . P_n
    np.testing.assert_allclose(gram[1:, 1:], gram[:-1, :-1], atol=1e-11)  # constant along every diagonal
    distance = np.arange(200)[:, None] - np.arange(200)[None, :]
    closed_form = np.cos(distance[..., None] * frequencies(d)).sum(axis=-1)  # sum_i cos((m - n) theta_i)
    np.testing.assert_allclose(gram, closed_form, atol=1e-10)
    np.testing.assert_allclose(np.diag(gram), d / 2)  # every PE has length sqrt(d/2)


@pytest.mark.parametrize("k", [1, 5, 37])
def test_shifting_a_position_is_a_fixed_rotation_of_its_encoding(k):
    """The paper's reason for sinusoids: PE(pos + k) is a linear function of PE(pos), the same for every pos."""
    d = 12
    p = sinusoidal_encoding(60, d)
    shift = rope_matrix(-k, d)  # turns each (sin, cos) pair on by k * theta_i
    np.testing.assert_allclose(p[:-k] @ shift.T, p[k:], atol=1e-12)


def test_rope_matches_the_paper_formula_and_keeps_float32():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6, 10))
    np.testing.assert_allclose(rope(x), rope_spec(x, range(6)), atol=1e-12)
    positions = [3.0, 0.0, 17.0, 2.5, 100.0, 7.0]
    np.testing.assert_allclose(rope(x, positions=positions), rope_spec(x, positions), atol=1e-12)
    x32 = x.astype(np.float32)
    assert rope(x32).dtype == np.float32
    np.testing.assert_allclose(rope(x32), rope(x), atol=1e-5)


def test_rope_leaves_position_0_alone_and_keeps_every_length():
    x = np.random.default_rng(1).normal(size=(2, 3, 9, 8))  # [B, h, n, d]
    y = rope(x)
    np.testing.assert_array_equal(y[..., 0, :], x[..., 0, :])
    np.testing.assert_allclose(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), rtol=1e-12)
    np.testing.assert_allclose(y[1, 2], rope(x[1, 2]), rtol=1e-12)  # batch and heads axes just broadcast


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 8), st.integers(0, 10_000), st.integers(0, 2**32 - 1))
def test_rope_scores_depend_only_on_the_distance(half_d, offset, seed):
    """q_m . k_n for one q and one k placed at every m, n in 0..39 (+ offset): constant along each diagonal."""
    d = 2 * half_d
    q, k = np.random.default_rng(seed).normal(size=(2, d))
    positions = offset + np.arange(40)
    qs = rope(np.tile(q, (40, 1)), positions)  # [40, d]: q at positions offset .. offset + 39
    ks = rope(np.tile(k, (40, 1)), positions)
    scores = qs @ ks.T  # [40, 40]: scores[m, n] = q_m . k_n
    scale = np.linalg.norm(q) * np.linalg.norm(k) + 1e-300
    np.testing.assert_allclose(scores[1:, 1:] / scale, scores[:-1, :-1] / scale, atol=1e-9)
    at_zero = rope(np.tile(q, (40, 1))) @ rope(np.tile(k, (40, 1))).T  # the same pair from position 0
    np.testing.assert_allclose(scores / scale, at_zero / scale, atol=1e-9)


def test_rope_matrix_is_the_rotation_rope_applies():
    d, rng = 6, np.random.default_rng(2)
    x = rng.normal(size=(5, d))
    for m in range(5):
        np.testing.assert_allclose(rope(x)[m], rope_matrix(m, d) @ x[m], atol=1e-12)
    np.testing.assert_allclose(rope_matrix(3, d).T @ rope_matrix(8, d), rope_matrix(5, d), atol=1e-12)
    np.testing.assert_allclose(rope_matrix(4, d).T @ rope_matrix(4, d), np.eye(d), atol=1e-12)


def test_rope_attention_weights_do_not_change_when_every_position_moves_together():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(3, 7, 8))
    _, w = scaled_dot_product_attention(rope(q), rope(k), v)
    _, w_moved = scaled_dot_product_attention(rope(q, np.arange(7) + 500), rope(k, np.arange(7) + 500), v)
    np.testing.assert_allclose(w_moved, w, atol=1e-10)
    _, w_plain = scaled_dot_product_attention(q, k, v)
    assert not np.allclose(w_plain, w)  # RoPE does change the weights: they now depend on distance


def test_add_positions_adds_one_row_per_position_and_refuses_too_long_inputs():
    table = np.random.default_rng(4).normal(size=(5, 3))
    x = np.zeros((2, 4, 3))
    np.testing.assert_array_equal(add_positions(x, table), np.broadcast_to(table[:4], (2, 4, 3)))
    with pytest.raises(ValueError, match="n=6 positions but the table has rows for only n_max=5"):
        add_positions(np.zeros((6, 3)), table)
    with pytest.raises(ValueError, match="table has shape"):
        add_positions(np.zeros((4, 2)), table)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="d_model=5 must be even"):
        sinusoidal_encoding(3, 5)
    with pytest.raises(ValueError, match="n=0 must be a positive integer"):
        sinusoidal_encoding(0, 4)
    with pytest.raises(ValueError, match="base must be a finite number greater than 1"):
        sinusoidal_encoding(3, 4, base=1)
    with pytest.raises(ValueError, match=r"d \(x's last dimension\)=3 must be even"):
        rope(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="positions has shape"):
        rope(np.zeros((4, 2)), positions=np.arange(3))
    with pytest.raises(ValueError, match="positions contains NaN"):
        rope(np.zeros((2, 2)), positions=[0.0, np.nan])
    with pytest.raises(ValueError, match="x must have at least 2 dimensions"):
        rope(np.zeros(4))
    with pytest.raises(TypeError, match="position must be a finite number"):
        rope_matrix("3", 4)


def test_sinusoidal_encoding_from_a_start_position_is_those_rows_of_the_table():
    full = sinusoidal_encoding(40, 8)
    np.testing.assert_array_equal(sinusoidal_encoding(5, 8, start=35), full[35:])
    with pytest.raises(ValueError, match="start=-1 must be a non-negative integer"):
        sinusoidal_encoding(5, 8, start=-1)
    with pytest.raises(TypeError, match="start must be a non-negative integer"):
        sinusoidal_encoding(5, 8, start=2.5)


def test_rope_refuses_positions_that_would_line_up_with_the_heads_axis():
    """x [B, h, n, d] with positions [B, n]: broadcasting lines B up with h (silently, when B == h)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 3, 5, 4))  # B = h = 3
    positions = rng.integers(0, 50, (3, 5))  # one row of positions per sentence
    with pytest.raises(ValueError, match=r"positions of shape \(3, 5\) is ambiguous for x of shape \(3, 3, 5, 4\)"):
        rope(x, positions=positions)
    with pytest.raises(ValueError, match=r"positions\[:, None, :\]"):
        rope(x, positions=positions)
    per_sentence = rope(x, positions=positions[:, None, :])  # [B, 1, n]: what was meant
    for b in range(3):
        for head in range(3):
            np.testing.assert_allclose(per_sentence[b, head], rope_spec(x[b, head], positions[b]), atol=1e-12)
    np.testing.assert_array_equal(
        rope(x, positions=positions[0]), rope(x, positions=np.broadcast_to(positions[0], (3, 3, 5)))
    )
    assert rope(x[0], positions=positions).shape == (3, 5, 4)  # x [B, n, d]: [B, n] positions are unambiguous


# --- the other pairing: Hugging Face's rotate-half RoPE ------------------------------------------------


def rope_halves_spec(x, positions, base=10000.0):
    """GPT-NeoX / transformers' rotate_half, as loops: feature i turns with feature i + d/2 by m * base^(-2i/d)."""
    out = []
    for row, m in zip(x, positions, strict=True):
        d = len(row)
        new = [0.0] * d
        for i in range(d // 2):
            angle = m * base ** (-2 * i / d)
            a, b = float(row[i]), float(row[i + d // 2])
            new[i] = a * math.cos(angle) - b * math.sin(angle)
            new[i + d // 2] = a * math.sin(angle) + b * math.cos(angle)
        out.append(new)
    return out


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 9), st.sampled_from([2, 4, 6, 10]), st.integers(0, 2**32 - 1))
def test_rope_halves_matches_its_loop_spec(n, d, seed):
    rng = np.random.default_rng(seed)
    x, positions = rng.normal(size=(n, d)), rng.integers(0, 500, n)
    np.testing.assert_allclose(rope_halves(x, positions, 500.0), rope_halves_spec(x, positions, 500.0), atol=1e-12)


@settings(deadline=None, max_examples=40)
@given(st.integers(1, 4), st.sampled_from([2, 4, 8]), st.integers(2, 7), st.integers(0, 2**32 - 1))
def test_both_pairings_give_the_same_scores_once_the_features_are_permuted(h, d, n, seed):
    rng = np.random.default_rng(seed)
    q, k = rng.normal(size=(h, n, d)), rng.normal(size=(h, n, d))
    perm = halves_permutation(1, d)  # within one head
    scores = rope(q) @ np.swapaxes(rope(k), -1, -2)
    permuted = rope_halves(q[..., perm]) @ np.swapaxes(rope_halves(k[..., perm]), -1, -2)
    np.testing.assert_allclose(permuted, scores, atol=1e-10)
    np.testing.assert_allclose(rope_halves(q[..., perm])[..., np.argsort(perm)], rope(q), atol=1e-12)


def test_halves_permutation_orders_each_heads_pairs_first_features_first():
    assert halves_permutation(1, 6).tolist() == [0, 2, 4, 1, 3, 5]
    assert halves_permutation(2, 4).tolist() == [0, 2, 1, 3, 4, 6, 5, 7]
    with pytest.raises(ValueError, match="d_head=5 must be even"):
        halves_permutation(2, 5)
    with pytest.raises(TypeError, match="n_heads must be a positive integer"):
        halves_permutation(1.5, 4)
