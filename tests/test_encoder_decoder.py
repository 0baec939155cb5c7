"""Notebook 09's encoder–decoder (attn_lib.models.encoder_decoder, .translation_decoding): gradients, masks, decoding.

- every parameter's gradient against central finite differences (float64), with and without attention dropout
  (the same dropout masks at every evaluation: the generator is re-seeded);
- the forward pass against torch.nn.Transformer (norm_first=True, GELU, dropout 0) with the weights copied in;
- padding changes nothing: a sentence alone and the same sentence padded in a batch give the same logits;
- the masks: cross-attention puts no weight on <pad>, the decoder's self-attention none on the future;
- greedy decoding with the caches writes exactly what recomputing the whole prefix writes;
- attention dropout only in training, and a run with drop = 0 is the run without it.
"""

import numpy as np
import pytest

from attn_lib.models import encoder_decoder as ED
from attn_lib.models import translation_decoding as TD
from attn_lib.models.translation_corpus import ARTICLE_SENTENCES, make_parallel_corpus
from attn_lib.models.translation_training import trim


@pytest.fixture(scope="module")
def corpus():
    return make_parallel_corpus()


def small(corpus, **sizes):
    sizes = {"d_model": 8, "n_heads": 2, "encoder_layers": 2, "decoder_layers": 2, "d_ff": 12} | sizes
    return ED.Seq2SeqConfig(len(corpus.source_vocab), len(corpus.target_vocab), **sizes)


def batch(corpus, rows):
    """A padded batch: sentences of different lengths, so that padding is exercised."""
    return trim(corpus.train.source[rows], corpus.train.target[rows])


@pytest.mark.parametrize("drop", [0.0, 0.3])
def test_every_gradient_matches_finite_differences(corpus, drop):
    config = small(corpus)
    params = ED.init_params(config, seed=1)
    source, target = batch(corpus, [0, 500, 980 % len(corpus.train), 960, 7])

    def loss():
        return ED.loss_and_gradients(params, config, source, target, drop, np.random.default_rng(3))[0]

    _, grads = ED.loss_and_gradients(params, config, source, target, drop, np.random.default_rng(3))
    assert set(grads) == set(params)
    rng = np.random.default_rng(0)
    for name, w in params.items():
        numeric, analytic = [], []
        for flat in rng.choice(w.size, size=min(8, w.size), replace=False):
            i = np.unravel_index(flat, w.shape)
            original = w[i]
            w[i] = original + 1e-6
            plus = loss()
            w[i] = original - 1e-6
            minus = loss()
            w[i] = original
            numeric.append((plus - minus) / 2e-6)
            analytic.append(grads[name][i])
        numeric, analytic = np.array(numeric), np.array(analytic)
        error = np.linalg.norm(numeric - analytic) / max(np.linalg.norm(numeric + analytic), 1e-12)
        assert error < 1e-5 or np.abs(numeric - analytic).max() < 1e-9, (name, numeric, analytic)


def test_a_wrong_gradient_fails_the_finite_difference_check(corpus, monkeypatch):
    """The check above can fail: a softmax backward without its row sum term gives a different gradient."""
    config = small(corpus)
    params = ED.init_params(config, seed=1)
    source, target = batch(corpus, [0, 500])
    _, right = ED.loss_and_gradients(params, config, source, target)
    original = ED.attention_backward

    def wrong(d_out, w, cache):
        cache = dict(cache, weights=cache["weights"] * 1.1)  # a softmax backward on the wrong numbers
        return original(d_out, w, cache)

    monkeypatch.setattr(ED, "attention_backward", wrong)
    _, bad = ED.loss_and_gradients(params, config, source, target)
    assert not np.allclose(bad["enc1.w_q"], right["enc1.w_q"], rtol=1e-3)


def test_count_parameters(corpus):
    config = small(corpus)
    assert ED.count_parameters(config) == sum(p.size for p in ED.init_params(config).values())
    stored = ED.Seq2SeqConfig(len(corpus.source_vocab), len(corpus.target_vocab))
    assert ED.count_parameters(stored) == sum(p.size for p in ED.init_params(stored).values()) == 47_256


def test_padding_changes_nothing(corpus):
    config = small(corpus)
    params = ED.init_params(config, seed=2)
    source, target = batch(corpus, [0, 1000 % len(corpus.train), 960])  # 6, 4 and 3 source tokens
    logits, caches = ED.forward(params, config, source, target)
    for b in range(len(source)):
        n_s, n_t = int((source[b] != 0).sum()), int((target[b] != 0).sum())
        alone, _ = ED.forward(params, config, source[b : b + 1, :n_s], target[b : b + 1, :n_t])
        np.testing.assert_allclose(logits[b, : n_t - 1], alone[0], rtol=1e-10, atol=1e-12)
    cross = ED.cross_attention_weights(caches)  # [L, B, h, T, S]
    pad = np.broadcast_to((source == 0)[None, :, None, None, :], cross.shape)
    assert (cross[pad] == 0).all() and np.allclose(cross.sum(-1), 1)  # no weight on <pad>, rows sum to 1
    for block in caches["decoder"]["blocks"]:
        w = block["self"]["weights"]  # [B, h, T, T]
        assert (np.triu(np.ones(w.shape[-2:], dtype=bool), 1) & (w != 0)).sum() == 0  # nothing from the future
    for block in caches["encoder"]["blocks"]:
        w = block["attention"]["weights"]  # [B, h, S, S]
        assert (w[np.broadcast_to((source == 0)[:, None, None, :], w.shape)] == 0).all()


@pytest.mark.filterwarnings("ignore:enable_nested_tensor is True")
def test_the_forward_pass_is_torch_transformer_with_the_same_weights(corpus):
    """Within 1e-6: attn_lib's GELU takes erf from a fit good to 1e-7 (tests/test_block.py), torch's is exact."""
    torch = pytest.importorskip("torch")
    config = small(corpus, d_model=12, n_heads=3, d_ff=20)
    params = ED.init_params(config, seed=4)
    params = {k: v + 0.05 * np.random.default_rng(5).standard_normal(v.shape) for k, v in params.items()}  # no 1s, 0s
    source, target = batch(corpus, [0, 1000 % len(corpus.train), 960])
    logits, caches = ED.forward(params, config, source, target)
    d = config.d_model
    model = torch.nn.Transformer(
        d, config.n_heads, config.encoder_layers, config.decoder_layers, config.d_ff, dropout=0.0, activation="gelu",
        layer_norm_eps=config.eps, batch_first=True, norm_first=True, dtype=torch.float64,
    ).eval()  # fmt: skip

    def put(tensor, value):
        assert tuple(tensor.shape) == value.shape, (tuple(tensor.shape), value.shape)
        tensor.copy_(torch.from_numpy(np.ascontiguousarray(value)))

    def attention(module, p, prefix=""):
        put(module.in_proj_weight, np.concatenate([p[f"{prefix}w_q"].T, p[f"{prefix}w_k"].T, p[f"{prefix}w_v"].T]))
        put(module.in_proj_bias, np.zeros(3 * d))
        put(module.out_proj.weight, p[f"{prefix}w_o"].T)
        put(module.out_proj.bias, np.zeros(d))

    def norm(module, p, name):
        put(module.weight, p[f"{name}_gamma"])
        put(module.bias, p[f"{name}_beta"])

    def ffn(layer, p):
        put(layer.linear1.weight, p["w_1"].T), put(layer.linear1.bias, p["b_1"])
        put(layer.linear2.weight, p["w_2"].T), put(layer.linear2.bias, p["b_2"])

    with torch.no_grad():
        for i, layer in enumerate(model.encoder.layers, start=1):
            p = ED.block(params, "enc", i)
            attention(layer.self_attn, p), norm(layer.norm1, p, "ln1"), norm(layer.norm2, p, "ln2"), ffn(layer, p)
        for i, layer in enumerate(model.decoder.layers, start=1):
            p = ED.block(params, "dec", i)
            attention(layer.self_attn, p, "self_"), attention(layer.multihead_attn, p, "cross_")
            norm(layer.norm1, p, "ln1"), norm(layer.norm2, p, "ln2"), norm(layer.norm3, p, "ln3"), ffn(layer, p)
        norm(model.encoder.norm, params, "enc_norm"), norm(model.decoder.norm, params, "dec_norm")
        inputs = target[:, :-1]
        pad = torch.from_numpy(source == 0)  # torch: True = a padding key
        x_src, x_tgt = ED.embed(params["src_emb"], source), ED.embed(params["tgt_emb"], inputs)
        out = model(
            torch.from_numpy(x_src), torch.from_numpy(x_tgt),
            tgt_mask=torch.from_numpy(~np.tril(np.ones((inputs.shape[1],) * 2, dtype=bool))),  # True = may NOT attend
            src_key_padding_mask=pad, memory_key_padding_mask=pad,
        ).numpy()  # fmt: skip
    real = inputs != 0
    np.testing.assert_allclose(out[real], caches["decoder"]["h"][real], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(out[real] @ params["w_out"] + params["b_out"], logits[real], rtol=1e-6, atol=1e-6)


def test_cached_decoding_writes_what_recomputing_writes(corpus):
    config = small(corpus)
    params = ED.init_params(config, seed=6)
    source = corpus.test.source[::9]
    ids, weights = TD.translate(params, config, source, max_len=7)
    again, weights_again = TD.translate(params, config, source, max_len=7, cache=False)
    assert (ids == again).all() and ids.shape[1] <= 7
    np.testing.assert_allclose(weights, weights_again, rtol=1e-10, atol=1e-12)
    assert weights.shape == (config.decoder_layers, len(source), config.n_heads, ids.shape[1], source.shape[1])


def test_a_trained_model_translates_the_articles_sentences():
    from attn_lib.models.translation_experiment import load_translation_model

    corpus = make_parallel_corpus()
    params, config = load_translation_model(corpus)
    article = corpus.encode(ARTICLE_SENTENCES)
    ids, _ = TD.translate(params, config, article.source)
    assert TD.translations(corpus, ids) == [english.split() for _, english in ARTICLE_SENTENCES]
    assert article.align.shape == (3, article.target.shape[1] - 1) and (article.align == -1).all()  # not templates


def test_alignment_accuracy_counts_the_largest_weight_on_the_aligned_token():
    align = np.array([[1, -1, 0, -1]])  # [B, T]: words 0 and 2 are aligned
    weights = np.zeros((1, 2, 4, 3))  # [B, h, T, S]
    weights[0, 0, 0, 1] = weights[0, 0, 2, 0] = 1  # head 0 right on both
    weights[0, 1, 0, 2] = weights[0, 1, 2, 0] = 1  # head 1 right on one
    weights[0, :, [1, 3], 2] = 1  # the unaligned words do not count
    np.testing.assert_allclose(TD.alignment_accuracy(weights, align), [1.0, 0.5])
    np.testing.assert_allclose(TD.alignment_accuracy(weights[None], align), [[1.0, 0.5]])  # [L, B, h, T, S]


def test_dropout_only_in_training_and_drop_0_is_no_dropout(corpus):
    config = small(corpus)
    params = ED.init_params(config, seed=7)
    source, target = batch(corpus, [3, 4])
    a, _ = ED.forward(params, config, source, target)
    b, _ = ED.forward(params, config, source, target, 0.0, np.random.default_rng(1))
    c, caches = ED.forward(params, config, source, target, 0.5, np.random.default_rng(1))
    assert (a == b).all() and not np.allclose(a, c)
    keep = caches["decoder"]["blocks"][0]["cross"]["keep"]
    assert keep is not None and 0.3 < 1 - keep.mean() < 0.7
    with pytest.raises(ValueError, match="p must lie in"):
        ED.forward(params, config, source, target, 1.0, np.random.default_rng(1))


def test_bad_inputs_are_named(corpus):
    config = small(corpus)
    params = ED.init_params(config)
    with pytest.raises(ValueError, match="source ids must lie in"):
        ED.forward(params, config, np.array([[999]]), np.array([[1, 2]]))
    with pytest.raises(ValueError, match="starts with <pad>"):
        ED.forward(params, config, np.array([[0, 3]]), np.array([[1, 2]]))
    with pytest.raises(ValueError, match="one translation each"):
        ED.forward(params, config, np.array([[3], [4]]), np.array([[1, 2]]))
    with pytest.raises(TypeError, match="Seq2SeqConfig"):
        ED.init_params("config")
    with pytest.raises(ValueError, match="must be even"):
        ED.Seq2SeqConfig(5, 5, d_model=9, n_heads=3)
    with pytest.raises(ValueError, match="max_len"):
        TD.translate(params, config, np.array([[3]]), max_len=0)
