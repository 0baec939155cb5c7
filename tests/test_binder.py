"""Binder's configuration, checked without Docker: repo2docker reads binder/, and the list resolves."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINDER = ROOT / "binder"


def runtime_python():
    """The Python version binder/runtime.txt declares, e.g. "3.11"."""
    match = re.fullmatch(r"python-(3\.\d+)", (BINDER / "runtime.txt").read_text().strip())
    assert match, "binder/runtime.txt must hold one line like python-3.11"
    return match.group(1)


def test_binder_requirements_reuse_the_projects_own():
    lines = [ln.strip() for ln in (BINDER / "requirements.txt").read_text().splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    assert lines == ["-r ../requirements.txt"], "binder/requirements.txt should only point at the root list"


def test_runtime_is_a_supported_python():
    major, minor = map(int, runtime_python().split("."))
    assert (3, 10) <= (major, minor) <= (3, 13)


def test_no_committed_widget_state_in_notebooks():
    import json

    for path in ROOT.glob("notebooks/*/*.ipynb"):
        assert "widgets" not in json.loads(path.read_text(encoding="utf-8")).get("metadata", {}), path


def test_repo2docker_reads_binder_folder(tmp_path):
    """`jupyter-repo2docker --no-build --debug` succeeds and its Dockerfile uses binder/ and our Python."""
    exe = shutil.which("jupyter-repo2docker") or str(Path(sys.executable).parent / "jupyter-repo2docker")
    if not Path(exe).exists():
        pytest.skip("jupyter-repo2docker is not installed (the README's set-up command installs it)")
    # a copy without virtual environments or caches, as a clone would be
    repo = tmp_path / "repo"
    shutil.copytree(ROOT, repo, ignore=shutil.ignore_patterns(".git", ".venv*", "__pycache__", "*.egg-info", ".*cache"))
    result = subprocess.run(
        [exe, "--no-build", "--debug", "--user-id", "1000", "--user-name", "jovyan", str(repo)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    version = runtime_python()
    assert f"python={version}" in log, f"the build does not use Python {version} from runtime.txt:\n{log[:2000]}"
    assert 'pip install --no-cache-dir -r "binder/requirements.txt"' in log, log[-3000:]


def _index_reachable():
    probe = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "pip"], capture_output=True, text=True, timeout=60
    )
    return probe.returncode == 0


def test_binder_requirements_resolve_for_its_python_on_linux(tmp_path):
    """Every requirement (the package's own dependencies included) has a wheel for Binder's Python on Linux."""
    if not _index_reachable():
        pytest.skip("the package index cannot be reached from here; CI reaches it and runs this check")
    tomllib = pytest.importorskip("tomllib", reason="needs Python 3.11+ to read pyproject.toml")
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    wanted = []
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        # the editable install of the course itself: resolve what it depends on instead
        wanted.extend(dependencies if line == "-e ." else [line])
    reqs = tmp_path / "resolved-requirements.txt"
    reqs.write_text("\n".join(wanted) + "\n")
    version = runtime_python()
    cmd = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(tmp_path / "r.json"),
           "--only-binary=:all:", "--python-version", version, "--implementation", "cp",
           "--platform", "manylinux2014_x86_64", "--platform", "manylinux_2_28_x86_64",
           "--platform", "linux_x86_64", "--target", str(tmp_path / "target"), "-r", str(reqs)]  # fmt: skip
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]
