"""Notebook 08's checkers: each classic mistake with the ablation mask, and with the ablation itself, gets its own
diagnosis.

A correct learner-style mask and ablation pass; attn_lib's own attention_mask (and ablation_accuracy, which uses
it) is refused (the exercise asks for the learner's code); every wrong version below is diagnosed with exactly the
i18n key next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached). The
ablation's cases run on seed 0 of notebook 08, trained once per session by the checker (about 8 s).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib.exercises import training
from attn_lib.exercises.diagnose import Reference
from attn_lib.i18n import t
from attn_lib.models.corpus import make_corpus
from attn_lib.models.tiny_model import attention_mask
from attn_lib.models.tiny_training import ablation_accuracy, accuracy, predict, train


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


def learner_ablation(params, config, split, hidden, mistake=None):
    """The accuracy with token hidden[b] of sentence b hidden, as the notebook describes it; `mistake` makes one."""
    B, n = split.tokens.shape
    rows = np.arange(B)
    mask = np.repeat(np.tril(np.ones((n, n), dtype=bool))[None], B, axis=0)  # [B, n, n]: one causal mask each
    if mistake == "blank_only":
        mask[rows, split.blank, hidden] = False  # only the blank's query: section 7's "from blank only"
    elif mistake == "row":
        mask[rows, hidden, :] = False
    elif mistake == "not_causal":
        mask[:] = True
        mask[rows, :, hidden] = False
    elif mistake == "one_position":
        mask[:, :, hidden[0]] = False  # the first sentence's position for all
    elif mistake == "after":
        mask[rows, :, np.minimum(hidden + 1, n - 1)] = False  # the token after
    elif mistake == "before":
        mask[rows, :, hidden - 1] = False  # the token before
    elif mistake != "built_not_hidden":
        mask[rows, :, hidden] = False
    if mistake == "no_mask":
        return accuracy(params, config, split)  # the mask is built, but never given to the model
    if mistake == "no_head_axis":
        return accuracy(params, config, split, mask=mask)  # [B, n, n] against scores [B, h, n, n]
    right = predict(params, config, split, mask=mask[:, None]) == split.target  # [B]
    if mistake == "error_rate":
        return 1 - right.mean()
    if mistake == "count":
        return int(right.sum())
    if mistake == "predictions":
        return right
    return right.mean()


def _ablation(mistake):
    def fn(params, config, split, hidden):
        return learner_ablation(params, config, split, hidden, mistake)

    return fn


WRONG = [
    ("ablation_accuracy", "ablate_blank_only", _ablation("blank_only")),
    ("ablation_accuracy", "ablate_row", _ablation("row")),
    ("ablation_accuracy", "ablate_not_causal", _ablation("not_causal")),
    ("ablation_accuracy", "ablate_nothing", _ablation("built_not_hidden")),
    ("ablation_accuracy", "ablate_nothing", _ablation("no_mask")),  # runs the forbidden default mask: run again
    ("ablation_accuracy", "ablate_one_position", _ablation("one_position")),
    ("ablation_accuracy", "ablate_off_by_one", _ablation("after")),  # as right as hiding nothing on the first case
    ("ablation_accuracy", "ablate_off_by_one", _ablation("before")),
    ("ablation_accuracy", "ablate_error_rate", _ablation("error_rate")),
    ("ablation_accuracy", "ablate_count", _ablation("count")),
    ("ablation_accuracy", "ablate_head_axis", _ablation("no_head_axis")),
    ("ablation_accuracy", "wrong_type", _ablation("predictions")),
    ("ablation_accuracy", "ablate_wrong", lambda params, config, split, hidden: 0.5),
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
    run, check = RUN_CHECK[exercise]
    assert_diagnosed(run, check, fn, key, capsys)


RUN_CHECK = {
    "hide_mask": (ex.run_hide_mask_checks, ex.check_hide_mask),
    "ablation_accuracy": (ex.run_ablation_accuracy_checks, ex.check_ablation_accuracy),
}


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


# --- the ablation accuracy ----------------------------------------------------------------------------------


def test_learner_ablation_passes(capsys):
    assert ex.check_ablation_accuracy(learner_ablation, lang="en") is True
    out = capsys.readouterr().out
    assert (
        out.startswith(f"✓ {t('exercises.title_ablation_accuracy', 'en')}: all 4 checks passed")
        and out.count("\n") == 1
    )

    def one_sentence_at_a_time(params, config, split, hidden):  # a loop over the sentences, each with an [n, n] mask
        n, right = split.tokens.shape[1], 0
        for b in range(len(split)):
            mask = np.tril(np.ones((n, n), dtype=bool))
            mask[:, hidden[b]] = False
            right += predict(params, config, split, mask=mask)[b] == split.target[b]
        return np.float32(right / len(split))  # a float32 number passes too

    assert ex.run_ablation_accuracy_checks(one_sentence_at_a_time).ok


def test_the_model_a_learner_trained_is_checked_on(capsys):
    """model=: the cases run on the learner's own model; its answers are its own ablation's."""
    other = train(make_corpus(), seed=1, max_steps=20)  # a different, half-trained model
    assert ex.run_ablation_accuracy_checks(learner_ablation, model=other).ok
    case = training._ablation_cases(other)[0]
    params, config, split, hidden = case.args
    assert case.expected.fn(*case.args) == learner_ablation(params, config, split, hidden)
    with pytest.raises(TypeError, match="model must be the result of train"):
        ex.run_ablation_accuracy_checks(learner_ablation, model=(other.params, other.config))


def test_the_answer_is_section_6s_ablation():
    """The checker's answer for today's city hidden in the test sentences is the notebook's ablation_accuracy."""
    case = training._ablation_cases()[0]
    params, config, split, _ = case.args
    assert case.expected.fn(*case.args) == ablation_accuracy(dict(params), config, make_corpus().test, "today")
    assert all(isinstance(case.expected, Reference) for case in training._ablation_cases())


def test_the_librarys_ablation_is_refused_by_default():
    def via_library(params, config, split, hidden):
        return accuracy(params, config, split, mask=attention_mask(split.tokens.shape[1], hidden))

    result = ex.run_ablation_accuracy_checks(via_library)
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert ex.run_ablation_accuracy_checks(via_library, forbid=()).ok


def test_the_inputs_cannot_be_changed_in_place():
    """A function that edits the model or the sentences cannot spoil the answer the checker computes after it."""

    def vandal(params, config, split, hidden):
        split.target[:] = 0
        return 0.0

    result = ex.run_ablation_accuracy_checks(vandal)
    assert (result.ok, result.key) == (False, "raised"), result.verdict("en")


def test_a_function_that_looks_for_the_answer_finds_none():
    """The answer is computed after the call, by a private function the watch refuses (as for every checker)."""
    from test_hardening_checkers import answer_from_the_checkers_frames

    result = ex.run_ablation_accuracy_checks(answer_from_the_checkers_frames, forbid=())
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert result.fields["name"].endswith("_ablated")
