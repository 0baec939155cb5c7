"""Hardening of the decoders' steps (issue findings T4-01, T4-10, T4-11): a cached step of SmolLM2 or Gemma 3 is all
or nothing, a cache whose layers disagree is refused, positions stay within the context length, `pick`'s answer is
checked; the tiny LM's decode_step checks `start` against its caches; non-float and float16 training dtypes are
refused."""

import dataclasses

import numpy as np
import pytest

from attn_lib import scaled_dot_product_attention
from attn_lib.models import lm_corpus as C
from attn_lib.models import lm_training as T
from attn_lib.models import tiny_lm as M
from attn_lib.models.gemma3 import model as gm
from attn_lib.models.smollm2 import model as lm

MODULES = {"smollm": lm, "gemma3": gm}
TEXT = "The cat sat on the mat because the mat was warm and the sun was out."


def model_and_module(request, name):
    return request.getfixturevalue(name), MODULES[name]


def attention_failing_at(call, error):
    """-> a learner's attention (the course's own arithmetic) that raises `error` on its `call`-th call (1-based).

    The model calls it once per layer, so call L + 4 is layer 3 of the second step of a model with L layers."""
    calls = []

    def attention(q, k, v, mask=None):
        calls.append(1)
        if len(calls) == call:
            raise error
        return scaled_dot_product_attention(q, k, v, mask=mask)

    return attention


# --- T4-01: a cached step is all or nothing ------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, error",
    [("smollm", RuntimeError("a learner's bug")), ("smollm", KeyboardInterrupt()), ("gemma3", RuntimeError("bug"))],
)
def test_a_step_that_fails_in_layer_3_leaves_every_layers_cache_as_it_was(request, name, error):
    model, module = model_and_module(request, name)
    ids = model.encode(TEXT)
    n_layers = model.config.n_layers
    cache = module.new_cache(model, len(ids))
    attention = attention_failing_at(n_layers + 4, error)  # the first step runs; the second fails in layer 3
    first = module.forward(model, ids[:-2], cache=cache, attention=attention)
    before = [c.length for c in cache]
    with pytest.raises(type(error)):
        module.forward(model, ids[-2:], cache=cache, attention=attention)
    assert [c.length for c in cache] == before == [len(ids) - 2] * n_layers
    retry = module.forward(model, ids[-2:], cache=cache, attention=attention)  # its calls are past the failing one
    fresh_cache = module.new_cache(model, len(ids))
    fresh_first = module.forward(model, ids[:-2], cache=fresh_cache, attention=scaled_dot_product_attention)
    fresh = module.forward(model, ids[-2:], cache=fresh_cache, attention=scaled_dot_product_attention)
    np.testing.assert_allclose(first, fresh_first, rtol=0, atol=1e-5)
    np.testing.assert_allclose(retry, fresh, rtol=0, atol=1e-5)
    assert [c.length for c in cache] == [len(ids)] * n_layers


@pytest.mark.parametrize("name", ["smollm", "gemma3"])
def test_a_cache_whose_layers_disagree_is_refused(request, name):
    model, module = model_and_module(request, name)
    ids = model.encode(TEXT)
    cache = module.new_cache(model, 10)
    module.forward(model, ids[:3], cache=cache)
    cache[5].length = 1  # as a step that failed part-way, before the fix, left it
    with pytest.raises(ValueError, match=r"cache\[0\] holds 3, cache\[5\] holds 1.*new_cache"):
        module.forward(model, ids[3:4], cache=cache)
    with pytest.raises(ValueError, match=f"cache holds {model.config.n_layers - 1} layers' caches but the model has"):
        module.forward(model, ids[:2], cache=module.new_cache(model, 10)[:-1])
    with pytest.raises(TypeError, match="cache must be the list new_cache"):
        module.forward(model, ids[:2], cache=module.new_cache(model, 10)[0])


# --- T4-11: the context length, and pick's answer ------------------------------------------------------------


def test_the_context_lengths_are_the_files(smollm, gemma3):
    assert smollm.config.context == 8192 == smollm.metadata["llama.context_length"]
    assert gemma3.config.context == 32768 == gemma3.metadata["gemma3.context_length"]


@pytest.mark.parametrize("name", ["smollm", "gemma3"])
def test_a_step_past_the_context_length_is_refused(request, name):
    model, module = model_and_module(request, name)
    small = dataclasses.replace(model, config=dataclasses.replace(model.config, context=8))  # 8 positions: 0 .. 7
    ids = model.encode(TEXT)
    assert len(ids) >= 9
    with pytest.raises(ValueError, match=r"ids would take positions 0 \.\. 8, past the model's context length of 8"):
        module.forward(small, ids[:9])
    cache = module.new_cache(small, 20)
    module.forward(small, ids[:6], cache=cache)
    with pytest.raises(ValueError, match=r"after the 6 positions in the cache, ids would take positions 6 \.\. 8"):
        module.forward(small, ids[6:9], cache=cache)
    assert [c.length for c in cache] == [6] * model.config.n_layers  # refused before any layer ran
    module.forward(small, ids[6:8], cache=cache)  # positions 6, 7: the last two that exist
    with pytest.raises(ValueError, match="max_new_tokens=5 would go past the model's context length of 8.*room for 4"):
        module.generate(small, ids[:5], 5)
    assert len(module.generate(small, ids[:5], 4, stop_ids=())) == 4  # fed: the 5 ids and 3 new ones, 8 positions
    with pytest.raises(ValueError, match=r"prompt_ids would take positions 0 \.\. 8"):
        module.generate(small, ids[:9], 1)


@pytest.mark.parametrize(
    "value, error, match",
    [
        (10**9, ValueError, r"pick returned 1000000000, which is not a token id: ids lie in 0 \.\. 49151"),
        (-1, ValueError, r"pick returned -1, which is not a token id"),
        (49152, ValueError, r"pick returned 49152"),
        (3.7, TypeError, r"pick must return a token id, an integer .*got float 3\.7"),
        (float("nan"), TypeError, r"pick must return a token id.*got float nan"),
        (np.float64(3.0), TypeError, r"pick must return a token id.*got float64 .*3\.0"),
        (True, TypeError, r"pick must return a token id.*got bool True"),
        ("7", TypeError, r"pick must return a token id.*got the string '7'"),
    ],
)
def test_what_pick_returns_is_checked(smollm, value, error, match):
    ids = smollm.encode(TEXT)[:4]
    for use_cache in (True, False):
        with pytest.raises(error, match=match):
            lm.generate(smollm, ids, 2, pick=lambda logits, value=value: value, stop_ids=(), use_cache=use_cache)


def test_pick_may_return_a_numpy_integer(smollm):
    ids = smollm.encode(TEXT)[:4]
    new = lm.generate(smollm, ids, 2, pick=lambda logits: np.int32(np.argmax(logits)), stop_ids=())
    assert new == lm.generate(smollm, ids, 2, stop_ids=()) and all(type(t) is int for t in new)


# --- T4-01 (second part): the tiny LM's start --------------------------------------------------------------


TINY = M.LMConfig(vocab_size=13, max_len=10, d_model=16, n_heads=4, n_layers=2, d_ff=20)


def test_the_tiny_lms_decode_step_refuses_a_start_that_is_not_the_caches_length():
    params = M.init_params(TINY, seed=5, dtype=np.float64)
    ids = np.array([1, 5, 7, 3, 2])
    caches = M.new_caches(TINY, dtype=np.float64)
    M.decode_step(params, TINY, caches, ids[:3], 0)
    for wrong in (2, 4):
        with pytest.raises(ValueError, match=f"start={wrong} but the caches hold 3 tokens.*here start=3"):
            M.decode_step(params, TINY, caches, ids[3:4], wrong)
    assert [c.length for c in caches] == [3, 3]  # refused before anything was stored
    with pytest.raises(ValueError, match="start=1 but the caches hold 0 tokens"):
        M.decode_step(params, TINY, M.new_caches(TINY), ids[:2], 1)
    got = M.decode_step(params, TINY, caches, ids[3:4], 3)
    h, _ = M.forward(params, TINY, ids[None, :4])
    np.testing.assert_allclose(got, M.unembed(params, h[0, 3]), atol=1e-12)


def test_the_tiny_lms_decode_step_refuses_caches_that_are_not_one_per_layer_of_one_length():
    params = M.init_params(TINY, seed=5, dtype=np.float64)
    with pytest.raises(ValueError, match="caches holds 1 caches but the model has 2 layers"):
        M.decode_step(params, TINY, M.new_caches(TINY)[:1], [1, 5], 0)
    caches = M.new_caches(TINY)
    M.decode_step(params, TINY, caches, [1, 5, 7], 0)
    caches[1].length = 1
    with pytest.raises(ValueError, match=r"the caches hold different numbers of tokens \(\[3, 1\]\)"):
        M.decode_step(params, TINY, caches, [2], 3)


# --- T4-10 (part): the dtype of the tiny LM's weights and training ------------------------------------------


@pytest.fixture(scope="module")
def corpus():
    return C.make_lm_corpus()


@pytest.mark.parametrize("dtype", [np.int64, np.int32, bool, "not a dtype"])
def test_init_params_refuses_a_dtype_that_is_not_floating(dtype):
    with pytest.raises(TypeError, match="dtype must be a floating dtype such as np.float32 or np.float64, got"):
        M.init_params(TINY, dtype=dtype)
    assert {p.dtype for p in M.init_params(TINY, dtype=np.float16).values()} == {np.dtype(np.float16)}  # still made


def test_train_refuses_integer_and_float16_dtypes(corpus):
    with pytest.raises(TypeError, match="dtype must be a floating dtype such as np.float32 or np.float64, got int64"):
        T.train(corpus, dtype=np.int64, max_steps=2, eval_every=1)
    with pytest.raises(ValueError, match=r"dtype=float16 cannot train this model.*0/0 = NaN.*np\.float32.*np\.float64"):
        T.train(corpus, dtype=np.float16, max_steps=2, eval_every=1)
