"""Sliders and toggles that redraw attention heatmaps live: d_k and scaling, the causal mask, the heads.

Each widget is an `ipywidgets.VBox` with three public attributes:

    w.controls   dict: name -> the ipywidgets control ("d_k", "scale" | "mask" | "n_heads" | "temperature")
    w.state      dict: what the last update computed (weights, statistics, ...; "error" is None or a message)
    w.update()   recompute and redraw from the controls' current values; returns w.state

Moving a control calls `update()`. An exception inside `update()` never reaches the learner as a
traceback: it becomes a short message in the widget and in ``state["error"]``. Every drawn word
comes from `attn_lib.i18n` (``lang=None`` follows `set_language`).

Speed: a figure's frame (axes, ticks, labels, colour bar) is drawn once; later updates repaint only
the heatmap cells and the titles (matplotlib "blitting", in `attn_lib.pictures.fast_figures`), and the
result is sent as PNG bytes to an `ipywidgets.Image`. Where a new value needs a new frame (the heads
widget: one layout per h), the frames of the neighbouring values are drawn right after each update,
while the learner looks at the picture, so the next key press finds them ready.

Every widget that shows 猫吃鱼 shows the course's one example, `attn_lib.examples.cat_example()`, at its
default settings (the d_k widget at d_k = 2 with scaling, the mask widget without a mask, the setup check at
temperature 1); the heads widget projects 猫吃鱼 to d_model with a random seeded matrix.

Where the live widget cannot run, its display data still shows a picture: the same PNG with a caption
that says what to do (run the cell; reload the page if it stays a picture). JupyterLab shows that
picture instead of the widget when the output is not trusted (a notebook opened but not yet run: the
widget renderer is registered as unsafe) or when no widget renderer is registered for the notebook;
GitHub and nbviewer always show it.
"""

import html

import ipywidgets
import numpy as np
from matplotlib.figure import Figure

from attn_lib import examples
from attn_lib._checks import check_positive_int, check_seed, divisors
from attn_lib._checks import describe_value as describe_value  # re-exported: attn_lib.widgets.training uses it
from attn_lib.core import causal_mask, scaled_dot_product_attention, softmax
from attn_lib.i18n import t
from attn_lib.multihead import count_parameters, init_multi_head_weights, split_heads
from attn_lib.pictures.fast_figures import FastFigure, cat_figure, heads_figure, heads_grid, heads_mosaic
from attn_lib.pictures.heatmaps import draw_attention, use_cjk_font
from attn_lib.widgets.shell import AttentionWidget, check_tokens, widget_language

#: The d_k values of the d_k slider (log-spaced): those at which the running example is checked.
D_K_OPTIONS = examples.CAT_D_KS  # 1, 2, 4, ..., 512
#: How many random (q, k) pairs the d_k widget uses to measure Var(q . k).
N_SAMPLE_PAIRS = 2000
#: At most this many heads are offered by default (one heatmap each).
MAX_HEADS = 16
#: The heads widget draws sentences of at most this many tokens (an n x n heatmap per head).
MAX_TOKENS = 512
# --- the data the widgets draw --------------------------------------------------------------------


def standardised_cat_embeddings():
    """-> [3, 4]: the article's 猫吃鱼 embeddings shifted and scaled to mean 0 and variance 1 overall.

    One mean and one standard deviation for the whole matrix, so that the three tokens stay different
    (per-row standardising would make 猫 and 吃 identical).
    """
    x = np.array(examples.CAT_EMBEDDINGS)  # [3, 4]
    return (x - x.mean()) / x.std()


def project(x, d_out, rng):
    """[n, d_in] -> [n, d_out]: x @ W with W ~ N(0, 1/d_in), keeping unit-variance components near variance 1."""
    d_in = x.shape[-1]
    w = rng.normal(0.0, 1.0 / np.sqrt(d_in), size=(d_in, d_out))  # [d_in, d_out]
    return x @ w  # [n, d_in] x [d_in, d_out] -> [n, d_out]


def _row_max_text(tokens, row_max):
    return " · ".join(f"{tok} {value:.2f}" for tok, value in zip(tokens, row_max, strict=True))


# --- the d_k widget (notebook 04) -------------------------------------------------------------


class DkWidget(AttentionWidget):
    """A d_k slider and a "scale by √d_k" checkbox over 猫吃鱼 and a longer sentence."""

    kind = "dk"

    def __init__(self, lang=None, seed=0, d_in=64, n_pairs=N_SAMPLE_PAIRS):
        rng = np.random.default_rng(check_seed(seed))
        d_max = D_K_OPTIONS[-1]
        x_cat = np.array(examples.CAT_INPUTS)  # [3, 4]: the article's embeddings, standardised over the tokens
        x_long = rng.standard_normal((len(examples.SHANGHAI_TOKENS), d_in))  # [11, d_in]
        # columns 0..d_k-1 of each projection give the d_k-dimensional q and k; for 猫吃鱼 they are the course's
        # projections (cat_projections: the same first columns for every d_k), so d_k = 2 is cat_example()
        w_q, w_k, _ = examples.cat_projections(d_max)  # [4, 512] each
        self._q_cat, self._k_cat = x_cat @ w_q, x_cat @ w_k  # [3, 4] x [4, 512] -> [3, 512] each
        self._q_long, self._k_long = project(x_long, d_max, rng), project(x_long, d_max, rng)  # [11, 512] each
        # many independent pairs of unit-variance vectors: where Var(q . k) = d_k holds by construction
        self._q_sample = rng.standard_normal((n_pairs, d_max))  # [n_pairs, 512]
        self._k_sample = rng.standard_normal((n_pairs, d_max))  # [n_pairs, 512]
        lang_now = widget_language(lang)
        controls = {
            "d_k": ipywidgets.SelectionSlider(
                options=D_K_OPTIONS,
                value=examples.CAT_D_K,
                continuous_update=False,
                description=t("widgets.dk_label", lang_now),
                style={"description_width": "initial"},
            ),
            "scale": ipywidgets.Checkbox(value=True, description=t("widgets.scale_label", lang_now), indent=False),
        }
        super().__init__(controls, lang)

    @staticmethod
    def _scores(q, k, d_k, scale):
        """[n, 512], [n, 512] -> [n, n]: q_i . k_j over the first d_k components, divided by √d_k if `scale`."""
        scores = q[:, :d_k] @ k[:, :d_k].T  # [n, d_k] x [d_k, n] -> [n, n]
        return scores / np.sqrt(d_k) if scale else scores

    def compute(self, lang):
        d_k, scale = int(self.controls["d_k"].value), bool(self.controls["scale"].value)
        scores = self._scores(self._q_cat, self._k_cat, d_k, scale)  # [3, 3]
        long_scores = self._scores(self._q_long, self._k_long, d_k, scale)  # [11, 11]
        dots = np.einsum("pd,pd->p", self._q_sample[:, :d_k], self._k_sample[:, :d_k])  # [n_pairs]
        if scale:
            dots = dots / np.sqrt(d_k)
        weights, long_weights = softmax(scores), softmax(long_scores)
        state = {
            "d_k": d_k,
            "scale": scale,
            "tokens": examples.CAT_TOKENS,
            "scores": scores,
            "weights": weights,
            "long_tokens": examples.SHANGHAI_TOKENS,
            "long_scores": long_scores,
            "long_weights": long_weights,
            "score_var": float(scores.var()),
            "long_score_var": float(long_scores.var()),
            "row_max": weights.max(axis=-1),
            "long_row_max": long_weights.max(axis=-1),
            "sample_var": float(dots.var()),
            "expected_var": 1.0 if scale else float(d_k),
            "n_pairs": len(dots),
        }
        mode = t("widgets.scaled" if scale else "widgets.unscaled", lang)
        variance = "widgets.var_title_scaled" if scale else "widgets.var_title_unscaled"
        titles = [  # the claim (Var ≈ d_k, ≈ 1 scaled) in the picture itself, where a static reader sees it
            t(variance, lang, n=state["n_pairs"], d_k=d_k, var=state["sample_var"]),
            t("widgets.cat_title", lang, d_k=d_k, mode=mode, mean_max=state["row_max"].mean()),
            t("widgets.long_title", lang, mean_max=state["long_row_max"].mean()),
        ]
        return state, [weights, long_weights], titles

    def build_figure(self, state, lang):
        use_cjk_font()
        fig = Figure(figsize=(9.6, 4.8), layout="constrained")
        ax_cat, ax_long = fig.subplots(1, 2, width_ratios=[1, 1.6])
        placeholder = np.full((3, 3), 0.5)
        draw_attention(
            ax_cat,
            placeholder,
            list(examples.CAT_TOKENS),
            list(examples.CAT_TOKENS),
            lang=lang,
            annotate=True,
            colorbar=False,
            title="-\n-",
        )
        suptitle = fig.suptitle("-", fontsize=12)
        n = len(examples.SHANGHAI_TOKENS)
        draw_attention(
            ax_long,
            np.full((n, n), 0.5),
            list(examples.SHANGHAI_TOKENS),
            list(examples.SHANGHAI_TOKENS),
            lang=lang,
            annotate=False,
            title="-\n-",
        )
        return FastFigure(fig, titles=[suptitle, ax_cat.title, ax_long.title])

    def describe(self, state, lang):
        rows = [
            (t("widgets.cat_name", lang), _row_max_text(state["tokens"], state["row_max"])),
            (t("widgets.long_name", lang), _row_max_text(state["long_tokens"], state["long_row_max"])),
        ]
        body = "".join(
            f"<tr><td>{html.escape(name)}</td><td>{html.escape(row_max)}</td></tr>" for name, row_max in rows
        )
        sample = t(
            "widgets.sample_line",
            lang,
            n=state["n_pairs"],
            d_k=state["d_k"],
            var=state["sample_var"],
            expected=state["expected_var"],
        )
        return (
            f"<p>{html.escape(sample)}</p>"
            f"<table><tr><th>{html.escape(t('widgets.sentence', lang))}</th>"
            f"<th>{html.escape(t('widgets.row_max', lang))}</th></tr>{body}</table>"
            f"<p>{html.escape(t('widgets.dk_note', lang))}</p>"
        )


def dk_widget(lang=None, seed=0):
    """A d_k slider (1, 2, 4, ..., 512) and a "scale by √d_k" checkbox that redraw two heatmaps and their statistics.

    猫吃鱼 is the course's example: the article's X standardised over the tokens (`examples.CAT_INPUTS`) times
    the first d_k columns of the course's projections (`attn_lib.examples.cat_projections`), so at the default
    d_k = 2 with scaling its weights are `cat_example().weights`, and at every d_k offered the rows' largest
    weights are not all on one key (the standardised X's columns sum to 0). The line under the tables says
    what happens at large d_k without scaling, and why. The longer sentence has seeded random embeddings and
    projections. The figure's title states Var(q . k) measured over all 2000 sampled pairs of unit-variance
    d_k-vectors: about d_k unscaled, about 1 scaled.

    controls: "d_k" (SelectionSlider), "scale" (Checkbox). state: d_k, scale, tokens, scores, weights
    ([3, 3], 猫吃鱼), long_tokens, long_scores, long_weights ([11, 11]), score_var, long_score_var,
    row_max, long_row_max, sample_var, expected_var, n_pairs, n_heatmaps, error.
    """
    return DkWidget(lang=lang, seed=seed)


# --- the mask widget (notebook 05) --------------------------------------------------------------


class MaskWidget(AttentionWidget):
    """Toggle buttons "none" / "causal" over the 猫吃鱼 heatmap."""

    kind = "mask"

    def __init__(self, lang=None, seed=examples.CAT_SEED, d_k=examples.CAT_D_K):
        x = np.array(examples.CAT_INPUTS)  # [3, 4]: the article's embeddings, standardised over the tokens
        w_q, w_k, _ = examples.cat_projections(d_k, seed=check_seed(seed))  # the course's, at the default seed
        q, k = x @ w_q, x @ w_k  # [3, 4] x [4, d_k] -> [3, d_k] each
        self._scores = q @ k.T / np.sqrt(d_k)  # [3, d_k] x [d_k, 3] -> [3, 3]
        lang_now = widget_language(lang)
        controls = {
            "mask": ipywidgets.ToggleButtons(
                options=[(t("widgets.mask_none", lang_now), "none"), (t("widgets.mask_causal", lang_now), "causal")],
                value="none",
                description=t("widgets.mask_label", lang_now),
            ),
        }
        super().__init__(controls, lang)

    @staticmethod
    def _allowed(kind):
        n = len(examples.CAT_TOKENS)
        return causal_mask(n) if kind == "causal" else np.ones((n, n), dtype=bool)  # [3, 3], True = may attend

    def compute(self, lang):
        kind = self.controls["mask"].value
        allowed = self._allowed(kind)
        scores = np.where(allowed, self._scores, -np.inf)  # a forbidden key gets -inf
        weights = softmax(scores)  # [3, 3]
        state = {"mask": kind, "tokens": examples.CAT_TOKENS, "allowed": allowed, "scores": scores, "weights": weights}
        return state, [weights], [t(f"widgets.mask_title_{kind}", lang)]

    def figure_key(self, state, lang):
        return state["mask"], lang  # masked cells are part of the frame: one frame per mask

    def build_figure(self, state, lang):
        mask = None if state["mask"] == "none" else self._allowed(state["mask"])
        return cat_figure(lang, mask=mask, legend_room=True)  # the heatmap in the same place with and without

    def nearby_states(self, state):
        """The other setting of the toggle: a click goes there next."""
        return [{"mask": kind} for _, kind in self.controls["mask"].options if kind != state["mask"]]


def mask_widget(lang=None, seed=examples.CAT_SEED):
    """Toggle buttons "none" / "causal" that redraw the 猫吃鱼 heatmap; causal -> upper triangle exactly 0.

    The weights are `cat_example().weights` and `cat_example(causal=True).weights` (another `seed` draws other
    projections); masked cells are drawn grey and hatched with "—", with a legend entry.

    controls: "mask" (ToggleButtons, values "none" / "causal"). state: mask, tokens, allowed (bool [3, 3],
    True = may attend), scores ([3, 3], -inf where masked), weights ([3, 3]), n_heatmaps, error.
    """
    return MaskWidget(lang=lang, seed=seed)


# --- the heads widget (notebook 06) -----------------------------------------------------------


class HeadsWidget(AttentionWidget):
    """A heads slider offering only divisors of d_model; one heatmap per head, d_k and the parameter count."""

    kind = "heads"

    def __init__(self, d_model=48, tokens=None, lang=None, seed=0, max_heads=MAX_HEADS, highlight=None):
        d_model = check_positive_int(d_model, "d_model")
        max_heads = check_positive_int(max_heads, "max_heads")
        seed = check_seed(seed)
        rng = np.random.default_rng(seed)
        if tokens is None:
            self.tokens = list(examples.CAT_TOKENS)
            self._x = project(standardised_cat_embeddings(), d_model, rng)  # [3, 4] -> [3, d_model]
        else:
            self.tokens = check_tokens(tokens)
            if len(self.tokens) > MAX_TOKENS:
                raise ValueError(
                    f"tokens has {len(self.tokens)} tokens; the heads widget draws at most {MAX_TOKENS}"
                    f" (one heatmap of n x n weights per head): pass a shorter sentence"
                )
            self._x = rng.standard_normal((len(self.tokens), d_model))  # [n, d_model]
        if highlight is not None and highlight not in self.tokens:
            raise ValueError(
                f"highlight must be one of the tokens {self.tokens} (its row is framed), got {highlight!r}"
            )
        self.highlight = None if highlight is None else self.tokens.index(highlight)  # the framed query row
        self.d_model = d_model
        w = init_multi_head_weights(d_model, 1, seed=seed)  # the same W_Q, W_K, W_V for every h
        # project once: changing h only changes how the d_model columns are split into heads
        self._q, self._k, self._v = self._x @ w["w_q"], self._x @ w["w_k"], self._x @ w["w_v"]  # [n, d_model] each
        options = [h for h in divisors(d_model) if h <= max_heads]
        lang_now = widget_language(lang)
        value = max([h for h in options if h <= 4])
        controls = {
            "n_heads": ipywidgets.SelectionSlider(
                options=options,
                value=value,
                description=t("widgets.heads_label", lang_now),
                continuous_update=False,
                style={"description_width": "initial"},
            ),
        }
        super().__init__(controls, lang)

    def compute(self, lang):
        h = int(self.controls["n_heads"].value)
        # [n, d_model] -> [h, n, d_k] each; contiguous, so that the batched matrix products are fast
        q, k, v = (np.ascontiguousarray(split_heads(x, h)) for x in (self._q, self._k, self._v))
        _, weights = scaled_dot_product_attention(q, k, v)  # [h, n, n], scaled by the per-head sqrt(d_k)
        state = {
            "n_heads": h,
            "d_model": self.d_model,
            "d_k": self.d_model // h,
            "n_params": count_parameters(self.d_model, h),
            "tokens": tuple(self.tokens),
            "weights": weights,
        }
        mosaic = heads_mosaic(weights, *heads_grid(h, len(self.tokens)))  # [h, n, n] -> one image
        return state, [mosaic], []

    def figure_key(self, state, lang):
        return state["n_heads"], lang

    def build_figure(self, state, lang):
        return heads_figure(state["n_heads"], self.tokens, lang, state["d_k"], highlight=self.highlight)

    def nearby_states(self, state):
        """The head counts one slider step away: a key press goes there next."""
        options = list(self.controls["n_heads"].options)
        i = options.index(state["n_heads"])
        return [
            {"n_heads": h, "d_k": self.d_model // h} for h in options[max(0, i - 1) : i + 2] if h != state["n_heads"]
        ]

    def describe(self, state, lang):
        key = "widgets.heads_info_one" if state["n_heads"] == 1 else "widgets.heads_info"
        return "<p>" + html.escape(t(key, lang, **state)) + "</p>"


def heads_widget(d_model=48, tokens=None, lang=None, seed=0, max_heads=MAX_HEADS, highlight=None):
    """A heads slider offering only the divisors h of d_model (up to `max_heads`): one heatmap per head.

    `highlight` (one of the tokens, e.g. "it") frames that query's row in every head.
    Shows d_k = d_model / h and the parameter count 4 d_model^2, which does not change with h.
    `tokens=None` uses 猫吃鱼 (the article's embeddings, standardised, projected to d_model by a seeded random
    matrix: not the course's d_k = 2 example, and its heads are random and untrained); other tokens get seeded
    random embeddings.

    controls: "n_heads" (SelectionSlider). state: n_heads, d_model, d_k, n_params, tokens,
    weights ([h, n, n]), n_heatmaps (= h), error.
    """
    return HeadsWidget(d_model=d_model, tokens=tokens, lang=lang, seed=seed, max_heads=max_heads, highlight=highlight)


# --- the setup check (notebook 00) ------------------------------------------------------------


class SetupCheckWidget(AttentionWidget):
    """A temperature slider over a tiny 猫吃鱼 heatmap: if it redraws with readable 猫 吃 鱼, all is well."""

    kind = "setup"

    def __init__(self, lang=None):
        self._scores = examples.cat_example().scaled_scores  # [3, 3]: the course's 猫吃鱼, Q Kᵀ / √d_k
        lang_now = widget_language(lang)
        controls = {
            "temperature": ipywidgets.FloatLogSlider(
                value=1.0,
                base=10,
                min=-1,
                max=1,
                step=0.1,
                description=t("widgets.temperature_label", lang_now),
                continuous_update=False,
                style={"description_width": "initial"},
            ),
        }
        super().__init__(controls, lang)

    def compute(self, lang):
        temperature = float(self.controls["temperature"].value)
        weights = softmax(self._scores / temperature)  # [3, 3]
        state = {"temperature": temperature, "tokens": examples.CAT_TOKENS, "weights": weights}
        return state, [weights], [t("widgets.setup_title", lang, temperature=temperature)]

    def build_figure(self, state, lang):
        return cat_figure(lang)

    def describe(self, state, lang):
        return "<p>" + html.escape(t("widgets.setup_ok", lang)) + "</p>"


def setup_check_widget(lang=None):
    """Notebook 00's check: a 猫吃鱼 heatmap and a temperature slider; it proves widgets and Chinese glyphs work.

    The weights are softmax(scaled scores / temperature) of the course's example: `cat_example().weights`
    at temperature 1.

    controls: "temperature" (FloatLogSlider, 0.1 to 10). state: temperature, tokens, weights ([3, 3]),
    n_heatmaps, error.
    """
    return SetupCheckWidget(lang=lang)
