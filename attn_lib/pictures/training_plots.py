"""Pictures of the tiny model (attn_lib.models.tiny_model): where the blank looks, how that was learned, ablations,
and the experiment over seeds (attn_lib.models.tiny_experiment).

Each function takes arrays or rows (computed by attn_lib.models.tiny_training / tiny_experiment) and returns a
matplotlib Figure.
"""

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from attn_lib._checks import as_float_array, describe_value
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import use_cjk_font

TODAY_COLOR, YESTERDAY_COLOR, OTHER_COLOR = "#d95f02", "#7570b3", "#b3cde3"
ACCURACY_COLOR = "#1b9e77"  # the validation accuracy: not the today-city's orange, which the attention panels use


def plot_blank_attention(weights, tokens, today=None, yesterday=None, *, title=None, lang=None):
    """[L, h, n] weights of the blank in one sentence -> a Figure: one bar chart per layer and head.

    `tokens` labels the n bars; the bars at positions `today` and `yesterday` (if given) are coloured,
    and a legend says which colour is which.
    """
    use_cjk_font()
    weights = as_float_array(weights, "weights", min_ndim=3)
    if weights.ndim != 3:
        raise ValueError(f"weights must be [L, h, n] (layers, heads, positions), got shape {weights.shape}")
    n_layers, n_heads, n = weights.shape
    if tokens is None or isinstance(tokens, str) or not hasattr(tokens, "__len__"):
        raise TypeError(f"tokens must be a sequence of {n} token strings, got {describe_value(tokens)}")
    tokens = [str(tok) for tok in tokens]
    if len(tokens) != n:
        raise ValueError(f"tokens has {len(tokens)} entries but weights has n={n} positions")
    colors = [OTHER_COLOR] * n
    legend = []
    for name, position, color in (("today", today, TODAY_COLOR), ("yesterday", yesterday, YESTERDAY_COLOR)):
        if position is not None:
            if isinstance(position, bool) or not isinstance(position, (int, np.integer)) or not 0 <= position < n:
                raise ValueError(f"{name}={position!r} must be a position between 0 and {n - 1}")
            colors[position] = color
            legend.append(Patch(color=color, label=t(f"tiny.legend_{name}", lang)))
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
    if legend:  # the colours carry meaning: say which
        legend.append(Patch(color=OTHER_COLOR, label=t("tiny.legend_other", lang)))
        fig.legend(handles=legend, loc="outside lower center", ncol=len(legend), fontsize=9)
    return fig


def plot_training(steps, loss, validation_accuracy, checkpoint_steps, today_weight, yesterday_weight, *, lang=None):
    """Per evaluation: steps, loss, validation accuracy [E]; per checkpoint: steps, weights [C] -> a Figure.

    Left: the training loss and the validation accuracy. Right: the blank's average attention weight on
    the today-city and on the yesterday-city (one head) at each checkpoint. Each panel has a legend.
    """
    use_cjk_font()
    steps, loss, accuracy = (
        as_float_array(a, name, min_ndim=1)
        for a, name in ((steps, "steps"), (loss, "loss"), (validation_accuracy, "validation_accuracy"))
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
            f"lengths differ: steps {len(steps)}, loss {len(loss)}, validation_accuracy {len(accuracy)};"
            f" checkpoint_steps {len(ckpt)}, today_weight {len(today)}, yesterday_weight {len(yesterday)}"
        )
    fig = Figure(figsize=(10, 3.4), layout="constrained")
    left, right = fig.subplots(1, 2)
    left.semilogy(steps, np.maximum(loss, 1e-8), color="black", label=t("tiny.loss", lang))  # as plot_progress
    left.set_xlabel(t("tiny.step_axis", lang))
    left.set_ylabel(t("tiny.loss", lang))
    twin = left.twinx()
    twin.plot(
        steps, accuracy, color=ACCURACY_COLOR, marker="o", markersize=3, label=t("tiny.validation_accuracy", lang)
    )
    twin.set_ylim(0, 1.02)
    twin.set_ylabel(t("tiny.validation_accuracy", lang), color=ACCURACY_COLOR)
    left.set_title(t("tiny.training_title", lang))
    left.legend(handles=left.get_lines() + twin.get_lines(), loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    right.plot(ckpt, today, color=TODAY_COLOR, marker="o", markersize=3, label=t("tiny.to_today", lang))
    right.plot(ckpt, yesterday, color=YESTERDAY_COLOR, marker="o", markersize=3, label=t("tiny.to_yesterday", lang))
    right.set_ylim(0, 1)
    right.set_xlabel(t("tiny.step_axis", lang))
    right.set_ylabel(t("weight", lang))
    right.set_title(t("tiny.attention_training_title", lang))
    right.legend(loc="upper left")
    return fig


def plot_ablation(full, without_today, without_yesterday, chance, *, lang=None):
    """Test accuracies (numbers in [0, 1]) -> a Figure: a bar chart with a dashed line at chance."""
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
    for bar, value in zip(bars, values, strict=True):  # a value near the chance line goes above the line's label
        top = value if value > chance + 0.08 else chance + 0.07
        ax.text(bar.get_x() + bar.get_width() / 2, top + 0.01, f"{value:.3f}", ha="center", va="bottom")
    ax.axhline(chance, color="black", linestyle="--", linewidth=1)
    label = t("tiny.chance_value", lang, chance=chance)
    ax.text(2.4, chance + 0.01, label, ha="right", va="bottom", fontsize=9, gid="chance_label")
    ax.set_ylim(0, 1.1)
    ax.set_ylabel(t("tiny.test_accuracy", lang))
    ax.set_title(t("tiny.ablation_title", lang))
    return fig


def plot_progress(steps, loss, eval_steps, validation_accuracy, max_steps, target=None, done=False, *, lang=None):
    """Training so far -> a Figure: the loss at every step [S] (log scale) and the validation accuracy [E].

    The title says how far training is (step of at most `max_steps`) or, once `done`, where it stopped;
    `target` (if given) is drawn as a dashed line on the accuracy axis; a legend names the lines.
    """
    use_cjk_font()
    steps, loss = as_float_array(steps, "steps", min_ndim=1), as_float_array(loss, "loss", min_ndim=1)
    eval_steps = as_float_array(eval_steps, "eval_steps", min_ndim=1)
    accuracy = as_float_array(validation_accuracy, "validation_accuracy", min_ndim=1)
    if len(steps) != len(loss) or len(eval_steps) != len(accuracy) or not len(steps):
        raise ValueError(
            f"lengths differ or are empty: steps {len(steps)}, loss {len(loss)};"
            f" eval_steps {len(eval_steps)}, validation_accuracy {len(accuracy)}"
        )
    fig = Figure(figsize=(6.4, 2.8), layout="constrained")
    ax = fig.subplots()
    ax.semilogy(steps, np.maximum(loss, 1e-8), color="black", label=t("tiny.loss", lang))
    ax.set_xlabel(t("tiny.step_axis", lang))
    ax.set_ylabel(t("tiny.loss", lang))
    ax.set_xlim(0, max(10.0, steps[-1]) * 1.05)
    twin = ax.twinx()
    twin.plot(
        eval_steps, accuracy, color=ACCURACY_COLOR, marker="o", markersize=3, label=t("tiny.validation_accuracy", lang)
    )
    if target is not None:
        target = float(target)
        twin.axhline(
            target,
            color=ACCURACY_COLOR,
            linestyle="--",
            linewidth=1,
            label=t("tiny.legend_target", lang, target=target),
        )
    twin.set_ylim(0, 1.02)
    twin.set_ylabel(t("tiny.validation_accuracy", lang), color=ACCURACY_COLOR)
    ax.legend(
        handles=ax.get_lines() + twin.get_lines(), loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=3, fontsize=8
    )
    step, last = int(steps[-1]), float(accuracy[-1]) if len(accuracy) else 0.0
    if done:
        ax.set_title(t("tiny.progress_done", lang, steps=step, accuracy=last))
    else:
        ax.set_title(t("tiny.progress_title", lang, step=step, max_steps=int(max_steps), accuracy=last))
    return fig


def _rows(runs, name="runs"):
    if isinstance(runs, (str, dict)) or not hasattr(runs, "__len__") or not len(runs):
        raise TypeError(
            f"{name} must be a non-empty list of rows from attn_lib.models.tiny_experiment, got {describe_value(runs)}"
        )
    missing = [key for key in ("seed", "test_accuracy", "today_weight", "history") if key not in runs[0]]
    if missing:
        raise ValueError(f"{name}[0] is not a row of attn_lib.models.tiny_experiment.measure: no {missing}")
    return list(runs)


def plot_seeds(runs, chance, *, layer=2, lang=None):
    """Rows of `tiny_experiment.measure`, one per seed -> a Figure: what is stable across seeds and what is not.

    Left: test accuracy, and test accuracy with the today-city hidden, per seed (dashed: chance).
    Right: each head of `layer`'s average weight on the today-city and on the yesterday-city, per seed.
    """
    use_cjk_font()
    runs = _rows(runs)
    seeds = np.array([row["seed"] for row in runs])
    x = np.arange(len(runs))
    fig = Figure(figsize=(10, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2, sharex=True)
    full, hidden = [row["test_accuracy"] for row in runs], [row["hidden"]["today"] for row in runs]
    left.bar(x - 0.2, full, 0.4, color=OTHER_COLOR, label=t("tiny.nothing_hidden", lang))
    left.bar(x + 0.2, hidden, 0.4, color=TODAY_COLOR, label=t("tiny.hide_today", lang))
    left.axhline(float(chance), color="black", linestyle="--", linewidth=1, label=t("tiny.chance", lang))
    left.set_ylim(0, 1.25)  # room for the legend above the bars
    left.set_yticks(np.linspace(0, 1, 6))
    left.set_ylabel(t("tiny.test_accuracy", lang))
    left.set_title(t("tiny.seeds_accuracy_title", lang))
    left.legend(loc="upper center", ncol=3, fontsize=8)
    today = np.array([row["today_weight"][layer - 1] for row in runs])  # [S, h]
    yesterday = np.array([row["yesterday_weight"][layer - 1] for row in runs])  # [S, h]
    markers = "os^vD"
    for head in range(today.shape[1]):
        marker = markers[head % len(markers)]
        right.scatter(x, today[:, head], color=TODAY_COLOR, marker=marker,
                      label=t("tiny.head_on_today", lang, head=head + 1))  # fmt: skip
        right.scatter(x, yesterday[:, head], color=YESTERDAY_COLOR, marker=marker,
                      label=t("tiny.head_on_yesterday", lang, head=head + 1))  # fmt: skip
    right.set_ylim(-0.03, 1.3)  # room for the legend above the points
    right.set_yticks(np.linspace(0, 1, 6))
    right.set_ylabel(t("weight", lang))
    right.set_title(t("tiny.seeds_attention_title", lang, layer=layer))
    right.legend(loc="upper center", ncol=2, fontsize=8)
    for ax in (left, right):
        ax.set_xticks(x, [str(seed) for seed in seeds])
        ax.set_xlabel(t("tiny.seed_axis", lang))
    return fig


def plot_weight_decay(with_decay, without_decay, target, *, lang=None):
    """Rows of the same seeds trained with and without weight decay -> a Figure of their training histories.

    Left: validation accuracy by step (dashed: the target that stops training). Right: the training loss.
    """
    use_cjk_font()
    groups = ((_rows(with_decay, "with_decay"), TODAY_COLOR, "tiny.with_decay"),
              (_rows(without_decay, "without_decay"), "#555555", "tiny.without_decay"))  # fmt: skip
    fig = Figure(figsize=(10, 3.3), layout="constrained")
    left, right = fig.subplots(1, 2, sharex=True)
    for runs, color, key in groups:
        for i, row in enumerate(runs):
            history = np.array(row["history"], dtype=float)  # [E, 3]: step, loss, validation accuracy
            label = t(key, lang, weight_decay=row["weight_decay"]) if i == 0 else None
            left.plot(history[:, 0], history[:, 2], color=color, linewidth=1, alpha=0.8, label=label)
            right.semilogy(history[:, 0], np.maximum(history[:, 1], 1e-8), color=color, linewidth=1, alpha=0.8)
    left.axhline(float(target), color="black", linestyle="--", linewidth=1)
    left.set_ylim(0.9, 1.003)
    left.set_ylabel(t("tiny.validation_accuracy", lang))
    left.set_title(t("tiny.decay_accuracy_title", lang, target=target))
    left.legend(loc="lower right", fontsize=8)
    right.set_ylabel(t("tiny.loss", lang))
    right.set_title(t("tiny.decay_loss_title", lang))
    for ax in (left, right):
        ax.set_xlabel(t("tiny.step_axis", lang))
    return fig
