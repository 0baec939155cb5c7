"""attn_lib.dropout (notebook 09): drop with probability p in training, scale the kept by 1 / (1 - p)."""

import numpy as np
import pytest

from attn_lib.dropout import dropout


def test_kept_entries_are_scaled_and_the_expected_value_is_kept():
    x = np.random.default_rng(0).random((400, 500))
    y, keep = dropout(x, 0.2, np.random.default_rng(1))
    assert y.shape == keep.shape == x.shape and keep.dtype == bool
    np.testing.assert_allclose(y[keep], x[keep] / 0.8, rtol=1e-15)
    assert (y[~keep] == 0).all()
    assert abs((~keep).mean() - 0.2) < 0.005  # 200,000 draws: the share dropped is p within 4 standard errors
    assert abs(y.mean() / x.mean() - 1) < 0.01  # E[y] = x


def test_evaluation_and_p_0_change_nothing():
    x = np.random.default_rng(2).random((3, 4))
    for y, keep in (dropout(x, 0.5, np.random.default_rng(0), training=False), dropout(x, 0.0)):
        assert (y == x).all() and keep.all()


def test_the_same_seed_drops_the_same_entries_and_the_dtype_is_kept():
    x = np.ones((6, 7), dtype=np.float32)
    a, b = dropout(x, 0.3, np.random.default_rng(5)), dropout(x, 0.3, np.random.default_rng(5))
    assert (a[1] == b[1]).all() and (a[0] == b[0]).all() and a[0].dtype == np.float32
    assert not (dropout(x, 0.3, np.random.default_rng(6))[1] == a[1]).all()


def test_bad_inputs_are_named():
    x = np.ones(3)
    with pytest.raises(ValueError, match=r"p must lie in \[0, 1\)"):
        dropout(x, 1.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="p must lie"):
        dropout(x, -0.1, np.random.default_rng(0))
    with pytest.raises(TypeError, match="p must be a number"):
        dropout(x, True, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        dropout(x, 0.1)
    with pytest.raises(TypeError, match="training must be True or False"):
        dropout(x, 0.1, np.random.default_rng(0), training="yes")
