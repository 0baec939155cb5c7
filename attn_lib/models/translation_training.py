"""Training notebook 09's encoder–decoder on the parallel corpus: AdamW on minibatches, attention dropout, the best
validation checkpoint.

    corpus = make_parallel_corpus()
    result = train(corpus, seed=0)                      # 600 steps, attention dropout 0.1; a few seconds
    result = train(corpus, seed=0, drop=0.0)            # the same without dropout

Every `eval_every` steps the loss on the validation split is measured (with the reference words as the
decoder's input, and no dropout), together with the share of validation sentences whose greedy translation
is exactly right; the parameters of the evaluation with the lowest validation loss are the ones returned
(the best validation checkpoint). That is the one decision the validation split makes here. corpus.test is
never looked at.
"""

import time
from dataclasses import dataclass, field

import numpy as np

from attn_lib._checks import check_positive_int, describe_value
from attn_lib.dropout import check_rate
from attn_lib.models.encoder_decoder import Seq2SeqConfig, init_params, loss_and_gradients, mean_loss
from attn_lib.models.lm_training import learning_rate
from attn_lib.models.tiny_training import adam_step, check_number
from attn_lib.models.translation_corpus import ParallelCorpus
from attn_lib.models.translation_decoding import exact_match

#: The settings of the stored model (benchmarks/train_translation.py), `train`'s defaults.
SETTINGS = {
    "d_model": 32, "n_heads": 4, "encoder_layers": 2, "decoder_layers": 2, "d_ff": 64, "drop": 0.1,
    "lr": 3e-3, "warmup": 50, "batch_size": 32, "max_steps": 600, "eval_every": 50, "weight_decay": 0.01,
}  # fmt: skip


@dataclass
class TranslationTrainResult:
    """The parameters of the best validation checkpoint, the config, and what happened on the way.

    history: one dict per evaluation: step (updates done), train_loss (the mean of the minibatch losses
    since the previous evaluation, with dropout on; None at step 0), validation_loss, validation_exact
    (the share of validation sentences translated exactly, greedily). best_step: the step whose parameters
    were kept. seconds and cpu_seconds: the wall clock and the process's CPU time of the whole of `train`.
    """

    params: dict
    config: Seq2SeqConfig
    steps: int
    best_step: int
    seconds: float
    cpu_seconds: float
    settings: dict = field(default_factory=dict)
    history: list = field(default_factory=list)


def trim(source, target):
    """[B, S], [B, T] -> the same without the columns that are <pad> in every row."""
    return source[:, : (source != 0).sum(axis=1).max()], target[:, : (target != 0).sum(axis=1).max()]


def _check_settings(settings):
    unknown = sorted(set(settings) - set(SETTINGS))
    if unknown:
        raise TypeError(f"train() got unknown settings {unknown}; the settings are {sorted(SETTINGS)}")
    s = SETTINGS | settings
    for name in ("d_model", "n_heads", "encoder_layers", "decoder_layers", "d_ff", "warmup", "batch_size"):
        s[name] = check_positive_int(s[name], name)
    s["max_steps"], s["eval_every"] = (
        check_positive_int(s["max_steps"], "max_steps"),
        check_positive_int(s["eval_every"], "eval_every"),
    )
    s["lr"] = check_number(s["lr"], "lr", 0.0, 1.0)
    s["weight_decay"] = check_number(s["weight_decay"], "weight_decay", 0.0, 1.0 / s["lr"], low_ok=True)
    try:
        s["drop"] = check_rate(s["drop"])
    except (TypeError, ValueError) as error:
        raise type(error)(f"drop (the attention dropout rate): {error}") from None
    return s


def train(corpus, seed=0, dtype=np.float64, progress=None, **settings):
    """Minibatch AdamW on corpus.train -> TranslationTrainResult with the best validation checkpoint's parameters.

    `settings` override SETTINGS (sizes, drop, lr, warmup, batch_size, max_steps, eval_every, weight_decay).
    Batches: the training pairs reshuffled every epoch by numpy.random.default_rng(seed); `seed` also draws
    the initial weights, and a generator of its own, default_rng((seed, 1)), the dropout masks: so two runs
    of one seed with and without dropout start from the same weights and see the same batches in the same
    order, and differ only by dropout. `progress`, if given, is called once per step with a dict:
    step, max_steps, loss (the minibatch's), validation_accuracy (the validation exact match where it was
    measured, else None), done — what `attn_lib.widgets.progress.TrainingProgress` draws.
    """
    start, cpu_start = time.perf_counter(), time.process_time()
    if not isinstance(corpus, ParallelCorpus):
        raise TypeError(f"corpus must be a ParallelCorpus from make_parallel_corpus(), got {describe_value(corpus)}")
    if progress is not None and not callable(progress):
        raise TypeError(
            f"progress must be a function (called with one dict per step) or None, got {describe_value(progress)}"
        )
    s = _check_settings(settings)
    sizes = ("d_model", "n_heads", "encoder_layers", "decoder_layers", "d_ff")
    config = Seq2SeqConfig(len(corpus.source_vocab), len(corpus.target_vocab), *(s[name] for name in sizes))
    params = init_params(config, seed=seed, dtype=dtype)
    rng, drop_rng = np.random.default_rng(seed), np.random.default_rng((seed, 1))
    validation = trim(corpus.validation.source, corpus.validation.target)
    best = {"loss": np.inf, "step": 0, "params": params}
    history, state, order, recent, train_loss = [], {}, np.array([], dtype=np.int64), [], None
    for step in range(s["max_steps"] + 1):  # `step` updates done so far
        measured = None
        if step % s["eval_every"] == 0 or step == s["max_steps"]:
            validation_loss = mean_loss(params, config, *validation)
            measured = exact_match(params, config, corpus.validation, corpus)
            history.append({"step": step, "train_loss": float(np.mean(recent)) if recent else None})
            history[-1] |= {"validation_loss": float(validation_loss), "validation_exact": measured}
            recent = []
            if validation_loss < best["loss"]:
                best = {"loss": validation_loss, "step": step, "params": {k: v.copy() for k, v in params.items()}}
        done = step == s["max_steps"]
        if not done:
            if len(order) < s["batch_size"]:
                order = np.concatenate([order, rng.permutation(len(corpus.train))])  # a new epoch, reshuffled
            rows, order = order[: s["batch_size"]], order[s["batch_size"] :]
            batch = trim(corpus.train.source[rows], corpus.train.target[rows])
            train_loss, grads = loss_and_gradients(params, config, *batch, s["drop"], drop_rng)
            recent.append(train_loss)
        if progress is not None:  # the minibatch's loss (on the last step, the one before: no batch is drawn)
            progress({"step": step, "max_steps": s["max_steps"], "loss": train_loss, "validation_accuracy": measured,
                      "done": done})  # fmt: skip
        if done:
            break
        rate = learning_rate(step, s["lr"], s["warmup"], s["max_steps"])
        adam_step(params, grads, state, lr=rate, weight_decay=s["weight_decay"])
    return TranslationTrainResult(
        params=best["params"],
        config=config,
        steps=s["max_steps"],
        best_step=best["step"],
        seconds=time.perf_counter() - start,
        cpu_seconds=time.process_time() - cpu_start,
        settings={"seed": seed, "dtype": np.dtype(dtype).name, **s},
        history=history,
    )
