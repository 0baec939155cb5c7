"""README.zh.md keeps up with README.md, and the Chinese maps name each lesson by its title.

1. Every `##` / `###` section of README.md has its Chinese counterpart in README.zh.md, in the same order and at
   the same level (`SECTIONS` pairs them; a section added to one README and not to the other fails).
2. The measurements section quotes the same numbers in both READMEs (the lead refreshes them in both).
3. The course maps of README.zh.md and of the Chinese notebook 00, and every link of the form
   “[第 N 课（课名）](NN_….ipynb)” in the Chinese edition, name a lesson by its title: the first line of the
   notebook, “# NN · 课名：副标题”, without the number and the subtitle.
"""

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EN, ZH = ROOT / "README.md", ROOT / "README.zh.md"
ZH_NOTEBOOKS = sorted((ROOT / "notebooks" / "zh").glob("*.ipynb"))

#: (level, README.md heading, README.zh.md heading), in the order of the READMEs.
SECTIONS = [
    (2, "Set up (one command)", "安装（一条命令）"),
    (2, "Run the course", "运行课程"),
    (2, "Follow the article", "跟着文章读"),
    (2, "Test", "测试"),
    (2, "The course map", "课程地图"),
    (2, "Launch on Binder", "在 Binder 上运行"),
    (2, "Teach a class", "用于课堂教学"),
    (2, "Chinese in plots", "图中的中文"),
    (2, "The package", "软件包"),
    (3, "Coming from PyTorch", "从 PyTorch 转过来的读者请注意"),
    (2, "Contributing", "参与贡献"),
    (2, "Versions and measurements", "版本与测量"),
    (3, "Measured (2 cores, no GPU, 2026-11-30 to 2026-12-05)", "测量结果（2 核，无 GPU，2026-11-30 至 2026-12-05）"),
]
MEASUREMENTS = {"en": "Versions and measurements", "zh": "版本与测量"}


def headings(text):
    """[(level, title)] of the `##` and `###` headings outside code blocks."""
    found, in_code = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        elif not in_code and (match := re.match(r"(#{2,3}) (.+)", line)):
            found.append((len(match.group(1)), match.group(2).strip()))
    return found


def section(text, title):
    """The text from the `## title` heading to the next `##` heading (its `###` subsections included)."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section “## {title}”"
    return match.group(1)


def numbers(text):
    """The numbers a text quotes, leading zeros dropped (“notebook 08” and “第 8 课” quote the same 8)."""
    return {n if "." in n else n.lstrip("0") or "0" for n in re.findall(r"\d+(?:[.,]\d+)*", text)}


def lesson_title(path):
    """“因果掩码” for a notebook whose first line is “# 05 · 因果掩码：不许偷看后面的词”."""
    first = "".join(json.loads(path.read_text("utf-8"))["cells"][0]["source"]).splitlines()[0]
    return re.match(r"# \d\d · (.+)", first).group(1).split("：")[0]


TITLES = {path.name: lesson_title(path) for path in ZH_NOTEBOOKS}


def map_titles(text):
    """[(number, link text, notebook file)] of the rows “| NN | [link text](…/NN_….ipynb) | …” of a map."""
    return re.findall(r"^\| (\d\d) \| \[([^\]]+)\]\((?:[^)]*/)?(\d\d_[a-z_]+\.ipynb)\)", text, re.M)


def lesson_links(text):
    """[(lesson name in the link, notebook file)] for each link “[第 N 课（课名）](NN_….ipynb)”."""
    return re.findall(r"\[第 \d+ 课（([^）]+)）\]\((?:[^)]*/)?(\d\d_[a-z_]+\.ipynb)\)", text)


def zh_markdown():
    sources = [("README.zh.md", ZH.read_text("utf-8"))]
    for path in ZH_NOTEBOOKS:
        cells = json.loads(path.read_text("utf-8"))["cells"]
        sources.append((path.name, "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")))
    return sources


# --- the two READMEs --------------------------------------------------------------------------------


def test_every_section_of_readme_md_has_its_counterpart_in_readme_zh_md():
    assert headings(EN.read_text("utf-8")) == [(level, en) for level, en, _ in SECTIONS], (
        "README.md's sections changed: update SECTIONS and README.zh.md together"
    )
    assert headings(ZH.read_text("utf-8")) == [(level, zh) for level, _, zh in SECTIONS], (
        "README.zh.md lacks (or adds, or reorders) a section of README.md"
    )


def test_both_readmes_quote_the_same_measurements():
    en = numbers(section(EN.read_text("utf-8"), MEASUREMENTS["en"]))
    zh = numbers(section(ZH.read_text("utf-8"), MEASUREMENTS["zh"]))
    assert en == zh, f"numbers only in README.md: {sorted(en - zh)}; only in README.zh.md: {sorted(zh - en)}"


def test_the_readme_checks_can_fail():
    assert headings("## A\ntext\n```\n## not a heading\n```\n### B\n") == [(2, "A"), (3, "B")]
    quoted = {"8", "1,210", "0.48"}
    assert numbers("notebook 08 took 1,210 tests and 0.48 s") == quoted == numbers("第 8 课：1,210、0.48")
    assert numbers("888 ms") != numbers("889 毫秒")


# --- lesson titles in the Chinese maps and links -------------------------------------------------


@pytest.mark.parametrize("source", ["README.zh.md", "00_start_here.ipynb"])
def test_the_chinese_course_maps_use_the_lessons_titles(source):
    text = dict(zh_markdown())[source]
    rows = map_titles(text)
    assert len(rows) >= len(ZH_NOTEBOOKS) - 1, f"{source}: the course map has only {len(rows)} linked rows"
    wrong = [
        f"{num}: “{name}”, but the notebook says “{TITLES[file]}”" for num, name, file in rows if name != TITLES[file]
    ]
    assert not wrong, f"{source}: map titles that are not the lessons' titles:\n" + "\n".join(wrong)


def test_links_to_a_lesson_name_it_by_its_title():
    wrong = [
        f"{where}: [第 N 课（{name}）]({file}) but {file} is “{TITLES[file]}”"
        for where, text in zh_markdown()
        for name, file in lesson_links(text)
        if name != TITLES[file]
    ]
    assert not wrong, "links whose lesson name is not the lesson's title:\n" + "\n".join(wrong)


def test_the_title_checks_can_fail():
    assert lesson_title(ROOT / "notebooks" / "zh" / "05_causal_masking.ipynb") == "因果掩码"
    row = "| 07 | [位置信息与 Transformer 块](notebooks/zh/07_position_and_the_transformer_block.ipynb) | … |"
    assert map_titles(row) == [("07", "位置信息与 Transformer 块", "07_position_and_the_transformer_block.ipynb")]
    assert TITLES["07_position_and_the_transformer_block.ipynb"] != "位置信息与 Transformer 块"
    link = "见[第 12 课（当今模型中的注意力）](12_attention_in_modern_models.ipynb)"
    assert lesson_links(link) == [("当今模型中的注意力", "12_attention_in_modern_models.ipynb")]
