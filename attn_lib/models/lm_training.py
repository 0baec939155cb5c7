"""Training notebook 13's tiny language model, and measuring it: AdamW on minibatches, the best validation checkpoint.

    corpus = make_lm_corpus()
    result = train(corpus, seed=0)                      # 1,500 steps; keeps the best *validation* checkpoint
    split_loss(result.params, result.config, corpus.test)        # nats per token, on the test split only
    blank_accuracy(result.params, result.config, corpus.test)    # 今天在上海吃了_ on the test city pairs

The optimiser is notebook 08's `adam_step` (AdamW). The learning rate warms up linearly for `warmup`
steps, then falls linearly to a tenth. Every `eval_every` steps the loss on the validation split is
measured, and the parameters of the evaluation with the lowest validation loss are the ones returned
(the *best validation checkpoint*): that is the one decision the validation split makes. There is no
early stopping: with this schedule the validation loss still falls at the end (the stored seeds'
best checkpoint is their last or next-to-last evaluation), so a patience rule would never fire.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from attn_lib._checks import check_float_dtype, check_positive_int, describe_value
from attn_lib.models.lm_corpus import LMCorpus, LMSplit
from attn_lib.models.tiny_lm import (
    LMConfig,
    forward,
    init_params,
    loss_and_gradients,
    next_token_targets,
    unembed,
)
from attn_lib.models.tiny_training import adam_step, check_number

#: The settings of the stored model (benchmarks/train_tiny_lm.py), `train`'s defaults.
SETTINGS = {
    "d_model": 32, "n_heads": 4, "n_layers": 2, "d_ff": 128, "lr": 2e-2, "warmup": 50, "batch_size": 32,
    "max_steps": 1500, "eval_every": 100, "weight_decay": 0.1,
}  # fmt: skip


@dataclass
class LMTrainResult:
    """The parameters of the best validation checkpoint, the config, and what happened on the way.

    history: one dict per evaluation: step (updates done), train_loss (the mean of the minibatch losses
    since the previous evaluation; None at step 0), validation_loss. best_step: the step whose
    parameters were kept. seconds: the wall clock of the whole of `train`; cpu_seconds: the process's
    CPU time over the same span (on a shared machine the wall clock also counts other work).
    """

    params: dict
    config: LMConfig
    steps: int
    best_step: int
    seconds: float
    cpu_seconds: float
    settings: dict = field(default_factory=dict)
    history: list = field(default_factory=list)


def _check_corpus(corpus):
    if not isinstance(corpus, LMCorpus):
        raise TypeError(
            f"corpus must be an LMCorpus from attn_lib.models.lm_corpus.make_lm_corpus(), got {describe_value(corpus)}"
        )


def _check_split(split):
    if not isinstance(split, LMSplit):
        raise TypeError(f"split must be an LMSplit (corpus.train, .validation or .test), got {describe_value(split)}")


def _check_training_dtype(dtype):
    """`dtype` as a numpy dtype that can train the model: float32 or float64 (or wider), else a clear error."""
    dtype = check_float_dtype(dtype, "dtype")
    if dtype == np.float16:
        # measured: the very first AdamW update turns the weights to NaN, and the next evaluation fails in attention
        raise ValueError(
            "dtype=float16 cannot train this model: AdamW's eps=1e-8 rounds to 0 in float16, so a weight whose"
            " gradient is 0 in a batch (the embedding row of a token the batch lacks) is updated by 0/0 = NaN at the"
            " first step. Train in np.float32 (the stored model's dtype) or np.float64, and cast the trained weights"
            " with .astype(np.float16) afterwards if you want them in float16"
        )
    return dtype


def trim(tokens):
    """[B, n] ids -> [B, n'] with the columns that are <pad> in every row cut off (n' = the longest row)."""
    longest = int((tokens != 0).sum(axis=1).max())
    return tokens[:, :longest]  # [B, n] -> [B, n']


def token_losses(params, config, split, chunk=512):
    """-> the cross-entropy (nats) of every predicted token of `split` [N], sentence by sentence, in float64.

    The predicted tokens are every token after <bos>, the final 。 included: what a counted model is
    scored on too (attn_lib.models.ngram.add_one_log_probs), so the two can be compared token for token.
    """
    _check_split(split)
    out = []
    for start in range(0, len(split), chunk):
        inputs, targets, real = next_token_targets(trim(split.tokens[start : start + chunk]))  # [b, n-1] each
        h, _ = forward(params, config, inputs)  # [b, n-1, d]
        logits = unembed(params, h[real]).astype(np.float64)  # [N_b, V]
        top = logits.max(axis=-1)  # [N_b]
        log_z = np.log(np.exp(logits - top[:, None]).sum(axis=-1)) + top  # [N_b]: log sum exp
        out.append(log_z - logits[np.arange(len(logits)), targets[real]])
    return np.concatenate(out)  # [N]


def split_loss(params, config, split):
    """-> the mean cross-entropy per predicted token (nats) over `split`; the perplexity is exp of it."""
    return float(token_losses(params, config, split).mean())


def blank_logits(params, config, split):
    """-> logits [B', V] at the blank (the final 吃了) of the city-pair sentences of `split`, and their rows [B']."""
    _check_split(split)
    rows = np.flatnonzero(split.blank >= 0)  # [B']
    h, _ = forward(params, config, trim(split.tokens[rows])[:, :-1])  # inputs: [B', n - 1] -> [B', n - 1, d]
    return unembed(params, h[np.arange(len(rows)), split.blank[rows]]), rows  # [B', V]


def blank_accuracy(params, config, split):
    """-> the share of city-pair sentences whose most likely token at the blank is the today-city's dish."""
    logits, rows = blank_logits(params, config, split)
    return float(np.mean(np.argmax(logits, axis=-1) == split.target[rows]))


def learning_rate(step, lr, warmup, max_steps):
    """-> the rate of update `step` + 1: a linear warm-up over `warmup` steps, then a linear fall to lr / 10."""
    if step < warmup:
        return lr * (step + 1) / warmup
    return lr * (1.0 - 0.9 * (step - warmup) / max(1, max_steps - warmup))


def train(corpus, seed=0, dtype=np.float32, **settings):
    """Minibatch AdamW on corpus.train -> LMTrainResult with the best validation checkpoint's parameters.

    `settings` override SETTINGS (d_model, n_heads, n_layers, d_ff, lr, warmup, batch_size, max_steps,
    eval_every, weight_decay). Batches: the training sentences reshuffled every epoch by
    numpy.random.default_rng(seed) (the same seed also draws the initial weights), each batch trimmed to
    its longest sentence. corpus.test is never looked at.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    _check_corpus(corpus)
    dtype = _check_training_dtype(dtype)
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise TypeError(f"train() got unknown settings {unknown}; the settings are {sorted(SETTINGS)}")
    s = SETTINGS | settings
    for name in ("d_model", "n_heads", "n_layers", "d_ff", "warmup", "batch_size", "max_steps", "eval_every"):
        s[name] = check_positive_int(s[name], name)
    s["lr"] = check_number(s["lr"], "lr", 0.0, 1.0)
    s["weight_decay"] = check_number(s["weight_decay"], "weight_decay", 0.0, 1.0 / s["lr"], low_ok=True)
    config = LMConfig(len(corpus.vocab), corpus.max_len - 1, s["d_model"], s["n_heads"], s["n_layers"], s["d_ff"])
    params = init_params(config, seed=seed, dtype=dtype)  # inputs have n - 1 positions: the last token is only a target
    rng = np.random.default_rng(seed)
    data = corpus.train.tokens
    best = {"loss": np.inf, "step": 0, "params": params}
    history, state, order, recent = [], {}, np.array([], dtype=np.int64), []
    for step in range(s["max_steps"] + 1):  # `step` updates done so far
        if step % s["eval_every"] == 0 or step == s["max_steps"]:
            validation = split_loss(params, config, corpus.validation)
            history.append({"step": step, "train_loss": float(np.mean(recent)) if recent else None})
            history[-1]["validation_loss"] = validation
            recent = []
            if validation < best["loss"]:
                best = {"loss": validation, "step": step, "params": {k: v.copy() for k, v in params.items()}}
        if step == s["max_steps"]:
            break
        if len(order) < s["batch_size"]:
            order = np.concatenate([order, rng.permutation(len(data))])  # a new epoch, reshuffled
        rows, order = order[: s["batch_size"]], order[s["batch_size"] :]
        inputs, targets, real = next_token_targets(trim(data[rows]))  # [b, n-1] each
        loss, grads = loss_and_gradients(params, config, inputs, targets, real)
        recent.append(loss)
        rate = learning_rate(step, s["lr"], s["warmup"], s["max_steps"])
        adam_step(params, grads, state, lr=rate, weight_decay=s["weight_decay"])
    return LMTrainResult(
        params=best["params"],
        config=config,
        steps=s["max_steps"],
        best_step=best["step"],
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
        settings={"seed": seed, "dtype": np.dtype(dtype).name, **s},
        history=history,
    )
