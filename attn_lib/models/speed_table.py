"""Notebook 11's measured table: tiled_attention against PyTorch's fused CPU kernel, as one run measured it.

    table = load_speed_table()               # the figures benchmarks/attention_speed.py stored
    table["rows"][0]["median_ms"]["tiled"]   # n = 2048, no mask: milliseconds per call
    table["breakdown"]["median_ms"]          # where the online softmax's time goes, step by step

Timings change from run to run and machine to machine, so the notebook reads them instead of timing:
its outputs stay the same every time it runs. The file holds the figures of one run of
`python benchmarks/attention_speed.py` (which writes it beside benchmarks/results/attention_speed.json),
with the machine, the date and the load averages it was measured at.
"""

import json
from importlib import resources


def load_speed_table():
    """-> the stored run (attn_lib/models/data/attention_speed.json): machine, date, load, rows, breakdown.

    `rows`: one per (n, mask), each with the median milliseconds per call of every method timed (`methods`
    says what each name is), the 1-minute load average before and after the row, and the timed calls.
    `breakdown`: the online softmax's steps over every block of scores at one n, on one thread.
    """
    text = resources.files("attn_lib.models").joinpath("data", "attention_speed.json").read_text(encoding="utf-8")
    return json.loads(text)
