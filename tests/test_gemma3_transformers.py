"""Gemma 3 270M in numpy against transformers' Gemma3ForCausalLM loaded from the same GGUF file.

transformers dequantizes the file with the same gguf code, so both hold the same weights. Compared here: the
weights, the float32 logits of every position of six prompts (three Chinese, among them 今天天气 and 猫吃鱼) within
1e-4 (or, where transformers' own rounding passes 1e-4, closer than it to the float64 logits), the float64 logits
(transformers' float32 islands patched for the test) within 1e-9, the top five after <bos>今天天气, 20 greedy tokens
after three prompts, and a prompt longer than 600 tokens, where the local layers' window changes the result.
Skipped without torch and transformers (CI installs them; there a skip fails).
"""

import copy
import dataclasses

import numpy as np
import pytest

from attn_lib.models.gemma3 import model as gm

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate", reason="transformers reads a GGUF file with accelerate installed")

PROMPTS = [
    "今天天气",
    "猫吃鱼",
    "我昨天在北京吃了烤鸭，今天在上海吃了",
    "The capital of France is",
    "Attention is all you need, said the paper, because",
    "注意力机制让模型在预测下一个词时，回头看前面的每一个词。The cat sat on the mat.",
]
#: > 600 tokens: a fact at the start, a long filler, then the question (the local layers see only the last 512)
LONG = "小明的猫叫豆豆。" + "今天天气很好，我们去公园散步，看见很多人在跑步。" * 45 + "小明的猫叫"


@pytest.fixture(scope="module")
def hf(gemma3):
    """transformers' model of the same file, float32, on the CPU (its default attention path: sdpa)."""
    model = transformers.AutoModelForCausalLM.from_pretrained(
        gemma3.path.parent, gguf_file=gemma3.path.name, dtype=torch.float32
    )
    assert type(model).__name__ == "Gemma3ForCausalLM"
    return model.eval()


@pytest.fixture(scope="module")
def model64(gemma3):
    return gm.as_float64(gemma3)


def hf_logits(model, ids):
    with torch.inference_mode():
        return model(torch.tensor([ids])).logits[0].numpy()


def softmax(z):
    p = np.exp(z - z.max())
    return p / p.sum()


def test_the_weights_are_transformers_reading_of_the_file(gemma3, hf):
    """The same dequantized numbers (ours [in, out] for x @ w, PyTorch's [out, in]); nothing permuted in this file;
    the norms' gains are the file's (which include Gemma's "1 +": transformers subtracts 1 on reading and adds it
    back when it normalises)."""
    state = {k: v.float().numpy() for k, v in hf.state_dict().items()}
    assert np.array_equal(state["model.embed_tokens.weight"], np.asarray(gemma3.params["embedding"]))
    names = {"w_q": "self_attn.q_proj", "w_k": "self_attn.k_proj", "w_v": "self_attn.v_proj", "w_o": "self_attn.o_proj",
             "w_gate": "mlp.gate_proj", "w_up": "mlp.up_proj", "w_down": "mlp.down_proj"}  # fmt: skip
    norms = {"attn_norm": "input_layernorm", "post_attn_norm": "post_attention_layernorm",
             "ffn_norm": "pre_feedforward_layernorm", "post_ffn_norm": "post_feedforward_layernorm",
             "q_norm": "self_attn.q_norm", "k_norm": "self_attn.k_norm"}  # fmt: skip
    for i, layer in enumerate(gemma3.params["layers"]):
        for key, name in names.items():
            assert np.array_equal(state[f"model.layers.{i}.{name}.weight"], layer[key].T), (i, key)
        for key, name in norms.items():
            np.testing.assert_allclose(state[f"model.layers.{i}.{name}.weight"] + 1, layer[key], atol=1e-6)


def test_float32_logits_agree_with_transformers_within_1e_4(gemma3, hf, model64):
    """Every logit of every position of the six prompts within 1e-4 of transformers' (measured: at most 5.4e-5), or,
    beyond that, ours closer than theirs to the float64 logits."""
    rows = []
    for text in PROMPTS:
        ids = gemma3.encode(text)
        ours, theirs, exact = gm.forward(gemma3, ids), hf_logits(hf, ids), gm.forward(model64, ids)
        assert (ours.argmax(-1) == theirs.argmax(-1)).all(), text
        rows.append((text, *(float(np.abs(a - b).max()) for a, b in [(ours, theirs), (ours, exact), (theirs, exact)])))
    shown = {text: f"{d:.3g} (ours {e:.2g}, theirs {t:.2g} from float64)" for text, d, e, t in rows}
    print("\nmax |numpy - transformers| by prompt:", shown)
    for text, d, e, t in rows:
        assert d <= 1e-4 or (e < 6e-5 and e < t), f"{text}: {shown[text]} - the rounding beyond 1e-4 is ours"


def test_the_top_five_after_the_article_s_question(gemma3, hf):
    """After <bos>今天天气: 晴 0.2394, 好 0.0686, 很 0.0523, 比较 0.0519, 炎 0.0477 (the checked facts)."""
    ids = gemma3.encode("今天天气")
    p = softmax(gm.forward(gemma3, ids, last_only=True)[-1].astype(np.float64))
    p_hf = softmax(hf_logits(hf, ids)[-1].astype(np.float64))
    top = np.argsort(-p)[:5]
    assert list(top) == list(np.argsort(-p_hf)[:5])
    assert gemma3.tokens(top) == ["晴", "好", "很", "比较", "炎"]
    np.testing.assert_allclose(p[top], [0.2394, 0.0686, 0.0523, 0.0519, 0.0477], atol=5e-5)
    np.testing.assert_allclose(p[top], p_hf[top], atol=1e-5)


def test_20_greedy_tokens_are_transformers_20(gemma3, hf):
    for text in PROMPTS[:3]:
        ids = gemma3.encode(text)
        ours = gm.generate(gemma3, ids, 20, stop_ids=())
        with torch.inference_mode():
            theirs = hf.generate(
                torch.tensor([ids]), max_new_tokens=20, min_new_tokens=20, do_sample=False, pad_token_id=0
            )
        assert ours == theirs[0, len(ids) :].tolist(), text


def _float64_transformers(hf, gemma3, monkeypatch):
    """A float64 copy of the transformers model with its float32 islands made float64 too.

    transformers' Gemma3RMSNorm computes in float32 whatever the model's dtype, its rotary embedding makes cos/sin
    from float32 angles, and its embedding scale is a float32 number; its norm weights are the file's minus 1,
    rounded to float32. All four are patched (for this test only) so that both sides compute the same formulas.
    """
    from transformers.models.gemma3 import modeling_gemma3 as g3

    def rms_norm_forward(self, x):
        return self._norm(x) * (1.0 + self.weight)

    def rotary_forward(self, x, position_ids, layer_type):
        dim = self.config.head_dim
        base = {"sliding_attention": gm.LOCAL_ROPE_BASE, "full_attention": gemma3.config.rope_base}[layer_type]
        inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # as attn_lib's frequencies
        freqs = position_ids[..., None].double() * inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    monkeypatch.setattr(g3.Gemma3RMSNorm, "forward", rms_norm_forward)
    monkeypatch.setattr(g3.Gemma3RotaryEmbedding, "forward", rotary_forward)
    hf64 = copy.deepcopy(hf).double()
    hf64.model.embed_tokens.embed_scale = torch.tensor(gemma3.config.embed_scale, dtype=torch.float64)
    norms = {"attn_norm": "input_layernorm", "post_attn_norm": "post_attention_layernorm",
             "ffn_norm": "pre_feedforward_layernorm", "post_ffn_norm": "post_feedforward_layernorm",
             "q_norm": "self_attn.q_norm", "k_norm": "self_attn.k_norm"}  # fmt: skip
    with torch.no_grad():
        for i, layer in enumerate(gemma3.params["layers"]):
            for key, name in norms.items():
                gain = torch.from_numpy(layer[key].astype(np.float64) - 1)  # the file's gain, "1 +" taken off
                hf64.model.layers[i].get_submodule(name).weight.copy_(gain)
        hf64.model.norm.weight.copy_(torch.from_numpy(gemma3.params["final_norm"].astype(np.float64) - 1))
    return hf64


def test_float64_logits_agree_with_transformers_within_1e_9(gemma3, hf, model64, monkeypatch):
    """In float64 the rounding is gone: the same formulas, the same numbers (measured: at most 9.1e-13), the
    700-token prompt included, so the sliding window, the two RoPE bases and QK-norm are the same on both sides."""
    hf64 = _float64_transformers(hf, gemma3, monkeypatch)
    worst = {}
    for text in [*PROMPTS[:3], LONG]:
        ids = gemma3.encode(text)
        worst[len(ids)] = float(np.abs(gm.forward(model64, ids) - hf_logits(hf64, ids)).max())
    print("\nfloat64: max |numpy - transformers| by prompt length:", {n: f"{d:.2g}" for n, d in worst.items()})
    assert max(worst.values()) < 1e-9, worst


def test_a_prompt_longer_than_600_tokens_agrees_where_the_window_matters(gemma3, hf, model64):
    """Beyond 512 tokens the local layers' window hides the first tokens. In float32 over 687 positions transformers'
    own rounding reaches 1.9e-3 (measured against the float64 logits); ours stays within 3e-4 of them (measured
    2.3e-4) and closer than theirs, the same next token everywhere; and removing the window moves the last
    positions' logits by far more (so the window is what is being tested)."""
    ids = gemma3.encode(LONG)
    assert len(ids) > 600
    ours, theirs, exact = gm.forward(gemma3, ids), hf_logits(hf, ids), gm.forward(model64, ids)
    assert (ours.argmax(-1) == theirs.argmax(-1)).all()
    ours_error, their_error = float(np.abs(ours - exact).max()), float(np.abs(theirs - exact).max())
    print(f"\n{len(ids)} tokens: ours {ours_error:.2g}, theirs {their_error:.2g} from float64")
    assert ours_error <= 3e-4 and ours_error < their_error
    unwindowed = dataclasses.replace(gemma3, config=dataclasses.replace(gemma3.config, window=10**9))
    tail = slice(512, None)
    assert np.abs(gm.forward(unwindowed, ids)[tail] - exact[tail]).max() > 0.01
