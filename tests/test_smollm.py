"""SmolLM2-135M-Instruct in numpy (attn_lib.models.smollm2.model, .gguf_file): the file, its tokenizer, the pieces,
the KV cache, generation and the attention seams, without PyTorch (tests/test_smollm_transformers.py
compares with transformers).
"""

import numpy as np
import pytest

from attn_lib import scaled_dot_product_attention
from attn_lib.block import rms_norm, swiglu
from attn_lib.grouped import grouped_attention, kv_cache_bytes
from attn_lib.models import fetch
from attn_lib.models.gguf import arithmetic
from attn_lib.models.gguf.reader import q4_1_block, read_block, read_header, read_q8_0, read_tensor
from attn_lib.models.gguf.vocab import token_bytes
from attn_lib.models.smollm2 import induction
from attn_lib.models.smollm2 import model as lm
from attn_lib.position import halves_permutation, rope, rope_halves
from attn_lib.sampling import sampler

PROMPTS = [
    "The capital of France is",
    "The animal didn't cross the street because it was too",
    "今天天气很好",
    "我昨天在北京吃了烤鸭，今天在上海吃了",
    "<|im_start|>user\nWhat is the tallest mountain in the world?<|im_end|>\n<|im_start|>assistant\n",
    "Once upon a time " * 12,
]


# --- the file ---------------------------------------------------------------------------------------


def test_the_file_is_found_and_has_the_pinned_sha256(smollm):
    folder = fetch.find_model_files(download=False, spec=fetch.SMOLLM2)
    assert smollm.path == folder / lm.GGUF_NAME
    assert fetch.sha256(smollm.path) == fetch.SMOLLM2.files[lm.GGUF_NAME]


def test_metadata_config_and_tensor_table(smollm):
    c, md = smollm.config, smollm.metadata
    assert c == lm.Config(49152, 576, 30, 9, 3, 1536, 100000.0, c.rms_eps, 8192, 1, 2) and c.d_head == 64
    assert abs(c.rms_eps - 1e-5) < 1e-12 and md["tokenizer.ggml.pre"] == "smollm"
    assert md["tokenizer.ggml.add_bos_token"] is False and md["general.languages"] == ["en"]
    kinds = {}
    for info in smollm.tensors:
        kinds.setdefault(info.kind, []).append(info.name)
    assert {k: len(v) for k, v in kinds.items()} == {"Q8_0": 1, "Q4_1": 210, "F32": 61}
    assert kinds["Q8_0"] == ["token_embd.weight"] and "output.weight" not in kinds["Q4_1"]  # tied embeddings
    shapes = {i.name: i.shape for i in smollm.tensors}  # numpy order: [n_out, n_in]
    assert shapes["token_embd.weight"] == (49152, 576) and shapes["blk.0.attn_k.weight"] == (192, 576)
    assert shapes["blk.0.ffn_down.weight"] == (576, 1536)
    assert sum(i.size for i in smollm.tensors) == 134_515_008
    p = smollm.params
    assert p["layers"][0]["w_q"].shape == (576, 576) and p["layers"][0]["w_k"].shape == (576, 192)
    assert p["layers"][0]["w_down"].shape == (1536, 576)
    # kept as the file stores them, one row per output ([n_out, n_in]), used through their transposes (views)
    stored = ("w_qkv", "w_o", "w_gate_up", "w_down")
    assert all(layer[key].T.flags.c_contiguous for layer in p["layers"] for key in stored)
    assert all(np.shares_memory(layer["w_q"], layer["w_qkv"]) for layer in p["layers"])
    assert all(w.dtype == np.float32 for layer in p["layers"] for w in layer.values())


def test_a_q4_1_block_decoded_by_hand_is_what_gguf_dequantizes(smollm):
    info = next(i for i in smollm.tensors if i.name == "blk.0.attn_q.weight")
    with open(smollm.path, "rb") as f:
        first_row = read_tensor(f, info)[0]  # [576]: the first 18 blocks of 32
    for index in (0, 1, 17):
        d, m, codes, weights = q4_1_block(read_block(smollm.path, info, index))
        assert codes.min() >= 0 and codes.max() <= 15 and weights.dtype == np.float32
        np.testing.assert_array_equal(weights, first_row[32 * index : 32 * (index + 1)])
        np.testing.assert_allclose(weights, d * codes + m, rtol=1e-6)
        assert weights.min() >= m - 1e-6 and weights.max() <= m + 15 * d + 1e-6  # 16 levels from m up
    assert len(np.unique(first_row[:32])) <= 16
    np.testing.assert_array_equal(first_row, smollm.params["layers"][0]["w_q"][:, 0])  # stored for x @ w
    with pytest.raises(ValueError, match="20 bytes"):
        q4_1_block(b"\0" * 19)


def test_the_embedding_is_kept_8_bit_and_gives_the_numbers_gguf_dequantizes(smollm):
    E = smollm.params["embedding"]
    assert isinstance(E, lm.Q8Embedding) and E.shape == (49152, 576) and E.dtype == np.float32
    assert E.nbytes == 49152 * 576 + 49152 * 18 * 4  # int8 codes and a float32 scale per 32: 30.4 MiB, not 108
    info = next(i for i in smollm.tensors if i.name == "token_embd.weight")
    with open(smollm.path, "rb") as f:
        full = read_tensor(f, info)  # [V, d] float32, by gguf's own dequantization
        codes, scales = read_q8_0(f, info)
    np.testing.assert_array_equal(np.asarray(E), full)  # code x scale is exact in float32
    np.testing.assert_array_equal(codes, E.codes)
    assert np.abs(codes).max() <= 127 and np.array_equal(scales, scales.astype(np.float16).astype(np.float32))
    ids = smollm.encode(PROMPTS[1])
    np.testing.assert_array_equal(E[ids], full[ids])
    np.testing.assert_array_equal(E[ids[0]], full[ids[0]])
    assert E.astype(np.float64).dtype == np.float64
    x = np.random.default_rng(4).standard_normal((20, 576)).astype(np.float32)
    exact = x.astype(np.float64) @ full.T.astype(np.float64)  # [20, V]
    for n in (16, 1):  # a prompt's positions; one decoding step
        got, want = lm.unembed(x[:n], E), exact[:n]
        assert got.shape == want.shape and got.flags.c_contiguous and got.dtype == np.float32
        # float32 products summed in blocks (measured: 1.5e-7 of the largest logit; one float32 product: 3.0e-7)
        assert np.abs(got - want).max() <= 5e-7 * np.abs(want).max(), "x E^T up to float32 rounding"
    # positions are unembedded in blocks of POSITION_ROWS from the first, so a position's logits do not depend on
    # how many positions follow its block (a block of 4 and a block of 1 can differ in the last bit)
    blocks = lm.unembed(x, E)  # 16 + 4 positions
    np.testing.assert_array_equal(blocks[:16], lm.unembed(x[:16], E))
    np.testing.assert_array_equal(blocks[16:], lm.unembed(x[16:], E))
    with pytest.raises(ValueError, match="not a Q8_0"):
        read_q8_0(None, next(i for i in smollm.tensors if i.kind == "Q4_1"))
    with pytest.raises(TypeError, match="int8 codes"):
        lm.Q8Embedding(full[:4], scales[:4])
    with pytest.raises(ValueError, match="scales"):
        lm.Q8Embedding(codes[:4], scales[:3])


def test_read_header_refuses_a_file_that_is_not_gguf(tmp_path):
    bad = tmp_path / "model.gguf"
    bad.write_bytes(b"PK\3\4 not a gguf file")
    with pytest.raises(ValueError, match="is not a GGUF file"):
        read_header(bad)
    with pytest.raises(ValueError, match="is not a file"):
        read_header(tmp_path / "missing.gguf")


def test_the_shipped_transformers_numbers_are_the_models(smollm):
    """attn_lib against transformers' LlamaForCausalLM, through numbers it wrote (tools/make_smollm_reference.py)."""
    data = lm.reference_numbers()
    assert data["model"]["sha256"] == fetch.SMOLLM2.files[lm.GGUF_NAME]
    for entry in data["next_token"]:
        ids = smollm.encode(entry["text"])
        assert ids == entry["ids"]
        logits = lm.forward(smollm, ids, last_only=True)[-1]
        assert np.argsort(-logits)[:10].tolist() == entry["top_ids"]
        np.testing.assert_allclose(logits[entry["top_ids"]], entry["top_logits"], rtol=0, atol=1e-4)
    for entry in data["greedy"]:
        assert smollm.encode(entry["text"]) == entry["ids"]
        assert lm.generate(smollm, entry["ids"], 20) == entry["new_ids"]  # both stop after <|im_end|>


# --- the tokenizer ----------------------------------------------------------------------------------


def test_chinese_is_split_into_byte_pieces(smollm):
    ids = smollm.encode("今天天气很好")
    assert ids == [15076, 228, 18614, 119, 18614, 119, 177, 125, 238, 29157, 226, 48392, 138]
    pieces = [token_bytes(smollm.tokenizer, i) for i in ids]
    assert b"".join(pieces) == "今天天气很好".encode() and len(b"".join(pieces)) == 18
    whole = [p for p in pieces if _is_whole_characters(p)]
    assert whole == [], whole  # 13 tokens, 6 characters: not one token is a whole character
    assert smollm.decode(ids) == "今天天气很好"


def _is_whole_characters(piece):
    try:
        piece.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_special_tokens_stay_whole_and_english_words_are_one_token(smollm):
    assert smollm.encode("<|im_start|>user<|im_end|>") == [1, 4093, 2]
    assert smollm.tokens(smollm.encode("The capital of France is")) == ["The", " capital", " of", " France", " is"]
    assert token_bytes(smollm.tokenizer, smollm.encode(" Paris")[0]) == b" Paris"
    assert smollm.encode("2024") == [34, 32, 34, 36]  # every digit on its own (the 'smollm' pre-tokenizer)


# --- the pieces -------------------------------------------------------------------------------------


def test_linear_sums_more_accurately_than_one_float32_product():
    rng = np.random.default_rng(0)
    h, w = rng.standard_normal((7, 1536)), rng.standard_normal((1536, 200)).astype(np.float32)
    exact = h.astype(np.float32).astype(np.float64) @ w.astype(np.float64)
    blocked = np.abs(lm.linear(h, w) - exact).max()
    plain = np.abs((h.astype(np.float32) @ w) - exact).max()
    assert lm.linear(h, w).dtype == np.float64 and blocked < plain / 2, (blocked, plain)
    one = np.abs(lm.linear(h[3:4], w) - lm.linear(h, w)[3:4]).max()  # one position (a decoding step), by np.einsum
    assert one <= 1e-6 * np.abs(exact).max(), f"one position must be summed in the same blocks as several: {one}"
    assert np.abs(lm.linear(h[:, :100], w[:100]) - exact_part(h, w, 100)).max() < 1e-4  # K not a multiple of 64


def test_products_split_over_threads_give_the_columns_of_one_product(smollm, monkeypatch):
    rng = np.random.default_rng(1)
    h, w = rng.standard_normal((16, 576)), rng.standard_normal((576, 1536 + 64 * 3 + 5)).astype(np.float32)
    split = lm.linear(h, w)  # 16 x 576 x 1733 multiply-adds: above PARALLEL_PRODUCT, in column blocks
    monkeypatch.setattr(arithmetic, "PARALLEL_PRODUCT", float("inf"))  # every product in one piece
    whole = lm.linear(h, w)
    assert np.abs(split - whole).max() <= 1e-6 * np.abs(whole).max(), "a column block must be that block of the product"
    ids = smollm.encode("The capital of France is")
    one_piece = lm.forward(smollm, ids)
    monkeypatch.undo()
    assert np.abs(lm.forward(smollm, ids) - one_piece).max() <= 1e-5, "threads must not change the logits"


@pytest.mark.parametrize("cores", [2, 3])
def test_the_feed_forward_split_over_the_hidden_units_is_swiglu(smollm, monkeypatch, cores):
    """Each thread's range of hidden units: its columns of W_gate and W_up and its rows of W_down."""
    layer, h = smollm.params["layers"][2], np.random.default_rng(2).standard_normal((16, 576))
    weights = layer["w_gate"], layer["w_up"], layer["w_down"]
    monkeypatch.setattr(arithmetic, "default_threads", lambda: cores)
    split = arithmetic.feed_forward(h, *weights, fused=layer["w_gate_up"])
    monkeypatch.setattr(arithmetic, "PARALLEL_PRODUCT", float("inf"))  # in one piece: [W_gate | W_up] in one product
    whole = arithmetic.feed_forward(h, *weights, fused=layer["w_gate_up"])
    assert np.abs(split - whole).max() <= 1e-12 * np.abs(whole).max(), "the parts must add up to the whole sum"
    expected = swiglu(h.astype(np.float32).astype(np.float64), *(w.astype(np.float64) for w in weights))
    np.testing.assert_allclose(whole, expected, rtol=0, atol=1e-5 * np.abs(expected).max())


def exact_part(h, w, k):
    return h[:, :k].astype(np.float32).astype(np.float64) @ w[:k].astype(np.float64)


def test_a_block_is_rms_norm_rope_grouped_attention_and_swiglu(smollm):
    """decoder_block written out with the course's public functions gives the same numbers."""
    layer, cfg = smollm.params["layers"][4], smollm.config
    x = smollm.params["embedding"][smollm.encode(PROMPTS[1])].astype(np.float64) * 30  # [n, d]
    n = len(x)
    got, weights = lm.decoder_block(x, 4, layer, cfg, np.arange(n), None)
    h = rms_norm(x, layer["attn_norm"], cfg.rms_eps)
    q = rope((h @ layer["w_q"]).reshape(n, 9, 64).swapaxes(0, 1), base=cfg.rope_base)
    k = rope((h @ layer["w_k"]).reshape(n, 3, 64).swapaxes(0, 1), base=cfg.rope_base)
    v = (h @ layer["w_v"]).reshape(n, 3, 64).swapaxes(0, 1)
    out, expected_weights = grouped_attention(q, k, v, mask=np.tril(np.ones((n, n), bool)))
    a = x + out.swapaxes(0, 1).reshape(n, 576) @ layer["w_o"]
    expected = a + swiglu(rms_norm(a, layer["ffn_norm"], cfg.rms_eps), layer["w_gate"], layer["w_up"], layer["w_down"])
    np.testing.assert_allclose(weights, expected_weights, atol=1e-5)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-4 * np.abs(expected).max())


def test_the_models_own_attention_path_is_the_checked_one_bit_for_bit(smollm):
    """Without a seam, attention_block skips grouped_attention's checks (rope's tables once per forward pass,
    grouped.grouped_unchecked): the same logits as through grouped_attention itself, prompt and cached steps."""
    ids = smollm.encode(PROMPTS[1])

    def checked(q, k, v, mask=None):
        return grouped_attention(q, k, v, mask=mask)

    np.testing.assert_array_equal(lm.forward(smollm, ids), lm.forward(smollm, ids, grouped=checked))
    steps = {}
    for name, seams in (("fast", {}), ("checked", {"grouped": checked})):
        cache = lm.new_cache(smollm, len(ids))
        lm.forward(smollm, ids[:-3], cache=cache, **seams)
        steps[name] = [lm.forward(smollm, [t], cache=cache, **seams) for t in ids[-3:]]
    np.testing.assert_array_equal(np.concatenate(steps["fast"]), np.concatenate(steps["checked"]))


def test_the_models_rope_is_position_rope_bit_for_bit():
    x = np.random.default_rng(3).standard_normal((12, 7, 64)) * 5  # 9 query and 3 key heads, 7 positions
    for start in (0, 40):  # a prompt, and a step further on (decoding with the cache)
        positions = start + np.arange(7)
        got = arithmetic.turn_pairs(x, arithmetic.rope_tables(positions, 64, 100_000.0))
        np.testing.assert_array_equal(got, rope(x, base=100_000.0, positions=positions))


def test_rope_conventions_agree_only_when_the_weights_are_permuted(smollm):
    """The porting trap: the file's W_Q, W_K suit pairs (2i, 2i+1); pairs (i, i + d/2) need the rows permuted."""
    layer, cfg = smollm.params["layers"][3], smollm.config
    h = rms_norm(smollm.params["embedding"][smollm.encode(PROMPTS[1])], layer["attn_norm"], cfg.rms_eps)
    n, perm = len(h), halves_permutation(9, 64)
    w_k = np.repeat(layer["w_k"].reshape(576, 3, 64), 3, axis=1).reshape(576, 576)  # one K head per query head

    def scores(w_q, w_k, turn):
        q = turn((h @ w_q).reshape(n, 9, 64).swapaxes(0, 1), np.arange(n), cfg.rope_base)
        k = turn((h @ w_k).reshape(n, 9, 64).swapaxes(0, 1), np.arange(n), cfg.rope_base)
        return q @ k.swapaxes(-1, -2) / 8

    stored = scores(layer["w_q"], w_k, rope)
    permuted = scores(layer["w_q"][:, perm], w_k[:, perm], rope_halves)
    assert np.abs(permuted - stored).max() < 1e-4 * np.abs(stored).max()
    assert np.abs(scores(layer["w_q"], w_k, rope_halves) - stored).max() > 1.0  # halves on the stored rows
    assert np.abs(scores(layer["w_q"][:, perm], w_k[:, perm], rope) - stored).max() > 1.0


# --- the float64 reference, the KV cache, generation ---------------------------------------------------


@pytest.fixture(scope="module")
def smollm64(smollm):
    return lm.as_float64(smollm)


def test_the_float32_model_is_within_6e_5_of_the_float64_model(smollm, smollm64):
    """The measured rounding of the package's float32 arithmetic (plain float32 numpy: up to 1.2e-4)."""
    worst = {}
    for text in PROMPTS:
        ids = smollm.encode(text)
        ours, exact = lm.forward(smollm, ids), lm.forward(smollm64, ids)
        assert ours.dtype == np.float32 and exact.dtype == np.float64
        worst[len(ids)] = float(np.abs(ours - exact).max())
    assert max(worst.values()) < 6e-5, worst
    print("\nfloat32 against float64, max |difference| by prompt length:", {n: f"{d:.2g}" for n, d in worst.items()})


def test_decoding_with_the_cache_equals_recomputing_the_whole_sequence(smollm):
    ids = smollm.encode(PROMPTS[1])
    full = lm.forward(smollm, ids)  # [n, V], the whole sequence at once
    cache = lm.new_cache(smollm, len(ids))
    steps = [lm.forward(smollm, ids[:6], cache=cache)]  # prefill 6 tokens, then one token per step
    steps += [lm.forward(smollm, [t], cache=cache) for t in ids[6:]]
    steps = np.concatenate(steps)
    # the same numbers up to rounding (the BLAS sums one row and a block of rows in different orders;
    # each is within 6e-5 of the float64 model, see above; measured here: 3.3e-5)
    np.testing.assert_allclose(steps, full, rtol=0, atol=1e-4)
    assert (steps.argmax(-1) == full.argmax(-1)).all()
    assert cache[0].length == len(ids) and all(c.length == len(ids) for c in cache)
    with pytest.raises(ValueError, match="cannot take 1 more"):
        lm.forward(smollm, ids[:1], cache=cache)


def test_generate_with_and_without_the_cache_writes_the_same_tokens(smollm):
    ids = smollm.encode(PROMPTS[0])
    with_cache = lm.generate(smollm, ids, 12, stop_ids=())
    assert with_cache == lm.generate(smollm, ids, 12, use_cache=False, stop_ids=())
    assert smollm.decode(with_cache).startswith(" Paris")


def test_a_seeded_sampler_repeats_itself_and_leaves_the_global_generator_alone(smollm):
    ids = smollm.encode(PROMPTS[0])
    state = np.random.get_state()[1].copy()
    a = lm.generate(smollm, ids, 6, sampler(seed=1, temperature=0.8), stop_ids=())
    assert a == lm.generate(smollm, ids, 6, sampler(seed=1, temperature=0.8), stop_ids=())
    assert np.array_equal(state, np.random.get_state()[1])


def test_generation_stops_after_the_end_token(smollm):
    chat = "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n"
    new = lm.generate(smollm, smollm.encode(chat), 40)
    assert new[-1] == smollm.config.eos_id and len(new) < 40, smollm.decode(new)


def test_the_kv_cache_holds_46080_bytes_per_token(smollm):
    cfg = smollm.config
    per_token = kv_cache_bytes(cfg.n_layers, cfg.n_kv_heads, cfg.d_head, 1, 4)
    assert per_token == 2 * 30 * 3 * 64 * 4 == 46_080
    assert lm.kv_cache_bytes_measured(lm.new_cache(smollm, 100)) == per_token


# --- the seams ---------------------------------------------------------------------------------------


def learner_attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores - scores.max(-1, keepdims=True))
    w = w / w.sum(-1, keepdims=True)
    return w @ v, w


def learner_grouped(q, k, v, mask=None):
    g = q.shape[-3] // k.shape[-3]
    return learner_attention(q, np.repeat(k, g, axis=-3), np.repeat(v, g, axis=-3), mask)


def test_a_learners_attention_or_grouped_attention_runs_the_model(smollm):
    ids = smollm.encode(PROMPTS[0])
    ours = lm.forward(smollm, ids)
    np.testing.assert_allclose(lm.forward(smollm, ids, attention=learner_attention), ours, rtol=0, atol=1e-5)
    np.testing.assert_allclose(lm.forward(smollm, ids, grouped=learner_grouped), ours, rtol=0, atol=1e-5)
    assert lm.generate(smollm, ids, 4, attention=learner_attention) == lm.generate(smollm, ids, 4)
    np.testing.assert_allclose(lm.forward(smollm, ids, attention=scaled_dot_product_attention), ours, atol=1e-6)


def test_the_seams_name_what_went_wrong(smollm):
    ids = smollm.encode(PROMPTS[0])
    with pytest.raises(ValueError, match="attention returned output"):
        lm.forward(smollm, ids, attention=lambda q, k, v, mask=None: (q[0], q[0]))
    with pytest.raises(ValueError, match="grouped returned output"):
        lm.forward(smollm, ids, grouped=lambda q, k, v, mask=None: (k, k))
    with pytest.raises(TypeError, match="must return"):
        lm.forward(smollm, ids, grouped=lambda q, k, v, mask=None: q)
    with pytest.raises(ValueError, match="not both"):
        lm.forward(smollm, ids, attention=learner_attention, grouped=learner_grouped)
    with pytest.raises(TypeError, match="attention must be a function"):
        lm.forward(smollm, ids, attention="sdpa")


def test_bad_ids_are_named(smollm):
    with pytest.raises(TypeError, match="model.encode"):
        lm.forward(smollm, "The capital")
    with pytest.raises(ValueError, match="0 .. 49151"):
        lm.forward(smollm, [1, 49152])
    with pytest.raises(ValueError, match="non-empty"):
        lm.forward(smollm, [])
    with pytest.raises(TypeError, match="pick must be a function"):
        lm.generate(smollm, [1], 3, pick="greedy")


def test_losses_are_each_positions_next_token_loss_without_the_logits(smollm):
    ids = smollm.encode(PROMPTS[2] + " " + PROMPTS[1])  # more than LOSS_ROWS positions: chunks, the last short
    assert len(ids) > lm.LOSS_ROWS + 1
    logits = lm.forward(smollm, ids)
    losses = lm.forward(smollm, ids, losses=True)
    p = np.exp(logits.astype(np.float64) - logits.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(losses, -np.log(p[np.arange(len(ids) - 1), ids[1:]]), rtol=1e-9)
    assert losses.shape == (len(ids) - 1,) and abs(losses.mean() - lm.next_token_loss(logits, ids)) < 1e-9
    with_weights, weights = lm.forward(smollm, ids, losses=True, keep_weights=True)
    np.testing.assert_array_equal(with_weights, losses)
    assert len(weights) == 30 and weights[0].shape == (9, len(ids), len(ids)) and weights[0].dtype == np.float32
    np.testing.assert_allclose(weights[7].sum(axis=-1), 1, atol=1e-5)
    assert np.all(np.triu(weights[7], k=1) == 0), "no weight on a later token"
    for bad in ({"last_only": True}, {}):
        with pytest.raises(ValueError, match="losses=True needs"):
            lm.forward(smollm, ids if bad else ids[:1], losses=True, **bad)


def test_induction_scores_read_the_weight_from_a_repeat_to_the_token_after_its_first_time():
    n = 4
    weights = np.zeros((2, 3, 2 * n, 2 * n))  # 2 layers, 3 heads
    weights[1, 2, n + np.arange(n), np.arange(n) + 1] = 0.75  # layer 1, head 2: an induction head
    weights[0, 0, np.arange(2 * n), np.arange(2 * n)] = 1.0  # layer 0, head 0: looks at itself
    scores = induction.induction_scores(list(weights), n)
    assert scores.shape == (2, 3) and scores[1, 2] == 0.75 and scores.sum() == 0.75
    assert induction.top_heads(scores, 2)[0] == (1, 2, 0.75)
    assert induction.chance_score(50) == pytest.approx(np.mean(1 / (51 + np.arange(50))))
    tokens = induction.repeated_random_tokens(np.arange(100, 200), n=5, seed=0)
    assert len(set(tokens[:5])) == 5 and np.array_equal(tokens[:5], tokens[5:])


def test_copy_loss_is_the_repeated_halfs_loss_and_switching_heads_off_changes_it(smollm):
    tokens = induction.repeated_random_tokens(induction.ordinary_tokens(smollm)[:2000], n=12, seed=3)
    logits = lm.forward(smollm, tokens)
    assert induction.copy_loss(smollm, tokens) == pytest.approx(lm.next_token_loss(logits[12:], tokens[12:]))
    assert induction.copy_loss(smollm, tokens) < lm.next_token_loss(logits[:12], tokens[:12])  # it copies
    assert induction.copy_loss(smollm, tokens, [(18, 0), (17, 7)]) != induction.copy_loss(smollm, tokens)


def test_next_token_loss_is_the_mean_cross_entropy():
    logits = np.log(np.array([[0.5, 0.25, 0.25], [0.1, 0.1, 0.8], [1 / 3, 1 / 3, 1 / 3]]))
    assert abs(lm.next_token_loss(logits, [0, 1, 2]) - (-np.log(0.25) - np.log(0.8)) / 2) < 1e-12
    many = np.random.default_rng(3).standard_normal((40, 7))  # 39 predictions: 3 chunks of 16 rows, the last short
    ids = np.arange(40) % 7
    z = many[:-1] - many[:-1].max(axis=-1, keepdims=True)
    whole = -(z - np.log(np.exp(z).sum(axis=-1, keepdims=True)))[np.arange(39), ids[1:]].mean()
    assert abs(lm.next_token_loss(many, ids) - whole) < 1e-12
    assert lm.next_token_loss(many, ids, rows=5) == pytest.approx(whole)
