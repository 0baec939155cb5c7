"""End to end in a real browser: JupyterLab + headless Chromium run notebooks 04 and 06 and move the sliders.

What a learner would see is checked: every cell runs without an error, the slider is there, moving it
with the keyboard changes the heatmap image and the numbers next to it, and the Chinese token labels
are drawn. Screenshots go to a temporary folder whose paths are printed (pytest -s shows them).
"""

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Chromium is not installed (apt-get install chromium)"),
]


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Lab:
    """A JupyterLab server on 127.0.0.1 with a random port and token, serving a copy of notebooks/."""

    def __init__(self, workdir):
        self.root = workdir / "course"
        shutil.copytree(ROOT / "notebooks", self.root)  # the browser saves notebooks; keep ours clean
        for path in self.root.rglob("*.ipynb"):  # no stored outputs: all that is seen comes from this run
            notebook = json.loads(path.read_text(encoding="utf-8"))
            for cell in notebook["cells"]:
                if cell["cell_type"] == "code":
                    cell["outputs"], cell["execution_count"] = [], None
            path.write_text(json.dumps(notebook), encoding="utf-8")
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = workdir / "jupyterlab.log"
        # render every cell (no windowing, so all prompts can be read) and ask nothing about news
        settings = workdir / "settings"
        for plugin, values in {
            "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
            "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
        }.items():
            package, name = plugin.rsplit("/", 1)
            (settings / package).mkdir(parents=True, exist_ok=True)
            (settings / package / f"{name}.jupyterlab-settings").write_text(json.dumps(values))
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(workdir / "config"),
            JUPYTER_RUNTIME_DIR=str(workdir / "runtime"),
            JUPYTERLAB_WORKSPACES_DIR=str(workdir / "workspaces"),
            JUPYTERLAB_SETTINGS_DIR=str(workdir / "settings"),
            PYTHONWARNINGS="error:Glyph:UserWarning",  # a missing Chinese glyph fails the kernel's cell
        )
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
             f"--port={self.port}", f"--IdentityProvider.token={self.token}",
             f"--ServerApp.root_dir={self.root}", "--LabApp.news_url=", "--ServerApp.port_retries=0",
             "--LabApp.expose_app_in_browser=True"],
            stdout=self._log, stderr=subprocess.STDOUT, env=env, cwd=self.root,
        )  # fmt: skip

    def log(self):
        self._log.flush()
        return self.log_path.read_text(errors="replace")[-6000:]

    def wait_ready(self, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                pytest.fail(f"JupyterLab exited with code {self.process.returncode}. Server log:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        pytest.fail(f"JupyterLab did not answer within {timeout} s. Server log:\n{self.log()}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        self._log.close()


@pytest.fixture(scope="module")
def lab():
    workdir = Path(tempfile.mkdtemp(prefix="attn-lab-"))
    server = Lab(workdir)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


def _fontconfig(folder):
    """A fontconfig file that adds attn_lib's bundled CJK font to the system's fonts, for Chromium."""
    conf = folder / "fonts.conf"
    fonts = ROOT / "attn_lib" / "fonts"
    conf.write_text(
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f'  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>\n  <dir>{fonts}</dir>\n'
        f"  <cachedir>{folder / 'fontcache'}</cachedir>\n</fontconfig>\n"
    )
    return conf


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        # Chromium draws the page's Chinese text (markdown, widget tables) with the course's font too
        env = {**os.environ, "FONTCONFIG_FILE": str(_fontconfig(Path(tempfile.mkdtemp(prefix="attn-fonts-"))))}
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True, env=env)
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(scope="module")
def shots():
    folder = Path(tempfile.mkdtemp(prefix="attn-screenshots-"))
    print(f"\nscreenshots in {folder}")
    return folder


# true once the notebook's kernel is connected and idle (JupyterLab runs with expose_app_in_browser)
KERNEL_READY = """() => {
    const app = window.jupyterapp;
    const widget = app && app.shell.currentWidget;
    const session = widget && widget.sessionContext && widget.sessionContext.session;
    const kernel = session && session.kernel;
    return !!kernel && kernel.connectionStatus === "connected" && kernel.status === "idle";
}"""


def open_and_run_all(page, lab, notebook):
    """Open a notebook in JupyterLab, run all cells, wait until the kernel is done; fail with context."""
    page.goto(f"{lab.url}/lab/tree/{notebook}?token={lab.token}&reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    deadline = time.monotonic() + 180
    prompts = page.locator(".jp-CodeCell .jp-InputArea-prompt")
    started = None  # when run-all was sent
    texts = []
    while time.monotonic() < deadline:
        if lab.process.poll() is not None:
            pytest.fail(f"the Jupyter server died while running {notebook}. Server log:\n{lab.log()}")
        accept = page.locator(".jp-Dialog .jp-mod-accept")  # "Select Kernel" on a slow start: take python3
        if accept.count():
            accept.first.click()
            time.sleep(0.5)
            continue
        texts = prompts.all_inner_texts()
        progress = any(any(ch.isdigit() or ch == "*" for ch in text) for text in texts)
        if started is None or (not progress and time.monotonic() - started > 20):
            if page.evaluate(KERNEL_READY):
                page.evaluate("() => { window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
                started = time.monotonic()
        elif texts and all(any(ch.isdigit() for ch in text) for text in texts) and page.evaluate(KERNEL_READY):
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"{notebook} did not finish running within 180 s (prompts: {texts}). Server log:\n{lab.log()}")
    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    assert errors.count() == 0, f"{notebook} shows errors or warnings:\n" + "\n".join(errors.all_inner_texts())


def widget_images(widget):
    return [img.get_attribute("src") for img in widget.locator("img").all()]


def press_slider(page, widget, key="ArrowRight", times=1):
    handle = widget.locator(".noUi-handle").first
    handle.scroll_into_view_if_needed()
    handle.focus()
    for _ in range(times):
        page.keyboard.press(key)
    page.wait_for_timeout(300)


def wait_for_change(read, before, timeout=15):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = read()
        if now != before:
            return now
        time.sleep(0.2)
    return read()


def test_dk_slider_in_notebook_04(lab, browser, shots):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, lab, "en/04_scaled_dot_product_attention.ipynb")
        widget = page.locator(".attn-widget-dk").first
        widget.scroll_into_view_if_needed()
        assert widget.locator(".noUi-handle").first.is_visible(), "the d_k slider is not visible"
        text = widget.inner_text()
        for token in "猫吃鱼":
            assert token in text, f"token {token} missing from the d_k widget"
        page.screenshot(path=shots / "04_before.png")
        images, stats = widget_images(widget), widget.locator(".attn-widget-stats").inner_text()
        assert images and all(src for src in images), "the d_k widget shows no picture"
        press_slider(page, widget, "ArrowRight", times=2)
        new_stats = wait_for_change(lambda: widget.locator(".attn-widget-stats").inner_text(), stats)
        assert new_stats != stats, "moving the d_k slider did not change the statistics"
        assert widget_images(widget) != images, "moving the d_k slider did not redraw the heatmap"
        page.screenshot(path=shots / "04_after.png")
        print(f"\n{shots / '04_before.png'}\n{shots / '04_after.png'}")
    finally:
        page.close()


def test_heads_slider_in_notebook_06(lab, browser, shots):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        open_and_run_all(page, lab, "en/06_multi_head_attention.ipynb")
        widget = page.locator(".attn-widget-heads").first
        widget.scroll_into_view_if_needed()
        assert widget.locator(".noUi-handle").first.is_visible(), "the heads slider is not visible"

        def shown_heads():  # h as the slider's readout shows it
            return int(widget.locator(".widget-readout").first.inner_text().strip())

        def drawn_heads():  # heatmaps in the picture, as the widget reports them next to it
            return int(widget.locator(".attn-widget-stats [data-heatmaps]").get_attribute("data-heatmaps"))

        before = shown_heads()
        assert drawn_heads() == before
        page.screenshot(path=shots / "06_before.png")
        press_slider(page, widget, "ArrowRight", times=1)
        after = wait_for_change(shown_heads, before)
        assert after != before, "moving the heads slider did not change h"
        drawn = wait_for_change(drawn_heads, before)  # the readout moves at once; the kernel redraws after
        assert drawn == after, "the number of heatmaps does not follow h"
        page.screenshot(path=shots / "06_after.png")
        print(f"\n{shots / '06_before.png'}\n{shots / '06_after.png'}")
    finally:
        page.close()
