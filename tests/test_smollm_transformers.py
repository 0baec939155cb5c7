"""SmolLM2-135M-Instruct in numpy against transformers' LlamaForCausalLM loaded from the same GGUF file.

transformers dequantizes the file with the same gguf code, so both hold the same weights; it permutes the
rows of W_Q and W_K for its rotate-half RoPE (attn_lib.position.halves_permutation). Compared here: the
weights, the tokenizer on 25 strings, the float32 logits of six prompts with both of its attention paths
(sdpa and eager) within 1e-4 (or, where transformers' own rounding passes 1e-4, closer than it to the float64
logits), the float64 logits (its two float32 islands patched for the test) within 1e-9,
the top 10 after two prompts, and 20 greedy tokens. Skipped without torch and transformers (CI installs them).
"""

import copy

import numpy as np
import pytest
from test_smollm import PROMPTS

from attn_lib.models.smollm2 import model as lm
from attn_lib.position import halves_permutation

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytest.importorskip("accelerate", reason="transformers reads a GGUF file with accelerate installed")

TOKENIZER_STRINGS = PROMPTS[:4] + [
    "Hello 👋 world 🌍🚀",
    "a  b   c    d",
    "line one\nline two\n\n\nend",
    "\t tabs\tand  spaces \n",
    "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
    "<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n",
    "In 2024, 1,234,567 people paid $3.50 each.",
    "3.14159265358979",
    "  leading spaces",
    "trailing spaces   ",
    "I'm sure they'll say we've done it, didn't we?",
    "def f(x):\n    return x**2  # square",
    "naïve café résumé Ærøskøbing",
    "Привет, как дела?",
    "こんにちは世界",
    "<|endoftext|>",
    "x<|im_start|>y<|im_end|>",
    "ALL CAPS AND MiXeD cAsE",
    "   ",
    "\n",
    "1 2 3 4 5 6 7 8 9 10 11 100 1000",
    "Ünïcödé ‰ ∑ ∫ √ ≠ ≤",
]


@pytest.fixture(scope="module")
def hf(smollm):
    """transformers' model of the same file, float32, on the CPU (its default attention path: sdpa)."""
    folder = smollm.path.parent
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=smollm.path.name, dtype=torch.float32)
    assert type(model).__name__ == "LlamaForCausalLM"
    return model.eval()


@pytest.fixture(scope="module")
def hf_tokenizer(smollm):
    return transformers.AutoTokenizer.from_pretrained(smollm.path.parent, gguf_file=smollm.path.name)


def hf_logits(model, ids):
    with torch.inference_mode():
        return model(torch.tensor([ids])).logits[0].numpy()


def softmax(z):
    p = np.exp(z - z.max())
    return p / p.sum()


def test_the_weights_are_transformers_reading_of_the_file(smollm, hf):
    """The same dequantized numbers: ours are [in, out] for x @ w, PyTorch's [out, in]; W_Q, W_K rows permuted."""
    state = {k: v.numpy() for k, v in hf.state_dict().items()}
    assert np.array_equal(state["model.embed_tokens.weight"], smollm.params["embedding"])
    assert hf.lm_head.weight.data_ptr() == hf.model.embed_tokens.weight.data_ptr()  # tied there too
    perm = {"w_q": halves_permutation(9, 64), "w_k": halves_permutation(3, 64)}
    names = {"w_q": "self_attn.q_proj", "w_k": "self_attn.k_proj", "w_v": "self_attn.v_proj", "w_o": "self_attn.o_proj",
             "w_gate": "mlp.gate_proj", "w_up": "mlp.up_proj", "w_down": "mlp.down_proj",
             "attn_norm": "input_layernorm", "ffn_norm": "post_attention_layernorm"}  # fmt: skip
    for i, layer in enumerate(smollm.params["layers"]):
        for key, name in names.items():
            ours = layer[key].T if layer[key].ndim == 2 else layer[key]  # -> [out, in]
            ours = ours[perm[key]] if key in perm else ours
            assert np.array_equal(state[f"model.layers.{i}.{name}.weight"], ours), (i, key)
    assert not np.array_equal(state["model.layers.0.self_attn.q_proj.weight"], smollm.params["layers"][0]["w_q"].T)


def test_the_tokenizer_gives_transformers_ids(smollm, hf_tokenizer):
    for text in TOKENIZER_STRINGS:
        ours = smollm.encode(text)
        assert ours == hf_tokenizer(text)["input_ids"], text
        assert smollm.decode(ours) == text


@pytest.fixture(scope="module")
def exact(smollm):
    """Each prompt's logits from the float64 model (smollm2.model.as_float64): the arbiter of rounding."""
    model64 = lm.as_float64(smollm)
    return {text: lm.forward(model64, smollm.encode(text)) for text in PROMPTS}


@pytest.mark.parametrize("implementation", ["sdpa", "eager"])
def test_float32_logits_agree_with_transformers_within_1e_4(smollm, hf, implementation, exact):
    """Both float32: every logit of every position of the six prompts within 1e-4 of transformers'.

    The bound sits at transformers' own rounding, which depends on the processor: its float32 logits were up to
    9.9e-5 from the float64 ones on the machine of 2026-12-01, and 1.06e-4 for the 49-token prompt on the AVX-512
    machine of 2026-12-02 (ours: up to 5e-5 on both); on an AMD EPYC with AVX2 only, theirs 9.9e-5, ours 5.2e-5,
    apart by up to 1.0e-4 (the 49-token prompt, eager). So where the two differ by more than 1e-4, the float64
    logits must show that the rounding is transformers': ours within 6e-5 of them and closer than theirs. The
    five shorter prompts (the issue asks for at least five) must agree within 1e-4 outright.
    """
    hf.set_attn_implementation(implementation)
    try:
        rows = []
        for text in PROMPTS:
            ids = smollm.encode(text)
            ours, theirs = lm.forward(smollm, ids), hf_logits(hf, ids)
            assert (ours.argmax(-1) == theirs.argmax(-1)).all(), text
            rows.append((len(ids), *(float(np.abs(a - b).max()) for a, b in [(ours, theirs), (ours, exact[text]),
                                                                              (theirs, exact[text])])))  # fmt: skip
    finally:
        hf.set_attn_implementation("sdpa")
    shown = {n: f"{d:.3g} (ours {e:.2g}, theirs {t:.2g} from float64)" for n, d, e, t in rows}
    print(f"\n{implementation}: max |numpy - transformers| by prompt length:", shown)
    assert all(d <= 1e-4 for _, d, _, _ in rows[:5]), shown
    for n, d, e, t in rows:
        assert d <= 1e-4 or (e < 6e-5 and e < t), f"{n} tokens: {shown[n]} - the rounding beyond 1e-4 is ours"


def _float64_transformers(hf, monkeypatch):
    """A float64 copy of the transformers model with its two float32 islands made float64 too.

    transformers' LlamaRMSNorm computes in float32 whatever the model's dtype, and its rotary embedding
    makes cos/sin from float32 angles; both are patched (for this test only) to compute in float64.
    """
    from transformers.models.llama import modeling_llama as llama

    def rms_norm_forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.variance_epsilon))

    def rotary_forward(self, x, position_ids):
        dim, base = self.config.head_dim, self.config.rope_parameters["rope_theta"]
        inv_freq = base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)  # as attn_lib's frequencies
        freqs = position_ids[..., None].double() * inv_freq
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    monkeypatch.setattr(llama.LlamaRMSNorm, "forward", rms_norm_forward)
    monkeypatch.setattr(llama.LlamaRotaryEmbedding, "forward", rotary_forward)
    return copy.deepcopy(hf).double()


def test_float64_logits_agree_with_transformers_within_1e_9(smollm, hf, monkeypatch):
    """In float64 the rounding is gone: the same formulas, the same numbers (measured: about 4e-13)."""
    hf64, smollm64 = _float64_transformers(hf, monkeypatch), lm.as_float64(smollm)
    worst = {}
    for text in PROMPTS[:5]:
        ids = smollm.encode(text)
        worst[len(ids)] = float(np.abs(lm.forward(smollm64, ids) - hf_logits(hf64, ids)).max())
    print("\nfloat64: max |numpy - transformers| by prompt length:", {n: f"{d:.2g}" for n, d in worst.items()})
    assert max(worst.values()) < 1e-9, worst


def test_the_top_10_after_two_prompts_are_transformers_top_10(smollm, hf):
    for text, first, p_min in [(PROMPTS[0], " Paris", 0.76), (PROMPTS[1], " far", 0.5)]:
        ids = smollm.encode(text)
        p = softmax(lm.forward(smollm, ids, last_only=True)[-1].astype(np.float64))
        p_hf = softmax(hf_logits(hf, ids)[-1].astype(np.float64))
        top = np.argsort(-p)[:10]
        assert list(top) == list(np.argsort(-p_hf)[:10])
        np.testing.assert_allclose(p[top], p_hf[top], atol=1e-5)
        assert smollm.decode([top[0]]) == first and p[top[0]] > p_min
        print(f"\n{text!r}:", ", ".join(f"{smollm.decode([i])!r} {p[i]:.4f}" for i in top))


def test_20_greedy_tokens_are_transformers_20(smollm, hf):
    for text in PROMPTS[:4]:
        ids = smollm.encode(text)
        ours = lm.generate(smollm, ids, 20, stop_ids=())
        with torch.inference_mode():
            theirs = hf.generate(
                torch.tensor([ids]), max_new_tokens=20, min_new_tokens=20, do_sample=False, pad_token_id=2
            )
        assert ours == theirs[0, len(ids) :].tolist(), text
