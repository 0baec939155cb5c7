"""Plain-loop reference implementations: the article's formulas written with Python loops and math.exp.

Independent of attn_lib (no numpy in the arithmetic): lists of Python floats in, lists out. They are
slow on purpose and only used on small inputs, to check the vectorised functions entry by entry.
Mask convention as in the course: a boolean mask[i][j] answers "may query i attend to key j?"; a float
mask is added to the scaled scores. A row with no visible key gets all-zero weights and output.
"""

import math


def _rows(matrix):
    """A 2-D array-like as a list of lists of Python floats (works for numpy arrays and lists)."""
    return [[float(value) for value in row] for row in matrix]


def softmax_row(row):
    """[n] -> [n]: exp(x_j - max) / sum_i exp(x_i - max); -inf entries get 0, an all -inf row all 0."""
    finite = [value for value in row if value != -math.inf]
    if not finite:
        return [0.0] * len(row)
    top = max(finite)
    exps = [0.0 if value == -math.inf else math.exp(value - top) for value in row]
    total = 0.0
    for e in exps:
        total += e
    return [e / total for e in exps]


def softmax(matrix):
    """[n_rows, n] -> [n_rows, n]: softmax of every row."""
    return [softmax_row(row) for row in _rows(matrix)]


def matmul(a, b):
    """[n, m] x [m, p] -> [n, p], three nested loops."""
    a, b = _rows(a), _rows(b)
    n, m, p = len(a), len(b), len(b[0])
    out = [[0.0] * p for _ in range(n)]
    for i in range(n):
        for j in range(p):
            total = 0.0
            for r in range(m):
                total += a[i][r] * b[r][j]
            out[i][j] = total
    return out


def attention(q, k, v, mask=None, scale=None):
    """[n_q, d_k], [n_k, d_k], [n_k, d_v] (+ [n_q, n_k] mask) -> output [n_q, d_v], weights [n_q, n_k].

    For each query i: score_ij = scale * sum_c q_ic k_jc (scale = 1/sqrt(d_k) by default), then the
    mask (bool: False -> -inf; float: added), then softmax over j, then output_i = sum_j w_ij v_j.
    """
    q, k, v = _rows(q), _rows(k), _rows(v)
    n_q, d_k, n_k, d_v = len(q), len(q[0]), len(k), len(v[0])
    if scale is None:
        scale = 1.0 / math.sqrt(d_k)
    weights, output = [], []
    for i in range(n_q):
        scores = []
        for j in range(n_k):
            dot = 0.0
            for c in range(d_k):
                dot += q[i][c] * k[j][c]
            score = dot * scale
            if mask is not None:
                m = mask[i][j]
                if type(m).__name__ in ("bool", "bool_"):  # Python or numpy boolean: True = may attend
                    score = score if m else -math.inf
                else:
                    score = score + float(m)
            scores.append(score)
        row = softmax_row(scores)
        out = [0.0] * d_v
        for j in range(n_k):
            for c in range(d_v):
                out[c] += row[j] * v[j][c]
        weights.append(row)
        output.append(out)
    return output, weights


def multi_head_attention(x, w_q, w_k, w_v, w_o, n_heads, mask=None, memory=None):
    """[n, d_model] with [d_model, d_model] weights -> output [n, d_model], weights [h, n, n].

    Head i projects with columns i*d_k:(i+1)*d_k of w_q, w_k, w_v, attends with its own
    1/sqrt(d_k); the heads' outputs are concatenated side by side and multiplied by w_o.
    With `memory` [n_k, d_model] the keys and values are projected from it (cross-attention).
    """
    x, w_q, w_k, w_v, w_o = _rows(x), _rows(w_q), _rows(w_k), _rows(w_v), _rows(w_o)
    source = x if memory is None else _rows(memory)
    d_model = len(x[0])
    d_k = d_model // n_heads
    concat = [[] for _ in x]
    all_weights = []
    for head in range(n_heads):
        cols = range(head * d_k, (head + 1) * d_k)
        q = matmul(x, [[row[c] for c in cols] for row in w_q])
        k = matmul(source, [[row[c] for c in cols] for row in w_k])
        v = matmul(source, [[row[c] for c in cols] for row in w_v])
        out, weights = attention(q, k, v, mask=mask)
        for t, row in enumerate(out):
            concat[t].extend(row)
        all_weights.append(weights)
    return matmul(concat, w_o), all_weights
