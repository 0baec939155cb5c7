"""Gemma 3 270M in numpy, from the course's parts: RMSNorm, RoPE by halves, multi-query attention with sliding-window
masks, QK-norm, GeGLU.

Gemma 3 270M (Google; under the Gemma Terms of Use, not an open-source licence: their text is kept beside the model
file, see attn_lib.models.fetch) is a decoder of 18 blocks, d_model = 640, 4 query heads sharing ONE key/value head
(multi-query attention) of d_k = 256, a GeGLU feed-forward of width 2048, a vocabulary of 262,144 SentencePiece
tokens, and tied embeddings. It is read from the GGUF file gemma-3-270m-q4_k_m.gguf (4- to 8-bit weights, made by a
third party from Google's weights with llama.cpp), fetched once by attn_lib.models.fetch. One block:

    h = x + RMSNorm(MQA(h1 W_Q, h1 W_K, h1 W_V) W_O),  h1 = RMSNorm(x)       norms before AND after the sublayer
    out = h + RMSNorm(GeGLU(RMSNorm(h)))                                   (GELU_tanh(h W_gate) * (h W_up)) W_down

where, inside the attention, each head's q and k are RMS-normed over their 256 features (QK-norm) before RoPE,
and the scores are scaled by 1/16 = 256^-1/2 as always. The model: x = sqrt(640) E[ids]; 18 blocks;
logits = RMSNorm(x) E^T. The file's RMSNorm gains already include Gemma's "1 +": they are used as they are.

Local and global layers. Layers 6, 12 and 18 (every sixth, counted from 1) are global: a token sees every earlier
token, and RoPE turns with base 1,000,000. The other 15 are local: a token sees itself and the 511 tokens before
it (a sliding window of 512, attn_lib.sliding_window's mask) and RoPE turns with base 10,000. RoPE turns the pairs
(i, i + 128) (the "halves" layout, attn_lib.position.rope_halves): this file's W_Q and W_K are stored for it, unlike
SmolLM2's, so nothing is permuted.

The begin-of-text token <bos> (id 2) must come first: `encode` puts it there (without it the model degenerates).

Shared with SmolLM2 (attn_lib.models.gguf): the reader, the 8-bit embedding, every product's arithmetic and
threads, the loop over the blocks, the seams, the KV cache and the generate loop (decoder.run, decoder.generate).
The seams: `forward` and `generate` take ``attention=`` (a function with scaled_dot_product_attention's contract,
run inside grouped_attention on the one group of 4 query heads) or ``grouped=`` (called as
``grouped(q, k, v, mask=mask)`` with q [4, n_q, 256], k, v [1, n_k, 256], mask bool [n_q, n_k], True = may attend).
"""

import math
from dataclasses import dataclass

import numpy as np

from attn_lib.block import gelu_tanh, rms_norm_unchecked
from attn_lib.models.gguf import decoder
from attn_lib.models.gguf.arithmetic import Q8Embedding, feed_forward, linear, rope_tables, turn_halves
from attn_lib.models.gguf.decoder import (  # noqa: F401 (re-exported: the notebook calls them gemma.*)
    kv_cache_bytes_measured,
    new_cache,
    next_token_loss,
    visible,
)
from attn_lib.models.gguf.reader import read_header, read_q8_0, read_tensor, return_freed_memory
from attn_lib.models.gguf.vocab import SENTENCEPIECE_KEYS, build_sentencepiece_tokenizer
from attn_lib.multihead import merge_heads
from attn_lib.sampling import greedy

GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
LOCAL_ROPE_BASE = 10_000.0  # the local layers' RoPE base (transformers' rope_local_base_freq; not in the file)
GLOBAL_EVERY = 6  # every sixth layer is global (transformers' sliding_window_pattern; not in the file)


@dataclass(frozen=True)
class Config:
    """The sizes Gemma 3 needs, read from the GGUF's gemma3.* keys."""

    vocab_size: int  # 262144
    d_model: int  # 640
    n_layers: int  # 18
    n_heads: int  # 4 query heads
    n_kv_heads: int  # 1 key/value head
    d_head: int  # 256 (not d_model / n_heads = 160: Gemma's heads are wider)
    d_ff: int  # 2048, the feed-forward width
    rope_base: float  # 1,000,000: the global layers'
    window: int  # 512: what a local layer's token sees (itself and the 511 before it)
    rms_eps: float  # 1e-6
    context: int  # 32768
    bos_id: int  # 2, <bos>
    eos_id: int  # 1, <eos>
    global_window: int | None = None  # None: a global layer sees every earlier token (an experiment may limit it)
    qk_norm: bool = True  # False: q and k are used without their RMSNorm (an experiment: the model was trained with it)

    @property
    def embed_scale(self):
        """sqrt(d_model): Gemma multiplies the embedding rows by it before the first block."""
        return math.sqrt(self.d_model)

    def is_global(self, i):
        """Does layer i (from 0) see every earlier token? Layers 5, 11, 17 (6, 12, 18 counted from 1)."""
        return (i + 1) % GLOBAL_EVERY == 0

    def rope_base_for(self, i):
        """Layer i's RoPE base: 1,000,000 for a global layer, 10,000 for a local one."""
        return self.rope_base if self.is_global(i) else LOCAL_ROPE_BASE

    def window_for(self, i):
        """Layer i's window: None (every earlier token) for a global layer, 512 for a local one."""
        return self.global_window if self.is_global(i) else self.window

    @classmethod
    def from_metadata(cls, md):
        """GGUF metadata (architecture 'gemma3') -> Config."""
        arch = md["general.architecture"]
        if arch != "gemma3":
            raise ValueError(f"expected the GGUF file of a Gemma 3 model (architecture 'gemma3'), got {arch!r}")
        return cls(
            vocab_size=int(md.get(f"{arch}.vocab_size", len(md.get("tokenizer.ggml.tokens", ())))),
            d_model=md[f"{arch}.embedding_length"],
            n_layers=md[f"{arch}.block_count"],
            n_heads=md[f"{arch}.attention.head_count"],
            n_kv_heads=md[f"{arch}.attention.head_count_kv"],
            d_head=md[f"{arch}.attention.key_length"],
            d_ff=md[f"{arch}.feed_forward_length"],
            rope_base=float(md[f"{arch}.rope.freq_base"]),
            window=md[f"{arch}.attention.sliding_window"],
            rms_eps=float(md[f"{arch}.attention.layer_norm_rms_epsilon"]),
            context=md[f"{arch}.context_length"],
            bos_id=md["tokenizer.ggml.bos_token_id"],
            eos_id=md["tokenizer.ggml.eos_token_id"],
        )


@dataclass(repr=False)
class Gemma3(decoder.GGUFModel):
    """The model (see GGUFModel for its fields); encode(text) puts <bos> first, as the file says (add_bos_token)."""

    add_bos = True


# GGUF tensor name in blk.N -> (the block's key, used transposed, as x @ w?)
_BLOCK_TENSORS = {
    "attn_norm.weight": ("attn_norm", False),  # [d]: before the attention
    "attn_q.weight": ("w_q", True),  # [d, n_heads * d_head] = [640, 1024]
    "attn_k.weight": ("w_k", True),  # [d, d_head] = [640, 256]: the one key head
    "attn_v.weight": ("w_v", True),  # [d, d_head]
    "attn_q_norm.weight": ("q_norm", False),  # [d_head]: QK-norm's gain for every query head
    "attn_k_norm.weight": ("k_norm", False),  # [d_head]
    "attn_output.weight": ("w_o", True),  # [n_heads * d_head, d]
    "post_attention_norm.weight": ("post_attn_norm", False),  # [d]: after the attention
    "ffn_norm.weight": ("ffn_norm", False),  # [d]: before the feed-forward
    "ffn_gate.weight": ("w_gate", True),  # [d, d_ff]
    "ffn_up.weight": ("w_up", True),  # [d, d_ff]
    "ffn_down.weight": ("w_down", True),  # [d_ff, d]
    "post_ffw_norm.weight": ("post_ffn_norm", False),  # [d]: after the feed-forward
}
#: Matrices that multiply the same input, kept side by side in one array (see attn_lib.models.gguf.decoder)
_FUSED = {"w_qkv": ("w_q", "w_k", "w_v"), "w_gate_up": ("w_gate", "w_up")}


def read_model(path):
    """GGUF path -> Gemma3, the tensors dequantized one at a time (the embedding kept 8-bit: 160 MiB, not 640)."""
    metadata, infos = read_header(path, array_keys=SENTENCEPIECE_KEYS)
    config = Config.from_metadata(metadata)
    tokenizer = build_sentencepiece_tokenizer(metadata)
    scalars = {key: value for key, value in metadata.items() if key not in SENTENCEPIECE_KEYS}
    del metadata
    with open(path, "rb") as f:
        params = {"layers": decoder.read_layers(f, infos, config.n_layers, config.d_model, _BLOCK_TENSORS, _FUSED,
                                                read_tensor)}  # fmt: skip
        for info in infos:
            if info.name == "token_embd.weight":
                params["embedding"] = Q8Embedding(*read_q8_0(f, info))
            elif info.name == "output_norm.weight":
                params["final_norm"] = read_tensor(f, info)
    return_freed_memory()  # the header's strings and the tokenizer's scratch (see gguf.reader)
    return Gemma3(config, params, tokenizer, tuple(infos), scalars, path)


def load_gemma3(download=True, verify=True):
    """Gemma 3 270M, ready to run: finds (or fetches once, about 238 MB) its GGUF file, then reads it.

    See attn_lib.models.fetch for where the file comes from (its SHA-256 is checked unless verify=False) and for the
    Gemma Terms of Use, kept beside it. Needs the packages gguf and tokenizers (no PyTorch).
    """
    try:
        import gguf  # noqa: F401
        import tokenizers  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"load_gemma3 needs the packages gguf and tokenizers ({exc}); install them with:"
            " python -m pip install gguf tokenizers"
        ) from None
    from attn_lib.models.fetch import GEMMA3, find_model_files

    folder = find_model_files(download=download, verify=verify, spec=GEMMA3)
    return read_model(folder / GGUF_NAME)


# --- the forward pass ---------------------------------------------------------------------------------


def attention_block(h, i, layer, cfg, positions, cache, attend=decoder.attend):
    """Layer i: [n, d] (normalised) -> output [n, d], weights [n_heads, n, n_k]: multi-query self-attention with
    QK-norm, RoPE by halves (layer i's base) and, on a local layer, the sliding window.

    With a cache, this step's key and value are appended to it and the queries attend over all of it (a local
    layer's mask hides what lies outside its window).
    """
    n, n_q = len(h), cfg.n_heads
    heads = linear(h, layer["w_qkv"]).reshape(n, -1, cfg.d_head).swapaxes(0, 1)  # [4 + 1 + 1, n, 256]
    q, k = heads[:n_q], heads[n_q : n_q + cfg.n_kv_heads]  # [4, n, 256], [1, n, 256]
    if cfg.qk_norm:  # QK-norm: each head's q and k RMS-normed over its own 256 features
        q, k = rms_norm_unchecked(q, layer["q_norm"], cfg.rms_eps), rms_norm_unchecked(k, layer["k_norm"], cfg.rms_eps)
    qk = turn_halves(np.concatenate([q, k]), rope_tables(positions, cfg.d_head, cfg.rope_base_for(i), halves=True))
    q, k, v = qk[:n_q], qk[n_q:], heads[n_q + cfg.n_kv_heads :]  # [4, n, 256], [1, n, 256], [1, n, 256]
    k, v = decoder.cached_keys(k, v, cache, layer["w_k"].dtype)  # [1, n_k, 256]
    out, weights = attend(q, k, v, visible(n, k.shape[1], cfg.window_for(i)))  # [4, n, 256], [4, n, n_k]
    return linear(merge_heads(out), layer["w_o"]), weights  # [n, 1024] x [1024, 640] -> [n, d]


def decoder_block(x, i, layer, cfg, positions, cache, attend=decoder.attend):
    """Block i: [n, d] -> [n, d], weights: x + RMSNorm(attention(RMSNorm(x))), then the same around GeGLU."""
    attn, weights = attention_block(rms_norm_unchecked(x, layer["attn_norm"], cfg.rms_eps), i, layer, cfg,
                                    positions, cache, attend)  # fmt: skip
    x = x + rms_norm_unchecked(attn, layer["post_attn_norm"], cfg.rms_eps)
    h = rms_norm_unchecked(x, layer["ffn_norm"], cfg.rms_eps)
    ffn = feed_forward(h, layer["w_gate"], layer["w_up"], layer["w_down"], fused=layer["w_gate_up"],
                       activation=gelu_tanh)  # fmt: skip
    return x + rms_norm_unchecked(ffn, layer["post_ffn_norm"], cfg.rms_eps), weights


def as_float64(model):
    """-> the same model with every weight in float64: the reference the tests measure rounding by."""
    params = {
        "embedding": model.params["embedding"].astype(np.float64),
        "final_norm": model.params["final_norm"].astype(np.float64),
        "layers": decoder.as_float64_layers(model.params["layers"], _FUSED),
    }
    return Gemma3(model.config, params, model.tokenizer, model.tensors, model.metadata, model.path)


def forward(model, ids, *, cache=None, attention=None, grouped=None, last_only=False, keep_weights=False, losses=False):
    """int [n] -> float32 logits [n, V] ([1, V] if last_only), and the weights [L][n_heads, n, n_k] if keep_weights.

    cache: from new_cache; the ids then continue the sequence already in it, and a step that fails part-way leaves it
    as it was. The positions must stay within the file's context length (config.context, 32768). attention, grouped:
    the seams (module docstring). losses=True: each position's next-token loss instead of the logits. As SmolLM2's
    `forward`: the loop is attn_lib.models.gguf.decoder.run's.
    """
    return decoder.run(model, ids, decoder_block, cache=cache, attention=attention, grouped=grouped,
                       last_only=last_only, keep_weights=keep_weights, losses=losses)  # fmt: skip


def generate(model, prompt_ids, max_new_tokens, pick=greedy, *, use_cache=True, stop_ids=None, **seams):
    """int [n] -> int [<= max_new_tokens]: the new tokens, one forward step each (attn_lib.models.gguf.decoder's
    generate loop), stopping after <eos> (or a stop id; stop_ids=() never stops early)."""
    return decoder.generate(forward, model, prompt_ids, max_new_tokens, pick, use_cache=use_cache,
                            stop_ids=stop_ids, **seams)  # fmt: skip
