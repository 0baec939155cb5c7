"""The learner's readiness check, python -m attn_lib.check: one line per check, a verdict, exit status 0 / 1.

Each check is run as it is on a ready machine and, with the part it checks broken, as it is on a machine that is
not ready: a font without Chinese glyphs, no model files, a damaged model file, a missing or old library, an old
Python, a widget that does not redraw, a check that raises. None of them crashes the check: each gives a ✗ line.
"""

import io
import subprocess
import sys
from pathlib import Path

import pytest

from attn_lib import check
from attn_lib.models import fetch

ROOT = Path(__file__).resolve().parents[1]


def model_present():
    try:
        for spec in fetch.MODELS:
            fetch.find_model_files(download=False, verify=False, spec=spec)
    except fetch.ModelNotAvailableError:
        return False
    return True


def test_on_this_machine_every_check_passes_and_the_command_exits_0():
    if not model_present():
        pytest.skip("the model files of notebooks 10, 14 and 15 are not here: run python -m attn_lib.models.fetch")
    result = subprocess.run(
        [sys.executable, "-m", "attn_lib.check"], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(lines) == len(check.checks()) + 2 and all(line.startswith("✓ ") for line in lines[1:-1]), lines
    assert lines[-1].startswith(f"Ready: all {len(check.checks())} checks passed")
    assert any("猫吃鱼" in line for line in lines) and any("widget" in line for line in lines)
    assert any("notebook 14 (SmolLM2-135M-Instruct)" in line for line in lines)


def test_a_font_without_chinese_glyphs_fails_with_a_line():
    ok, line = check.check_font(lang="en", family="DejaVu Sans")
    assert not ok and "lacks glyphs" in line and "猫" in line and "CJK font" in line


def test_missing_model_files_fail_with_the_command_that_fetches_them(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path))
    monkeypatch.setattr(fetch, "installed_model_dir", lambda spec=None: None)
    ok, line = check.check_model(lang="en")
    assert not ok and "python -m attn_lib.models.fetch" in line
    assert not any(tmp_path.rglob("*.safetensors")), "the check must not fetch anything"
    ok, line = check.check_model(lang="zh")
    assert not ok and "缺少第 7 课和第 10 课要用的 all-MiniLM-L6-v2 模型文件" in line, line
    ok, line = check.check_model(lang="en")
    assert not ok and "the model files of notebook 07 and notebook 10 (all-MiniLM-L6-v2) are missing" in line, line
    ok, line = check.check_model(lang="en", spec=fetch.SMOLLM2, number=14)
    assert not ok and "notebook 14 (SmolLM2-135M-Instruct) are missing" in line
    assert not any(tmp_path.rglob("*.gguf")), "the check must not fetch anything"


def test_a_damaged_model_file_fails(tmp_path, monkeypatch):
    folder = tmp_path / "minilm"
    folder.mkdir()
    for name in fetch.MODEL_FILES:
        (folder / name).write_bytes(b"not the model")
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path))
    monkeypatch.setattr(fetch, "installed_model_dir", lambda spec=None: None)
    ok, line = check.check_model(lang="en")
    assert not ok and "damaged" in line and "SHA-256" in line and f"delete the folder {folder}" in line


def test_libraries_and_python_fail_when_missing_or_old():
    ok, line = check.check_library("no-such-distribution-attn", "1.0", lang="en")
    assert not ok and "not installed" in line and "requirements.txt" in line
    ok, line = check.check_library("numpy", "1.26", lang="en", version_of=lambda name: "1.9.3")
    assert not ok and "older than 1.26" in line
    assert check.check_library("numpy", "1.26", lang="en", version_of=lambda name: "2.0.0rc1")[0]
    assert not check.check_python(lang="en", version=(3, 9, 18))[0]
    assert check.check_python(lang="en", version=(3, 12, 1))[0]
    assert check._version_tuple("2.1.0rc1") == (2, 1, 0) < check._version_tuple("2.10")


class _StuckWidget:
    """A widget whose picture never changes (a broken redraw)."""

    def __init__(self, lang=None):
        self.controls = {"temperature": type("Slider", (), {"value": 1.0})()}
        self.state = {"error": None}
        self.image = type("Image", (), {"value": b"png"})()


def test_a_widget_that_does_not_redraw_fails():
    ok, line = check.check_widget(lang="en", build=_StuckWidget)
    assert not ok and "did not change" in line
    ok, line = check.check_widget(lang="en")
    assert ok and "480 × " in line


def test_a_check_that_raises_is_a_failed_line_and_the_others_still_run():
    def broken():
        raise RuntimeError("no display")

    out = io.StringIO()
    status = check.run("en", out=out, items=[("boom", broken), ("Python", lambda: check.check_python("en"))])
    lines = out.getvalue().strip().splitlines()
    assert status == 1
    assert lines[1] == "✗ boom: the check itself failed: RuntimeError: no display"
    assert lines[2].startswith("✓ Python") and lines[3].startswith("Not ready: 1 of 2 checks failed")
    out = io.StringIO()
    assert check.run("zh", out=out, items=[("Python", lambda: check.check_python("zh"))]) == 0
    assert "可以开始了" in out.getvalue()
