"""Notebook 14's checkers of a decoder's parts: each classic mistake, written as a learner would, gets its diagnosis.

Correct learner-style code passes, in float64 and float32; attn_lib's own functions are refused (the
exercise asks for the learner's code); every wrong version below is diagnosed with exactly the i18n key
next to it (test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed, stable_softmax

from attn_lib import exercises as ex
from attn_lib.block import gelu, rms_norm, silu, swiglu
from attn_lib.i18n import t

# --- learner-style code -----------------------------------------------------------------------------


def learner_rms(x, gain, eps=1e-5, axis=-1, centre=False, eps_outside=False, use_gain=True, root=True, total=False):
    if centre:
        x = x - x.mean(axis=axis, keepdims=True)
    square = (x * x).sum(axis=axis, keepdims=True) if total else (x * x).mean(axis=axis, keepdims=True)
    if eps_outside:
        scale = np.sqrt(square) + eps
    else:
        scale = np.sqrt(square + eps) if root else square + eps
    y = x / scale
    return y * gain if use_gain else y


def learner_swiglu(x, w_gate, w_up, w_down, act=None, swap=False, after=False):
    act = (lambda z: z / (1 + np.exp(-z))) if act is None else act
    gate, up = (x @ w_up, x @ w_gate) if swap else (x @ w_gate, x @ w_up)
    hidden = act(gate * up) if after else act(gate) * up
    return hidden @ w_down


def learner_decode(q_t, k_t, v_t, keys, values, append_before=True, grow=True, front=False, spread="repeat",
                   scale=None, first_row=False):  # fmt: skip
    grown_k = np.concatenate([k_t[:, None], keys] if front else [keys, k_t[:, None]], axis=1)  # [h_kv, t + 1, d_k]
    grown_v = np.concatenate([v_t[:, None], values] if front else [values, v_t[:, None]], axis=1)
    k_use, v_use = (grown_k, grown_v) if append_before else (keys, values)
    if first_row:
        k_use, v_use = k_use[:, :1], v_use[:, :1]
    g = q_t.shape[0] // keys.shape[0]
    if spread == "repeat":
        k_all, v_all = np.repeat(k_use, g, axis=0), np.repeat(v_use, g, axis=0)  # [h, n, d]
    elif spread == "tile":
        k_all, v_all = np.tile(k_use, (g, 1, 1)), np.tile(v_use, (g, 1, 1))
    else:  # not repeated at all: q's h heads meet k's h_kv heads (a broadcasting error when they differ)
        k_all, v_all = k_use, v_use
    scale = 1 / np.sqrt(q_t.shape[-1]) if scale is None else scale
    scores = (q_t[:, None, :] @ np.swapaxes(k_all, -1, -2))[:, 0] * scale  # [h, 1, d] x [h, d, n] -> [h, n]
    weights = stable_softmax(scores)
    output = (weights[:, None, :] @ v_all)[:, 0]  # [h, 1, n] x [h, n, d_v] -> [h, d_v]
    return (output, grown_k, grown_v) if grow else (output, keys, values)


# --- wrong versions, each with the diagnosis it must get ----------------------------------------------

WRONG = [
    ("rms_norm", "rms_mean_subtracted", lambda x, g, eps: learner_rms(x, g, eps, centre=True)),
    ("rms_norm", "rms_eps_outside", lambda x, g, eps: learner_rms(x, g, eps, eps_outside=True)),
    ("rms_norm", "rms_wrong_axis", lambda x, g, eps: learner_rms(x, g, eps, axis=-2)),
    ("rms_norm", "rms_no_gain", lambda x, g, eps: learner_rms(x, g, eps, use_gain=False)),
    ("rms_norm", "rms_no_sqrt", lambda x, g, eps: learner_rms(x, g, eps, root=False)),
    ("rms_norm", "rms_eps_missing", lambda x, g, eps: learner_rms(x, g, 0.0)),
    ("rms_norm", "rms_eps_ignored", lambda x, g, eps: learner_rms(x, g, 1e-5)),  # its own eps, not the one given
    ("rms_norm", "rms_l2_norm", lambda x, g, eps: learner_rms(x, g, eps, total=True)),  # x / ||x||_2, eps inside
    ("rms_norm", "rms_l2_norm", lambda x, g, eps: x / np.linalg.norm(x, axis=-1, keepdims=True) * g),
    ("rms_norm", "wrong_values", lambda x, g, eps: learner_rms(x, g, eps) + 0.1),
    ("swiglu", "swiglu_swapped", lambda x, wg, wu, wd: learner_swiglu(x, wg, wu, wd, swap=True)),
    ("swiglu", "swiglu_gelu", lambda x, wg, wu, wd: learner_swiglu(x, wg, wu, wd, act=gelu)),
    (
        "swiglu",
        "swiglu_sigmoid",
        lambda x, wg, wu, wd: learner_swiglu(x, wg, wu, wd, act=lambda z: 1 / (1 + np.exp(-z))),
    ),
    ("swiglu", "swiglu_silu_of_product", lambda x, wg, wu, wd: learner_swiglu(x, wg, wu, wd, after=True)),
    ("swiglu", "swiglu_no_down", lambda x, wg, wu, wd: silu(x @ wg) * (x @ wu)),
    ("grouped_decode_step", "decode_not_appended", lambda *a: learner_decode(*a, append_before=False)),
    ("grouped_decode_step", "decode_cache_not_grown", lambda *a: learner_decode(*a, grow=False)),
    ("grouped_decode_step", "decode_appended_first", lambda *a: learner_decode(*a, front=True)),
    ("grouped_decode_step", "gqa_tiled", lambda *a: learner_decode(*a, spread="tile")),
    ("grouped_decode_step", "gqa_not_repeated", lambda *a: learner_decode(*a, spread="none")),
    ("grouped_decode_step", "decode_first_row", lambda *a: learner_decode(*a, first_row=True)),
    ("grouped_decode_step", "scale_missing", lambda *a: learner_decode(*a, scale=1.0)),
    ("grouped_decode_step", "scale_dk", lambda *a: learner_decode(*a, scale=1 / a[0].shape[-1])),
    ("grouped_decode_step", "decode_not_triple", lambda *a: learner_decode(*a)[0]),
    ("grouped_decode_step", "decode_empty_cache", lambda *a: decode_needing_a_cached_token(*a)),
]


def decode_needing_a_cached_token(q_t, k_t, v_t, keys, values):
    keys[:, -1]  # noqa: B018  (an IndexError on an empty cache, as a learner's 'the last cached key' would give)
    return learner_decode(q_t, k_t, v_t, keys, values)


RUN = {
    "rms_norm": ex.run_rms_norm_checks,
    "swiglu": ex.run_swiglu_checks,
    "grouped_decode_step": ex.run_grouped_decode_step_checks,
}
CHECK = {
    "rms_norm": ex.check_rms_norm,
    "swiglu": ex.check_swiglu,
    "grouped_decode_step": ex.check_grouped_decode_step,
}
LEARNER_CORRECT = {"rms_norm": learner_rms, "swiglu": learner_swiglu, "grouped_decode_step": learner_decode}


def attn_lib_decode(q_t, k_t, v_t, keys, values):
    from attn_lib.grouped import grouped_attention

    keys, values = np.concatenate([keys, k_t[:, None]], axis=1), np.concatenate([values, v_t[:, None]], axis=1)
    return grouped_attention(q_t[:, None], keys, values)[0][:, 0], keys, values


ATTN_LIB = {"rms_norm": rms_norm, "swiglu": swiglu, "grouped_decode_step": attn_lib_decode}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_learner_code_passes_in_float64_and_float32(exercise, capsys):
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1

    def in_float32(*args):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
        return LEARNER_CORRECT[exercise](*args)

    assert RUN[exercise](in_float32).ok, RUN[exercise](in_float32).verdict("en")


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_attn_libs_own_function_is_refused_by_default(exercise):
    result = RUN[exercise](ATTN_LIB[exercise])
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert RUN[exercise](ATTN_LIB[exercise], forbid=()).ok


def test_the_diagnoses_name_the_case_that_shows_the_mistake():
    result = ex.run_rms_norm_checks(WRONG[1][2])  # eps outside the root: only the tiny vector shows it
    assert result.case.kind == "case_rms_tiny" and "sqrt(mean(x²) + eps)" in result.verdict("en")
    result = ex.run_grouped_decode_step_checks(lambda *a: learner_decode(*a, grow=False))
    assert result.fields == {"t": 4} and "[h_kv, t + 1, d]" in result.verdict("en")
    assert ex.run_swiglu_checks(lambda *a: None).key == "not_implemented"
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_rms_norm(learner_rms, lang="fr")


def test_the_l2_norm_is_told_apart_by_its_factor_sqrt_d():
    # x / ||x||_2 is RMSNorm divided by sqrt(d): the verdict names the norm and the factor of the failing case
    result = ex.run_rms_norm_checks(lambda x, g, eps: learner_rms(x, g, eps, total=True))
    d = result.case.args[0].shape[-1]
    assert result.fields == {"d": d, "sqrt_d": f"{np.sqrt(d):.3f}"}
    assert f"√d = {np.sqrt(d):.3f} times too small" in result.verdict("en")
    assert f"1/√d = 1/{np.sqrt(d):.3f}" in result.verdict("zh")
