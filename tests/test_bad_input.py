"""Every public function rejects bad input with a ValueError/TypeError that names the argument, what it got
and the rule; never a bare numpy error, never a silent NaN."""

import re

import numpy as np
import pytest

from attn_lib import (
    additive_mask,
    causal_mask,
    count_parameters,
    init_multi_head_weights,
    merge_heads,
    multi_head_attention,
    scaled_dot_product_attention,
    softmax,
    split_heads,
)
from attn_lib.efficient import KVCache, blocked_attention_with_weights, tiled_attention
from attn_lib.grouped import grouped_query_attention
from attn_lib.models.minilm.head_types import head_types
from attn_lib.pictures.heatmaps import plot_attention, plot_heads

Q, K, V = np.ones((3, 4)), np.ones((5, 4)), np.ones((5, 2))  # n_q=3, n_k=5, d_k=4, d_v=2
X = np.ones((3, 8))  # n=3, d_model=8
W = np.eye(8)
WEIGHTS = np.full((3, 3), 1 / 3)
TOKENS = ["猫", "吃", "鱼"]


def sdpa(q=Q, k=K, v=V, **kwargs):
    return scaled_dot_product_attention(q, k, v, **kwargs)


def mha(x=X, w_q=W, w_k=W, w_v=W, w_o=W, n_heads=2, **kwargs):
    return multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, **kwargs)


CASES = {
    # softmax
    "softmax string": (lambda: softmax("1 2 3"), TypeError, "x must be an array (or list) of numbers, got the string"),
    "softmax None": (lambda: softmax(None), TypeError, "x must be an array (or list) of numbers, got None"),
    "softmax NaN": (lambda: softmax([1.0, np.nan]), ValueError, "x contains NaN (first at index (1,))"),
    "softmax +inf": (lambda: softmax([[0.0, np.inf]]), ValueError, "x contains inf at index (0, 1)"),
    "softmax booleans": (lambda: softmax([True, False]), TypeError, "x must hold numbers, got booleans"),
    "softmax complex": (lambda: softmax([1j]), TypeError, "x must hold real numbers"),
    "softmax scalar": (lambda: softmax(3.0), ValueError, "x must have at least 1 dimensions, got shape ()"),
    "softmax ragged": (lambda: softmax([[1, 2], [3]]), ValueError, "x must be a rectangular array"),
    "softmax empty": (lambda: softmax([]), ValueError, "x has no entries along axis=-1 (shape (0,))"),
    "softmax axis range": (lambda: softmax([1, 2], axis=1), ValueError, "axis=1 is out of range for x with 1 dim"),
    "softmax axis float": (lambda: softmax([1, 2], axis=1.0), TypeError, "axis must be an integer, got float 1.0"),
    # scaled_dot_product_attention: q, k, v
    "sdpa q string": (lambda: sdpa(q="abc"), TypeError, "q must be an array (or list) of numbers, got the string"),
    "sdpa k None": (lambda: sdpa(k=None), TypeError, "k must be an array (or list) of numbers, got None"),
    "sdpa v NaN": (lambda: sdpa(v=np.where(np.eye(5, 2) > 0, np.nan, 0)), ValueError, "v contains NaN"),
    "sdpa q +inf": (lambda: sdpa(q=np.full((3, 4), np.inf)), ValueError, "q contains inf at index (0, 0)"),
    "sdpa k -inf": (lambda: sdpa(k=np.full((5, 4), -np.inf)), ValueError, "k contains -inf at index (0, 0)"),
    "sdpa q 1-D": (lambda: sdpa(q=np.ones(4)), ValueError, "q must have at least 2 dimensions, got shape (4,)"),
    "sdpa d_k": (lambda: sdpa(k=np.ones((5, 3))), ValueError, "q has d_k=4 but k has d_k=3"),
    "sdpa n_k": (lambda: sdpa(v=np.ones((6, 2))), ValueError, "k has n_k=5 keys but v has 6 values"),
    "sdpa d_k zero": (lambda: sdpa(q=np.ones((3, 0)), k=np.ones((5, 0))), ValueError, "need d_k >= 1"),
    "sdpa no keys": (lambda: sdpa(k=np.ones((0, 4)), v=np.ones((0, 2))), ValueError, "at least one key"),
    "sdpa batch": (
        lambda: sdpa(q=np.ones((2, 3, 4)), k=np.ones((3, 5, 4)), v=np.ones((3, 5, 2))),
        ValueError,
        "the leading (batch/head) dimensions of q (2, 3, 4), k (3, 5, 4) and v (3, 5, 2) do not broadcast",
    ),
    "sdpa overflow": (lambda: sdpa(q=np.full((3, 4), 1e308)), ValueError, "q @ k^T overflowed float64"),
    # scaled_dot_product_attention: mask
    "mask shape": (
        lambda: scaled_dot_product_attention(np.ones((3, 2)), np.ones((3, 2)), np.ones((3, 2)), mask=np.ones((3, 4))),
        ValueError,
        "mask of shape (3, 4) does not broadcast to scores of shape (3, 3)",
    ),
    "mask int": (lambda: sdpa(mask=np.ones((3, 5), dtype=int)), TypeError, "for 0/1 integers use mask.astype(bool)"),
    "mask int list": (lambda: sdpa(mask=[[1, 0, 1, 1, 1]] * 3), TypeError, "mask.astype(bool)"),
    "mask string": (lambda: sdpa(mask="causal"), TypeError, "mask must be a boolean or float array, got the string"),
    "mask NaN": (lambda: sdpa(mask=np.full((3, 5), np.nan)), ValueError, "mask contains NaN"),
    "mask +inf": (lambda: sdpa(mask=np.full((3, 5), np.inf)), ValueError, "mask contains inf at index (0, 0)"),
    "mask ragged": (lambda: sdpa(mask=[[True], [True, False]]), ValueError, "mask must be a rectangular array"),
    "mask float 0/1": (
        lambda: sdpa(mask=np.tril(np.ones((3, 5)))),
        ValueError,
        "mask is a float array (float64) holding only 0.0 and 1.0, but a float mask is *added* to the scores",
    ),
    "mask float 0/1 fix": (lambda: sdpa(mask=np.ones((3, 5), np.float32)), ValueError, "use mask.astype(bool)"),
    # scaled_dot_product_attention: scale
    "scale zero": (lambda: sdpa(scale=0), ValueError, "scale=0 must be a positive finite number"),
    "scale negative": (lambda: sdpa(scale=-0.5), ValueError, "scale=-0.5 must be a positive finite number"),
    "scale inf": (lambda: sdpa(scale=np.inf), ValueError, "scale=inf must be a positive finite number"),
    "scale NaN": (lambda: sdpa(scale=np.nan), ValueError, "scale=nan must be a positive finite number"),
    "scale string": (lambda: sdpa(scale="1/8"), TypeError, "scale must be a positive number or None, got the string"),
    "scale bool": (lambda: sdpa(scale=True), TypeError, "scale must be a positive number or None, got bool True"),
    # causal_mask
    "causal zero": (lambda: causal_mask(0), ValueError, "n=0 must be a positive integer (at least 1)"),
    "causal negative": (lambda: causal_mask(-3), ValueError, "n=-3 must be a positive integer"),
    "causal float": (lambda: causal_mask(3.0), TypeError, "n must be a positive integer, got float 3.0"),
    "causal bool": (lambda: causal_mask(True), TypeError, "n must be a positive integer, got bool True"),
    "causal string": (lambda: causal_mask("3"), TypeError, "n must be a positive integer, got the string '3'"),
    "causal None": (lambda: causal_mask(None), TypeError, "n must be a positive integer, got None"),
    "causal huge": (
        lambda: causal_mask(10**12),
        ValueError,
        "n=1000000000000 is too large: an n x n mask has n^2 = 1e+24 entries",
    ),
    "causal huge limit": (lambda: causal_mask(10**12), ValueError, "so n <= 3,037,000,499"),
    # additive_mask
    "additive int": (lambda: additive_mask(np.eye(3, dtype=int)), TypeError, "use mask.astype(bool)"),
    "additive float": (lambda: additive_mask(np.eye(3)), TypeError, "mask must be a boolean array"),
    "additive None": (
        lambda: additive_mask(None),
        TypeError,
        "mask must be a boolean array (True = may attend), got None",
    ),
    "additive string": (lambda: additive_mask("causal"), TypeError, "got the string 'causal'"),
    "additive 1-D": (
        lambda: additive_mask(np.ones(3, bool)),
        ValueError,
        "at least 2 dimensions [n_q, n_k], got shape (3,)",
    ),
    "additive int dtype": (
        lambda: additive_mask(causal_mask(3), dtype=int),
        TypeError,
        "dtype must be a floating dtype",
    ),
    "additive dtype string": (
        lambda: additive_mask(causal_mask(3), dtype="foo"),
        TypeError,
        "dtype must be a floating dtype such as np.float32 or np.float64, got the string 'foo'",
    ),
    # split_heads / merge_heads
    "split divide": (lambda: split_heads(np.ones((3, 768)), 5), ValueError, "n_heads=5 does not divide d_model=768"),
    "split zero": (lambda: split_heads(X, 0), ValueError, "n_heads=0 must be a positive integer"),
    "split float": (lambda: split_heads(X, 2.0), TypeError, "n_heads must be a positive integer, got float 2.0"),
    "split bool": (lambda: split_heads(X, True), TypeError, "n_heads must be a positive integer, got bool True"),
    "split 1-D": (lambda: split_heads(np.ones(8), 2), ValueError, "x must have at least 2 dimensions, got shape (8,)"),
    "split string": (lambda: split_heads("x", 2), TypeError, "x must be an array (or list) of numbers"),
    "merge 2-D": (
        lambda: merge_heads(np.ones((3, 4))),
        ValueError,
        "x must have at least 3 dimensions, got shape (3, 4)",
    ),
    "merge None": (lambda: merge_heads(None), TypeError, "x must be an array (or list) of numbers, got None"),
    # multi_head_attention
    "mha divide": (lambda: mha(n_heads=3), ValueError, "n_heads=3 does not divide d_model=8"),
    "mha n_heads zero": (lambda: mha(n_heads=0), ValueError, "n_heads=0 must be a positive integer"),
    "mha n_heads string": (lambda: mha(n_heads="2"), TypeError, "n_heads must be a positive integer, got the string"),
    "mha n_heads bool": (lambda: mha(n_heads=True), TypeError, "n_heads must be a positive integer, got bool True"),
    "mha w_q shape": (
        lambda: mha(w_q=np.ones((8, 4))),
        ValueError,
        "w_q has shape (8, 4) but x has d_model=8: w_q must be [d_model, d_model] = (8, 8)",
    ),
    "mha w_o shape": (lambda: mha(w_o=np.eye(4)), ValueError, "w_o has shape (4, 4) but x has d_model=8"),
    "mha w_v 1-D": (lambda: mha(w_v=np.ones(8)), ValueError, r"w_v has shape (8,) but x has d_model=8"),
    "mha w_k None": (lambda: mha(w_k=None), TypeError, "w_k must be an array (or list) of numbers, got None"),
    "mha w_k NaN": (lambda: mha(w_k=np.full((8, 8), np.nan)), ValueError, "w_k contains NaN"),
    "mha x 1-D": (lambda: mha(x=np.ones(8)), ValueError, "x must have at least 2 dimensions, got shape (8,)"),
    "mha x inf": (lambda: mha(x=np.full((3, 8), np.inf)), ValueError, "x contains inf at index (0, 0)"),
    "mha mask shape": (
        lambda: mha(mask=np.ones((3, 4), bool)),
        ValueError,
        "mask of shape (3, 4) does not broadcast to scores of shape (2, 3, 3)",
    ),
    "mha mask int": (lambda: mha(mask=np.ones((3, 3), int)), TypeError, "mask.astype(bool)"),
    "mha mask per sentence": (
        lambda: mha(x=np.ones((2, 3, 8)), mask=np.ones((2, 3, 3), bool)),
        ValueError,
        "mask of shape (2, 3, 3) is ambiguous for x of shape (2, 3, 8)",
    ),
    "mha projection overflow": (
        lambda: mha(x=np.full((3, 8), 1e200), w_q=W * 1e200),
        ValueError,
        "the query projection x @ w_q overflowed float64",
    ),
    # init_multi_head_weights
    "init divide": (lambda: init_multi_head_weights(768, 5), ValueError, "n_heads=5 does not divide d_model=768"),
    "init d_model zero": (lambda: init_multi_head_weights(0, 1), ValueError, "d_model=0 must be a positive integer"),
    "init d_model float": (lambda: init_multi_head_weights(8.0, 2), TypeError, "d_model must be a positive integer"),
    "init seed string": (lambda: init_multi_head_weights(8, 2, seed="a"), TypeError, "seed must be a non-negative"),
    "init seed negative": (lambda: init_multi_head_weights(8, 2, seed=-1), ValueError, "seed=-1 must be a non-negat"),
    # count_parameters
    "count divide": (lambda: count_parameters(768, 5), ValueError, "n_heads=5 does not divide d_model=768"),
    "count negative": (lambda: count_parameters(-768, 12), ValueError, "d_model=-768 must be a positive integer"),
    "count n_heads zero": (lambda: count_parameters(768, 0), ValueError, "n_heads=0 must be a positive integer"),
    "count float": (lambda: count_parameters(768.0, 12), TypeError, "d_model must be a positive integer, got float"),
    "count bool": (lambda: count_parameters(768, True), TypeError, "n_heads must be a positive integer, got bool"),
    "count None": (lambda: count_parameters(None, 12), TypeError, "d_model must be a positive integer, got None"),
    "count bias": (lambda: count_parameters(768, 12, bias="yes"), TypeError, "bias must be True or False, got 'yes'"),
    "count bias int": (lambda: count_parameters(768, 12, bias=1), TypeError, "bias must be True or False, got 1"),
    # plotting
    "plot tokens count": (
        lambda: plot_attention(WEIGHTS, ["猫", "吃"]),
        ValueError,
        "tokens has 2 tokens but the weights have 3 rows (queries)",
    ),
    "plot key_tokens count": (
        lambda: plot_attention(WEIGHTS, TOKENS, key_tokens=["a"] * 4),
        ValueError,
        "key_tokens has 4 tokens but the weights have 3 columns (keys)",
    ),
    "plot tokens string length": (
        lambda: plot_attention(WEIGHTS, "猫吃鱼了"),
        TypeError,
        "tokens must be a sequence of 3 token strings, got the string '猫吃鱼了'",
    ),
    "plot tokens None": (lambda: plot_attention(WEIGHTS, None), TypeError, "tokens must be a sequence of 3 token"),
    "plot tokens int": (lambda: plot_attention(WEIGHTS, 3), TypeError, "tokens must be a sequence of 3 token strings"),
    "plot weights 3-D": (
        lambda: plot_attention(np.ones((2, 3, 3)), TOKENS),
        ValueError,
        "weights must have at most 2 dimensions, got shape (2, 3, 3)",
    ),
    "plot weights 1-D": (lambda: plot_attention(np.ones(3), TOKENS), ValueError, "weights must have at least 2 dim"),
    "plot weights NaN": (lambda: plot_attention(np.full((3, 3), np.nan), TOKENS), ValueError, "weights contains NaN"),
    "plot weights string": (lambda: plot_attention("w", TOKENS), TypeError, "weights must be an array (or list)"),
    "plot weights empty": (lambda: plot_attention(np.ones((0, 0)), []), ValueError, "at least one row and one column"),
    "plot lang": (lambda: plot_attention(WEIGHTS, TOKENS, lang="fr"), ValueError, "lang='fr' is not supported"),
    "heads tokens count": (
        lambda: plot_heads(np.ones((2, 3, 3)) / 3, ["猫", "吃", "鱼", "了"]),
        ValueError,
        "tokens has 4 tokens but the weights have 3 rows (queries)",
    ),
    "heads weights 2-D": (
        lambda: plot_heads(WEIGHTS, TOKENS),
        ValueError,
        "weights must have at least 3 dimensions, got shape (3, 3)",
    ),
    "heads weights 4-D": (lambda: plot_heads(np.ones((1, 2, 3, 3)), TOKENS), ValueError, "at most 3 dimensions"),
    "heads ncols zero": (lambda: plot_heads(np.ones((2, 3, 3)), TOKENS, ncols=0), ValueError, "ncols=0 must be a pos"),
    "heads ncols string": (lambda: plot_heads(np.ones((2, 3, 3)), TOKENS, ncols="2"), TypeError, "ncols must be a"),
    "heads lang": (lambda: plot_heads(np.ones((2, 3, 3)), TOKENS, lang="de"), ValueError, "lang='de' is not supported"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_gets_a_clear_error(name):
    call, error, message = CASES[name]
    with np.errstate(all="ignore"), pytest.raises(error, match=re.escape(message)):
        call()


def test_lists_are_accepted_where_arrays_are():
    q, k, v = Q.tolist(), K.tolist(), V.tolist()
    out, w = scaled_dot_product_attention(q, k, v, mask=np.ones((3, 5), bool).tolist(), scale=1)
    np.testing.assert_array_equal(out, scaled_dot_product_attention(Q, K, V, scale=1)[0])
    assert softmax([1, 2, 3]).shape == (3,)
    assert additive_mask([[True, False]]).tolist() == [[0.0, -np.inf]]
    assert split_heads(X.tolist(), 2).shape == (2, 3, 4)
    assert merge_heads(np.ones((2, 3, 4)).tolist()).shape == (3, 8)
    out, w = multi_head_attention(X.tolist(), W.tolist(), W.tolist(), W.tolist(), W.tolist(), 2, mask=[[True] * 3] * 3)
    assert out.shape == (3, 8) and w.shape == (2, 3, 3)
    assert plot_attention(WEIGHTS.tolist(), TOKENS) is not None
    assert plot_heads(np.ones((2, 3, 3)).tolist(), TOKENS) is not None


def test_numpy_integer_sizes_are_accepted():
    assert causal_mask(np.int64(4)).shape == (4, 4)
    assert count_parameters(np.int32(768), np.int64(12)) == 4 * 768**2
    assert split_heads(X, np.int16(4)).shape == (4, 3, 2)


def test_messages_name_what_was_received():
    """The value passed shows up in the message, not only the rule."""
    with pytest.raises(ValueError) as info:
        sdpa(q=np.ones((2, 3, 4)), k=np.ones((3, 5, 4)), v=np.ones((3, 5, 2)))
    assert "(2, 3, 4)" in str(info.value) and "(3, 5, 4)" in str(info.value)
    with pytest.raises(ValueError) as info:
        split_heads(np.ones((3, 768)), 5)
    assert "divisors of 768: 1, 2, 3, 4, 6, 8, 12" in str(info.value)


def test_draw_attention_validates_like_plot_attention():
    from matplotlib.figure import Figure

    from attn_lib.pictures.heatmaps import draw_attention

    ax = Figure().add_subplot()
    with pytest.raises(ValueError, match=r"query_tokens has 2 tokens but the weights have 1 rows \(queries\)"):
        draw_attention(ax, [[0.5, 0.5]], ["a", "b"], ["a", "b"])
    with pytest.raises(TypeError, match="weights must hold real numbers"):
        draw_attention(ax, [["x", "y"]], ["a"], ["a", "b"])


def test_tiny_plots_name_their_bad_arguments():
    from attn_lib.pictures.training_plots import plot_ablation, plot_blank_attention

    weights = np.full((1, 1, 3), 1 / 3)
    with pytest.raises(TypeError, match="tokens must be a sequence of 3 token strings, got None"):
        plot_blank_attention(weights, None)
    with pytest.raises(ValueError, match="today=7 must be a position between 0 and 2"):
        plot_blank_attention(weights, ["a", "b", "c"], today=7)
    with pytest.raises(TypeError, match="chance must be an array"):
        plot_ablation(1.0, 0.1, 1.0, None)


# --- issue 27 items 11 and 12: errors that name the argument the caller passed ------------------------------------


def test_attention_with_no_tokens_names_x_not_the_internal_q_and_k():
    w = init_multi_head_weights(12, 3)
    for call in (
        lambda: multi_head_attention(np.zeros((0, 12)), w["w_q"], w["w_k"], w["w_v"], w["w_o"], 3),
        lambda: grouped_query_attention(np.zeros((2, 0, 12)), w["w_q"], w["w_k"], w["w_v"], w["w_o"], 3, 3),
    ):
        with pytest.raises(ValueError, match=r"x has no tokens \(shape \(.*0, 12\)\): attention needs at least one"):
            call()
    with pytest.raises(ValueError, match=r"x has d_model=0 \(shape \(3, 0\)\)"):
        multi_head_attention(
            np.zeros((3, 0)), np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((0, 0)), np.zeros((0, 0)), 1
        )


def test_head_types_threshold_must_be_one_number():
    weights = np.full((1, 1, 3, 3), 1 / 3)
    with pytest.raises(TypeError, match=r"threshold must be one number in \(0, 1\], got an array of .* shape \(2,\)"):
        head_types(weights, threshold=np.array([0.5, 0.6]))
    with pytest.raises(TypeError, match="threshold must be one number"):
        head_types(weights, threshold="0.5")
    assert head_types(weights, threshold=np.float32(0.3)).shape == (1, 1)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_scale_that_is_0_or_inf_in_the_dtype_is_refused_by_name(dtype):
    """scale=1e-300 is 0 in float32 (every row uniform, silently); 1e300 is inf there (it blamed |q| and |k|)."""
    q = np.random.default_rng(0).standard_normal((3, 4)).astype(dtype)
    for call in (
        lambda s: scaled_dot_product_attention(q, q, q, scale=s),
        lambda s: tiled_attention(q, q, q, scale=s),
        lambda s: blocked_attention_with_weights(q, q, q, scale=s),
    ):  # float16 is computed in float32: the scale must fit float32
        with pytest.raises(ValueError, match=r"scale=1e-300 is 0 in float32, the dtype the scores are computed in"):
            call(1e-300)
        with pytest.raises(ValueError, match=r"scale=1e\+300 overflows float32, the dtype the scores are computed in"):
            call(1e300)
    cache = KVCache(capacity=4, d_k=4, dtype=dtype)
    cache.append(q[0], q[0])
    with pytest.raises(ValueError, match=r"scale=1e-300 is 0 in float32"):
        cache.attend(q[0], scale=1e-300)
    tiny = scaled_dot_product_attention(q.astype(np.float64), q, q, scale=1e-300)[1]  # float64 holds 1e-300
    np.testing.assert_allclose(tiny, 1 / 3)


def test_scores_that_overflow_because_of_a_large_scale_say_so():
    q = np.ones((2, 4), np.float32)
    with pytest.raises(ValueError, match=r"q @ k\^T \* scale overflowed float32 \(scale=1e\+38\)"):
        scaled_dot_product_attention(q, q, q, scale=1e38)


@pytest.mark.parametrize("where", ["q", "k", "v", "mask", "x"])
def test_a_masked_array_is_refused_rather_than_its_mask_dropped(where):
    """np.asarray drops a numpy masked array's mask: its hidden entries would be used as numbers."""
    data = np.ones((3, 4))
    masked = np.ma.masked_array(data, mask=np.eye(3, 4, dtype=bool))
    with pytest.raises(TypeError, match=rf"{where} is a numpy masked array with 3 masked entries"):
        if where == "mask":
            scaled_dot_product_attention(data, data, data, mask=np.ma.masked_array(np.ones((3, 3), bool), np.eye(3)))
        elif where == "x":
            softmax(masked)
        else:
            scaled_dot_product_attention(**{"q": data, "k": data, "v": data, where: masked})
    # nothing masked: nothing to drop, so it is used as the array it is
    out, _ = scaled_dot_product_attention(np.ma.masked_array(data), data, data)
    np.testing.assert_array_equal(out, scaled_dot_product_attention(data, data, data)[0])
