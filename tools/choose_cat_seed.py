"""Find the seed of the running 猫吃鱼 example (attn_lib.examples.CAT_SEED). Maintainer tool, not run by CI.

The example projects the article's embeddings standardised over the tokens (`examples.CAT_INPUTS`). That,
not the seed, is what keeps the rows' largest weights off a single key at every d_k the d_k widget offers:
the columns of the standardised X sum to 0, so every column of Q Kᵀ sums to 0 for any projection
(this script checks it for every seed it tries, scaled and unscaled). The seed only makes the picture at
d_k = 2 (no mask) easy to read. This script tries seeds from 0 up and prints the first whose weights have

- a clear winner in every row: its largest weight at least 0.08 above its second;
- no weight above 0.8: every row a blend, not a one-hot row;
- two rows at least 0.3 apart (L1 distance);
- at most one row whose largest weight is on the token itself — a choice, so that the picture does not
  suggest that tokens attend most to themselves (notebook 05 counts that over 1,000 random heads);

and how many of the first 1,000 seeds meet the same criteria (how special the choice is). A few seconds.

    python tools/choose_cat_seed.py
"""

import numpy as np

from attn_lib.examples import CAT_D_K, CAT_D_KS, CAT_INPUTS, cat_weights, largest_row_distance, rows_share_top_key


def readable(weights):
    """Whether a [3, 3] matrix of weights makes the readable picture described above."""
    ranked = np.sort(weights, axis=-1)  # [3, 3], each row ascending
    best = weights.argmax(axis=-1)  # [3]
    return bool(
        (ranked[:, -1] - ranked[:, -2]).min() >= 0.08
        and weights.max() <= 0.8
        and largest_row_distance(weights) >= 0.3
        and (best == np.arange(len(best))).sum() <= 1
    )


def main(n_seeds=1000):
    seeds = range(n_seeds)
    at_2 = cat_weights(CAT_INPUTS, seeds, d_ks=(CAT_D_K,))[0]  # [seeds, 3, 3]
    for scale in (True, False):  # the property the standardising guarantees, for every seed and d_k
        shared = rows_share_top_key(cat_weights(CAT_INPUTS, seeds, scale=scale))  # [d_ks, seeds]
        assert not shared.any(), f"scale={scale}: some seed puts every row's largest weight on one key"
    chosen = [seed for seed in seeds if readable(at_2[seed])]
    print(f"every seed 0-{n_seeds - 1}, every d_k in {CAT_D_KS}: the rows' largest weights never all on one key")
    print(f"CAT_SEED = {chosen[0]}  ({len(chosen)} of the first {n_seeds} seeds make a readable picture)")


if __name__ == "__main__":
    main()
