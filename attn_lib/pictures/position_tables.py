"""Position tables side by side (notebook 07): each table's first rows as a heatmap, and how alike its positions are.

A position table P holds one vector per position ([n_max, d_model]): the sinusoidal encoding, or a learned table
such as a trained model's. Two positions are alike when the cosine of their vectors is near 1.
"""

import numpy as np
from matplotlib.figure import Figure

from attn_lib._checks import as_float_array, check_positive_int
from attn_lib.i18n import t
from attn_lib.pictures.heatmaps import use_cjk_font


def plot_position_tables(tables, titles, n_positions=64, *, lang=None):
    """k tables [n_max, d] (d may differ) -> (Figure, cosines [k, n_positions, n_positions]).

    Column j of the figure is table j: on top its first `n_positions` rows as a heatmap (features down, positions
    across; the colour scale ends at the 99th percentile of |P|, so that one large row does not wash out the
    rest), below it the cosine of p_i and p_j for every pair of those positions. `cosines[j]` is that matrix.
    """
    use_cjk_font()
    check_positive_int(n_positions, "n_positions")
    if isinstance(titles, str) or len(titles) != len(tables) or not tables:
        raise ValueError(f"give one title per table: {len(tables)} tables, titles {titles!r:.80}")
    firsts = []
    for table, title in zip(tables, titles, strict=True):
        table = as_float_array(table, f"the table {title!r}", min_ndim=2)
        if table.ndim != 2 or table.shape[0] < n_positions:
            raise ValueError(f"the table {title!r} must be [n_max, d] with n_max >= {n_positions}, got {table.shape}")
        first = table[:n_positions].astype(np.float64)  # [n, d]
        if not np.all(np.linalg.norm(first, axis=-1) > 0):
            raise ValueError(f"the table {title!r} has a zero row: its cosine with another row is undefined")
        firsts.append(first)
    units = [p / np.linalg.norm(p, axis=-1, keepdims=True) for p in firsts]  # [n, d] each, rows of length 1
    cosines = np.stack([u @ u.T for u in units])  # [k, n, n]: cos(p_i, p_j)
    fig = Figure(figsize=(4.6 * len(firsts), 7.6), layout="constrained")
    axes = fig.subplots(2, len(firsts), squeeze=False)
    for j, (first, title) in enumerate(zip(firsts, titles, strict=True)):
        top, bottom = axes[0, j], axes[1, j]
        limit = float(np.quantile(np.abs(first), 0.99))
        image = top.imshow(first.T, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest")
        top.set(title=title, xlabel=t("positions.position", lang), ylabel=t("positions.feature", lang))
        fig.colorbar(image, ax=top)
        image = bottom.imshow(cosines[j], cmap="RdBu_r", vmin=-1, vmax=1, interpolation="nearest")
        bottom.set(
            title=t("positions.cosine_title", lang),
            xlabel=t("positions.position_j", lang),
            ylabel=t("positions.position_i", lang),
        )
        fig.colorbar(image, ax=bottom)
    return fig, cosines
