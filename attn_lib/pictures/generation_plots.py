"""Pictures of notebook 13's model that writes: next-token bar charts, what sampling does, training over seeds.

    plot_next_token(panels)                  bar charts of next-token distributions side by side (model, counts)
    plot_sampling_filters(logits, tokens)    one distribution under temperature, top-k and top-p, panel by panel
    plot_lm_training(runs)                   the training and validation loss of each seed, the checkpoint kept
    NextTokenBars                            the sampling widget's bar chart, repainted in a few milliseconds

Every function takes arrays (computed by attn_lib.models.generation, attn_lib.sampling, ...) and returns a
matplotlib Figure; the words come from attn_lib.i18n.
"""

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from attn_lib._checks import as_float_array, check_positive_int, describe_value
from attn_lib.i18n import t
from attn_lib.pictures.fast_figures import DPI, canvas_png, draw_titles
from attn_lib.pictures.heatmaps import use_cjk_font
from attn_lib.sampling import sampling_distribution

#: Colours of the bars: the most likely tokens of the first panel keep theirs in every panel.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")
OTHERS_COLOR, OUTLINE_COLOR = "#bdbdbd", "#525252"
#: The most bars `top` asks a panel for: each bar costs a label and a number, and top=1000 took 20 s and 300 MB.
MAX_BARS = 30


def _check_top(top, function):
    """`top` as an int from 1 to MAX_BARS, else a clear error that states the limit."""
    top = check_positive_int(top, "top")
    if top > MAX_BARS:
        raise ValueError(
            f"top={top} is too many bars: {function} draws at most {MAX_BARS} tokens a panel (the other tokens"
            f" share one grey bar); pass top <= {MAX_BARS}"
        )
    return top


def _distribution(tokens, probs, name):
    """(tokens [K], probs [K]) checked: as many of each, probabilities >= 0 that sum to 1."""
    if isinstance(tokens, str) or not hasattr(tokens, "__len__"):
        raise TypeError(f"{name} tokens must be a sequence of token strings, got {describe_value(tokens)}")
    probs = as_float_array(probs, f"{name} probabilities", min_ndim=1)
    if probs.ndim != 1 or len(probs) != len(tokens):
        raise ValueError(f"{name}: {len(tokens)} tokens but probabilities of shape {probs.shape}")
    if (probs < 0).any() or not np.isclose(probs.sum(), 1.0, atol=1e-6):
        raise ValueError(f"{name}: the probabilities must be >= 0 and sum to 1 (they sum to {probs.sum():.6g})")
    return tokens, probs  # a sequence: only the tokens shown are read (a model's vocabulary decodes them then)


def top_and_rest(tokens, probs, top):
    """-> (labels [<= top + 1], heights): the `top` most likely tokens, then "the other N" with the rest of the mass."""
    order = np.argsort(-probs, kind="stable")[:top]
    labels, heights = [str(tokens[i]) for i in order], [float(probs[i]) for i in order]
    if len(tokens) > len(order):
        labels.append(None)  # stands for the other tokens
        heights.append(float(max(0.0, 1.0 - sum(heights))))
    return labels, heights


def _colours(labels, known):
    """One colour per token label: the first panel's tokens keep their colour; None (the others) is grey."""
    for label in labels:
        if label is not None and label not in known:
            known[label] = PALETTE[len(known) % len(PALETTE)]
    return [OTHERS_COLOR if label is None else known[label] for label in labels]


def _bars(ax, labels, heights, colours, lang, n_rest):
    bars = ax.bar(range(len(labels)), heights, color=colours)
    ax.bar_label(bars, labels=[f"{h:.2f}" if h >= 0.005 else "" for h in heights], fontsize=9)  # no row of 0.00s
    names = [t("gen.others", lang, n=n_rest) if label is None else label for label in labels]
    ax.set_xticks(range(len(labels)), names, fontsize=9, rotation=30 if len(labels) > 5 else 0)
    ax.set_ylim(0, 1.12)


def plot_next_token(panels, *, top=5, title=None, lang=None):
    """[(panel title, tokens [K], probabilities [K])] -> a Figure: one bar chart per next-token distribution.

    Each panel shows its `top` most likely tokens (at most MAX_BARS = 30) and, when there are more, one grey
    bar for all the others together; a token has the same colour in every panel (the model beside notebook 01's
    counts).
    """
    use_cjk_font()
    if isinstance(panels, (str, dict)) or not hasattr(panels, "__len__") or not len(panels):
        raise TypeError(
            f"panels must be a non-empty list of (title, tokens, probabilities), got {describe_value(panels)}"
        )
    top = _check_top(top, "plot_next_token")
    fig = Figure(figsize=(0.4 + 3.3 * len(panels), 3.2), layout="constrained")
    axes = fig.subplots(1, len(panels), sharey=True, squeeze=False)[0]
    known = {}
    for ax, (name, tokens, probs) in zip(axes, panels, strict=True):
        tokens, probs = _distribution(tokens, probs, repr(name))
        labels, heights = top_and_rest(tokens, probs, top)
        shown = sum(label is not None for label in labels)
        _bars(ax, labels, heights, _colours(labels, known), lang, len(tokens) - shown)
        ax.set_title(name, fontsize=10)
        ax.set_xlabel(t("gen.next_token", lang))
    axes[0].set_ylabel(t("gen.probability", lang))
    if title:
        fig.suptitle(title)
    return fig


#: The settings `plot_sampling_filters` draws by default: (temperature, top_k, top_p).
FILTER_SETTINGS = ((1.0, None, None), (0.5, None, None), (2.0, None, None), (1.0, 3, None), (1.0, None, 0.9))


def setting_label(temperature, top_k, top_p, lang=None):
    """ "T = 0.5", "T = 1, top-k = 3", ...: one setting, in words."""
    parts = [t("gen.setting_t", lang, t=temperature)]
    parts += [t("gen.setting_k", lang, k=top_k)] if top_k is not None else []
    parts += [t("gen.setting_p", lang, p=top_p)] if top_p is not None else []
    return t("gen.setting_sep", lang).join(parts)


def plot_sampling_filters(logits, tokens, settings=FILTER_SETTINGS, *, top=4, title=None, lang=None):
    """logits [V], tokens [V] -> a Figure: the distribution drawn from under each (temperature, top_k, top_p).

    The bars stand for the same tokens in every panel: the `top` most likely at temperature 1 (at most
    MAX_BARS = 30), then the others that can be drawn together (a token whose logit is -inf is not counted
    among them). Each panel's outline is the distribution at T = 1, the filled bar what sampling with that
    setting draws from (attn_lib.sampling.sampling_distribution); a token filtered out keeps only its outline.
    """
    use_cjk_font()
    top = _check_top(top, "plot_sampling_filters")
    logits = as_float_array(logits, "logits", allow_neg_inf=True, min_ndim=1)
    tokens, base = _distribution(tokens, sampling_distribution(logits), "tokens")
    order = np.argsort(-base, kind="stable")[:top]
    rest = np.setdiff1d(np.arange(len(tokens)), order)
    rest = rest[np.isfinite(logits[rest])]  # "the other N" counts only tokens that can be drawn (-inf never is)
    labels = [str(tokens[i]) for i in order] + ([None] if len(rest) else [])

    def heights(probs):
        return [*probs[order], *([probs[rest].sum()] if len(rest) else [])]

    fig = Figure(figsize=(min(10.0, 0.4 + 1.95 * len(settings)), 3.4), layout="constrained")
    axes = fig.subplots(1, len(settings), sharey=True, squeeze=False)[0]
    colours = _colours(labels, {})
    for ax, (temperature, top_k, top_p) in zip(axes, settings, strict=True):
        probs = sampling_distribution(logits, temperature, top_k, top_p)
        _bars(ax, labels, heights(probs), colours, lang, len(rest))
        ax.bar(range(len(labels)), heights(base), fill=False, edgecolor=OUTLINE_COLOR, linewidth=0.8, linestyle="--")
        kept = int((probs > 0).sum())
        ax.set_title(setting_label(temperature, top_k, top_p, lang) + "\n" + t("gen.kept", lang, n=kept), fontsize=9)
        ax.tick_params(axis="x", labelrotation=90)
    axes[0].set_ylabel(t("gen.probability", lang))
    fig.suptitle(t("gen.filters_title", lang) if title is None else title, fontsize=11)
    return fig


def plot_lm_training(runs, *, lang=None):
    """Rows of attn_lib.models.lm_experiment (one per seed) -> a Figure: each seed's training and validation loss.

    The training loss is the mean over the minibatches since the previous evaluation; a dot marks the
    best validation checkpoint, the parameters `train` keeps.
    """
    use_cjk_font()
    if isinstance(runs, (str, dict)) or not hasattr(runs, "__len__") or not len(runs) or "history" not in runs[0]:
        raise TypeError(f"runs must be a non-empty list of rows with a 'history', got {describe_value(runs)}")
    fig = Figure(figsize=(7.0, 3.2), layout="constrained")
    ax = fig.subplots()
    for i, row in enumerate(runs):
        history = np.array([[step, np.nan if tr is None else tr, val] for step, tr, val in row["history"]], float)
        colour = PALETTE[i % len(PALETTE)]
        ax.plot(history[:, 0], history[:, 1], color=colour, linestyle="--", linewidth=1)
        ax.plot(history[:, 0], history[:, 2], color=colour, linewidth=1.5, label=t("gen.seed", lang, seed=row["seed"]))
        best = history[history[:, 0] == row["best_step"]][0]
        ax.plot(best[0], best[2], "o", color=colour, markersize=5)
    ax.set_yscale("log")
    ax.set_yticks([0.8, 1.0, 1.5, 2.0, 3.0, 5.0], ["0.8", "1", "1.5", "2", "3", "5"])
    ax.minorticks_off()
    ax.set_xlabel(t("tiny.step_axis", lang))
    ax.set_ylabel(t("gen.loss_axis", lang))
    ax.set_title(t("gen.training_title", lang), fontsize=10)
    ax.legend(fontsize=8, ncol=2, title=t("gen.training_legend", lang), title_fontsize=8)
    return fig


class NextTokenBars:
    """The sampling widget's picture: bars for `labels`, whose heights, numbers and two lines of text change.

    The frame (axes, token labels, the dashed outline of the distribution at T = 1) is drawn once;
    `render` repaints the filled bars, their numbers, the title and the written text (blitting), and
    returns PNG bytes.
    """

    def __init__(self, labels, outline, lang=None, n_rest=0, dpi=DPI, rotation=0):
        """rotation: the token labels' angle in degrees (the explorer's ten bars need room: 30)."""
        use_cjk_font()
        fig = Figure(figsize=(7.2, 3.9))
        fig.set_dpi(dpi)
        ax = fig.add_axes((0.09, 0.3, 0.88, 0.56))
        n = len(labels)
        colours = _colours(labels, {})
        self.bars = ax.bar(range(n), np.zeros(n), color=colours)
        ax.bar(range(n), outline, fill=False, edgecolor=OUTLINE_COLOR, linewidth=0.8, linestyle="--")
        names = [t("gen.others", lang, n=n_rest) if label is None else label for label in labels]
        ax.set_xticks(range(n), names, fontsize=9, rotation=rotation, ha="right" if rotation else "center",
                      rotation_mode="anchor")  # fmt: skip
        ax.set_ylim(0, 1.15)
        ax.set_ylabel(t("gen.probability", lang))
        self.numbers = [ax.text(i, 0.0, "", ha="center", va="bottom", fontsize=8) for i in range(n)]
        self.texts = [fig.text(0.5, 0.95, "-", ha="center", va="top", fontsize=10),
                      fig.text(0.03, 0.06, "-", ha="left", va="center", fontsize=10)]  # fmt: skip
        self.fig, self.canvas = fig, FigureCanvasAgg(fig)
        for artist in [*self.bars, *self.numbers, *self.texts]:
            artist.set_animated(True)
        self.canvas.draw()
        self.background = self.canvas.copy_from_bbox(fig.bbox)
        self.n_heatmaps = 0

    def render(self, matrices, titles):
        """Repaint the bars with matrices[0] (heights [n]) and the texts with titles (the title, the written line).

        -> PNG bytes. (The arguments of attn_lib.pictures.fast_figures.FastFigure.render, which the widget
        shell calls.)
        """
        (heights,) = matrices
        self.canvas.restore_region(self.background)
        for bar, number, height in zip(self.bars, self.numbers, heights, strict=True):
            bar.set_height(height)
            number.set_position((bar.get_x() + bar.get_width() / 2, height + 0.01))
            number.set_text(f"{height:.2f}" if height > 0 else "0")
            self.fig.draw_artist(bar)
            self.fig.draw_artist(number)
        draw_titles(self.fig, self.texts, titles)
        return canvas_png(self.canvas)
