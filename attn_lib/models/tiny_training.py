"""Training the tiny model with Adam, and looking inside it: accuracy, attention from the blank, ablation.

    corpus = make_corpus()
    result = train(corpus)                     # stops once the *validation* accuracy target is met
    accuracy(result.params, result.config, corpus.test)             # reported on the test split
    role_attention(result.params, result.config, corpus.test)       # [layers, heads] weight on 今天's city
    ablation_accuracy(result.params, result.config, corpus.test, "today")

`result.checkpoints` holds copies of the parameters during training (for a slider over steps).
"""

from dataclasses import dataclass, field

import numpy as np

from attn_lib._checks import check_positive_int, describe_value
from attn_lib.models.corpus import Corpus, Split
from attn_lib.models.tiny_model import TinyConfig, attention_mask, forward, gradients, init_params

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

    settings: the arguments of `train` that made it (seed, lr, weight_decay, max_steps, ...).
    history: one dict per evaluation, from step 0: step (updates done), loss (training set), validation_accuracy.
    checkpoints: (step, params copy) pairs, from step 0 to the last step.
    """

    params: dict
    config: TinyConfig
    steps: int
    reached_target: bool
    settings: dict = field(default_factory=dict)
    history: list = field(default_factory=list)
    checkpoints: list = field(default_factory=list)


def check_corpus(corpus):
    if not isinstance(corpus, Corpus):
        raise TypeError(
            f"corpus must be a Corpus from attn_lib.models.corpus.make_corpus(), got {describe_value(corpus)}"
        )


def check_number(value, name, low, high, low_ok=False, high_ok=False):
    """`value` as a float if it lies between low and high (ends included where *_ok), else an error."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, got {describe_value(value)}")
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
    progress=None,
):
    """Full-batch AdamW on corpus.train until validation accuracy >= target_accuracy (or max_steps) -> TrainResult.

    Only `corpus.validation` decides when to stop; `corpus.test` is never looked at, so accuracy on it
    is an honest report. `progress`, if given, is called once per step, before the update, with a dict:
    step (updates done), max_steps, loss (training set), validation_accuracy (a float at the steps
    where it is measured, else None) and done (True on the last call) — e.g. to draw a progress bar
    or a live loss curve (`attn_lib.widgets.progress.TrainingProgress`). The library itself prints nothing.

    Weight decay (AdamW's: each step also shrinks every parameter by lr * weight_decay of itself) is
    on by default; benchmarks/learned_attention_seeds.py measures what it changes.
    """
    check_corpus(corpus)
    max_steps = check_positive_int(max_steps, "max_steps")
    eval_every = check_positive_int(eval_every, "eval_every")
    checkpoint_every = check_positive_int(checkpoint_every, "checkpoint_every")
    lr = check_number(lr, "lr", 0.0, 1.0)
    weight_decay = check_number(weight_decay, "weight_decay", 0.0, 1.0 / lr, low_ok=True)
    target_accuracy = check_number(target_accuracy, "target_accuracy", 0.0, 1.0, high_ok=True)
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a function (called with one dict per step) or None, got {describe_value(progress)}"
        )
    config = TinyConfig(len(corpus.vocab), corpus.max_len, d_model, n_heads, n_layers)
    params = init_params(config, seed=seed, dtype=dtype)
    data, validation = corpus.train, corpus.validation
    settings = {"seed": seed, "lr": lr, "weight_decay": weight_decay, "max_steps": max_steps}
    settings |= {"target_accuracy": target_accuracy, "eval_every": eval_every, "dtype": np.dtype(dtype).name}
    result = TrainResult(params, config, steps=0, reached_target=False, settings=settings)
    result.checkpoints.append((0, {name: p.copy() for name, p in params.items()}))
    state = {}
    for step in range(max_steps + 1):  # `step` updates done so far
        loss, grads = gradients(params, config, data.tokens, data.blank, data.target)
        measured = None
        if step % eval_every == 0 or step == max_steps:
            measured = accuracy(params, config, validation)
            result.history.append({"step": step, "loss": loss, "validation_accuracy": measured})
            result.reached_target = measured >= target_accuracy
        done = result.reached_target or step == max_steps
        if progress is not None:
            progress(
                {"step": step, "max_steps": max_steps, "loss": loss, "validation_accuracy": measured, "done": done}
            )
        if done:
            break
        adam_step(params, grads, state, lr=lr, weight_decay=weight_decay)
        result.steps = step + 1
        if result.steps % checkpoint_every == 0:
            result.checkpoints.append((result.steps, {name: p.copy() for name, p in params.items()}))
    if result.checkpoints[-1][0] != result.steps:
        result.checkpoints.append((result.steps, {name: p.copy() for name, p in params.items()}))
    return result


# --- looking inside --------------------------------------------------------------------------------


def check_split(split):
    if not isinstance(split, Split):
        raise TypeError(
            f"split must be a corpus Split (corpus.train, .validation or .test), got {describe_value(split)}"
        )


def _role_positions(split, role):
    if role not in ROLES:
        raise ValueError(f"role={role!r} must be one of {ROLES}")
    return split.today if role == "today" else split.yesterday


def blank_attention(params, config, split, mask=None):
    """-> weights [L, h, B, n]: in every layer and head, how the blank of each sentence spreads its attention."""
    check_split(split)
    _, caches = forward(params, config, split.tokens, split.blank, mask=mask)
    rows = np.arange(len(split))
    return np.stack([cache["weights"][rows, :, split.blank] for cache in caches["layers"]]).transpose(0, 2, 1, 3)


def role_attention(params, config, split, role="today"):
    """-> [L, h]: the average weight that the blank puts on the today-city (or yesterday-city) token."""
    check_split(split)
    return _role_weights(blank_attention(params, config, split), split, role)


def _role_weights(weights, split, role):
    """weights [L, h, B, n] of the blank -> [L, h]: their average on the `role` city's position."""
    positions = _role_positions(split, role)
    return weights[:, :, np.arange(len(split)), positions].mean(axis=-1)  # [L, h, B] -> [L, h]


def ablation_accuracy(params, config, split, role="today", scope="all"):
    """Accuracy when the `role` city token is hidden: scope="all": from every token in every layer;
    scope="blank": only from the blank's own query (in every layer)."""
    check_split(split)
    positions = _role_positions(split, role)
    if scope not in ("all", "blank"):
        raise ValueError(f"scope={scope!r} must be 'all' or 'blank'")
    mask = attention_mask(split.tokens.shape[1], positions, "all" if scope == "all" else split.blank)
    return accuracy(params, config, split, mask=mask)


def attention_during_training(result, split):
    """-> steps [C], today [C, L, h], yesterday [C, L, h]: `role_attention` at every checkpoint of `result`."""
    if not isinstance(result, TrainResult):
        raise TypeError(f"result must be the TrainResult returned by train(), got {describe_value(result)}")
    check_split(split)
    steps = np.array([step for step, _ in result.checkpoints])  # [C]
    weights = [blank_attention(p, result.config, split) for _, p in result.checkpoints]  # one forward pass each
    today = np.stack([_role_weights(w, split, "today") for w in weights])  # [C, L, h]
    yesterday = np.stack([_role_weights(w, split, "yesterday") for w in weights])  # [C, L, h]
    return steps, today, yesterday  # [C], [C, L, h], [C, L, h]
