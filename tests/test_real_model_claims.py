"""What notebook 10 says about all-MiniLM-L6-v2, checked on the model: the parameter count against the model's
file (the pooler is the difference from the model card's 22.7 M), and head (4, 2) doing two of the article's
"relations". Skipped, with the reason, when the model's files are not available."""

import numpy as np

from attn_lib.examples import ANIMAL_SENTENCE
from attn_lib.models.minilm.head_types import head_types


def test_the_file_holds_our_parameters_the_pooler_and_the_position_ids(model):
    from safetensors.numpy import load_file

    in_file = load_file(str(model.folder / "model.safetensors"))
    ours = sum(p.size for name, p in model.params.items() if name != "layers")
    ours += sum(p.size for layer in model.params["layers"] for p in layer.values())
    pooler = {name: value.shape for name, value in in_file.items() if name.startswith("pooler.")}
    d = model.d_model
    assert pooler == {"pooler.dense.weight": (d, d), "pooler.dense.bias": (d,)}
    assert ours == 22_565_376
    assert ours + d * d + d == 22_713_216  # the model card's 22.7 M
    assert sum(value.size for value in in_file.values()) == ours + d * d + d + in_file["embeddings.position_ids"].size


def test_head_4_2_looks_from_it_to_animal_and_from_cross_to_street(model):
    out = model.run(ANIMAL_SENTENCE)
    tokens, head = out.tokens, out.attentions[3, 1]  # layer 4, head 2, counted from 1
    for query, key in (("it", "animal"), ("cross", "street")):
        row = head[tokens.index(query)]
        assert tokens[int(np.argmax(row))] == key and row.max() > 0.5, (query, key, row.round(2))
    assert head_types(out.attentions)[3, 1] == "special"  # what the notebook says the rule makes of it
