"""The article's data (its sentences, the 猫吃鱼 embeddings, its weight matrix, its d_model table), and
the course's one running 猫吃鱼 example computed from it (`cat_example`).
"""

from dataclasses import dataclass

import numpy as np

from attn_lib.core import causal_mask, scaled_dot_product_attention, softmax

# --- sentences ------------------------------------------------------------------------------------

#: The next-token example: after 今天天气 a model should offer 很好 / 不错 / 真热.
WEATHER_PROMPT = "今天天气"
WEATHER_CONTINUATIONS = ("很好", "不错", "真热")

#: The long-range example: the dish at the blank depends on 上海, far back, not on 北京.
SHANGHAI_SENTENCE = "我昨天在北京吃了烤鸭，今天在上海吃了"
SHANGHAI_TOKENS = ("我", "昨天", "在", "北京", "吃了", "烤鸭", "，", "今天", "在", "上海", "吃了")

#: The multi-head example (English in the article too).
ANIMAL_SENTENCE = "The animal didn't cross the street because it was too tired"
ANIMAL_TOKENS = ("The", "animal", "didn't", "cross", "the", "street", "because", "it", "was", "too", "tired")

# --- 猫吃鱼: the worked example -----------------------------------------------------------------

CAT_TOKENS = ("猫", "吃", "鱼")

#: The article's 4-dimensional embeddings, one row per token (so X is [3, 4]).
CAT_EMBEDDINGS = (
    (0.1, 0.2, 0.3, 0.4),  # 猫
    (0.5, 0.6, 0.7, 0.8),  # 吃
    (0.2, 0.3, 0.1, 0.5),  # 鱼
)

#: The article's illustrative attention weights for 猫吃鱼. Rows sum to 1, but there is no causal
#: mask: row 1 (猫) puts 0.5 on 鱼, a future token that a next-token model may not see.
ARTICLE_CAT_WEIGHTS = (
    (0.2, 0.3, 0.5),
    (0.1, 0.6, 0.3),
    (0.3, 0.5, 0.2),
)

# --- 猫吃鱼: the course's one running example ----------------------------------------------------


def standardise_embeddings(x):
    """[n, d] -> [n, d]: each component minus its mean over the n tokens, then every entry divided by one
    standard deviation (of all n * d centred entries): mean 0 down every column, variance 1 overall.

    What all tokens share is removed and every difference between two tokens is kept (only rescaled). Not
    LayerNorm, which standardises each token on its own: the article's 吃 is 猫 + 0.4 in every component, and
    LayerNorm maps the two to the same vector.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or len(x) < 2 or not np.isfinite(x).all():
        raise ValueError(f"x must be a finite 2-D array [n, d] with at least 2 rows, got shape {x.shape}")
    centred = x - x.mean(axis=0)  # [n, d]: every column sums to 0
    spread = centred.std()
    if spread == 0:
        raise ValueError("x has identical rows: there is no difference between the tokens to standardise")
    return centred / spread


#: The input of the running example: the article's embeddings, standardised over the three tokens
#: (`standardise_embeddings`). The article's rows all point the same way (every entry positive, cosines
#: 0.91-0.97) and differ mostly in length, so with the raw X about three random projections in four put every
#: row's largest weight on one key, at every d_k of the slider (notebook 04 counts it). Centred, the columns
#: of X sum to 0, so every column of Q Kᵀ sums to 0 for any W_Q, W_K and any d_k: one key cannot be every
#: row's largest unless every score is 0.
CAT_INPUTS = tuple(tuple(float(v) for v in row) for row in standardise_embeddings(CAT_EMBEDDINGS))

#: The d_k values of the d_k slider of notebook 04 (log-spaced); the running example is asked to hold at each.
CAT_D_KS = tuple(2**i for i in range(10))  # 1, 2, 4, ..., 512

#: The widest projection drawn: W_Q is the first d_k columns of a seeded [4, CAT_MAX_D_K] matrix, so a
#: larger d_k (the d_k slider of notebook 04) adds columns to the same example instead of replacing it.
CAT_MAX_D_K = CAT_D_KS[-1]

#: The key size of the running example, as in the article.
CAT_D_K = 2

#: The seed of the projections W_Q, W_K, W_V of the running example (see `cat_projections`): a choice, made
#: by tools/choose_cat_seed.py for a readable picture at d_k = 2 (no mask) — the first seed from 0 up
#: whose weights have a clear winner in every row (largest weight at least 0.08 above the second), no
#: weight above 0.8 (a blend, not a one-hot row), rows at least 0.3 apart (L1), and at most one row whose
#: largest weight is on the token itself (so that the picture does not suggest that tokens attend most to
#: themselves; notebook 05 counts that over 1,000 random heads instead). Here 猫 -> 吃, 吃 -> 鱼, 鱼 -> 猫:
#: no row on itself. 152 of the first 1,000 seeds meet the same criteria.
CAT_SEED = 0


def cat_projections(d_k=CAT_D_K, d_v=None, seed=CAT_SEED):
    """-> (W_Q [4, d_k], W_K [4, d_k], W_V [4, d_v]): the running example's projections, N(0, 1/4) entries.

    The variance 1/d_model (d_model = 4) is the usual initialisation (`init_multi_head_weights` uses it too):
    inputs of variance 1 give queries and keys whose components have variance about 1. Column j of each
    matrix is the same for every d_k (the first d_k columns of one seeded draw).
    """
    d_v = d_k if d_v is None else d_v
    for name, size in (("d_k", d_k), ("d_v", d_v)):
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or not 1 <= size <= CAT_MAX_D_K:
            raise ValueError(f"{name} must be an integer from 1 to {CAT_MAX_D_K}, got {size!r}")
    d_model = len(CAT_EMBEDDINGS[0])
    draw = np.random.default_rng(seed).standard_normal((3, d_model, CAT_MAX_D_K)) / np.sqrt(d_model)
    w_q, w_k, w_v = draw  # [4, 512] each
    return w_q[:, :d_k], w_k[:, :d_k], w_v[:, :d_v]  # [4, 512] -> [4, d_k], [4, d_k], [4, d_v]


@dataclass(frozen=True)
class CatExample:
    """Every matrix of the 猫吃鱼 worked example, from the article's embeddings to the output."""

    tokens: tuple  # ("猫", "吃", "鱼")
    x_article: np.ndarray  # [3, 4] the article's embeddings
    x: np.ndarray  # [3, 4] the input that is projected: x_article standardised over the tokens (CAT_INPUTS)
    w_q: np.ndarray  # [4, d_k]
    w_k: np.ndarray  # [4, d_k]
    w_v: np.ndarray  # [4, d_v]
    q: np.ndarray  # [3, d_k] = x @ w_q
    k: np.ndarray  # [3, d_k] = x @ w_k
    v: np.ndarray  # [3, d_v] = x @ w_v
    scores: np.ndarray  # [3, 3] = q @ k.T
    scaled_scores: np.ndarray  # [3, 3] = scores / sqrt(d_k)
    mask: np.ndarray  # bool [3, 3], True = may attend (all True without the causal mask)
    weights: np.ndarray  # [3, 3] = softmax(scaled scores, -inf where masked), rows sum to 1
    output: np.ndarray  # [3, d_v] = weights @ v


def cat_example(d_k=CAT_D_K, causal=False, d_v=None):
    """The course's one 猫吃鱼 example: the article's X standardised (`CAT_INPUTS`), W_Q, W_K, W_V from
    `cat_projections`.

    ``causal=True`` applies the causal mask (notebook 05); every notebook and widget that shows 猫吃鱼
    draws these weights, so the learner meets one matrix throughout.
    """
    x = np.array(CAT_INPUTS)  # [3, 4]
    w_q, w_k, w_v = cat_projections(d_k, d_v)
    q, k, v = x @ w_q, x @ w_k, x @ w_v  # [3, 4] x [4, d] -> [3, d]
    n = len(CAT_TOKENS)
    mask = causal_mask(n) if causal else np.ones((n, n), dtype=bool)
    output, weights = scaled_dot_product_attention(q, k, v, mask=mask)  # [3, d_v], [3, 3]
    scores = q @ k.T  # [3, d_k] x [d_k, 3] -> [3, 3]
    article = np.array(CAT_EMBEDDINGS)
    scaled = scores / np.sqrt(d_k)
    return CatExample(CAT_TOKENS, article, x, w_q, w_k, w_v, q, k, v, scores, scaled, mask, weights, output)


def row_cosines(x):
    """[n, d] -> [n, n]: the cosine of the angle between every two rows (1 = same direction)."""
    x = np.asarray(x, dtype=float)
    if x.ndim != 2 or not np.isfinite(x).all():
        raise ValueError(f"x must be a finite 2-D array [n, d], got shape {x.shape}")
    norms = np.linalg.norm(x, axis=-1, keepdims=True)  # [n, 1]
    if (norms == 0).any():
        raise ValueError("x has a row of zeros, whose direction (and cosine) is undefined")
    unit = x / norms  # [n, d]
    return unit @ unit.T  # [n, d] x [d, n] -> [n, n]


def largest_row_distance(weights):
    """[n_q, n_k] -> the largest L1 distance between two rows: 0 when all rows are equal, at most 2."""
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or len(weights) < 2:
        raise ValueError(f"weights must be a 2-D array with at least 2 rows, got shape {weights.shape}")
    return float(np.abs(weights[:, None, :] - weights[None, :, :]).sum(axis=-1).max())  # [n, n, n_k] -> max


def cat_weights(x, seeds, d_ks=CAT_D_KS, scale=True):
    """-> [len(d_ks), len(seeds), n, n]: softmax(Q Kᵀ (/ √d_k)) of x [n, 4] for each seed's `cat_projections`.

    One draw per seed; d_k takes its first d_k columns, as the d_k widget does.
    """
    x = np.asarray(x, dtype=float)  # [n, 4]
    w = np.array([cat_projections(CAT_MAX_D_K, seed=seed)[:2] for seed in seeds])  # [seeds, 2, 4, 512]
    q, k = x @ w[:, 0], x @ w[:, 1]  # [n, 4] x [seeds, 4, 512] -> [seeds, n, 512] each
    scores = [q[..., :d] @ np.swapaxes(k[..., :d], -1, -2) / (np.sqrt(d) if scale else 1.0) for d in d_ks]
    return softmax(np.array(scores))  # [d_ks, seeds, n, n]


def rows_share_top_key(weights):
    """[..., n_q, n_k] -> bool [...]: whether every row puts its largest weight on the same key."""
    top = np.asarray(weights).argmax(axis=-1)  # [..., n_q]
    return (top == top[..., :1]).all(axis=-1)


def projection_spreads(seeds=range(1000), d_k=CAT_D_K, x=CAT_INPUTS):
    """-> [len(seeds)]: `largest_row_distance` of the 猫吃鱼 weights (of x, default the running example's input)
    for each seed's `cat_projections` at d_k.

    With the article's raw embeddings (nearly parallel rows) most seeds give three nearly identical rows.
    """
    return np.array([largest_row_distance(w) for w in cat_weights(x, seeds, d_ks=(d_k,))[0]])


# --- the d_model table -----------------------------------------------------------------------------

#: The article's table: size class (its words 小型模型 ... are i18n's "d_model_table.<size>"), the d_model
#: range it gives, the models it names as written, and those models' names in `MODELS` ("named").
ARTICLE_D_MODEL_TABLE = (
    {"size": "small", "d_model": "768", "models": "BERT-Base, GPT-2 Small", "named": ("BERT-Base", "GPT-2 Small")},
    {
        "size": "medium",
        "d_model": "1024-1280",
        "models": "BERT-Large, GPT-2 Medium",
        "named": ("BERT-Large", "GPT-2 Medium"),
    },
    {
        "size": "large",
        "d_model": "1600-5120",
        "models": "GPT-3 (1.3B-13B), LLaMA-7B/13B",
        "named": ("GPT-3 1.3B", "GPT-3 2.7B", "GPT-3 6.7B", "GPT-3 13B", "LLaMA-7B", "LLaMA-13B"),
    },
    {
        "size": "very large",
        "d_model": "6656-12288",
        "models": "LLaMA-65B, GPT-3 (175B)",
        "named": ("LLaMA-65B", "GPT-3 175B"),
    },
)

#: Published configurations of real models: d_model, heads h, per-head d_k, layers.
#: Sources: each model's paper or released config; the GPT-3 models as printed in Table 2.1 of the
#: GPT-3 paper (Brown et al. 2020). d_k * h = d_model for all but three: Gemma-7B, whose heads are
#: wider than d_model / h, and GPT-3 1.3B (24 x 128 = 3072, d_model 2048) and 13B (40 x 128 = 5120,
#: d_model 5140), whose d_model is not even divisible by h. And d_k is not always 64.
MODELS = (
    {"model": "Transformer-base", "d_model": 512, "n_heads": 8, "d_k": 64, "n_layers": 6},
    {"model": "BERT-Base", "d_model": 768, "n_heads": 12, "d_k": 64, "n_layers": 12},
    {"model": "GPT-2 Small", "d_model": 768, "n_heads": 12, "d_k": 64, "n_layers": 12},
    {"model": "BERT-Large", "d_model": 1024, "n_heads": 16, "d_k": 64, "n_layers": 24},
    {"model": "GPT-2 Medium", "d_model": 1024, "n_heads": 16, "d_k": 64, "n_layers": 24},
    {"model": "GPT-2 Large", "d_model": 1280, "n_heads": 20, "d_k": 64, "n_layers": 36},
    {"model": "GPT-2 XL", "d_model": 1600, "n_heads": 25, "d_k": 64, "n_layers": 48},
    {"model": "GPT-3 1.3B", "d_model": 2048, "n_heads": 24, "d_k": 128, "n_layers": 24},
    {"model": "GPT-3 2.7B", "d_model": 2560, "n_heads": 32, "d_k": 80, "n_layers": 32},
    {"model": "GPT-3 6.7B", "d_model": 4096, "n_heads": 32, "d_k": 128, "n_layers": 32},
    {"model": "LLaMA-7B", "d_model": 4096, "n_heads": 32, "d_k": 128, "n_layers": 32},
    {"model": "GPT-J 6B", "d_model": 4096, "n_heads": 16, "d_k": 256, "n_layers": 28},
    {"model": "LLaMA-13B", "d_model": 5120, "n_heads": 40, "d_k": 128, "n_layers": 40},
    {"model": "GPT-3 13B", "d_model": 5140, "n_heads": 40, "d_k": 128, "n_layers": 40},
    {"model": "GPT-NeoX-20B", "d_model": 6144, "n_heads": 64, "d_k": 96, "n_layers": 44},
    {"model": "LLaMA-33B", "d_model": 6656, "n_heads": 52, "d_k": 128, "n_layers": 60},
    {"model": "LLaMA-65B", "d_model": 8192, "n_heads": 64, "d_k": 128, "n_layers": 80},
    {"model": "GPT-3 175B", "d_model": 12288, "n_heads": 96, "d_k": 128, "n_layers": 96},
    # exceptions to the article's rules of thumb
    {"model": "all-MiniLM-L6-v2", "d_model": 384, "n_heads": 12, "d_k": 32, "n_layers": 6},
    {"model": "TinyBERT-4L-312D", "d_model": 312, "n_heads": 12, "d_k": 26, "n_layers": 4},
    {"model": "Gemma-7B", "d_model": 3072, "n_heads": 16, "d_k": 256, "n_layers": 28},
)

# --- a tiny corpus for counting next tokens (notebook 01) ------------------------------------------

#: Pre-segmented sentences (tokens separated by spaces), each with how often it occurs.
#: Made for the course: the weather lines give 今天天气 -> 很好 / 不错 / 真热, and the food lines
#: show that "吃了" alone does not tell which city's dish comes next (nor does "朋友 吃了" when the city
#: is further back).
TINY_CORPUS = (
    ("今天 天气 很好", 5),
    ("今天 天气 不错", 3),
    ("今天 天气 真热", 2),
    ("昨天 天气 不错", 2),
    ("明天 天气 很好", 1),
    ("我 在 北京 吃了 烤鸭", 4),
    ("我 在 上海 吃了 小笼包", 4),
    ("我 在 成都 吃了 火锅", 3),
    ("我 在 西安 吃了 肉夹馍", 2),
    ("我 在 武汉 吃了 热干面", 2),
    # the city two words further back: now even a trigram ("朋友 吃了") cannot see it
    ("我 在 北京 和 朋友 吃了 烤鸭", 2),
    ("我 在 上海 和 朋友 吃了 小笼包", 2),
    ("我 在 成都 和 朋友 吃了 火锅", 1),
)
