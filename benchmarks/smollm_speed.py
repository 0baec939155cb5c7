"""Notebook 14's budgets: SmolLM2-135M in numpy (attn_lib.models.smollm2.model) against transformers, each in its
own process.

    python benchmarks/smollm_speed.py                    # 3 rounds, numpy and PyTorch processes alternating
    python benchmarks/smollm_speed.py --rounds 5 --wait-load 0.5
    python benchmarks/smollm_speed.py --quick            # 1 round, fewer repetitions, no long prompt

Budgets (issue 25): loading <= 10 s; the forward pass of a 16-token prompt and 32 greedy tokens with the KV
cache each at most the time of transformers' CPU eager path (attn_implementation="eager": attention written
out in PyTorch operations, as attn_lib writes it in numpy; float32, the same GGUF file) in the same run:
ratios <= 1.0. The ratios to transformers' default, `sdpa` (PyTorch's fused attention kernel), are reported
beside them without a target;
generation with the cache at least 5 times faster than without it. The last one depends on the length: at
a short length every step, cached or not, reads all the weights (about 460 MB) for a few rows of work, so
the table gives the speed-up after a 16-token and after a 128-token prompt.

numpy and PyTorch each keep a pool of threads, and in one process they slow each other down: every worker
is a fresh `python benchmarks/smollm_speed.py --worker KIND`, the kinds alternate (ABBA), and the 1-minute
load average is recorded around each. A worker loads its model once (timed, imports included; the numpy
loader's header cache beside the GGUF file is warm after the first run), warms up, then times each case.

The ratios. On a shared virtual machine the same code runs faster or slower from one minute to the next
(measured here: the same numpy forward pass 104 ms in one process and 83 ms in the next, minutes later;
transformers' eager one 132 ms in one process and 92-103 ms in five others within the hour), so two processes
timed one after the other, a minute or more apart, compare the machine's minutes as much as the programs.
After its own measurements each worker therefore stays alive, idle, and the round ends with a paired phase:
the kinds are timed in turn, one process at a time (never two computing at once, PAUSE seconds of rest before
each, then one untimed forward pass), so that each kind's i-th time falls within the same few seconds. The
budgets' ratios are the medians of numpy's time over PyTorch's in each such pair; the report gives their
quartiles, the share of pairs within the budget, and the ratio of the processes' own medians beside them.
Writes benchmarks/results/smollm_speed.{md,json} (not with --quick unless --out is given). Exits with
status 1 when a budget is missed. Needs transformers, gguf and accelerate for the PyTorch side (the
cross-check packages of .ci/run); without them only the numpy side and the cache speed-up are measured.
"""

import argparse
import datetime
import importlib.util
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from own_process import machine

RESULTS = Path(__file__).resolve().parent / "results"
TEXT = "The capital of France is Paris, and the capital of Italy is Rome. The capital of Spain is"
N_PROMPT, N_NEW, N_LONG = 16, 32, 128
TIMED = ("forward16", "gen32_cache", "gen32_nocache", "long_cache", "long_nocache")  # the table's columns, after load
BUDGET_LOAD_S, BUDGET_RATIO, BUDGET_CACHE = 10.0, 1.0, 5.0
PAIRED = {"forward16": 12, "gen32_cache": 3}  # pairs per kind and round in the paired phase
BURST = {"forward16": 3, "gen32_cache": 1}  # calls timed in a row for one entry of a pair (their median)
PAUSE = 0.3  # seconds of rest before each paired call (PyTorch's OpenMP threads spin a while after their work)
HAVE_TORCH = all(importlib.util.find_spec(m) is not None for m in ("torch", "transformers", "gguf", "accelerate"))


def _timed(fn, reps):
    """Run fn once to warm up, then `reps` times -> list of seconds."""
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def _once(fn):
    start = time.perf_counter()
    fn()
    return [time.perf_counter() - start]


def _prompts(encode):
    ids = encode(TEXT)
    return ids[:N_PROMPT], (ids * (N_LONG // len(ids) + 1))[:N_LONG]


def worker_numpy(reps, long):
    start = time.perf_counter()
    from attn_lib.models.smollm2 import model as smollm

    model = smollm.load_smollm(download=False)
    out = {"load": [time.perf_counter() - start], "maxrss_after_load_mib": _maxrss_mib()}
    short, long_ids = _prompts(model.encode)

    def gen(ids, use_cache):
        return smollm.generate(model, ids, N_NEW, use_cache=use_cache, stop_ids=())

    out["forward16"] = _timed(lambda: smollm.forward(model, short), reps)
    out["gen32_cache"] = _timed(lambda: gen(short, True), max(1, reps // 2))
    out["gen32_nocache"] = _once(lambda: gen(short, False))
    if long:
        out["long_cache"] = _once(lambda: gen(long_ids, True))
        out["long_nocache"] = _once(lambda: gen(long_ids, False))
    out["tokens"] = gen(short, True)
    out["maxrss_mib"] = _maxrss_mib()
    return out, {"forward16": lambda: smollm.forward(model, short), "gen32_cache": lambda: gen(short, True)}


def worker_torch(reps, attn):
    """transformers' LlamaForCausalLM from the same GGUF file: float32, eager PyTorch (nothing compiled)."""
    start = time.perf_counter()
    import torch
    from transformers import AutoModelForCausalLM

    from attn_lib.models.fetch import SMOLLM2, find_model_files
    from attn_lib.models.smollm2.model import GGUF_NAME

    folder = find_model_files(download=False, spec=SMOLLM2)
    model = AutoModelForCausalLM.from_pretrained(
        folder, gguf_file=GGUF_NAME, dtype=torch.float32, attn_implementation=attn
    ).eval()
    out = {"load": [time.perf_counter() - start]}
    from attn_lib.models.gguf.reader import TOKENIZER_KEYS, read_header
    from attn_lib.models.gguf.vocab import build_tokenizer

    tokenizer = build_tokenizer(read_header(folder / GGUF_NAME, TOKENIZER_KEYS)[0])  # numpy's (tested the same)
    short, _ = _prompts(lambda text: tokenizer.encode(text).ids)
    short = torch.tensor([short])

    def gen(use_cache):
        return model.generate(short, max_new_tokens=N_NEW, min_new_tokens=N_NEW, do_sample=False,
                              use_cache=use_cache, pad_token_id=2)  # fmt: skip

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
    return out, cases


def _maxrss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stolen_ticks():
    """Clock ticks the hypervisor has taken from this machine's CPUs so far (/proc/stat's steal; 0 where none)."""
    try:
        with open("/proc/stat", encoding="ascii") as f:
            return int(f.readline().split()[8])  # "cpu user nice system idle iowait irq softirq steal ..."
    except (OSError, IndexError, ValueError):
        return 0


def serve(cases):
    """In a worker, after its own measurements: read "CASE N" per line, run the 16-token forward pass once,
    untimed (an idle process's first call is slower: its threads asleep, its caches filled by the other
    process's work), then CASE N times; print the N times in seconds, as one JSON line.

    Until the parent writes "quit" (or closes the pipe) the process waits, idle, for the next line.
    """
    for line in sys.stdin:
        if line.strip() == "quit":
            break
        name, count = line.split()
        cases["forward16"]()
        print(json.dumps([_once(cases[name])[0] for _ in range(int(count))]), flush=True)


class Worker:
    """A fresh process for one kind: its own measurements first (load, then each case in turn), then it stays,
    idle, and whenever `time` asks runs one untimed forward pass, then a case a few times (the paired phase)."""

    def __init__(self, kind, reps, long):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", kind, "--reps", str(reps)]
        cmd += ["--long"] if long else []
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
        """-> the median of `count` calls of `case` in the worker's process (after one untimed call), seconds."""
        self.proc.stdin.write(f"{case} {count}\n")
        self.proc.stdin.flush()
        return statistics.median(json.loads(self._line()))

    def close(self):
        self.proc.communicate("quit\n")
        self.log.close()


def _steal_share(stolen, start):
    """The share of every CPU's time the hypervisor took since `start` (its ticks then: `stolen`)."""
    ticks = os.sysconf("SC_CLK_TCK") * (time.monotonic() - start) * (os.cpu_count() or 1)
    return (_stolen_ticks() - stolen) / ticks


def paired_phase(workers, pairs):
    """Every kind's worker alive and idle; each case timed `pairs[case]` times per kind, the kinds in turn, one
    process at a time (never two computing at once), PAUSE seconds before each so that the other process's
    threads have gone back to sleep; each time the median of BURST[case] calls. -> {case: {kind: [seconds, ...]}}:
    entry i of every kind's list was timed within the same few seconds."""
    timed = {case: {w.kind: [] for w in workers} for case in pairs}
    for case, count in pairs.items():
        for i in range(count):
            for w in workers[i % len(workers) :] + workers[: i % len(workers)]:  # who goes first rotates
                time.sleep(PAUSE)
                timed[case][w.kind].append(w.time(case, BURST[case]))
    return timed


def wait_for_quiet(limit, max_wait):
    start = time.monotonic()
    while os.getloadavg()[0] >= limit and time.monotonic() - start < max_wait:
        time.sleep(10)
    return os.getloadavg()[0] < limit, time.monotonic() - start


def median_of(results, key):
    values = [x for r in results if key in r for x in r[key]]
    return statistics.median(values) if values else None


def quartiles(values):
    """-> (first quartile, median, third quartile)."""
    q1, q2, q3 = statistics.quantiles(values, n=4) if len(values) > 1 else values * 3
    return q1, q2, q3


def summarise(results, paired, kinds):
    med = {k: {key: median_of(results[k], key) for key in ("load", *TIMED)} for k in kinds}
    npy = med["numpy"]
    summary = {
        "load_s": npy["load"],
        "cache_speedup_16": npy["gen32_nocache"] / npy["gen32_cache"],
        "peak_rss_mib": max(r["maxrss_mib"] for r in results["numpy"]),
    }
    if npy["long_cache"]:
        summary["cache_speedup_128"] = npy["long_nocache"] / npy["long_cache"]
    for k in kinds[1:]:
        for case, what in (("forward16", "forward16"), ("gen32_cache", "gen32")):
            # the budget: numpy's time over PyTorch's in each pair of calls made within the same few seconds
            ratios = [a / b for a, b in zip(paired[case]["numpy"], paired[case][k], strict=True)]
            summary[f"{what}_ratio_quartiles_{k}"] = quartiles(ratios)
            summary[f"{what}_ratio_{k}"] = summary[f"{what}_ratio_quartiles_{k}"][1]  # the median pair
            summary[f"{what}_pairs_within_{k}"] = sum(x <= BUDGET_RATIO for x in ratios) / len(ratios)
            summary[f"{what}_unpaired_{k}"] = npy[case] / med[k][case]  # each process's own calls, as before
    tokens = [r["tokens"] for rs in results.values() for r in rs]
    summary["same_tokens"] = all(t == tokens[0] for t in tokens)
    return med, summary


def report(med, paired, summary, kinds, loads, args, waited):
    ms = lambda s: "–" if s is None else f"{s * 1e3:.0f}"  # noqa: E731
    lines = [
        "# SmolLM2-135M: numpy against transformers", "",
        f"Command: `{' '.join(['python benchmarks/smollm_speed.py', *sys.argv[1:]])}`", "",
        f"- python {platform.python_version()}, cpu count {os.cpu_count()}, {datetime.date.today().isoformat()}",
        "- CPU: {}; numpy's BLAS: {}".format(*machine()[::2]),
        f"- load average (1 min) during the run: {min(loads):.2f} .. {max(loads):.2f}{waited}",
        f"- {args.rounds} rounds, each kind in a fresh process, alternating; medians of every timed call", "",
        "The table: each process's own calls, made one process after the other (a minute or more apart).", "",
        f"| kind | load s | forward, {N_PROMPT} tokens ms | {N_NEW} greedy tokens, cache ms |"
        f" {N_NEW} tokens, no cache ms | {N_LONG}-token prompt + {N_NEW}, cache ms | the same, no cache ms |",
        "|---|---|---|---|---|---|---|",
    ]  # fmt: skip
    for k in kinds:
        m = med[k]
        cells = [f"{m['load']:.2f}"] + [ms(m[key]) for key in TIMED]
        lines.append(f"| {k} | {' | '.join(cells)} |")
    pairs = {case: len(by_kind[kinds[0]]) // args.rounds for case, by_kind in paired.items()}
    bursts = "; ".join(f"{case}: {pairs[case]} pairs per round, each time the median of {BURST[case]} call(s) in a row"
                       for case in pairs)  # fmt: skip
    lines += ["", "Paired: every process alive and idle, the kinds timed in turn, one process at a time, each kind's"
              " i-th time within the same few seconds, after one untimed forward pass in that process"
              f" ({bursts}); a ratio is the median of numpy's time over PyTorch's in each pair.", "",
              "| kind | " + " | ".join(f"{case}, paired, median ms" for case in pairs) + " |",
              "|---|" + "---|" * len(pairs)]  # fmt: skip
    for k in kinds:
        lines.append(f"| {k} | " + " | ".join(f"{statistics.median(paired[c][k]) * 1e3:.0f}" for c in pairs) + " |")
    lines += ["", "| budget | measured | target | met |", "|---|---|---|---|"]
    for name, value, target, ok in budgets(summary):
        met = "—" if target == "(reported)" else "yes" if ok else "no"
        lines.append(f"| {name} | {value} | {target} | {met} |")
    lines += ["", f"Peak resident memory of the numpy worker: {summary['peak_rss_mib']:.0f} MiB. The same {N_NEW}"
              f" greedy tokens in every run, numpy and PyTorch: {summary['same_tokens']}."]  # fmt: skip
    return "\n".join(lines) + "\n"


def budgets(summary):
    """(what, measured, target, met) for each budget of issue 25 that this run measured."""
    rows = [("loading (numpy, fresh process)", f"{summary['load_s']:.2f} s", f"<= {BUDGET_LOAD_S:.0f} s",
             summary["load_s"] <= BUDGET_LOAD_S)]  # fmt: skip
    for key, value in summary.items():
        if "_ratio_" in key and "_quartiles_" not in key:
            what, _, kind = key.partition("_ratio_")
            label = f"forward of {N_PROMPT} tokens" if what == "forward16" else f"{N_NEW} greedy tokens with the cache"
            q1, _, q3 = summary[f"{what}_ratio_quartiles_{kind}"]
            within, unpaired = summary[f"{what}_pairs_within_{kind}"], summary[f"{what}_unpaired_{kind}"]
            measured = (f"{value:.2f} (quartiles {q1:.2f}–{q3:.2f}; {within:.0%} of pairs <= {BUDGET_RATIO};"
                        f" unpaired {unpaired:.2f})")  # fmt: skip
            budgeted = kind == "torch:eager"  # the "CPU eager path"; sdpa is reported beside it
            target = f"<= {BUDGET_RATIO}" if budgeted else "(reported)"
            rows.append((f"{label}, numpy / {kind}", measured, target, value <= BUDGET_RATIO or not budgeted))
    rows.append((f"cache speed-up, {N_PROMPT}-token prompt + {N_NEW}", f"{summary['cache_speedup_16']:.1f}x",
                 "(reported)", True))  # fmt: skip
    if "cache_speedup_128" in summary:
        value = summary["cache_speedup_128"]
        rows.append((f"cache speed-up, {N_LONG}-token prompt + {N_NEW}", f"{value:.1f}x", f">= {BUDGET_CACHE:.0f}x",
                     value >= BUDGET_CACHE))  # fmt: skip
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=6)
    p.add_argument("--quick", action="store_true", help="1 round, 2 repetitions, no 128-token prompt")
    p.add_argument("--wait-load", type=float, default=0.0, help="first wait for a 1-minute load average below this")
    p.add_argument("--max-wait", type=float, default=900.0)
    p.add_argument("--out", type=Path, default=None, help="where to write .md and .json (default: results/)")
    p.add_argument("--worker", help=argparse.SUPPRESS)
    p.add_argument("--long", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.worker:  # inside a worker process: print one JSON line, then serve timed calls (see `serve`)
        if args.worker == "numpy":
            result, cases = worker_numpy(args.reps, args.long)
        else:
            result, cases = worker_torch(args.reps, args.worker.split(":", 1)[1])
        print(json.dumps(result), flush=True)
        serve(cases)
        return 0
    if args.quick:
        args.rounds, args.reps = 1, 2
    waited = ""
    if args.wait_load:
        quiet, seconds = wait_for_quiet(args.wait_load, args.max_wait)
        waited = f"; waited {seconds:.0f} s for a load below {args.wait_load}: {'found' if quiet else 'not found'}"
    kinds = ["numpy"] + (["torch:sdpa", "torch:eager"] if HAVE_TORCH else [])
    results = {k: [] for k in kinds}
    paired = {case: {k: [] for k in kinds} for case in PAIRED}  # entry i of each kind's list: the same moment
    pairs = {case: 2 for case in PAIRED} if args.quick else PAIRED
    per_worker = []  # each worker's own medians, in the order they ran (how much one process differs from the next)
    for r in range(args.rounds):
        workers = []
        for kind in kinds if r % 2 == 0 else kinds[::-1]:  # neither side always runs first
            workers.append(Worker(kind, args.reps, long=kind == "numpy" and not args.quick))
            res = workers[-1].result
            results[kind].append(res)
            got = {key: round(statistics.median(res[key]) * 1e3) for key in res if key[0] in "lfg" and key != "loadavg"}
            loadavg = [round(x, 2) for x in res["loadavg"]]
            per_worker.append(f"round {r} {kind:12s} ms {got} load {loadavg} steal {res['steal']:.0%}")
            print(per_worker[-1], file=sys.stderr)
        stolen, start = _stolen_ticks(), time.monotonic()
        for case, by_kind in paired_phase(workers, pairs).items():
            for kind, seconds in by_kind.items():
                paired[case][kind] += seconds
        for w in workers:
            w.close()
        got = {case: {k: round(statistics.median(v[-pairs[case]:]) * 1e3) for k, v in paired[case].items()}
               for case in pairs}  # fmt: skip
        per_worker.append(f"round {r} paired       ms {got} steal {_steal_share(stolen, start):.0%}")
        print(per_worker[-1], file=sys.stderr)
    med, summary = summarise(results, paired, kinds)
    loads = [x for rs in results.values() for res in rs for x in res["loadavg"]]
    text = report(med, paired, summary, kinds, loads, args, waited)
    text += ("\nEach worker's own medians, in the order they ran (steal: the share of the CPUs' time the hypervisor"
             " took meanwhile, from /proc/stat):\n\n```\n" + "\n".join(per_worker) + "\n```\n")  # fmt: skip
    print(text)
    out = args.out or (None if args.quick else RESULTS)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        (out / "smollm_speed.md").write_text(text, encoding="utf-8")
        cpu, _, blas = machine()
        record = {"cpu": cpu, "blas": blas, "medians_s": med, "paired_s": paired, "summary": summary,
                  "loadavg": [min(loads), max(loads)], "argv": sys.argv[1:]}  # fmt: skip
        (out / "smollm_speed.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return 0 if all(ok for *_, ok in budgets(summary)) else 1


if __name__ == "__main__":
    sys.exit(main())
