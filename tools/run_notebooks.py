"""Execute notebooks in place, the way their committed outputs are made (for nbval strict to compare).

    python tools/run_notebooks.py notebooks/en/04_*.ipynb notebooks/zh/04_*.ipynb

Each notebook runs top to bottom in a fresh kernel started in its own folder, with missing glyphs
turned into errors (as in the tests). Execution counts are kept (nbval needs them); widget state
(`metadata.widgets`) is dropped, as nbstripout would; the file is written as nbformat writes it.
A cell that raises stops the run and leaves the file unchanged.
"""

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def run(path, timeout=600):
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    notebook.metadata.pop("widgets", None)
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timings from an older run
    nbformat.write(notebook, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args()
    os.environ["PYTHONWARNINGS"] = "error:Glyph:UserWarning"  # as in conftest.py
    for path in args.paths:
        start = time.perf_counter()
        run(path.resolve())
        print(f"{path}: {time.perf_counter() - start:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
