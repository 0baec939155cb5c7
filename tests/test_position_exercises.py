"""Notebook 07's checkers: each classic mistake, written as a learner would, gets its own diagnosis.

Correct learner-style code and attn_lib's own functions pass, in float64 and float32; every wrong
version below is diagnosed with exactly the i18n key next to it (test_exercises.py counts these keys
when it asks that every diagnosis in attn_lib.i18n is reached by a test).
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib import scaled_dot_product_attention
from attn_lib.block import layer_norm
from attn_lib.i18n import t
from attn_lib.position import rope, rope_matrix, sinusoidal_encoding

# --- learner-style code -----------------------------------------------------------------------------


def learner_sinusoid(n, d_model, base=10000, first=np.sin, second=np.cos, positions=None):
    positions = np.arange(n) if positions is None else positions
    div = base ** (np.arange(0, d_model, 2) / d_model)  # 10000^(2i/d_model), i = 0 .. d_model/2 - 1
    pe = np.zeros((n, d_model))
    pe[:, 0::2] = first(positions[:, None] / div)
    pe[:, 1::2] = second(positions[:, None] / div)
    return pe


def learner_rotate(x, base=10000.0, sign=1.0, exponent=2):
    """RoPE as a learner writes it: pairs (2i, 2i+1), angle m * base^(-exponent * i / d)."""
    n, d = x.shape[-2:]
    theta = base ** (-exponent * np.arange(d // 2) / d)  # [d/2]
    angle = sign * np.arange(n)[:, None] * theta  # [n, d/2]
    cos, sin = np.cos(angle), np.sin(angle)
    a, b = x[..., 0::2], x[..., 1::2]
    out = np.empty_like(x)
    out[..., 0::2] = a * cos - b * sin
    out[..., 1::2] = a * sin + b * cos
    return out


def learner_rotate_half(x, base=10000.0):
    """The GPT-NeoX / Hugging Face LLaMA layout: feature i paired with feature i + d/2."""
    n, d = x.shape[-2:]
    angle = np.arange(n)[:, None] * base ** (-np.arange(0, d, 2) / d)  # [n, d/2]
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return np.concatenate([x1 * np.cos(angle) - x2 * np.sin(angle), x1 * np.sin(angle) + x2 * np.cos(angle)], -1)


def learner_rope_attention(q, k, v, mask=None, rotate=learner_rotate, on=("q", "k"), scale=None):
    q = rotate(q) if "q" in on else q
    k = rotate(k) if "k" in on else k
    v = rotate(v) if "v" in on else v
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1] if scale is None else scale)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = e / e.sum(axis=-1, keepdims=True)
    return weights @ v, weights


def learner_layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def _ln(x, gamma, beta, axis=-1, ddof=0, eps=1e-5):
    mean = x.mean(axis=axis, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axis, ddof=ddof, keepdims=True) + eps) * gamma + beta


def _exponent_by_column(n, d_model):
    pe = np.zeros((n, d_model))
    for pos in range(n):
        for j in range(d_model):
            angle = pos / 10000 ** (j / d_model)  # the column index, not 2i
            pe[pos, j] = np.sin(angle) if j % 2 == 0 else np.cos(angle)
    return pe


def _integer_division(n, d_model):
    i = np.arange(d_model // 2)
    div = 10000 ** (2 * i // d_model)  # integer division: always 0
    pe = np.zeros((n, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(np.arange(n)[:, None] / div), np.cos(np.arange(n)[:, None] / div)
    return pe


def _halves(n, d_model):
    angle = np.arange(n)[:, None] / 10000 ** (np.arange(0, d_model, 2) / d_model)
    return np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)


def _times(n, d_model):
    angle = np.arange(n)[:, None] * 10000 ** (np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((n, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def _pair_exponent(n, d_model):
    angle = np.arange(n)[:, None] / 10000 ** (np.arange(d_model // 2) / d_model)  # i/d, not 2i/d
    pe = np.zeros((n, d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def _rope_without_mask_parameter(q, k, v):
    return learner_rope_attention(q, k, v)


def _rope_dot_t(q, k, v, mask=None):
    q, k = learner_rotate(q), learner_rotate(k)
    weights = scaled_dot_product_attention(q, k, v, mask=mask)[1] if q.ndim == 2 else q @ k.T
    return weights @ v, weights


def _no_eps(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / x.std(axis=-1, keepdims=True) * gamma + beta


def _rms(x, gamma, beta, eps=1e-5):
    return x / np.sqrt((x**2).mean(axis=-1, keepdims=True) + eps) * gamma + beta


def _no_keepdims(x, gamma, beta, eps=1e-5):
    return (x - x.mean(axis=-1)) / np.sqrt(x.var(axis=-1) + eps) * gamma + beta


def _by_variance(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / (x.var(axis=-1, keepdims=True) + eps) * gamma + beta


WRONG = [
    # sinusoidal encoding
    ("sinusoidal_encoding", "pe_swapped", lambda n, d: learner_sinusoid(n, d, first=np.cos, second=np.sin)),
    ("sinusoidal_encoding", "pe_halves", _halves),
    ("sinusoidal_encoding", "pe_exponent_column", _exponent_by_column),
    ("sinusoidal_encoding", "pe_exponent_pair", _pair_exponent),
    ("sinusoidal_encoding", "pe_integer_division", _integer_division),
    ("sinusoidal_encoding", "pe_times", _times),
    ("sinusoidal_encoding", "pe_from_one", lambda n, d: learner_sinusoid(n, d, positions=np.arange(1, n + 1))),
    ("sinusoidal_encoding", "pe_sin_only", lambda n, d: learner_sinusoid(n, d, second=np.sin)),
    ("sinusoidal_encoding", "pe_base", lambda n, d: learner_sinusoid(n, d, base=1000)),
    ("sinusoidal_encoding", "pe_base", lambda n, d: learner_sinusoid(n, d, base=50_000)),
    ("sinusoidal_encoding", "pe_transposed", lambda n, d: learner_sinusoid(n, d).T),
    ("sinusoidal_encoding", "wrong_values", lambda n, d: learner_sinusoid(n, d) * 0.5),
    # attention with RoPE
    ("rope", "rope_not_applied", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, on=())),
    ("rope", "rope_only_q", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, on=("q",))),
    ("rope", "rope_only_k", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, on=("k",))),
    ("rope", "rope_rotated_v", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, on=("q", "k", "v"))),
    ("rope", "rope_half_pairs", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, learner_rotate_half)),
    (
        "rope",
        "rope_direction",
        lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, lambda x: learner_rotate(x, sign=-1)),
    ),
    (
        "rope",
        "rope_exponent_pair",
        lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, lambda x: learner_rotate(x, exponent=1)),
    ),
    (
        "rope",
        "rope_base",
        lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, lambda x: learner_rotate(x, base=1000)),
    ),
    ("rope", "scale_missing", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, scale=1)),
    ("rope", "attn_mask_ignored", lambda q, k, v, mask=None: learner_rope_attention(q, k, v)),
    ("rope", "mask_argument", _rope_without_mask_parameter),
    ("rope", "batch_transpose", _rope_dot_t),
    ("rope", "attn_pair_order", lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask)[::-1]),
    # layer norm
    ("layer_norm", "ln_wrong_axis", lambda x, g, b, eps=1e-5: _ln(x, g, b, axis=-2)),
    ("layer_norm", "ln_wrong_axis", lambda x, g, b, eps=1e-5: _ln(x, g, b, axis=0) if x.ndim == 2 else None),
    ("layer_norm", "ln_all_axes", lambda x, g, b, eps=1e-5: (x - x.mean()) / np.sqrt(x.var() + eps) * g + b),
    ("layer_norm", "ln_unbiased", lambda x, g, b, eps=1e-5: _ln(x, g, b, ddof=1)),
    ("layer_norm", "ln_rms", _rms),
    ("layer_norm", "ln_no_affine", lambda x, g, b, eps=1e-5: _ln(x, 1.0, 0.0)),
    ("layer_norm", "ln_gamma_beta_swapped", lambda x, g, b, eps=1e-5: _ln(x, b, g)),
    ("layer_norm", "ln_var_not_std", _by_variance),
    ("layer_norm", "ln_eps_missing", _no_eps),
    ("layer_norm", "ln_keepdims", _no_keepdims),
    ("layer_norm", "wrong_values", lambda x, g, b, eps=1e-5: _ln(x, g, b) + 0.1),
]

RUN = {
    "sinusoidal_encoding": ex.run_sinusoidal_encoding_checks,
    "rope": ex.run_rope_checks,
    "layer_norm": ex.run_layer_norm_checks,
}
CHECK = {
    "sinusoidal_encoding": ex.check_sinusoidal_encoding,
    "rope": ex.check_rope,
    "layer_norm": ex.check_layer_norm,
}
REFERENCE = {
    "sinusoidal_encoding": sinusoidal_encoding,
    "rope": lambda q, k, v, mask=None: scaled_dot_product_attention(rope(q), rope(k), v, mask=mask),
    "layer_norm": lambda x, gamma, beta, eps=1e-5: layer_norm(x, gamma, beta, eps),
}
LEARNER_CORRECT = {
    "sinusoidal_encoding": learner_sinusoid,
    "rope": learner_rope_attention,
    "layer_norm": learner_layer_norm,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_reference_and_learner_code_pass_in_float64_and_float32(exercise, capsys):
    assert CHECK[exercise](REFERENCE[exercise], lang="en", forbid=()) is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1
    assert RUN[exercise](LEARNER_CORRECT[exercise]).ok

    def in_float32(*args, **kwargs):
        args = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
        return LEARNER_CORRECT[exercise](*args, **kwargs)

    assert RUN[exercise](in_float32).ok, RUN[exercise](in_float32).verdict("en")


LIBRARY_NAME = {  # attn_lib's own function, which each exercise asks the learner to write
    "sinusoidal_encoding": "attn_lib.position.sinusoidal_encoding",
    "rope": "attn_lib.position.rope",
    "layer_norm": "attn_lib.block.layer_norm",
}


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_the_function_an_exercise_asks_for_is_forbidden_by_default(exercise):
    """attn_lib's own function passes every case, but the exercise says "write it yourself" (issue 27, item 3)."""
    result = RUN[exercise](REFERENCE[exercise])
    assert (result.ok, result.key) == (False, "forbidden_call"), result.verdict("en")
    assert result.fields["name"] == LIBRARY_NAME[exercise]
    assert LIBRARY_NAME[exercise] in result.verdict("en") and LIBRARY_NAME[exercise] in result.verdict("zh")
    assert RUN[exercise](REFERENCE[exercise], forbid=()).ok  # forbid=() allows everything


def test_rope_through_its_matrix_is_seen_too():
    def by_matrix(x):
        return np.stack([rope_matrix(m, x.shape[-1]) @ x[..., m, :, None] for m in range(x.shape[-2])], -2)[..., 0]

    result = ex.run_rope_checks(lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, by_matrix))
    assert result.key == "forbidden_call_inside", result.verdict("en")
    assert result.fields == {"name": "attn_lib.position.rope_matrix", "what": "attn_lib.position.rope"}


def test_the_exercises_allow_what_they_do_not_ask_for():
    """check_rope asks for the rotation: attn_lib's attention may do the rest (notebook 07's solution does)."""

    def library_attention(q, k, v, mask=None):
        return scaled_dot_product_attention(learner_rotate(q), learner_rotate(k), v, mask=mask)

    assert ex.run_rope_checks(library_attention).ok


def test_the_wrong_base_is_named():
    result = ex.run_sinusoidal_encoding_checks(lambda n, d: learner_sinusoid(n, d, base=1000))
    assert result.fields == {"base": "1000"}
    assert "1000" in result.verdict("en") and "1000" in result.verdict("zh")


def test_positions_from_one_still_pass_rope_because_only_distances_count():
    """RoPE's relative property: shifting every position by one changes no weight, so no checker should object."""

    def from_one(x):
        return rope(x, positions=np.arange(1, x.shape[-2] + 1))

    assert ex.run_rope_checks(lambda q, k, v, mask=None: learner_rope_attention(q, k, v, mask, from_one), forbid=()).ok


def test_batched_false_skips_the_batch_case():
    assert ex.run_rope_checks(_rope_dot_t, batched=False).ok
    assert ex.run_rope_checks(_rope_dot_t).key == "batch_transpose"


def test_stubs_and_bad_language():
    assert ex.run_layer_norm_checks(lambda x, g, b, eps=1e-5: None).key == "not_implemented"
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_rope(learner_rope_attention, lang="fr")


def test_the_constant_row_case_exists_and_shows_the_nan():
    result = ex.run_layer_norm_checks(_no_eps)
    assert result.case.kind == "case_ln_constant"
    assert t("exercises.case_ln_constant", "en") in result.verdict("en")
