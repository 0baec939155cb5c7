"""The Chinese edition's house style (notebooks/zh/STYLE.md), checked where a program can check it.

Markdown cells of the Chinese notebooks, README.zh.md, GLOSSARY.md and the Chinese strings of attn_lib.i18n:
no line break or bare space between two Chinese characters (Markdown renders both as a space), no
`**` that CommonMark leaves as literal asterisks, the term table's forbidden variants nowhere, other
notebooks referred to as “第 N 课”, Chinese quotes (“”) rather than ASCII ones, and no spaced dashes.
"""

import ast
import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from attn_lib.examples import SHANGHAI_TOKENS, TINY_CORPUS
from attn_lib.i18n import STRINGS

ROOT = Path(__file__).resolve().parents[1]
ZH = ROOT / "notebooks" / "zh"
ZH_NOTEBOOKS = sorted(p.name for p in ZH.glob("*.ipynb"))
ALL_NOTEBOOKS = sorted(ROOT.glob("notebooks/*/*.ipynb"))

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
CJK_OR_PUNCT = CJK + "\u3000-\u303f\uff00-\uffef“”‘’…—"
#: The article's own section titles, quoted as written (they say “Token”, as the article does).
ARTICLE_TITLES = ("从Token预测说起", "从Embedding到QKV")
#: The tokens of notebook 01's counted corpus, which stores each sentence as tokens separated by spaces
#: (“今天 天气 很好”): a code string made of these is corpus data, not Chinese prose.
CORPUS_TOKENS = {token for sentence, _ in TINY_CORPUS for token in sentence.split()} | set(SHANGHAI_TOKENS)

#: Forbidden variant -> the house term (notebooks/zh/STYLE.md, section 6 and section 1). Not 询问 and 部件 of the
#: table: those words have other, ordinary meanings.
FORBIDDEN = {
    "被遮住": "被掩码",
    "遮住": "掩码",
    "相关度": "相关性",
    "缩放的点积注意力": "缩放点积注意力",
    "位置信息编码": "位置编码",
    "遮挡": "掩码",
    "屏蔽": "掩码",
    "遮蔽": "掩码",
    "因果遮罩": "因果掩码",
    "批次": "批量",
    "根轴": "个轴",
    "空格处": "空白处",
    "热图": "热力图",
    "小部件": "交互控件",
    "层标准化": "层归一化",
    "残差链接": "残差连接",
    "前向网络": "前馈网络",
    "互注意力": "交叉注意力",
    "本笔记本": "本课",
    "本课时": "本课",
    "本节": "本课（或“这一节”）",
    # issue 28: one term per concept (STYLE.md section 6)
    "学出来的位置表": "可学习的位置嵌入",
    "学出来的 P": "可学习的位置嵌入 P",
    "位置向量": "位置嵌入",
    "词元表": "词元嵌入表",
    "片段向量": "片段嵌入",
    "句子嵌入": "句向量",
    "注意力块": "注意力模块（Transformer 块另说）",
    "前馈层": "前馈网络",
    "性能测试": "基准测试",
    "抽样": "采样",
    "原始最大权重": "未缩放最大权重",
    "nbval-ignore-output` 标记": "nbval-ignore-output` 标签",
    "nbval-ignore-output 标记": "nbval-ignore-output 标签",
    "词向量": "词元嵌入（“词向量”只用于 Bengio 等人的词向量）",
    # issue 44: the terms of the second editorial review (STYLE.md sections 4 and 6)
    "写作": "生成（“写作”只在本义上用：写作规范、写作“Token”）",
    "基数": "底数（RoPE 的底数）",
    "GPT-2 small": "GPT-2 Small",
    "典型错误": "常见错误",
    "**问题。**": "**本课的问题**：",
    "**本课的问题：**": "**本课的问题**：",
    "**本课的问题。**": "**本课的问题**：",
    "编码器-解码器": "编码器–解码器",
    "编码-解码器": "编码器–解码器",
    "暂退法": "丢弃",
    "随机失活": "丢弃",
    "本地层": "局部层",
    "QK 范数": "QK 归一化",
    "注意力汇点": "注意力汇聚点",
    "注意力池": "注意力汇聚点",
}
#: A forbidden variant that is right on a line naming this word: Bengio et al.'s word vectors are 词向量.
ALLOWED_WITH = {"词向量": "Bengio"}
#: A forbidden variant in its literal sense, taken out of a line before the check: “写作” as “written as”
#: (文章写作“Token”) and as writing by people (写作规范).
ALLOWED_USES = {"写作": re.compile(r"写作(?= ?[“`「$]|规范)")}


def markdown_cells(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "markdown"]


def code_cells(path):
    cells = json.loads(path.read_text("utf-8"))["cells"]
    return [(i, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def zh_markdown_sources(glossary=False):
    """(where, markdown text) for every zh markdown cell and README.zh.md (and GLOSSARY.md: its Chinese follows the
    house style too, but its English column names the terms in English)."""
    sources = [(f"zh/{name} cell {i}", text) for name in ZH_NOTEBOOKS for i, text in markdown_cells(ZH / name)]
    sources.append(("README.zh.md", (ROOT / "README.zh.md").read_text("utf-8")))
    if glossary:
        sources.append(("GLOSSARY.md", (ROOT / "GLOSSARY.md").read_text("utf-8")))
    return sources


def prose_lines(text):
    """The lines of a markdown text that are prose: code fences and display math ($$ … $$) left out."""
    lines, in_code, in_math = [], False, False
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith("```"):
            in_code = not in_code
            lines.append(None)
            continue
        if in_math:  # display math ends on the line that ends with $$
            in_math = not stripped.endswith("$$")
            lines.append(None)
            continue
        if stripped.startswith("$$") and not in_code:
            in_math = not (stripped.endswith("$$") and len(stripped) > 2)
            lines.append(None)
            continue
        lines.append(None if in_code else line)
    return lines


def plain(line):
    """A prose line without inline code, inline math, link targets and HTML tags (what a reader sees as words).

    Code and math stand as one Latin letter, not as a space: `第 $i$ 行` must not read as “第   行”.
    """
    line = re.sub(r"`[^`]*`", "ξ", line)
    line = re.sub(r"\$[^$]*\$", "ξ", line)
    line = re.sub(r"\]\([^)]*\)", "]", line)
    line = re.sub(r"<[^>]+>", " ", line)
    return line


def zh_strings():
    return [(f"i18n zh {key!r}", value) for key, value in STRINGS["zh"].items()]


def zh_code_strings():
    """(where, text) for every string literal with Chinese in it, in the zh notebooks' code cells."""
    found = []
    for name in ZH_NOTEBOOKS:
        for i, source in code_cells(ZH / name):
            lines = [ln for ln in source.splitlines() if not ln.lstrip().startswith(("%", "!"))]
            for node in ast.walk(ast.parse("\n".join(lines))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.search(f"[{CJK}]", node.value):
                    found.append((f"zh/{name} cell {i}", node.value))
    return found


# --- line breaks and spaces -------------------------------------------------------------------


def test_no_line_break_between_two_chinese_characters_inside_a_paragraph():
    found = []
    for where, text in zh_markdown_sources(glossary=True):
        lines = prose_lines(text)
        for a, b in zip(lines, lines[1:], strict=False):
            if a is None or b is None or not a.strip() or not b.strip():
                continue
            if re.match(r"\s*([-*+] |\d+\. |#|\||>|\$\$)", b):  # a new list item, heading, table row, quote
                continue
            if re.search(f"[{CJK_OR_PUNCT}]$", a.rstrip()) and re.match(f"[{CJK_OR_PUNCT}]", b.lstrip()):
                found.append(f"{where}: …{a.rstrip()[-12:]}⏎{b.lstrip()[:12]}…")
    assert not found, "line breaks inside Chinese paragraphs (rendered as a space):\n" + "\n".join(found)


def is_corpus_data(text):
    """A string of the counted corpus's tokens separated by spaces (ASCII punctuation around them allowed):
    notebook 01 passes contexts such as “今天 天气” to the n-gram functions in the corpus's own format."""
    pieces = [piece.strip("()|=.,:;[]'\"") for piece in text.split()]
    return any(pieces) and all(piece in CORPUS_TOKENS for piece in pieces if re.search(f"[{CJK}]", piece))


def bare_spaces(text, code=False):
    """The places where a space stands between two Chinese characters. In a code string, a run of two or more
    spaces is a column gap of a printed table (as bars are in a markdown table), and corpus data is left alone."""
    if code and is_corpus_data(text):
        return []
    pattern = f"[{CJK}] [{CJK}]" if code else f"[{CJK}] +[{CJK}]"
    return [m.group() for m in re.finditer(pattern, text)]


def test_no_bare_space_between_two_chinese_characters():
    found = []
    for where, text in zh_markdown_sources(glossary=True):
        for line in prose_lines(text):
            if line is None or line.lstrip().startswith("|"):  # table cells are separated by spaces and bars
                continue
            found += [f"{where}: “{gap}”" for gap in bare_spaces(plain(line))]
    for where, text in zh_strings() + zh_code_strings():
        found += [f"{where}: “{gap}”" for gap in bare_spaces(text, code=True)]
    assert not found, "a space between two Chinese characters (tokens are quoted with “”):\n" + "\n".join(found)


def test_the_bare_space_check_can_fail():
    assert bare_spaces("由 猫 预测 吃") == ["由 猫", "测 吃"]
    assert bare_spaces("由 猫 预测 吃", code=True), "prose in a printed string is not corpus data"
    assert bare_spaces("第 ξ 行") == [], "inline code and math stand as a letter, not as a space"
    assert plain("第 $i$ 行") == "第 ξ 行"
    assert bare_spaces("今天 在 上海 吃了", code=True) == [] and bare_spaces(" | 今天 天气) = ", code=True) == []
    assert bare_spaces("种子  步数  测试集", code=True) == [] and bare_spaces("种子  步数 测试集", code=True)


def test_no_spaced_dashes_or_spaces_inside_chinese_quotes():
    pattern = re.compile(f"(?: ——|—— |[{CJK}，。：；] “|” [{CJK}，。：；]|“ | ”)")
    found = []
    for where, text in zh_markdown_sources(glossary=True) + zh_strings() + zh_code_strings():
        for line in text.split("\n"):
            found += [f"{where}: “{m.group()}” in …{line.strip()[:40]}…" for m in pattern.finditer(plain(line))]
    assert not found, "spaced dashes or spaces around Chinese quotes:\n" + "\n".join(found)


# --- emphasis that CommonMark does not parse --------------------------------------------------


def rendered_text(markdown):
    """The HTML CommonMark makes of `markdown`, with code and math taken out first."""
    markdown = re.sub(r"\$\$.*?\$\$", "ξ", markdown, flags=re.S)  # a formula stands as one letter
    markdown = re.sub(r"\$[^$\n]*\$", "ξ", markdown)
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    return re.sub(r"<code>.*?</code>|<pre>.*?</pre>", " ", html, flags=re.S)


@pytest.mark.parametrize(
    "path", [*ALL_NOTEBOOKS, ROOT / "README.md", ROOT / "README.zh.md"], ids=lambda p: str(p.relative_to(ROOT))
)
def test_every_bold_renders(path):
    sources = markdown_cells(path) if path.suffix == ".ipynb" else [(0, path.read_text("utf-8"))]
    found = [f"cell {i}" for i, text in sources if "**" in rendered_text(text)]
    assert not found, f"{path.name}: literal ** after rendering (bold right inside a full-width quote?): {found}"


def test_the_renderer_check_can_fail():
    assert "**" in rendered_text("必须是**“64 的倍数”**是约定")
    assert "**" not in rendered_text("必须是“**64 的倍数**”是约定")


# --- terms, quotes, cross-references ----------------------------------------------------------


def forbidden_terms(text):
    """The forbidden variants in `text` (line by line, so that a variant allowed next to a word stays allowed)."""
    return [
        bad
        for line in text.splitlines()
        for bad in FORBIDDEN
        if bad in (ALLOWED_USES[bad].sub("", line) if bad in ALLOWED_USES else line)
        and not (bad in ALLOWED_WITH and ALLOWED_WITH[bad] in line)
    ]


def test_the_term_tables_forbidden_variants_appear_nowhere():
    found = []
    for where, text in zh_markdown_sources(glossary=True) + zh_strings() + zh_code_strings():
        found += [f"{where}: “{bad}” (use “{FORBIDDEN[bad]}”)" for bad in forbidden_terms(text)]
    assert not found, "terms outside the house style (notebooks/zh/STYLE.md):\n" + "\n".join(found)


def test_the_forbidden_term_check_can_fail():
    assert forbidden_terms("词向量、位置向量和片段向量三者相加") == ["位置向量", "片段向量", "词向量"]
    assert forbidden_terms("填充，以及句子嵌入\n一个注意力块的参数量") == ["句子嵌入", "注意力块"]
    assert forbidden_terms("Bengio 等（2003）：用学出来的词向量代替计数") == []
    assert forbidden_terms("词元嵌入、可学习的位置嵌入和片段嵌入；Transformer 块；基准测试；句向量") == []
    assert prose_lines("$$A = 1,\nB = 2$$\n文字") == [None, None, "文字"]
    assert forbidden_terms("## 6. 写作：贪心和温度\n模型真正写作时") == ["写作", "写作"]
    assert forbidden_terms("文章写作“Token”；公式写作 $a$；写作规范") == []
    assert forbidden_terms("编码器-解码器训练时用暂退法") == ["编码器-解码器", "暂退法"]
    variants = ["基数", "GPT-2 small", "典型错误", "**问题。**"]
    assert forbidden_terms("**问题。** 为什么？GPT-2 small 的典型错误，RoPE 的基数") == variants


#: The one sentence that tells a reader a cell's output is not compared (STYLE.md section 6).
NBVAL_SENTENCE = "不比较这个单元格的输出（它带有 `nbval-ignore-output` 标签）"


def nbval_sentences(text):
    """The sentences of a markdown text that mention the nbval-ignore-output tag but not in the house's words."""
    sentences = re.split(r"(?<=[。！？])", text.replace("**", ""))
    return [s.strip() for s in sentences if "nbval-ignore-output" in s and NBVAL_SENTENCE not in s]


def test_the_uncompared_output_is_said_in_one_sentence():
    found = [f"{where}: {s[:80]}" for where, text in zh_markdown_sources() for s in nbval_sentences(text)]
    assert not found, f"say “{NBVAL_SENTENCE}”:\n" + "\n".join(found)


def test_the_nbval_sentence_check_can_fail():
    assert nbval_sentences("**测试本课的时候不比较它的输出**（它带有 `nbval-ignore-output` 标签）：计时。")
    assert not nbval_sentences("**测试本课的时候不比较这个单元格的输出**（它带有 `nbval-ignore-output` 标签）：计时。")


#: Every lesson's opening question starts with this label (STYLE.md section 4).
OPENING_LABEL = "**本课的问题**："


def test_every_lesson_opens_with_the_question_label():
    missing = []
    for name in ZH_NOTEBOOKS[1:]:
        first = "".join(json.loads((ZH / name).read_text("utf-8"))["cells"][0]["source"])
        paragraphs = [p for p in first.split("\n\n") if p.startswith(OPENING_LABEL)]
        if len(paragraphs) != 1:
            missing.append(f"{name}: {len(paragraphs)} paragraphs open with {OPENING_LABEL}")
    assert ZH_NOTEBOOKS[0].startswith("00") and not missing, "\n".join(missing)


def test_token_and_logit_are_written_in_chinese_in_prose():
    pattern = re.compile(r"(?<![A-Za-z_\[])(?:[Tt]okens?|logits?)(?![A-Za-z_\]])")
    found = []
    for where, text in zh_markdown_sources():
        for line in prose_lines(text):
            if line is None:
                continue
            words = plain(line)
            for title in ARTICLE_TITLES:
                words = words.replace(title, " ")
            words = words.replace("写作“Token”", " ")  # notebook 01 says once that the article writes “Token”
            words = re.sub(r"（(?:token|logit)）", " ", words)  # the first mention: 词元（token）
            found += [f"{where}: “{m.group()}” in …{line.strip()[:50]}…" for m in pattern.finditer(words)]
    for where, text in zh_strings():  # placeholders and `code` in a message are not prose
        words = re.sub(r"`[^`]*`", " ", re.sub(r"\{[^}]*\}", " ", text))
        found += [f"{where}: “{m.group()}”" for m in pattern.finditer(words)]
    assert not found, "token / logit in Chinese prose (词元, 对数几率):\n" + "\n".join(found)


def test_the_axis_labels_say_token_as_the_text_does():
    for key in ("query_axis", "key_axis"):
        assert "词元" in STRINGS["zh"][key], f"i18n zh {key!r} = {STRINGS['zh'][key]!r} should say 词元"


def test_chinese_text_uses_chinese_quotes():
    found = []
    for where, text in zh_markdown_sources(glossary=True):
        for line in prose_lines(text):
            if line is not None and re.search(f"[{CJK}]", line) and '"' in plain(line):
                found.append(f"{where}: …{line.strip()[:50]}…")
    for where, text in zh_code_strings() + zh_strings():
        if '"' in text:
            found.append(f"{where}: {text[:50]!r}")
    assert not found, "ASCII quotes in Chinese text (use “”):\n" + "\n".join(found)


def test_other_notebooks_are_called_lessons():
    bad = re.compile(r"第\s*0\d\s*[个课节]|第\s*\d+\s*个笔记本|笔记本\s*\d|第\s*\d+\s*节|第\d|\d课")
    found = []
    for where, text in zh_markdown_sources():
        for line in prose_lines(text):
            if line is not None:
                found += [f"{where}: “{m.group()}”" for m in bad.finditer(plain(line))]
    for where, text in zh_strings() + zh_code_strings():
        found += [f"{where}: “{m.group()}”" for m in bad.finditer(text)]
    assert not found, "cross-references not in the form “第 N 课”:\n" + "\n".join(found)


#: The two labels of notebooks/zh/STYLE.md section 7: a real error of the article, and a claim made sharper.
LABELS = {"en": "A correction to the article.", "zh": "对文章的一处更正。"}
SHARPER = {"en": "More precisely:", "zh": "更准确地说："}
#: The heading of the one markdown cell, in whichever notebook holds it (the end of 06), that lists the corrections.
LIST_HEADINGS = {"en": "## The article's corrections", "zh": "## 文章的更正"}
NOTEBOOK_LINK = re.compile(r"\]\((\d\d)_[a-z_]+\.ipynb\)")


def find_corrections_list(edition):
    """(notebook number, cell index, text) of the cell that lists the corrections, found by its heading in any
    notebook of the edition; None while no notebook holds it."""
    found = [
        (path.name[:2], i, text)
        for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb"))
        for i, text in markdown_cells(path)
        if text.startswith(LIST_HEADINGS[edition])
    ]
    assert len(found) <= 1, f"{edition}: more than one list of corrections: {[(n, i) for n, i, _ in found]}"
    return found[0] if found else None


def label_counts(edition, label, skip=None):
    """{notebook number: how often its markdown carries `label`}: notebook 00 and the cell `skip` ((number, index),
    the list itself) left out."""
    counts = {}
    for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
        number = path.name[:2]
        found = sum(text.count(label) for i, text in markdown_cells(path) if (number, i) != skip)
        if number != "00" and found:
            counts[number] = found
    return counts


def labelled_corrections(edition):
    listed = find_corrections_list(edition)
    return label_counts(edition, LABELS[edition], skip=listed[:2] if listed else None)


def test_both_editions_carry_the_same_labels_in_every_notebook():
    """Each correction and each sharpening is labelled in both editions of its notebook, the same number of times."""
    for labels in (LABELS, SHARPER):
        en = label_counts("en", labels["en"], skip=(find_corrections_list("en") or (None, None))[:2])
        zh = label_counts("zh", labels["zh"], skip=(find_corrections_list("zh") or (None, None))[:2])
        assert en == zh, f"labels {labels} per notebook differ: en {en} vs zh {zh}"
    assert sum(labelled_corrections("en").values()) >= 3
    assert sum(label_counts("en", SHARPER["en"]).values()) >= 1


# --- the list of the article's corrections (at the end of notebook 06) ----------------------------------


def listed_corrections(text):
    """{notebook number: how many times the list links it} (an item about two notebooks links each once)."""
    counts = {}
    for number in NOTEBOOK_LINK.findall(text):
        counts[number] = counts.get(number, 0) + 1
    return counts


@pytest.mark.parametrize("edition", ["en", "zh"])
def test_the_list_of_corrections_links_every_labelled_correction(edition):
    """The list links each notebook as often as its markdown carries the correction label (sharpenings are not
    listed); notebook 00 points to the notebook that holds the list."""
    listed = find_corrections_list(edition)
    if listed is None and find_corrections_list("zh" if edition == "en" else "en") is None:
        pytest.skip(
            f"no notebook has a cell starting with {LIST_HEADINGS[edition]!r} yet: issue 26 moves the list from"
            " notebook 00 to the end of notebook 06"
        )
    assert listed is not None, f"{edition}: the other edition lists the corrections, this one does not"
    number, _, text = listed
    assert listed_corrections(text) == labelled_corrections(edition), (
        f"{edition}/{number}'s list of corrections links the notebooks {listed_corrections(text)} times, but they"
        f" carry the label {labelled_corrections(edition)} times: add (or remove) an item in BOTH editions"
    )
    start = next((ROOT / "notebooks" / edition).glob("00_*.ipynb"))
    links = {n for _, cell in markdown_cells(start) for n in NOTEBOOK_LINK.findall(cell)}
    assert number in links, f"{edition}/00 should link to notebook {number}, which lists the corrections"


def test_notebook_00_no_longer_lists_the_corrections():
    for edition, label in LABELS.items():
        start = next((ROOT / "notebooks" / edition).glob("00_*.ipynb"))
        for i, text in markdown_cells(start):
            items = [line for line in text.splitlines() if line.startswith("- [")]
            assert not (label in text and len(items) > 2), f"{edition}/00 cell {i} still lists the corrections"


def test_the_corrections_list_check_can_fail():
    text = "## The article's corrections\n\n- [02](02_a.ipynb): …\n- [04](04_b.ipynb) and [05](05_c.ipynb): …\n"
    assert listed_corrections(text) == {"02": 1, "04": 1, "05": 1}
    assert listed_corrections(text.replace("- [02](02_a.ipynb): …\n", "")) != listed_corrections(text)
    assert listed_corrections("- [第 4 课](04_x.ipynb)和[第 5 课](05_y.ipynb)：…\n- [第 4 课](04_x.ipynb)：…") == {
        "04": 2,
        "05": 1,
    }
    # the label counts leave out the list itself: a list that repeats the label does not count as corrections
    listed = find_corrections_list("en")
    if listed is not None:
        with_list = label_counts("en", LABELS["en"])
        assert sum(with_list.values()) >= sum(labelled_corrections("en").values())


def nested_brackets(text):
    """Prose lines of `text` in which a full-width bracket opens inside another one."""
    found = []
    for line in prose_lines(text):
        depth = 0
        for ch in plain(line or ""):
            depth += ch == "（"
            if ch == "（" and depth == 2:
                found.append(line.strip()[:60])
            depth -= ch == "）" and depth > 0
    return found


def test_brackets_are_one_level_deep():
    found = []
    for where, text in zh_markdown_sources(glossary=True) + zh_strings() + zh_code_strings():
        found += [f"{where}: …{line}…" for line in nested_brackets(text)]
    assert not found, "brackets inside brackets (notebooks/zh/STYLE.md: 括号最多一层):\n" + "\n".join(found)


def test_the_bracket_check_can_fail():
    assert nested_brackets("检查通过（本课的向量、很大的分数（上千））。")
    assert not nested_brackets("检查通过（本课的向量）。分数很大（上千）。")
    assert not nested_brackets("头 (4, 2)（第 4 层）")
