"""Hardening of notebook 13's sampling code: temperature overflow and float16 (T4-03), the numbers in the top-k and
top-p verdicts (T4-14), the checkers' unstable-softmax cases (T4-07) and the bound on the bar charts' `top` (T4-12).
"""

import ast
import json
import re
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib.core import softmax
from attn_lib.exercises import generation as gen_checks
from attn_lib.exercises.diagnose import resolved
from attn_lib.pictures import generation_plots, plot_next_token, plot_sampling_filters
from attn_lib.sampling import apply_temperature, sample, sampler, sampling_distribution

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"

# --- T4-03: the temperature divides float16 logits in float32 and refuses an overflow -----------------------------


@pytest.mark.parametrize(
    ("logits", "temperature"),
    [([60000.0, 0.0, -10.0], 0.5), ([1.0, 0.5], 1e-5)],
    ids=["60000 at T = 0.5", "1 at T = 1e-5"],
)
def test_float16_logits_are_divided_in_float32(logits, temperature):
    z = np.array(logits, dtype=np.float16)
    scaled = apply_temperature(z, temperature)
    assert scaled.dtype == np.float32 and np.isfinite(scaled).all()
    np.testing.assert_allclose(scaled, z.astype(np.float64) / temperature, rtol=1e-6)
    probs = sampling_distribution(z, temperature)
    np.testing.assert_allclose(probs, softmax(z.astype(np.float64) / temperature), atol=1e-12)
    assert sample(z, np.random.default_rng(0), temperature) == 0  # the largest logit, all but certain


@pytest.mark.parametrize(
    ("dtype", "temperature"),
    [(np.float32, 1e-50), (np.float32, 1e-40), (np.float64, 1e-320)],
    ids=["float32 at 1e-50", "float32 at 1e-40", "float64 at 1e-320"],
)
def test_a_temperature_that_overflows_a_logit_is_refused_with_the_smallest_that_fits(dtype, temperature):
    z = np.array([[0.25, -np.inf], [1.0, 0.5]], dtype=dtype)
    for call in (
        lambda: apply_temperature(z, temperature),
        lambda: sampling_distribution(z, temperature, top_k=1),
        lambda: sample(z, np.random.default_rng(0), temperature),
        lambda: sampler(0, temperature)(z),
    ):
        with pytest.raises(ValueError, match=r"temperature=\S+ is too small for these logits") as caught:
            call()
        message = str(caught.value)
        assert "logits[0, 0] / temperature = 0.25 /" in message and f"overflows {np.dtype(dtype)}" in message
        assert "greedy(logits)" in message and ("float64 logits" in message) == (dtype != np.float64)
    smallest = float(re.search(r"at least (\S+?)[ ,]", message).group(1))
    scaled = apply_temperature(z, smallest)  # the temperature the message names fits
    assert np.isfinite(scaled[np.isfinite(z)]).all() and np.isneginf(scaled[0, 1])


def test_a_filtered_token_stays_minus_inf_at_a_tiny_temperature():
    scaled = apply_temperature(np.array([3.0, -np.inf]), 1e-300)
    assert scaled[0] == pytest.approx(3e300) and np.isneginf(scaled[1])


def test_any_real_number_is_a_temperature_fractions_included():
    z = np.array([1.0, 2.0, -0.5])
    np.testing.assert_array_equal(apply_temperature(z, Fraction(1, 2)), apply_temperature(z, 0.5))
    np.testing.assert_array_equal(sampling_distribution(z, Fraction(3, 2)), sampling_distribution(z, 1.5))
    assert sampler(3, temperature=Fraction(3, 2))(z) == sampler(3, temperature=1.5)(z)
    with pytest.raises(ValueError, match=r"temperature=Fraction\(1, 1000.* too close to 0 to be a float"):
        apply_temperature(z, Fraction(1, 10**400))
    with pytest.raises(ValueError, match=r"temperature=1000.* is larger than a float can hold"):
        apply_temperature(z, 10**400)
    with pytest.raises(ValueError, match=r"temperature=Fraction\(-1, 3\) must be a finite number > 0"):
        sampler(temperature=Fraction(-1, 3))


# --- T4-14: the top-k and top-p verdicts write numbers as numbers ----------------------------------------------


@pytest.mark.parametrize(
    ("run", "shown"),
    [
        (ex.run_top_k_checks, "logits [3.65, -6.16, 1.92, 0.14, 2.64, 0.77, "),  # then the 7th, 0.06], k = 3
        (ex.run_top_p_checks, "probabilities [0.05, 0.4, 0.1, 0.25, 0.2], p = 0.6"),
    ],
    ids=["top_k", "top_p"],
)
def test_the_failing_input_is_written_without_numpys_repr(run, shown):
    result = run(lambda z, arg: np.ones_like(z))
    for lang in ("en", "zh"):
        verdict = result.verdict(lang)
        assert shown in verdict and "np.float64" not in verdict, verdict


def test_the_cases_without_ties_have_no_ties():
    """The seeded draw repeated 3.65: "no ties" had a tie, and "k = 1" kept two tokens."""
    for case in gen_checks._top_k_cases():
        z, k = case.args
        if case.kind in ("case_topk_plain", "case_topk_one"):
            assert len(set(z.tolist())) == len(z) and (resolved(case).expected > 0).sum() == k, case.shapes


# --- T4-07: the checkers diagnose a softmax without the maximum, or with one maximum for the batch ----------------


def naive_softmax(x):
    e = np.exp(x)  # overflows past 709.78
    return e / e.sum(axis=-1, keepdims=True)


def global_max_softmax(x):
    e = np.exp(x - x.max())  # one maximum for the whole batch: a row far below it underflows to 0 / 0
    return e / e.sum(axis=-1, keepdims=True)


def naive_top_k(logits, k):
    kept = logits >= np.sort(logits)[-k]
    e = np.exp(np.where(kept, logits, -np.inf))
    return e / e.sum()


def naive_top_p(logits, p):
    probs = naive_softmax(logits)
    order = np.argsort(-probs)
    before = np.cumsum(probs[order]) - probs[order]
    kept = np.zeros(len(probs), dtype=bool)
    kept[order[before < p]] = True
    return np.where(kept, probs, 0.0) / probs[kept].sum()


UNSTABLE = [
    ("temperature", "softmax_overflow", "case_large", lambda z, t: naive_softmax(z / t)),
    ("temperature", "softmax_global_max", "case_temp_rows_apart", lambda z, t: global_max_softmax(z / t)),
    ("top_k", "softmax_overflow", "case_large", naive_top_k),
    ("top_p", "softmax_overflow", "case_topp_wide", naive_top_p),
]
RUN = {"temperature": ex.run_temperature_checks, "top_k": ex.run_top_k_checks, "top_p": ex.run_top_p_checks}
CHECK = {"temperature": ex.check_temperature, "top_k": ex.check_top_k, "top_p": ex.check_top_p}


@pytest.mark.parametrize(("exercise", "key", "kind", "fn"), UNSTABLE, ids=[f"{e}-{k}" for e, k, _, _ in UNSTABLE])
def test_an_unstable_softmax_is_diagnosed_in_both_languages(exercise, key, kind, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)
    result = RUN[exercise](fn)
    assert result.case.kind == kind
    assert "each row's own maximum" in result.verdict("en") or "Subtract the row maximum" in result.verdict("en")
    assert "每一行自己的最大值" in result.verdict("zh") or "先减去每行的最大值" in result.verdict("zh")


def test_the_large_cases_are_past_exps_overflow_and_the_batch_rows_far_apart():
    assert gen_checks.EXP_OVERFLOW == pytest.approx(709.78, abs=0.01)
    large = {case.kind: case.args[0] for case in gen_checks._top_k_cases() + gen_checks._top_p_cases()}
    assert large["case_large"].max() > 710 and large["case_topp_wide"].max() > 710
    (apart,) = [case for case in gen_checks._temperature_cases() if case.kind == "case_temp_rows_apart"]
    z, t = apart.args
    assert z.ndim == 2 and (z / t).max(axis=-1).max() - (z / t).max(axis=-1).min() > 1900  # exp(-745) is 0


def notebook_solutions(lang):
    """The solution_* functions of notebook 13 (the course's answers), defined from the notebook's own cells."""
    cells = json.loads((NOTEBOOKS / lang / "13_generating_text.ipynb").read_text(encoding="utf-8"))["cells"]
    defs = []
    for cell in cells:
        if cell["cell_type"] == "code" and "def solution_" in "".join(cell["source"]):
            tree = ast.parse("".join(cell["source"]))
            defs += [
                node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("solution")
            ]
    namespace = {"np": np}
    exec(compile(ast.Module(body=defs, type_ignores=[]), f"13_generating_text ({lang})", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("exercise", sorted(RUN))
def test_the_courses_solutions_still_pass(exercise, lang):
    solution = notebook_solutions(lang)[f"solution_{exercise}"]
    result = RUN[exercise](solution)
    assert result.ok, result.verdict("en")
    assert RUN[exercise](lambda z, arg: solution(np.asarray(z, dtype=np.float32), arg)).ok  # float32 too


# --- T4-12: the bar charts draw at most MAX_BARS bars a panel ----------------------------------------------------

MAX_BARS = 30  # the limit the finding asks for (generation_plots.MAX_BARS)
TOKENS = [f"w{i}" for i in range(40)]
LOGITS = np.linspace(2.0, -2.0, 40)


def test_top_is_bounded_with_an_error_that_states_the_limit():
    probs = softmax(LOGITS)
    start = time.process_time()
    with pytest.raises(ValueError, match=r"top=31 is too many bars: plot_next_token draws at most 30 .* top <= 30"):
        plot_next_token([("model", TOKENS, probs)], top=MAX_BARS + 1)
    with pytest.raises(ValueError, match=r"top=1000 is too many bars: plot_sampling_filters draws at most 30"):
        plot_sampling_filters(LOGITS, TOKENS, top=1000)
    assert time.process_time() - start < 2.0  # refused before anything is drawn
    assert generation_plots.MAX_BARS == MAX_BARS


def test_top_at_the_limit_still_draws():
    fig = plot_next_token([("model", TOKENS, softmax(LOGITS))], top=MAX_BARS)
    assert [label.get_text() for label in fig.axes[0].get_xticklabels()][:2] == ["w0", "w1"]
    assert len(fig.axes[0].patches) == MAX_BARS + 1  # and one grey bar for the other 10
    fig = plot_sampling_filters(LOGITS, TOKENS, top=MAX_BARS)
    assert all(len([p for p in ax.patches if p.get_fill()]) == MAX_BARS + 1 for ax in fig.axes)
