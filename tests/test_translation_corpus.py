"""Notebook 09's parallel corpus (attn_lib.models.translation_corpus): the alignment, the split, the encoding."""

import numpy as np
import pytest

from attn_lib.models import translation_corpus as TC


@pytest.fixture(scope="module")
def corpus():
    return TC.make_parallel_corpus()


def test_the_articles_sentences_and_their_alignment():
    eat = TC.eat_pair(("我", "I"), ("昨天", "yesterday"), ("北京", "Beijing"), ("烤鸭", "roast duck"))
    assert " ".join(eat.target) == "yesterday I ate roast duck in Beijing"
    assert [eat.source[j] for j in eat.align] == ["昨天", "我", "吃了", "烤鸭", "烤鸭", "在", "北京"]
    weather = TC.weather_pair(None, TC.WEATHER_TIMES[0], ("很好", "nice"))
    assert " ".join(weather.target) == "the weather is nice today"
    assert [weather.source[j] if j >= 0 else None for j in weather.align] == [None, "天气", None, "很好", "今天"]
    cat = TC.animal_pair(("猫", "cat"), None, ("鱼", "fish"))
    assert (" ".join(cat.source), " ".join(cat.target), cat.align) == ("猫 吃 鱼", "the cat eats fish", (-1, 0, 1, 2))
    past = TC.animal_pair(("猫", "cat"), ("昨天", "yesterday"), ("鱼", "fish"))
    assert " ".join(past.target) == "the cat ate fish yesterday" and past.align == (-1, 0, 2, 3, 1)
    city = TC.weather_pair(("北京", "Beijing"), TC.WEATHER_TIMES[2], ("很冷", "cold"))
    assert " ".join(city.target) == "the weather in Beijing will be cold tomorrow"
    assert city.align == (-1, 2, -1, 0, -1, -1, 3, 1)


def test_the_right_alignment_is_mostly_not_the_diagonal():
    pairs = TC.all_pairs()
    assert len(pairs) == 960 + 135 + 126
    aligned = [(j, a) for p in pairs for j, a in enumerate(p.align) if a >= 0]
    assert np.mean([j == a for j, a in aligned]) < 0.25  # word j rarely translates source token j
    for p in pairs:  # every alignment points at a real token; every source token but 在/天气's partners is used
        assert all(-1 <= a < len(p.source) for a in p.align) and len(p.align) == len(p.target)


def test_the_split_holds_out_whole_combinations(corpus):
    seen = {
        name: {(p.template, p.combination) for p in getattr(corpus, name).pairs}
        for name in ("train", "validation", "test")
    }
    assert not seen["train"] & seen["validation"] and not seen["train"] & seen["test"]
    assert not seen["validation"] & seen["test"]
    assert (len(corpus.train), len(corpus.validation), len(corpus.test)) == (969, 126, 126)
    for template, combination in TC.ARTICLE_COMBINATIONS.items():
        assert (template, combination) in seen["test"]
        assert combination in corpus.held_out["test"][template]
    train_words = {w for p in corpus.train.pairs for w in p.source + p.target}
    assert set(corpus.source_vocab[1:]) | set(corpus.target_vocab[3:]) <= train_words  # every word is trained on


def test_the_corpus_is_deterministic_and_the_seed_moves_the_held_out_combinations(corpus):
    again = TC.make_parallel_corpus()
    assert again.held_out == corpus.held_out and (again.test.source == corpus.test.source).all()
    other = TC.make_parallel_corpus(seed=1)
    assert other.held_out != corpus.held_out
    assert other.held_out["test"]["eat"][0] == ("北京", "烤鸭")  # the article's combinations stay in test


def test_encoding_pads_and_marks_the_words_to_write(corpus):
    split = corpus.encode([TC.ARTICLE_SENTENCES[1], TC.ARTICLE_SENTENCES[2]])  # 6 and 3 source tokens
    assert corpus.source_tokens(split.source[1]) == ["猫", "吃", "鱼"] and split.source[1, 3:].tolist() == [0, 0, 0]
    assert split.target[1, 0] == 1 and corpus.target_vocab[split.target[1, 5]] == TC.EOS
    assert corpus.target_words(split.target[1]) == ["the", "cat", "eats", "fish"]
    test = corpus.test
    assert test.align.shape == (len(test), test.target.shape[1] - 1)
    b = 0  # the word written at output position j is target[:, j + 1]; align[b, j] is its source position
    words = [corpus.target_vocab[i] for i in test.target[b, 1:]]
    for j, a in enumerate(test.align[b]):
        if a >= 0:
            assert (words[j], corpus.source_vocab[test.source[b, a]]) in {
                ("yesterday", "昨天"), ("today", "今天"), ("last", "上周"), ("week", "上周"), ("I", "我"),
                ("ate", "吃了"), ("roast", "烤鸭"), ("duck", "烤鸭"), ("in", "在"), ("Beijing", "北京"),
            }  # fmt: skip


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="outside the corpus's vocabularies"):
        TC.make_parallel_corpus().encode([("狮子 吃 鱼", "the lion eats fish")])
    with pytest.raises(TypeError, match="held_out"):
        TC.make_parallel_corpus(held_out=8)
    with pytest.raises(ValueError, match="never occur in training"):
        TC.make_parallel_corpus(held_out=(8, 5, 21))  # 2 x 21 of the animals' 42 combinations: some word is lost
    with pytest.raises(ValueError, match="seed"):
        TC.make_parallel_corpus(seed=-1)
