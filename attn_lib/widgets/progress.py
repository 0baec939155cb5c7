"""A live training curve for notebook 08: pass it to `train(..., progress=TrainingProgress())`.

While the model trains, one output of the cell shows the training loss and the validation accuracy so
far, redrawn in place (IPython's `display_id`) at most every `interval` seconds, and never so often
that drawing takes more than a tenth of the time. When training ends it is redrawn once more, and
that last picture is what the saved notebook (and a reader on GitHub) shows. The output's text form
never changes, so checking the notebook's outputs (nbval) sees the same text however fast the
machine is. Outside a notebook nothing is shown; `figure()` still draws the curve.
"""

import base64
import io
import time

from attn_lib._checks import describe_value
from attn_lib.i18n import check_language, get_language, t
from attn_lib.pictures.training_plots import plot_progress


class TrainingProgress:
    """A `progress` callback for `tiny_training.train` that keeps a live loss/accuracy picture up to date."""

    def __init__(self, target_accuracy=0.99, interval=1.0, lang=None):
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not interval >= 0:
            raise ValueError(f"interval must be a number of seconds >= 0, got {describe_value(interval)}")
        self.target, self.interval = target_accuracy, float(interval)
        self.lang = get_language() if lang is None else check_language(lang)
        self.steps, self.loss, self.eval_steps, self.accuracy = [], [], [], []
        self.max_steps, self.done, self.redraws = None, False, 0
        self._handle, self._next_draw = None, None

    def __call__(self, event):
        """Record one step's event from `train` (a dict: step, max_steps, loss, validation_accuracy, done)."""
        if not isinstance(event, dict) or not {"step", "max_steps", "loss", "validation_accuracy"} <= set(event):
            raise TypeError(f"event must be the dict that train() passes to progress, got {describe_value(event)}")
        if event["step"] == 0:  # a new run: start a new curve
            self.steps, self.loss, self.eval_steps, self.accuracy = [], [], [], []
            self._handle, self._next_draw = None, None
        self.max_steps, self.done = event["max_steps"], bool(event.get("done", False))
        self.steps.append(event["step"])
        self.loss.append(event["loss"])
        if event["validation_accuracy"] is not None:
            self.eval_steps.append(event["step"])
            self.accuracy.append(event["validation_accuracy"])
        start = time.perf_counter()
        if self.done or self._next_draw is None or start >= self._next_draw:
            self._show()
            drawing = time.perf_counter() - start
            self._next_draw = start + max(self.interval, 10 * drawing)  # drawing: at most a tenth of the time

    def figure(self):
        """The curve so far as a matplotlib Figure (what the live output shows)."""
        if not self.steps:
            raise ValueError("no training step recorded yet: pass this object to train(..., progress=...)")
        return plot_progress(self.steps, self.loss, self.eval_steps, self.accuracy, self.max_steps, self.target,
                             self.done, lang=self.lang)  # fmt: skip

    def _show(self):
        from IPython.core.interactiveshell import InteractiveShell  # only when there is something to show

        if not InteractiveShell.initialized():
            return  # a plain Python process: nothing to draw into
        from IPython.display import display

        buffer = io.BytesIO()
        self.figure().savefig(buffer, format="png", dpi=100)
        bundle = {
            "image/png": base64.b64encode(buffer.getvalue()).decode("ascii"),
            "text/plain": t("tiny.progress_text", self.lang),  # the same text at every redraw
        }
        if self._handle is None:
            self._handle = display(bundle, raw=True, display_id=True)
        else:
            self._handle.update(bundle, raw=True)
        self.redraws += 1
