"""Pictures of the tiny model (attn_lib.tiny_model): where the blank looks, how that was learned, ablations.

Each function takes arrays (computed by attn_lib.tiny_training) and returns a matplotlib Figure.
"""

import numpy as np
from matplotlib.figure import Figure

from attn_lib._checks import _describe, as_float_array
from attn_lib.i18n import t
from attn_lib.plotting import use_cjk_font

TODAY_COLOR, YESTERDAY_COLOR, OTHER_COLOR = "#d95f02", "#7570b3", "#b3cde3"


def plot_blank_attention(weights, tokens, today=None, yesterday=None, *, title=None, lang=None):
    """[L, h, n] weights of the blank in one sentence -> a Figure: one bar chart per layer and head.

    `tokens` labels the n bars; the bars at positions `today` and `yesterday` (if given) are coloured.
    """
    use_cjk_font()
    weights = as_float_array(weights, "weights", min_ndim=3)
    if weights.ndim != 3:
        raise ValueError(f"weights must be [L, h, n] (layers, heads, positions), got shape {weights.shape}")
    n_layers, n_heads, n = weights.shape
    if tokens is None or isinstance(tokens, str) or not hasattr(tokens, "__len__"):
        raise TypeError(f"tokens must be a sequence of {n} token strings, got {_describe(tokens)}")
    tokens = [str(tok) for tok in tokens]
    if len(tokens) != n:
        raise ValueError(f"tokens has {len(tokens)} entries but weights has n={n} positions")
    colors = [OTHER_COLOR] * n
    for name, position, color in (("today", today, TODAY_COLOR), ("yesterday", yesterday, YESTERDAY_COLOR)):
        if position is not None:
            if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not 0 <= position < n:
                raise ValueError(f"{name}={position!r} must be a position between 0 and {n - 1}")
            colors[position] = color
    fig = Figure(figsize=(2.0 + 0.42 * n * n_heads, 1.0 + 1.9 * n_layers), layout="constrained")
    axes = fig.subplots(n_layers, n_heads, squeeze=False, sharey=True)
    for layer in range(n_layers):
        for head in range(n_heads):
            ax = axes[layer, head]
            ax.bar(range(n), weights[layer, head], color=colors)
            ax.set_ylim(0, 1)
            ax.set_xticks(range(n), tokens, fontsize=9, rotation=90 if max(map(len, tokens)) > 2 else 0)
            ax.set_title(t("tiny.layer_head", lang, layer=layer + 1, head=head + 1), fontsize=10)
        axes[layer, 0].set_ylabel(t("weight", lang))
    fig.suptitle(t("tiny.blank_attention_title", lang) if title is None else title)
    return fig


def plot_training(steps, loss, heldout_accuracy, checkpoint_steps, today_weight, yesterday_weight, *, lang=None):
    """Per evaluation: steps, loss, held-out accuracy [E]; per checkpoint: steps, weights [C] -> a Figure.

    Left: the training loss and the held-out accuracy. Right: the blank's average attention weight on
    the today-city and on the yesterday-city (one head) at each checkpoint.
    """
    use_cjk_font()
    steps, loss, accuracy = (
        as_float_array(a, name, min_ndim=1)
        for a, name in ((steps, "steps"), (loss, "loss"), (heldout_accuracy, "heldout_accuracy"))
    )
    ckpt, today, yesterday = (
        as_float_array(a, name, min_ndim=1)
        for a, name in (
            (checkpoint_steps, "checkpoint_steps"),
            (today_weight, "today_weight"),
            (yesterday_weight, "yesterday_weight"),
        )
    )
    if not len(steps) == len(loss) == len(accuracy) or not len(ckpt) == len(today) == len(yesterday):
        raise ValueError(
            f"lengths differ: steps {len(steps)}, loss {len(loss)}, heldout_accuracy {len(accuracy)};"
            f" checkpoint_steps {len(ckpt)}, today_weight {len(today)}, yesterday_weight {len(yesterday)}"
        )
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.plot(steps, loss, color="black", label=t("tiny.loss", lang))
    left.set_xlabel(t("tiny.step_axis", lang))
    left.set_ylabel(t("tiny.loss", lang))
    twin = left.twinx()
    twin.plot(steps, accuracy, color=TODAY_COLOR, marker="o", markersize=3, label=t("tiny.heldout_accuracy", lang))
    twin.set_ylim(0, 1.02)
    twin.set_ylabel(t("tiny.heldout_accuracy", lang))
    left.set_title(t("tiny.training_title", lang))
    right.plot(ckpt, today, color=TODAY_COLOR, marker="o", markersize=3, label=t("tiny.to_today", lang))
    right.plot(ckpt, yesterday, color=YESTERDAY_COLOR, marker="o", markersize=3, label=t("tiny.to_yesterday", lang))
    right.set_ylim(0, 1)
    right.set_xlabel(t("tiny.step_axis", lang))
    right.set_ylabel(t("weight", lang))
    right.set_title(t("tiny.attention_training_title", lang))
    right.legend(loc="upper left")
    return fig


def plot_ablation(full, without_today, without_yesterday, chance, *, lang=None):
    """Held-out accuracies (numbers in [0, 1]) -> a Figure: a bar chart with a dashed line at chance."""
    use_cjk_font()
    values = np.array([as_float_array(a, name) for a, name in ((full, "full"), (without_yesterday,
        "without_yesterday"), (without_today, "without_today"), (chance, "chance"))])  # fmt: skip
    values, chance = values[:3], float(values[3])
    if not np.all((values >= 0) & (values <= 1)) or not 0 <= chance <= 1:
        raise ValueError(f"accuracies and chance must lie in [0, 1], got {values.tolist()} and {chance}")
    labels = [t("tiny.nothing_hidden", lang), t("tiny.hide_yesterday", lang), t("tiny.hide_today", lang)]
    fig = Figure(figsize=(5.5, 3.2), layout="constrained")
    ax = fig.subplots()
    bars = ax.bar(labels, values, color=[OTHER_COLOR, YESTERDAY_COLOR, TODAY_COLOR])
    ax.bar_label(bars, fmt="%.2f")
    ax.axhline(chance, color="black", linestyle="--", linewidth=1)
    ax.text(-0.4, chance + 0.02, t("tiny.chance", lang), ha="left", va="bottom", fontsize=9)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel(t("tiny.heldout_accuracy", lang))
    ax.set_title(t("tiny.ablation_title", lang))
    return fig
