"""SmolLM2-135M-Instruct in numpy, from the course's parts: RMSNorm, RoPE, grouped-query attention, SwiGLU.

SmolLM2-135M-Instruct (HuggingFaceTB, Apache-2.0) is a Llama-style decoder: 30 blocks, d_model = 576,
9 query heads sharing 3 key/value heads of d_k = 64, a SwiGLU feed-forward of width 1536, RoPE with base
100,000, a vocabulary of 49,152 byte-level BPE tokens, and tied embeddings (the unembedding is the
embedding matrix itself). It is read from the GGUF file SmolLM2-135M-Instruct.Q4_1.gguf (4-bit weights,
see attn_lib.models.gguf.reader), fetched once by attn_lib.models.fetch. One pre-norm block:

    h = RMSNorm(x)                                    attn_lib.block.rms_norm's formula
    x = x + GQA(RoPE(h W_Q), RoPE(h W_K), h W_V) W_O  attn_lib.position.rope, attn_lib.grouped.grouped_attention
    x = x + SwiGLU(RMSNorm(x))                        (SiLU(h W_gate) * (h W_up)) W_down, attn_lib.block.swiglu's

and the model: x = E[ids]; 30 blocks; logits = RMSNorm(x) E^T. Decoding keeps every block's keys and
values in an attn_lib.efficient.KVCache (3 key/value heads, float32: 2 x 30 x 3 x 64 x 4 = 46,080 bytes per
token), and `generate` picks each next token with attn_lib.sampling (greedy, or a seeded sampler).

RoPE. The GGUF file stores W_Q and W_K with the rows of each head ordered for turning adjacent pairs
(2i, 2i+1), the papers' form and attn_lib.position.rope's: it applies to the stored weights as they are.
(transformers permutes those rows when it reads the file and turns the pairs (i, i + d/2) instead:
attn_lib.position.rope_halves and halves_permutation. Both give the same scores.)

Precision, layout and threads: see attn_lib.models.gguf.arithmetic (every product of an activation and a weight).

The seams: `forward` and `generate` take ``attention=`` (a function with scaled_dot_product_attention's
contract, e.g. a learner's own from notebooks 04-05, run inside grouped_attention on the 3 groups of 3
query heads) or ``grouped=`` (a grouped-query attention function as in notebook 12, called as
``grouped(q, k, v, mask=mask)`` with q [9, n_q, 64], k, v [3, n_k, 64] and mask bool [n_q, n_k], True = may
attend; it returns (output [9, n_q, 64], weights [9, n_q, n_k])).
"""

import json
from dataclasses import dataclass
from importlib import resources

import numpy as np

from attn_lib.block import rms_norm_unchecked
from attn_lib.models.fetch import SMOLLM2, find_model_files
from attn_lib.models.gguf import decoder
from attn_lib.models.gguf.arithmetic import (  # noqa: F401 (BLOCK, unembed: re-exported)
    BLOCK,
    Q8Embedding,
    feed_forward,
    linear,
    rope_tables,
    turn_pairs,
    unembed,
)
from attn_lib.models.gguf.decoder import (  # noqa: F401 (re-exported: the notebooks and tests call them lm.*)
    LOSS_ROWS,
    kv_cache_bytes_measured,
    new_cache,
    next_token_loss,
    visible,
)
from attn_lib.models.gguf.reader import TOKENIZER_KEYS, read_header, read_q8_0, read_tensor
from attn_lib.models.gguf.vocab import build_tokenizer
from attn_lib.multihead import merge_heads
from attn_lib.sampling import greedy

GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


@dataclass(frozen=True)
class Config:
    """The sizes a Llama-style model needs, read from the GGUF's llama.* keys."""

    vocab_size: int  # 49152
    d_model: int  # 576
    n_layers: int  # 30
    n_heads: int  # 9 query heads
    n_kv_heads: int  # 3 key/value heads
    d_ff: int  # 1536, the feed-forward width
    rope_base: float  # 100000
    rms_eps: float  # 1e-5
    context: int  # 8192
    bos_id: int  # 1, <|im_start|>
    eos_id: int  # 2, <|im_end|>

    @property
    def d_head(self):
        """64: d_model / n_heads, the size of one head's queries, keys and values."""
        return self.d_model // self.n_heads

    embed_scale = 1  # the embedding rows are used as they are (Gemma multiplies them by sqrt(d_model))

    @classmethod
    def from_metadata(cls, md):
        """GGUF metadata (architecture 'llama') -> Config."""
        arch = md["general.architecture"]
        if arch != "llama":
            raise ValueError(f"expected the GGUF file of a Llama-style model (architecture 'llama'), got {arch!r}")
        return cls(
            vocab_size=int(md.get(f"{arch}.vocab_size", len(md.get("tokenizer.ggml.tokens", ())))),
            d_model=md[f"{arch}.embedding_length"],
            n_layers=md[f"{arch}.block_count"],
            n_heads=md[f"{arch}.attention.head_count"],
            n_kv_heads=md[f"{arch}.attention.head_count_kv"],
            d_ff=md[f"{arch}.feed_forward_length"],
            rope_base=float(md[f"{arch}.rope.freq_base"]),
            rms_eps=float(md[f"{arch}.attention.layer_norm_rms_epsilon"]),
            context=md[f"{arch}.context_length"],
            bos_id=md["tokenizer.ggml.bos_token_id"],
            eos_id=md["tokenizer.ggml.eos_token_id"],
        )


@dataclass(repr=False)
class SmolLM(decoder.GGUFModel):
    """The model: config, params (embedding [V, d] as a Q8Embedding, final_norm [d], layers: one dict per block of
    float32 matrices [n_in, n_out], views of the file's [n_out, n_in] rows), tokenizer.

    tensors lists the file's tensor table (attn_lib.models.gguf.reader.TensorInfo), metadata its scalar keys.
    encode(text) adds no begin-of-text token: this model's file says add_bos_token False.
    """

    add_bos = False


# GGUF tensor name in blk.N -> (the block's key, used transposed, as x @ w?)
_BLOCK_TENSORS = {
    "attn_norm.weight": ("attn_norm", False),  # [d]
    "attn_q.weight": ("w_q", True),  # [d, n_heads * d_head]
    "attn_k.weight": ("w_k", True),  # [d, n_kv_heads * d_head]
    "attn_v.weight": ("w_v", True),  # [d, n_kv_heads * d_head]
    "attn_output.weight": ("w_o", True),  # [n_heads * d_head, d]
    "ffn_norm.weight": ("ffn_norm", False),  # [d]
    "ffn_gate.weight": ("w_gate", True),  # [d, d_ff]
    "ffn_up.weight": ("w_up", True),  # [d, d_ff]
    "ffn_down.weight": ("w_down", True),  # [d_ff, d]
}


def read_model(path):
    """GGUF path -> SmolLM, the tensors dequantized one at a time (peak memory: the weights plus a few MiB)."""
    metadata, infos = read_header(path, array_keys=(*TOKENIZER_KEYS, "general.languages"))
    config = Config.from_metadata(metadata)
    tokenizer = build_tokenizer(metadata)
    scalars = {key: value for key, value in metadata.items() if key not in TOKENIZER_KEYS}
    del metadata  # the vocabulary and merges as Python strings: no longer needed
    with open(path, "rb") as f:
        params = {"layers": decoder.read_layers(f, infos, config.n_layers, config.d_model, _BLOCK_TENSORS, _FUSED,
                                                read_tensor)}  # fmt: skip
        for info in infos:
            if info.name == "token_embd.weight" and info.kind == "Q8_0":  # kept 8-bit: 30 MiB, not 108
                params["embedding"] = Q8Embedding(*read_q8_0(f, info))
            elif not info.name.startswith("blk."):
                key = {"token_embd.weight": "embedding", "output_norm.weight": "final_norm"}[info.name]
                params[key] = read_tensor(f, info)
    return SmolLM(config, params, tokenizer, tuple(infos), scalars, path)


#: Matrices that multiply the same input, kept side by side in one array so that one product computes them
#: all (fewer, larger products); each keeps its own name as a view into that array.
_FUSED = {"w_qkv": ("w_q", "w_k", "w_v"), "w_gate_up": ("w_gate", "w_up")}


def load_smollm(download=True, verify=True):
    """SmolLM2-135M-Instruct, ready to run: finds (or fetches once, about 93 MB) its GGUF file, then reads it.

    See attn_lib.models.fetch for where the file comes from (its SHA-256 is checked unless verify=False).
    Needs the packages gguf and tokenizers (no PyTorch).
    """
    try:
        import gguf  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"load_smollm needs the packages gguf and tokenizers ({exc}); install them with:"
            " python -m pip install gguf tokenizers"
        ) from None
    folder = find_model_files(download=download, verify=verify, spec=SMOLLM2)
    return read_model(folder / GGUF_NAME)


# --- the forward pass ---------------------------------------------------------------------------------


def attention_block(h, layer, cfg, positions, cache, attend=decoder.attend):
    """[n, d] (normalised) -> output [n, d], weights [n_heads, n, n_k]: grouped-query self-attention.

    With a cache, this step's keys and values are appended to it and the queries attend over all of it.
    """
    n_qk = cfg.n_heads + cfg.n_kv_heads  # 9 query heads and 3 key heads, turned by RoPE at once
    # h [W_Q | W_K | W_V] in one product, its columns cut into heads as multihead.split_heads cuts them:
    heads = linear(h, layer["w_qkv"]).reshape(len(h), -1, cfg.d_head).swapaxes(0, 1)  # split_heads' [9 + 3 + 3, n, 64]
    qk = turn_pairs(heads[:n_qk], rope_tables(positions, cfg.d_head, cfg.rope_base))  # position.rope's, [12, n, 64]
    q, k, v = qk[: cfg.n_heads], qk[cfg.n_heads :], heads[n_qk:]  # [9, n, 64], [3, n, 64], [3, n, 64]
    k, v = decoder.cached_keys(k, v, cache, layer["w_k"].dtype)  # [3, n_k, 64] (float32's numbers, as cached)
    out, weights = attend(q, k, v, visible(q.shape[1], k.shape[1]))  # [9, n, 64], [9, n, n_k]
    return linear(merge_heads(out), layer["w_o"]), weights  # [9, n, 64] -> [n, 576] x [576, 576] -> [n, d]


def decoder_block(x, i, layer, cfg, positions, cache, attend=decoder.attend):
    """Block i: [n, d] -> [n, d], weights [n_heads, n, n_k]: x + attention(RMSNorm(x)), then x + SwiGLU(RMSNorm(x))."""
    h = rms_norm_unchecked(x, layer["attn_norm"], cfg.rms_eps)  # [n, d]
    attn, weights = attention_block(h, layer, cfg, positions, cache, attend)
    x = x + attn  # [n, d]
    h = rms_norm_unchecked(x, layer["ffn_norm"], cfg.rms_eps)  # [n, d]
    # block.swiglu's formula, (SiLU(h W_gate) * (h W_up)) W_down: [n, d] -> [n, d_ff] -> [n, d]
    return x + feed_forward(h, layer["w_gate"], layer["w_up"], layer["w_down"], fused=layer["w_gate_up"]), weights


def as_float64(model):
    """-> the same model with every weight in float64 (about 1 GiB): the reference the tests measure rounding by."""
    params = {
        "embedding": model.params["embedding"].astype(np.float64),
        "final_norm": model.params["final_norm"].astype(np.float64),
        "layers": decoder.as_float64_layers(model.params["layers"], _FUSED),
    }
    return SmolLM(model.config, params, model.tokenizer, model.tensors, model.metadata, model.path)


def forward(model, ids, *, cache=None, attention=None, grouped=None, last_only=False, keep_weights=False, losses=False):
    """int [n] -> float32 logits [n, V] ([1, V] if last_only), and the weights [L][n_heads, n, n_k] if keep_weights.

    cache: from new_cache; the ids then continue the sequence already in it (positions start at its length). A step
    is all or nothing: if it fails part-way (an error in a learner's attention, Ctrl-C) the cache is left as it was.
    The positions must stay within the context length the file gives (config.context, 8192).
    attention, grouped: the seams (module docstring). keep_weights returns every head's weights, float32.
    losses=True returns, instead of the logits, each position's next-token loss, float64 [n - 1]: -log p of
    ids[t + 1] at position t (next_token_loss is their mean), from the same logits as forward(ids), unembedded
    LOSS_ROWS positions at a time, so the [n, V] logits are never held (19 MiB for 100 positions).
    The loop over the blocks is attn_lib.models.gguf.decoder.run's, shared with Gemma 3.
    """
    return decoder.run(model, ids, decoder_block, cache=cache, attention=attention, grouped=grouped,
                       last_only=last_only, keep_weights=keep_weights, losses=losses)  # fmt: skip


def generate(model, prompt_ids, max_new_tokens, pick=greedy, *, use_cache=True, stop_ids=None, **seams):
    """int [n] -> int [<= max_new_tokens]: the new tokens, one forward step each, stopping after a stop id.

    use_cache=True: one pass over the prompt fills the KV cache, then each step runs only the newest token.
    use_cache=False: each step recomputes the whole sequence (the same tokens, more work). pick: logits [V]
    -> a token id, an integer in 0 .. V - 1 (attn_lib.sampling.greedy, or attn_lib.sampling.sampler(seed, temperature,
    ...)). stop_ids: default (<|im_end|>,); () never stops early. seams: attention= or grouped=, as in `forward`.
    """
    return decoder.generate(forward, model, prompt_ids, max_new_tokens, pick, use_cache=use_cache,
                            stop_ids=stop_ids, **seams)  # fmt: skip


def reference_numbers():
    """What transformers' LlamaForCausalLM computes from the same file (float32, sdpa), shipped as JSON.

    Written by tools/make_smollm_reference.py: the top 10 next tokens and their logits after two prompts, and
    the greedy tokens after two prompts (20, or up to and with <|im_end|>). Lets notebook 14 check attn_lib
    without PyTorch.
    """
    text = resources.files("attn_lib.models").joinpath("data", "smollm_reference.json").read_text(encoding="utf-8")
    return json.loads(text)
