"""The checkers' hardening of issue 41 (T4-06, T4-08, T4-09): each test here failed before its fix.

T4-06  a checker refuses the library's answer reached another way: SwiGLU as the GGUF models'
       feed_forward, a grouped decode step through attn_lib.grouped.grouped_unchecked or the checker's own
       helper, the online update and the conversation budget through the checker's own reference.
T4-08  no checker holds a case's answer in memory while the learner's function runs: a function that looks
       through the checker's frames, or through every object the garbage collector knows, finds no answer.
T4-09  check_rms_norm passes several eps, one of them where eps matters (small rows, eps = 1e-2), and names
       a function that ignores the eps it is given.
"""

import gc
import re
import sys

import numpy as np
import pytest
from checker_helpers import rendered

from attn_lib import exercises as ex
from attn_lib.exercises import budget, decoder_parts, efficient, gemma, generation, modern, training, translation
from attn_lib.exercises.diagnose import Case, Reference
from attn_lib.grouped import grouped_unchecked
from attn_lib.models.gguf.arithmetic import feed_forward


def own_reference(module, name):
    """The checker's own answer function `name` of `module`, public before T4-06 and private (`_name`) after."""
    return getattr(module, f"_{name}", None) or getattr(module, name)


# --- T4-06: the library's answer under another name ----------------------------------------------------


def swiglu_by_the_gguf_models(x, w_gate, w_up, w_down):
    """SwiGLU as attn_lib.models.gguf.arithmetic.feed_forward computes it for SmolLM2 ([n, d] rows)."""
    return feed_forward(x.reshape(-1, x.shape[-1]), w_gate, w_up, w_down).reshape(x.shape)


def _grown(k_t, v_t, keys, values):
    return np.concatenate([keys, k_t[:, None]], axis=1), np.concatenate([values, v_t[:, None]], axis=1)


def decode_by_grouped_unchecked(q_t, k_t, v_t, keys, values):
    """The model's own inner loop: grouped_unchecked with a mask that lets the new token see every position."""
    keys, values = _grown(k_t, v_t, keys, values)
    mask = np.ones((1, keys.shape[1]), dtype=bool)
    return grouped_unchecked(q_t[:, None], keys, values, mask)[0][:, 0], keys, values


def decode_by_the_checkers_helper(q_t, k_t, v_t, keys, values):
    """The checker's own helper attends a query head to its group's K/V head: only the append is the learner's."""
    keys, values = _grown(k_t, v_t, keys, values)
    return decoder_parts._attend(q_t, keys, values), keys, values


def decode_by_notebook_12s_reference(q_t, k_t, v_t, keys, values):
    """check_grouped_query_attention's own answer (attn_lib.exercises.modern._grouped) on the grown cache."""
    keys, values = _grown(k_t, v_t, keys, values)
    return modern._grouped(q_t[:, None], keys, values)[0][:, 0], keys, values


def decode_by_notebook_15s_helper(q_t, k_t, v_t, keys, values):
    """check_window_decode_step's helper (attn_lib.exercises.gemma._attend): the same grouped attention."""
    keys, values = _grown(k_t, v_t, keys, values)
    return gemma._attend(q_t, keys, values), keys, values


def online_update_by_the_checkers_reference(m, ell, o, s, v):
    return own_reference(efficient, "online_update")(m, ell, o, s, v)


def conversations_by_the_checkers_reference(
    memory_bytes, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None
):
    return own_reference(budget, "conversations")(
        memory_bytes, n_params, n_layers, n_kv_heads, d_head, n_tokens, window
    )


LIBRARY_ANSWERS = [
    (ex.run_swiglu_checks, swiglu_by_the_gguf_models, "attn_lib.models.gguf.arithmetic.feed_forward", True),
    (ex.run_grouped_decode_step_checks, decode_by_grouped_unchecked, "attn_lib.grouped.grouped_unchecked", True),
    (
        ex.run_grouped_decode_step_checks,
        decode_by_the_checkers_helper,
        "attn_lib.exercises.decoder_parts._attend",
        False,
    ),
    (ex.run_grouped_decode_step_checks, decode_by_notebook_12s_reference, "attn_lib.exercises.modern._grouped", False),
    (ex.run_grouped_decode_step_checks, decode_by_notebook_15s_helper, "attn_lib.exercises.gemma._attend", False),
    (ex.run_online_update_checks, online_update_by_the_checkers_reference, "attn_lib.exercises.efficient.", False),
    (ex.run_conversations_checks, conversations_by_the_checkers_reference, "attn_lib.exercises.budget.", False),
]


@pytest.mark.parametrize(
    ("run", "fn", "name", "public"), LIBRARY_ANSWERS, ids=[fn.__name__ for _, fn, _, _ in LIBRARY_ANSWERS]
)
def test_the_librarys_answer_under_another_name_is_refused(run, fn, name, public):
    result = run(fn)
    assert not result.ok, result.verdict("en")
    assert result.key in ("forbidden_call", "forbidden_call_inside"), result.verdict("en")
    assert result.fields["name"].startswith(name), result.verdict("en")
    for lang in ("en", "zh"):
        assert rendered(result, lang) in result.verdict(lang) and result.fields["name"] in result.verdict(lang)
    # a public attn_lib function is allowed with forbid=(); the checker's own answer never is
    assert run(fn, forbid=()).ok is public


def test_the_checkers_references_are_private():
    """No checker of notebooks 11, 12 and 14 exports its answer: a private one is watched whatever forbid says."""
    assert not hasattr(efficient, "online_update") and "online_update" not in efficient.__all__
    assert not hasattr(budget, "conversations") and "conversations" not in budget.__all__
    assert efficient._online_update and budget._conversations


# --- T4-08: the answer is not in memory while the learner's function runs ----------------------------------


def _same_args(case, args):
    return (
        isinstance(case, Case)
        and len(case.args) == len(args)
        and all(np.array_equal(a, b) for a, b in zip(case.args, args, strict=True))
    )


def _answer_of(case):
    """What a Case holds: its answer, or the checker's recipe for it, which the learner then runs."""
    if isinstance(case.expected, Reference):
        return case.expected.fn(*case.args, **case.kwargs)
    return case.expected


def answer_from_the_checkers_frames(*args):
    """Looks through every thread's frames for the case being checked and returns its answer."""
    for frame in sys._current_frames().values():
        while frame is not None:
            for value in list(frame.f_locals.values()):
                cases = value if isinstance(value, list) else [value]
                for case in cases:
                    if _same_args(case, args):
                        return _answer_of(case)
            frame = frame.f_back
    return None


def answer_from_the_garbage_collector(*args):
    """Looks through every object the garbage collector tracks for the case being checked."""
    for obj in gc.get_objects():
        if _same_args(obj, args):
            return _answer_of(obj)
    return None


ANSWERED_BEFORE_THE_CALL = [
    ex.run_hide_mask_checks,  # notebook 08
    ex.run_padding_mask_checks,  # notebook 09
    ex.run_online_update_checks,  # notebook 11
    ex.run_conversations_checks,  # notebook 12
    ex.run_temperature_checks,  # notebook 13
    ex.run_top_k_checks,
    ex.run_top_p_checks,
    ex.run_cached_generation_checks,
]


@pytest.mark.parametrize("cheat", [answer_from_the_checkers_frames, answer_from_the_garbage_collector])
@pytest.mark.parametrize("run", ANSWERED_BEFORE_THE_CALL, ids=lambda run: run.__name__)
def test_a_function_that_looks_for_the_answer_finds_none(run, cheat):
    result = run(cheat, forbid=())
    assert not result.ok, result.verdict("en")
    assert result.key in ("forbidden_call", "forbidden_call_inside", "not_implemented"), result.verdict("en")


@pytest.mark.parametrize(
    "cases",
    [
        training._hide_cases,
        translation._padding_cases,
        efficient._online_cases,
        budget._budget_cases,
        generation._temperature_cases,
        generation._top_k_cases,
        generation._top_p_cases,
        generation._generation_cases,
    ],
    ids=lambda cases: cases.__module__,
)
def test_every_case_holds_a_recipe_not_an_answer(cases):
    assert all(isinstance(case.expected, Reference) for case in cases())


# --- T4-09: RMSNorm's eps ----------------------------------------------------------------------------


def rms_with_its_own_eps(own):
    """A learner's RMSNorm that takes eps and uses a constant of its own instead."""

    def rms(x, gain, eps):
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + own) * gain

    return rms


def test_the_rms_norm_cases_vary_eps_and_one_needs_it():
    cases = decoder_parts._rms_cases()
    eps = [case.args[2] for case in cases]
    assert len(set(eps)) >= 3, eps
    large = [case for case in cases if case.args[2] >= 1e-2]
    assert large, eps
    x, _, e = large[0].args
    square = (x * x).mean(axis=-1)
    assert (square < 10 * e).all() and (square > e / 10).all()  # rows of x the same size as eps: eps matters
    for case in cases:
        assert f"eps = {case.args[2]:g}" in case.shapes


@pytest.mark.parametrize("own", [1e-5, 1e-6, 1e-4])
def test_a_function_that_ignores_eps_is_told_so(own):
    result = ex.run_rms_norm_checks(rms_with_its_own_eps(own))
    assert (result.ok, result.key) == (False, "rms_eps_ignored"), result.verdict("en")
    given = result.case.args[2]
    assert result.fields["eps"] == f"{given:g}" and float(result.fields["used"]) == pytest.approx(own, rel=1e-2)
    en, zh = result.verdict("en"), result.verdict("zh")
    assert rendered(result, "en") in en and "ignore" in en and f"eps = {given:g}" in en
    assert rendered(result, "zh") in zh and re.search(r"[\u4e00-\u9fff]", zh) and "eps" in zh


def test_a_function_that_uses_the_eps_it_is_given_passes():
    def rms(x, gain, eps):
        return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps) * gain

    assert ex.run_rms_norm_checks(rms).ok


def test_the_qk_norm_cases_vary_eps_and_a_fixed_eps_is_named():
    cases = gemma._qk_cases()
    assert len({case.args[2] for case in cases}) == 3, [case.args[2] for case in cases]
    result = ex.run_qk_norm_checks(rms_with_its_own_eps(1e-6))
    assert not result.ok and result.key == "rms_eps_ignored", result.verdict("en")
    for lang in ("en", "zh"):
        assert "0.01" in result.verdict(lang) and "1e-06" in result.verdict(lang), result.verdict(lang)
