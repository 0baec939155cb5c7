"""How long a widget takes to recompute and redraw after a control moves (the latency a learner feels).

For each widget this sets a control's `.value` in Python (its observer calls `w.update()`) and
times that, 20 times, cycling through different values so that every timed call recomputes and
redraws. The heads widget draws each head count's layout once and keeps the last few (a new h needs
new axes and labels, the slow part), so it is timed twice: switching between layouts drawn before,
and a first visit to a head count (cache emptied before each change). It prints a markdown table of
medians against the budgets (100 ms for 猫吃鱼 and for notebook 07's position slider, 250 ms for a
12-token sentence with 12 heads) and exits with status 1 if any budget is missed. Timings depend on
the machine and its load.

    python benchmarks/widget_latency.py [--repeats 20]
"""

import argparse
import itertools
import platform
import statistics
import sys
import time

import matplotlib
import numpy as np

from attn_lib import examples
from attn_lib.position_widgets import position_widget
from attn_lib.widgets import dk_widget, heads_widget, mask_widget, setup_check_widget

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    repeats = parser.parse_args(argv).repeats

    dk, mask, setup = dk_widget(), mask_widget(), setup_check_widget()
    heads, big = heads_widget(d_model=48), heads_widget(d_model=768, tokens=TWELVE_TOKENS)
    position = position_widget()
    cat, long = "猫吃鱼", "猫吃鱼 + 11 tokens"
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
    ]
    rows = [(widget, change, tokens, measure(), budget) for widget, change, tokens, budget, measure in cases]

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
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
