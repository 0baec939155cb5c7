"""Shared pytest setup, for the unit tests and for nbval's notebook runs alike."""

import os

import pytest

# A missing Chinese glyph is only a warning in matplotlib; the course treats it as an error, here
# and in the notebook kernels nbval starts (they inherit this environment variable).
os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"

# In CI every check must run: a test that would skip (no Chromium, no PyTorch, no model files, no
# package index) fails there instead, with its reason. On a learner's machine skips stay skips.
IN_CI = bool(os.environ.get("CI"))


def _fail_skips(report):
    if IN_CI and report.skipped and not hasattr(report, "wasxfail"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"skipped in CI, where every check must run: {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skips(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skips(outcome.get_result())
