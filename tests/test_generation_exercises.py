"""Notebook 13's checkers: each classic mistake, written as a learner would, gets its own diagnosis.

Correct learner-style code passes (float32 too); attn_lib's own samplers and generation loop are refused
(the exercise asks for the learner's code); every wrong version below is diagnosed with exactly the i18n
key next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import re

import numpy as np
import pytest
from checker_helpers import assert_diagnosed, plain_softmax, stable_softmax

from attn_lib import exercises as ex
from attn_lib.models.generation import generate
from attn_lib.models.tiny_lm import LMConfig, init_params
from attn_lib.sampling import apply_temperature, sampling_distribution, top_k_filter, top_p_filter

# --- learner-style code -----------------------------------------------------------------------------


def learner_temperature(logits, temperature, softmax=stable_softmax):
    return softmax(logits / temperature)  # divide the logits, then the softmax


def learner_top_k(logits, k, keep=None, normalise=True, logits_out=False):
    order = np.argsort(-logits, kind="stable")  # most likely first
    if keep is None:
        kept = logits >= np.sort(logits)[-k]  # every logit >= the k-th largest: ties kept
    else:
        kept = np.isin(np.arange(len(logits)), keep(order, k))
    if logits_out:
        return np.where(kept, logits, -np.inf)
    probs = stable_softmax(logits)
    if not normalise:
        return np.where(kept, probs, 0.0)
    return stable_softmax(np.where(kept, logits, -np.inf))


def learner_top_p(logits, p, order_by=None, rule=None, extra=0, normalise=True):
    probs = stable_softmax(logits)
    order = np.argsort(-probs) if order_by is None else order_by(probs)
    ranked = probs[order]
    ahead = np.cumsum(ranked) - ranked  # the probability of the tokens before each one
    chosen = ahead < p if rule is None else rule(ahead, np.cumsum(ranked), p)
    if extra:
        chosen[: chosen.sum() + extra] = True
    kept = np.zeros(len(probs), dtype=bool)
    kept[order[chosen]] = True
    out = np.where(kept, probs, 0.0)
    return out / out.sum() if normalise else out


def learner_generate(step, prompt, n_new, position=None, feed=None, refeed=False, prefill=True, loops=None):
    ids = list(prompt)
    if prefill:
        logits = step(ids, 0)  # store the whole prompt, get the first new token's logits
    else:
        logits = step(ids[-1:], len(ids) - 1)
    for _ in range(n_new if loops is None else loops(n_new)):
        ids.append(int(np.argmax(logits)))
        if refeed:
            logits = step(ids, 0)
            continue
        token = ids[-1] if feed is None else feed(ids, prompt)
        logits = step([token], len(ids) - 1 if position is None else position(ids, prompt))
    return ids


def learner_generate_one_by_one(step, prompt, n_new):
    """Also right: the prompt stored token by token."""
    for i, token in enumerate(prompt):
        logits = step([token], i)
    ids = list(prompt)
    for _ in range(n_new):
        ids.append(int(np.argmax(logits)))
        logits = step(ids[-1:], len(ids) - 1)
    return np.array(ids)


# --- wrong versions, each with the diagnosis it must get ----------------------------------------------

STUCK = lambda ids, prompt: len(prompt)  # noqa: E731 - every new token fed where the first one went
AHEAD = lambda ids, prompt: len(ids)  # noqa: E731 - len(ids) after the append: one too far
BEHIND = lambda ids, prompt: len(ids) - 2  # noqa: E731 - one too early

WRONG = [
    ("temperature", "temp_no_effect", lambda z, t: (lambda q: q / q.sum(-1, keepdims=True))(stable_softmax(z) / t)),
    ("temperature", "temp_on_probabilities", lambda z, t: stable_softmax(stable_softmax(z) / t)),
    ("temperature", "temp_after_softmax", lambda z, t: stable_softmax(z) / t),
    ("temperature", "temp_power_not_normalised", lambda z, t: stable_softmax(z) ** (1 / t)),
    ("temperature", "temp_inverted", lambda z, t: stable_softmax(z * t)),
    ("temperature", "softmax_overflow", lambda z, t: (lambda e: e / e.sum(-1, keepdims=True))(np.exp(z / t))),
    ("temperature", "softmax_axis", lambda z, t: stable_softmax(z / t, axis=0)),
    ("top_k", "topk_one_more", lambda z, k: learner_top_k(z, k, keep=lambda order, k: order[: k + 1])),
    ("top_k", "topk_one_less", lambda z, k: stable_softmax(np.where(z > np.sort(z)[-k], z, -np.inf))),
    ("top_k", "topk_smallest", lambda z, k: learner_top_k(z, k, keep=lambda order, k: np.sort(order[::-1][:k]))),
    ("top_k", "topk_ties_by_position", lambda z, k: learner_top_k(z, k, keep=lambda order, k: order[:k])),
    ("top_k", "filter_not_renormalised", lambda z, k: learner_top_k(z, k, normalise=False)),
    ("top_k", "filter_logits_returned", lambda z, k: learner_top_k(z, k, logits_out=True)),
    ("top_p", "topp_crossing_dropped", lambda z, p: learner_top_p(z, p, rule=lambda ahead, cum, p: cum <= p)),
    ("top_p", "topp_one_extra", lambda z, p: learner_top_p(z, p, extra=1)),
    ("top_p", "topp_unsorted", lambda z, p: learner_top_p(z, p, order_by=lambda probs: np.arange(len(probs)))),
    ("top_p", "topp_least_likely", lambda z, p: learner_top_p(z, p, order_by=np.argsort)),
    ("top_p", "filter_not_renormalised", lambda z, p: learner_top_p(z, p, normalise=False)),
    ("cached_generation", "gen_position_stuck", lambda s, pr, n: learner_generate(s, pr, n, position=STUCK)),
    ("cached_generation", "gen_position_ahead", lambda s, pr, n: learner_generate(s, pr, n, position=AHEAD)),
    ("cached_generation", "gen_position_wrong", lambda s, pr, n: learner_generate(s, pr, n, position=BEHIND)),
    ("cached_generation", "gen_refed", lambda s, pr, n: learner_generate(s, pr, n, refeed=True)),
    ("cached_generation", "gen_no_prefill", lambda s, pr, n: learner_generate(s, pr, n, prefill=False)),
    ("cached_generation", "gen_wrong_token", lambda s, pr, n: learner_generate(s, pr, n, feed=lambda i, pr: pr[-1])),
    ("cached_generation", "gen_step_ids", lambda s, pr, n: s(pr[-1], 0)),  # a bare token, not a list
    ("cached_generation", "gen_step_not_called", lambda s, pr, n: list(pr) + [0] * n),
    ("cached_generation", "gen_prompt_missing", lambda s, pr, n: learner_generate(s, pr, n)[len(pr) :]),
    ("cached_generation", "gen_wrong_length", lambda s, pr, n: learner_generate(s, pr, n, loops=lambda n: n - 1)),
    ("cached_generation", "wrong_values", lambda s, pr, n: [*learner_generate(s, pr, n)[:-1], 0]),
]  # fmt: skip


def wrong(exercise, key):
    """The wrong version of WRONG diagnosed with `key`."""
    return next(fn for e, k, fn in WRONG if (e, k) == (exercise, key))


RUN = {
    "temperature": ex.run_temperature_checks,
    "top_k": ex.run_top_k_checks,
    "top_p": ex.run_top_p_checks,
    "cached_generation": ex.run_cached_generation_checks,
}
CHECK = {
    "temperature": ex.check_temperature,
    "top_k": ex.check_top_k,
    "top_p": ex.check_top_p,
    "cached_generation": ex.check_cached_generation,
}
LEARNER_CORRECT = {
    "temperature": learner_temperature,
    "top_k": learner_top_k,
    "top_p": learner_top_p,
    "cached_generation": learner_generate,
}
ATTN_LIB = {  # attn_lib's own function: right, but forbidden
    "temperature": lambda z, t: stable_softmax(apply_temperature(z, t)),
    "top_k": lambda z, k: stable_softmax(top_k_filter(z, k)),
    "top_p": lambda z, p: stable_softmax(top_p_filter(z, p)),
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_learner_code_passes_and_prints_a_tick(exercise, capsys):
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith("✓") and out.count("\n") == 1


@pytest.mark.parametrize("exercise", ["temperature", "top_k", "top_p"])
def test_float32_code_passes(exercise):
    def in_float32(z, arg):
        return LEARNER_CORRECT[exercise](np.asarray(z, dtype=np.float32), arg)

    result = RUN[exercise](in_float32)
    assert result.ok, result.verdict("en")


def test_another_right_loop_passes_and_plain_softmax_is_fine():
    assert ex.run_cached_generation_checks(learner_generate_one_by_one).ok
    assert ex.run_temperature_checks(lambda z, t: learner_temperature(z, t, softmax=plain_softmax)).ok


@pytest.mark.parametrize("exercise", sorted(ATTN_LIB))
def test_attn_libs_own_function_is_refused_by_default(exercise):
    result = RUN[exercise](ATTN_LIB[exercise])
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert RUN[exercise](ATTN_LIB[exercise], forbid=()).ok


def test_the_sampling_distribution_does_the_work_of_each_filter():
    result = ex.run_temperature_checks(lambda z, t: sampling_distribution(z, t))
    assert result.key == "forbidden_call_inside" and result.fields["name"] == "attn_lib.sampling.sampling_distribution"
    assert ex.run_top_k_checks(lambda z, k: sampling_distribution(z, top_k=k)).key == "forbidden_call_inside"


def test_attn_libs_generation_loop_is_refused():
    config = LMConfig(vocab_size=13, max_len=14, d_model=16, n_heads=2, n_layers=2, d_ff=24)
    params = init_params(config, seed=21, dtype=np.float64)  # the checker's model

    def via_generate(step, prompt, n_new):
        return generate(params, config, np.array(prompt), max_new=n_new)[0]

    result = ex.run_cached_generation_checks(via_generate)
    assert (result.key, result.fields["name"]) == ("forbidden_call", "attn_lib.models.generation.generate")
    assert ex.run_cached_generation_checks(via_generate, forbid=()).key == "gen_step_not_called"


def test_the_diagnoses_name_the_numbers_of_the_failing_case():
    result = ex.run_top_k_checks(wrong("top_k", "topk_ties_by_position"))
    assert result.case.kind == "case_topk_tie" and "3 logits are tied at the k-th largest value, 1" in result.verdict(
        "en"
    )
    result = ex.run_top_p_checks(wrong("top_p", "topp_crossing_dropped"))
    assert result.case.kind == "case_topp_cross" and "should be 0.4, 0.25" in result.verdict("en")
    result = ex.run_cached_generation_checks(wrong("cached_generation", "gen_position_stuck"))
    assert result.fields == {"call": 3, "start": 3, "expected": 4, "ids": result.fields["ids"]}
    assert "at position 3 again, but 4 tokens are already stored" in result.verdict("en")
    result = ex.run_temperature_checks(wrong("temperature", "temp_after_softmax"))
    assert "sums to 2, not 1" in result.verdict("en")


def test_a_wrong_call_to_step_is_named_in_both_languages_and_stubs_too():
    result = ex.run_cached_generation_checks(lambda step, prompt, n: step(prompt[-1], 0))  # an int, not a list
    assert "ids must be a list of token ids" in result.verdict("en") and "必须是词元编号的列表" in result.verdict("zh")
    assert ex.run_top_p_checks(lambda z, p: None).key == "not_implemented"
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_top_k(learner_top_k, lang="fr")


NUMPY_REPR = re.compile(r"np\.(?:float|int|uint|bool|str)\w*\(|array\(|dtype=")
PLAIN = [  # mistakes whose verdicts print the learner's own values: a shape, a bare numpy token
    ("top_k", lambda z, k: np.ones(3)),
    ("top_p", lambda z, p: np.float64(p)),
    ("cached_generation", lambda s, pr, n: s(np.asarray(pr)[-1], 0)),  # np.int64(7), not [7]
]


@pytest.mark.parametrize(
    ("exercise", "fn"),
    [(e, fn) for e, _, fn in WRONG] + PLAIN,
    ids=[f"{e}-{k}" for e, k, _ in WRONG] + ["shape", "scalar", "token"],
)
def test_the_verdicts_print_plain_numbers_not_numpy_reprs(exercise, fn):
    """numpy 2 writes a scalar as np.float64(0.05): every verdict writes 0.05, in both languages (review N14)."""
    result = RUN[exercise](fn)
    assert not result.ok
    for lang in ("en", "zh"):
        assert not NUMPY_REPR.search(result.verdict(lang)), result.verdict(lang)
