"""How close the numpy SmolLM2's float32 logits come to transformers' and to the exact (float64) ones, by arithmetic.

    python benchmarks/smollm_precision.py            six test prompts (tests/test_smollm.py) and six held out

For each way of doing the arithmetic it prints the largest |difference| of all logits (every position) from
transformers' float32 LlamaForCausalLM (sdpa and eager attention) and from the same model computed in
float64, over the six prompts of the tests and six prompts chosen after the arithmetic was (held out), with
the time of one forward pass over 16 tokens:

    float32 throughout        the residual stream, RMSNorm, attention, every product in float32 (the prototype)
    float64 elementwise       the residual stream, RMSNorm, RoPE, attention, SiLU in float64; one float32 BLAS
                              product per matrix
    blocks of B (B = 64 is attn_lib's)   the same, each product summed in float32 blocks of B along its inner
                              dimension, the blocks added in float64 (attn_lib.models.smollm2.model.linear)

Memory: the float64 parts hold activations only ([n, 576] and [n, 1536] arrays); the blocks' partial sums
of one product are a [K / B, n, m] float32 array, at most 0.9 MB for 16 tokens (5.5 MB for 100), freed at once.

transformers runs in a child process (its logits come back in a file), so that numpy is timed in a process
that never imported PyTorch. The float64 reference is attn_lib's own model in float64, which agrees with
transformers' float64 model to 3e-13 (tests/test_smollm_transformers.py).
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
HELD_OUT = [
    "The quick brown fox jumps over the lazy dog.",
    "In 1969, Neil Armstrong became the first person to walk on the Moon.",
    "def fibonacci(n):\n    if n < 2:\n        return n\n",
    "<|im_start|>user\nTranslate 'good morning' into French.<|im_end|>\n<|im_start|>assistant\n",
    "Water boils at 100 degrees Celsius at sea level, but at higher altitudes",
    "猫吃鱼",
]
SIXTEEN = "The capital of France is Paris, and the capital of Italy is Rome. The capital of Spain is"
TORCH_CHILD = """
import sys, numpy as np, torch, transformers
folder, name, out, ids = sys.argv[1], sys.argv[2], sys.argv[3], eval(sys.argv[4])
model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32).eval()
arrays = {}
for impl in ("sdpa", "eager"):
    model.set_attn_implementation(impl)
    with torch.inference_mode():
        for i, seq in enumerate(ids):
            arrays[f"{impl}{i}"] = model(torch.tensor([seq])).logits[0].numpy()
np.savez(out, **arrays)
"""


def float32_throughout(model, ids):
    """The whole forward pass in float32, one BLAS product per matrix (the prototype's arithmetic)."""
    from attn_lib import scaled_dot_product_attention
    from attn_lib.block import rms_norm_unchecked, silu
    from attn_lib.grouped import repeat_kv
    from attn_lib.multihead import merge_heads, split_heads
    from attn_lib.position import rope

    cfg, p = model.config, model.params
    x, n = p["embedding"][ids], len(ids)
    mask = np.tril(np.ones((n, n), bool))
    for layer in p["layers"]:
        h = rms_norm_unchecked(x, layer["attn_norm"], np.float32(cfg.rms_eps))
        q = rope(split_heads(h @ layer["w_q"], 9), base=cfg.rope_base)
        k = repeat_kv(rope(split_heads(h @ layer["w_k"], 3), base=cfg.rope_base), 3)
        v = repeat_kv(split_heads(h @ layer["w_v"], 3), 3)
        x = x + merge_heads(scaled_dot_product_attention(q, k, v, mask=mask)[0]) @ layer["w_o"]
        h = rms_norm_unchecked(x, layer["ffn_norm"], np.float32(cfg.rms_eps))
        x = x + (silu(h @ layer["w_gate"]) * (h @ layer["w_up"])) @ layer["w_down"]
    return rms_norm_unchecked(x, p["final_norm"], np.float32(cfg.rms_eps)) @ np.asarray(p["embedding"]).T  # dequantized


def timed(fn, reps=9):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main():
    from test_smollm import PROMPTS

    from attn_lib.models.gguf import arithmetic as smollm_arithmetic  # its BLOCK is the one the products read
    from attn_lib.models.smollm2 import model as lm

    model = lm.load_smollm()
    sets = {"test prompts": [model.encode(t) for t in PROMPTS], "held out": [model.encode(t) for t in HELD_OUT]}
    every = sets["test prompts"] + sets["held out"]
    with tempfile.TemporaryDirectory() as work:
        out = Path(work) / "torch.npz"
        cmd = [sys.executable, "-c", TORCH_CHILD, str(model.path.parent), model.path.name, str(out), json.dumps(every)]
        subprocess.run(cmd, check=True, capture_output=True)
        torch_logits = dict(np.load(out))
    exact = [lm.forward(lm.as_float64(model), ids) for ids in every]
    sixteen = model.encode(SIXTEEN)[:16]
    variants = {"float32 throughout": (lambda ids: float32_throughout(model, ids), None)}
    variants["float64 elementwise"] = (lambda ids: lm.forward(model, ids), 10**9)  # no BLOCK divides K: one product
    for block in (64, 32, 16):
        variants[f"blocks of {block}"] = (lambda ids: lm.forward(model, ids), block)
    print(f"load average {os.getloadavg()[0]:.2f}; max |difference| x 1e-5, over every logit of every position")
    print(f"{'':22s}{'test: sdpa':>11s}{'eager':>7s}{'float64':>9s}{'held out: sdpa':>16s}{'eager':>7s}{'float64':>9s}"
          f"{'fwd16 ms':>10s}")  # fmt: skip
    reference = {"sdpa": [], "eager": []}
    for name, (run, block) in variants.items():
        smollm_arithmetic.BLOCK = block or 64
        logits = [run(ids) for ids in every]
        row = []
        for first, last in ((0, len(PROMPTS)), (len(PROMPTS), len(every))):
            for impl in ("sdpa", "eager"):
                row.append(max(np.abs(logits[i] - torch_logits[f"{impl}{i}"]).max() for i in range(first, last)))
            row.append(max(np.abs(logits[i] - exact[i]).max() for i in range(first, last)))
        ms = timed(lambda run=run: run(sixteen)) * 1e3
        print(f"{name:22s}" + "".join(f"{v * 1e5:{w}.1f}" for v, w in zip(row, (11, 7, 9, 16, 7, 9), strict=True))
              + f"{ms:10.0f}")  # fmt: skip
    smollm_arithmetic.BLOCK = 64
    for impl in ("sdpa", "eager"):
        for first, last in ((0, len(PROMPTS)), (len(PROMPTS), len(every))):
            reference[impl].append(max(np.abs(torch_logits[f"{impl}{i}"] - exact[i]).max() for i in range(first, last)))
    print(
        f"{'transformers itself':22s}{'':18s}{reference['sdpa'][0] * 1e5:9.1f}{'':23s}{reference['sdpa'][1] * 1e5:9.1f}"
        f"   (sdpa against float64; eager: {reference['eager'][0] * 1e5:.1f} and {reference['eager'][1] * 1e5:.1f})"
    )
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
