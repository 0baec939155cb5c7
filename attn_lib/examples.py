"""The article's data: its sentences, the 猫吃鱼 embeddings, its weight matrix and its d_model table."""

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

# --- the d_model table -----------------------------------------------------------------------------

#: The article's table: size class, d_model range it gives, and the models it names.
ARTICLE_D_MODEL_TABLE = (
    {"size": "small", "d_model": "768", "models": "BERT-Base, GPT-2 Small"},
    {"size": "medium", "d_model": "1024-1280", "models": "BERT-Large, GPT-2 Medium"},
    {"size": "large", "d_model": "1600-5120", "models": "GPT-3 (1.3B-13B), LLaMA-7B/13B"},
    {"size": "very large", "d_model": "6656-12288", "models": "LLaMA-65B, GPT-3 (175B)"},
)

#: Published configurations of real models: d_model, heads h, per-head d_k, layers.
#: Sources: each model's paper or released config. d_k * h = d_model for all but Gemma-7B,
#: whose heads are wider than d_model / h, and d_k is not always 64.
MODELS = (
    {"model": "Transformer-base", "d_model": 512, "n_heads": 8, "d_k": 64, "n_layers": 6},
    {"model": "BERT-Base", "d_model": 768, "n_heads": 12, "d_k": 64, "n_layers": 12},
    {"model": "GPT-2 Small", "d_model": 768, "n_heads": 12, "d_k": 64, "n_layers": 12},
    {"model": "BERT-Large", "d_model": 1024, "n_heads": 16, "d_k": 64, "n_layers": 24},
    {"model": "GPT-2 Medium", "d_model": 1024, "n_heads": 16, "d_k": 64, "n_layers": 24},
    {"model": "GPT-2 Large", "d_model": 1280, "n_heads": 20, "d_k": 64, "n_layers": 36},
    {"model": "GPT-2 XL", "d_model": 1600, "n_heads": 25, "d_k": 64, "n_layers": 48},
    {"model": "GPT-3 2.7B", "d_model": 2560, "n_heads": 32, "d_k": 80, "n_layers": 32},
    {"model": "GPT-3 6.7B", "d_model": 4096, "n_heads": 32, "d_k": 128, "n_layers": 32},
    {"model": "LLaMA-7B", "d_model": 4096, "n_heads": 32, "d_k": 128, "n_layers": 32},
    {"model": "GPT-J 6B", "d_model": 4096, "n_heads": 16, "d_k": 256, "n_layers": 28},
    {"model": "LLaMA-13B", "d_model": 5120, "n_heads": 40, "d_k": 128, "n_layers": 40},
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
