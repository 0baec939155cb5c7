"""Side paths ("For the curious", 中文版“选读”): folded by default in JupyterLab, still run by nbval.

JupyterLab 4 saves a collapsed heading as the cell metadata "jp-MarkdownHeadingCollapsed": true on the heading's
markdown cell; on opening the notebook it hides every cell up to the next heading of the same or a higher level
and shows a "N cells hidden" button instead. (The classic Notebook's "heading_collapsed" / "hidden" keys do
nothing in JupyterLab 4.) Here: every side-path heading carries the key, only those do, both editions alike; and
in a real JupyterLab (headless Chromium) the section opens folded and unfolds on a click.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COLLAPSED = "jp-MarkdownHeadingCollapsed"
#: A side path's heading: "## 6. For the curious: ..." / "### 选读：..."
SIDE_PATH = {"en": re.compile(r"^#{2,4} (?:\d+\. )?For the curious: "), "zh": re.compile(r"^#{2,4} (?:\d+\. )?选读：")}
#: The notebooks that must have a side path (issue 26): 03's d_model audit and multi-head toy, 04's seed search,
#: 05's implementation pitfalls.
REQUIRED = {"03", "04", "05"}
NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks" / "en").glob("*.ipynb"))


def cells(edition, name):
    return json.loads((ROOT / "notebooks" / edition / name).read_text("utf-8"))["cells"]


def side_paths(edition, name):
    """[(cell index, heading level)] of the side-path headings of a notebook."""
    found = []
    for i, cell in enumerate(cells(edition, name)):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and SIDE_PATH[edition].match(text):
            found.append((i, len(text) - len(text.lstrip("#"))))
    return found


def section(edition, name, index, level):
    """The cell indexes a collapsed heading at `index` hides: up to the next heading of `level` or higher."""
    hidden, all_cells = [], cells(edition, name)
    for j in range(index + 1, len(all_cells)):
        text = "".join(all_cells[j]["source"])
        heading = re.match(r"^(#+) ", text) if all_cells[j]["cell_type"] == "markdown" else None
        if heading and len(heading.group(1)) <= level:
            break
        hidden.append(j)
    return hidden


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_side_paths_are_folded_and_alike_in_both_editions(name):
    en, zh = side_paths("en", name), side_paths("zh", name)
    assert en == zh, f"{name}: side-path headings (cell, level) differ: en {en}, zh {zh}"
    for edition in ("en", "zh"):
        folded = [i for i, c in enumerate(cells(edition, name)) if c["metadata"].get(COLLAPSED)]
        assert folded == [i for i, _ in en], (
            f"{edition}/{name}: the cells {folded} are folded, the side-path headings are {[i for i, _ in en]}"
        )
        for i, level in en:
            hides = section(edition, name, i, level)
            assert hides, f"{edition}/{name} cell {i}: a side path with nothing in it"
    if name[:2] in REQUIRED:
        assert en, f"{name} should have a side path (issue 26)"


def test_the_side_path_check_can_fail():
    assert SIDE_PATH["en"].match("### For the curious: how the seed was chosen")
    assert SIDE_PATH["en"].match("## 6. For the curious: pitfalls")
    assert SIDE_PATH["zh"].match("## 6. 选读：整行都被掩码时的陷阱")
    assert not SIDE_PATH["en"].match("For the curious: in prose")
    i, level = side_paths("en", "04_scaled_dot_product_attention.ipynb")[0]
    hidden = section("en", "04_scaled_dot_product_attention.ipynb", i, level)
    following = "".join(cells("en", "04_scaled_dot_product_attention.ipynb")[hidden[-1] + 1]["source"])
    assert re.match(rf"#{{1,{level}}} ", following)  # the fold stops at the next heading of its level or higher


# --- in a real browser ----------------------------------------------------------------------------------

#: One side path per edition is opened in the browser.
FOLD_CHECKED = (("en", "04_scaled_dot_product_attention.ipynb"), ("zh", "05_causal_masking.ipynb"))
FOLD_STATE = """([path, heading, hidden]) => {
  const app = window.jupyterapp;
  let panel = null;
  for (const w of app.shell.widgets('main')) if (w.context && w.context.path === path) panel = w;
  if (!panel) return null;
  const cells = panel.content.widgets;
  return {heading: !cells[heading].isHidden, hidden: hidden.map((i) => cells[i].isHidden)};
}"""


def test_a_side_path_opens_folded_and_unfolds_on_a_click(tmp_path):
    browser_test = pytest.importorskip("test_browser", reason="tests/test_browser.py provides the JupyterLab set-up")
    if not Path(browser_test.CHROMIUM).exists():
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    lab = browser_test.Lab(tmp_path)
    try:
        lab.wait_ready()
        with sync_api.sync_playwright() as playwright:
            chromium = playwright.chromium.launch(
                executable_path=browser_test.CHROMIUM, args=browser_test.CHROMIUM_FLAGS, headless=True
            )
            try:
                page = browser_test.new_page(chromium)
                for edition, name in FOLD_CHECKED:
                    path = f"{edition}/{name}"
                    browser_test.open_url(page, lab, f"fold-{edition}", path)
                    heading, level = side_paths(edition, name)[0]
                    hidden = section(edition, name, heading, level)
                    state = page.evaluate(FOLD_STATE, [path, heading, hidden])
                    assert state["heading"] and all(state["hidden"]), f"{path}: not folded on opening: {state}"
                    page.evaluate(
                        "([path, i]) => window.__attn.panel(path).content.scrollToItem(i, 'center')", [path, heading]
                    )
                    page.wait_for_timeout(500)
                    panel_id = page.evaluate("(path) => window.__attn.panel(path).id", path)
                    button = page.locator(f"[id='{panel_id}'] .jp-showHiddenCellsButton").first
                    assert str(len(hidden)) in button.inner_text(), button.inner_text()
                    button.click()
                    page.wait_for_timeout(500)
                    state = page.evaluate(FOLD_STATE, [path, heading, hidden])
                    assert not any(state["hidden"]), f"{path}: a click did not unfold the side path: {state}"
            finally:
                chromium.close()
    finally:
        lab.stop()
