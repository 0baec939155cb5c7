"""How long each notebook takes to run top to bottom in a fresh kernel (kernel start included).

Budgets from the course's issues: each notebook <= 15 s, all of 00-06 <= 60 s per edition, and both
editions of everything <= 150 s. Prints a markdown table and exits with status 1 if a
budget is missed. The notebooks are executed in memory; nothing on disk changes.

    python benchmarks/notebook_time.py [--edition en zh]
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


def run(path):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edition", nargs="+", default=["en", "zh"])
    args = parser.parse_args()
    os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"  # as in the test suite
    print("| edition | notebook | seconds | budget |\n|---|---|---:|---:|")
    ok, total = True, 0.0
    for edition in args.edition:
        first_seven = 0.0
        for path in sorted((ROOT / "notebooks" / edition).glob("*.ipynb")):
            number = path.name[:2]
            seconds = run(path)
            budget = BUDGET_EACH
            ok &= seconds <= budget
            total += seconds
            first_seven += seconds if number <= "06" else 0.0
            print(f"| {edition} | {path.stem} | {seconds:.1f} | {budget:.0f} |", flush=True)
        ok &= first_seven <= BUDGET_00_06
        print(f"| {edition} | 00-06 together | {first_seven:.1f} | {BUDGET_00_06:.0f} |")
    ok &= total <= BUDGET_ALL or len(args.edition) < 2
    print(f"| all | every notebook, {' + '.join(args.edition)} | {total:.1f} | {BUDGET_ALL:.0f} |")
    print("all budgets met" if ok else "A BUDGET WAS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
