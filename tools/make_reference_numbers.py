"""Reference numbers for all-MiniLM-L6-v2 from PyTorch + transformers -> attn_lib/models/data/minilm_reference.json.

The numbers come from transformers' BertModel, independent of attn_lib's numpy forward pass, so that
notebook 10 and the tests can check attn_lib against them without PyTorch installed. Only the
tokenizer and the file finder are shared with attn_lib.

    python tools/make_reference_numbers.py          # needs torch and transformers (CI installs both)
"""

import json
from pathlib import Path

import numpy as np
import torch
import transformers
from tokenizers import Tokenizer
from transformers import BertModel

from attn_lib.examples import ANIMAL_SENTENCE
from attn_lib.models.fetch import MODEL_FILES, PACKAGE, VERSION, find_model_files

OUT = Path(__file__).resolve().parent.parent / "attn_lib" / "models" / "data" / "minilm_reference.json"
SENTENCES = (  # for the cosine similarities between sentence embeddings
    ANIMAL_SENTENCE,
    "The animal was too tired to cross the street",
    "Stock prices fell sharply on Monday",
    "The cat eats fish",
    "猫吃鱼",
)
POSITIONS = (0, 2, 10)  # [CLS], 'animal', 'it' in the animal sentence
FIRST = 5  # how many leading values of each hidden state / embedding to keep
ATTENTION_ENTRIES = ((0, 0, 10, 10), (3, 1, 10, 2), (5, 11, 10, 2), (5, 0, 0, 0), (2, 7, 4, 5))  # layer, head, q, k


def run(model, tokenizer, texts):
    """BertModel on a padded batch -> (encodings, last hidden [b, n, d], attentions [b, L, h, n, n], embeddings)."""
    encodings = tokenizer.encode_batch(list(texts))
    n = max(len(e.ids) for e in encodings)
    ids = torch.zeros((len(texts), n), dtype=torch.long)
    mask = torch.zeros((len(texts), n), dtype=torch.long)
    for row, e in enumerate(encodings):
        ids[row, : len(e.ids)] = torch.tensor(e.ids)
        mask[row, : len(e.ids)] = 1
    with torch.no_grad():
        out = model(input_ids=ids, attention_mask=mask, output_attentions=True)
    hidden = out.last_hidden_state
    keep = mask[..., None].float()
    pooled = (hidden * keep).sum(1) / keep.sum(1)  # sentence-transformers' mean pooling
    embeddings = torch.nn.functional.normalize(pooled, dim=-1)  # ... then Normalize
    return encodings, hidden.numpy(), torch.stack(out.attentions, dim=1).numpy(), embeddings.numpy()


def rounded(values):
    return [float(f"{v:.7g}") for v in np.asarray(values, dtype=np.float64).ravel()]


def main():
    folder = find_model_files()
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=256)
    model = BertModel.from_pretrained(str(folder), attn_implementation="eager").eval()

    (enc,), hidden, attentions, embedding = run(model, tokenizer, [ANIMAL_SENTENCE])
    it = enc.tokens.index("it")
    animal = enc.tokens.index("animal")
    # for each layer, the head in which 'it' puts the most weight on 'animal', and that head's whole row
    best_heads = attentions[0, :, :, it, animal].argmax(axis=1)  # [L]
    _, _, _, embeddings = run(model, tokenizer, SENTENCES)

    reference = {
        "about": "all-MiniLM-L6-v2 computed by transformers.BertModel (eager attention, float32, CPU); "
        "written by tools/make_reference_numbers.py",
        "model": {"package": PACKAGE, "version": VERSION, "model.safetensors sha256": MODEL_FILES["model.safetensors"]},
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__},
        "indices": "layers, heads and positions count from 0",
        "sentence": ANIMAL_SENTENCE,
        "tokens": enc.tokens,
        "input_ids": enc.ids,
        "last_hidden_state": {
            "positions": list(POSITIONS),
            "first": FIRST,
            "values": [rounded(hidden[0, p, :FIRST]) for p in POSITIONS],
        },
        "attention_entries": [
            {"layer": layer, "head": h, "query": q, "key": k, "weight": rounded([attentions[0, layer, h, q, k]])[0]}
            for layer, h, q, k in ATTENTION_ENTRIES
        ],
        "it_rows": [
            {"layer": layer, "head": int(h), "row": rounded(attentions[0, layer, h, it])}
            for layer, h in enumerate(best_heads)
        ],
        "embedding": {
            "norm": rounded([np.linalg.norm(embedding[0])])[0],
            "first": rounded(embedding[0, :FIRST]),
        },
        "similarities": {"sentences": list(SENTENCES), "cosine": [rounded(row) for row in embeddings @ embeddings.T]},
        "tolerances": {"hidden": 1e-4, "attention": 1e-5, "embedding": 1e-5},
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(reference, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
