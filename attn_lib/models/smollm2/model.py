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

import contextlib
import json
from dataclasses import dataclass
from importlib import resources

import numpy as np

from attn_lib._checks import _describe, check_positive_int
from attn_lib._threads import ThreadpoolController, blas_single_thread
from attn_lib.block import _rms_norm
from attn_lib.core import _BLOCKED_MIN_SCORES
from attn_lib.efficient import KVCache
from attn_lib.grouped import _grouped_unchecked, grouped_attention
from attn_lib.models.fetch import SMOLLM2, find_model_files
from attn_lib.models.gguf.arithmetic import (  # noqa: F401 (BLOCK: re-exported)
    BLOCK,
    POSITION_ROWS,
    Q8Embedding,
    feed_forward,
    linear,
    rope_tables,
    turn_pairs,
    unembed,
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


@dataclass
class SmolLM:
    """The model: config, params (embedding [V, d] as a Q8Embedding, final_norm [d], layers: one dict per block of
    float32 matrices [n_in, n_out], views of the file's [n_out, n_in] rows), tokenizer.

    tensors lists the file's tensor table (attn_lib.models.gguf.reader.TensorInfo), metadata its scalar keys.
    """

    config: Config
    params: dict
    tokenizer: object  # tokenizers.Tokenizer
    tensors: tuple = ()
    metadata: dict | None = None
    path: object = None

    def encode(self, text):
        """str -> token ids [n] (no begin-of-text token is added: this model's file says add_bos_token False)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {_describe(text)}")
        return self.tokenizer.encode(text).ids

    def decode(self, ids):
        """token ids -> str (special tokens such as <|im_end|> kept)."""
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def tokens(self, ids):
        """token ids -> each token's text (a byte that is only part of a character shows as '�')."""
        return [self.tokenizer.decode([int(i)], skip_special_tokens=False) for i in ids]

    def __repr__(self):
        c = self.config
        sizes = f"d_model={c.d_model}, heads={c.n_heads}, kv_heads={c.n_kv_heads}, V={c.vocab_size}"
        return f"SmolLM(L={c.n_layers}, {sizes})"


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


def _read_param(f, info, transpose):
    """One tensor as float32, as the file stores it; if `transpose`, returned as its [n_in, n_out] transpose (a view
    of the file's [n_out, n_in] rows: the layout `linear` multiplies fastest, see smollm_arithmetic's "Layout")."""
    w = read_tensor(f, info)
    return w.T if transpose else w


def read_model(path):
    """GGUF path -> SmolLM, the tensors dequantized one at a time (peak memory: the weights plus a few MiB)."""
    metadata, infos = read_header(path, array_keys=(*TOKENIZER_KEYS, "general.languages"))
    config = Config.from_metadata(metadata)
    tokenizer = build_tokenizer(metadata)
    scalars = {key: value for key, value in metadata.items() if key not in TOKENIZER_KEYS}
    del metadata  # the vocabulary and merges as Python strings: no longer needed
    params = {"layers": [_fused_layout(config, infos, i) for i in range(config.n_layers)]}
    with open(path, "rb") as f:
        for info in infos:
            if info.name.startswith("blk."):
                _, layer, short = info.name.split(".", 2)  # "blk.12.attn_q.weight" -> "12", "attn_q.weight"
                key, transpose = _BLOCK_TENSORS[short]
                into = params["layers"][int(layer)]
                if key in into:  # a part of a fused matrix: dequantized straight into its columns
                    read_tensor(f, info, out=into[key].T)
                else:
                    into[key] = _read_param(f, info, transpose)
            elif info.name == "token_embd.weight" and info.kind == "Q8_0":  # kept 8-bit: 30 MiB, not 108
                params["embedding"] = Q8Embedding(*read_q8_0(f, info))
            else:
                key = {"token_embd.weight": "embedding", "output_norm.weight": "final_norm"}[info.name]
                params[key] = _read_param(f, info, transpose=False)
    return SmolLM(config, params, tokenizer, tuple(infos), scalars, path)


def _fused_layout(config, infos, i):
    """Block i's fused matrices, allocated empty, and their parts as views into them (filled by read_model)."""
    short_key = {short: key for short, (key, _) in _BLOCK_TENSORS.items()}
    widths = {short_key[info.name.split(".", 2)[2]]: info.shape[0] for info in infos
              if info.name.startswith(f"blk.{i}.")}  # fmt: skip
    layer = {}
    for fused, parts in _FUSED.items():
        rows = np.empty((sum(widths[part] for part in parts), config.d_model), np.float32)  # the file's layout
        layer[fused] = rows.T  # [d, sum of the parts' widths]
        _views(layer, fused, parts, [widths[part] for part in parts])
    return layer


#: Matrices that multiply the same input, kept side by side in one array so that one product computes them
#: all (fewer, larger products); each keeps its own name as a view into that array.
_FUSED = {"w_qkv": ("w_q", "w_k", "w_v"), "w_gate_up": ("w_gate", "w_up")}


def _fused(layer):
    """A block's weights with W_Q | W_K | W_V and W_gate | W_up each in one array, the parts views into it."""
    layer = {key: w for key, w in layer.items() if key not in _FUSED}
    for fused, parts in _FUSED.items():
        layer[fused] = np.concatenate([layer[part] for part in parts], axis=1)  # [d, sum of the parts' widths]
        _views(layer, fused, parts, [layer[part].shape[1] for part in parts])
    return layer


def _views(layer, fused, parts, widths):
    """layer[part] = the part's columns of layer[fused] (a view: the same numbers, stored once)."""
    edges = np.cumsum([0, *widths])
    for part, start, stop in zip(parts, edges[:-1], edges[1:], strict=True):
        layer[part] = layer[fused][:, start:stop]


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


def visible(n_q, n_k):
    """-> bool [n_q, n_k]: the n_q queries are the last n_q of n_k positions; query i sees keys 0 .. n_k - n_q + i."""
    return np.arange(n_k) <= np.arange(n_k - n_q, n_k)[:, None]  # [n_k] vs [n_q, 1] -> [n_q, n_k]


def _attend(q, k, v, mask, attention, grouped):
    """The attention step on q [9, n_q, 64] and k, v [3, n_k, 64] -> (output [9, n_q, 64], weights [9, n_q, n_k])."""
    if attention is None and grouped is None and mask.size <= _BLOCKED_MIN_SCORES:  # the course's own, unchecked
        return _grouped_unchecked(q, k, v, mask)
    if grouped is None:
        return grouped_attention(q, k, v, mask=mask, attention=attention)
    value = grouped(q, k, v, mask=mask)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"grouped must return (output, weights) like grouped_attention, got {_describe(value)}")
    output, weights = (np.asarray(a, dtype=np.float64) for a in value)
    n_q, n_k = mask.shape
    if output.shape != q.shape or weights.shape != (q.shape[0], n_q, n_k):
        raise ValueError(
            f"grouped returned output {output.shape} and weights {weights.shape}; for q {q.shape} and k {k.shape}"
            f" they must be [h, n_q, d_k] = {q.shape} and [h, n_q, n_k] = {(q.shape[0], n_q, n_k)}"
        )
    if not (np.isfinite(output).all() and np.isfinite(weights).all()):
        raise ValueError("grouped returned NaN or inf; the output and the weights must be finite")
    return output, weights


def attention_block(h, layer, cfg, positions, cache, attention=None, grouped=None):
    """[n, d] (normalised) -> output [n, d], weights [n_heads, n, n_k]: grouped-query self-attention.

    With a cache, this step's keys and values are appended to it and the queries attend over all of it.
    """
    n_qk = cfg.n_heads + cfg.n_kv_heads  # 9 query heads and 3 key heads, turned by RoPE at once
    # h [W_Q | W_K | W_V] in one product, its columns cut into heads as multihead.split_heads cuts them:
    heads = linear(h, layer["w_qkv"]).reshape(len(h), -1, cfg.d_head).swapaxes(0, 1)  # split_heads' [9 + 3 + 3, n, 64]
    qk = turn_pairs(heads[:n_qk], rope_tables(positions, cfg.d_head, cfg.rope_base))  # position.rope's, [12, n, 64]
    q, k, v = qk[: cfg.n_heads], qk[cfg.n_heads :], heads[n_qk:]  # [9, n, 64], [3, n, 64], [3, n, 64]
    if cache is not None:
        cache.append(k, v)  # stored as float32; every earlier step's keys and values are already there
        k, v = cache.keys[:, : cache.length], cache.values[:, : cache.length]  # [3, n_k, 64]
    kv = layer["w_k"].dtype  # float32 (float64 for the reference): what the cache holds, with or without one
    k, v = k.astype(kv).astype(np.float64), v.astype(kv).astype(np.float64)
    out, weights = _attend(q, k, v, visible(q.shape[1], k.shape[1]), attention, grouped)  # [9, n, 64], [9, n, n_k]
    return linear(merge_heads(out), layer["w_o"]), weights  # [9, n, 64] -> [n, 576] x [576, 576] -> [n, d]


def decoder_block(x, layer, cfg, positions, cache, attention=None, grouped=None):
    """[n, d] -> [n, d], weights [n_heads, n, n_k]: x + attention(RMSNorm(x)), then x + SwiGLU(RMSNorm(x))."""
    h = _rms_norm(x, layer["attn_norm"], cfg.rms_eps)  # [n, d]
    attn, weights = attention_block(h, layer, cfg, positions, cache, attention, grouped)
    x = x + attn  # [n, d]
    h = _rms_norm(x, layer["ffn_norm"], cfg.rms_eps)  # [n, d]
    # block.swiglu's formula, (SiLU(h W_gate) * (h W_up)) W_down: [n, d] -> [n, d_ff] -> [n, d]
    return x + feed_forward(h, layer["w_gate"], layer["w_up"], layer["w_down"], fused=layer["w_gate_up"]), weights


def new_cache(model, capacity):
    """-> one attn_lib KVCache per block, [n_kv_heads, capacity, d_head] for keys and for values, in the
    weights' dtype (float32)."""
    capacity = check_positive_int(capacity, "capacity")
    c, dtype = model.config, model.params["embedding"].dtype
    return [
        KVCache(capacity, c.d_head, batch_shape=(c.n_kv_heads,), n_query_heads=c.n_heads, dtype=dtype)
        for _ in range(c.n_layers)
    ]


def as_float64(model):
    """-> the same model with every weight in float64 (about 1 GiB): the reference the tests measure rounding by."""
    params = {
        "embedding": model.params["embedding"].astype(np.float64),
        "final_norm": model.params["final_norm"].astype(np.float64),
        "layers": [_fused({key: w.astype(np.float64) for key, w in layer.items()}) for layer in model.params["layers"]],
    }
    return SmolLM(model.config, params, model.tokenizer, model.tensors, model.metadata, model.path)


def _check_ids(model, ids):
    if isinstance(ids, str):
        raise TypeError(f"ids must be token ids (model.encode(text) gives them), got the string {ids!r}")
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"ids must be a non-empty list of token ids (integers), got {_describe(ids)}")
    if ids.min() < 0 or ids.max() >= model.config.vocab_size:
        last = model.config.vocab_size - 1
        raise ValueError(f"ids must lie in 0 .. {last} (the vocabulary), got {ids.min()} .. {ids.max()}")
    return ids.astype(np.int64)


def _check_seams(attention, grouped):
    for name, fn in (("attention", attention), ("grouped", grouped)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be a function or None, got {_describe(fn)}")
    if attention is not None and grouped is not None:
        raise ValueError("give attention= (a plain attention function) or grouped= (a grouped one), not both")


def forward(model, ids, *, cache=None, attention=None, grouped=None, last_only=False, keep_weights=False, losses=False):
    """int [n] -> float32 logits [n, V] ([1, V] if last_only), and the weights [L][n_heads, n, n_k] if keep_weights.

    cache: from new_cache; the ids then continue the sequence already in it (positions start at its length).
    attention, grouped: the seams (module docstring). keep_weights returns every head's weights, float32.
    losses=True returns, instead of the logits, each position's next-token loss, float64 [n - 1]: -log p of
    ids[t + 1] at position t (next_token_loss is their mean), from the same logits as forward(ids), unembedded
    LOSS_ROWS positions at a time, so the [n, V] logits are never held (19 MiB for 100 positions).
    """
    ids = _check_ids(model, ids)
    _check_seams(attention, grouped)
    if losses and (last_only or len(ids) < 2):
        raise ValueError("losses=True needs at least 2 ids and every position (not last_only): t predicts t + 1")
    cfg, params = model.config, model.params
    start = 0 if cache is None else cache[0].length
    if cache is not None and start + len(ids) > cache[0].capacity:
        raise ValueError(f"the cache holds {start} of {cache[0].capacity} positions and cannot take {len(ids)} more")
    positions = start + np.arange(len(ids))  # [n]
    x = params["embedding"][ids].astype(np.float64)  # [n] -> [n, d]: the residual stream, float64
    # every head's weights in one array, filled layer by layer (no 30 separate arrays between the products' scratch)
    kept = np.empty((cfg.n_layers, cfg.n_heads, len(ids), start + len(ids)), np.float32) if keep_weights else None
    with blas_single_thread() if ThreadpoolController is not None else contextlib.nullcontext():
        for i, layer in enumerate(params["layers"]):
            cache_i = None if cache is None else cache[i]
            x, weights = decoder_block(x, layer, cfg, positions, cache_i, attention, grouped)
            if keep_weights:
                kept[i] = weights  # [9, n, n_k], as float32
        x = _rms_norm(x[-1:] if last_only else x, params["final_norm"], cfg.rms_eps)  # [n, d] (or [1, d])
        if losses:
            # the blocks of positions `unembed` itself uses (x[r] holds the last position too, which has no
            # target): each position's logits are then the very numbers forward(ids) returns
            rows = [slice(row, row + LOSS_ROWS) for row in range(0, len(ids) - 1, LOSS_ROWS)]
            out = np.concatenate([_token_losses(unembed(x[r], params["embedding"]), ids[1:][r]) for r in rows])
        else:
            out = unembed(x, params["embedding"])  # [n, d] x [d, V] -> [n, V]: the tied unembedding
    return (out, list(kept)) if keep_weights else out


LOSS_ROWS = POSITION_ROWS  # positions unembedded at a time when only their losses are wanted ([16, V] float64: 6 MiB)


def _token_losses(logits, targets):
    """logits [r, V], targets [r'] (r' <= r: the last position has none) -> float64 [r']: -log softmax at each."""
    z = logits[: len(targets)].astype(np.float64)  # [r', V]
    z -= z.max(axis=-1, keepdims=True)
    at_target = z[np.arange(len(targets)), targets]  # [r']
    log_norm = np.log(np.exp(z, out=z).sum(axis=-1))  # [r']: log of the softmax's denominator (exp in place)
    return log_norm - at_target


def generate(model, prompt_ids, max_new_tokens, pick=greedy, *, use_cache=True, stop_ids=None, **seams):
    """int [n] -> int [<= max_new_tokens]: the new tokens, one forward step each, stopping after a stop id.

    use_cache=True: one pass over the prompt fills the KV cache, then each step runs only the newest token.
    use_cache=False: each step recomputes the whole sequence (the same tokens, more work). pick: logits [V]
    -> a token id (attn_lib.sampling.greedy, or attn_lib.sampling.sampler(seed, temperature, ...)).
    stop_ids: default (<|im_end|>,); () never stops early. seams: attention= or grouped=, as in `forward`.
    """
    ids = [int(i) for i in _check_ids(model, prompt_ids)]
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    if not callable(pick):
        raise TypeError(f"pick must be a function logits [V] -> token id, got {_describe(pick)}")
    stop_ids = (model.config.eos_id,) if stop_ids is None else tuple(stop_ids)
    cache = new_cache(model, len(ids) + max_new_tokens) if use_cache else None
    new, step_ids = [], ids  # the prompt first
    for _ in range(max_new_tokens):
        sequence = step_ids if use_cache else ids + new
        logits = forward(model, sequence, cache=cache, last_only=True, **seams)
        new.append(int(pick(logits[-1])))
        if new[-1] in stop_ids:
            break
        step_ids = new[-1:]
    return new


def next_token_loss(logits, ids, rows=16):
    """logits [n, V], ids [n] -> the mean cross-entropy (nats) of each next token ids[1:] given the ones before.

    Computed in float64, `rows` positions at a time (a [rows, V] float64 array, 6 MiB, instead of [n, V]).
    """
    logits, targets = np.asarray(logits), np.asarray(ids)[1:]  # position t predicts token t + 1
    total = 0.0
    for start in range(0, len(targets), rows):
        total += float(_token_losses(logits[start : start + rows], targets[start : start + rows]).sum())
    return total / len(targets)


def kv_cache_bytes_measured(cache):
    """-> the bytes a model's KV cache (from new_cache) holds per position: its key and value buffers / capacity."""
    return sum(c.keys.nbytes + c.values.nbytes for c in cache) // cache[0].capacity


def reference_numbers():
    """What transformers' LlamaForCausalLM computes from the same file (float32, sdpa), shipped as JSON.

    Written by tools/make_smollm_reference.py: the top 10 next tokens and their logits after two prompts, and
    the greedy tokens after two prompts (20, or up to and with <|im_end|>). Lets notebook 14 check attn_lib
    without PyTorch.
    """
    text = resources.files("attn_lib.models").joinpath("data", "smollm_reference.json").read_text(encoding="utf-8")
    return json.loads(text)
