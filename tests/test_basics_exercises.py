"""The checkers of notebooks 01-03: each classic mistake, written as a learner would, gets its own diagnosis.

Correct learner-style code passes (in float32 too, where the inputs are arrays); every wrong version
below is diagnosed with exactly the i18n key next to it (test_exercises.py counts these keys when it
asks that every diagnosis in attn_lib.i18n is reached by a test); attn_lib's own functions are
refused where the exercise asks for the learner's code, and allowed where the notebook taught them.
"""

import numpy as np
import pytest
from checker_helpers import assert_diagnosed

import attn_lib
from attn_lib import exercises as ex
from attn_lib.examples import TINY_CORPUS
from attn_lib.exercises.counting import SMALL_CORPUS, window_counts
from attn_lib.i18n import t
from attn_lib.models.ngram import count_next_tokens, next_token_distribution

# --- learner-style code: notebook 01 --------------------------------------------------------------


def learner_probabilities(counts, transform=None):
    total = sum(counts.values())
    return {token: count / total for token, count in counts.items()}


def learner_window(corpus, context, k, *, start=False, extra=0, weighted=True, first_only=False, last=False):
    """The counting as a learner writes it: the last k tokens, then every sentence, every position."""
    window = list(context[:k]) if start else list(context[len(context) - k - extra :])
    counts = {}
    for sentence, count in corpus:
        tokens = sentence.split()
        for i in range(len(tokens) - len(window) + last):
            if tokens[i : i + len(window)] == window:
                nxt = tokens[i + len(window) - last]
                counts[nxt] = counts.get(nxt, 0) + (count if weighted else 1)
                if first_only:
                    break
    return counts


def joined_corpus_window(corpus, context, k):
    """The corpus joined into one long text, every sentence repeated as often as it occurs."""
    text = " ".join(" ".join([sentence] * count) for sentence, count in corpus).split()
    return learner_window([(" ".join(text), 1)], context, k)


def as_probabilities(corpus, context, k):
    counts = learner_window(corpus, context, k)
    total = sum(counts.values())
    return {token: count / total for token, count in counts.items()}


# --- learner-style code: notebooks 02 and 03 --------------------------------------------------------


def learner_softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def learner_one(q, K, V, weights_from=learner_softmax, scale=1.0):
    s = K @ q / scale  # [n]: s_j = q . k_j
    w = weights_from(s)  # [n]
    return w @ V, w  # [n] x [n, d_v] -> [d_v]


def learner_one_loops(q, K, V):
    """The loop version of notebook 02, written with math.exp and a stable max."""
    import math

    scores = [sum(q[i] * K[j, i] for i in range(len(q))) for j in range(len(K))]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    weights = [e / sum(exps) for e in exps]
    output = [sum(weights[j] * V[j, i] for j in range(len(K))) for i in range(V.shape[1])]
    return np.array(output), np.array(weights)


def learner_all(Q, K, V, scale=1.0, axis=-1):
    W = attn_lib.softmax(Q @ K.T / scale, axis=axis)  # [n_q, n_k]
    return W @ V, W


def cosine_weights(q, K, V):
    unit_k = K / np.linalg.norm(K, axis=-1, keepdims=True)
    w = learner_softmax(unit_k @ (q / np.linalg.norm(q)))
    return w @ V, w


def naive_one(q, K, V):
    e = np.exp(K @ q)
    w = e / e.sum()
    return w @ V, w


def transposed_all(Q, K, V):
    W = attn_lib.softmax(K @ Q.T)  # [n_k, n_q]: the rows are the keys
    return W.T @ V, W


def learner_qkv(x, w_q, w_k, w_v):
    return x @ w_q, x @ w_k, x @ w_v  # [..., n, d_model] x [d_model, d] -> [..., n, d]


def flattened_qkv(x, w_q, w_k, w_v):
    flat = x.reshape(-1, x.shape[-1])  # [B*n, d_model]: the batch axes are lost
    return flat @ w_q, flat @ w_k, flat @ w_v


def transposing_qkv(x, w_q, w_k, w_v):
    return tuple((w.T @ x.T).T for w in (w_q, w_k, w_v))  # right for [n, d_model], not for a batch


def learner_scores(x, w_q, w_k):
    q, k = x @ w_q, x @ w_k  # [..., n, d_k]
    return q @ np.swapaxes(k, -1, -2)  # [..., n, d_k] x [..., d_k, n] -> [..., n, n]


WRONG = [
    # 01: probabilities from counts
    ("next_token_probabilities", "prob_not_normalised", lambda c: dict(c)),
    ("next_token_probabilities", "prob_integer_division", lambda c: {w: n // sum(c.values()) for w, n in c.items()}),
    ("next_token_probabilities", "prob_by_kinds", lambda c: {w: n / len(c) for w, n in c.items()}),
    ("next_token_probabilities", "prob_by_max", lambda c: {w: n / max(c.values()) for w, n in c.items()}),
    ("next_token_probabilities", "prob_uniform", lambda c: {w: 1 / len(c) for w in c}),
    ("next_token_probabilities", "prob_percent", lambda c: {w: 100 * n / sum(c.values()) for w, n in c.items()}),
    ("next_token_probabilities", "counts_missing", lambda c: dict(list(learner_probabilities(c).items())[:-1])),
    ("next_token_probabilities", "counts_extra", lambda c: {**learner_probabilities(c), "<unk>": 0.0}),
    ("next_token_probabilities", "wrong_type", lambda c: list(learner_probabilities(c).values())),
    (  # add-one smoothing: a real technique, but not what this exercise asks
        "next_token_probabilities",
        "wrong_values",
        lambda c: {w: (n + 1) / (sum(c.values()) + len(c)) for w, n in c.items()},
    ),
    # 01: counting after the last k tokens
    ("window_counts", "window_from_start", lambda c, x, k: learner_window(c, x, k, start=True)),
    ("window_counts", "window_width", lambda c, x, k: learner_window(c, x, k, extra=1)),
    ("window_counts", "counts_unweighted", lambda c, x, k: learner_window(c, x, k, weighted=False)),
    ("window_counts", "counts_first_only", lambda c, x, k: learner_window(c, x, k, first_only=True)),
    ("window_counts", "counts_across_sentences", joined_corpus_window),
    ("window_counts", "counts_window_token", lambda c, x, k: learner_window(c, x, k, last=True)),
    ("window_counts", "counts_probabilities", as_probabilities),
    ("window_counts", "counts_missing", lambda c, x, k: dict(list(learner_window(c, x, k).items())[:1])),
    ("window_counts", "counts_extra", lambda c, x, k: {**learner_window(c, x, k), "吃了": 0}),
    ("window_counts", "wrong_values", lambda c, x, k: {w: 2 * n for w, n in learner_window(c, x, k).items()}),
    ("window_counts", "wrong_type", lambda c, x, k: sorted(learner_window(c, x, k).items())),
    # 02: one query
    ("attend_one", "steps_scaled", lambda q, K, V: learner_one(q, K, V, scale=np.sqrt(q.shape[-1]))),
    ("attend_one", "steps_cosine", cosine_weights),
    ("attend_one", "steps_score_sum", lambda q, K, V: learner_one(q, K, V, lambda s: s / s.sum())),
    ("attend_one", "steps_returned_scores", lambda q, K, V: learner_one(q, K, V, lambda s: s)),
    ("attend_one", "steps_not_normalised", lambda q, K, V: learner_one(q, K, V, np.exp)),
    ("attend_one", "steps_softmax_overflow", naive_one),
    ("attend_one", "steps_summed_keys", lambda q, K, V: (learner_one(q, K, V)[1] @ K, learner_one(q, K, V)[1])),
    ("attend_one", "steps_not_summed", lambda q, K, V: (learner_one(q, K, V)[1][:, None] * V, learner_one(q, K, V)[1])),
    ("attend_one", "steps_unweighted", lambda q, K, V: (V.mean(axis=0), learner_one(q, K, V)[1])),
    ("attend_one", "steps_argmax", lambda q, K, V: (V[np.argmax(K @ q)], learner_one(q, K, V)[1])),
    ("attend_one", "attn_pair_order", lambda q, K, V: learner_one(q, K, V)[::-1]),
    (
        "attend_one",
        "attn_weights_not_normalised",
        lambda q, K, V: learner_one(q, K, V, lambda s: np.exp(s - s.max()) / (np.exp(s - s.max()).sum() + 1)),
    ),
    ("attend_one", "attn_output_wrong", lambda q, K, V: (learner_one(q, K, V)[0] + 0.1, learner_one(q, K, V)[1])),
    ("attend_one", "not_pair", lambda q, K, V: learner_one(q, K, V)[0]),
    # 02: every query
    ("attend_all", "steps_scaled", lambda Q, K, V: learner_all(Q, K, V, scale=np.sqrt(Q.shape[-1]))),
    ("attend_all", "steps_transposed", transposed_all),
    ("attend_all", "attn_softmax_axis", lambda Q, K, V: learner_all(Q, K, V, axis=0)),
    ("attend_all", "steps_unweighted", lambda Q, K, V: (np.tile(V.mean(axis=0), (len(Q), 1)), learner_all(Q, K, V)[1])),
    ("attend_all", "attn_output_wrong", lambda Q, K, V: (learner_all(Q, K, V)[0] * 2, learner_all(Q, K, V)[1])),
    # 03: Q, K, V
    ("qkv", "qkv_not_triple", lambda x, w_q, w_k, w_v: learner_qkv(x, w_q, w_k, w_v)[:2]),
    ("qkv", "qkv_order", lambda x, w_q, w_k, w_v: learner_qkv(x, w_q, w_k, w_v)[::-1]),
    ("qkv", "qkv_same_matrix", lambda x, w_q, w_k, w_v: (x @ w_q, x @ w_q, x @ w_v)),
    ("qkv", "qkv_batch_flattened", flattened_qkv),
    ("qkv", "qkv_inner_dims", lambda x, w_q, w_k, w_v: (x @ w_q.T, x @ w_k.T, x @ w_v.T)),
    ("qkv", "batch_axes", transposing_qkv),
    # 03: relevance scores
    ("relevance_scores", "rel_transposed", lambda x, w_q, w_k: np.swapaxes(learner_scores(x, w_q, w_k), -1, -2)),
    ("relevance_scores", "rel_same_matrix", lambda x, w_q, w_k: learner_scores(x, w_q, w_q)),
    ("relevance_scores", "rel_no_projection", lambda x, w_q, w_k: x @ np.swapaxes(x, -1, -2)),
    ("relevance_scores", "rel_scaled", lambda x, w_q, w_k: learner_scores(x, w_q, w_k) / np.sqrt(w_q.shape[1])),
    ("relevance_scores", "batch_transpose", lambda x, w_q, w_k: (x @ w_q) @ (x @ w_k).T),
]

RUN = {
    "next_token_probabilities": ex.run_next_token_probabilities_checks,
    "window_counts": ex.run_window_counts_checks,
    "attend_one": ex.run_attend_one_checks,
    "attend_all": ex.run_attend_all_checks,
    "qkv": ex.run_qkv_checks,
    "relevance_scores": ex.run_relevance_scores_checks,
}
CHECK = {
    "next_token_probabilities": ex.check_next_token_probabilities,
    "window_counts": ex.check_window_counts,
    "attend_one": ex.check_attend_one,
    "attend_all": ex.check_attend_all,
    "qkv": ex.check_qkv,
    "relevance_scores": ex.check_relevance_scores,
}
LEARNER_CORRECT = {
    "next_token_probabilities": learner_probabilities,
    "window_counts": learner_window,
    "attend_one": learner_one,
    "attend_all": learner_all,
    "qkv": learner_qkv,
    "relevance_scores": learner_scores,
}


@pytest.mark.parametrize(("exercise", "key", "fn"), WRONG, ids=[f"{e}-{k}" for e, k, _ in WRONG])
def test_each_classic_mistake_gets_its_own_diagnosis(exercise, key, fn, capsys):
    assert_diagnosed(RUN[exercise], CHECK[exercise], fn, key, capsys)


@pytest.mark.parametrize("exercise", sorted(RUN))
def test_learner_code_passes(exercise, capsys):
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="en") is True
    out = capsys.readouterr().out
    assert out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'en')}:") and out.count("\n") == 1
    assert CHECK[exercise](LEARNER_CORRECT[exercise], lang="zh") is True
    assert capsys.readouterr().out.startswith(f"✓ {t(f'exercises.title_{exercise}', 'zh')}：")


@pytest.mark.parametrize("exercise", ["attend_one", "attend_all", "qkv", "relevance_scores"])
def test_learner_code_passes_in_float32(exercise):
    def in_float32(*args):
        return LEARNER_CORRECT[exercise](*(a.astype(np.float32) for a in args))

    result = RUN[exercise](in_float32)
    assert result.ok, result.verdict("en")


def test_the_window_of_the_hint_passes():
    """Exercise B's hint compares list slices with `==`: the context arrives as a list, like the notebook's."""

    def from_the_hint(corpus, context, k):
        window, counts = context[-k:], {}
        for sentence, count in corpus:
            tokens = sentence.split()
            for i in range(len(tokens) - k):
                if tokens[i : i + k] == window:
                    counts[tokens[i + k]] = counts.get(tokens[i + k], 0) + count
        return counts

    assert ex.run_window_counts_checks(from_the_hint).ok


def test_the_loop_version_of_notebook_02_passes():
    assert ex.run_attend_one_checks(learner_one_loops).ok


def test_counts_may_come_back_as_numpy_numbers_or_floats():
    assert ex.run_window_counts_checks(lambda c, x, k: {w: float(n) for w, n in learner_window(c, x, k).items()}).ok
    assert ex.run_next_token_probabilities_checks(
        lambda c: {w: np.float32(p) for w, p in learner_probabilities(c).items()}
    ).ok


def test_the_window_reference_is_the_counted_model_of_notebook_01():
    """window_counts (the checker's reference) agrees with attn_lib.models.ngram on every window of every sentence."""
    for sentence, _ in TINY_CORPUS:
        tokens = sentence.split()
        for end in range(1, len(tokens) + 1):
            for k in range(1, end + 1):
                assert window_counts(TINY_CORPUS, tokens[:end], k) == count_next_tokens(
                    TINY_CORPUS, tokens[:end], k + 1
                )
    assert window_counts(SMALL_CORPUS, "x a b".split(), 2) == {"a": 2, "c": 2, "d": 1}  # counted by hand


# --- what each exercise allows and forbids ----------------------------------------------------------


def test_the_counted_model_of_notebook_01_is_forbidden_in_the_counting_exercise():
    direct = ex.run_window_counts_checks(lambda c, x, k: count_next_tokens(c, x, k + 1))
    assert (direct.key, direct.fields["name"]) == ("forbidden_call", "attn_lib.models.ngram.count_next_tokens")
    inside = ex.run_window_counts_checks(lambda c, x, k: dict(zip(*next_token_distribution(c, x, k + 1), strict=True)))
    assert inside.key == "forbidden_call_inside"
    assert inside.fields == {
        "name": "attn_lib.models.ngram.next_token_distribution",
        "what": "attn_lib.models.ngram.count_next_tokens",
    }
    assert ex.run_window_counts_checks(lambda c, x, k: count_next_tokens(c, x, k + 1), forbid=()).ok


def test_the_checkers_own_reference_is_forbidden_in_the_counting_exercise():
    """attn_lib.exercises.counting.window_counts is public (the checker's reference): it may not stand in (item 3)."""
    result = ex.run_window_counts_checks(window_counts)
    assert (result.key, result.fields["name"]) == ("forbidden_call", "attn_lib.exercises.counting.window_counts")
    assert ex.run_window_counts_checks(window_counts, forbid=()).ok


def test_attention_for_one_query_forbids_the_softmax_and_every_query_allows_it():
    library_one = ex.run_attend_one_checks(lambda q, K, V: learner_one(q, K, V, attn_lib.softmax))
    assert (library_one.key, library_one.fields["name"]) == ("forbidden_call", "attn_lib.softmax")
    assert ex.run_attend_all_checks(learner_all).ok  # attn_lib.softmax: taught in notebook 02

    def library_attention(Q, K, V):
        return attn_lib.scaled_dot_product_attention(Q, K, V, scale=1.0)

    assert ex.run_attend_all_checks(library_attention).key == "forbidden_call"
    assert ex.run_attend_all_checks(library_attention, forbid=()).ok


def test_a_stub_and_a_bad_language():
    assert ex.run_qkv_checks(lambda x, w_q, w_k, w_v: None).key == "not_implemented"
    with pytest.raises(ValueError, match="lang='fr'"):
        ex.check_window_counts(learner_window, lang="fr")


def test_the_checkers_ask_for_exactly_what_notebook_02_teaches():
    """Unscaled scores pass and scaled ones fail: √d_k belongs to notebook 04."""
    assert ex.run_attend_all_checks(learner_all).ok
    scaled = ex.run_attend_all_checks(lambda Q, K, V: learner_all(Q, K, V, scale=np.sqrt(Q.shape[-1])))
    assert scaled.key == "steps_scaled" and "04" in scaled.verdict("en") and "第 4 课" in scaled.verdict("zh")


def test_the_case_that_reveals_the_mistake_is_named():
    assert ex.run_window_counts_checks(joined_corpus_window).case.kind == "case_small_corpus"
    assert ex.run_attend_one_checks(naive_one).case.kind == "case_large_scores"
    assert ex.run_qkv_checks(flattened_qkv).case.kind == "case_batch"
