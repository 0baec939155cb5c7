"""Training the tiny model with Adam, and looking inside it: accuracy, attention from the blank, ablation.

    result = train(make_corpus())              # early-stops once the held-out accuracy target is met
    accuracy(result.params, result.config, corpus.heldout)
    role_attention(result.params, result.config, corpus.heldout)   # [layers, heads] weight on 今天's city
    ablation_accuracy(result.params, result.config, corpus.heldout, "today")

`result.checkpoints` holds copies of the parameters during training (for a slider over steps).
"""

from dataclasses import dataclass, field

import numpy as np

from attn_lib._checks import _describe, check_positive_int
from attn_lib.corpus import Corpus, Split
from attn_lib.tiny_model import TinyConfig, attention_mask, forward, gradients, init_params

ROLES = ("today", "yesterday")


def adam_step(params, grads, state, lr=0.02, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0):
    """One Adam update of every parameter, in place; `state` holds the moments m, v and the step t.

    With weight_decay > 0 every parameter also shrinks by lr * weight_decay of itself (AdamW).
    """
    state["t"] = t = state.get("t", 0) + 1
    for name, g in grads.items():
        m = state.setdefault(("m", name), np.zeros_like(g))
        v = state.setdefault(("v", name), np.zeros_like(g))
        m += (1 - beta1) * (g - m)  # running mean of the gradient
        v += (1 - beta2) * (g * g - v)  # running mean of its square
        m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)  # bias correction for the first steps
        params[name] -= lr * (m_hat / (np.sqrt(v_hat) + eps) + weight_decay * params[name])


def predict(params, config, split, mask=None):
    """-> predicted token ids [B] at the blanks of `split`."""
    logits, _ = forward(params, config, split.tokens, split.blank, mask=mask)  # [B, V]
    return np.argmax(logits, axis=-1)


def accuracy(params, config, split, mask=None):
    """The fraction of sentences in `split` whose blank gets the today-city's dish as top prediction."""
    return float(np.mean(predict(params, config, split, mask) == split.target))


@dataclass
class TrainResult:
    """The trained parameters, the config, and what happened on the way.

    history: one dict per evaluation, from step 0: step (updates done), loss (training set), heldout_accuracy.
    checkpoints: (step, params copy) pairs, from step 0 to the last step.
    """

    params: dict
    config: TinyConfig
    steps: int
    reached_target: bool
    history: list = field(default_factory=list)
    checkpoints: list = field(default_factory=list)


def _check_corpus(corpus):
    if not isinstance(corpus, Corpus):
        raise TypeError(f"corpus must be a Corpus from attn_lib.corpus.make_corpus(), got {_describe(corpus)}")


def _check_number(value, name, low, high, low_ok=False, high_ok=False):
    """`value` as a float if it lies between low and high (ends included where *_ok), else an error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {_describe(value)}")
    above = value >= low if low_ok else value > low
    below = value <= high if high_ok else value < high
    if not (above and below):
        interval = f"{'[' if low_ok else '('}{low:g}, {high:g}{']' if high_ok else ')'}"
        raise ValueError(f"{name}={value!r} must lie in {interval}")
    return float(value)


def train(
    corpus,
    d_model=16,
    n_heads=2,
    n_layers=2,
    seed=0,
    lr=0.02,
    weight_decay=0.5,
    max_steps=300,
    target_accuracy=0.99,
    eval_every=10,
    checkpoint_every=5,
    dtype=np.float32,
):
    """Full-batch AdamW on corpus.train until held-out accuracy >= target_accuracy (or max_steps) -> TrainResult.

    Weight decay matters for *where* the model looks: without it the model also reaches the accuracy
    target, but spreads the blank's attention over the today-city and its neighbours; with it, the
    cheapest way to a confident answer is to look at the today-city itself.
    """
    _check_corpus(corpus)
    max_steps = check_positive_int(max_steps, "max_steps")
    eval_every = check_positive_int(eval_every, "eval_every")
    checkpoint_every = check_positive_int(checkpoint_every, "checkpoint_every")
    lr = _check_number(lr, "lr", 0.0, 1.0)
    weight_decay = _check_number(weight_decay, "weight_decay", 0.0, 1.0 / lr, low_ok=True)
    target_accuracy = _check_number(target_accuracy, "target_accuracy", 0.0, 1.0, high_ok=True)
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model, n_heads, n_layers)
    params = init_params(config, seed=seed, dtype=dtype)
    data, heldout = corpus.train, corpus.heldout
    result = TrainResult(params, config, steps=0, reached_target=False)
    result.checkpoints.append((0, {name: p.copy() for name, p in params.items()}))
    state = {}
    for step in range(max_steps + 1):  # `step` updates done so far
        loss, grads = gradients(params, config, data.tokens, data.blank, data.target)
        if step % eval_every == 0 or step == max_steps:
            held = accuracy(params, config, heldout)
            result.history.append({"step": step, "loss": loss, "heldout_accuracy": held})
            if held >= target_accuracy:
                result.reached_target = True
                break
        if step == max_steps:
            break
        adam_step(params, grads, state, lr=lr, weight_decay=weight_decay)
        result.steps = step + 1
        if result.steps % checkpoint_every == 0:
            result.checkpoints.append((result.steps, {name: p.copy() for name, p in params.items()}))
    if result.checkpoints[-1][0] != result.steps:
        result.checkpoints.append((result.steps, {name: p.copy() for name, p in params.items()}))
    return result


# --- looking inside --------------------------------------------------------------------------------


def _check_split(split):
    if not isinstance(split, Split):
        raise TypeError(f"split must be a corpus Split (corpus.train or corpus.heldout), got {_describe(split)}")


def _role_positions(split, role):
    if role not in ROLES:
        raise ValueError(f"role={role!r} must be one of {ROLES}")
    return split.today if role == "today" else split.yesterday


def blank_attention(params, config, split, mask=None):
    """-> weights [L, h, B, n]: in every layer and head, how the blank of each sentence spreads its attention."""
    _check_split(split)
    _, caches = forward(params, config, split.tokens, split.blank, mask=mask)
    rows = np.arange(len(split))
    return np.stack([cache["weights"][rows, :, split.blank] for cache in caches["layers"]]).transpose(0, 2, 1, 3)


def role_attention(params, config, split, role="today"):
    """-> [L, h]: the average weight that the blank puts on the today-city (or yesterday-city) token."""
    _check_split(split)
    return _role_weights(blank_attention(params, config, split), split, role)


def _role_weights(weights, split, role):
    """weights [L, h, B, n] of the blank -> [L, h]: their average on the `role` city's position."""
    positions = _role_positions(split, role)
    return weights[:, :, np.arange(len(split)), positions].mean(axis=-1)  # [L, h, B] -> [L, h]


def ablation_accuracy(params, config, split, role="today", scope="all"):
    """Accuracy when the `role` city token is hidden: scope="all": from every token in every layer;
    scope="blank": only from the blank's own query (in every layer)."""
    _check_split(split)
    positions = _role_positions(split, role)
    if scope not in ("all", "blank"):
        raise ValueError(f"scope={scope!r} must be 'all' or 'blank'")
    mask = attention_mask(split.tokens.shape[1], positions, "all" if scope == "all" else split.blank)
    return accuracy(params, config, split, mask=mask)


def attention_during_training(result, split):
    """-> steps [C], today [C, L, h], yesterday [C, L, h]: `role_attention` at every checkpoint of `result`."""
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be the TrainResult returned by train(), got {_describe(result)}")
    _check_split(split)
    steps = np.array([step for step, _ in result.checkpoints])  # [C]
    weights = [blank_attention(p, result.config, split) for _, p in result.checkpoints]  # one forward pass each
    today = np.stack([_role_weights(w, split, "today") for w in weights])  # [C, L, h]
    yesterday = np.stack([_role_weights(w, split, "yesterday") for w in weights])  # [C, L, h]
    return steps, today, yesterday  # [C], [C, L, h], [C, L, h]
