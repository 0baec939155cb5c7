"""Reference numbers for SmolLM2-135M-Instruct from transformers -> attn_lib/models/data/smollm_reference.json.

The numbers come from transformers' LlamaForCausalLM reading the same GGUF file (float32, CPU, its default
sdpa attention), independent of attn_lib's numpy forward pass, so that notebook 14 and the tests can check
attn_lib against them without PyTorch installed: the top 10 next tokens and their logits after two
prompts, and the greedy tokens after two prompts (20, or up to and with <|im_end|>). Only the file finder
is shared with attn_lib; the token ids come from transformers' own tokenizer.

    python tools/make_smollm_reference.py          # needs torch, transformers and accelerate (CI installs them)
"""

import json
from pathlib import Path

import torch
import transformers

from attn_lib.models.fetch import SMOLLM2, find_model_files

OUT = Path(__file__).resolve().parent.parent / "attn_lib" / "models" / "data" / "smollm_reference.json"
GGUF = next(iter(SMOLLM2.files))
NEXT_TOKEN_PROMPTS = ("The capital of France is", "The animal didn't cross the street because it was too")
GREEDY_PROMPTS = (
    "The capital of France is",
    "<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n",
)


def main():
    folder = find_model_files(spec=SMOLLM2)
    model = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=GGUF, dtype=torch.float32).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=GGUF)
    data = {
        "model": {"file": GGUF, "sha256": SMOLLM2.files[GGUF], "package": f"{SMOLLM2.package}=={SMOLLM2.version}"},
        "made_with": {"transformers": transformers.__version__, "torch": torch.__version__, "attention": "sdpa"},
        "next_token": [],
        "greedy": [],
    }
    with torch.inference_mode():
        for text in NEXT_TOKEN_PROMPTS:
            ids = tokenizer(text)["input_ids"]
            logits = model(torch.tensor([ids])).logits[0, -1]  # [V]
            top = torch.argsort(logits, descending=True)[:10]
            data["next_token"].append(
                {"text": text, "ids": ids, "top_ids": top.tolist(), "top_logits": [float(logits[i]) for i in top]}
            )
        for text in GREEDY_PROMPTS:
            ids = tokenizer(text)["input_ids"]
            out = model.generate(
                torch.tensor([ids]), max_new_tokens=20, do_sample=False, pad_token_id=2
            )  # stops at <|im_end|>
            data["greedy"].append({"text": text, "ids": ids, "new_ids": out[0, len(ids) :].tolist()})
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
