"""The Chinese edition's typography (notebooks/zh/STYLE.md, sections 2–4 and 10), checked where a program can check it.

No italics on Chinese; one form for each label (提示、检查程序能认出的错误、动手试试) and one marker for the blank
(＿); every further-reading item in one citation format; each term's English given once; printed output that
puts no space after a full-width colon and whose tables line up when a Chinese character takes two columns;
no Chinese quotes around a bare Latin-script word in the package's Chinese strings. Each check is shown to
fire on a bad example.
"""

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from test_zh_style import (
    CJK,
    ROOT,
    ZH,
    ZH_NOTEBOOKS,
    markdown_cells,
    plain,
    prose_lines,
    rendered_text,
    zh_code_strings,
    zh_strings,
)

from attn_lib.i18n import display_width, pad

GLOSSARY = ROOT / "GLOSSARY.md"
STYLE = ZH / "STYLE.md"


def chinese_documents():
    """(where, markdown) for every zh markdown cell, README.zh.md, GLOSSARY.md and the style guide itself."""
    sources = [(f"zh/{name} cell {i}", text) for name in ZH_NOTEBOOKS for i, text in markdown_cells(ZH / name)]
    for path in (ROOT / "README.zh.md", GLOSSARY, STYLE):
        sources.append((str(path.relative_to(ROOT)), path.read_text("utf-8")))
    return sources


def stored_outputs(name):
    """(cell index, text) of every stream output stored in the zh notebook `name`."""
    cells = json.loads((ZH / name).read_text("utf-8"))["cells"]
    return [
        (i, "".join(output["text"]))
        for i, cell in enumerate(cells)
        if cell["cell_type"] == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    ]


# --- no italics on Chinese --------------------------------------------------------------------------------


def italic_chinese(markdown):
    """The italic spans (<em> after CommonMark rendering) that hold Chinese text."""
    html = rendered_text(markdown)
    return [span for span in re.findall(r"<em>(.*?)</em>", html, flags=re.S) if re.search(f"[{CJK}]", span)]


def test_no_italics_on_chinese():
    found = [f"{where}: *{span}*" for where, text in chinese_documents() for span in italic_chinese(text)]
    assert not found, (
        "italics on Chinese (bold a label, quote an example with “”, or drop the emphasis):\n" + "\n".join(found)
    )


def test_the_italics_check_can_fail():
    assert italic_chinese("模型输出的并不是*某一个*词元") == ["某一个"]
    assert italic_chinese("_提示：_ 总数是") == ["提示："]
    assert italic_chinese("*The animal didn't cross the street*（那只动物没有过马路）") == []
    assert italic_chinese("`*代码里的星号*` 和 $a * b * c$") == []


# --- one form for the labels and the blank -------------------------------------------------------------------

#: The labels of STYLE.md section 4, in their one form: bold, the colon outside the bold.
LABELS = ("提示", "检查程序能认出的错误", "动手试试")
LABEL_VARIANTS = re.compile(
    r"\*{1,2}(?:提示|动手试试|试一试|检查程序能认出[^*]{0,6})[：。]?\*{1,2}[：。]?|(?<![动手])试一试[：:]|\*\*动手试试[。：]"
)


def label_problems(text):
    """Label-like spans of `text` that are not one of the labels in its one form (**提示**：)."""
    good = {f"**{label}**：" for label in LABELS}
    return [m.group() for m in LABEL_VARIANTS.finditer(text) if m.group() not in good]


def without_code(markdown):
    """`markdown` without its code spans and fenced blocks (where the style guide shows the forms it forbids)."""
    return re.sub(r"`[^`\n]*`", " ", re.sub(r"```.*?```", " ", markdown, flags=re.S))


def test_the_labels_have_one_form():
    found = [f"{where}: {bad}" for where, text in chinese_documents() for bad in label_problems(without_code(text))]
    assert not found, (
        f"labels not in their one form ({', '.join(f'**{label}**：' for label in LABELS)}):\n" + "\n".join(found)
    )


def test_the_label_check_can_fail():
    for bad in (
        "*提示：* 总数是",
        "**提示：**总数是",
        "*试一试：* 拿",
        "先自己试一试：对",
        "**动手试试。** 滑块",
        "*检查程序能认出* 关掉",
    ):
        assert label_problems(bad), bad
    assert label_problems("**提示**：总数是 **检查程序能认出的错误**：无 **动手试试**：拖") == []
    assert label_problems("## 8. 动手试试：温度") == [] and label_problems("请先自己动手试一试。") == []


BLANK = "＿"
OTHER_BLANKS = re.compile(r"\\_\\_\\_|___|_{2,}(?=[\u4e00-\u9fff”])")


def test_one_marker_for_the_blank():
    """The blank the model fills (上海吃了＿) is one full-width low line everywhere in Chinese."""
    found = [
        f"{where}: {m.group()!r}"
        for where, text in chinese_documents()
        for m in OTHER_BLANKS.finditer(without_code(text))
    ]
    found += [f"{where}: {text!r}" for where, text in zh_code_strings() + zh_strings() if OTHER_BLANKS.search(text)]
    assert not found, f"write the blank as “{BLANK}”:\n" + "\n".join(found)


def test_the_blank_check_can_fail():
    assert OTHER_BLANKS.search("今天在上海吃了\\_\\_\\_”") and OTHER_BLANKS.search("今天在___和朋友吃了")
    assert not OTHER_BLANKS.search(without_code("今天在上海吃了＿” 和 `my_var__x`，不写 `___`"))


def spaces_after_punctuation(markdown):
    """Spaces between a full-width punctuation mark and the Chinese that follows it, in prose (a bold label such as
    **对文章的一处更正。** keeps the space CommonMark needs after its closing **)."""
    found = []
    for line in prose_lines(markdown):
        if line is not None:
            found += [m.group() for m in re.finditer(f"[，。；：？！、）》”][ \u3000]+[{CJK}“（]", plain(line))]
    return found


def test_no_space_after_full_width_punctuation():
    found = [f"{where}: {gap!r}" for where, text in chinese_documents() for gap in spaces_after_punctuation(text)]
    assert not found, "a space after full-width punctuation (STYLE.md section 3):\n" + "\n".join(found)


def test_the_punctuation_check_can_fail():
    assert spaces_after_punctuation("看着它形成。 下面的滑块") == ["。 下"]
    assert spaces_after_punctuation("**对文章的一处更正。** 文章说") == []
    assert spaces_after_punctuation("总和：`x`。下一句") == []


# --- one citation format in 延伸阅读 ---------------------------------------------------------------------------

AUTHORS = r"[^、，（）：。和与*《]+?(?:、[^、，（）：。和与*《]+?){0,2}(?: ?等)?"
CITATION = re.compile(rf"^- {AUTHORS}(?:（\d{{4}}）)?，(?:\*[^*]+\*|《[^》]+》)[^：。]*：\S")


def citation_problems(markdown):
    """The further-reading items of a 延伸阅读 cell that do not follow STYLE.md section 10."""
    items = [line for line in markdown.splitlines() if line.startswith("- ")]
    return [item[:70] for item in items if not CITATION.match(item) or "等人" in item.split("：")[0]]


def further_reading_sections():
    """(where, text) of each zh notebook's 延伸阅读 section: from its heading to the next heading of its level."""
    return [
        (f"zh/{name} cell {i}", ("\n" + text).split("\n## 延伸阅读", 1)[1].split("\n## ")[0])
        for name in ZH_NOTEBOOKS
        for i, text in markdown_cells(ZH / name)
        if ("\n" + text).count("\n## 延伸阅读") == 1
    ]


def test_further_reading_has_one_citation_format():
    sections = further_reading_sections()
    assert len(sections) == len(ZH_NOTEBOOKS), f"expected one 延伸阅读 section per notebook: {[w for w, _ in sections]}"
    found = [f"{where}: {item}…" for where, text in sections for item in citation_problems(text)]
    assert not found, "further reading not as 作者（年），*题名*，出处：读什么 (STYLE.md section 10):\n" + "\n".join(
        found
    )


def test_the_citation_check_can_fail():
    good = [
        "- Vaswani、Shazeer、Parmar 等（2017），*Attention Is All You Need*，NeurIPS 2017，arXiv:1706.03762：公式。",
        "- Jain、Wallace（2019），*Attention is not Explanation*，NAACL 2019，arXiv:1902.10186：权重不是解释。",
        "- 阿斯顿·张、李沐、扎卡里·C. 立顿等（2023），《动手学深度学习》，人民邮电出版社，第 10.2 节：核回归。",
        "- Jurafsky、Martin，*Speech and Language Processing*，第 3 版草稿，第 3 章：困惑度。",
    ]
    bad = [
        "- Vaswani 等人，2017，*Attention Is All You Need*，NeurIPS 2017，arXiv:1706.03762：公式。",
        "- Bahdanau、Cho 与 Bengio（2015），“Neural Machine Translation”，ICLR 2015（arXiv:1409.0473）：注意力。",
        "- Luong、Pham、Manning（2015），*Effective Approaches*，EMNLP 2015，arXiv:1508.04025。看 3.1 节：打分函数。",
        "- Vaswani 等人（2017），*Attention Is All You Need*，NeurIPS 2017：公式。",
        "- Dao、Fu、Ermon、Rudra 和 Ré（2022），*FlashAttention*，NeurIPS 2022：融合的核函数。",
    ]
    assert citation_problems("\n".join(good)) == []
    assert len(citation_problems("\n".join(bad))) == len(bad)


# --- each term's English once ---------------------------------------------------------------------------------


def glossary_terms():
    """{Chinese term: (the notebook that introduces it, the words of its English)} from GLOSSARY.md's table, for each
    Chinese form of a row (词元; 头 and 注意力头)."""
    terms = {}
    for line in GLOSSARY.read_text("utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 4 or not re.fullmatch(r"\d\d", cells[2]):
            continue
        english = {word.lower() for word in re.findall(r"[A-Za-z][A-Za-z-]*", cells[0])}
        for form in re.split(r"[、（）/]", cells[1]):
            form = form.strip()
            if re.search(f"[{CJK}]", form) and len(form) >= 2:
                terms.setdefault(form, (cells[2], english))
    return terms


def glossed(text, term, english):
    """Whether `text` gives `term` its English in brackets right after it (词元（token）): the first word in the
    brackets is a word of the term's English."""
    pattern = re.escape(term) + r"（([A-Za-z][A-Za-z-]*)[A-Za-z \-]*[）,，；]"
    return any(m.group(1).lower() in english for m in re.finditer(pattern, text))


def regloss_problems(glosses, terms):
    """[(notebook, term)] where a term's English comes again: allowed in notebook 00, in the notebook the glossary
    says introduces the term, and the first time (from 01 on) the course gives it; `glosses` maps notebook -> text."""
    found = []
    for term, (home, english) in terms.items():
        where = [number for number in sorted(glosses) if number != "00" and glossed(glosses[number], term, english)]
        found += [(number, term) for number in where[1:] if number != home]
    return found


def test_the_english_of_a_term_is_given_once():
    glosses = {name[:2]: "\n".join(text for _, text in markdown_cells(ZH / name)) for name in ZH_NOTEBOOKS}
    found = regloss_problems(glosses, glossary_terms())
    assert not found, "a term's English given again after it was introduced (drop the brackets):\n" + "\n".join(
        f"zh/{number}: {term}（…）" for number, term in found
    )


def test_the_regloss_check_can_fail():
    terms = glossary_terms()
    assert terms["词元"][0] == "01" and terms["因果掩码"][0] == "05" and terms["KV 缓存"] == ("11", {"kv", "cache"})
    token, cache = ("01", {"token"}), ("11", {"kv", "cache"})
    glosses = {
        "00": "词元（token）",
        "01": "词元（token）",
        "05": "KV 缓存（KV cache）",
        "08": "词元（token）和填充词元（padding）",
    }
    assert regloss_problems(glosses, {"词元": token, "KV 缓存": cache}) == [("08", "词元")]
    assert regloss_problems(
        {**glosses, "11": "KV 缓存（KV cache）", "12": "KV 缓存（KV cache）"}, {"KV 缓存": cache}
    ) == [("12", "KV 缓存")]
    assert (
        regloss_problems(
            {"01": "掩码（True 表示可以关注）", "02": "掩码（True 表示可以关注）"}, {"掩码": ("05", {"mask"})}
        )
        == []
    )


# --- printed output --------------------------------------------------------------------------------------------


def test_no_space_after_a_full_width_colon_in_printed_output():
    found = [
        f"zh/{name} cell {i}: {line.strip()[:60]}"
        for name in ZH_NOTEBOOKS
        for i, text in stored_outputs(name)
        for line in text.splitlines()
        if re.search("：[ \u3000]", line)
    ]
    assert not found, (
        'a space after “：” in printed output (print(f"总和：{x}"), not print("总和：", x)):\n' + "\n".join(found)
    )


def quote_number_gaps(text):
    """A space between a closing Chinese quote and a number or bracket after it: “很好” 40 句 (STYLE.md section 3)."""
    return [m.group() for m in re.finditer(r"”[ \u3000]+[\d（(]", text)]


def ascii_arrows(line):
    """An ASCII arrow in a printed line that has Chinese in it (the Chinese edition prints “→”)."""
    return re.search(f"[{CJK}]", line) is not None and "->" in line


def test_no_space_between_a_closing_quote_and_a_number():
    found = [f"{where}: {gap!r}" for where, text in chinese_documents() for gap in quote_number_gaps(text)]
    found += [
        f"zh/{name} cell {i}: {line.strip()[:60]}"
        for name in ZH_NOTEBOOKS
        for i, text in stored_outputs(name)
        for line in text.splitlines()
        if quote_number_gaps(line) or ascii_arrows(line)
    ]
    assert not found, "“很好”40 句, not “很好” 40 句; → not -> in printed Chinese:\n" + "\n".join(found)


def test_the_quote_number_check_can_fail():
    assert quote_number_gaps("“很好” 40 句，“不错”24 句，看“今天” （两个头）") == ["” 4", "” （"]
    assert ascii_arrows("一个块：(5, 16) -> (5, 16)") and not ascii_arrows("x -> y")


def fields(line):
    """(first column, column after the last) of each field of a printed line, in display columns: fields are
    separated by two or more spaces; text in brackets (a printed list or array) is one field."""
    spans, col, start, end, gap, depth = [], 0, None, 0, 0, 0
    for ch in line:
        width = display_width(ch)
        if ch == " " and depth == 0:
            gap += 1
        else:
            if start is None or gap >= 2:
                if start is not None:
                    spans.append((start, end))
                start = col
            gap = 0
            end = col + width
            depth += (ch in "[({") - (ch in "])}" and depth > 0)
        col += width
    if start is not None:
        spans.append((start, end))
    return spans


def misaligned(lines):
    """The problems of one printed table: rows whose fields neither start nor end in the same display column as
    the others', and rows whose columns run together. Header rows above the first row of the most common shape
    (spanning titles) are not compared; lines that start with a bracket (printed arrays) are not table rows."""
    rows = [(line, fields(line)) for line in lines if not line.lstrip().startswith("[")]
    if len(rows) < 2:
        return []
    count, times = Counter(len(spans) for _, spans in rows).most_common(1)[0]
    if times < 2:  # no two rows of one shape: separate printed lines, not a table
        return []
    first = next(i for i, (_, spans) in enumerate(rows) if len(spans) == count)
    body = rows[first:]
    problems = [f"columns run together: {line.strip()[:50]}" for line, spans in body if len(spans) != count]
    shaped = [spans for _, spans in body if len(spans) == count]
    for k in range(count):
        if len({spans[k][0] for spans in shaped}) > 1 and len({spans[k][1] for spans in shaped}) > 1:
            problems.append(f"column {k + 1} does not line up: {[line.strip()[:40] for line, _ in body][:3]}")
    return problems


def printed_tables(text):
    """Runs of two or more consecutive printed lines with a column gap (two spaces) and a Chinese character."""
    tables, run = [], []
    for line in [*text.splitlines(), ""]:
        if len(fields(line)) >= 2:
            run.append(line)
            continue
        if len(run) >= 2 and any(display_width(ch) == 2 for row in run for ch in row):
            tables.append(run)
        run = []
    return tables


def test_printed_tables_line_up():
    found = [
        f"zh/{name} cell {i}: {problem}"
        for name in ZH_NOTEBOOKS
        for i, text in stored_outputs(name)
        for table in printed_tables(text)
        for problem in misaligned(table)
    ]
    assert not found, "printed tables that do not line up (pad with attn_lib.i18n.pad):\n" + "\n".join(found)


def test_the_table_check_can_fail():
    rows = [("模型", "类型", "层数"), ("Llama 2 7B", "MHA", "32"), ("Falcon 7B", "MQA", "1")]
    by_characters = [f"{a:<13}{b:<8}{c:>4}" for a, b, c in rows]  # 模型 counted as 2 columns, drawn as 4
    assert misaligned(by_characters), "a header padded by characters, not columns, is out of line"
    assert misaligned([pad(a, 13) + pad(b, 8) + pad(c, 4, ">") for a, b, c in rows]) == []
    assert misaligned(["种子  步数", "   0    60", "  10  1500"]) == [], "right-aligned numbers line up at the end"
    assert misaligned(
        ["名称  值", "GPT-2 Small   LayerNorm (1e-05) GELU (3072)", "Llama 2 7B    RMSNorm (1e-05)  SwiGLU"]
    )
    assert printed_tables("T = 0.25  权重 [0.    0.    0.999]  熵 0.006\nT = 1.0   权重 [0.1   0.1   0.8]  熵 0.7\n")
    assert (
        misaligned(
            printed_tables("T = 0.25  权重 [0.    0.    0.999]  熵 0.006\nT = 1.0   权重 [0.1   0.1   0.8  ]  熵 0.7")[
                0
            ]
        )
        == []
    )
    assert misaligned(
        printed_tables("T = 0.25  权重 [0.    0.    0.999]  熵 0.006\nT = 1.0   权重 [0.1 0.1 0.8]  熵 0.7")[0]
    )


# --- the package's Chinese strings ---------------------------------------------------------------------------


def quoted_latin(text):
    """Chinese quotes around a Latin-script word or name only (a {field} filled in later is not one)."""
    return [
        m.group()
        for m in re.finditer(r"“([^”]*)”", text)
        if not re.search(r"[^\x00-\x7f]", m.group(1)) and not re.fullmatch(r"\{[^}]*\}", m.group(1))
    ]


@pytest.mark.parametrize("where, text", zh_strings(), ids=[where for where, _ in zh_strings()])
def test_no_chinese_quotes_around_a_latin_word_in_the_strings(where, text):
    assert not quoted_latin(text), f"{where}: write Latin-script names as they are, without “”: {quoted_latin(text)}"


def test_the_latin_quote_check_can_fail():
    assert quoted_latin("这是“RMSNorm”（“LLaMA”用的就是它）") == ["“RMSNorm”", "“LLaMA”"]
    assert quoted_latin("“{prompt}”之后：“猫”的权重") == []


def test_the_style_guide_names_the_checks():
    style = STYLE.read_text("utf-8")
    for needle in ("tests/test_zh_typography.py", "＿", "**提示**：", "pad(", "等（"):
        assert needle in style, f"notebooks/zh/STYLE.md should say {needle!r}"
    assert Path(__file__).name == "test_zh_typography.py"
