"""Notebook 12's budget question: each classic mistake in counting conversations gets its own diagnosis.

A correct learner-style count passes (with attn_lib.grouped.kv_cache_bytes or by hand); the checker's own
answers are those of notebook 12 (133 conversations of 32k tokens beside Mistral 7B in 80 GiB with its
window, 16 without); every wrong version below is diagnosed with exactly the i18n key next to it
(test_exercises.py counts these keys when it asks that every diagnosis is reached).
"""

import math

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

from attn_lib import exercises as ex
from attn_lib.exercises.budget import GIB, MISTRAL_7B_PARAMETERS
from attn_lib.exercises.budget import _conversations as conversations
from attn_lib.grouped import kv_cache_bytes
from attn_lib.i18n import t


def learner(memory, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None, weight_bytes=2, factor=2,
            use_window="min", whole=math.floor, clip=True):  # fmt: skip
    """The count as a learner writes it; the keyword arguments make the classic mistakes."""
    kept = {"min": min(n_tokens, window or n_tokens), "ignore": n_tokens, "always": window or n_tokens}[use_window]
    cache = factor * n_layers * n_kv_heads * d_head * kept * 2  # bytes of one conversation, float16
    count = (memory - weight_bytes * n_params) / cache
    count = whole(count) if whole else count
    return max(0, count) if clip else count


WRONG = [
    ("conversations", "budget_no_weights", lambda *a: learner(*a[:1], 0, *a[2:])),
    ("conversations", "budget_weights_float32", lambda *a: learner(*a, weight_bytes=4)),
    ("conversations", "budget_no_factor_2", lambda *a: learner(*a, factor=1)),
    ("conversations", "budget_window_ignored", lambda *a: learner(*a, use_window="ignore")),
    ("conversations", "budget_window_always", lambda *a: learner(*a, use_window="always")),
    ("conversations", "budget_not_whole", lambda *a: learner(*a, whole=None)),
    ("conversations", "budget_not_whole", lambda *a: learner(*a, whole=math.ceil)),
    ("conversations", "budget_negative", lambda *a: learner(*a, clip=False)),
    ("conversations", "budget_wrong", lambda *a: learner(*a) + 2),
    ("conversations", "wrong_type", lambda *a: str(learner(*a))),
]


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}-{i}" for i, (e, k, _) in enumerate(WRONG)])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(ex.run_conversations_checks, ex.check_conversations, fn, key, capsys)


def test_learner_code_passes_by_hand_and_with_kv_cache_bytes(capsys):
    assert ex.check_conversations(learner, lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t('exercises.title_conversations', 'en')}:") and out.count("\n") == 1

    def with_the_formula(memory, n_params, n_layers, n_kv_heads, d_head, n_tokens, window=None):
        kept = n_tokens if window is None else min(n_tokens, window)
        return max(0, (memory - 2 * n_params) // kv_cache_bytes(n_layers, n_kv_heads, d_head, kept, 2))

    assert ex.run_conversations_checks(with_the_formula).ok
    assert ex.run_conversations_checks(lambda *a: np.int64(learner(*a))).ok  # a numpy integer is a number too


def test_the_answers_of_notebook_11():
    """Mistral 7B in float16 (14.48 GB) on 80 GiB, conversations of 32,768 tokens."""
    free = 80 * GIB - 2 * MISTRAL_7B_PARAMETERS
    assert conversations(80 * GIB, MISTRAL_7B_PARAMETERS, 32, 8, 128, 32_768, 4096) == free // 2**29 == 133  # 0.5 GiB
    assert conversations(80 * GIB, MISTRAL_7B_PARAMETERS, 32, 8, 128, 32_768) == free // 2**32 == 16  # 4 GiB each
    assert conversations(8 * GIB, MISTRAL_7B_PARAMETERS, 32, 8, 128, 1) == 0
