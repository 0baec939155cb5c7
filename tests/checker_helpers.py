"""What checkers' tests share: the diagnosis text as i18n renders it, the one-line verdict, learners' softmaxes."""

import re

import numpy as np

from attn_lib.exercises.compare import Word
from attn_lib.i18n import t


def rendered(result, lang):
    """The diagnosis text straight from attn_lib.i18n, with the result's fields filled in."""
    fields = {name: t(v, lang) if isinstance(v, Word) else v for name, v in result.fields.items()}
    return t(f"exercises.{result.key}", lang, **fields)


def assert_diagnosed(run, check, fn, key, capsys):
    """`fn` fails its checker with exactly the diagnosis `key`, printed as one ✗ line, in English and in Chinese."""
    result = run(fn)
    assert (result.ok, result.key) == (False, key), result.verdict("en")
    assert check(fn, lang="en") is False
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("✗") and rendered(result, "en") in out
    zh = result.verdict("zh")
    assert re.search(r"[\u4e00-\u9fff]", zh) and rendered(result, "zh") in zh


def stable_softmax(x, axis=-1):
    """A learner's correct softmax, which also gives an all -inf row zero weights."""
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0))
    total = e.sum(axis=axis, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def plain_softmax(x, axis=-1):
    """Stable (max subtracted) but nothing special for an all -inf row: that row becomes NaN."""
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)
