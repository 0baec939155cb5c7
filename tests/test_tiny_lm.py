"""Notebook 13's tiny language model: its corpus, its gradients (vs PyTorch and finite differences), the KV cache.

The stored weights and the table over seeds are checked in test_tiny_lm_stored.py.
"""

import numpy as np
import pytest

from attn_lib.examples import TINY_CORPUS
from attn_lib.models import lm_corpus as C
from attn_lib.models import tiny_lm as M
from attn_lib.models.corpus import CITY_DISHES
from attn_lib.models.generation import (
    cached_step,
    generate,
    last_position_attention,
    macs_cached_step,
    macs_forward,
    macs_generate,
    next_token_logits,
    write,
)
from attn_lib.models.ngram import next_token_distribution
from attn_lib.sampling import greedy, sampler

SMALL = M.LMConfig(vocab_size=13, max_len=9, d_model=8, n_heads=2, n_layers=2, d_ff=12)


@pytest.fixture(scope="module")
def corpus():
    return C.make_lm_corpus()


def small_case(seed=0, dtype=np.float64):
    """-> params (LayerNorm gammas and betas and the biases moved off 1 and 0), inputs, targets, real: 3 padded rows."""
    rng = np.random.default_rng(seed)
    params = M.init_params(SMALL, seed=seed, dtype=dtype)
    for name in params:
        if "gamma" in name or "beta" in name or ".b_" in name:
            params[name] = (params[name] + rng.normal(0.0, 0.3, params[name].shape)).astype(dtype)
    tokens = rng.integers(1, SMALL.vocab_size, (3, SMALL.max_len + 1))  # [3, 10]
    tokens[0, 6:], tokens[1, 9:] = 0, 0  # right padding: no loss there
    return (params, *M.next_token_targets(tokens))


# --- the corpus -----------------------------------------------------------------------------------------


def test_corpus_is_deterministic_and_well_formed(corpus):
    again = C.make_lm_corpus()
    for name in C.SPLITS:
        split = getattr(corpus, name)
        np.testing.assert_array_equal(split.tokens, getattr(again, name).tokens)
        rows = np.arange(len(split))
        assert (split.tokens[:, 0] == corpus.index[C.BOS]).all()
        assert (split.tokens[rows, split.lengths - 1] == corpus.index[C.EOS]).all()  # every sentence ends with 。
        assert ((split.tokens == corpus.index[C.EOS]).sum(axis=1) == 1).all()  # ... and has it nowhere else
        assert (np.arange(split.tokens.shape[1]) >= split.lengths[:, None]).sum() == (split.tokens == 0).sum()
    assert all(" " not in word for word in corpus.vocab)  # one word, one token
    assert [len(getattr(corpus, s)) for s in C.SPLITS] == [2720, 395, 395] and len(corpus.vocab) == 205
    assert not np.array_equal(C.make_lm_corpus(seed=1).test.tokens, corpus.test.tokens)


def test_city_pairs_never_cross_splits_and_the_article_is_a_test_pair(corpus):
    cities = {city for city, _ in CITY_DISHES}
    pairs = {
        name: {
            frozenset(t for t in tokens if t in cities) for tokens, source, *_ in corpus.sentences[name] if source == 1
        }
        for name in C.SPLITS
    }
    assert all(pairs.values())
    assert not (
        pairs["train"] & pairs["test"] or pairs["train"] & pairs["validation"] or pairs["validation"] & pairs["test"]
    )
    assert frozenset({"北京", "上海"}) in pairs["test"]
    for tokens, source, blank, dish in corpus.sentences["test"]:
        if source == 1:  # the blank is the final 吃了 (counted with <bos>), its target the today-city's dish
            assert tokens[blank - 1] == "吃了" and tokens[blank] == dish and tokens[blank + 1] == "。"


def test_weather_lines_keep_notebook_01s_frequencies(corpus):
    for name in C.SPLITS:
        tokens, probs = next_token_distribution(corpus.counted(name), "今天 天气", order=3)
        assert tokens == ("很好", "不错", "真热")
        np.testing.assert_allclose(probs, [0.5, 0.3, 0.2])
    weather = sum(count for s, count in TINY_CORPUS if s.startswith("今天 天气"))
    assert sum(tokens[:2] == ["今天", "天气"] for tokens, *_ in corpus.sentences["train"]) == 8 * weather == 80


def test_encode_names_an_unknown_word(corpus):
    np.testing.assert_array_equal(corpus.encode("今天 天气"), corpus.encode(["今天", "天气"]))
    with pytest.raises(ValueError, match=r"\['晴朗'\] not in the vocabulary"):
        corpus.encode("今天 天气 晴朗")


# --- gradients ------------------------------------------------------------------------------------------


def torch_loss_and_grads(params, config, inputs, targets, real):
    """The same model in PyTorch (float64, autograd) -> (loss, {name: grad})."""
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    P = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in params.items()}
    B, n = inputs.shape
    d, h = config.d_model, config.n_heads
    x = P["tok_emb"][torch.tensor(inputs)] + P["pos_emb"][:n]
    for layer in range(1, config.n_layers + 1):
        p = {name: P[f"layer{layer}.{name}"] for name in M.BLOCK_NAMES}
        z = F.layer_norm(x, (d,), p["ln1_gamma"], p["ln1_beta"], config.eps)
        q, k, v = ((z @ p[w]).view(B, n, h, d // h).transpose(1, 2) for w in ("w_q", "w_k", "w_v"))
        heads = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # [B, h, n, d_k]
        x = x + heads.transpose(1, 2).reshape(B, n, d) @ p["w_o"]
        z = F.layer_norm(x, (d,), p["ln2_gamma"], p["ln2_beta"], config.eps)
        x = x + F.gelu(z @ p["w_1"] + p["b_1"]) @ p["w_2"] + p["b_2"]
    hidden = F.layer_norm(x, (d,), P["lnf_gamma"], P["lnf_beta"], config.eps)
    real_t = torch.tensor(real)
    loss = F.cross_entropy(hidden[real_t] @ P["tok_emb"].T, torch.tensor(targets)[real_t])
    loss.backward()
    return loss.item(), {k: t.grad.numpy() for k, t in P.items()}


def test_gradients_match_pytorch_autograd():
    params, inputs, targets, real = small_case()
    loss, grads = M.loss_and_gradients(params, SMALL, inputs, targets, real)
    torch_loss, torch_grads = torch_loss_and_grads(params, SMALL, inputs, targets, real)
    assert loss == pytest.approx(torch_loss, rel=1e-7)  # block.gelu's erf is within 1e-7 of torch's exact one
    assert grads.keys() == torch_grads.keys()
    for name in grads:
        np.testing.assert_allclose(grads[name], torch_grads[name], rtol=1e-5, atol=1e-9, err_msg=name)


def test_gradients_match_finite_differences():
    params, inputs, targets, real = small_case(seed=1)
    _, grads = M.loss_and_gradients(params, SMALL, inputs, targets, real)
    step = 1e-6
    for name, value in params.items():
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):  # every entry of every parameter
            old = value[idx]
            value[idx] = old + step
            up = M.mean_loss(params, SMALL, inputs, targets, real)
            value[idx] = old - step
            down = M.mean_loss(params, SMALL, inputs, targets, real)
            value[idx] = old
            numeric[idx] = (up - down) / (2 * step)
        scale = np.abs(numeric).max() + 1e-12
        assert np.abs(numeric - grads[name]).max() / scale < 1e-5, name


def test_float32_stays_float32_and_the_parameter_count_is_the_formula():
    params, inputs, targets, real = small_case(dtype=np.float32)
    _, grads = M.loss_and_gradients(params, SMALL, inputs, targets, real)
    assert {g.dtype for g in grads.values()} == {np.dtype(np.float32)}
    assert M.count_parameters(SMALL) == sum(p.size for p in params.values())


def test_bad_configs_and_tokens_are_named():
    with pytest.raises(ValueError, match="n_heads=3 does not divide d_model=8"):
        M.LMConfig(13, 9, d_model=8, n_heads=3)
    with pytest.raises(TypeError, match="config must be an LMConfig"):
        M.init_params({"vocab_size": 13})
    params = M.init_params(SMALL)
    with pytest.raises(ValueError, match="token ids must lie in 0..12"):
        M.forward(params, SMALL, np.array([[1, 13]]))
    with pytest.raises(ValueError, match="max_len=9"):
        M.forward(params, SMALL, np.ones((1, 10), dtype=int))
    with pytest.raises(ValueError, match="positions 8..9 do not exist"):
        M.decode_step(params, SMALL, M.new_caches(SMALL), [1, 2], 8)


# --- the KV cache ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, atol", [(np.float64, 1e-11), (np.float32, 2e-5)])
def test_the_kv_cache_gives_the_same_tokens_and_logits(dtype, atol):
    config = M.LMConfig(vocab_size=13, max_len=12, d_model=16, n_heads=4, n_layers=2, d_ff=24)
    params = M.init_params(config, seed=3, dtype=dtype)
    prompt = np.array([1, 5, 7])
    for make in (lambda: greedy, lambda: sampler(seed=4)):  # a fresh sampler per run: the same draws again
        cached = generate(params, config, prompt, make(), max_new=20, use_cache=True)
        again = generate(params, config, prompt, make(), max_new=20, use_cache=False)
        np.testing.assert_array_equal(cached[0], again[0])
        assert len(cached[0]) == config.max_len + 1  # written until the last position had been read
        np.testing.assert_allclose(cached[1], again[1], atol=atol)


def test_a_cached_step_is_the_last_row_of_a_full_forward_pass():
    config = M.LMConfig(vocab_size=13, max_len=10, d_model=16, n_heads=4, n_layers=3, d_ff=20)
    params = M.init_params(config, seed=5, dtype=np.float64)
    ids = np.random.default_rng(0).integers(0, 13, 10)
    step = cached_step(params, config)
    logits = [step(ids[:4], 0)] + [step(ids[t : t + 1], t) for t in range(4, 10)]  # prefill 4, then one at a time
    h, _ = M.forward(params, config, ids[None])
    np.testing.assert_allclose(np.array(logits), M.unembed(params, h[0, 3:]), atol=1e-12)
    assert [cache.length for cache in step.caches] == [10, 10, 10]


def test_generation_stops_at_the_end_marker(corpus):
    config = M.LMConfig(len(corpus.vocab), corpus.max_len - 1, d_model=16, n_heads=2, n_layers=1, d_ff=16)
    params = M.init_params(config, seed=0)
    end = corpus.index[C.EOS]
    params["tok_emb"][end] *= 40.0
    params["lnf_gamma"][:], params["lnf_beta"] = 0.0, params["tok_emb"][end].copy()  # every position now says 。
    ids, logits = generate(params, config, corpus.encode("<bos> 今天"), greedy, stop=end)
    assert ids.tolist() == corpus.encode("<bos> 今天 。").tolist() and logits.shape == (1, len(corpus.vocab))
    assert write(params, config, corpus, "今天") == ["。"]
    never, _ = generate(params, config, corpus.encode("<bos> 今天"), greedy)  # without `stop`: on to n_max
    assert len(never) == config.max_len + 1


def test_the_distribution_and_the_attention_of_the_last_position(corpus):
    config = M.LMConfig(len(corpus.vocab), corpus.max_len - 1, d_model=16, n_heads=2, n_layers=2, d_ff=16)
    params = M.init_params(config, seed=1, dtype=np.float64)
    logits = next_token_logits(params, config, corpus, "今天 天气")
    h, _ = M.forward(params, config, corpus.encode("<bos> 今天 天气")[None])
    np.testing.assert_allclose(logits, M.unembed(params, h[0, -1]), atol=1e-12)
    weights, tokens = last_position_attention(params, config, corpus, "我 在 上海 吃了")
    assert weights.shape == (2, 2, 5) and tokens == ["<bos>", "我", "在", "上海", "吃了"]
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


# --- what a step costs ----------------------------------------------------------------------------------


def test_multiply_adds_are_the_shapes_of_the_products():
    config = M.LMConfig(vocab_size=205, max_len=18, d_model=32, n_heads=4, n_layers=2, d_ff=128)
    d, F, V, h, d_k = 32, 128, 205, 4, 8
    for n in (1, 3, 18):  # [n, d] x [d, d] four times, [n, d] x [d, F] and back, per head [n, d_k] x [d_k, n] ...
        per_layer = 4 * n * d * d + 2 * n * d * F + h * (n * d_k * n + n * n * d_k)
        assert macs_forward(config, n) == 2 * per_layer + d * V  # ... and the last position unembedded
    for t in (0, 5, 17):  # one query against t + 1 keys
        assert macs_cached_step(config, t) == 2 * (4 * d * d + 2 * d * F + h * 2 * (t + 1) * d_k) + d * V
    assert macs_generate(config, 3, 1, True) == macs_generate(config, 3, 1, False) == macs_forward(config, 3)
    assert macs_generate(config, 3, 15, True) == macs_forward(config, 3) + sum(
        macs_cached_step(config, t) for t in range(3, 17)
    )
    assert macs_generate(config, 3, 15, True) < macs_generate(config, 3, 15, False) / 5


# --- what a written sentence is ---------------------------------------------------------------------------


def test_every_corpus_sentence_fits_a_shape_and_is_found_where_it_is(corpus):
    pattern = C.template_patterns()
    for name in C.SPLITS:
        for tokens, source, *_ in corpus.sentences[name]:
            assert pattern.fullmatch(" ".join(tokens) + " "), tokens
            kind = C.sentence_kind(corpus, tokens, pattern)
            assert kind == ("train" if name == "train" or source == 0 else "held_out"), (name, tokens, kind)


def test_new_fillings_and_mixes_of_two_templates(corpus):
    assert C.sentence_kind(corpus, "北京 的 小笼包 很 有名 。".split()) == "template"  # the wrong dish: a new filling
    assert C.sentence_kind(corpus, "青岛 的 蛤蜊 很 冷 。".split()) == "none"  # 的 {dC} 很 有名 meets 的 冬天 很 冷
    assert C.sentence_kind(corpus, "今天 天气 很好 很好 。".split()) == "none"
    assert C.sentence_kind(corpus, "今天 天气 很好".split()) == "none"  # no end marker
