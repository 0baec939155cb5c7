"""How long a widget takes to recompute and redraw after a control moves (the latency a learner feels).

For each widget this sets a control's `.value` in Python (its observer calls `w.update()`) and
times that, 20 times, cycling through different values so that every timed call recomputes and
redraws. The heads widget draws each head count's layout once and keeps the last few (a new h needs
new axes and labels, the slow part), so it is timed twice: switching between layouts drawn before,
and a first visit to a head count (cache emptied before each change). In a kernel the layouts one
slider step away are drawn right after each update; here (no event loop) they are not, so a first
visit is timed in full.

A 200-token sentence (issue 13, item 11) runs in a fresh process, so that the peak memory is its own:
it builds the heads widget, then moves the slider through every h (each a first visit) and back.

It prints a markdown table of medians against the budgets (100 ms for 猫吃鱼 and for notebook 07's
position slider, 250 ms for a 12-token sentence with 12 heads, 1 s for the slowest move with 200
tokens; 100 ms for notebook 12's K/V-heads and sliding-window sliders and for notebook 13's temperature, top-k
and top-p sliders, which also write a sampled sentence with the KV cache) and the peak memory against
its budget (300 MB), and exits with status 1 if any budget is missed. Timings depend on the machine and its load.

    python benchmarks/widget_latency.py [--repeats 20]
"""

import argparse
import itertools
import multiprocessing
import platform
import statistics
import sys
import time

import matplotlib
import numpy as np

from attn_lib import examples
from attn_lib.widgets import dk_widget, heads_widget, mask_widget, sampling_widget, setup_check_widget
from attn_lib.widgets.modern import kv_heads_widget, window_widget
from attn_lib.widgets.position import position_widget

TWELVE_TOKENS = (*examples.ANIMAL_TOKENS, ".")


def time_changes(widget, name, values, repeats):
    """Median seconds of `widget.controls[name].value = v` (which runs update) over `repeats` changes."""
    control = widget.controls[name]
    cycle = itertools.cycle(values)
    control.value = next(cycle)  # warm up: the first call builds the figure
    seconds = []
    for _ in range(repeats):
        value = next(cycle)
        start = time.perf_counter()
        control.value = value
        seconds.append(time.perf_counter() - start)
        assert widget.state["error"] is None, widget.state["error"]
    return statistics.median(seconds)


def time_new_layouts(widget, name, value, other, repeats):
    """Median seconds of switching to `value` from `other` when neither layout has been drawn before."""
    control = widget.controls[name]
    seconds = []
    for _ in range(repeats):
        control.value = other
        widget._figures.clear()  # forget the drawn layouts: measure a first visit
        start = time.perf_counter()
        control.value = value
        seconds.append(time.perf_counter() - start)
        assert widget.state["error"] is None, widget.state["error"]
    return statistics.median(seconds)


def time_updates(widget, repeats):
    """Median seconds of calling `widget.update()` with the controls unchanged."""
    widget.update()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        widget.update()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def long_sentence_run(n_tokens=200, d_model=768):
    """In this process: build the heads widget on n_tokens tokens, move h up through every option and down again.

    -> dict: build seconds, the slowest and the median move in seconds, peak resident memory in MB
    (None where the platform cannot tell).
    """
    start = time.perf_counter()
    widget = heads_widget(d_model=d_model, tokens=[f"w{i}" for i in range(n_tokens)])
    build = time.perf_counter() - start
    options = list(widget.controls["n_heads"].options)
    moves = []
    for h in [*options[1:], *options[-2::-1]]:  # 2, 3, ..., 16 (first visits), then 12, 8, ..., 1
        start = time.perf_counter()
        widget.controls["n_heads"].value = h
        moves.append(time.perf_counter() - start)
        assert widget.state["error"] is None, widget.state["error"]
    try:
        import resource

        scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, kilobytes on Linux
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 2**20
    except ImportError:  # Windows
        peak_mb = None
    return {"build": build, "slowest": max(moves), "median": statistics.median(moves), "peak_mb": peak_mb}


def in_fresh_process(function, *args):
    """function(*args) run in a new Python process (spawned), its result returned."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    repeats = parser.parse_args(argv).repeats

    dk, mask, setup = dk_widget(), mask_widget(), setup_check_widget()
    heads, big = heads_widget(d_model=48), heads_widget(d_model=768, tokens=TWELVE_TOKENS)
    position = position_widget()
    kv_heads, window = kv_heads_widget(), window_widget()
    sampling = sampling_widget()
    cat, long = "猫吃鱼", "猫吃鱼 + 11 tokens"
    sentence_200 = in_fresh_process(long_sentence_run, 200, 768)
    # (widget, what changes, tokens, budget in seconds, how to time it)
    cases = [
        (
            "dk_widget",
            "d_k: 1, 2, 4, ..., 512",
            long,
            0.100,
            lambda: time_changes(dk, "d_k", dk.controls["d_k"].options, repeats),
        ),
        ("dk_widget", "scale on / off", long, 0.100, lambda: time_changes(dk, "scale", (True, False), repeats)),
        ("mask_widget", "none / causal", cat, 0.100, lambda: time_changes(mask, "mask", ("none", "causal"), repeats)),
        (
            "setup_check_widget",
            "temperature 0.1 ... 10",
            cat,
            0.100,
            lambda: time_changes(setup, "temperature", (0.1, 0.5, 1.0, 2.0, 10.0), repeats),
        ),
        (
            "heads_widget(d_model=48)",
            "h: 1, 2, 3, ..., 16, layouts drawn before",
            cat,
            0.100,
            lambda: time_changes(heads, "n_heads", heads.controls["n_heads"].options, repeats),
        ),
        (
            "heads_widget(d_model=48)",
            "h: 3 -> 16, first visit (builds the layout)",
            cat,
            0.100,
            lambda: time_new_layouts(heads, "n_heads", 16, 3, repeats),
        ),
        (
            "heads_widget(d_model=768)",
            "h: 6 -> 12, first visit (builds the layout)",
            "12 tokens",
            0.250,
            lambda: time_new_layouts(big, "n_heads", 12, 6, repeats),
        ),
        (
            "heads_widget(d_model=768)",
            "h: 6 <-> 12, layouts drawn before",
            "12 tokens",
            0.250,
            lambda: time_changes(big, "n_heads", (6, 12), repeats),
        ),
        ("heads_widget(d_model=768)", "update() at h = 12", "12 tokens", 0.250, lambda: time_updates(big, repeats)),
        (
            "position_widget",
            "offset: 0, 37, 128, 300, 512",
            "65 distances",
            0.100,
            lambda: time_changes(position, "offset", (0, 37, 128, 300, 512), repeats),
        ),
        (
            "position_widget",
            "base: 100, 1000, 10000, 100000",
            "65 distances",
            0.100,
            lambda: time_changes(position, "base", (100, 1000, 10_000, 100_000), repeats),
        ),
        (
            "kv_heads_widget",
            "n_kv_heads: 1, 2, 4, 8",
            "11 tokens, 8 query heads",
            0.100,
            lambda: time_changes(kv_heads, "n_kv_heads", (1, 2, 4, 8), repeats),
        ),
        (
            "window_widget",
            "window W: 1, 2, 4, 8, 16",
            "32 positions",
            0.100,
            lambda: time_changes(window, "window", (1, 2, 4, 8, 16), repeats),
        ),
        (
            "window_widget",
            "layers L: 1, 2, 4, 8",
            "32 positions",
            0.100,
            lambda: time_changes(window, "layers", (1, 2, 4, 8), repeats),
        ),
        (
            "sampling_widget",
            "temperature: 0 (greedy), 0.5, 1, 2, 3",
            "今天天气 + a sentence",
            0.100,
            lambda: time_changes(sampling, "temperature", (0.0, 0.5, 1.0, 2.0, 3.0), repeats),
        ),
        (
            "sampling_widget",
            "top-k: off, 1, 3, 10, 50",
            "今天天气 + a sentence",
            0.100,
            lambda: time_changes(sampling, "top_k", (0, 1, 3, 10, 50), repeats),
        ),
        (
            "sampling_widget",
            "top-p: 0.1, 0.5, 0.9, 0.95, off",
            "今天天气 + a sentence",
            0.100,
            lambda: time_changes(sampling, "top_p", (0.1, 0.5, 0.9, 0.95, 1.0), repeats),
        ),
        (
            "heads_widget(d_model=768)",
            "h: 1 -> 2 -> ... -> 16 -> ... -> 1, first visits; slowest move",
            "200 tokens",
            1.000,
            lambda: sentence_200["slowest"],
        ),
    ]
    rows = [(widget, change, tokens, measure(), budget) for widget, change, tokens, budget, measure in cases]
    # (what, budget in MB, measured MB): peak resident memory of a process
    memory = [
        (
            "a fresh process that builds heads_widget(d_model=768) on 200 tokens and visits every h",
            300,
            sentence_200["peak_mb"],
        ),
    ]

    print(
        f"Median latency of one widget update over {repeats} changes "
        f"(Python {platform.python_version()}, numpy {np.__version__}, matplotlib {matplotlib.__version__}, "
        f"{platform.machine()})\n"
    )
    print("| widget | control change | tokens | median (ms) | budget (ms) | within budget |")
    print("|---|---|---|---:|---:|---|")
    missed = 0
    for widget, change, tokens, median, budget in rows:
        ok = median <= budget
        missed += not ok
        print(
            f"| {widget} | {change} | {tokens} | {1000 * median:.0f} | {1000 * budget:.0f} | {'yes' if ok else 'NO'} |"
        )
    print(
        f"\n200 tokens: building the widget took {sentence_200['build']:.2f} s;"
        f" the median move {1000 * sentence_200['median']:.0f} ms.\n"
    )
    print("| peak memory of | peak (MB) | budget (MB) | within budget |")
    print("|---|---:|---:|---|")
    for what, budget, peak in memory:
        ok = peak is None or peak <= budget
        missed += not ok
        shown = "not measured on this platform" if peak is None else f"{peak:.0f}"
        print(f"| {what} | {shown} | {budget} | {'yes' if ok else 'NO'} |")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
