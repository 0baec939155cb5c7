"""Every reference to a notebook points at the right one: links, the maps, and "notebook NN" in prose.

The notebooks were renumbered twice: learned attention, the real model and efficient attention moved from
07-09 to 08-10 (position and the transformer block became 07), and then 09-13 became 10-14 to make room for
translation (09). So a leftover "notebook 08" that talks about the pretrained model, or a "notebook 10" that
talks about the KV cache, must fail a test. A number alone cannot be judged, so each notebook gets a
*signature*: words from its own title or from its row in the course maps (a test below checks that every
word really occurs there, so the signatures cannot drift from the notebooks). Then:

1. every link `NN_slug.ipynb` (notebooks' markdown, READMEs) names a notebook that exists, and a link whose
   text names a notebook ("notebook 12", "第 12 课", "12 · ...") names the one it links to;
2. every map (notebook 00 and the README, each edition) lists the notebooks 00, 01, ... in order, each
   row's number equal to its link's number, and both editions have the same notebooks;
3. every number in a reference to notebooks (en "notebook 08", "notebooks 10 and 14", "notebooks 11-12";
   zh "第 8 课", "第 10、14 课", "第 7–14 课") is one of a notebook that exists: in the notebooks' markdown,
   the READMEs, CONTRIBUTING and GLOSSARY, and every docstring, comment and string of the Python files
   (attn_lib's messages in both languages included);
4. a prose reference to notebook NN (en "notebook 08", zh "第 8 课", "第 08 个笔记本", "笔记本 08")
   whose clause carries the signature of another notebook and none of NN's own is an error. Checked in
   the same places.

test_the_check_catches_the_old_numbering feeds sentences from before each renumbering and expects each
to be caught.
"""

import ast
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EDITIONS = ("en", "zh")
README = {"en": ROOT / "README.md", "zh": ROOT / "README.zh.md"}

# Words that say which notebook a sentence is about. Only the notebooks whose numbers moved, or are new,
# need them; each word must occur in that notebook's title or map row (test_signatures_come_from_...).
# A SIGNATURES word is evidence: a clause that has one of notebook N's and refers to another notebook
# (and has none of that notebook's words) is wrong. An ALSO_OWN word only counts for its own notebook:
# "position embeddings" also describe notebook 08's model, so "position" cannot prove a reference wrong. Only
# the SIGNATURES words must come from the title or a map row: an ALSO_OWN word can only spare a reference.
SIGNATURES = {
    "07": {
        "en": ("transformer block", "RoPE", "rotary", "sinusoidal"),
        "zh": ("Transformer 块", "旋转", "正弦"),
    },
    "08": {
        "en": ("learned attention", "tiny", "checkpoint", "ablation"),
        "zh": ("学出来", "小模型", "小 Transformer", "检查点", "消融"),  # not 训练: it is inside 预训练
    },
    "09": {"en": ("translation", "encoder–decoder", "cross-attention"), "zh": ("翻译", "编码器–解码器", "交叉注意力")},
    "10": {"en": ("pretrained", "MiniLM"), "zh": ("预训练", "MiniLM")},
    "11": {"en": ("efficient", "long contexts", "tiled"), "zh": ("高效", "长上下文", "分块")},
    "12": {"en": ("modern models", "70B", "sliding"), "zh": ("当今", "70B", "滑动窗口")},
    "13": {"en": ("generating", "sampling slider"), "zh": ("生成文本", "采样滑块")},
    "14": {"en": ("SmolLM2",), "zh": ("SmolLM2",)},
    "15": {"en": ("Gemma",), "zh": ("Gemma",)},
}
ALSO_OWN = {
    "07": {
        "en": ("position", "layer norm", "residual", "feed-forward"),
        "zh": ("位置", "层归一化", "残差", "前馈网络"),
    },
    "08": {"en": ("trained",), "zh": ("训练出",)},
    "10": {"en": ("real", "rule"), "zh": ("真实", "规则")},
    "11": {"en": ("KV cache",), "zh": ("KV 缓存",)},  # 11 teaches it; 12, 13 and 14 use it too
    "12": {
        "en": ("grouped-query", "KV-cache budget", "configurations"),
        "zh": ("分组查询", "KV 缓存预算", "配置"),
    },
    "13": {
        "en": ("language model", "writes", "sampler", "sampling", "temperature", "tiny_lm", "lm_training"),
        "zh": ("语言模型", "采样", "温度"),
    },
    "14": {"en": ("real language model", "GGUF"), "zh": ("真正的语言模型", "GGUF")},
}

REFERENCE = {  # "notebook 08", "第 8 课", "第 08 个笔记本" ...; a range such as "notebooks 01–06" is not one notebook
    "en": re.compile(r"\b[Nn]otebooks? (\d\d?)\b(?![–-]\d)"),
    "zh": re.compile(r"第 ?(\d\d?) ?(?:个笔记本|课)|第 ?(\d\d) ?(?:节|本)|笔记本 ?(\d\d?)(?![\d–-])"),
}  # (第 N 节 with one digit is a section of the same notebook: notebooks/zh/STYLE.md)
LINK = re.compile(r"\]\(([^()\s]*?(\d\d)_([a-z_]+)\.ipynb)\)")
#: Every number of a reference, lists and ranges included: "notebooks 10 and 14", "notebooks 11-12",
#: "第 10、14 课", "第 7–14 课" (the README's map of the article's sections).
NUMBER_LIST = r"\d\d?(?:(?:\s*[–-]\s*|,\s*(?:and\s+|or\s+)?|\s+(?:and|or|to)\s+)\d\d?(?![\d.]))*"
REFERENCES = {
    "en": re.compile(rf"\b[Nn]otebooks? ({NUMBER_LIST})(?![\d.])"),
    "zh": re.compile(r"第 ?(\d\d?(?: ?(?:、|–|-|和|至) ?\d\d?)*) ?(?:个笔记本|课)|笔记本 ?(\d\d?)(?![\d.])"),
}
#: A markdown link to a notebook, and its text: "[notebook 12](12_...)", "[第 12 课（…）](12_...)", "[12 · …](12_...)".
TEXT_LINK = re.compile(r"\[([^\[\]]*)\]\((?:[^()\s]*/)?(\d\d)_[a-z_]+\.ipynb\)")
MAP_ROW = re.compile(r"^\| (\d\d) \| (.*?) \|", re.MULTILINE)
CLAUSE_END = re.compile(r"[.!?;。！？；](?=\s|$)|[。！？；]|\n\s*\n|\n(?=\s*(?:[-*|#]|\d+\.) )")


def notebooks(edition):
    return sorted((ROOT / "notebooks" / edition).glob("*.ipynb"))


def number(path):
    return path.name[:2]


def markdown(path):
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return "\n\n".join("".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")


def title(path):
    return markdown(path).splitlines()[0]


def python_prose(path):
    """The docstrings and comments of a Python file (a docstring's sentences may run over several lines)."""
    source = path.read_text(encoding="utf-8")
    nodes = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)
    docstrings = [ast.get_docstring(node) or "" for node in ast.walk(ast.parse(source)) if isinstance(node, nodes)]
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    comments = [token.string.lstrip("#") for token in tokens if token.type == tokenize.COMMENT]
    return "\n\n".join(docstrings + comments)


def python_strings(path):
    """Every string constant of a Python file, one paragraph each: the messages attn_lib prints, in both languages."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return "\n\n".join(
        node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)
    )


def referenced_numbers(text, edition):
    """-> [(number, the reference)] for every notebook number a reference names, each of a list or range."""
    found = []
    for match in REFERENCES[edition].finditer(text):
        listed = next(group for group in match.groups() if group)
        found += [(f"{int(num):02d}", match.group()) for num in re.findall(r"\d+", listed)]
    return found


def missing_notebooks(text, edition, existing):
    """Messages for references to notebook numbers that no notebook has."""
    return [f"{reference!r} names notebook {num}, which does not exist" for num, reference in
            referenced_numbers(text, edition) if num not in existing]  # fmt: skip


def mislabelled_links(text):
    """Messages for links whose text names one notebook and whose target is another."""
    problems = []
    for label, target in TEXT_LINK.findall(text):
        named = [num for edition in EDITIONS for num, _ in referenced_numbers(label, edition)]
        named += re.findall(r"^(\d\d) ·", label)
        if any(num != target for num in named):
            problems.append(f"[{label}] links notebook {target}")
    return problems


def has_word(text, word):
    if re.search(r"[\u4e00-\u9fff]", word):
        return word in text
    # a word, or its plural: "tiny" but not "destiny", "checkpoints" but not "really" for "real"
    return re.search(rf"(?<![A-Za-z]){re.escape(word)}(?![a-rt-z])", text, re.IGNORECASE) is not None


def references(text, edition):
    """(number, clause) for each reference to one notebook; the clause stops at the neighbouring references."""
    found = []
    start = 0
    for end in [m.end() for m in CLAUSE_END.finditer(text)] + [len(text)]:
        sentence = text[start:end]
        matches = list(REFERENCE[edition].finditer(sentence))
        for i, match in enumerate(matches):
            left = matches[i - 1].end() if i else 0
            right = matches[i + 1].start() if i + 1 < len(matches) else len(sentence)
            num = next(group for group in match.groups() if group)
            found.append((f"{int(num):02d}", sentence[left:right]))
        start = end
    return found


def misplaced(text, edition):
    """Messages for references whose clause is about another notebook (by the signatures)."""
    problems = []
    for num, clause in references(text, edition):
        if num not in SIGNATURES:
            continue
        own = [w for w in SIGNATURES[num][edition] + ALSO_OWN.get(num, {}).get(edition, ()) if has_word(clause, w)]
        other = {
            n: words
            for n, sig in SIGNATURES.items()
            if n != num and (words := [w for w in sig[edition] if has_word(clause, w)])
        }
        if other and not own:
            clause = " ".join(clause.split())
            problems.append(f"notebook {num} in “{clause[:160]}” is about notebook {sorted(other)} ({other})")
    return problems


def broken_links(text, folder):
    return [
        f"{link} does not exist"
        for link, _, _ in LINK.findall(text)
        if not (folder / link).resolve().exists() and not link.startswith("http")
    ]


# --- the files, and the notebooks themselves --------------------------------------------------------


def prose_files():
    files = [(README[ed], ed, README[ed].read_text(encoding="utf-8")) for ed in EDITIONS]
    files += [(path, ed, markdown(path)) for ed in EDITIONS for path in notebooks(ed)]
    for folder in ("attn_lib", "tests", "benchmarks", "tools"):
        paths = [path for path in sorted((ROOT / folder).rglob("*.py")) if path != Path(__file__).resolve()]
        files += [(path, "en", python_prose(path)) for path in paths]  # (this file quotes old sentences)
    others = ("binder/postBuild", ".ci/run", "requirements.txt")
    files += [(ROOT / name, "en", (ROOT / name).read_text(encoding="utf-8")) for name in others]
    return files


def reference_files():
    """(path, edition, text) of everything whose references to notebooks must name existing ones."""
    files = [(path, ed, text) for path, ed, text in FILES if path.suffix != ".py"]
    for name in ("CONTRIBUTING.md", "GLOSSARY.md"):
        files += [(ROOT / name, ed, (ROOT / name).read_text(encoding="utf-8")) for ed in EDITIONS]
    for folder in ("attn_lib", "tests", "benchmarks", "tools"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path != Path(__file__).resolve():  # (this file quotes old sentences)
                text = python_prose(path) + "\n\n" + python_strings(path)
                files += [(path, ed, text) for ed in EDITIONS]  # attn_lib's strings hold both languages
    return files


FILES = prose_files()
REFERENCE_FILES = reference_files()


def test_both_editions_have_the_same_notebooks_numbered_from_00_in_order():
    names = [[path.name for path in notebooks(ed)] for ed in EDITIONS]
    assert names[0] == names[1]
    assert [name[:2] for name in names[0]] == [f"{i:02d}" for i in range(len(names[0]))]
    assert len(names[0]) >= 11 and "07_position_and_the_transformer_block.ipynb" in names[0]


@pytest.mark.parametrize("edition", EDITIONS)
def test_signatures_come_from_each_notebooks_title_or_map_row(edition):
    """The signature words are not made up: each is in the notebook's title or in its row of a map."""
    maps = README[edition].read_text(encoding="utf-8") + markdown(notebooks(edition)[0])
    for num, signature in SIGNATURES.items():
        path = next(p for p in notebooks(edition) if number(p) == num)
        rows = "\n".join(row for row in maps.splitlines() if row.startswith(f"| {num} |"))
        for word in signature[edition]:
            assert has_word(title(path) + "\n" + rows, word), f"{word!r} is not in {path.name}'s title or map rows"


@pytest.mark.parametrize(
    "path, edition, text", FILES, ids=[f"{path.relative_to(ROOT)}" + f"-{ed}" * (ed == "zh") for path, ed, _ in FILES]
)
def test_no_reference_points_at_the_wrong_notebook(path, edition, text):
    assert misplaced(text, edition) == []
    assert broken_links(text, path.parent) == []


@pytest.mark.parametrize(
    "path, edition, text",
    REFERENCE_FILES,
    ids=[f"{path.relative_to(ROOT)}-{ed}" for path, ed, _ in REFERENCE_FILES],
)
def test_every_reference_names_a_notebook_that_exists(path, edition, text):
    existing = {number(p) for p in notebooks("en")} & {number(p) for p in notebooks("zh")}
    assert missing_notebooks(text, edition, existing) == []
    assert mislabelled_links(text) == []


@pytest.mark.parametrize("edition", EDITIONS)
def test_the_maps_list_every_notebook_in_order(edition):
    expected = [number(path) for path in notebooks(edition)]
    for source in (README[edition], notebooks(edition)[0]):
        text = source.read_text(encoding="utf-8") if source.suffix == ".md" else markdown(source)
        rows = MAP_ROW.findall(text)
        assert [num for num, _ in rows] == expected, source.name
        for num, cell in rows:
            linked = LINK.search(f"{cell})")  # the link, if the row has one (notebook 00 does not link itself)
            if linked:
                assert linked.group(2) == num, f"{source.name}: row {num} links {linked.group(1)}"


# --- the check can fail: sentences from before the renumbering -------------------------------------

OLD_SENTENCES = [  # from commit 549ee6e, before notebooks 07-09 became 08-10
    ("en", "`corpus` / `tiny_model` / `tiny_training` (notebook 07), `pretrained` / `bert` (notebook 08) and"
     " `efficient` (tiled attention, KV cache; notebook 09)."),
    ("en", "Notebook 08 needs the weights of all-MiniLM-L6-v2 (Apache-2.0)."),
    ("en", "Whether a given model has such a head has to be measured on that model; notebook 08 looks at a real"
     " pretrained one."),
    ("en", "Every notebook runs offline except notebook 08 the first time: it fetches the pretrained model once."),
    ("en", "corpus, tiny_model, tiny_training, tiny_plots, tiny_widgets   the model trained in notebook 07"),
    ("zh", "某个模型里到底有没有这样的头，必须在那个模型上实际测量；第 08 课会研究一个真实的预训练模型。"),
    ("zh", "除了第一次运行第 08 个笔记本，其余都无需联网：它要下载一次预训练模型的文件（约 84 MB）。"),
]  # fmt: skip


OLD_SENTENCES += [  # from commit 06dd6b8, before notebooks 09-13 became 10-14
    ("en", "the two pretrained models the course reads — notebook 09's all-MiniLM-L6-v2 (84 MB) and"),
    ("en", "notebook 13's SmolLM2-135M-Instruct (93 MB) — with your pip configuration"),
    ("en", "Notebook 10's measured table: tiled_attention against PyTorch's fused CPU kernel, as one run measured it."),
    ("en", "modern      notebook 11: grouped-query attention, the sliding-window mask, the KV-cache size"),
    ("zh", "第 9 课需要 all-MiniLM-L6-v2（Apache-2.0）的权重。"),
    ("zh", "| 第 10 课 | `efficient`（带在线 softmax 的分块注意力、`KVCache`） |"),
    ("zh", "第 13 课的 SmolLM2-135M-Instruct（93 MB）"),
]  # fmt: skip


@pytest.mark.parametrize("edition, sentence", OLD_SENTENCES)
def test_the_check_catches_the_old_numbering(edition, sentence):
    assert misplaced(sentence, edition), sentence


def test_references_to_missing_notebooks_and_mislabelled_links_are_caught():
    existing = {f"{i:02d}" for i in range(15)}
    assert missing_notebooks("notebooks 10 and 15 read models", "en", existing) == [
        "'notebooks 10 and 15' names notebook 15, which does not exist"
    ]
    assert missing_notebooks("第 7–16 课：位置编码", "zh", existing)
    assert missing_notebooks("见笔记本 21。", "zh", existing)
    assert not missing_notebooks("notebooks 11-12 and notebook 14; 第 10、14 课", "en", existing)
    assert not missing_notebooks("第 10、14 课和第 7–14 课", "zh", existing)
    assert not missing_notebooks("notebook 00's map, in 2.5 s; 8 notebooks 1.5 s", "en", existing)
    assert mislabelled_links("[notebook 12](13_generating_text.ipynb)")
    assert mislabelled_links("[第 12 课（生成文本）](13_generating_text.ipynb)")
    assert mislabelled_links("- [09 · attention in a real pretrained model](10_real_model_attention.ipynb): heads")
    assert not mislabelled_links("[notebook 13](13_generating_text.ipynb), [generating text](13_generating_text.ipynb)")


def test_old_links_and_map_rows_are_caught(tmp_path):
    assert broken_links("| 07 | [learned attention](07_learned_attention.ipynb) |", ROOT / "notebooks" / "en")
    old_map = "| 08 | [attention in a real model](notebooks/en/08_real_model_attention.ipynb) |"
    assert broken_links(old_map, ROOT)
    assert not broken_links("[x](10_real_model_attention.ipynb)", ROOT / "notebooks" / "en")


def test_the_right_numbers_pass():
    assert not misplaced("The model of notebook 08: token + position embeddings -> causal attention layers", "en")
    assert not misplaced("notebook 10 looks at a real pretrained one; notebook 08 trains a tiny model.", "en")
    assert not misplaced("第 10 课会研究一个真实的预训练模型。", "zh")
    assert not misplaced("第 10 课会研究一个真实的预训练模型；第 8 课训练一个小模型。", "zh")
    assert misplaced("第 8 课会研究一个真实的预训练模型。", "zh")  # one digit, as notebooks/zh/STYLE.md writes it
    assert not misplaced("`position` / `block` (notebook 07), `corpus` / `tiny_model` (notebook 08)", "en")
