"""The two sliders of notebook 12: how many key/value heads the query heads share, and the sliding window.

`kv_heads_widget()` runs one grouped-query attention layer over 我昨天在北京吃了烤鸭，今天在上海吃了 (random,
untrained weights, causal mask) with a slider over n_kv_heads, the divisors of h: each K/V head is the
mean of the multi-head layer's K/V heads in its group (how Ainslie et al. 2023 turn a multi-head
checkpoint into a grouped-query one), and the query heads never change. It draws one heatmap per
query head, titled with the K/V head it uses, and writes the cache the layer keeps.

`window_widget()` has sliders for the window W and the number of layers L: it draws one layer's
sliding-window mask and what each output can depend on after L layers (the masks composed by
boolean matrix products), and writes the last token's reach against L (W - 1) + 1.

Built on the shell of `attn_lib.widgets`: `controls`, `state`, `update()`, errors shown as one line,
a captioned still picture in the display data for readers without a kernel. The frames are drawn
once; a move repaints the heatmaps and titles only.
"""

import html

import ipywidgets
import matplotlib
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from attn_lib import examples
from attn_lib._checks import check_heads_divide, check_positive_int, check_seed, divisors
from attn_lib.core import causal_mask
from attn_lib.grouped import grouped_attention, init_grouped_weights, kv_cache_bytes
from attn_lib.i18n import t
from attn_lib.models.configs import LLAMA2_7B
from attn_lib.multihead import split_heads
from attn_lib.pictures.fast_figures import FastFigure
from attn_lib.pictures.heatmaps import MASK_FACE, MASK_HATCH, masked_legend_handle, use_cjk_font
from attn_lib.sliding_window import receptive_field, receptive_field_mask, sliding_window_mask
from attn_lib.widgets.shell import AttentionWidget, check_tokens, widget_language

#: The sliding-window widget draws this many positions.
WINDOW_POSITIONS = 32
#: The largest d_head the K/V-heads widget takes: its layer holds four [h d_head, h d_head] matrices.
MAX_D_HEAD = 128


def _slider(options, value, label):
    return ipywidgets.SelectionSlider(
        options=list(options),
        value=value,
        continuous_update=False,
        description=label,
        style={"description_width": "initial"},
    )


def _groups_text(h, kv, lang):
    """ "heads 1–4 share K/V head 1; heads 5–8 share K/V head 2", or the two extreme cases."""
    if kv == h:
        return t("modern.kv_groups_own", lang)
    if kv == 1:
        return t("modern.kv_groups_one", lang, h=h)
    g = h // kv
    parts = [t("modern.kv_group", lang, a=j * g + 1, b=(j + 1) * g, j=j + 1) for j in range(kv)]
    return t("modern.kv_group_sep", lang).join(parts)


# --- how many key/value heads ----------------------------------------------------------------------


class KVHeadsWidget(AttentionWidget):
    """A slider over n_kv_heads (divisors of h): h heatmaps, each titled with the K/V head it shares, and the cache."""

    kind = "kv-heads"

    def __init__(self, n_heads=8, d_head=8, tokens=None, lang=None, seed=0):
        self.n_heads = check_positive_int(n_heads, "n_heads")
        self.d_head = check_positive_int(d_head, "d_head")
        if self.d_head > MAX_D_HEAD:
            raise ValueError(
                f"d_head={d_head} is more than the widget's limit of {MAX_D_HEAD} (Llama's; the pictures do not"
                " depend on it, and a layer of 12 heads of 128 already holds 4 x 1536^2 numbers)"
            )
        if self.n_heads > 12:
            raise ValueError(f"n_heads={n_heads}: the widget draws one heatmap per head, at most 12")
        self.tokens = list(examples.SHANGHAI_TOKENS) if tokens is None else check_tokens(tokens)
        if len(self.tokens) > 24:
            raise ValueError(f"tokens has {len(self.tokens)} tokens; the widget draws at most 24 per heatmap")
        rng = np.random.default_rng(check_seed(seed))
        d_model, n = self.n_heads * self.d_head, len(self.tokens)
        check_heads_divide(d_model, self.n_heads)
        x = rng.standard_normal((n, d_model))  # [n, d_model]: random embeddings
        w = init_grouped_weights(d_model, self.n_heads, self.n_heads, seed=seed)  # a multi-head layer to start from
        w_q = 2.0 * w["w_q"]  # larger queries give sharper weights: easier to read in a picture
        self._q = split_heads(x @ w_q, self.n_heads)  # [h, n, d_head]
        self._k = split_heads(x @ w["w_k"], self.n_heads)  # [h, n, d_head]: one K head per query head (MHA)
        self._v = split_heads(x @ w["w_v"], self.n_heads)  # [h, n, d_head]
        self._mask = causal_mask(n)
        options = divisors(self.n_heads)
        value = min(options, key=lambda kv: abs(kv - max(1, self.n_heads // 4)))  # 2 of 8: a real grouping
        lang_now = widget_language(lang)
        controls = {"n_kv_heads": _slider(options, value, t("modern.kv_label", lang_now))}
        super().__init__(controls, lang)

    def shared_heads(self, n_kv_heads):
        """-> K, V [n_kv_heads, n, d_head]: the mean of the multi-head K (and V) heads of each group."""
        g = self.n_heads // n_kv_heads
        n, d = self._k.shape[-2:]
        k = self._k.reshape(n_kv_heads, g, n, d).mean(axis=1)  # [h, n, d] -> [h_kv, g, n, d] -> [h_kv, n, d]
        v = self._v.reshape(n_kv_heads, g, n, d).mean(axis=1)
        return k, v

    def compute(self, lang):
        kv = int(self.controls["n_kv_heads"].value)
        k, v = self.shared_heads(kv)
        _, weights = grouped_attention(self._q, k, v, mask=self._mask)  # [h, n, n]
        n, h, g = len(self.tokens), self.n_heads, self.n_heads // kv
        mha_numbers = 2 * h * n * self.d_head
        full = kv_cache_bytes(LLAMA2_7B.n_layers, LLAMA2_7B.n_kv_heads, LLAMA2_7B.d_head, LLAMA2_7B.context)
        state = {
            "n_kv_heads": kv,
            "n_heads": h,
            "group": g,
            "kv_of_head": [i // g for i in range(h)],
            "tokens": tuple(self.tokens),
            "weights": weights,
            "n_tokens": n,
            "d_head": self.d_head,
            "cache_numbers": 2 * kv * n * self.d_head,  # a key and a value per K/V head and token
            "mha_numbers": mha_numbers,
            "fraction": kv / h,
            "llama_gib": full * kv / h / 2**30,  # Llama 2 7B's 2 GiB at the same sharing ratio
        }
        return state, list(weights), [t("modern.kv_suptitle", lang, h=h) + "\n" + _groups_text(h, kv, lang)]

    def build_figure(self, state, lang):
        use_cjk_font()
        h, n = self.n_heads, len(self.tokens)
        ncols = min(h, 4)
        nrows = -(-h // ncols)
        fig = Figure(figsize=(2.35 * ncols + 0.9, 2.35 * nrows + 0.9), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False)
        image, hidden = None, ~self._mask  # the future: grey and hatched, as in every heatmap of the course
        colours = matplotlib.colormaps["Blues"].with_extremes(bad=MASK_FACE)
        for index, ax in enumerate(axes.flat):
            if index >= h:
                ax.set_axis_off()
                continue
            image = ax.imshow(np.ma.masked_array(np.full((n, n), 0.5), mask=hidden), vmin=0.0, vmax=1.0, cmap=colours)
            for i, j in np.argwhere(hidden):
                ax.add_patch(
                    Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="none", edgecolor=MASK_HATCH, hatch="///", lw=0)
                )
            row, col = divmod(index, ncols)
            ax.set_yticks(range(n), self.tokens if col == 0 else [], fontsize=7)
            ax.set_xticks(range(n), self.tokens if row == nrows - 1 else [], fontsize=7, rotation=90)
            ax.set_title(t("head_title", lang, i=index + 1), fontsize=9)
        fig.colorbar(image, ax=axes, shrink=0.6, label=t("weight", lang))
        fig.legend(handles=[masked_legend_handle(lang)], loc="outside lower center", frameon=False)
        title = fig.suptitle("-\n-", fontsize=10)
        return FastFigure(fig, titles=[title])

    def describe(self, state, lang):
        return "<p>" + html.escape(t("modern.kv_info", lang, **state)) + "</p>"


def kv_heads_widget(n_heads=8, d_head=8, tokens=None, lang=None, seed=0):
    """A slider "K/V heads" over the divisors of n_heads: n_heads = multi-head, 1 = multi-query attention.

    One grouped-query attention layer (random weights, causal mask) over `tokens` (default: the
    article's 11-token sentence); K/V head j is the mean of the multi-head layer's K/V heads of group j.

    controls: "n_kv_heads" (SelectionSlider). state: n_kv_heads, n_heads, group (query heads per K/V
    head), kv_of_head (the K/V head each query head uses), tokens, weights ([h, n, n]), n_tokens,
    d_head, cache_numbers and mha_numbers (numbers this layer caches, and with one K/V head per
    query head), fraction, llama_gib (Llama 2 7B's 4096-token cache at the same ratio), n_heatmaps, error.
    Limits (a ValueError beyond): n_heads <= 12, d_head <= 128, at most 24 tokens.
    """
    return KVHeadsWidget(n_heads=n_heads, d_head=d_head, tokens=tokens, lang=lang, seed=seed)


# --- the sliding window over layers --------------------------------------------------------------------


class WindowWidget(AttentionWidget):
    """Sliders for the window W and the layers L: one layer's mask and the composed reach after L layers."""

    kind = "window"

    def __init__(self, n=WINDOW_POSITIONS, max_window=16, max_layers=8, lang=None):
        self.n = check_positive_int(n, "n")
        if self.n > 128:
            raise ValueError(f"n={n}: the widget draws two n x n heatmaps, at most 128 positions")
        max_window = check_positive_int(max_window, "max_window")
        max_layers = check_positive_int(max_layers, "max_layers")
        if max_window > self.n:
            raise ValueError(
                f"max_window={max_window} is more than n={self.n} positions: a window of n keys or more is the"
                " causal mask already (the slider offers every window from 1 to max_window)"
            )
        if max_layers > self.n:
            raise ValueError(
                f"max_layers={max_layers} is more than n={self.n}: after n - 1 layers of a window of 2 or more,"
                " every output can depend on every earlier input"
            )
        lang_now = widget_language(lang)
        controls = {
            "window": _slider(range(1, max_window + 1), min(4, max_window), t("modern.window_label", lang_now)),
            "layers": _slider(range(1, max_layers + 1), min(3, max_layers), t("modern.layers_label", lang_now)),
        }
        super().__init__(controls, lang)

    def compute(self, lang):
        window, layers = int(self.controls["window"].value), int(self.controls["layers"].value)
        mask = sliding_window_mask(self.n, window)  # [n, n]
        reach = receptive_field_mask(mask, layers)  # [n, n]: mask composed over the layers
        state = {
            "window": window,
            "layers": layers,
            "n": self.n,
            "mask": mask,
            "reach": reach,
            "measured": int(reach[-1].sum()),  # counted on the last token's row
            "formula": receptive_field(window, layers),
            "round": layers * window,
        }
        titles = [
            t("modern.window_mask_title", lang, window=window),
            t("modern.window_reach_title", lang, layers=layers),
        ]
        return state, [mask.astype(float), reach.astype(float)], titles

    def build_figure(self, state, lang):
        use_cjk_font()
        fig = Figure(figsize=(9.2, 4.4), layout="constrained")
        axes = fig.subplots(1, 2)
        ticks = range(0, self.n, max(1, self.n // 8))
        for ax, x_label in zip(axes, ("modern.position_key", "modern.position_input"), strict=True):
            ax.imshow(np.zeros((self.n, self.n)), vmin=0.0, vmax=1.0, cmap="Blues", interpolation="nearest")
            ax.set_xticks(ticks)
            ax.set_yticks(ticks)
            ax.set_xlabel(t(x_label, lang))
            ax.set_ylabel(t("modern.position_query", lang))
            ax.set_title("-", fontsize=10)
        return FastFigure(fig, titles=[ax.title for ax in axes])

    def describe(self, state, lang):
        fields = {key: state[key] for key in ("window", "layers", "n", "measured", "formula", "round")}
        return "<p>" + html.escape(t("modern.window_info", lang, **fields)) + "</p>"


def window_widget(n=WINDOW_POSITIONS, max_window=16, max_layers=8, lang=None):
    """Sliders "window W" (1 .. max_window) and "layers L" (1 .. max_layers) over n positions.

    Left: one layer's sliding-window mask (query i sees keys i - W + 1 .. i). Right: which inputs each
    output can depend on after L layers, the mask composed L times by boolean matrix products.

    controls: "window", "layers" (SelectionSliders). state: window, layers, n, mask and reach (bool
    [n, n]), measured (how many inputs the last output can depend on, counted), formula
    (L (W - 1) + 1), round (L x W), n_heatmaps, error. Limits (a ValueError beyond): n <= 128,
    max_window <= n and max_layers <= n.
    """
    return WindowWidget(n=n, max_window=max_window, max_layers=max_layers, lang=lang)
