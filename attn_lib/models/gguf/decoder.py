"""What the course's GGUF decoders (SmolLM2, Gemma 3) do alike, written once: the loop over blocks, the seams for a
learner's attention, the masks, the KV cache, the next-token losses and the generate loop.

A model module supplies its own block, a function

    block(x, i, layer, config, positions, cache, attend) -> (x [n, d], weights [n_heads, n, n_k])

for block i (its weights `layer`, a dict), and its config (n_layers, n_heads, n_kv_heads, d_head, vocab_size,
rms_eps, eos_id, context: the context length read from the file, and embed_scale: what the embedding rows are
multiplied by, 1 for SmolLM2, sqrt(d_model) for Gemma). `run` does the rest: it checks the ids, looks the embedding
rows up, runs the blocks with BLAS on one thread (attn_lib.models.gguf.arithmetic, "Threads"), applies the final
RMSNorm and the tied unembedding; a step on a cache is all or nothing (`all_or_nothing`). `attend`, handed to each
block, is the attention step with the seams (`attention=` or `grouped=`) already chosen:
attend(q [H, n_q, d], k, v [H_kv, n_k, d], mask bool [n_q, n_k]) -> (output [H, n_q, d], weights [H, n_q, n_k]).
"""

import contextlib
import functools
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_positive_int, describe_value
from attn_lib._memory import give_back
from attn_lib._threads import ThreadpoolController, blas_single_thread
from attn_lib.block import rms_norm_unchecked
from attn_lib.core import BLOCKED_MIN_SCORES
from attn_lib.efficient import KVCache
from attn_lib.grouped import grouped_attention, grouped_unchecked
from attn_lib.models.gguf.arithmetic import POSITION_ROWS, unembed
from attn_lib.sampling import greedy


@dataclass(repr=False)
class GGUFModel:
    """A decoder read from a GGUF file: config, params (embedding [V, d] as a Q8Embedding, final_norm [d], layers:
    one dict per block of float32 matrices [n_in, n_out], views of the file's [n_out, n_in] rows), tokenizer (a
    `tokenizers.Tokenizer`); tensors lists the file's tensor table, metadata its scalar keys."""

    config: object
    params: dict
    tokenizer: object
    tensors: tuple = ()
    metadata: dict | None = None
    path: object = None
    add_bos = False  # does encode(text) put the begin-of-text token first? (each model's file says)

    def encode(self, text):
        """str -> token ids [n], the begin-of-text token first if this model wants it (add_bos)."""
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {describe_value(text)}")
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        return [self.config.bos_id, *ids] if self.add_bos else ids

    def decode(self, ids):
        """token ids -> str (special tokens such as <bos> kept)."""
        return self.tokenizer.decode([int(i) for i in ids], skip_special_tokens=False)

    def tokens(self, ids):
        """token ids -> each token's text (a byte that is only part of a character shows as '�')."""
        return [self.tokenizer.decode([int(i)], skip_special_tokens=False) for i in ids]

    @functools.cached_property
    def vocabulary(self):
        """Every token's text, by id, as a sequence (`Vocabulary`: each text decoded when it is asked for)."""
        return Vocabulary(self.tokenizer, self.config.vocab_size)

    def __repr__(self):
        c = self.config
        sizes = f"d_model={c.d_model}, heads={c.n_heads}, kv_heads={c.n_kv_heads}, V={c.vocab_size}"
        return f"{type(self).__name__}(L={c.n_layers}, {sizes})"


class Vocabulary(Sequence):
    """A model's tokens' texts by id, decoded when asked for: vocabulary[i] is token i's text, len() the vocabulary's
    size, vocabulary.index(text) the id of the one token whose text it is. (As a list, Gemma's 262,144 strings would
    hold 50 MiB of a notebook's memory.)"""

    def __init__(self, tokenizer, size):
        self.tokenizer, self.size = tokenizer, size

    def __len__(self):
        return self.size

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self.size))]
        i = int(i)
        if not -self.size <= i < self.size:
            raise IndexError(f"token id {i} is outside the vocabulary of {self.size} tokens")
        return self.tokenizer.decode([i % self.size], skip_special_tokens=False)

    def index(self, text, *args):
        """-> the id of the token whose text is `text`; ValueError if the tokenizer cuts it into several tokens."""
        ids = self.tokenizer.encode(text, add_special_tokens=False).ids
        if len(ids) != 1 or self[ids[0]] != text:
            pieces = " | ".join(self[i] for i in ids)
            raise ValueError(f"{text!r} is not one token of this vocabulary: it is cut into {pieces}")
        return ids[0]

    def __repr__(self):
        return f"Vocabulary({self.size} tokens)"


LOSS_ROWS = POSITION_ROWS  # positions unembedded at a time when only their losses are wanted ([16, V] float64)


def visible(n_q, n_k, window=None):
    """-> bool [n_q, n_k]: the n_q queries are the last n_q of n_k positions; query i sees keys 0 .. n_k - n_q + i,
    and with a window only the last `window` of them (itself and the window - 1 before it)."""
    offset = np.arange(n_k - n_q, n_k)[:, None] - np.arange(n_k)  # [n_q, n_k]: query position - key position
    return (offset >= 0) if window is None else (offset >= 0) & (offset < window)


def check_ids(model, ids):
    """Token ids -> int64 [n], or a message that says what is wrong with them."""
    if isinstance(ids, str):
        raise TypeError(f"ids must be token ids (model.encode(text) gives them), got the string {ids!r}")
    ids = np.asarray(ids)
    if ids.ndim != 1 or ids.size == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"ids must be a non-empty list of token ids (integers), got {describe_value(ids)}")
    if ids.min() < 0 or ids.max() >= model.config.vocab_size:
        last = model.config.vocab_size - 1
        raise ValueError(f"ids must lie in 0 .. {last} (the vocabulary), got {ids.min()} .. {ids.max()}")
    return ids.astype(np.int64)


def check_seams(attention, grouped):
    for name, fn in (("attention", attention), ("grouped", grouped)):
        if fn is not None and not callable(fn):
            raise TypeError(f"{name} must be a function or None, got {describe_value(fn)}")
    if attention is not None and grouped is not None:
        raise ValueError("give attention= (a plain attention function) or grouped= (a grouped one), not both")


def attend(q, k, v, mask, attention=None, grouped=None):
    """The attention step on q [H, n_q, d] and k, v [H_kv, n_k, d] -> (output [H, n_q, d], weights [H, n_q, n_k]):
    the course's own (unchecked: the model's inputs are), or grouped_attention with a learner's `attention`,
    or a learner's whole `grouped` function, whose answer is checked."""
    if attention is None and grouped is None and mask.size <= BLOCKED_MIN_SCORES:
        return grouped_unchecked(q, k, v, mask)
    if grouped is None:
        return grouped_attention(q, k, v, mask=mask, attention=attention)
    value = grouped(q, k, v, mask=mask)
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"grouped must return (output, weights) like grouped_attention, got {describe_value(value)}")
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


def cached_keys(k, v, cache, dtype):
    """This step's k, v [H_kv, n, d] appended to `cache` (if any) -> all keys and values so far, float64 [H_kv, n_k, d],
    rounded to `dtype` (the weights' float32, which the cache holds) with or without a cache."""
    if cache is not None:
        cache.append(k, v)  # stored as float32; every earlier step's keys and values are already there
        k, v = cache.keys[:, : cache.length], cache.values[:, : cache.length]
    return k.astype(dtype).astype(np.float64), v.astype(dtype).astype(np.float64)


def new_cache(model, capacity):
    """-> one attn_lib KVCache per block, [n_kv_heads, capacity, d_head] for keys and for values, in the
    weights' dtype (float32)."""
    capacity = check_positive_int(capacity, "capacity")
    c, dtype = model.config, model.params["embedding"].dtype
    return [
        KVCache(capacity, c.d_head, batch_shape=(c.n_kv_heads,), n_query_heads=c.n_heads, dtype=dtype)
        for _ in range(c.n_layers)
    ]


def check_cache(model, cache):
    """-> the number of positions `cache` holds (0 without one), once it is known to be new_cache's: one KVCache per
    block, every one of the same length. (A step that failed part-way could leave them different, and the positions
    of the next step, read from the first, would then be wrong for the others: `run` rolls such a step back.)"""
    if cache is None:
        return 0
    n_layers = model.config.n_layers
    if not isinstance(cache, (list, tuple)):
        raise TypeError(f"cache must be the list new_cache(model, capacity) returns, got {describe_value(cache)}")
    if len(cache) != n_layers:
        raise ValueError(
            f"cache holds {len(cache)} layers' caches but the model has {n_layers} blocks (one cache each):"
            " make it with new_cache(model, capacity)"
        )
    for i, layer_cache in enumerate(cache):
        if not isinstance(layer_cache, KVCache):
            raise TypeError(f"cache[{i}] must be a KVCache (new_cache makes them), got {describe_value(layer_cache)}")
    lengths = [layer_cache.length for layer_cache in cache]
    for i, length in enumerate(lengths):
        if length != lengths[0]:
            raise ValueError(
                f"cache's layers hold different numbers of positions: cache[0] holds {lengths[0]}, cache[{i}] holds"
                f" {length}; every block must have seen the same tokens. Start again with new_cache(model, capacity)"
            )
    return lengths[0]


def check_context(config, start, n, name="ids"):
    """Raise ValueError if n tokens from position `start` go past the model's context length (config.context)."""
    if start + n > config.context:
        held = f"after the {start} positions in the cache, " if start else ""
        raise ValueError(
            f"{held}{name} would take positions {start} .. {start + n - 1}, past the model's context length of"
            f" {config.context} positions (config.context: it was never trained on a position past"
            f" {config.context - 1}); shorten {name}"
        )


@contextlib.contextmanager
def all_or_nothing(cache):
    """Run a step on `cache` all or nothing: if it fails part-way (an exception in a learner's attention, Ctrl-C),
    every layer's cache goes back to the length it had before, as if the step had never run, so it can be retried.

    Without this, the blocks before the failure would keep this step's keys and values and the others would not.
    Going back is setting each KVCache's `length`: what lies past it is overwritten by the next append.
    """
    if cache is None:  # nothing to roll back
        yield
        return
    lengths = [layer_cache.length for layer_cache in cache]
    try:
        yield
    except BaseException:  # BaseException: KeyboardInterrupt (Kernel -> Interrupt) must roll back too
        for layer_cache, length in zip(cache, lengths, strict=True):
            layer_cache.length = length
        raise


def run(model, ids, block, *, cache=None, attention=None, grouped=None, last_only=False, keep_weights=False,
        losses=False):  # fmt: skip
    """A decoder's forward pass, `block` run on every layer: the model modules' `forward` (see their docstrings)."""
    ids = check_ids(model, ids)
    check_seams(attention, grouped)
    if losses and (last_only or len(ids) < 2):
        raise ValueError("losses=True needs at least 2 ids and every position (not last_only): t predicts t + 1")
    cfg, params = model.config, model.params
    start = check_cache(model, cache)
    if cache is not None and start + len(ids) > cache[0].capacity:
        raise ValueError(f"the cache holds {start} of {cache[0].capacity} positions and cannot take {len(ids)} more")
    check_context(cfg, start, len(ids))
    positions = start + np.arange(len(ids))  # [n]
    x = params["embedding"][ids].astype(np.float64)  # [n] -> [n, d]: the residual stream, float64
    if cfg.embed_scale != 1:
        x *= cfg.embed_scale
    # every head's weights in one array, filled layer by layer (no separate arrays between the products' scratch)
    kept = np.empty((cfg.n_layers, cfg.n_heads, len(ids), start + len(ids)), np.float32) if keep_weights else None

    def step(q, k, v, mask):
        return attend(q, k, v, mask, attention, grouped)

    # all or nothing: a step that fails part-way leaves the cache as it was (the blocks append as they go)
    with all_or_nothing(cache):
        with blas_single_thread() if ThreadpoolController is not None else contextlib.nullcontext():
            for i, layer in enumerate(params["layers"]):
                x, weights = block(x, i, layer, cfg, positions, None if cache is None else cache[i], step)
                if keep_weights:
                    kept[i] = weights  # [H, n, n_k], as float32
                weights = None  # not kept alive while the next block computes its own
            x = rms_norm_unchecked(x[-1:] if last_only else x, params["final_norm"], cfg.rms_eps)  # [n, d] (or [1, d])
            if losses:
                # the blocks of positions `unembed` itself uses (x[r] holds the last position too, which has no
                # target): each position's logits are then the very numbers forward(ids) returns
                rows = [slice(row, row + LOSS_ROWS) for row in range(0, len(ids) - 1, LOSS_ROWS)]
                out = np.concatenate([token_losses(unembed(x[r], params["embedding"]), ids[1:][r]) for r in rows])
            else:
                out = unembed(x, params["embedding"])  # [n, d] x [d, V] -> [n, V]: the tied unembedding
        if len(ids) * (start + len(ids)) > BLOCKED_MIN_SCORES:  # a long pass: temporaries go back (attn_lib._memory)
            x = None
            give_back()
    return (out, list(kept)) if keep_weights else out


def token_losses(logits, targets):
    """logits [r, V], targets [r'] (r' <= r: the last position has none) -> float64 [r']: -log softmax at each."""
    z = logits[: len(targets)].astype(np.float64)  # [r', V]
    z -= z.max(axis=-1, keepdims=True)
    at_target = z[np.arange(len(targets)), targets]  # [r']
    log_norm = np.log(np.exp(z, out=z).sum(axis=-1))  # [r']: log of the softmax's denominator (exp in place)
    return log_norm - at_target


def next_token_loss(logits, ids, rows=16):
    """logits [n, V], ids [n] -> the mean cross-entropy (nats) of each next token ids[1:] given the ones before.

    Computed in float64, `rows` positions at a time (a [rows, V] float64 array, 6 MiB, instead of [n, V]).
    """
    logits, targets = np.asarray(logits), np.asarray(ids)[1:]  # position t predicts token t + 1
    total = 0.0
    for start in range(0, len(targets), rows):
        total += float(token_losses(logits[start : start + rows], targets[start : start + rows]).sum())
    return total / len(targets)


def generate(forward, model, prompt_ids, max_new_tokens, pick=greedy, *, use_cache=True, stop_ids=None, **seams):
    """int [n] -> int [<= max_new_tokens]: the new tokens, one `forward` step each, stopping after a stop id.

    use_cache=True: one pass over the prompt fills the KV cache, then each step runs only the newest token.
    use_cache=False: each step recomputes the whole sequence (the same tokens, more work). pick: logits [V]
    -> a token id (attn_lib.sampling.greedy, or attn_lib.sampling.sampler(seed, temperature, ...)).
    stop_ids: default (the model's end-of-text id,); () never stops early. seams: attention= or grouped=.
    """
    ids = [int(i) for i in check_ids(model, prompt_ids)]
    max_new_tokens = check_positive_int(max_new_tokens, "max_new_tokens")
    if not callable(pick):
        raise TypeError(f"pick must be a function logits [V] -> token id, got {describe_value(pick)}")
    check_context(model.config, 0, len(ids), "prompt_ids")
    room = model.config.context - len(ids) + 1  # + 1: the last new token is never fed back, it takes no position
    if max_new_tokens > room:
        raise ValueError(
            f"max_new_tokens={max_new_tokens} would go past the model's context length of {model.config.context}"
            f" positions (config.context): after the prompt's {len(ids)} tokens there is room for {room} new ones"
        )
    stop_ids = (model.config.eos_id,) if stop_ids is None else tuple(stop_ids)
    cache = new_cache(model, len(ids) + max_new_tokens) if use_cache else None
    new, step_ids = [], ids  # the prompt first
    for _ in range(max_new_tokens):
        sequence = step_ids if use_cache else ids + new
        logits = forward(model, sequence, cache=cache, last_only=True, **seams)
        new.append(check_pick(pick(logits[-1]), model.config.vocab_size))
        if new[-1] in stop_ids:
            break
        step_ids = new[-1:]
    return new


def check_pick(token, vocab_size):
    """What `pick` returned -> the token id as a Python int, or an error naming `pick` and the value.

    A float would be cut to an integer by int() (3.7 becomes 3) and an id outside the vocabulary would fail only
    later, in the next step or in decode: both are refused here, where the mistake is.
    """
    if isinstance(token, bool) or not isinstance(token, numbers.Integral):  # numpy integers are Integral too
        raise TypeError(
            f"pick must return a token id, an integer such as int(np.argmax(logits)), got {describe_value(token)}"
        )
    if not 0 <= token < vocab_size:
        raise ValueError(
            f"pick returned {token}, which is not a token id: ids lie in 0 .. {vocab_size - 1} (the vocabulary)"
        )
    return int(token)


def kv_cache_bytes_measured(cache):
    """-> the bytes a model's KV cache (from new_cache) holds per position: its key and value buffers / capacity."""
    return sum(c.keys.nbytes + c.values.nbytes for c in cache) // cache[0].capacity


# --- reading the weights -------------------------------------------------------------------------------------


def read_layers(f, infos, n_layers, d_model, block_tensors, fused, read_tensor):
    """The blocks' weights from an open GGUF file -> [one dict per block].

    block_tensors: the file's name in blk.N -> (the block's key, used transposed as x @ w?); fused: {fused key:
    (part keys)}, matrices that multiply the same input, read straight into the columns of one array (one product
    computes them all) and each kept under its own name as a view into it.
    """
    layers = [_fused_layout(infos, i, d_model, block_tensors, fused) for i in range(n_layers)]
    for info in infos:
        if info.name.startswith("blk."):
            _, layer, short = info.name.split(".", 2)  # "blk.12.attn_q.weight" -> "12", "attn_q.weight"
            key, transpose = block_tensors[short]
            into = layers[int(layer)]
            if key in into:  # a part of a fused matrix: dequantized straight into its columns
                read_tensor(f, info, out=into[key].T)
            else:
                w = read_tensor(f, info)  # float32, as the file stores it ([n_out, n_in] for a matrix)
                into[key] = w.T if transpose else w  # [n_in, n_out]: views of the file's rows (arithmetic, "Layout")
    return layers


def _fused_layout(infos, i, d_model, block_tensors, fused):
    """Block i's fused matrices, allocated empty, and their parts as views into them (filled by read_layers)."""
    short_key = {short: key for short, (key, _) in block_tensors.items()}
    widths = {short_key[info.name.split(".", 2)[2]]: info.shape[0] for info in infos
              if info.name.startswith(f"blk.{i}.")}  # fmt: skip
    layer = {}
    for name, parts in fused.items():
        rows = np.empty((sum(widths[part] for part in parts), d_model), np.float32)  # the file's layout
        layer[name] = rows.T  # [d, sum of the parts' widths]
        _views(layer, name, parts, [widths[part] for part in parts])
    return layer


def as_float64_layers(layers, fused):
    """-> the blocks' weights in float64, fused again (the tests' reference model, about 1 GiB for SmolLM2)."""
    out = []
    for layer in layers:
        layer = {key: w.astype(np.float64) for key, w in layer.items() if key not in fused}
        for name, parts in fused.items():
            layer[name] = np.concatenate([layer[part] for part in parts], axis=1)  # [d, sum of the parts' widths]
            _views(layer, name, parts, [layer[part].shape[1] for part in parts])
        out.append(layer)
    return out


def _views(layer, fused, parts, widths):
    """layer[part] = the part's columns of layer[fused] (a view: the same numbers, stored once)."""
    edges = np.cumsum([0, *widths])
    for part, start, stop in zip(parts, edges[:-1], edges[1:], strict=True):
        layer[part] = layer[fused][:, start:stop]
