"""Notebook 09's parallel corpus: Chinese sentences of the article's world and their English translations.

Every pair is made from a template, so the right word alignment is known: for every English word, the
Chinese token it translates (or none, for words such as "the" that have no counterpart). Three templates,
in which time and place move between the languages, so that the right alignment is not the diagonal:

    eat      我 昨天 在 北京 吃了 烤鸭       ->  yesterday I ate roast duck in Beijing
    weather  [北京] 今天 天气 很好           ->  the weather [in Beijing] is nice today
    animal   猫 吃 鱼  /  猫 昨天 吃了 鱼    ->  the cat eats fish  /  the cat ate fish yesterday

Each template has one *combination* of content words that the split is made by: (city, food) for eat,
(city or none, weather) for weather, (animal, food) for animal. A combination held out for validation or
test never occurs in training, with any subject or time; every word on its own does. So the test split
asks whether the model translates words it knows in pairings it never saw. The article's three sentences
(今天天气很好, 我昨天在北京吃了烤鸭, 猫吃鱼) are put in the test split on purpose, so that the notebook can show
them as sentences the model never trained on; the other held-out combinations are drawn by `seed`.
Validation chooses (the training checkpoint, a head to show); test never chooses anything.

Source tokens are Chinese words as notebook 01 cuts them; target tokens are English words. Each side has
its own vocabulary: the source's starts with <pad>, the target's with <pad>, <bos>, <eos> (ids 0, 1, 2).
"""

from dataclasses import dataclass

import numpy as np

from attn_lib._checks import check_positive_int, check_seed, describe_value

PAD, BOS, EOS = "<pad>", "<bos>", "<eos>"

#: (Chinese token, its English words). Two English words may translate one token ("roast duck").
SUBJECTS = (("我", "I"), ("他", "he"), ("她", "she"), ("我们", "we"))
PAST_TIMES = (("昨天", "yesterday"), ("今天", "today"), ("上周", "last week"))
CITIES = (
    ("北京", "Beijing"), ("上海", "Shanghai"), ("成都", "Chengdu"), ("西安", "Xian"),
    ("广州", "Guangzhou"), ("南京", "Nanjing"), ("杭州", "Hangzhou"), ("重庆", "Chongqing"),
)  # fmt: skip
FOODS = (
    ("烤鸭", "roast duck"), ("小笼包", "soup dumplings"), ("火锅", "hot pot"), ("饺子", "dumplings"),
    ("面条", "noodles"), ("米饭", "rice"), ("包子", "buns"), ("豆腐", "tofu"), ("鱼", "fish"),
    ("牛肉面", "beef noodles"),
)  # fmt: skip
#: (time word, the verb's tense, the time in English): today is, yesterday was, tomorrow will be.
WEATHER_TIMES = (("今天", "is", "today"), ("昨天", "was", "yesterday"), ("明天", "will be", "tomorrow"))
WEATHERS = (("很好", "nice"), ("不错", "fine"), ("真热", "hot"), ("很冷", "cold"), ("不好", "bad"))
ANIMALS = (("猫", "cat"), ("狗", "dog"), ("熊猫", "panda"), ("兔子", "rabbit"), ("猴子", "monkey"), ("老鼠", "mouse"))
ANIMAL_FOODS = (
    ("鱼", "fish"), ("肉", "meat"), ("竹子", "bamboo"), ("胡萝卜", "carrots"), ("香蕉", "bananas"),
    ("米饭", "rice"), ("骨头", "bones"),
)  # fmt: skip
ANIMAL_TIMES = (None, ("昨天", "yesterday"), ("今天", "today"))  # None: 猫 吃 鱼, the present tense

TEMPLATES = ("eat", "weather", "animal")
#: The combination of each template that the article's sentence uses: held out for the test split.
ARTICLE_COMBINATIONS = {"eat": ("北京", "烤鸭"), "weather": (None, "很好"), "animal": ("猫", "鱼")}
ARTICLE_SENTENCES = (
    ("今天 天气 很好", "the weather is nice today"),
    ("我 昨天 在 北京 吃了 烤鸭", "yesterday I ate roast duck in Beijing"),
    ("猫 吃 鱼", "the cat eats fish"),
)


@dataclass(frozen=True)
class Pair:
    """One sentence pair: the Chinese tokens, the English words, and for each English word the position of
    the Chinese token it translates (-1: none), the template's name and its held-out combination."""

    source: tuple
    target: tuple
    align: tuple
    template: str
    combination: tuple


def _words(english):
    return tuple(english.split())


def eat_pair(subject, time, city, food):
    """我 昨天 在 北京 吃了 烤鸭 -> yesterday I ate roast duck in Beijing: time and place move."""
    (s, s_en), (t, t_en), (c, c_en), (f, f_en) = subject, time, city, food
    source = (s, t, "在", c, "吃了", f)  # positions 0 .. 5
    parts = [(t_en, 1), (s_en, 0), ("ate", 4), (f_en, 5), ("in", 2), (c_en, 3)]
    return _pair(source, parts, "eat", (c, f))


def weather_pair(city, time, weather):
    """[北京] 今天 天气 很好 -> the weather [in Beijing] is nice today: the time moves to the end."""
    (t, tense, t_en), (w, w_en) = time, weather
    source = (() if city is None else (city[0],)) + (t, "天气", w)
    at = len(source) - 3  # the position of the time word
    parts = [("the", -1), ("weather", at + 1)]
    parts += [] if city is None else [("in", -1), (city[1], 0)]
    parts += [(tense, -1), (w_en, at + 2), (t_en, at)]
    return _pair(source, parts, "weather", (None if city is None else city[0], w))


def animal_pair(animal, time, food):
    """猫 吃 鱼 -> the cat eats fish; 猫 昨天 吃了 鱼 -> the cat ate fish yesterday (the time moves to the end)."""
    (a, a_en), (f, f_en) = animal, food
    if time is None:
        return _pair((a, "吃", f), [("the", -1), (a_en, 0), ("eats", 1), (f_en, 2)], "animal", (a, f))
    t, t_en = time
    parts = [("the", -1), (a_en, 0), ("ate", 2), (f_en, 3), (t_en, 1)]
    return _pair((a, t, "吃了", f), parts, "animal", (a, f))


def _pair(source, parts, template, combination):
    target, align = [], []
    for english, position in parts:
        target += _words(english)
        align += [position] * len(_words(english))
    return Pair(tuple(source), tuple(target), tuple(align), template, combination)


def all_pairs():
    """-> every sentence pair of the three templates (960 eat, 135 weather, 126 animal), in a fixed order."""
    pairs = [eat_pair(s, t, c, f) for c in CITIES for f in FOODS for s in SUBJECTS for t in PAST_TIMES]
    pairs += [weather_pair(c, t, w) for c in (None, *CITIES) for w in WEATHERS for t in WEATHER_TIMES]
    pairs += [animal_pair(a, t, f) for a in ANIMALS for f in ANIMAL_FOODS for t in ANIMAL_TIMES]
    return pairs


@dataclass(frozen=True)
class ParallelSplit:
    """Encoded pairs, right-padded with <pad> = 0.

    source [B, n_src] int; target [B, n_tgt] int: <bos>, the English words, <eos>; align [B, n_tgt - 1]
    int: for each position of target[:, 1:] (the word the decoder writes there) the source position it
    translates, -1 for none (function words, <eos>, padding); pairs: the `Pair`s themselves.
    """

    source: np.ndarray
    target: np.ndarray
    align: np.ndarray
    pairs: tuple

    def __len__(self):
        return len(self.pairs)


@dataclass(frozen=True)
class ParallelCorpus:
    """The two vocabularies, the three splits, and the held-out combinations of each template."""

    source_vocab: tuple
    target_vocab: tuple
    train: ParallelSplit
    validation: ParallelSplit
    test: ParallelSplit
    held_out: dict  # {"validation": {template: [combination, ...]}, "test": {...}}

    def encode(self, pairs):
        """[Pair] (or (Chinese, English) strings with words separated by spaces) -> a ParallelSplit."""
        pairs = [p if isinstance(p, Pair) else _unaligned(*p) for p in pairs]
        return encode_pairs(pairs, self.source_vocab, self.target_vocab)

    def source_tokens(self, ids):
        """[n] source ids -> the Chinese tokens, padding dropped."""
        return [self.source_vocab[i] for i in np.asarray(ids).tolist() if i != 0]

    def target_words(self, ids):
        """[n] target ids -> the English words up to <eos>, <bos> and padding dropped."""
        words = []
        for i in np.asarray(ids).tolist():
            if self.target_vocab[i] == EOS:
                break
            if i > 2:
                words.append(self.target_vocab[i])
        return words


def _unaligned(chinese, english):
    """A pair given as two strings, without a known alignment (for sentences outside the templates)."""
    source, target = tuple(chinese.split()), tuple(english.split())
    return Pair(source, target, (-1,) * len(target), "", ())


def encode_pairs(pairs, source_vocab, target_vocab):
    """[Pair] -> ParallelSplit, each side right-padded to its longest sentence; unknown words are an error."""
    src_index = {w: i for i, w in enumerate(source_vocab)}
    tgt_index = {w: i for i, w in enumerate(target_vocab)}
    unknown = sorted({w for p in pairs for w in p.source if w not in src_index})
    unknown += sorted({w for p in pairs for w in p.target if w not in tgt_index})
    if unknown:
        raise ValueError(f"words outside the corpus's vocabularies: {unknown}")
    n_src = max(len(p.source) for p in pairs)
    n_tgt = max(len(p.target) for p in pairs) + 2  # <bos> ... <eos>
    source = np.zeros((len(pairs), n_src), dtype=np.int64)  # [B, n_src]
    target = np.zeros((len(pairs), n_tgt), dtype=np.int64)  # [B, n_tgt]
    align = np.full((len(pairs), n_tgt - 1), -1, dtype=np.int64)  # [B, n_tgt - 1]
    for b, p in enumerate(pairs):
        source[b, : len(p.source)] = [src_index[w] for w in p.source]
        target[b, : len(p.target) + 2] = [1, *(tgt_index[w] for w in p.target), 2]
        align[b, : len(p.align)] = p.align  # output position j writes target word j
    return ParallelSplit(source, target, align, tuple(pairs))


def make_parallel_corpus(seed=0, held_out=(8, 5, 5)):
    """-> ParallelCorpus: every pair of the templates, split by held-out combination.

    `held_out` = how many combinations of (eat, weather, animal) go to validation and as many to test,
    one of the test ones being the article's. With the defaults: eat 8 of its 80 (city, food)
    combinations each (96 sentences), weather 5 of 45 (15), animal 5 of 42 (15); so 126 validation and
    126 test sentences, and 969 for training. Every word occurs in training. The same seed gives the
    same corpus.
    """
    seed = check_seed(seed)
    if not (isinstance(held_out, tuple) and len(held_out) == 3):
        raise TypeError(
            f"held_out must be a tuple of three counts (eat, weather, animal), got {describe_value(held_out)}"
        )
    pairs = all_pairs()
    rng = np.random.default_rng(seed)
    chosen = {"validation": {}, "test": {}}
    for template, count in zip(TEMPLATES, held_out, strict=True):
        count = check_positive_int(count, f"held_out[{TEMPLATES.index(template)}]")
        combinations = list(dict.fromkeys(p.combination for p in pairs if p.template == template))
        article = ARTICLE_COMBINATIONS[template]
        others = [c for c in combinations if c != article]
        order = rng.permutation(len(others))
        test = [article] + [others[i] for i in order[: count - 1]]
        validation = [others[i] for i in order[count - 1 : 2 * count - 1]]
        chosen["test"][template], chosen["validation"][template] = test, validation
    split_of = {}
    for name in ("validation", "test"):
        for template, combinations in chosen[name].items():
            split_of.update({(template, c): name for c in combinations})
    groups = {"train": [], "validation": [], "test": []}
    for p in pairs:
        groups[split_of.get((p.template, p.combination), "train")].append(p)
    source_vocab = (PAD, *dict.fromkeys(w for p in pairs for w in p.source))
    target_vocab = (PAD, BOS, EOS, *dict.fromkeys(w for p in pairs for w in p.target))
    missing = set(source_vocab[1:]) - {w for p in groups["train"] for w in p.source}
    missing |= set(target_vocab[3:]) - {w for p in groups["train"] for w in p.target}
    if missing:
        raise ValueError(f"held_out={held_out} leaves words that never occur in training: {sorted(missing)}")
    splits = {name: encode_pairs(group, source_vocab, target_vocab) for name, group in groups.items()}
    return ParallelCorpus(source_vocab, target_vocab, **splits, held_out=chosen)
