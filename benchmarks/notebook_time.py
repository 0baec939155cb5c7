"""How long each notebook takes to run top to bottom in a fresh kernel (kernel start included), and its memory.

Budgets from the course's issues: each notebook <= 15 s (notebook 09, which trains a translation model live:
<= 30 s, issue 38; notebook 13, which loads a trained model, draws seven figures and writes a few hundred
sentences: <= 30 s, issue 24; notebook 14, a real language model: <= 30 s, issue 25), all of 00-06 <= 60 s per
edition, and both editions of the notebooks without a budget of their own (00-08, 10-12) <= 150 s; 09, 13 and
14 are held to theirs (together at most 6 x 30 s) rather than raising that. Each
kernel's peak memory <= 250 MiB (a Binder pod holds about 2 GB for a learner who keeps several notebooks
open; notebook 14 holds a 135M-parameter model: <= 700 MiB). The peak is the kernel process's own
high-water mark of resident memory (``ru_maxrss``), read by one extra cell run after the notebook's last.
Prints a markdown table and exits with status 1 if a budget is missed. The notebooks are executed in
memory; nothing on disk changes.

    python benchmarks/notebook_time.py [--edition en zh] [--only 09]
"""

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
BUDGET_EACH = 15.0  # seconds, every notebook ...
BUDGETS = {"09": 30.0, "13": 30.0, "14": 30.0, "15": 45.0}  # ... but these
BUDGET_00_06 = 60.0
BUDGET_ALL = 150.0  # both editions of every notebook that has no budget of its own in BUDGETS
PEAK_BUDGET_MIB = 250.0  # every kernel ...
PEAK_BUDGETS_MIB = {"14": 700.0, "15": 900.0}  # ... but these
PEAK_CELL = (
    "import resource, sys\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == 'darwin' else 1024) / 2**20)"
)


def run(path):
    """-> (seconds to run the notebook, the kernel's peak resident memory in MiB, or None where it cannot tell)."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK_CELL))  # a last cell that reads the kernel's own peak
    start = time.perf_counter()
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start
    try:
        peak = float(notebook.cells[-1].outputs[0]["text"])
    except (IndexError, KeyError, ValueError):  # no resource module (Windows): the cell printed an error instead
        peak = None
    return seconds, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", nargs="+", default=["en", "zh"])
    parser.add_argument("--only", nargs="+", default=None, help="run only these notebooks (two-digit numbers)")
    args = parser.parse_args()
    os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"  # as in the test suite
    print(f"load averages before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}\n")
    print("| edition | notebook | seconds | budget | kernel peak (MiB) | budget |\n|---|---|---:|---:|---:|---:|")
    ok, total, total_own = True, 0.0, 0.0
    for edition in args.edition:
        first_seven = 0.0
        for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
            number = path.name[:2]
            if args.only and number not in args.only:
                continue
            seconds, peak = run(path)
            budget, peak_budget = BUDGETS.get(number, BUDGET_EACH), PEAK_BUDGETS_MIB.get(number, PEAK_BUDGET_MIB)
            ok &= seconds <= budget and (peak_budget is None or peak is None or peak <= peak_budget)
            total += seconds
            total_own += seconds if number in BUDGETS else 0.0
            first_seven += seconds if number <= "06" else 0.0
            shown, peak_limit = "—" if peak is None else f"{peak:.0f}", peak_budget or "—"
            print(f"| {edition} | {path.stem} | {seconds:.1f} | {budget:.0f} | {shown} | {peak_limit} |", flush=True)
        if not args.only:
            ok &= first_seven <= BUDGET_00_06
            print(f"| {edition} | 00-06 together | {first_seven:.1f} | {BUDGET_00_06:.0f} | | |")
    rest = total - total_own
    ok &= rest <= BUDGET_ALL or len(args.edition) < 2 or bool(args.only)
    editions = " + ".join(args.edition)
    print(f"| all | every notebook without its own budget, {editions} | {rest:.1f} | {BUDGET_ALL:.0f} | | |")
    print(f"| all | every notebook run, {editions} | {total:.1f} | | | |")
    print(f"load averages after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("all budgets met" if ok else "A BUDGET WAS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
