"""Which attn_lib functions an exercise may not call, and a watcher that notices a call however it is made.

An exercise that says "write the softmax yourself" is passed trivially by `attn_lib.softmax`, so its
checker forbids it. Forbidding a function also forbids every attn_lib function that does its work
(`scaled_dot_product_attention` computes a softmax too). The watcher is a profile hook (`sys.setprofile`
in the thread that runs the learner's function, `threading.setprofile` for every thread it starts, and
on Python 3.12+ `threading.setprofile_all_threads` for threads already running) that compares the code
object of every Python function entered with the forbidden ones, so `import attn_lib; attn_lib.softmax`,
`from attn_lib.core import softmax`, an alias, a `functools.partial`, a helper function of the learner's
or a thread pool that calls it are all seen. The checker's own private answers (`Reference` functions
such as `attn_lib.exercises.modern._grouped`, and helpers that compute an answer's core, such as
`attn_lib.exercises.decoder_parts._attend`) are watched the same way, whatever `forbid` says.

Switching the watch off fails the check: a call of `sys.setprofile` or `threading.setprofile` while it
runs, or a profile hook that is no longer the watch when the learner's function returns (a profiler
such as cProfile replaces it), gives "watch_tampered".

What the checkers do not defend against. They check a learner's own work in the learner's own kernel,
where a determined learner can always make a check pass; they are a help, not an exam. Not seen:
forbidden work done outside Python functions of attn_lib (attn_lib's code copied into the notebook, or
the answer computed by another library such as PyTorch); work in another process (multiprocessing, a
subprocess); on Python before 3.12, threads that were already running before the call (a thread pool
made in an earlier cell) and forbidden functions run after the learner's function has returned; a hook
removed and reinstalled from C (ctypes). Not prevented: a learner's code that finds the checker's
inputs through `sys._current_frames()` and edits them, or that replaces the checker's own functions
(`attn_lib.exercises.compare.matches = ...`); the answer itself is computed only after the learner's
call has returned (`attn_lib.exercises.diagnose.Reference`), so it is not in memory to be read while
the function runs.
"""

import os
import sys
import threading

from attn_lib import block, core, dropout, efficient, grouped, multihead, position, sampling, sliding_window
from attn_lib.exercises import counting_reference
from attn_lib.models import encoder_decoder, generation, ngram, tiny_model
from attn_lib.models.gguf import arithmetic, decoder
from attn_lib.models.minilm import bert

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
    # grouped_unchecked: grouped_attention's arithmetic without its checks, the GGUF models' inner loop
    "grouped_attention": ("grouped_attention", "grouped_query_attention", "repeat_kv", "KVCache", "grouped_unchecked"),
    "sliding_window_mask": ("sliding_window_mask",),
    "kv_cache_bytes": ("kv_cache_bytes",),
    "apply_temperature": ("apply_temperature", "sampling_distribution", "sample"),  # sample uses it too
    "top_k_filter": ("top_k_filter", "sampling_distribution", "sample"),
    "top_p_filter": ("top_p_filter", "sampling_distribution", "sample"),
    "generate": ("generate", "write"),
    "attention_mask": ("attention_mask",),
    "sinusoidal_encoding": ("sinusoidal_encoding",),
    "rope": ("rope", "rope_matrix"),
    "layer_norm": ("layer_norm",),
    "rms_norm": ("rms_norm",),
    "swiglu": ("swiglu", "feed_forward"),  # feed_forward: the GGUF models' SwiGLU (SmolLM2's), threads and all
    "window_counts": ("window_counts",),  # the counting exercise's own reference, public in attn_lib.exercises.counting
    # queries from one sequence, keys and values from another: the formula and notebook 09's model step
    "cross_attention": ("cross_attention", "attention_forward"),
    "dropout": ("dropout",),
    "visible": ("visible",),  # the mask of the GGUF models' layers (a local one's too): notebook 15's local mask
}
FORBIDDABLE = tuple(_DOING_THE_WORK_OF)

_PACKAGE_DIR = os.path.dirname(os.path.abspath(core.__file__)) + os.sep


_MODULES = {  # functions outside the package's top level, by module
    "attn_lib.efficient.": ("tiled_attention", "blocked_attention_with_weights", "KVCache"),
    "attn_lib.grouped.": (
        "grouped_attention",
        "grouped_query_attention",
        "repeat_kv",
        "kv_cache_bytes",
        "grouped_unchecked",
    ),
    "attn_lib.sliding_window.": ("sliding_window_mask",),
    "attn_lib.models.ngram.": ("count_next_tokens",),
    "attn_lib.sampling.": ("apply_temperature", "top_k_filter", "top_p_filter", "sampling_distribution", "sample"),
    "attn_lib.models.generation.": ("generate", "write"),
    "attn_lib.models.tiny_model.": ("attention_mask", "attention_layer"),
    "attn_lib.models.minilm.bert.": ("multi_head_with",),
    "attn_lib.position.": ("sinusoidal_encoding", "rope", "rope_matrix"),
    "attn_lib.block.": ("layer_norm", "rms_norm", "swiglu"),
    "attn_lib.exercises.counting.": ("window_counts",),
    "attn_lib.multihead.": ("cross_attention",),
    "attn_lib.models.encoder_decoder.": ("attention_forward",),
    "attn_lib.dropout.": ("dropout",),
    "attn_lib.models.gguf.decoder.": ("visible",),
    "attn_lib.models.gguf.arithmetic.": ("feed_forward",),  # not attn_lib.block.feed_forward (GELU, biases)
}


def public_name(name):
    """Where a learner finds the function `name`: "attn_lib.softmax", "attn_lib.efficient.KVCache", ..."""
    module = next((prefix for prefix, names in _MODULES.items() if name in names), "attn_lib.")
    return module + name


def _public_codes():
    """code object -> its public name ("attn_lib.softmax"), for each forbiddable function and its private helpers."""
    functions = {
        "softmax": (core.softmax, core.softmax_unchecked),
        "scaled_dot_product_attention": (core.scaled_dot_product_attention, core.attention_blocked),
        "causal_mask": (core.causal_mask,),
        "split_heads": (multihead.split_heads,),
        "merge_heads": (multihead.merge_heads,),
        "multi_head_attention": (multihead.multi_head_attention, multihead.attend_heads),
        "count_parameters": (multihead.count_parameters,),
        "tiled_attention": (efficient.tiled_attention,),
        "blocked_attention_with_weights": (efficient.blocked_attention_with_weights,),
        "KVCache": tuple(f for f in vars(efficient.KVCache).values() if hasattr(f, "__code__")),
        "count_next_tokens": (ngram.count_next_tokens,),
        "grouped_attention": (grouped.grouped_attention,),
        "grouped_query_attention": (grouped.grouped_query_attention,),
        "repeat_kv": (grouped.repeat_kv,),
        "grouped_unchecked": (grouped.grouped_unchecked,),
        "sliding_window_mask": (sliding_window.sliding_window_mask,),
        "kv_cache_bytes": (grouped.kv_cache_bytes,),
        "apply_temperature": (sampling.apply_temperature,),
        "top_k_filter": (sampling.top_k_filter,),
        "top_p_filter": (sampling.top_p_filter,),
        "sampling_distribution": (sampling.sampling_distribution,),
        "sample": (sampling.sample,),
        "generate": (generation.generate,),
        "write": (generation.write,),
        "attention_mask": (tiny_model.attention_mask,),
        "multi_head_with": (bert.multi_head_with,),
        "attention_layer": (tiny_model.attention_layer,),
        "sinusoidal_encoding": (position.sinusoidal_encoding,),
        "rope": (position.rope,),
        "rope_matrix": (position.rope_matrix,),
        "layer_norm": (block.layer_norm, block.layer_norm_unchecked),
        "rms_norm": (block.rms_norm, block.rms_norm_unchecked),
        "swiglu": (block.swiglu, block._swiglu),
        "feed_forward": (arithmetic.feed_forward,),
        "window_counts": (counting_reference.window_counts,),
        "cross_attention": (multihead.cross_attention,),
        "attention_forward": (encoder_decoder.attention_forward,),
        "dropout": (dropout.dropout,),
        "visible": (decoder.visible,),
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


_SET_PROFILE = sys.setprofile  # a builtin: its call shows as a "c_call" event with this very object
_THREAD_HOOKS = {  # Python functions: their calls show as "call" events with these code objects
    f.__code__ for f in (getattr(threading, name, None) for name in ("setprofile", "setprofile_all_threads")) if f
}


class Watch:
    """A profile hook: the first forbidden attn_lib function the learner's code runs, as a message's fields.

    `found` is None, or {"name": the attn_lib function the learner called, "what": the forbidden one
    it does the work of}; both are "attn_lib.softmax" when the learner called it directly. `tampered`
    is True if the learner's code switched the hook off or replaced it. `references`: the checker's own
    private answer functions, watched whatever `forbid` says.
    """

    def __init__(self, forbid, references=()):
        public = _public_codes()
        self.codes = {}  # code object -> (its public name, the forbidden name it does the work of)
        for what in check_forbid(forbid):
            for doer in _DOING_THE_WORK_OF[what]:
                for code, name in public[doer].items():
                    self.codes.setdefault(code, (name, public_name(what)))
        for fn in references:
            name = f"{fn.__module__}.{fn.__qualname__}"
            self.codes.setdefault(fn.__code__, (name, name))
        self.found = None
        self.tampered = False
        self.active = False
        self.top = None  # the checker's frame that calls the learner's function

    def __bool__(self):
        return bool(self.codes)

    def start(self, top):
        """Watch the calling thread below the frame `top`, and every thread started while the watch is on."""
        self.top = top
        threading.setprofile(self)  # threads started from now on
        if hasattr(threading, "setprofile_all_threads"):  # Python 3.12+: the threads already running too
            threading.setprofile_all_threads(self)
        else:
            sys.setprofile(self)
        self.active = True  # from here on, a call that touches the hook is the learner's

    def finish(self):
        """In the learner's thread, once its function has returned: the hook must still be this watch."""
        if self.active and sys.getprofile() is not self:
            self.tampered = True
        self.active = False

    def stop(self):
        """Take the hook away from every thread (the checker's thread, once the call has returned or timed out)."""
        self.active = False
        threading.setprofile(None)
        if hasattr(threading, "setprofile_all_threads"):
            threading.setprofile_all_threads(None)

    def __call__(self, frame, event, arg):
        if not self.active:
            return
        if event == "c_call":
            if arg is _SET_PROFILE:  # sys.setprofile(...) while the watch is on
                self.tampered = True
            return
        if event != "call":
            return
        if frame.f_code in _THREAD_HOOKS:  # threading.setprofile(...) while the watch is on
            self.tampered = True
            return
        if self.found is not None or frame.f_code not in self.codes:
            return
        name, what = self.codes[frame.f_code]
        caller = frame.f_back  # report the attn_lib function the learner's own code called
        while caller is not None and caller is not self.top:
            if caller.f_code.co_filename.startswith(_PACKAGE_DIR):  # an attn_lib function, closer to the learner
                default = f"{caller.f_globals.get('__name__')}.{caller.f_code.co_name}"
                name = self.codes.get(caller.f_code, (default,))[0]
            caller = caller.f_back
        self.found = {"name": name, "what": what}
