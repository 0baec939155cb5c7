"""A generated Chinese corpus for notebook 13's model that writes: 01's weather lines, 08's city pairs, templates.

Every sentence is a token sequence ``<bos> w_1 ... w_m 。``: one word is one token, the begin marker
<bos> comes first and the full stop 。 last (every sentence ends with it and no sentence has it
anywhere else, so a model that writes can stop there). Three sources, each split three ways
(train / validation / test):

    weather     notebook 01's lines with 天气 from attn_lib.examples.TINY_CORPUS (今天 天气 很好 5 times,
                不错 3, 真热 2, 昨天 天气 不错 2, 明天 天气 很好 1), copied `weather_copies` = (8, 1, 1)
                times per count into train / validation / test: the same 5 : 3 : 2 after 今天 天气 in
                every split (80 training lines start with 今天 天气). No other sentence contains
                今天 天气, so the counted next-token distribution after <bos> 今天 天气 is 01's 0.5 / 0.3 / 0.2.
    city pairs  notebook 08's sentences (attn_lib.models.corpus.make_corpus, the same seed and the same split
                by city pair: a test pair never occurs in train or validation, in either order), each
                completed with the today-city's dish and 。: ... 今天 在 上海 吃了 小笼包 。
    templates   TEMPLATES below: weather, food, travel, time, everyday life. Each template's fillings
                are enumerated, shuffled, at most `per_template` kept, and split 80 / 10 / 10 (a template
                with fewer than 5 fillings goes to train whole).

Validation chooses (which checkpoint of training is kept); test only reports. Deterministic given `seed`.
"""

import itertools
import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from attn_lib._checks import check_positive_int, check_seed, describe_value
from attn_lib.examples import TINY_CORPUS
from attn_lib.models.corpus import CITY_DISHES
from attn_lib.models.corpus import TEMPLATES as CITY_TEMPLATES
from attn_lib.models.corpus import make_corpus as make_city_corpus

PAD, BOS, EOS = "<pad>", "<bos>", "。"
SPLITS = ("train", "validation", "test")
#: What each value of `LMSplit.source` means: 0 and 1, then 2 + j for TEMPLATES[j].
SOURCES = ("weather", "city pair")

_PEOPLE = ("我", "他", "她", "我们", "妈妈", "爸爸", "老师", "朋友", "姐姐", "弟弟")
_OTHERS = ("朋友", "同学", "妈妈", "姐姐", "老师")
_FOODS = ("饺子", "面条", "米饭", "包子", "水果", "蛋糕", "面包", "鸡蛋", "西瓜", "豆腐")
_DRINKS = ("咖啡", "茶", "牛奶", "果汁", "豆浆")
_PLACES = ("公园", "图书馆", "超市", "学校", "医院", "书店", "咖啡馆", "火车站")
_WEEKDAYS = ("星期一", "星期二", "星期三", "星期四", "星期五", "星期六", "星期天", "周末")
_HOURS = ("六", "七", "八", "九", "十")

#: (template, {slot: fillers}). A filler may hold several words ("多 穿 一件 衣服"). {C} and {dC} are
#: coupled: a city and its own dish from attn_lib.models.corpus.CITY_DISHES. No template contains 今天 天气.
TEMPLATES = (
    # weather
    ("{day} {C} 下了 一场 大雨 。", {"day": ("昨天", "前天")}),
    ("明天 {C} 可能 会 下雨 ， 记得 带 伞 。", {}),
    ("外面 在 {wx} ， 我们 别 出去 了 。", {"wx": ("下雨", "下雪", "刮风")}),
    ("{C} 的 {season} 。", {"season": ("春天 很 暖和", "夏天 很 热", "秋天 很 凉快", "冬天 很 冷")}),
    ("今天 有点 {feel} 。", {"feel": ("冷 ， 多 穿 一件 衣服", "热 ， 多 喝 水", "闷 ， 可能 要 下雨 了")}),
    ("天气 预报 说 {when} 会 {wx} 。", {"when": ("明天", "后天", "周末"), "wx": ("下雨", "下雪", "降温", "刮风")}),
    # food
    ("{who} 喜欢 吃 {food} 。", {"who": _PEOPLE, "food": _FOODS}),
    ("这家 饭馆 的 {food} 很 好吃 。", {"food": _FOODS}),
    ("{who} 做 的 {food} 特别 好吃 。", {"who": ("妈妈", "爸爸", "姐姐", "朋友", "老师"), "food": _FOODS}),
    ("我们 {meal} 去 吃 {food} 吧 。", {"meal": ("中午", "晚上"), "food": _FOODS}),
    ("{who} 早上 喝了 一杯 {drink} 。", {"who": _PEOPLE, "drink": _DRINKS}),
    ("{who} 不 喜欢 喝 {drink} 。", {"who": _PEOPLE, "drink": _DRINKS}),
    ("我 饿了 ， 想 吃 {food} 。", {"food": _FOODS}),
    ("{C} 的 {dC} 很 有名 。", {}),
    ("来 {C} 一定 要 尝尝 {dC} 。", {}),
    ("我 在 {C} {with} 吃了 {dC} 。", {"with": ("", "和 朋友")}),
    # travel
    ("{who} 想 去 {C} 旅游 。", {"who": _PEOPLE}),
    ("{who} 坐 {by} 去 {C} 。", {"who": _PEOPLE, "by": ("高铁", "飞机", "火车")}),
    ("{who} 下个月 要 去 {C} 出差 。", {"who": _PEOPLE}),
    ("我们 在 {C} 玩了 {n} 天 。", {"n": ("两", "三", "四", "五")}),
    ("{who} 是 {C} 人 。", {"who": ("我", "他", "她", "老师", "朋友")}),
    # time
    ("现在 是 {part} {hour} 点 。", {"part": ("早上", "晚上"), "hour": _HOURS}),
    ("{who} 每天 早上 {hour} 点 起床 。", {"who": _PEOPLE, "hour": _HOURS}),
    ("{day} {who} 要 上班 。", {"day": _WEEKDAYS, "who": _PEOPLE}),
    ("我们 {day} 见 吧 。", {"day": _WEEKDAYS}),
    ("电影 晚上 {hour} 点 开始 。", {"hour": _HOURS}),
    # everyday life
    ("{who} {day} 去了 {place} 。", {"who": _PEOPLE, "day": ("昨天", "星期六", "星期天"), "place": _PLACES}),
    ("{who} 在 {place} 看书 。", {"who": _PEOPLE, "place": ("图书馆", "家里", "咖啡馆", "公园")}),
    (
        "{who} 昨天 去 {shop} 。",
        {"who": _PEOPLE, "shop": ("超市 买了 水果", "超市 买了 牛奶", "书店 买了 一本 书", "商店 买了 一件 衣服")},
    ),
    ("{who} 每天 {part} 去 公园 跑步 。", {"who": _PEOPLE, "part": ("早上", "晚上")}),
    ("{who} 和 {other} 一起 去 看 电影 。", {"who": ("我", "他", "她"), "other": _OTHERS}),
    ("{who} 今天 很 {mood} 。", {"who": _PEOPLE, "mood": ("高兴", "累", "忙", "开心")}),
    ("{who} 累了 ， 想 早点 睡觉 。", {"who": _PEOPLE}),
    ("{who} 正在 {place} 等 {other} 。", {"who": ("我", "他", "她"), "place": _PLACES, "other": _OTHERS}),
)


def weather_lines(corpus=TINY_CORPUS):
    """-> [(tokens, count)]: notebook 01's lines that contain 天气, as token lists ending with 。."""
    return [(sentence.split() + [EOS], count) for sentence, count in corpus if "天气" in sentence.split()]


def fill(template, values):
    """(template, {slot: words}) -> tokens: the template's words, every {slot} replaced (an empty filler vanishes)."""
    words = []
    for word in template.split():
        words += values[word[1:-1]].split() if word.startswith("{") else [word]
    return words


def template_fillings(template, slots, city_dishes=CITY_DISHES):
    """-> [tokens]: every filling of `template`, in a fixed order (the product of its slots, cities first)."""
    names = sorted(slots)
    cities = city_dishes if "{C}" in template else [(None, None)]
    sentences = []
    for (city, dish), combo in itertools.product(cities, itertools.product(*(slots[n] for n in names))):
        values = dict(zip(names, combo, strict=True)) | {"C": city or "", "dC": dish or ""}
        sentences.append(fill(template, values))
    return sentences


def split_fillings(sentences, rng, per_template=40, fractions=(0.8, 0.1, 0.1)):
    """[tokens] -> (train, validation, test): shuffled, at most `per_template` kept, split by `fractions`.

    The shares are rounded half to even, so a template with fewer than 5 fillings goes to train whole
    (a word seen only in the test split would say nothing about the model).
    """
    order = rng.permutation(len(sentences))[:per_template]  # [<= per_template]
    n_val = round(fractions[1] * len(order))
    n_test = round(fractions[2] * len(order))
    picked = [sentences[i] for i in order]
    return picked[n_val + n_test :], picked[:n_val], picked[n_val : n_val + n_test]


@dataclass(frozen=True)
class LMSplit:
    """Sentences as ids, right-padded: tokens [B, n] int (<pad> = 0), lengths [B] (<bos> and 。 included).

    source [B]: 0 weather, 1 city pair, 2 + j template j. For the city-pair sentences `blank` [B] is the
    position of the final 吃了 and `target` [B] the today-city's dish id (both -1 for the other sentences).
    """

    tokens: np.ndarray
    lengths: np.ndarray
    source: np.ndarray
    blank: np.ndarray
    target: np.ndarray

    def __len__(self):
        return len(self.lengths)

    def take(self, rows):
        """-> the LMSplit of these rows only (e.g. the city-pair sentences: split.take(split.source == 1))."""
        return LMSplit(*(getattr(self, f)[rows] for f in ("tokens", "lengths", "source", "blank", "target")))


@dataclass(frozen=True)
class LMCorpus:
    """The vocabulary (index = id; <pad> 0, <bos> 1, 。 2), the three splits, and their sentences as words.

    sentences: {split name: [(tokens without <bos>, source, blank, target word)]}, before encoding.
    """

    vocab: tuple
    train: LMSplit
    validation: LMSplit
    test: LMSplit
    sentences: dict

    @property
    def max_len(self):
        """The longest sentence, <bos> and 。 included."""
        return max(getattr(self, s).tokens.shape[1] for s in SPLITS)

    @cached_property
    def index(self):
        """{word: id}."""
        return {token: i for i, token in enumerate(self.vocab)}

    @cached_property
    def sentence_sets(self):
        """{split: the set of its sentences as word tuples (no <bos>)}, to look a written sentence up."""
        return {name: {tuple(tokens) for tokens, *_ in self.sentences[name]} for name in SPLITS}

    def encode(self, words):
        """[words] (or a string of words separated by spaces) -> ids [n]; an unknown word is a ValueError."""
        words = words.split() if isinstance(words, str) else list(words)
        unknown = [w for w in words if w not in self.index]
        if unknown:
            raise ValueError(f"{unknown} not in the vocabulary of {len(self.vocab)} tokens (one word is one token)")
        return np.array([self.index[w] for w in words], dtype=np.int64)

    def decode(self, ids):
        """ids [n] -> the words, <pad> dropped."""
        return [self.vocab[i] for i in np.asarray(ids).tolist() if i != 0]

    def counted(self, split="train"):
        """-> ((sentence, count), ...): the split's sentences, without <bos>, as attn_lib.models.ngram counts them."""
        if split not in SPLITS:
            raise ValueError(f"split={split!r} must be one of {SPLITS}")
        counts = {}
        for tokens, *_ in self.sentences[split]:
            key = " ".join(tokens)
            counts[key] = counts.get(key, 0) + 1
        return tuple(counts.items())


def city_pair_sentences(seed=0):
    """-> {split: [(tokens, blank position, dish)]}: 08's corpus, each sentence completed with its dish and 。."""
    city = make_city_corpus(seed=seed)
    out = {}
    for name in SPLITS:
        split = getattr(city, name)
        rows = []
        for ids, blank, target in zip(split.tokens, split.blank, split.target, strict=True):
            words = city.decode(ids)
            rows.append((words + [city.vocab[target], EOS], int(blank) + 1, city.vocab[target]))  # +1: <bos>
        out[name] = rows
    return out


def collect_sentences(seed=0, per_template=40, weather_copies=(8, 1, 1)):
    """-> {split: [(tokens, source, blank, target word)]}: all three sources, before encoding."""
    rng = np.random.default_rng(seed)
    out = {name: [] for name in SPLITS}
    for name, copies in zip(SPLITS, weather_copies, strict=True):
        for tokens, count in weather_lines():
            out[name] += [(tokens, 0, -1, None)] * (count * copies)
    for name, rows in city_pair_sentences(seed).items():
        out[name] += [(tokens, 1, blank, dish) for tokens, blank, dish in rows]
    for j, (template, slots) in enumerate(TEMPLATES):
        parts = split_fillings(template_fillings(template, slots), rng, per_template)
        for name, sentences in zip(SPLITS, parts, strict=True):
            out[name] += [(tokens, 2 + j, -1, None) for tokens in sentences]
    return out


def build_vocab(sentences):
    """{split: rows} -> (<pad>, <bos>, 。, then every other word in order of first appearance)."""
    seen = dict.fromkeys((PAD, BOS, EOS))
    for name in SPLITS:
        for tokens, *_ in sentences[name]:
            seen.update(dict.fromkeys(tokens))
    return tuple(seen)


def encode_rows(rows, vocab, n):
    """[(tokens, source, blank, target)] -> LMSplit with tokens [B, n]: <bos> first, right-padded with <pad>."""
    index = {token: i for i, token in enumerate(vocab)}
    ids = np.zeros((len(rows), n), dtype=np.int64)  # [B, n], 0 = <pad>
    lengths, source, blank, target = [], [], [], []
    for b, (tokens, src, blank_pos, dish) in enumerate(rows):
        seq = [index[BOS]] + [index[t] for t in tokens]
        ids[b, : len(seq)] = seq
        lengths.append(len(seq))
        source.append(src)
        blank.append(blank_pos)
        target.append(index[dish] if dish is not None else -1)
    as_int = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return LMSplit(ids, as_int(lengths), as_int(source), as_int(blank), as_int(target))


def make_lm_corpus(seed=0, per_template=40, weather_copies=(8, 1, 1)):
    """-> LMCorpus: the three sources, split and encoded; every split padded to the longest sentence.

    With the defaults: 2,720 training sentences (104 weather lines, 1,872 city pairs, 744 template
    fillings), 395 validation and 395 test sentences (13, 288, 94 each), 205 tokens.
    """
    seed = check_seed(seed)
    per_template = check_positive_int(per_template, "per_template")
    if (
        not isinstance(weather_copies, (tuple, list))
        or len(weather_copies) != 3
        or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in weather_copies)
    ):
        raise ValueError(
            "weather_copies must be three non-negative integers (train, validation, test),"
            f" got {describe_value(weather_copies)}"
        )
    sentences = collect_sentences(seed, per_template, tuple(weather_copies))
    vocab = build_vocab(sentences)
    n = 1 + max(len(tokens) for name in SPLITS for tokens, *_ in sentences[name])  # +1: <bos>
    splits = {name: encode_rows(sentences[name], vocab, n) for name in SPLITS}
    return LMCorpus(vocab=vocab, sentences=sentences, **splits)


# --- what a written sentence is: copied, held out, a new filling of a template, or none of these ---------

#: The kinds `sentence_kind` tells apart, from the most to the least copied.
KINDS = ("train", "held_out", "template", "none")


def _alternatives(fillers):
    """A regular expression for one slot: any of the fillers, each followed by a space (an empty filler: nothing)."""
    return "(?:" + "|".join(re.escape(f"{f} ") if f else "" for f in sorted(fillers, key=len, reverse=True)) + ")"


def template_patterns(city_dishes=CITY_DISHES):
    """-> one compiled regular expression: any sentence shape of the corpus, on its words joined by spaces (plus one).

    08's city-pair templates (optional [words], {Y} and {T} any city, {dY} any dish, then a dish and 。),
    TEMPLATES ({C} any city, {dC} any dish: the coupling of a city with its own dish is not checked), and
    01's weather lines as they are.
    """
    cities, dishes = _alternatives([c for c, _ in city_dishes]), _alternatives([d for _, d in city_dishes])
    patterns = []
    for template in CITY_TEMPLATES:
        parts = []
        for word in template.split():
            slot = {"{Y}": cities, "{T}": cities, "{dY}": dishes}.get(word)
            optional = word.startswith("[")
            parts.append(slot or (f"(?:{re.escape(word.strip('[]'))} )?" if optional else re.escape(f"{word} ")))
        patterns.append("".join(parts) + dishes + re.escape(f"{EOS} "))
    for template, slots in TEMPLATES:
        pieces = {"{C}": cities, "{dC}": dishes} | {f"{{{name}}}": _alternatives(f) for name, f in slots.items()}
        patterns.append("".join(pieces.get(word) or re.escape(f"{word} ") for word in template.split()))
    patterns += [re.escape(" ".join(tokens) + " ") for tokens, _ in weather_lines()]
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


def sentence_kind(corpus, words, pattern=None):
    """words (up to and including 。, no <bos>) -> one of KINDS: what a sentence the model wrote is.

    "train": one of the training sentences, word for word; "held_out": a validation or test sentence
    (never trained on); "template": a new filling of one of the corpus's sentence shapes
    (`template_patterns`); "none": none of these, e.g. the start of one template and the end of another.
    """
    words, seen = tuple(words), corpus.sentence_sets
    if words in seen["train"]:
        return "train"
    if words in seen["validation"] or words in seen["test"]:
        return "held_out"
    text = " ".join(words) + " "
    return "template" if (pattern or template_patterns()).fullmatch(text) else "none"
