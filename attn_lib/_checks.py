"""Input checks shared by the public functions: clear errors at the boundary, never a bare numpy one."""

import numbers

import numpy as np


def describe_value(value):
    """A short description of what the caller passed, for error messages."""
    if value is None:
        return "None"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    return f"{type(value).__name__} {value!r}"[:80]


def as_float_array(value, name, *, allow_neg_inf=False, min_ndim=0):
    """`value` as a floating numpy array; float16/32/64 kept, anything else numeric becomes float64.

    Rejects None, strings, booleans, complex numbers, NaN, +inf (and -inf unless `allow_neg_inf`),
    arrays with fewer than `min_ndim` dimensions, and numpy masked arrays with masked entries (whose
    mask np.asarray would drop), with a message naming `name`.
    """
    if value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be an array (or list) of numbers, got {describe_value(value)}")
    check_not_masked(value, name)
    try:
        array = np.asarray(value)
    except ValueError as exc:  # ragged lists
        raise ValueError(f"{name} must be a rectangular array of numbers: {exc}") from None
    if array.dtype.kind == "b":
        raise TypeError(f"{name} must hold numbers, got booleans ({describe_value(array)})")
    if array.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold real numbers, got {describe_value(array)}")
    if array.dtype.kind != "f":
        array = array.astype(np.float64)
    if array.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions, got shape {array.shape}"
            f" ({array.ndim} dimension{'s' if array.ndim != 1 else ''})"
        )
    check_finite(array, name, allow_neg_inf=allow_neg_inf)
    return array


def check_not_masked(value, name):
    """Raise TypeError if `value` is a numpy masked array with masked entries: np.asarray would drop its mask.

    attn_lib does not read np.ma masks (a masked entry would count as the number under it); the course's
    one mask convention is a boolean `mask=` argument, True = may attend. A masked array with nothing
    masked is used as the array it is.
    """
    if isinstance(value, np.ma.MaskedArray) and np.ma.count_masked(value):
        raise TypeError(
            f"{name} is a numpy masked array with {np.ma.count_masked(value)} masked entries; attn_lib would drop"
            f" its mask and use the numbers under it. Pass {name}.filled(value) with the value you mean, and, to"
            " keep keys out of the attention, a boolean mask= (True = may attend)"
        )


def check_finite(array, name, *, allow_neg_inf=False):
    """Raise ValueError if `array` holds NaN or +inf (or -inf when it is not allowed)."""
    if np.isfinite(array).all():  # the usual case, in one pass; the passes below only find and name the culprit
        return
    if np.isnan(array).any():
        where = tuple(int(i) for i in np.argwhere(np.isnan(array))[0])
        raise ValueError(f"{name} contains NaN (first at index {where}); NaN cannot be attended over")
    bad = np.isposinf(array) if allow_neg_inf else np.isinf(array)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        allowed = " (only -inf is allowed, to mask a position)" if allow_neg_inf else ""
        raise ValueError(f"{name} contains {array[where]} at index {where}; values must be finite{allowed}")


def check_positive_int(value, name):
    """`value` as a Python int if it is a positive integer, else a clear error."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be a positive integer, got {describe_value(value)}")
    if value < 1:
        raise ValueError(f"{name}={value} must be a positive integer (at least 1)")
    return int(value)


def check_seed(seed, none_ok=False):
    """`seed` as an int if it is a non-negative integer (what numpy.random.default_rng accepts), else a clear error.

    With `none_ok=True`, None (fresh randomness) is returned as it is.
    """
    if seed is None and none_ok:
        return None
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        either = " (or None)" if none_ok else ""
        raise TypeError(
            f"seed must be a non-negative integer{either} (it seeds numpy.random.default_rng),"
            f" got {describe_value(seed)}"
        )
    if seed < 0:
        raise ValueError(f"seed={seed} must be a non-negative integer (numpy.random.default_rng rejects negatives)")
    return int(seed)


def mask_array(mask):
    """`mask` as a numpy array, or a clear error for a string or a ragged list (its dtype is checked by the caller)."""
    if isinstance(mask, (str, bytes)):
        raise TypeError(f"mask must be a boolean or float array, got {describe_value(mask)}")
    check_not_masked(mask, "mask")
    try:
        return np.asarray(mask)
    except ValueError as exc:  # ragged lists
        raise ValueError(f"mask must be a rectangular array: {exc}") from None


def divisors(n):
    """n -> [1, ..., n]: every h that divides n, ascending."""
    n = check_positive_int(n, "n")
    return [h for h in range(1, n + 1) if n % h == 0]


def check_heads_divide(d_model, n_heads):
    """Raise ValueError unless n_heads divides d_model (each head gets d_k = d_model / n_heads)."""
    if d_model % n_heads:
        options = divisors(d_model)
        shown = ", ".join(map(str, options[:12])) + (", ..." if len(options) > 12 else "")
        raise ValueError(
            f"n_heads={n_heads} does not divide d_model={d_model}: each head needs"
            f" d_k = d_model / n_heads to be a whole number (divisors of {d_model}: {shown})"
        )


def check_kv_heads_divide(n_heads, n_kv_heads):
    """Raise ValueError unless n_kv_heads divides n_heads (each K/V head serves n_heads / n_kv_heads query heads)."""
    if n_heads % n_kv_heads:
        options = ", ".join(map(str, divisors(n_heads)))
        raise ValueError(
            f"n_kv_heads={n_kv_heads} does not divide n_heads={n_heads}: each key/value head serves a group of"
            f" n_heads / n_kv_heads query heads, which must be a whole number (divisors of {n_heads}: {options})"
        )


def float_dtype(*arrays):
    """The common floating dtype of the arrays (float32 stays float32; ints become float64)."""
    dtype = np.result_type(*arrays)
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def work_dtype(dtype):
    """The dtype to compute in: float16 inputs are computed in float32 and rounded once at the end.

    float16 keeps only about 3 decimal digits and overflows at 65504: a sum of 70,000 weights or a
    running accumulator in float16 goes wrong. FlashAttention and PyTorch's CPU kernels upcast the
    same way. Every other floating dtype is computed in itself.
    """
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def check_float_dtype(dtype, name="dtype"):
    """`dtype` as a floating numpy dtype, else a TypeError naming `name`."""
    try:
        checked = np.dtype(dtype)
    except TypeError:
        checked = None
    if checked is None or checked.kind != "f":
        got = describe_value(dtype) if checked is None else str(checked)
        raise TypeError(f"{name} must be a floating dtype such as np.float32 or np.float64, got {got}")
    return checked


def check_fits(array, dtype, name, fix=None):
    """`array` cast to `dtype`, or a ValueError if a finite value overflows there (1e39 in float32 is inf).

    `fix`: what the caller can do about it, a template with the fields {name} and {dtype}
    (default: rescale `name` or use float64).
    """
    with np.errstate(over="ignore"):
        cast = array.astype(dtype, copy=False)
    if cast is array or not np.isinf(cast).any():  # one pass in the usual case
        return cast
    overflowed = np.isinf(cast) & np.isfinite(array)
    if overflowed.any():
        where = tuple(int(i) for i in np.argwhere(overflowed)[0])
        fix = "rescale {name} or use a wider dtype (np.float64)" if fix is None else fix
        raise ValueError(
            f"{name} holds {array[where]:.4g} at index {where}, which overflows {dtype} (largest"
            f" {np.finfo(dtype).max:.4g}); " + fix.format(name=name, dtype=dtype)
        )
    return cast
