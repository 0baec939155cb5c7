"""Gemma 3 270M in numpy (attn_lib.models.gemma3.model): the file's facts, one block written out with the course's
public functions, the local and global layers, the cache, <bos>. transformers is compared in test_gemma3_transformers.
"""

import dataclasses

import numpy as np
import pytest

from attn_lib.block import gelu_tanh, rms_norm
from attn_lib.grouped import grouped_attention
from attn_lib.models.gemma3 import model as gm
from attn_lib.position import rope_halves
from attn_lib.sliding_window import sliding_window_mask

CHINESE = ["今天天气", "猫吃鱼", "我昨天在北京吃了烤鸭，今天在上海吃了"]


def test_the_config_is_the_checked_one(gemma3):
    c = gemma3.config
    sizes = (c.n_layers, c.d_model, c.n_heads, c.n_kv_heads, c.d_head, c.d_ff, c.vocab_size, c.window)
    assert sizes == (18, 640, 4, 1, 256, 2048, 262_144, 512)
    assert (c.rope_base, c.rms_eps, c.bos_id, c.eos_id) == (1_000_000.0, pytest.approx(1e-6), 2, 1)
    assert [i + 1 for i in range(18) if c.is_global(i)] == [6, 12, 18]
    assert {c.rope_base_for(i) for i in range(18) if not c.is_global(i)} == {10_000.0}
    assert c.embed_scale == pytest.approx(640**0.5)


def test_the_article_phrases_are_cut_as_the_article_cuts_them(gemma3):
    assert gemma3.tokens(gemma3.encode("今天天气很好")) == ["<bos>", "今天", "天气", "很好"]
    assert gemma3.tokens(gemma3.encode("猫吃鱼")) == ["<bos>", "猫", "吃", "鱼"]


def test_the_embedding_stays_8_bit_and_the_weights_are_float32(gemma3):
    emb = gemma3.params["embedding"]
    assert emb.codes.dtype == np.int8 and emb.nbytes < 200e6  # 168 MB of codes, 21 MB of scales
    layer = gemma3.params["layers"][0]
    assert layer["w_qkv"].shape == (640, 1024 + 256 + 256) and layer["w_qkv"].dtype == np.float32
    assert np.shares_memory(layer["w_q"], layer["w_qkv"])


def test_a_block_is_the_course_s_public_functions(gemma3):
    """decoder_block written out with rms_norm, rope_halves, grouped_attention and gelu_tanh: the same numbers,
    on a local layer (window 512, base 10,000) and a global one (base 1,000,000)."""
    cfg, ids = gemma3.config, gemma3.encode(CHINESE[2])
    x = gemma3.params["embedding"][ids].astype(np.float64) * cfg.embed_scale
    n = len(x)
    for i in (0, 5):
        layer = gemma3.params["layers"][i]
        got, weights = gm.decoder_block(x, i, layer, cfg, np.arange(n), None)
        h = rms_norm(x, layer["attn_norm"], cfg.rms_eps)
        q = rms_norm((h @ layer["w_q"]).reshape(n, 4, 256).swapaxes(0, 1), layer["q_norm"], cfg.rms_eps)
        k = rms_norm((h @ layer["w_k"]).reshape(n, 1, 256).swapaxes(0, 1), layer["k_norm"], cfg.rms_eps)
        v = (h @ layer["w_v"]).reshape(n, 1, 256).swapaxes(0, 1)
        base = 1_000_000.0 if i == 5 else 10_000.0
        mask = sliding_window_mask(n, 512) if i == 0 else np.tril(np.ones((n, n), bool))
        out, expected_weights = grouped_attention(rope_halves(q, base=base), rope_halves(k, base=base), v, mask=mask)
        a = x + rms_norm(out.swapaxes(0, 1).reshape(n, 1024) @ layer["w_o"], layer["post_attn_norm"], cfg.rms_eps)
        g = rms_norm(a, layer["ffn_norm"], cfg.rms_eps)
        ffn = (gelu_tanh(g @ layer["w_gate"]) * (g @ layer["w_up"])) @ layer["w_down"]
        expected = a + rms_norm(ffn, layer["post_ffn_norm"], cfg.rms_eps)
        np.testing.assert_allclose(weights, expected_weights, atol=1e-6)
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-4 * np.abs(expected).max())


def test_the_cache_gives_the_recomputed_logits_across_the_window(gemma3):
    """Prompt into the cache, then one token at a time past position 512, where the local layers' window starts to
    hide the first tokens: each step's logits are those of the whole sequence recomputed."""
    ids = (gemma3.encode("注意力机制让模型回头看前面的每一个词。" * 60))[:530]
    assert len(ids) == 530
    full = gm.forward(gemma3, ids)
    cache = gm.new_cache(gemma3, len(ids))
    first = gm.forward(gemma3, ids[:505], cache=cache)
    steps = [gm.forward(gemma3, [t], cache=cache)[0] for t in ids[505:]]
    np.testing.assert_allclose(first, full[:505], rtol=0, atol=2e-4)
    np.testing.assert_allclose(np.array(steps), full[505:], rtol=0, atol=2e-4)
    assert (np.array(steps).argmax(-1) == full[505:].argmax(-1)).all()


def test_the_window_matters_beyond_512_tokens_and_not_before(gemma3):
    """With every layer global (the window removed), the logits of a 530-token text change only from position 512."""
    ids = (gemma3.encode("猫吃鱼，狗吃肉，今天天气很好。" * 60))[:530]
    unwindowed = dataclasses.replace(gemma3, config=dataclasses.replace(gemma3.config, window=10**9))
    a, b = gm.forward(gemma3, ids), gm.forward(unwindowed, ids)
    assert np.abs(a[:512] - b[:512]).max() == 0
    assert np.abs(a[512:] - b[512:]).max() > 0.01


def test_without_bos_the_model_repeats_itself(gemma3):
    """The fact behind encode's <bos>: after 今天天气 without it, greedy decoding repeats 天气."""
    with_bos = gemma3.encode("今天天气")
    without = with_bos[1:]
    text = gemma3.decode(gm.generate(gemma3, without, 8, stop_ids=()))
    assert text.count("天气") >= 3, text
    assert gemma3.decode(gm.generate(gemma3, with_bos, 8, stop_ids=())).count("天气") < 3


def test_the_cache_holds_one_key_and_value_head_per_layer(gemma3):
    cache = gm.new_cache(gemma3, 10)
    assert gm.kv_cache_bytes_measured(cache) == 2 * 18 * 1 * 256 * 4  # 36,864 bytes per token, float32


def test_a_learners_attention_runs_the_model(gemma3):
    """The attention= seam: scaled_dot_product_attention itself gives the model's logits."""
    from attn_lib.core import scaled_dot_product_attention

    ids = gemma3.encode(CHINESE[1])
    np.testing.assert_allclose(
        gm.forward(gemma3, ids, attention=scaled_dot_product_attention), gm.forward(gemma3, ids), atol=1e-5
    )
