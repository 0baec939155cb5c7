"""Grouped-query attention (attn_lib.grouped), its parameter count, the KV-cache formula and the grouped KV cache.

References: multi_head_attention (n_kv_heads = n_heads), scaled dot-product attention on K/V heads
repeated with np.repeat (written here, not with attn_lib.grouped.repeat_kv), and tests/reference.py's
plain loops. PyTorch's enable_gqa=True is in test_grouped_torch.py.
"""

import re

import numpy as np
import pytest
import reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from attn_lib import causal_mask, count_parameters, init_multi_head_weights, multi_head_attention
from attn_lib import scaled_dot_product_attention as sdpa
from attn_lib.efficient import KVCache
from attn_lib.grouped import (
    grouped_attention,
    grouped_query_attention,
    init_grouped_weights,
    kv_cache_bytes,
    repeat_kv,
)

FAST = settings(deadline=None, max_examples=30)
TOL = {np.float64: 1e-12, np.float32: 1e-5}
seeds = st.integers(0, 2**32 - 1)
dtypes = st.sampled_from([np.float64, np.float32])


def close(actual, expected, dtype=np.float64):
    np.testing.assert_allclose(actual, expected, rtol=TOL[dtype], atol=TOL[dtype])


def head_counts():
    """(n_heads, n_kv_heads) with n_kv_heads dividing n_heads."""
    return st.sampled_from([(h, kv) for h in (1, 2, 3, 4, 6, 8) for kv in range(1, h + 1) if h % kv == 0])


# --- grouped attention on q, k, v -------------------------------------------------------------------


@FAST
@given(head_counts(), st.lists(st.integers(1, 9), min_size=4, max_size=4, unique=True), st.booleans(), dtypes, seeds)
def test_grouped_attention_equals_attention_on_repeated_heads(heads, dims, masked, dtype, seed):
    h, h_kv = heads
    n_q, n_k, d_k, d_v = dims
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(2, h, n_q, d_k)).astype(dtype)
    k = rng.normal(size=(2, h_kv, n_k, d_k)).astype(dtype)
    v = rng.normal(size=(2, h_kv, n_k, d_v)).astype(dtype)
    mask = rng.random((n_q, n_k)) < 0.7 if masked else None
    g = h // h_kv
    k_rep, v_rep = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)  # K/V head j -> query heads j*g .. (j+1)*g-1
    expected = sdpa(q, k_rep, v_rep, mask=mask)
    actual = grouped_attention(q, k, v, mask=mask)
    for a, b in zip(actual, expected, strict=True):
        assert a.dtype == dtype and a.shape == b.shape
        close(a, b, dtype)
    close(repeat_kv(k, g), k_rep, dtype)


def test_the_order_of_the_shared_heads_matters():
    """np.tile (0 1 0 1 ...) gives other numbers than np.repeat (0 0 ... 1 1 ...): the grouping is not arbitrary."""
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(6, 4, 3)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    out, _ = grouped_attention(q, k, v)
    tiled, _ = sdpa(q, np.tile(k, (3, 1, 1)), np.tile(v, (3, 1, 1)))
    assert not np.allclose(out, tiled)
    for i in range(6):  # query head i uses K/V head i // 3, checked head by head with the plain loops
        expected_out, expected_w = ref.attention(q[i], k[i // 3], v[i // 3])
        close(out[i], expected_out)


def test_a_mask_per_query_head_is_grouped_with_the_heads():
    rng = np.random.default_rng(1)
    q, k, v = rng.normal(size=(2, 6, 4, 3)), rng.normal(size=(2, 3, 5, 3)), rng.normal(size=(2, 3, 5, 2))
    mask = rng.random((2, 6, 4, 5)) < 0.6  # one mask per sentence and per query head
    out, w = grouped_attention(q, k, v, mask=mask)
    out_rep, w_rep = sdpa(q, np.repeat(k, 2, axis=1), np.repeat(v, 2, axis=1), mask=mask)
    close(out, out_rep)
    close(w, w_rep)
    one_for_all = mask[:, :1]  # [2, 1, 4, 5]: one mask per sentence, every head
    close(
        grouped_attention(q, k, v, mask=one_for_all)[0], sdpa(q, np.repeat(k, 2, 1), np.repeat(v, 2, 1), one_for_all)[0]
    )


# --- grouped-query attention on x ---------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "n_heads"), [(12, 3), (8, 8), (6, 1), (24, 4)])
@pytest.mark.parametrize("masked", [False, True])
def test_with_as_many_kv_heads_as_query_heads_it_is_multi_head_attention(d_model, n_heads, masked):
    rng = np.random.default_rng(d_model)
    x = rng.normal(size=(2, 5, d_model))
    weights = init_multi_head_weights(d_model, n_heads, seed=3)
    mask = causal_mask(5) if masked else None
    expected = multi_head_attention(x, **weights, n_heads=n_heads, mask=mask)
    actual = grouped_query_attention(x, **weights, n_heads=n_heads, n_kv_heads=n_heads, mask=mask)
    for a, b in zip(actual, expected, strict=True):
        close(a, b)


@pytest.mark.parametrize(("n_heads", "n_kv_heads"), [(6, 2), (6, 3), (6, 1), (4, 2)])
def test_grouped_query_attention_equals_the_loop_over_heads(n_heads, n_kv_heads):
    d_model, n = 12, 4
    d_k, g = d_model // n_heads, n_heads // n_kv_heads
    rng = np.random.default_rng(n_heads * 10 + n_kv_heads)
    x = rng.normal(size=(n, d_model))
    w = init_grouped_weights(d_model, n_heads, n_kv_heads, seed=5)
    assert w["w_k"].shape == w["w_v"].shape == (d_model, n_kv_heads * d_k)
    out, weights = grouped_query_attention(x, **w, n_heads=n_heads, n_kv_heads=n_kv_heads, mask=causal_mask(n))
    heads = []
    for i in range(n_heads):  # the formula, head by head: query head i, K/V head i // g
        j = i // g
        q_i = x @ w["w_q"][:, i * d_k : (i + 1) * d_k]
        k_j, v_j = x @ w["w_k"][:, j * d_k : (j + 1) * d_k], x @ w["w_v"][:, j * d_k : (j + 1) * d_k]
        head, head_w = ref.attention(q_i, k_j, v_j, mask=causal_mask(n))
        close(weights[i], head_w)
        heads.append(np.array(head))
    close(out, np.concatenate(heads, axis=-1) @ w["w_o"])


def test_float32_stays_float32_and_float16_is_computed_in_float32():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(5, 8))
    w = init_grouped_weights(8, 4, 2, seed=1)
    out64, w64 = grouped_query_attention(x, **w, n_heads=4, n_kv_heads=2)
    for dtype, tol in ((np.float32, 1e-5), (np.float16, 5e-3)):
        cast = {name: value.astype(dtype) for name, value in w.items()}
        out, weights = grouped_query_attention(x.astype(dtype), **cast, n_heads=4, n_kv_heads=2)
        assert out.dtype == weights.dtype == dtype
        np.testing.assert_allclose(out, out64, atol=tol * 4, rtol=tol * 4)


# --- bad input ------------------------------------------------------------------------------------


def test_bad_input_names_the_argument_and_the_rule():
    x = np.ones((3, 12))
    w = init_grouped_weights(12, 6, 2)
    with pytest.raises(ValueError, match=r"n_kv_heads=4 does not divide n_heads=6: .*divisors of 6: 1, 2, 3, 6"):
        grouped_query_attention(x, **w, n_heads=6, n_kv_heads=4)
    with pytest.raises(ValueError, match=r"n_kv_heads=4 does not divide n_heads=6"):
        init_grouped_weights(12, 6, 4)
    with pytest.raises(ValueError, match=r"w_k has shape \(12, 12\) but must be \[d_model, 4\] = \(12, 4\)"):
        grouped_query_attention(x, w["w_q"], w["w_q"], w["w_v"], w["w_o"], n_heads=6, n_kv_heads=2)
    with pytest.raises(ValueError, match="n_heads=5 does not divide d_model=12"):
        grouped_query_attention(x, **w, n_heads=5, n_kv_heads=1)
    with pytest.raises(TypeError, match="n_kv_heads must be a positive integer, got float"):
        grouped_query_attention(x, **w, n_heads=6, n_kv_heads=2.0)
    q, k, v = np.ones((6, 4, 3)), np.ones((4, 5, 3)), np.ones((4, 5, 2))
    with pytest.raises(ValueError, match="q has 6 heads but k and v have 4: the number of key/value heads must divide"):
        grouped_attention(q, k, v)
    with pytest.raises(ValueError, match="k has 2 heads but v has 4"):
        grouped_attention(q, np.ones((2, 5, 3)), v)
    with pytest.raises(
        ValueError, match=r"mask of shape \(4, 4\) does not broadcast to the weights of shape \(6, 4, 5\)"
    ):
        grouped_attention(q, k[:2], v[:2], mask=np.ones((4, 4), bool))
    with pytest.raises(ValueError, match="q must have at least 3 dimensions"):
        grouped_attention(np.ones((4, 3)), k, v)
    with pytest.raises(ValueError, match="seed=-1 must be a non-negative integer"):
        init_grouped_weights(12, 6, 2, seed=-1)


# --- the parameter count --------------------------------------------------------------------------


@pytest.mark.parametrize(("d_model", "n_heads", "n_kv_heads"), [(768, 12, 4), (4096, 32, 8), (64, 8, 1), (60, 6, 3)])
def test_count_parameters_with_grouped_heads_is_the_size_of_the_weights(d_model, n_heads, n_kv_heads):
    weights = init_grouped_weights(d_model, n_heads, n_kv_heads) if d_model <= 768 else None
    d_k = d_model // n_heads
    expected = 2 * d_model**2 + 2 * d_model * n_kv_heads * d_k
    assert count_parameters(d_model, n_heads, n_kv_heads=n_kv_heads) == expected
    if weights is not None:
        assert expected == sum(w.size for w in weights.values())
    biases = d_model + 2 * n_kv_heads * d_k + d_model  # b_Q, b_K, b_V, b_O
    assert count_parameters(d_model, n_heads, bias=True, n_kv_heads=n_kv_heads) == expected + biases
    assert count_parameters(d_model, n_heads, bias="output", n_kv_heads=n_kv_heads) == expected + d_model


def test_the_existing_counts_do_not_change():
    assert count_parameters(768, 12) == count_parameters(768, 12, n_kv_heads=12) == 2_359_296
    assert count_parameters(768, 12, bias=True) == 2_362_368
    assert count_parameters(768, 12, bias="output") == 2_359_296 + 768  # LLMs-from-scratch's default
    assert count_parameters(768, 12, n_kv_heads=1) == 2 * 768**2 + 2 * 768 * 64  # multi-query: one K and one V head


def test_count_parameters_bad_arguments():
    with pytest.raises(ValueError, match="n_kv_heads=5 does not divide n_heads=12"):
        count_parameters(768, 12, n_kv_heads=5)
    with pytest.raises(ValueError, match="n_kv_heads=0 must be a positive integer"):
        count_parameters(768, 12, n_kv_heads=0)
    with pytest.raises(TypeError, match=r"bias must be True or False, got 'qkv' \(or \"output\" for a bias on W_O"):
        count_parameters(768, 12, bias="qkv")


# --- the KV-cache formula ----------------------------------------------------------------------------


def test_kv_cache_bytes_against_the_numbers_papers_print():
    # Kwon et al. 2023 (PagedAttention), section 3: OPT-13B, 2 x 5120 x 40 layers x 2 bytes = 800 KB per token
    assert kv_cache_bytes(n_layers=40, n_kv_heads=40, d_head=128, n_tokens=1, bytes_per_number=2) == 800 * 1024
    # Llama 2 7B: 32 layers, 32 heads of 128, float16: 512 KiB per token, 2 GiB for its 4096-token context
    assert kv_cache_bytes(32, 32, 128) == 512 * 1024 and kv_cache_bytes(32, 32, 128, 4096) == 2 * 2**30
    # Llama 2 70B: 80 layers, 8 K/V heads (64 query heads): 320 KiB per token, less than the 7B model's
    assert kv_cache_bytes(80, 8, 128) == 320 * 1024


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"n_layers": 0}, ValueError, "n_layers=0 must be a positive integer"),
        ({"n_kv_heads": 2.5}, TypeError, "n_kv_heads must be a positive integer, got float"),
        ({"bytes_per_number": None}, TypeError, "bytes_per_number must be a positive integer, got None"),
    ],
)
def test_kv_cache_bytes_bad_input(kwargs, error, message):
    args = {"n_layers": 32, "n_kv_heads": 8, "d_head": 128, "n_tokens": 10, "bytes_per_number": 2, **kwargs}
    with pytest.raises(error, match=message):
        kv_cache_bytes(**args)


# --- a KV cache that holds only the shared heads --------------------------------------------------------


@FAST
@given(head_counts(), st.integers(1, 9), st.integers(0, 4), dtypes, seeds)
def test_grouped_kv_cache_decoding_equals_grouped_causal_attention(heads, n, prompt, dtype, seed):
    h, h_kv = heads
    prompt = min(prompt, n)
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(2, h, n, 5)).astype(dtype)
    k, v = rng.normal(size=(2, h_kv, n, 5)).astype(dtype), rng.normal(size=(2, h_kv, n, 3)).astype(dtype)
    expected, _ = grouped_attention(q, k, v, mask=causal_mask(n))
    cache = KVCache(n, d_k=5, d_v=3, batch_shape=(2, h_kv), dtype=dtype, n_query_heads=h)
    assert cache.keys.shape == (2, h_kv, n, 5)  # only the shared heads are stored
    outputs = []
    if prompt:
        cache.append(k[:, :, :prompt], v[:, :, :prompt])
        outputs.append(cache.attend(q[:, :, :prompt]))
    for t in range(prompt, n):
        step = cache.decode_step(q[:, :, t], k[:, :, t], v[:, :, t])
        assert step.shape == (2, h, 3) and step.dtype == dtype
        outputs.append(step[:, :, None])
    close(np.concatenate(outputs, axis=-2), expected, dtype)


def test_grouped_kv_cache_holds_n_query_heads_over_n_kv_heads_times_fewer_numbers():
    full = KVCache(100, d_k=16, batch_shape=(8,))
    shared = KVCache(100, d_k=16, batch_shape=(2,), n_query_heads=8)
    assert full.keys.nbytes + full.values.nbytes == 4 * (shared.keys.nbytes + shared.values.nbytes)


def test_grouped_kv_cache_bad_input_and_atomic_steps():
    with pytest.raises(ValueError, match=r"n_kv_heads=3 does not divide n_heads=8"):
        KVCache(4, d_k=2, batch_shape=(3,), n_query_heads=8)
    with pytest.raises(ValueError, match="n_query_heads needs batch_shape to end with the number of key/value heads"):
        KVCache(4, d_k=2, n_query_heads=8)
    cache = KVCache(4, d_k=2, batch_shape=(2,), n_query_heads=6, dtype=np.float64)
    with pytest.raises(ValueError, match=r"q_t must have shape .*leading axes .* \(6,\) and d=2, got shape \(2, 2\)"):
        cache.decode_step(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)))  # q_t with the K/V heads' count
    assert cache.length == 0  # nothing was stored
    out = cache.decode_step(np.ones((6, 2)), np.ones((2, 2)), np.array([[1.0, 2.0], [3.0, 4.0]]))
    np.testing.assert_array_equal(out, [[1, 2]] * 3 + [[3, 4]] * 3)  # one key: each group gets its head's value


# --- the published configurations --------------------------------------------------------------------


def test_the_published_configurations_are_consistent():
    from attn_lib.models.configs import CONFIGS, FALCON_7B, LLAMA2_7B, LLAMA2_70B, MISTRAL_7B, OPT_13B, source_note

    for config in CONFIGS:
        assert config.n_heads * config.d_head == config.d_model, config.name
        assert config.n_heads % config.n_kv_heads == 0, config.name
        assert config.source, config.name
        assert source_note(config, "en") == config.source, f"{config.name}: the English note is the source as it is"
        zh = source_note(config, "zh")
        assert zh.endswith("出处：" + config.reference) and re.search("[\u4e00-\u9fff]", zh.split("出处：")[0]), (
            f"{config.name}: the Chinese note should say in Chinese what the source shows, then cite it: {zh!r}"
        )
        pieces = [piece.strip() for part in config.reference.split(";") for piece in part.split(",")]
        assert all(piece in config.source for piece in pieces), f"{config.name}: the reference is the source's"
        assert "(" not in zh.split("出处：")[1].replace("(PagedAttention)", ""), f"{config.name}: no English notes"
    assert [c.kind for c in (LLAMA2_7B, OPT_13B, LLAMA2_70B, MISTRAL_7B, FALCON_7B)] == [
        "MHA",
        "MHA",
        "GQA",
        "GQA",
        "MQA",
    ]
    opt = kv_cache_bytes(OPT_13B.n_layers, OPT_13B.n_kv_heads, OPT_13B.d_head)
    assert opt == 2 * 5120 * 40 * 2 == 800 * 1024  # the PagedAttention paper's own product
    # Mistral's rolling buffer keeps W = 4096 positions: "reduces the cache memory usage by 8x" at 32k tokens
    full, windowed = (kv_cache_bytes(32, 8, 128, n) for n in (32_768, min(32_768, MISTRAL_7B.sliding_window)))
    assert full == 8 * windowed


def test_grouped_query_attention_says_it_takes_no_biases():
    """Issue 27 item 15: multi_head_attention takes b_q ... b_o; grouped_query_attention none (and says so)."""
    doc = " ".join(grouped_query_attention.__doc__.split())
    assert "No biases" in doc and "before `grouped_attention`" in doc
    w = init_grouped_weights(8, 4, 2)
    with pytest.raises(TypeError, match="b_q"):
        grouped_query_attention(np.ones((3, 8)), w["w_q"], w["w_k"], w["w_v"], w["w_o"], 4, 2, b_q=np.zeros(8))


# --- a replacement attention inside grouped_attention (notebook 14's seam) --------------------------------


def loop_attention(q, k, v, mask=None):
    """A learner's attention written with broadcasting @, as notebooks 04-05 teach it."""
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    w = np.exp(scores - scores.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w


@FAST
@given(head_counts(), st.lists(st.integers(1, 9), min_size=4, max_size=4, unique=True), st.booleans(), seeds)
def test_a_replacement_attention_gives_grouped_attentions_numbers(heads, dims, masked, seed):
    (h, h_kv), (n_q, n_k, d_k, d_v) = heads, dims
    rng = np.random.default_rng(seed)
    q, k, v = rng.normal(size=(h, n_q, d_k)), rng.normal(size=(h_kv, n_k, d_k)), rng.normal(size=(h_kv, n_k, d_v))
    mask = rng.random((n_q, n_k)) < 0.7 if masked else None
    if mask is not None:
        mask[:, 0] = True  # every query sees a key: the loop's softmax has no fully masked row to meet
    expected = grouped_attention(q, k, v, mask=mask)
    got = grouped_attention(q, k, v, mask=mask, attention=loop_attention)
    close(got[0], expected[0])
    close(got[1], expected[1])
    seen = []

    def spy(q_, k_, v_, mask=None):
        seen.append((q_.shape, k_.shape))
        return sdpa(q_, k_, v_, mask=mask)

    grouped_attention(q, k, v, mask=mask, attention=spy)
    assert seen == [((h_kv, h // h_kv, n_q, d_k), (h_kv, 1, n_k, d_k))]  # K and V shared by broadcasting, not copied


def test_a_replacement_attention_gets_the_scale_only_when_one_is_given():
    q, k, v = np.ones((4, 2, 3)), np.ones((2, 5, 3)), np.ones((2, 5, 2))
    calls = []

    def with_scale(q, k, v, mask=None, scale=None):
        calls.append(scale)
        return sdpa(q, k, v, mask=mask, scale=scale)

    grouped_attention(q, k, v, attention=with_scale)
    grouped_attention(q, k, v, scale=0.25, attention=with_scale)
    assert calls == [None, 0.25]


def test_a_replacement_attention_that_returns_the_wrong_thing_is_named():
    q, k, v = np.ones((4, 2, 3)), np.ones((2, 5, 3)), np.ones((2, 5, 2))
    with pytest.raises(TypeError, match="attention must return"):
        grouped_attention(q, k, v, attention=lambda q, k, v, mask=None: q)
    with pytest.raises(ValueError, match=r"attention returned output \(2, 2, 2, 3\).*\(2, 2, 2, 2\)"):
        grouped_attention(q, k, v, attention=lambda q, k, v, mask=None: (q + 0 * k[..., :1, :], np.ones((2, 2, 2, 5))))
    with pytest.raises(ValueError, match="NaN or inf"):
        grouped_attention(
            q, k, v, attention=lambda q, k, v, mask=None: (np.full((2, 2, 2, 2), np.nan), np.ones((2, 2, 2, 5)))
        )
    with pytest.raises(TypeError, match="attention must be a function"):
        grouped_attention(q, k, v, attention="sdpa")
