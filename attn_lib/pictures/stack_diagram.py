"""A whole decoder-only model in one picture, drawn from its configuration (notebooks 13, 14 and 15):

    token ids -> embedding -> L x block -> final norm -> unembedding -> softmax

with one block drawn out beside the stack: its norms, its attention (query heads and key/value heads, RoPE,
QK-norm, the mask of its layers) and its feed-forward network. The same function draws the course's three
decoders from the config each already carries, and what differs between them shows:

    config                                   notebook  norm       positions  attention  block
    attn_lib.models.tiny_lm.LMConfig          13       LayerNorm  learned    MHA        pre-norm
    attn_lib.models.smollm2.model.Config      14       RMSNorm    RoPE       GQA 9 / 3  pre-norm
    attn_lib.models.gemma3.model.Config       15       RMSNorm    RoPE x 2   MQA 4 / 1  norms before and after,
                                                                                        QK-norm, 5 local : 1 global

The kind of model is read from the config's attributes, not from its class: `rope_base` and `rms_eps` make a
RoPE model (with `window` and `is_global` too, a Gemma 3 one: its per-layer window and RoPE base come from
``config.window_for(i)`` and ``config.rope_base_for(i)``), `max_len` and `eps` a model with learned positions.
`describe_decoder_stack` returns what the picture draws; `plot_decoder_stack` draws it.
"""

from dataclasses import dataclass

from matplotlib.patches import Rectangle

from attn_lib._checks import check_kv_heads_divide, check_positive_int, describe_value
from attn_lib.i18n import t
from attn_lib.pictures.kit import MUTED, PALETTE, SMALL, Canvas, shape

__all__ = ["StackSpec", "describe_decoder_stack", "plot_decoder_stack"]

#: What every config must have, whatever its kind.
SIZES = ("vocab_size", "d_model", "n_layers", "n_heads", "d_ff")
#: The feed-forward network of each kind of model (its config does not name it).
FFN = {"gpt": "GELU", "llama": "SwiGLU", "gemma": "GeGLU"}


@dataclass(frozen=True)
class StackSpec:
    """What the picture draws: the sizes, and per layer its window (None: every earlier token) and RoPE base."""

    family: str  # "gpt" (learned positions, LayerNorm), "llama" (RoPE, RMSNorm) or "gemma" (Gemma 3)
    vocab_size: int
    d_model: int
    n_layers: int
    n_heads: int
    n_kv_heads: int
    d_head: int
    d_ff: int
    norm: str  # "LayerNorm" or "RMSNorm"
    post_norms: bool  # a norm after each sublayer too, before the residual sum (Gemma)
    qk_norm: bool
    ffn: str  # "GELU", "SwiGLU" or "GeGLU"
    windows: tuple  # [n_layers]: keys a token sees in that layer, None = every earlier one
    rope_bases: tuple | None  # [n_layers], None: learned positions instead
    max_len: int | None  # the learned position table's rows (None with RoPE)
    embed_scale: float  # the embedding rows are multiplied by it (Gemma: sqrt(d_model))
    tied: bool  # the unembedding is E^T

    @property
    def attention(self):
        """ "MHA", "GQA" or "MQA", by how many key/value heads the query heads share."""
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"

    @property
    def global_layers(self):
        """The layers (counted from 1) whose tokens see every earlier token."""
        return tuple(i + 1 for i, window in enumerate(self.windows) if window is None)


def describe_decoder_stack(config):
    """A decoder's config (LMConfig, SmolLM2's or Gemma 3's Config, or any object with their attributes) ->
    StackSpec. A TypeError for an object that is not such a config, a ValueError for sizes that do not fit."""
    missing = [name for name in SIZES if not hasattr(config, name)]
    if missing:
        hint = (
            " (notebook 08's attention-only model has no feed-forward network: draw_tiny_model draws it)"
            if missing == ["d_ff"] and hasattr(config, "max_len")
            else ""
        )
        raise TypeError(
            f"config must be a decoder's configuration with {', '.join(SIZES)} (an LMConfig, or a model's"
            f" .config), got {describe_value(config)} without {', '.join(missing)}{hint}"
        )
    vocab, d, layers, heads, d_ff = (check_positive_int(getattr(config, name), name) for name in SIZES)
    kv_heads = check_positive_int(getattr(config, "n_kv_heads", heads), "n_kv_heads")
    check_kv_heads_divide(heads, kv_heads)
    if hasattr(config, "rope_base") and hasattr(config, "rms_eps"):
        gemma = hasattr(config, "window") and hasattr(config, "is_global")
        family, norm, max_len = ("gemma" if gemma else "llama"), "RMSNorm", None
        windows = tuple(config.window_for(i) for i in range(layers)) if gemma else (None,) * layers
        bases = tuple(config.rope_base_for(i) for i in range(layers)) if gemma else (config.rope_base,) * layers
    elif hasattr(config, "max_len") and hasattr(config, "eps"):
        family, norm, windows, bases = "gpt", "LayerNorm", (None,) * layers, None
        max_len = check_positive_int(config.max_len, "max_len")
    else:
        raise ValueError(
            f"cannot tell how {describe_value(config)} encodes positions: a RoPE model's config has rope_base and"
            " rms_eps, one with learned positions max_len and eps"
        )
    if d % heads and not hasattr(config, "d_head"):
        raise ValueError(f"d_model={d} is not divisible by n_heads={heads}, and the config gives no d_head")
    return StackSpec(
        family=family,
        vocab_size=vocab,
        d_model=d,
        n_layers=layers,
        n_heads=heads,
        n_kv_heads=kv_heads,
        d_head=check_positive_int(getattr(config, "d_head", d // heads), "d_head"),
        d_ff=d_ff,
        norm=norm,
        post_norms=family == "gemma",
        qk_norm=family == "gemma" and bool(getattr(config, "qk_norm", True)),
        ffn=FFN[family],
        windows=windows,
        rope_bases=bases,
        max_len=max_len,
        embed_scale=float(getattr(config, "embed_scale", 1.0)),
        tied=bool(getattr(config, "tie_word_embeddings", True)),
    )


def plot_decoder_stack(config, *, title=None, lang=None):
    """Draw the model a config describes: the stack on the left (one strip per layer, local and global layers
    coloured apart), one block drawn out on the right. `config`: see `describe_decoder_stack`."""
    spec = describe_decoder_stack(config)
    c = Canvas(10.0, 7.0, t("diagrams.stack_title", lang, family=t(f"diagrams.stack_family_{spec.family}", lang))
               if title is None else title)  # fmt: skip
    strips = _draw_stack(c, spec, lang)
    _draw_block(c, spec, strips, lang)
    _draw_legend(c, spec, lang)
    return c.fig


# --- the stack ------------------------------------------------------------------------------------------------

X_STACK, W_STACK = 1.55, 2.3  # the column's centre and its boxes' width (inches)
STRIPS = (2.1, 4.3)  # the blocks' strips span these heights at most
MAX_STRIP = 0.4  # the height of one strip at most (a model of 2 layers draws 2 strips, not 2 slabs)
LOCAL, GLOBAL, FULL = "v", "k", "q"  # the strips' colours (PALETTE roles)


def _norm_key(spec, prefix):
    """The key of a label that names the norm: prefix + "rms_norm" or "layer_norm"."""
    return prefix + ("rms_norm" if spec.norm == "RMSNorm" else "layer_norm")


def _draw_stack(c, spec, lang):
    """ids -> embedding -> strips -> final norm -> unembedding -> softmax; returns the strips' (right, bottom, top)."""
    V, d, x = f"{spec.vocab_size:,}", f"{spec.d_model:,}", X_STACK
    c.text(x, 1.05, t("diagrams.stack_ids", lang), size=SMALL, color=MUTED)
    c.arrow((x, 1.15), (x, 1.35))
    embed = t("diagrams.stack_embed", lang, shape=shape(V, d))
    if spec.rope_bases is None:
        embed += "\n" + t("diagrams.stack_positions", lang, shape=shape(spec.max_len, d))
    elif spec.embed_scale != 1.0:
        embed += f"\n× √{spec.d_model} = {spec.embed_scale:.1f}"
    c.box(x, 1.6, W_STACK, 0.5, embed, kind="x", size=SMALL)
    step = min(MAX_STRIP, (STRIPS[1] - STRIPS[0]) / spec.n_layers)
    bottom = (STRIPS[0] + STRIPS[1] - step * spec.n_layers) / 2
    top, left, width = bottom + step * spec.n_layers, x - 0.6, 1.2
    c.arrow((x, 1.85), (x, bottom))
    for i, window in enumerate(spec.windows):
        role = FULL if spec.family != "gemma" else GLOBAL if window is None else LOCAL
        face, edge = PALETTE[role]
        gap = min(0.02, step * 0.2)
        c.ax.add_patch(Rectangle((left, bottom + i * step + gap / 2), width, step - gap, fc=face, ec=edge, lw=0.7))
    c.text(x + 0.9, (bottom + top) / 2, t("diagrams.stack_blocks", lang, layers=spec.n_layers), size=SMALL + 1)
    c.arrow((x, top), (x, 4.52))
    c.box(x, 4.7, W_STACK, 0.36, t(_norm_key(spec, "diagrams.stack_final_"), lang), size=SMALL)
    c.arrow((x, 4.88), (x, 5.09))
    unembed = "diagrams.stack_unembed" if spec.tied else "diagrams.stack_unembed_untied"
    c.box(x, 5.3, W_STACK, 0.42, t(unembed, lang, shape=shape(d, V)), kind="w", size=SMALL)
    c.arrow((x, 5.51), (x, 5.7))
    c.box(x, 5.95, W_STACK, 0.5, t("diagrams.stack_softmax", lang, vocab=V), kind="out", size=SMALL)
    edge = x - W_STACK / 2
    c.line([(edge, 1.6), (0.28, 1.6), (0.28, 5.3), (edge, 5.3)], dashed=not spec.tied, color=PALETTE["x"][1])
    c.text(0.13, 3.45, t("diagrams.stack_tied" if spec.tied else "diagrams.stack_untied", lang), size=SMALL,
           rotation=90, color=PALETTE["x"][1])  # fmt: skip
    return left + width, bottom, top


# --- one block ------------------------------------------------------------------------------------------------

FRAME = (3.3, 1.1, 9.85, 6.3)  # left, bottom, right, top of the block's frame
X_RES, X_SUB, X_TAG = 3.75, 5.45, 8.33  # the residual line, the sublayers' column, the notes' column
W_SUB, W_TAG = 2.4, 2.95


def _draw_block(c, spec, strips, lang):
    """The residual stream, the attention sublayer and the feed-forward one, each with its norms and notes."""
    left, bottom, right, top = FRAME
    c.ax.add_patch(Rectangle((left, bottom), right - left, top - bottom, fill=False, ec=MUTED, lw=1.0, ls="--"))
    s_right, s_bottom, s_top = strips
    for y_strip, y_frame in ((s_bottom, bottom), (s_top, top)):  # the block is any of the strips, enlarged
        c.ax.plot([s_right + 0.05, left], [y_strip, y_frame], color=MUTED, lw=0.8, ls=":")
    c.text(X_TAG, 6.02, t("diagrams.stack_block", lang, layers=spec.n_layers), size=SMALL + 1)
    c.line([(X_RES, 1.25), (X_RES, 6.2)], lw=2.2)
    c.text(X_RES + 0.1, 1.3, shape("n", f"{spec.d_model:,}"), size=SMALL, color=MUTED, ha="left")
    c.text(X_RES - 0.22, 2.6, t("diagrams.stack_residual", lang), size=SMALL, color=MUTED, rotation=90)
    norm = t(_norm_key(spec, "diagrams.stack_"), lang)
    post = t("diagrams.stack_post_rms_norm", lang)  # only Gemma 3 has them, and its norms are RMSNorms
    attention = t(f"diagrams.stack_{spec.attention.lower()}", lang)
    if spec.attention == "MHA":
        heads = t("diagrams.stack_heads", lang, h=spec.n_heads, d=spec.d_head)
    else:
        key = "diagrams.stack_one_head" if spec.n_kv_heads == 1 else "diagrams.stack_shared_heads"
        heads = t(key, lang, h=spec.n_heads, kv=spec.n_kv_heads, d=spec.d_head)
    ffn = t("diagrams.stack_ffn", lang, kind=spec.ffn, d_ff=f"{spec.d_ff:,}")
    post_ys = []
    for branch, (label, kind, height), y_sum in ((1.55, (attention + "\n" + heads, "q", 0.85), 3.7),
                                                 (3.95, (ffn, "v", 0.5), 5.75)):  # fmt: skip
        y_pre = branch + 0.35
        y_mid = y_pre + 0.17 + 0.1 + height / 2
        c.line([(X_RES, branch), (X_SUB, branch), (X_SUB, y_pre - 0.17)])
        c.box(X_SUB, y_pre, 1.7, 0.34, norm, size=SMALL)
        c.arrow((X_SUB, y_pre + 0.17), (X_SUB, y_mid - height / 2))
        c.box(X_SUB, y_mid, W_SUB, height, label, kind=kind, size=SMALL)
        end = y_mid + height / 2
        if spec.post_norms:
            y_post = end + 0.1 + 0.17
            c.arrow((X_SUB, end), (X_SUB, y_post - 0.17))
            c.box(X_SUB, y_post, 1.7, 0.34, post, kind="score", size=SMALL)
            post_ys.append(y_post)
            end = y_post + 0.17
        c.line([(X_SUB, end), (X_SUB, y_sum), (X_RES + 0.16, y_sum)])
        c.circle(X_RES, y_sum, "+")
        if branch == 1.55:
            _draw_attention_notes(c, spec, y_mid, lang)
    y_note = 4.45
    if spec.post_norms:
        c.box(X_TAG, y_note, W_TAG, 0.34, t("diagrams.stack_post_note", lang), kind="score", size=SMALL)
        for y_post in post_ys:
            c.ax.plot([X_SUB + 0.85, X_TAG - W_TAG / 2], [y_post, y_note], color=PALETTE["score"][1], lw=0.8, ls=":")
    else:
        c.box(X_TAG, y_note, W_TAG, 0.5, t("diagrams.stack_pre_only", lang), kind="note", size=SMALL, dashed=True)


def _draw_attention_notes(c, spec, y_mid, lang):
    """Three notes beside the attention: how it knows positions, QK-norm (or not), which keys each layer sees."""
    if spec.rope_bases is None:
        position = t("diagrams.stack_learned", lang)
    elif len(set(spec.rope_bases)) == 1:
        position = t("diagrams.stack_rope", lang, base=f"{spec.rope_bases[0]:,.0f}")
    else:
        local = next(b for b, w in zip(spec.rope_bases, spec.windows, strict=True) if w is not None)
        far = next(b for b, w in zip(spec.rope_bases, spec.windows, strict=True) if w is None)
        position = t("diagrams.stack_rope_two", lang, base_local=f"{local:,.0f}", base_global=f"{far:,.0f}")
    qk = t("diagrams.stack_qk_norm" if spec.qk_norm else "diagrams.stack_no_qk_norm", lang)
    windows = {w for w in spec.windows if w is not None}
    if windows:
        mask = t("diagrams.stack_window", lang, window=", ".join(f"{w:,}" for w in sorted(windows)))
    else:
        mask = t("diagrams.stack_causal", lang)
    notes = [
        (position, "note", False),
        (qk, "score" if spec.qk_norm else "note", not spec.qk_norm),
        (mask, "note", False),
    ]
    for k, (text, kind, dashed) in enumerate(notes):
        y = y_mid + (1 - k) * 0.52
        c.box(X_TAG, y, W_TAG, 0.44, text, kind=kind, size=SMALL, dashed=dashed)
        c.ax.plot([X_SUB + W_SUB / 2, X_TAG - W_TAG / 2], [y_mid, y], color=MUTED, lw=0.8)


# --- the legend and the numbers ---------------------------------------------------------------------------------


def _draw_legend(c, spec, lang):
    """Under the picture: what the strips' colours mean, and the config's numbers in one line."""
    if spec.family == "gemma":
        local = [w for w in spec.windows if w is not None]
        layers = t("diagrams.stack_list_sep", lang).join(str(i) for i in spec.global_layers)
        entries = [
            (LOCAL, t("diagrams.stack_local", lang, window=f"{max(local, default=0):,}", count=len(local))),
            (GLOBAL, t("diagrams.stack_global", lang, count=len(spec.global_layers), layers=layers)),
        ]
    else:
        entries = [(FULL, t("diagrams.stack_full", lang, count=spec.n_layers))]
    x = 0.4
    for role, text in entries:
        face, edge = PALETTE[role]
        c.ax.add_patch(Rectangle((x, 0.58), 0.3, 0.14, fc=face, ec=edge, lw=0.7))
        label = c.text(x + 0.4, 0.65, text, size=SMALL, ha="left")
        x += 0.4 + c.width_of(label) + 0.4
    heads = t("diagrams.stack_numbers_heads", lang, h=spec.n_heads, kv=spec.n_kv_heads, d=spec.d_head)
    numbers = t("diagrams.stack_numbers", lang, layers=spec.n_layers, d_model=f"{spec.d_model:,}", heads=heads,
                d_ff=f"{spec.d_ff:,}", vocab=f"{spec.vocab_size:,}")  # fmt: skip
    c.text(5.0, 0.25, numbers, size=SMALL, color=MUTED)
