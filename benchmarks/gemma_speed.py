"""Notebook 15's budgets: Gemma 3 270M in numpy (attn_lib.models.gemma3.model) against transformers, each in its own
process (as benchmarks/smollm_speed.py measures SmolLM2; its helpers are used here).

    python benchmarks/gemma_speed.py                     # 3 rounds, numpy and PyTorch processes alternating
    python benchmarks/gemma_speed.py --rounds 5 --wait-load 0.5
    python benchmarks/gemma_speed.py --quick             # 1 round, fewer repetitions, no 128-token prompt

Budgets (floors, measured):

- loading, a fresh process, imports included: the first load <= 15 s (the header's JSON sidecar beside the GGUF
  file absent, so the header is parsed: reader.py's "Time"), later loads <= 5 s (the sidecar there). Each round
  links (or copies) the GGUF file into a new temporary folder, where no sidecar exists yet, and loads it there in
  a fresh process (the first load, read_model), then again in another one (a later load); the numpy worker's own
  load, gm.load_gemma3(download=False) from the model's usual folder, is a later load too. The file's pages are
  in the operating system's cache: a disk read is not timed.
- the forward pass of a 16-token prompt and 32 greedy tokens with the KV cache each at most the time of
  transformers' CPU eager path (attn_implementation="eager"; float32, the same GGUF file) in the same run: ratios
  <= 1.0, paired as smollm_speed.py pairs them (its "The ratios"). The ratios to transformers' `sdpa` are reported
  beside them.
- the KV cache >= 5x: generating 32 greedy tokens after a 128-token prompt (stop_ids=(), so always 32), the
  prompt's pass included: the time of generate(use_cache=False), which runs the whole sequence so far (128, then
  129, ..., 159 tokens) through the model at each of the 32 steps, over the time of generate(use_cache=True),
  one 128-token pass and then 31 one-token steps. (The same after a 16-token prompt is reported beside it.)
- reported: the numpy process's peak resident memory (ru_maxrss) after the load and after the runs (the notebook's
  budget for its kernel is 900 MiB), and where the time goes (--parts, on by default: a fresh process that times
  the load's parts, then the parts of a 16-token forward pass and of one decoding step).

Writes benchmarks/results/gemma_speed_<cpu>.{md,json} (<cpu>: e.g. amd_avx512; not with --quick unless --out is
given), naming the CPU, numpy's BLAS (its core type and threads) and PyTorch's threads. Exits with status 1 when a
budget is missed. Needs transformers, gguf and accelerate for the PyTorch side; without them only numpy is timed.
"""

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from own_process import machine  # noqa: E402
from smollm_speed import (  # noqa: E402 (the shared machinery of the SmolLM2 benchmark)
    HAVE_TORCH,
    PAUSE,
    _maxrss_mib,
    _once,
    _steal_share,
    _stolen_ticks,
    _timed,
    median_of,
    quartiles,
    serve,
    wait_for_quiet,
)

RESULTS = Path(__file__).resolve().parent / "results"
GGUF_NAME = "gemma-3-270m-q4_k_m.gguf"
TEXT = "The capital of France is Paris, and the capital of Italy is Rome. The capital of Spain is"
N_PROMPT, N_NEW, N_LONG = 16, 32, 128
TIMED = ("forward16", "gen32_cache", "gen32_nocache", "long_cache", "long_nocache")  # the table's columns, after load
BUDGET_FIRST_LOAD_S, BUDGET_LOAD_S, BUDGET_RATIO, BUDGET_CACHE, KERNEL_MIB = 15.0, 5.0, 1.0, 5.0, 900
PAIRED = {"forward16": 12, "gen32_cache": 3}  # pairs per kind and round in the paired phase
BURST = {"forward16": 3, "gen32_cache": 1}  # calls timed in a row for one entry of a pair (their median)


def gguf_path():
    """The model's GGUF file: where attn_lib.models.fetch keeps it (its GEMMA3 spec), else the default cache folder."""
    try:
        from attn_lib.models.fetch import GEMMA3, find_model_files

        return find_model_files(download=False, spec=GEMMA3) / GGUF_NAME
    except ImportError:  # the fetch spec not there yet: fetch.cache_dir's folder for it
        root = os.environ.get("ATTN_LIB_CACHE")
        base = Path(root).expanduser() if root else Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
        return (base if root else base / "attn_lib") / "gemma3" / GGUF_NAME


def _prompts(encode):
    ids = encode(TEXT)
    return ids[:N_PROMPT], (ids * (N_LONG // len(ids) + 1))[:N_LONG]


def worker_load(path):
    """A fresh process that loads the model from `path`, and nothing else: (seconds, imports included; peak MiB)."""
    start = time.perf_counter()
    from attn_lib.models.gemma3 import model as gm

    gm.read_model(path)
    return {"load": [time.perf_counter() - start], "maxrss_after_load_mib": _maxrss_mib()}, {}


def worker_numpy(reps, long):
    start = time.perf_counter()
    from attn_lib.models.gemma3 import model as gm

    try:  # the notebook's way: load_gemma3 finds the file (and checks it) through attn_lib.models.fetch
        model = gm.load_gemma3(download=False)
    except ImportError:  # no fetch spec yet
        model = gm.read_model(gguf_path())
    out = {"load": [time.perf_counter() - start], "maxrss_after_load_mib": _maxrss_mib()}
    short, long_ids = _prompts(model.encode)

    def gen(ids, use_cache):
        return gm.generate(model, ids, N_NEW, use_cache=use_cache, stop_ids=())

    out["forward16"] = _timed(lambda: gm.forward(model, short), reps)
    out["gen32_cache"] = _timed(lambda: gen(short, True), max(1, reps // 2))
    out["gen32_nocache"] = _once(lambda: gen(short, False))
    if long:
        out["forward128"] = _timed(lambda: gm.forward(model, long_ids, last_only=True), 1)
        out["long_cache"] = _once(lambda: gen(long_ids, True))
        out["long_nocache"] = _once(lambda: gen(long_ids, False))
    out["tokens"] = gen(short, True)
    out["maxrss_mib"] = _maxrss_mib()
    return out, {"forward16": lambda: gm.forward(model, short), "gen32_cache": lambda: gen(short, True)}


def worker_torch(reps, attn):
    """transformers' Gemma3ForCausalLM from the same GGUF file: float32, eager PyTorch (nothing compiled)."""
    start = time.perf_counter()
    import torch
    from transformers import AutoModelForCausalLM

    path = gguf_path()
    model = AutoModelForCausalLM.from_pretrained(
        path.parent, gguf_file=path.name, dtype=torch.float32, attn_implementation=attn
    ).eval()
    out = {"load": [time.perf_counter() - start]}
    from attn_lib.models.gguf.reader import read_header
    from attn_lib.models.gguf.vocab import SENTENCEPIECE_KEYS, build_sentencepiece_tokenizer

    metadata = read_header(path, SENTENCEPIECE_KEYS)[0]
    tokenizer = build_sentencepiece_tokenizer(metadata)  # numpy's (tests/test_gemma3_tokenizer.py)
    bos = metadata["tokenizer.ggml.bos_token_id"]
    short, _ = _prompts(lambda text: [bos, *tokenizer.encode(text, add_special_tokens=False).ids])
    short = torch.tensor([short])

    def gen(use_cache):
        return model.generate(short, max_new_tokens=N_NEW, min_new_tokens=N_NEW, do_sample=False,
                              use_cache=use_cache, pad_token_id=0)  # fmt: skip

    def inference(fn):
        def run():
            with torch.inference_mode():
                return fn()

        return run

    cases = {"forward16": inference(lambda: model(short)), "gen32_cache": inference(lambda: gen(True))}
    out["forward16"] = _timed(cases["forward16"], reps)
    out["gen32_cache"] = _timed(cases["gen32_cache"], max(1, reps // 2))
    out["tokens"] = inference(lambda: gen(True))()[0, N_PROMPT:].tolist()
    out["threads"] = torch.get_num_threads()
    out["maxrss_mib"] = _maxrss_mib()
    return out, cases


def worker_parts(path, reps):
    """Where the time goes, in a fresh process: the load's parts (from `path`, whose sidecar is absent), then those
    of a 16-token forward pass and of one decoding step (at position 16), each part's time summed over a call."""
    import importlib

    parts = {}
    start = time.perf_counter()
    gm = importlib.import_module("attn_lib.models.gemma3.model")
    from attn_lib.models.gguf import arithmetic, decoder, reader, vocab

    parts["imports"] = time.perf_counter() - start
    for name, keep, what in (("header, parsed (first load)", True, path), ("header, from its sidecar", True, path)):
        start = time.perf_counter()
        metadata, infos = reader.read_header(what, array_keys=vocab.SENTENCEPIECE_KEYS, keep=keep)
        parts[name] = time.perf_counter() - start
    start = time.perf_counter()
    vocab.build_sentencepiece_tokenizer(metadata)
    parts["tokenizer (vocab.build_sentencepiece_tokenizer)"] = time.perf_counter() - start
    by_kind = {}
    with open(path, "rb") as f:
        for info in infos:
            start = time.perf_counter()
            if info.name == "token_embd.weight":
                reader.read_q8_0(f, info)
                kind = "embedding: read_q8_0 (codes and scales)"
            else:
                reader.read_tensor(f, info)
                kind = f"read_tensor {info.kind}"
            by_kind[kind] = by_kind.get(kind, 0.0) + time.perf_counter() - start
    parts.update({f"{kind} ({sum(1 for i in infos if _kind(i) == kind)} tensors)": t for kind, t in by_kind.items()})
    start = time.perf_counter()
    model = gm.read_model(path)
    parts["read_model as a whole (sidecar there; arrays first touched again)"] = time.perf_counter() - start
    load = {name: round(seconds, 3) for name, seconds in parts.items()}
    return {"load_parts_s": load, "forward_parts_ms": _forward_parts(gm, model, arithmetic, decoder, reps)}, {}


def _kind(info):
    return "embedding: read_q8_0 (codes and scales)" if info.name == "token_embd.weight" else f"read_tensor {info.kind}"


def _forward_parts(gm, model, arithmetic, decoder, reps):
    """-> {case: {part: median ms}}: each part's time summed over one call of the case (its functions wrapped)."""
    spent = {}

    def timer(name, fn):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

        return timed

    patches = [(gm, "linear", "products: W_QKV and W_O (linear)"),
               (gm, "feed_forward", "products: the feed-forward (GeGLU)"),
               (decoder, "attend", "attention step (scores, softmax, weighted sum)"),
               (decoder, "unembed", "unembedding (262,144 x 640, 8-bit, dequantized in chunks)")]  # fmt: skip
    saved = [(module, name, getattr(module, name)) for module, name, _ in patches]
    short = model.encode(TEXT)[:N_PROMPT]
    cache = gm.new_cache(model, N_PROMPT + 1)
    gm.forward(model, short, cache=cache)

    def step():  # one decoding step at position 16: the cache rewound to the prompt each time
        for c in cache:
            c.length = N_PROMPT
        gm.forward(model, short[-1:], cache=cache, last_only=True)

    results = {}
    try:
        for module, name, label in patches:
            setattr(module, name, timer(label, getattr(module, name)))
        for case, fn in (("forward, 16 tokens", lambda: gm.forward(model, short)), ("one decoding step", step)):
            fn()
            runs = []
            for _ in range(reps):
                spent.clear()
                start = time.perf_counter()
                fn()
                total = time.perf_counter() - start
                runs.append({**spent, "everything else": total - sum(spent.values()), "total": total})
            results[case] = {k: round(statistics.median(r[k] for r in runs) * 1e3, 1) for k in runs[0]}
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)
    return results


class Worker:
    """A fresh `python benchmarks/gemma_speed.py --worker KIND`: its own measurements first, printed as one JSON
    line; then it stays, idle, and whenever `time` asks runs one untimed forward pass, then a case a few times."""

    def __init__(self, kind, reps, long=False, path=None):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--reps", str(reps)]
        cmd += (["--long"] if long else []) + (["--path", str(path)] if path else [])
        self.kind, self.log = kind, tempfile.TemporaryFile(mode="w+")  # transformers' progress bars go to stderr
        before, stolen, start = os.getloadavg()[0], _stolen_ticks(), time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.result = json.loads(self._line())
        self.result["loadavg"] = [before, os.getloadavg()[0]]
        self.result["steal"] = _steal_share(stolen, start)

    def _line(self):
        line = self.proc.stdout.readline()
        if not line:
            self.log.seek(0)
            raise SystemExit(f"worker {self.kind} failed:\n{self.log.read()[-3000:]}")
        return line

    def time(self, case, count):
        self.proc.stdin.write(f"{case} {count}\n")
        self.proc.stdin.flush()
        return statistics.median(json.loads(self._line()))

    def close(self):
        self.proc.communicate("quit\n")
        self.log.close()


def paired_phase(workers, pairs):
    """smollm_speed.paired_phase with this benchmark's BURST: the kinds timed in turn, one process at a time."""
    timed = {case: {w.kind: [] for w in workers} for case in pairs}
    for case, count in pairs.items():
        for i in range(count):
            for w in workers[i % len(workers) :] + workers[: i % len(workers)]:  # who goes first rotates
                time.sleep(PAUSE)
                timed[case][w.kind].append(w.time(case, BURST[case]))
    return timed


def fresh_copy(folder):
    """The GGUF file in `folder`, where no header sidecar exists yet: a hard link (the same file, no copy), or a
    copy that keeps its modification time where a link cannot be made."""
    source, target = gguf_path(), Path(folder) / GGUF_NAME
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target


def summarise(results, paired, kinds, loads):
    med = {k: {key: median_of(results[k], key) for key in ("load", *TIMED)} for k in kinds}
    npy = med["numpy"]
    first = [x for r in loads["first"] for x in r["load"]]
    later = [x for r in loads["later"] + results["numpy"] for x in r["load"]]
    summary = {
        "first_load_s": max(first), "first_load_median_s": statistics.median(first),
        "later_load_s": max(later), "later_load_median_s": statistics.median(later),
        "cache_speedup_16": npy["gen32_nocache"] / npy["gen32_cache"],
        "maxrss_after_load_mib": max(r["maxrss_after_load_mib"] for r in results["numpy"]),
        "maxrss_after_first_load_mib": max(r["maxrss_after_load_mib"] for r in loads["first"]),
        "maxrss_after_runs_mib": max(r["maxrss_mib"] for r in results["numpy"]),
    }  # fmt: skip
    if npy["long_cache"]:
        summary["cache_speedup_128"] = npy["long_nocache"] / npy["long_cache"]
        summary["forward128_s"] = median_of(results["numpy"], "forward128")
    for k in kinds[1:]:
        for case, what in (("forward16", "forward16"), ("gen32_cache", "gen32")):
            ratios = [a / b for a, b in zip(paired[case]["numpy"], paired[case][k], strict=True)]
            summary[f"{what}_ratio_quartiles_{k}"] = quartiles(ratios)
            summary[f"{what}_ratio_{k}"] = summary[f"{what}_ratio_quartiles_{k}"][1]  # the median pair
            summary[f"{what}_pairs_within_{k}"] = sum(x <= BUDGET_RATIO for x in ratios) / len(ratios)
            summary[f"{what}_unpaired_{k}"] = npy[case] / med[k][case]
    tokens = [r["tokens"] for rs in results.values() for r in rs]
    summary["same_tokens"] = all(t == tokens[0] for t in tokens)
    return med, summary


def budgets(summary):
    """(what, measured, target, met) for each budget that this run measured."""
    rows = [
        ("first load (fresh process, no header sidecar), the slowest", f"{summary['first_load_s']:.2f} s"
         f" (median {summary['first_load_median_s']:.2f})", f"<= {BUDGET_FIRST_LOAD_S:.0f} s",
         summary["first_load_s"] <= BUDGET_FIRST_LOAD_S),
        ("later loads (fresh process, sidecar there), the slowest", f"{summary['later_load_s']:.2f} s"
         f" (median {summary['later_load_median_s']:.2f})", f"<= {BUDGET_LOAD_S:.0f} s",
         summary["later_load_s"] <= BUDGET_LOAD_S),
    ]  # fmt: skip
    for key, value in summary.items():
        if "_ratio_" in key and "_quartiles_" not in key:
            what, _, kind = key.partition("_ratio_")
            label = f"forward of {N_PROMPT} tokens" if what == "forward16" else f"{N_NEW} greedy tokens with the cache"
            q1, _, q3 = summary[f"{what}_ratio_quartiles_{kind}"]
            within, unpaired = summary[f"{what}_pairs_within_{kind}"], summary[f"{what}_unpaired_{kind}"]
            measured = (f"{value:.2f} (quartiles {q1:.2f}–{q3:.2f}; {within:.0%} of pairs <= {BUDGET_RATIO};"
                        f" unpaired {unpaired:.2f})")  # fmt: skip
            budgeted = kind == "torch:eager"
            target = f"<= {BUDGET_RATIO}" if budgeted else "(reported)"
            rows.append((f"{label}, numpy / {kind}", measured, target, value <= BUDGET_RATIO or not budgeted))
    rows.append((f"cache speed-up, {N_PROMPT}-token prompt + {N_NEW}", f"{summary['cache_speedup_16']:.1f}x",
                 "(reported)", True))  # fmt: skip
    if "cache_speedup_128" in summary:
        value = summary["cache_speedup_128"]
        rows.append((f"cache speed-up, {N_LONG}-token prompt + {N_NEW}", f"{value:.1f}x", f">= {BUDGET_CACHE:.0f}x",
                     value >= BUDGET_CACHE))  # fmt: skip
    for key, label in (("maxrss_after_first_load_mib", "peak memory after the first load (its process)"),
                       ("maxrss_after_load_mib", "peak memory of the numpy worker after its load"),
                       ("maxrss_after_runs_mib", "peak memory of the numpy worker after every run")):  # fmt: skip
        rows.append((label, f"{summary[key]:.0f} MiB", f"(reported; the kernel's budget {KERNEL_MIB} MiB)", True))
    return rows


def report(med, paired, summary, kinds, results, loads, parts, args, waited, cpu, blas):
    ms = lambda s: "–" if s is None else f"{s * 1e3:.0f}"  # noqa: E731
    torch_threads = {r.get("threads") for k in kinds[1:] for r in results[k]}
    lines = [
        "# Gemma 3 270M: numpy against transformers", "",
        f"Command: `{' '.join(['python benchmarks/gemma_speed.py', *sys.argv[1:]])}`", "",
        f"- CPU: {cpu}; cpu count {os.cpu_count()}",
        f"- numpy {_version('numpy')}, BLAS: {blas} (the model's products run with BLAS on one thread and split"
        " over the cores in the course's own threads: attn_lib.models.gguf.arithmetic, \"Threads\")",
        f"- PyTorch {_version('torch')}, {', '.join(map(str, sorted(t for t in torch_threads if t)))} threads;"
        f" transformers {_version('transformers')}",
        f"- python {platform.python_version()}, {datetime.date.today().isoformat()}",
        f"- load average (1 min) during the run: {min(_loads(results, loads)):.2f} .. {max(_loads(results, loads)):.2f}"
        f"{waited}",
        f"- {args.rounds} rounds, each kind in a fresh process, alternating; medians of every timed call", "",
        "Loading, each in a fresh process, imports included (s): "
        + "; ".join(f"round {i}: first {a['load'][0]:.2f}, later {b['load'][0]:.2f}"
                    for i, (a, b) in enumerate(zip(loads["first"], loads["later"], strict=True))) + ".", "",
        "The table: each process's own calls, made one process after the other (a minute or more apart).", "",
        f"| kind | load s | forward, {N_PROMPT} tokens ms | {N_NEW} greedy tokens, cache ms |"
        f" {N_NEW} tokens, no cache ms | {N_LONG}-token prompt + {N_NEW}, cache ms | the same, no cache ms |",
        "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for k in kinds:
        m = med[k]
        lines.append(f"| {k} | {m['load']:.2f} | {' | '.join(ms(m[key]) for key in TIMED)} |")
    if "forward128_s" in summary:
        lines += ["", f"A {N_LONG}-token forward pass (numpy, last position's logits only): "
                  f"{summary['forward128_s'] * 1e3:.0f} ms."]  # fmt: skip
    pairs = {case: len(by_kind[kinds[0]]) // args.rounds for case, by_kind in paired.items()}
    if len(kinds) > 1:
        bursts = "; ".join(f"{case}: {pairs[case]} pairs per round, each the median of {BURST[case]} call(s) in a row"
                           for case in pairs)  # fmt: skip
        lines += ["", "Paired: every process alive and idle, the kinds timed in turn, one process at a time, each"
                  f" kind's i-th time within the same few seconds, after one untimed forward pass ({bursts}); a ratio"
                  " is the median of numpy's time over PyTorch's in each pair.", "",
                  "| kind | " + " | ".join(f"{case}, paired, median ms" for case in pairs) + " |",
                  "|---|" + "---|" * len(pairs)]  # fmt: skip
        for k in kinds:
            lines.append(f"| {k} | " + " | ".join(f"{statistics.median(paired[c][k]) * 1e3:.0f}" for c in pairs) + " |")
    lines += ["", "| budget | measured | target | met |", "|---|---|---|---|"]
    for name, value, target, ok in budgets(summary):
        met = "—" if target.startswith("(reported") else "yes" if ok else "no"
        lines.append(f"| {name} | {value} | {target} | {met} |")
    lines += ["", f"The same {N_NEW} greedy tokens in every run, numpy and PyTorch: {summary['same_tokens']}."]
    if parts:
        lines += ["", "## Where the time goes", "", "A fresh process (`--worker parts`), the GGUF file linked into a"
                  " new folder (no sidecar). Loading, each part once, in order (s):", "", "| part | s |",
                  "|---|---|"]  # fmt: skip
        lines += [f"| {name} | {seconds:.2f} |" for name, seconds in parts["load_parts_s"].items()]
        for case, by_part in parts["forward_parts_ms"].items():
            lines += ["", f"{case.capitalize()}, each part's time summed over the call, the median of {args.reps}"
                      " calls (ms):", "", "| part | ms |", "|---|---|"]  # fmt: skip
            lines += [f"| {name} | {value:.1f} |" for name, value in by_part.items()]
    return "\n".join(lines) + "\n"


def _loads(results, loads):
    return [x for rs in (*results.values(), *loads.values()) for res in rs for x in res["loadavg"]]


def _version(module):
    try:
        from importlib.metadata import version

        return version(module)
    except Exception:  # noqa: BLE001 (not installed: say so)
        return "(not installed)"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=6)
    p.add_argument("--quick", action="store_true", help="1 round, 2 repetitions, no 128-token prompt")
    p.add_argument("--no-parts", action="store_true", help="skip the process that times the parts")
    p.add_argument("--no-torch", action="store_true", help="numpy alone (no ratios)")
    p.add_argument("--wait-load", type=float, default=0.0, help="first wait for a 1-minute load average below this")
    p.add_argument("--max-wait", type=float, default=900.0)
    p.add_argument("--out", type=Path, default=None, help="where to write .md and .json (default: results/)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--long", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--path", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:  # inside a worker process: print one JSON line, then serve timed calls (smollm_speed.serve)
        if args.worker == "numpy":
            result, cases = worker_numpy(args.reps, args.long)
        elif args.worker == "load":
            result, cases = worker_load(args.path)
        elif args.worker == "parts":
            result, cases = worker_parts(args.path, args.reps)
        else:
            result, cases = worker_torch(args.reps, args.worker.split(":", 1)[1])
        print(json.dumps(result), flush=True)
        if cases:
            serve(cases)
        return 0
    if args.quick:
        args.rounds, args.reps = 1, 2
    cpu, cpu_kind, blas = machine()
    waited = ""
    if args.wait_load:
        quiet, seconds = wait_for_quiet(args.wait_load, args.max_wait)
        waited = f"; waited {seconds:.0f} s for a load below {args.wait_load}: {'found' if quiet else 'not found'}"
    kinds = ["numpy"] + (["torch:sdpa", "torch:eager"] if HAVE_TORCH and not args.no_torch else [])
    results = {k: [] for k in kinds}
    loads = {"first": [], "later": []}
    paired = {case: {k: [] for k in kinds} for case in PAIRED}
    pairs = {case: 2 for case in PAIRED} if args.quick else PAIRED
    per_worker = []
    with tempfile.TemporaryDirectory(prefix="gemma-speed-") as scratch:
        for r in range(args.rounds):
            folder = Path(scratch) / f"round{r}"
            folder.mkdir()
            path = fresh_copy(folder)
            for which in ("first", "later"):  # the first load writes the sidecar the later one reads
                w = Worker("load", 1, path=path)
                w.proc.wait()
                w.log.close()
                loads[which].append(w.result)
                per_worker.append(f"round {r} load, {which:6s} s {w.result['load'][0]:.2f}"
                                  f" peak {w.result['maxrss_after_load_mib']:.0f} MiB"
                                  f" load {[round(x, 2) for x in w.result['loadavg']]}")  # fmt: skip
                print(per_worker[-1], file=sys.stderr)
            workers = []
            for kind in kinds if r % 2 == 0 else kinds[::-1]:  # neither side always runs first
                workers.append(Worker(kind, args.reps, long=kind == "numpy" and not args.quick))
                res = workers[-1].result
                results[kind].append(res)
                got = {key: round(statistics.median(res[key]) * 1e3) for key in res
                       if key[0] in "lfg" and key != "loadavg"}  # fmt: skip
                per_worker.append(f"round {r} {kind:12s} ms {got} load {[round(x, 2) for x in res['loadavg']]}"
                                  f" steal {res['steal']:.0%}")  # fmt: skip
                print(per_worker[-1], file=sys.stderr)
            if len(workers) > 1:
                stolen, start = _stolen_ticks(), time.monotonic()
                for case, by_kind in paired_phase(workers, pairs).items():
                    for kind, seconds in by_kind.items():
                        paired[case][kind] += seconds
                got = {case: {k: round(statistics.median(v[-pairs[case]:]) * 1e3) for k, v in paired[case].items()}
                       for case in pairs}  # fmt: skip
                per_worker.append(f"round {r} paired       ms {got} steal {_steal_share(stolen, start):.0%}")
                print(per_worker[-1], file=sys.stderr)
            for w in workers:
                w.close()
        parts = None
        if not args.no_parts:
            folder = Path(scratch) / "parts"
            folder.mkdir()
            w = Worker("parts", args.reps, path=fresh_copy(folder))
            w.proc.wait()
            w.log.close()
            parts = w.result
    if len(kinds) == 1:  # numpy alone: no pairs
        paired = {}
    med, summary = summarise(results, paired or {c: {"numpy": []} for c in PAIRED}, kinds, loads)
    text = report(med, paired, summary, kinds, results, loads, parts, args, waited, cpu, blas)
    text += ("\nEach worker's own medians, in the order they ran (steal: the share of the CPUs' time the hypervisor"
             " took meanwhile, from /proc/stat):\n\n```\n" + "\n".join(per_worker) + "\n```\n")  # fmt: skip
    print(text)
    out = args.out or (None if args.quick else RESULTS)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        stem = f"gemma_speed_{cpu_kind}"
        (out / f"{stem}.md").write_text(text, encoding="utf-8")
        record = {"cpu": cpu, "blas": blas, "medians_s": med, "paired_s": paired, "summary": summary,
                  "loads": loads, "parts": parts, "argv": sys.argv[1:]}  # fmt: skip
        (out / f"{stem}.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0 if all(ok for *_, ok in budgets(summary)) else 1


if __name__ == "__main__":
    sys.exit(main())
