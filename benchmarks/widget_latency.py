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

`--explorer` times the explorer widget (issue 40) on each of the three real models (MiniLM, SmolLM2, Gemma 3), each in
a fresh process: a layer, head, all-heads or sampling change (budget 100 ms in the callback), a new 32-token text (the
model runs once, the figures are laid out anew: budget 1.5 s for SmolLM2, 2 s for Gemma 3), writing 16 tokens with the
KV cache (budget >= 3 tokens a second, from the click to the last token shown) and the memory the widget adds to the
process after the model is loaded (budget 100 MiB; the notebooks' own kernel peaks: benchmarks/notebook_time.py).

    python benchmarks/widget_latency.py [--repeats 20] [--explorer]
"""

import argparse
import itertools
import multiprocessing
import platform
import statistics
import sys
import time
from pathlib import Path

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


#: The explorer's texts: four distinct ones of exactly 32 tokens per model are cut from these (a new text each time).
EXPLORER_TEXTS = (
    "我昨天在北京吃了烤鸭，今天在上海吃了小笼包，明天想去杭州看看西湖。小明的猫叫豆豆，它每天早上都要吃鱼。",
    "The animal didn't cross the street because it was too tired, and the cat ate the fish that the man had left on"
    " the kitchen table before he went out to buy bread and milk for breakfast.",
    "今天天气很好，我们去公园散步，看见很多人在跑步，也有人在湖边钓鱼，孩子们在草地上放风筝。",
    "Attention lets every token look at every other token and decide how much each one matters for its meaning, so a"
    " pronoun can find the noun it stands for even when many words lie between them in the sentence.",
)
#: The explorer's budgets (issue 40): seconds for a new 32-token text, per model; the others apply to every model.
EXPLORER_NEW_TEXT = {"minilm": None, "smollm2": 1.5, "gemma3": 2.0}
EXPLORER_CHANGE, EXPLORER_TOKENS_PER_S, EXPLORER_MIB = 0.100, 3.0, 100


def _peak_mib():
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024) / 2**20


def _texts_of(view, n_tokens, count=4):
    """`count` distinct texts of exactly `n_tokens` tokens for this model: prefixes of EXPLORER_TEXTS."""
    found = []
    for text in EXPLORER_TEXTS * 2:
        for end in range(1, len(text) + 1):
            if len(view.tokenize(text[:end])[0]) == n_tokens and text[:end] not in found:
                found.append(text[:end])
                break
        if len(found) == count:
            return found
    raise ValueError(f"could not cut {count} texts of {n_tokens} tokens for {view.name}")


def explorer_run(kind, repeats):
    """In a fresh process: load one model, then time the explorer on it. -> a dict of figures (seconds, MiB)."""
    from attn_lib.widgets import explorer_widget

    start = time.perf_counter()
    if kind == "minilm":
        from attn_lib.models.minilm.pretrained import load_minilm as load
    elif kind == "smollm2":
        from attn_lib.models.smollm2.model import load_smollm as load
    else:
        from attn_lib.models.gemma3.model import load_gemma3 as load
    model = load()
    loaded, peak_loaded = time.perf_counter() - start, _peak_mib()
    start = time.perf_counter()
    widget = explorer_widget(model, "猫吃鱼")
    build = time.perf_counter() - start
    texts = _texts_of(widget.view, 32)
    new_text = []
    for text in texts:
        start = time.perf_counter()
        widget.text.value = text
        new_text.append(time.perf_counter() - start)
        assert widget.result["text"] == text and not widget.message.value, widget.message.value
    L, h = widget.view.n_layers, widget.view.n_heads
    out = {"model": widget.view.name, "load": loaded, "build": build, "new_text": statistics.median(new_text),
           "new_text_slowest": max(new_text), "n_tokens": 32}  # fmt: skip
    out["layer"] = time_control(widget, widget.layer, [1, L // 2, L, 2], repeats)
    out["head"] = time_control(widget, widget.head, [1, h, 2, max(1, h - 1)], repeats)
    out["all_heads"] = time_control(widget, widget.all_heads, [True, False], repeats)
    if widget.view.causal:
        out["temperature"] = time_control(widget, widget.temperature, [0.0, 0.5, 1.0, 2.0], repeats)
        out["top_k"] = time_control(widget, widget.top_k, [0, 5, 50, 1], repeats)
        out["top_p"] = time_control(widget, widget.top_p, [0.5, 0.9, 1.0, 0.1], repeats)
        widget.temperature.value, widget.top_k.value, widget.top_p.value = 0.7, 0, 0.9
        rates = []
        for _ in range(3):
            start = time.perf_counter()
            written = widget.write(16)
            rates.append(len(written) / (time.perf_counter() - start))
        out["tokens_per_s"] = statistics.median(rates)
        out["tokens_per_s_slowest"] = min(rates)
    out["peak_loaded"], out["peak_after"] = peak_loaded, _peak_mib()
    return out


def time_control(widget, control, values, repeats):
    """Median seconds of `control.value = v` (its observer redraws) over `repeats` changes through `values`."""
    cycle = itertools.cycle(values)
    control.value = next(cycle)
    seconds = []
    for _ in range(repeats):
        value = next(cycle)
        if value == control.value:
            value = next(cycle)
        start = time.perf_counter()
        control.value = value
        seconds.append(time.perf_counter() - start)
        assert not widget.message.value, widget.message.value
    return statistics.median(seconds)


def _cpu_name():
    """The CPU's name and numpy's BLAS, as the speed benchmarks name them (gemma_speed.machine)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gemma_speed import machine

    name, _, blas = machine()
    return f"{name}; BLAS {blas}"


def explorer_main(repeats):
    """Time the explorer on the three models, each in a fresh process; print the tables; -> the exit status."""
    print(f"The explorer widget (issue 40), each model in a fresh process (CPU: {_cpu_name()}, numpy {np.__version__},"
          f" matplotlib {matplotlib.__version__}); medians of {repeats} changes\n")  # fmt: skip
    missed = 0
    print("| model | layer / head / all heads (ms) | temperature / top-k / top-p (ms) | new 32-token text, median"
          " (slowest) s | budget s | writing, tokens/s (slowest) | memory added MiB | within budgets |")  # fmt: skip
    print("|---|---|---|---|---:|---|---:|---|")
    for kind in ("minilm", "smollm2", "gemma3"):
        r = in_fresh_process(explorer_run, kind, repeats)
        changes = [r["layer"], r["head"], r["all_heads"], *(r[k] for k in ("temperature", "top_k", "top_p") if k in r)]
        added = r["peak_after"] - r["peak_loaded"]
        budget = EXPLORER_NEW_TEXT[kind]
        ok = max(changes) <= EXPLORER_CHANGE and added <= EXPLORER_MIB
        ok &= budget is None or r["new_text_slowest"] <= budget
        ok &= "tokens_per_s" not in r or r["tokens_per_s_slowest"] >= EXPLORER_TOKENS_PER_S
        missed += not ok
        sampling = " / ".join(f"{1000 * r[k]:.0f}" for k in ("temperature", "top_k", "top_p")) if "top_k" in r else "–"
        writing = f"{r['tokens_per_s']:.1f} ({r['tokens_per_s_slowest']:.1f})" if "tokens_per_s" in r else "–"
        print(
            f"| {r['model']} | {1000 * r['layer']:.0f} / {1000 * r['head']:.0f} / {1000 * r['all_heads']:.0f} |"
            f" {sampling} | {r['new_text']:.2f} ({r['new_text_slowest']:.2f}) | {budget or '–'} | {writing} |"
            f" {added:.0f} (load {r['peak_loaded']:.0f} → {r['peak_after']:.0f}) | {'yes' if ok else 'NO'} |"
        )
    return 1 if missed else 0


def in_fresh_process(function, *args):
    """function(*args) run in a new Python process (spawned), its result returned."""
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        return pool.apply(function, args)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--explorer", action="store_true", help="time the explorer widget of notebooks 10, 14, 15")
    args = parser.parse_args(argv)
    repeats = args.repeats
    if args.explorer:
        return explorer_main(repeats)

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
