"""How long the learner's readiness check takes: python -m attn_lib.check, in a fresh process (imports included).

Budget (issue 26): 60 s, on a slow machine. Prints the time and the load average and exits with status 1 if the
budget is missed or the check does not pass.

    python benchmarks/readiness_check.py [--repeat 3]
"""

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 60.0  # seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    times, status = [], 0
    for _ in range(args.repeat):
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "attn_lib.check"], capture_output=True, text=True, cwd=ROOT)
        times.append(time.perf_counter() - start)
        status |= result.returncode
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python -m attn_lib.check: slowest {max(times):.1f} s of {args.repeat} (budget {BUDGET:.0f} s),"
          f" load average {load:.2f}, exit status {status}")  # fmt: skip
    return 1 if max(times) > BUDGET or status else 0


if __name__ == "__main__":
    sys.exit(main())
