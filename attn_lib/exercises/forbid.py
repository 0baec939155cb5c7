"""Which attn_lib functions an exercise may not call, and a watcher that notices a call however it is made.

An exercise that says "write the softmax yourself" is passed trivially by `attn_lib.softmax`, so its
checker forbids it. Forbidding a function also forbids every attn_lib function that does its work
(`scaled_dot_product_attention` computes a softmax too). The watcher is a per-thread profile hook
(`sys.setprofile`) that compares the code object of every Python function entered with the
forbidden ones, so `import attn_lib; attn_lib.softmax`, `from attn_lib.core import softmax`, an alias,
a `functools.partial` or a helper function of the learner's that calls it are all seen.
"""

import os
import sys

from attn_lib import block, core, efficient, grouped, multihead, position, sliding_window
from attn_lib.exercises import counting_reference
from attn_lib.models import bert, ngram, tiny_model

_ATTENTION = (  # every function that computes softmax(q k^T * scale + mask) v
    "scaled_dot_product_attention",
    "multi_head_attention",
    "tiled_attention",
    "blocked_attention_with_weights",
    "KVCache",
)
# name -> the functions that do its work, each forbidden along with it
_DOING_THE_WORK_OF = {
    "softmax": ("softmax", *_ATTENTION),
    "scaled_dot_product_attention": _ATTENTION,
    "causal_mask": ("causal_mask",),
    "split_heads": ("split_heads", "multi_head_attention"),
    "merge_heads": ("merge_heads", "multi_head_attention"),
    # every function that computes Concat(head_1, ..., head_h) W_O from x and the four weights
    "multi_head_attention": ("multi_head_attention", "grouped_query_attention", "multi_head_with", "attention_layer"),
    "count_parameters": ("count_parameters",),
    "count_next_tokens": ("count_next_tokens",),  # next_token_distribution calls it, so it is seen too
    "grouped_attention": ("grouped_attention", "grouped_query_attention", "repeat_kv", "KVCache"),
    "sliding_window_mask": ("sliding_window_mask",),
    "kv_cache_bytes": ("kv_cache_bytes",),
    "sinusoidal_encoding": ("sinusoidal_encoding",),
    "rope": ("rope", "rope_matrix"),
    "layer_norm": ("layer_norm",),
    "window_counts": ("window_counts",),  # the counting exercise's own reference, public in attn_lib.exercises.counting
}
FORBIDDABLE = tuple(_DOING_THE_WORK_OF)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(core.__file__)) + os.sep


_MODULES = {  # functions outside the package's top level, by module
    "attn_lib.efficient.": ("tiled_attention", "blocked_attention_with_weights", "KVCache"),
    "attn_lib.grouped.": ("grouped_attention", "grouped_query_attention", "repeat_kv", "kv_cache_bytes"),
    "attn_lib.sliding_window.": ("sliding_window_mask",),
    "attn_lib.models.ngram.": ("count_next_tokens",),
    "attn_lib.models.bert.": ("multi_head_with",),
    "attn_lib.models.tiny_model.": ("attention_layer",),
    "attn_lib.position.": ("sinusoidal_encoding", "rope", "rope_matrix"),
    "attn_lib.block.": ("layer_norm",),
    "attn_lib.exercises.counting.": ("window_counts",),
}


def public_name(name):
    """Where a learner finds the function `name`: "attn_lib.softmax", "attn_lib.efficient.KVCache", ..."""
    module = next((prefix for prefix, names in _MODULES.items() if name in names), "attn_lib.")
    return module + name


def _public_codes():
    """code object -> its public name ("attn_lib.softmax"), for each forbiddable function and its private helpers."""
    functions = {
        "softmax": (core.softmax, core._softmax),
        "scaled_dot_product_attention": (core.scaled_dot_product_attention, core._attention_blocked),
        "causal_mask": (core.causal_mask,),
        "split_heads": (multihead.split_heads,),
        "merge_heads": (multihead.merge_heads,),
        "multi_head_attention": (multihead.multi_head_attention, multihead._attend_heads),
        "count_parameters": (multihead.count_parameters,),
        "tiled_attention": (efficient.tiled_attention,),
        "blocked_attention_with_weights": (efficient.blocked_attention_with_weights,),
        "KVCache": tuple(f for f in vars(efficient.KVCache).values() if hasattr(f, "__code__")),
        "count_next_tokens": (ngram.count_next_tokens,),
        "grouped_attention": (grouped.grouped_attention,),
        "grouped_query_attention": (grouped.grouped_query_attention,),
        "repeat_kv": (grouped.repeat_kv,),
        "sliding_window_mask": (sliding_window.sliding_window_mask,),
        "kv_cache_bytes": (grouped.kv_cache_bytes,),
        "multi_head_with": (bert.multi_head_with,),
        "attention_layer": (tiny_model.attention_layer,),
        "sinusoidal_encoding": (position.sinusoidal_encoding,),
        "rope": (position.rope,),
        "rope_matrix": (position.rope_matrix,),
        "layer_norm": (block.layer_norm, block._layer_norm),
        "window_counts": (counting_reference.window_counts,),
    }
    return {name: {f.__code__: public_name(name) for f in fs} for name, fs in functions.items()}


def check_forbid(forbid):
    """`forbid` as a tuple of names from FORBIDDABLE (a single name is accepted too)."""
    names = (forbid,) if isinstance(forbid, str) else forbid
    try:
        names = tuple(names)
    except TypeError:
        names = None
    if names is None or not all(isinstance(name, str) and name in FORBIDDABLE for name in names):
        raise ValueError(f"forbid must be a tuple of attn_lib function names from {FORBIDDABLE}, got {forbid!r}")
    return names


class Watch:
    """A profile hook: the first forbidden attn_lib function the learner's code runs, as a message's fields.

    `found` is None, or {"name": the attn_lib function the learner called, "what": the forbidden one
    it does the work of}; both are "attn_lib.softmax" when the learner called it directly.
    """

    def __init__(self, forbid):
        public = _public_codes()
        self.codes = {}  # code object -> (its public name, the forbidden name it does the work of)
        for what in check_forbid(forbid):
            for doer in _DOING_THE_WORK_OF[what]:
                for code, name in public[doer].items():
                    self.codes.setdefault(code, (name, public_name(what)))
        self.found = None
        self.top = None  # the checker's frame that calls the learner's function

    def __bool__(self):
        return bool(self.codes)

    def start(self, top):
        """Watch the calling thread, below the frame `top`."""
        self.top = top
        sys.setprofile(self)

    def __call__(self, frame, event, arg):
        if event != "call" or self.found is not None or frame.f_code not in self.codes:
            return
        name, what = self.codes[frame.f_code]
        caller = frame.f_back  # report the attn_lib function the learner's own code called
        while caller is not None and caller is not self.top:
            if caller.f_code.co_filename.startswith(_PACKAGE_DIR):  # an attn_lib function, closer to the learner
                default = f"{caller.f_globals.get('__name__')}.{caller.f_code.co_name}"
                name = self.codes.get(caller.f_code, (default,))[0]
            caller = caller.f_back
        self.found = {"name": name, "what": what}
