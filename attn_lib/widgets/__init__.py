"""The course's widgets: sliders and toggles that redraw a picture live, one module per group of notebooks.

    shell       what every widget shares: controls on top, the picture, numbers and messages below, and
                a still picture with a caption for readers without a kernel (GitHub, a closed notebook)
    attention   notebooks 00-06: the setup check, the d_k slider with its √d_k toggle, the mask toggle,
                the heads slider
    position    notebook 07: the position slider (key position, frequency base)
    training    notebook 08: a slider over the training checkpoints
    progress    notebook 08: the live training curve
    modern      notebook 12: the key/value-heads slider and the sliding window
    generation  notebook 13: temperature, top-k and top-p over the trained model's next token
    explorer    notebooks 10, 14 and 15: type a sentence, see every head of a real model and its next token

Each widget is built by a function (``dk_widget()``, ...) that returns it; its callbacks are plain methods,
tested by setting a control's ``.value``. This module re-exports those functions; the modules inside import
each other by their full names, never this one.
"""

from attn_lib.widgets.attention import dk_widget, heads_widget, mask_widget, setup_check_widget
from attn_lib.widgets.explorer import explorer_widget
from attn_lib.widgets.generation import sampling_widget
from attn_lib.widgets.modern import kv_heads_widget, window_widget
from attn_lib.widgets.position import position_widget
from attn_lib.widgets.progress import TrainingProgress
from attn_lib.widgets.training import checkpoint_widget

__all__ = [
    "setup_check_widget",
    "dk_widget",
    "mask_widget",
    "heads_widget",
    "position_widget",
    "checkpoint_widget",
    "TrainingProgress",
    "kv_heads_widget",
    "window_widget",
    "sampling_widget",
    "explorer_widget",
]
