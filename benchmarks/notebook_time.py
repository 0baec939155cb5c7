"""How long each notebook takes to run top to bottom in a fresh kernel (kernel start included), and its memory.

Budgets from the course's issues: each notebook <= 15 s, all of 00-06 <= 60 s per edition, and both
editions of everything <= 150 s; each kernel's peak memory <= 250 MiB (a Binder pod holds about 2 GB for a
learner who keeps several notebooks open). The peak is the kernel process's own high-water mark of resident
memory (``ru_maxrss``), read by one extra cell run after the notebook's last. Prints a markdown table and
exits with status 1 if a budget is missed. The notebooks are executed in memory; nothing on disk changes.

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
BUDGET_EACH = 15.0  # seconds, every notebook
BUDGET_00_06 = 60.0
BUDGET_ALL = 150.0
BUDGET_MIB = 250.0  # peak resident memory of one notebook's kernel

#: Run after the notebook's last cell: the kernel's peak resident memory (KiB on Linux, bytes on macOS).
PEAK_CELL = (
    "import resource as _r, sys as _s\n"
    "print('PEAK_MIB', _r.getrusage(_r.RUSAGE_SELF).ru_maxrss / (2**20 if _s.platform == 'darwin' else 2**10))"
)


def run(path):
    """-> (seconds from kernel start to the notebook's last output, peak MiB of the kernel's resident memory)."""
    notebook = nbformat.read(path, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(PEAK_CELL))
    start = time.perf_counter()
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    seconds = time.perf_counter() - start  # the extra cell takes a millisecond
    text = "".join(out.get("text", "") for out in notebook.cells[-1].outputs)
    return seconds, float(text.split("PEAK_MIB")[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", nargs="+", default=["en", "zh"])
    parser.add_argument("--only", nargs="+", help="run only the notebooks whose number is given (e.g. 09)")
    args = parser.parse_args()
    os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"  # as in the test suite
    print(f"load average at the start: {os.getloadavg()[0]:.2f}\n")
    print("| edition | notebook | seconds | budget | peak MiB | budget |\n|---|---|---:|---:|---:|---:|")
    ok, total = True, 0.0
    for edition in args.edition:
        first_seven = 0.0
        for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
            number = path.name[:2]
            if args.only and number not in args.only:
                continue
            seconds, peak = run(path)
            budget = BUDGET_EACH
            ok &= seconds <= budget and peak <= BUDGET_MIB
            total += seconds
            first_seven += seconds if number <= "06" else 0.0
            print(
                f"| {edition} | {path.stem} | {seconds:.1f} | {budget:.0f} | {peak:.0f} | {BUDGET_MIB:.0f} |",
                flush=True,
            )
        ok &= first_seven <= BUDGET_00_06
        print(f"| {edition} | 00-06 together | {first_seven:.1f} | {BUDGET_00_06:.0f} | | |")
    ok &= total <= BUDGET_ALL or len(args.edition) < 2 or bool(args.only)
    print(f"| all | every notebook, {' + '.join(args.edition)} | {total:.1f} | {BUDGET_ALL:.0f} | | |")
    print("all budgets met" if ok else "A BUDGET WAS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
