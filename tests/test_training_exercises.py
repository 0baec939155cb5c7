"""Notebook 08's checker: each classic mistake with the ablation mask gets its own diagnosis.

A correct learner-style mask passes; attn_lib's own attention_mask is refused (the exercise asks for the
learner's code); every wrong version below is diagnosed with exactly the i18n key next to it
(test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib.i18n import t
from attn_lib.models.tiny_model import attention_mask


def learner_hide(n, hidden):
    """The causal mask with the hidden token's column switched off, as the notebook describes it."""
    mask = np.tril(np.ones((n, n), dtype=bool))  # [n, n]: True on and below the diagonal
    mask[:, hidden] = False  # no query may read the hidden token
    return mask


def _rows(n, hidden):
    mask = np.tril(np.ones((n, n), dtype=bool))
    mask[hidden, :] = False  # the row: the token cannot read, but everyone can read it
    return mask


def _blank_only(n, hidden):
    mask = np.tril(np.ones((n, n), dtype=bool))
    mask[-1, hidden] = False  # only the blank's query
    return mask


def _self_kept(n, hidden):
    mask = learner_hide(n, hidden)
    mask[hidden, hidden] = True
    return mask


WRONG = [
    ("hide_mask", "hide_row", _rows),
    ("hide_mask", "hide_blank_only", _blank_only),
    ("hide_mask", "hide_not_causal", lambda n, h: np.arange(n)[None, :].repeat(n, axis=0) != h),
    ("hide_mask", "hide_self_kept", _self_kept),
    ("hide_mask", "hide_missing", lambda n, h: np.tril(np.ones((n, n), dtype=bool))),
    ("hide_mask", "hide_off_by_one", lambda n, h: learner_hide(n, h + 1 if h + 1 < n else h - 1)),
    ("hide_mask", "hide_inverted", lambda n, h: ~learner_hide(n, h)),
    ("hide_mask", "hide_inverted", lambda n, h: np.where(learner_hide(n, h), -np.inf, 0.0)),  # additive, inverted
    ("hide_mask", "mask_not_bool", lambda n, h: learner_hide(n, h).astype(int)),
    ("hide_mask", "mask_additive", lambda n, h: np.where(learner_hide(n, h), 0.0, -np.inf)),
    ("hide_mask", "wrong_values", lambda n, h: np.eye(n, dtype=bool)),
]


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}-{i}" for i, (e, k, _) in enumerate(WRONG)])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(ex.run_hide_mask_checks, ex.check_hide_mask, fn, key, capsys)


def test_learner_code_passes(capsys):
    assert ex.check_hide_mask(learner_hide, lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t('exercises.title_hide_mask', 'en')}:") and out.count("\n") == 1
    assert ex.run_hide_mask_checks(lambda n, h: learner_hide(n, h).tolist()).ok  # a list of lists is converted


def test_the_models_own_mask_is_refused_by_default_and_right():
    def via_model(n, hidden):
        return attention_mask(n, np.array([hidden]))[0, 0]

    result = ex.run_hide_mask_checks(via_model)
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert result.fields["name"] == "attn_lib.models.tiny_model.attention_mask"
    assert ex.run_hide_mask_checks(via_model, forbid=()).ok
