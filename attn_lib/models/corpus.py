"""A synthetic corpus of the article's sentence, 我昨天在北京吃了烤鸭，今天在上海吃了_, in many variations.

Every sentence names two cities: the one where "I" was yesterday and the one where "I" am today,
and it ends at the blank, right after 吃了, where the dish of the **today-city** must come next.
The templates move the today-city around (the today clause comes first in half of them, last in
the others; some mention yesterday's dish, some do not), so that neither a fixed position nor "the
most recent city" gives the answer: the model has to find the city that belongs to 今天.

Each city and each dish is one token. The sentences are split three ways **by city pair**:

    train        the pairs the model learns from (234 ordered pairs, 1872 sentences by default);
    validation   pairs used only to decide when training stops (36 ordered pairs, 288 sentences);
    test         pairs used only to report how well the finished model does (36 pairs, 288 sentences).

A pair of cities in one split never occurs together in another split, in either order, so a model can
only score well on validation and test if it has learned *where to look*, not which pairs go with
which dish; and the test pairs never choose anything (not the stopping step, not a setting). The
corpus is deterministic: the same arguments give the same sentences, token for token.
"""

from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_positive_int, describe_value

#: Sixteen-plus cities, each with a famous local dish (one token each).
CITY_DISHES = (
    ("北京", "烤鸭"),
    ("上海", "小笼包"),
    ("成都", "火锅"),
    ("西安", "肉夹馍"),
    ("武汉", "热干面"),
    ("广州", "肠粉"),
    ("南京", "盐水鸭"),
    ("杭州", "西湖醋鱼"),
    ("长沙", "臭豆腐"),
    ("天津", "煎饼果子"),
    ("兰州", "牛肉面"),
    ("重庆", "小面"),
    ("哈尔滨", "红肠"),
    ("青岛", "蛤蜊"),
    ("苏州", "松鼠鳜鱼"),
    ("柳州", "螺蛳粉"),
    ("昆明", "过桥米线"),
    ("厦门", "沙茶面"),
)

#: Sentence templates, tokens separated by spaces. {Y}: yesterday's city, {dY}: its dish, {T}: today's
#: city; a word in [brackets] is optional (kept with probability 1/2), so the same template puts the
#: cities at different positions. Every template ends at the blank (after 吃了): the answer is T's dish.
TEMPLATES = (
    # yesterday first, as in the article
    "[其实] 我 昨天 在 {Y} 吃了 {dY} ， [然后] 今天 [我] 在 {T} [也] 吃了",
    "昨天 [我] 在 {Y} [还] 吃了 {dY} ， 今天 [我] [又] 到了 {T} ， [我] 吃了",
    "[其实] 昨天 [我] 在 {Y} ， 今天 [我] 在 {T} ， [我] 今天 [也] 吃了",
    "我 昨天 去了 {Y} ， 今天 到了 {T} ， 昨天 吃了 {dY} ， 今天 [也] 吃了",
    # today first: the most recent city is yesterday's
    "[其实] 我 今天 在 {T} ， 昨天 [我] 在 {Y} 吃了 {dY} ， 今天 [也] 吃了",
    "今天 [我] 在 {T} ， [我] 昨天 在 {Y} [还] 吃了 {dY} ， 今天 [我] 吃了",
    "今天 [我] 在 {T} ， 昨天 [我] 在 {Y} ， [我] 今天 [也] 吃了",
    "[其实] 今天 [我] 到了 {T} ， 昨天 [我] 去了 {Y} 吃了 {dY} ， 今天 吃了",
)

PAD = "<pad>"
_WORDS = ("我", "昨天", "今天", "在", "吃了", "，", "去了", "到了", "其实", "然后", "也", "又", "还")


def build_vocab(city_dishes=CITY_DISHES):
    """The token list: padding, the template words, the cities, the dishes (index = token id)."""
    return (PAD, *_WORDS, *(city for city, _ in city_dishes), *(dish for _, dish in city_dishes))


@dataclass(frozen=True)
class Split:
    """Encoded sentences, right-padded: tokens [B, n] int; blank, target, today, yesterday [B] int.

    `blank` is the index of the last real token (the final 吃了): the model predicts `target`, the
    today-city's dish, from there. `today` / `yesterday` are the positions of the two city tokens;
    `pairs` [B, 2] holds the (yesterday, today) city indices into CITY_DISHES; `template` [B] the
    index into TEMPLATES.
    """

    tokens: np.ndarray
    blank: np.ndarray
    target: np.ndarray
    today: np.ndarray
    yesterday: np.ndarray
    pairs: np.ndarray
    template: np.ndarray

    def __len__(self):
        return len(self.target)


@dataclass(frozen=True)
class Corpus:
    """The vocabulary, the city/dish table, and the train, validation and test splits (disjoint city pairs)."""

    vocab: tuple
    city_dishes: tuple
    train: Split
    validation: Split
    test: Split

    @property
    def max_len(self):
        return self.train.tokens.shape[1]

    @property
    def cities(self):
        return tuple(city for city, _ in self.city_dishes)

    def encode(self, pairs, templates=TEMPLATES, rng=None):
        """(yesterday, today) city-index pairs -> a Split with every template for each pair.

        Without `rng` the optional [words] are left out: template 0 for (0, 1) is the article's sentence.
        """
        return encode_split(pairs, self.vocab, self.max_len, rng, self.city_dishes, templates)

    def decode(self, ids):
        """[n] token ids -> the tokens as strings, padding dropped."""
        return [self.vocab[i] for i in np.asarray(ids).tolist() if self.vocab[i] != PAD]


def fill_template(template, yesterday, today, rng=None, city_dishes=CITY_DISHES):
    """(template, city index Y, city index T) -> (tokens, target dish, position of T, position of Y).

    Optional [words] are kept with probability 1/2 when `rng` (a numpy Generator) is given, and all
    dropped when it is None: the plain template.
    """
    (city_y, dish_y), (city_t, dish_t) = city_dishes[yesterday], city_dishes[today]
    slots = {"{Y}": city_y, "{dY}": dish_y, "{T}": city_t}
    words = []
    for word in template.split():
        if word.startswith("["):
            if rng is None or rng.random() < 0.5:
                continue
            word = word.strip("[]")
        words.append(word)
    tokens = [slots.get(word, word) for word in words]
    return tokens, dish_t, words.index("{T}"), words.index("{Y}")


def split_city_pairs(n_cities, validation_partners=2, test_partners=2, seed=0):
    """-> (train, validation, test): ordered (yesterday, today) index pairs, disjoint as unordered pairs.

    The cities are shuffled onto a circle. Each city's `test_partners` nearest neighbours (half on
    each side) are its test partners, the next `validation_partners` its validation partners, and all
    the others its training partners. So every city keeps n_cities - 1 - validation_partners -
    test_partners training partners, appears in both roles in all three splits, and no unordered pair
    is in two splits. Cities 0 and 1 are always neighbours: the article's 北京/上海 sentence is a test one.
    """
    n_cities = check_positive_int(n_cities, "n_cities")
    validation_partners = check_positive_int(validation_partners, "validation_partners")
    test_partners = check_positive_int(test_partners, "test_partners")
    for name, value in (("validation_partners", validation_partners), ("test_partners", test_partners)):
        if value % 2:
            raise ValueError(f"{name}={value} must be even (half of the partners sit on each side of a city)")
    if validation_partners + test_partners > n_cities - 3:
        raise ValueError(
            f"validation_partners + test_partners = {validation_partners + test_partners} must be at most"
            f" n_cities - 3 = {n_cities - 3} (each city needs at least two training partners)"
        )
    # cities 0 and 1 (北京, 上海) sit side by side, so the article's own pair is always a test pair
    order = np.concatenate([[0, 1], 2 + np.random.default_rng(seed).permutation(n_cities - 2)])
    slot = np.empty(n_cities, dtype=int)
    slot[order] = np.arange(n_cities)  # where each city sits on the circle
    splits = {"train": [], "validation": [], "test": []}
    for y in range(n_cities):
        for t in range(n_cities):
            if y == t:
                continue
            gap = abs(int(slot[y]) - int(slot[t]))
            distance = min(gap, n_cities - gap)  # steps apart on the circle: 1 for neighbours
            if distance <= test_partners // 2:
                splits["test"].append((y, t))
            elif distance <= (test_partners + validation_partners) // 2:
                splits["validation"].append((y, t))
            else:
                splits["train"].append((y, t))
    return splits["train"], splits["validation"], splits["test"]


def encode_split(pairs, vocab, max_len, rng, city_dishes=CITY_DISHES, templates=TEMPLATES):
    """Every (pair, template) combination with random optional words, right-padded to `max_len` -> a Split."""
    index = {token: i for i, token in enumerate(vocab)}
    rows, blank, target, today, yesterday, pair_ids, template_ids = [], [], [], [], [], [], []
    for y, t in pairs:
        for j, template in enumerate(templates):
            tokens, dish, pos_t, pos_y = fill_template(template, y, t, rng, city_dishes)
            rows.append([index[tok] for tok in tokens] + [index[PAD]] * (max_len - len(tokens)))
            blank.append(len(tokens) - 1)
            target.append(index[dish])
            today.append(pos_t)
            yesterday.append(pos_y)
            pair_ids.append((y, t))
            template_ids.append(j)
    as_int = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return Split(
        tokens=as_int(rows).reshape(len(rows), max_len),  # [B, n]
        blank=as_int(blank),
        target=as_int(target),
        today=as_int(today),
        yesterday=as_int(yesterday),
        pairs=as_int(pair_ids).reshape(len(pair_ids), 2),  # [B, 2]
        template=as_int(template_ids),
    )


def make_corpus(validation_partners=2, test_partners=2, seed=0, city_dishes=CITY_DISHES, templates=TEMPLATES):
    """-> Corpus: every template for every ordered city pair, split by pair into train, validation and test.

    With the defaults (18 cities, 8 templates, 2 validation and 2 test partners per city): 234 training
    pairs x 8 templates = 1872 training sentences; 36 validation pairs x 8 = 288 validation sentences;
    36 test pairs x 8 = 288 test sentences. `seed` places the cities on the circle of
    `split_city_pairs` and draws the optional words; the same arguments always give the same corpus.
    """
    if not isinstance(city_dishes, (tuple, list)) or len(city_dishes) < 5:
        raise ValueError(
            f"city_dishes must be a sequence of at least 5 (city, dish) pairs, got {describe_value(city_dishes)}"
        )
    if len({c for c, _ in city_dishes} | {d for _, d in city_dishes}) != 2 * len(city_dishes):
        raise ValueError("city_dishes must have distinct cities and dishes (each names one token)")
    if isinstance(templates, str) or not templates:
        raise TypeError(f"templates must be a non-empty sequence of template strings, got {describe_value(templates)}")
    for template in templates:
        words = template.split()
        if words.count("{T}") != 1 or words.count("{Y}") != 1:
            raise ValueError(f"template {template!r} must contain {{T}} and {{Y}} exactly once each")
    vocab = build_vocab(city_dishes)
    unknown = {w.strip("[]") for tpl in templates for w in tpl.split()} - {"{T}", "{Y}", "{dY}", *vocab}
    if unknown:
        raise ValueError(f"templates use words outside the vocabulary: {sorted(unknown)}")
    pairs = split_city_pairs(len(city_dishes), validation_partners, test_partners, seed)  # train, validation, test
    max_len = max(len(template.split()) for template in templates)  # all optional words kept
    rng = np.random.default_rng(seed)  # one stream, drawn in the order train, validation, test
    train, validation, test = (encode_split(p, vocab, max_len, rng, city_dishes, templates) for p in pairs)
    return Corpus(vocab=vocab, city_dishes=tuple(city_dishes), train=train, validation=validation, test=test)
