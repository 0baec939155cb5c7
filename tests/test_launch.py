"""The README's run command opens JupyterLab on the course's first notebook, in either edition."""

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_jupyter_lab_opens_start_here(tmp_path, edition):
    """`jupyter lab notebooks/<edition>/00_start_here.ipynb` (README) serves and opens that notebook."""
    notebook = ROOT / "notebooks" / edition / "00_start_here.ipynb"
    assert notebook.exists(), notebook
    port, token = _free_port(), secrets.token_hex(16)
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "JUPYTER_CONFIG_DIR": str(tmp_path)}
    log = tmp_path / "lab.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={port}", f"--IdentityProvider.token={token}", f"notebooks/{edition}/00_start_here.ipynb"],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            url = None
            deadline = time.monotonic() + 90
            while url is None and time.monotonic() < deadline:
                assert server.poll() is None, f"jupyter lab exited:\n{log.read_text()[-3000:]}"
                pages = sorted((tmp_path / "runtime").glob("jpserver-file-to-run-*-open.html"))
                if pages:
                    url = pages[0].read_text()
                time.sleep(0.3)
            assert url, f"jupyter lab wrote no page to open:\n{log.read_text()[-3000:]}"
            assert "lab/tree/00_start_here.ipynb" in url, url  # the browser opens on the first notebook
            request = f"http://127.0.0.1:{port}/api/contents/00_start_here.ipynb?token={token}"
            with urllib.request.urlopen(request, timeout=30) as response:
                model = json.load(response)
            assert model["type"] == "notebook" and model["content"]["cells"]
        finally:
            server.terminate()
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                server.kill()
