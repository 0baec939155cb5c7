"""attn_lib.sampling against Hugging Face's logits warpers (transformers.generation.logits_process).

Skipped when transformers (or torch) is not installed; in CI (CI=true) a skip is a failure (conftest.py).
Top-k: the same tokens kept, ties included (TopKLogitsWarper keeps every logit >= the k-th largest).
Top-p: the same tokens kept wherever no tie and no exact boundary lets a sort order or a rounding
decide (TopPLogitsWarper drops the tokens whose probability, summed from the least likely up, is
<= 1 - p: the same set as "the tokens ahead hold less than p"). Temperature: the same logits.
"""

import numpy as np
import pytest

from attn_lib.sampling import apply_temperature, top_k_filter, top_p_filter

torch = pytest.importorskip("torch")
warpers = pytest.importorskip("transformers.generation.logits_process")


def hf(warper, z):
    return warper(None, torch.tensor(z)[None]).numpy()[0]


def test_top_k_keeps_what_hugging_face_keeps_with_and_without_ties():
    rng = np.random.default_rng(0)
    for trial in range(300):
        z = rng.normal(0.0, 1.0 + trial % 4, 40)
        if trial % 3 == 0:
            z = np.round(z)  # many ties, some at the k-th value
        k = int(rng.integers(1, 45))
        np.testing.assert_array_equal(
            np.isfinite(top_k_filter(z, k)), np.isfinite(hf(warpers.TopKLogitsWarper(k), z)), err_msg=f"k={k}"
        )


def test_top_p_keeps_what_hugging_face_keeps():
    rng = np.random.default_rng(1)
    for trial in range(300):
        z = rng.normal(0.0, 1.0 + trial % 4, 40)  # continuous: no ties, no sum exactly at p
        p = float(rng.uniform(0.02, 0.99))
        ours, theirs = np.isfinite(top_p_filter(z, p)), np.isfinite(hf(warpers.TopPLogitsWarper(p), z))
        np.testing.assert_array_equal(ours, theirs, err_msg=f"trial {trial}, p={p}")


def test_the_crossing_token_is_kept_by_both():
    z = np.log([0.5, 0.3, 0.2])
    for p in (0.6, 0.75, 0.85):
        np.testing.assert_array_equal(
            np.isfinite(top_p_filter(z, p)), np.isfinite(hf(warpers.TopPLogitsWarper(p), z)), err_msg=f"p={p}"
        )
    assert np.isfinite(top_p_filter(z, 0.6)).tolist() == [True, True, False]  # 0.3 crosses 0.6 and is kept


def test_temperature_is_hugging_faces():
    z = np.random.default_rng(2).normal(size=30)
    for t in (0.3, 1.0, 1.7):
        np.testing.assert_allclose(apply_temperature(z, t), hf(warpers.TemperatureLogitsWarper(t), z), rtol=1e-12)
