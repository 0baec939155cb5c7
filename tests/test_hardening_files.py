"""Hardening of the files the course reads (issue findings T4-10, T4-13).

T4-10: a GGUF file cut short or damaged (an interrupted copy, a few bytes changed) gives one DamagedGGUFError that
names the file, says it is truncated or damaged and says what to do (delete it, fetch again), from the header parser
and from the tensor readers alike, never a bare IndexError, struct.error or numpy reshape error. The damaged files
are copies of the real model files in tmp_path: the header alone (the tensors' bytes left as a sparse hole, which the
header parser never reads), or one whole copy of SmolLM2's 94 MiB file cut shorter and shorter.

T4-13: with the bundled CJK font missing (a copy of the package without its data) and no CJK font installed, plots
still draw and the readiness check says what is wrong and what to do; its lines are never cut mid-word.
"""

import io
import os
import shutil
import warnings

import matplotlib
import numpy as np
import pytest
from matplotlib import font_manager

from attn_lib import check, examples
from attn_lib.models import fetch
from attn_lib.models.gguf import reader
from attn_lib.models.gguf.vocab import SENTENCEPIECE_KEYS
from attn_lib.pictures import find_cjk_font, heatmaps, plot_attention, use_cjk_font

FETCH = "python -m attn_lib.models.fetch"
SETUP = "python -m pip install -r requirements.txt"


def gguf_file(spec):
    """The path of a model's GGUF file where the course finds it (nothing fetched), else the test is skipped."""
    pytest.importorskip("gguf", reason="the GGUF reader needs gguf")
    try:
        folder = fetch.find_model_files(download=False, verify=False, spec=spec)
    except fetch.ModelNotAvailableError:
        pytest.skip(f"{spec.model}'s file is not here: run {FETCH}")
    return folder / next(name for name in spec.files if name.endswith(".gguf"))


@pytest.fixture(scope="module")
def smollm_gguf():
    path = gguf_file(fetch.SMOLLM2)
    return path, reader.read_header(path, keep=False)  # keep=False: the cache's kept header is left as it is


@pytest.fixture(scope="module")
def gemma_gguf():
    path = gguf_file(fetch.GEMMA3)
    return path, reader.read_header(path, keep=False)


def header_bytes(source, infos):
    """The file's bytes before its tensors' data: its header and tensor table."""
    with open(source, "rb") as src:
        return src.read(min(info.offset for info in infos))


def header_copy(source, infos, dest, size=None):
    """A copy of `source` (or of its first `size` bytes) with its header and tensor table, its tensors' bytes left a
    hole of zeros (the header parser never reads them)."""
    dest.write_bytes(header_bytes(source, infos))
    os.truncate(dest, os.path.getsize(source) if size is None else size)
    return dest


def assert_damaged(excinfo, path):
    """The error names the file, says what is wrong and says what to do."""
    message = str(excinfo.value)
    assert isinstance(excinfo.value, ValueError)
    assert str(path) in message and "truncated or damaged" in message, message
    assert "Delete it" in message and FETCH in message and "SHA-256" in message, message


def table_start(data, infos):
    """The byte where the tensor table begins: its first entry is the first tensor's name, after its length."""
    name = infos[0].name.encode()
    return data.index(len(name).to_bytes(8, "little") + name)


def array_count_at(data, key):
    """The byte of the item count of the array stored under `key` (after the key, its type 9 and the item type)."""
    return data.index(len(key).to_bytes(8, "little") + key.encode()) + 8 + len(key) + 4 + 4


# --- T4-10: a GGUF file cut short or damaged -----------------------------------------------------------------


def test_a_gguf_file_cut_in_its_header_or_tensor_table_names_the_file(tmp_path, smollm_gguf):
    source, (_, infos) = smollm_gguf
    data = header_bytes(source, infos)
    table = table_start(data, infos)
    tokens = array_count_at(data, "tokenizer.ggml.tokens")
    cuts = {
        "inside the magic": 2,
        "inside the counts": 12,
        "inside the first key": 30,
        "inside the vocabulary": tokens + 300_000,
        "just before the tensor table": table - 3,
        "inside the tensor table": table + 100,
        "after the table, before the tensors' data": len(data) - 1,
        "where the tensors' data begins": len(data),
    }
    cut = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    for where, size in cuts.items():
        cut.write_bytes(data[:size])
        for array_keys in ((), reader.TOKENIZER_KEYS):  # the vocabulary walked over, and read
            with pytest.raises(reader.DamagedGGUFError) as excinfo:
                reader.read_header(cut, array_keys=array_keys)
            assert_damaged(excinfo, cut)
        assert not list(tmp_path.glob(".*.header.json")), f"cut {where}: no header may be kept for a damaged file"


def test_a_gguf_file_cut_in_its_tensors_data_names_the_file_in_every_reader(tmp_path, smollm_gguf):
    from attn_lib.models.smollm2.model import read_model

    source, (metadata, infos) = smollm_gguf
    copy = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    shutil.copyfile(source, copy)
    assert reader.read_header(copy, keep=False) == (metadata, infos)  # the whole copy is read as it should be
    last = max(infos, key=lambda i: i.offset)  # the final norm's gains, F32: the file's last bytes
    embedding = next(i for i in infos if i.name == "token_embd.weight")  # Q8_0, the file's first tensor
    q4_1 = next(i for i in infos if i.kind == "Q4_1" and i.offset > embedding.offset + embedding.n_bytes)
    for size, readers in (
        (os.path.getsize(source) - 1, [lambda f: reader.read_tensor(f, last)]),  # the last byte missing
        (q4_1.offset + q4_1.n_bytes // 2, [lambda f: reader.read_tensor(f, q4_1)]),  # cut inside a Q4_1 matrix
        (
            embedding.offset + 1000,
            [lambda f: reader.read_q8_0(f, embedding), lambda f: reader.read_tensor(f, embedding)],
        ),
    ):
        os.truncate(copy, size)
        for keep in (True, False):
            with pytest.raises(reader.DamagedGGUFError, match="past the end of the file") as excinfo:
                reader.read_header(copy, keep=keep)
            assert_damaged(excinfo, copy)
        with pytest.raises(reader.DamagedGGUFError) as excinfo:
            read_model(copy)  # what load_smollm(verify=False) reads
        assert_damaged(excinfo, copy)
        with open(copy, "rb") as f:  # the tensor readers, given the header of the whole file
            for read in readers:
                with pytest.raises(reader.DamagedGGUFError, match="past the end of the file") as excinfo:
                    read(f)
                assert_damaged(excinfo, copy)


def test_a_tensor_reader_whose_file_shrinks_while_it_reads_names_the_file(tmp_path, smollm_gguf):
    """The bytes were there when the reading began, and are not when a chunk is read (a file cut by another process)."""
    source, (_, infos) = smollm_gguf
    embedding = next(i for i in infos if i.name == "token_embd.weight")
    copy = header_copy(source, infos, tmp_path / "model.gguf", size=embedding.offset + embedding.n_bytes)
    real_fromfile = np.fromfile

    def cut_after_the_first_chunk(f, dtype, count):
        os.truncate(copy, f.tell() + 340)  # 10 blocks of Q8_0 left
        return real_fromfile(f, dtype, count)

    with open(copy, "rb") as f, pytest.MonkeyPatch.context() as patch:
        patch.setattr(np, "fromfile", cut_after_the_first_chunk)
        with pytest.raises(reader.DamagedGGUFError, match="end early: only 340 of the") as excinfo:
            reader.read_q8_0(f, embedding)
    assert_damaged(excinfo, copy)


def flip(path, at, new):
    """Write the bytes `new` over the file's bytes at `at` (returns the old ones)."""
    with open(path, "r+b") as f:
        f.seek(at)
        old = f.read(len(new))
        f.seek(at)
        f.write(new)
    return old


def test_a_gguf_header_with_changed_bytes_names_the_file(tmp_path, smollm_gguf):
    source, (metadata, infos) = smollm_gguf
    copy = header_copy(source, infos, tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf")
    assert reader.read_header(copy, keep=False) == (metadata, infos)  # intact, it reads as the file itself
    data = header_bytes(source, infos)
    table, first_key = table_start(data, infos), 24
    first_value_type = first_key + 8 + int.from_bytes(data[24:32], "little")
    tokens = array_count_at(data, "tokenizer.ggml.tokens")
    n_dims_at = table + 8 + len(infos[0].name)  # the first tensor: name, n_dims, ne, type, offset
    n_dims = len(infos[0].shape)
    type_at, ne0_at = n_dims_at + 4 + 8 * n_dims, n_dims_at + 4
    offset_at = type_at + 4
    second_offset_at = offset_at + 8 + 8 + len(infos[1].name) + 4 + 8 * len(infos[1].shape) + 4
    changes = {
        "the version": (4, (9).to_bytes(4, "little")),
        "the tensor count": (8, (1 << 60).to_bytes(8, "little")),
        "the key/value count": (16, b"\xff" * 8),
        "the first key's length": (first_key + 7, b"\x7f"),
        "the first key's text": (first_key + 8, b"\xff"),
        "the first value's type": (first_value_type, (0xEE).to_bytes(4, "little")),
        "the vocabulary's count": (tokens, (1 << 40).to_bytes(8, "little")),
        "a token's length": (tokens + 8, (1 << 40).to_bytes(8, "little")),
        "a tensor's number of dimensions": (n_dims_at, (7).to_bytes(4, "little")),
        "a tensor's first dimension": (ne0_at, (577).to_bytes(8, "little")),
        "a tensor's second dimension": (ne0_at + 8, (0).to_bytes(8, "little")),
        "a tensor's type": (type_at, (99).to_bytes(4, "little")),
        "a tensor's offset": (offset_at + 5, b"\x01"),
        "a tensor's offset, onto the tensor before it": (second_offset_at, (0).to_bytes(8, "little")),
    }
    assert int.from_bytes(data[second_offset_at : second_offset_at + 8], "little") > 0
    for what, (at, new) in changes.items():
        old = flip(copy, at, new)
        try:
            for array_keys in ((), reader.TOKENIZER_KEYS):
                with pytest.raises(reader.DamagedGGUFError) as excinfo:
                    reader.read_header(copy, array_keys=array_keys, keep=False)
                assert_damaged(excinfo, copy)
        except BaseException as exc:
            raise AssertionError(f"{what} changed: {exc}") from exc
        finally:
            flip(copy, at, old)
    assert reader.read_header(copy, keep=False) == (metadata, infos)  # every change undone: intact again


def test_gemma3s_file_cut_or_damaged_names_the_file(tmp_path, gemma_gguf):
    """Gemma 3's header (262,144 tokens, their float32 scores and int32 types): cut, and its arrays' counts changed."""
    source, (metadata, infos) = gemma_gguf
    copy = header_copy(source, infos, tmp_path / "gemma-3-270m-q4_k_m.gguf")
    assert reader.read_header(copy, array_keys=SENTENCEPIECE_KEYS, keep=False) == reader.read_header(
        source, array_keys=SENTENCEPIECE_KEYS, keep=False
    )
    data = header_bytes(source, infos)
    for key in ("tokenizer.ggml.scores", "tokenizer.ggml.token_type", "tokenizer.ggml.tokens"):
        at = array_count_at(data, key)
        old = flip(copy, at, (1 << 50).to_bytes(8, "little"))
        for array_keys in ((), SENTENCEPIECE_KEYS):
            with pytest.raises(reader.DamagedGGUFError, match="an array of") as excinfo:
                reader.read_header(copy, array_keys=array_keys, keep=False)
            assert_damaged(excinfo, copy)
        flip(copy, at, old)
    os.truncate(copy, os.path.getsize(source) - 1)  # the last tensor's last byte missing
    with pytest.raises(reader.DamagedGGUFError, match="past the end of the file") as excinfo:
        reader.read_header(copy)
    assert_damaged(excinfo, copy)
    for size in (20, array_count_at(data, "tokenizer.ggml.scores") + 4000, table_start(data, infos) + 50):
        os.truncate(copy, size)
        with pytest.raises(reader.DamagedGGUFError) as excinfo:
            reader.read_header(copy, array_keys=SENTENCEPIECE_KEYS)
        assert_damaged(excinfo, copy)


# --- T4-13: the bundled CJK font missing; the readiness check's lines ----------------------------------------


@pytest.fixture
def no_cjk_font(tmp_path, monkeypatch):
    """A copy of attn_lib without its data (the bundled font's path leads nowhere) on a machine with no CJK font."""
    missing = tmp_path / "attn_lib" / "pictures" / "fonts" / heatmaps.BUNDLED_FONT.name
    cjk = set(heatmaps.PREFERRED_CJK_FONTS)
    latin_only = [entry for entry in font_manager.fontManager.ttflist
                  if entry.name not in cjk and entry.fname != str(heatmaps.BUNDLED_FONT)]  # fmt: skip
    monkeypatch.setattr(heatmaps, "BUNDLED_FONT", missing)
    monkeypatch.setattr(font_manager.fontManager, "ttflist", latin_only)
    font_manager.fontManager._findfont_cached.cache_clear()  # matplotlib caches look-ups across font lists
    try:
        with matplotlib.rc_context():
            yield missing
    finally:
        font_manager.fontManager._findfont_cached.cache_clear()  # no later test may find DejaVu for the CJK font


def test_without_the_bundled_font_plots_still_draw_and_a_warning_says_what_to_do(no_cjk_font):
    before = list(matplotlib.rcParams["font.family"])
    for function in (find_cjk_font, use_cjk_font):  # what every notebook's first cell calls
        with pytest.warns(UserWarning) as caught:
            assert function() is None
        message = str(caught[0].message)
        assert str(no_cjk_font) in message and "cannot be read" in message and "FileNotFoundError" in message
        assert SETUP in message and "empty boxes" in message, message
    assert matplotlib.rcParams["font.family"] == before, "no font that is not there is added to rcParams"
    tokens = list(examples.CAT_TOKENS)  # 猫 吃 鱼: drawn, with matplotlib's warning for each missing glyph
    weights = np.full((len(tokens), len(tokens)), 1 / len(tokens))
    with pytest.warns(UserWarning) as caught:  # the warning above again, then one for each missing glyph
        fig = plot_attention(weights, tokens, lang="zh")
        fig.savefig(io.BytesIO(), format="png")
    assert any("Glyph" in str(w.message) and "missing" in str(w.message) for w in caught)
    no_cjk_font.parent.mkdir(parents=True)
    no_cjk_font.write_bytes(b"not a font")  # a damaged file is no better than none: the same fallback
    with pytest.warns(UserWarning, match="cannot be read"):
        assert use_cjk_font() is None


def test_the_readiness_check_says_the_bundled_font_is_missing_and_what_to_do(no_cjk_font):
    for lang, words in (("en", "is missing or cannot be read"), ("zh", "也不见了或读不了")):
        ok, line = check.check_font(lang=lang)
        assert not ok and str(no_cjk_font) in line and words in line and SETUP in line, line
    out = io.StringIO()
    items = [(name, function) for name, function in check.checks("en") if name in ("font", "widget")]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert check.run("en", out=out, items=items) == 1
    lines = out.getvalue().splitlines()
    assert lines[1].startswith("✗ no CJK font is installed") and SETUP in lines[1], lines
    assert lines[2].startswith("✓ a widget"), lines  # the widget still draws, without the Chinese glyphs
    assert "failed:" not in out.getvalue(), "no check may crash with a traceback's last line"
    assert not [str(w.message) for w in caught], "the lines say it all: no warnings between them"


def model_missing_reason(line):
    """The quoted reason of a check.model_missing line (English)."""
    head, tail = "are missing (", "): run `python -m attn_lib.models.fetch`"
    assert head in line and line.endswith(tail + " once while online"), line
    return line[line.index(head) + len(head) : line.rindex(tail)]


def assert_cut_between_words(reason, message):
    if reason.endswith(" …"):  # cut at a space
        kept = reason[: -len(" …")]
        assert message.startswith(kept) and message[len(kept)] in " ,;:", (reason, message)
    else:  # whole, or up to the end of a sentence
        assert message.startswith(reason) and (reason == message or reason.endswith(".")), (reason, message)
    assert reason == message or len(reason) <= check.REASON_LIMIT + 2


def test_the_missing_model_line_is_never_cut_mid_word(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path))
    monkeypatch.setattr(fetch, "installed_model_dir", lambda spec=None: None)
    for spec in fetch.MODELS:  # the real messages, whose first lines are 214 to 217 characters long
        with pytest.raises(fetch.ModelNotAvailableError) as excinfo:
            fetch.find_model_files(download=False, spec=spec)
        first = str(excinfo.value).splitlines()[0]
        ok, line = check.check_model(lang="en", spec=spec, number=14)
        assert not ok
        assert_cut_between_words(model_missing_reason(line), first)

    def raising(message):
        def find(**_):
            raise fetch.ModelNotAvailableError(message)

        return find

    words = "the index could not be reached through the configured proxy server " * 5  # no sentence end
    long_word = "/a/" + "very-long-folder-name/" * 15  # one word of 333 characters: never cut
    for message in (words.strip(), "A short reason.", long_word):
        ok, line = check.check_model(lang="en", find=raising(message))
        reason = model_missing_reason(line)
        assert_cut_between_words(reason, message)
        assert reason == message or len(message) > check.REASON_LIMIT
    assert model_missing_reason(check.check_model(lang="en", find=raising(long_word))[1]) == long_word
