"""A real pretrained transformer, all-MiniLM-L6-v2, run through attn_lib's own multi_head_attention.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder: 6 layers x 12 heads,
d_model = 384, d_k = 32, trained to map a sentence to a 384-number embedding. Its weights are read
with ``safetensors`` and text is split into word pieces by ``tokenizers``; everything after that is
numpy: `attn_lib.models.bert` on top of `attn_lib.multi_head_attention`.

    model = load_minilm()                 # finds (or fetches once) the files: see attn_lib.models.fetch
    out = model.run("The animal didn't cross the street because it was too tired")
    out.tokens                            # ['[CLS]', 'the', 'animal', ..., '[SEP]']
    out.attentions                        # [6, 12, n, n]: every head of every layer, each row sums to 1
    out.embedding                         # [384], length 1
"""

import json
from dataclasses import dataclass
from importlib import resources

import numpy as np

from attn_lib._checks import _describe
from attn_lib.models.bert import bert_encoder, l2_normalize, mean_pooling
from attn_lib.models.fetch import find_model_files

MAX_LENGTH = 256  # sentence-transformers truncates all-MiniLM-L6-v2's input to 256 word pieces


@dataclass(frozen=True)
class MiniLMOutput:
    """What one run returns; a leading [b] axis on every array when a list of texts was given."""

    tokens: list  # the word pieces, '[CLS]' ... '[SEP]' (a list of such lists for a batch)
    input_ids: np.ndarray  # int [.., n]
    attention_mask: np.ndarray  # int [.., n], 1 = real token, 0 = padding
    hidden_states: np.ndarray  # float32 [.., L+1, n, d_model]: embeddings, then each layer's output
    attentions: np.ndarray  # float32 [.., L, h, n, n]: attentions[.., l, i] is head i of layer l+1
    embedding: np.ndarray  # float32 [.., d_model]: mean of the last hidden states over real tokens, length 1

    @property
    def last_hidden_state(self):
        """float32 [.., n, d_model]: the output of the last layer."""
        return self.hidden_states[..., -1, :, :]


def params_from_state_dict(state):
    """PyTorch BertModel tensors (names as in its state dict) -> attn_lib.models.bert's parameters, float32.

    Linear weights are transposed: PyTorch stores [out, in] and computes x W^T; attn_lib uses x @ w.
    """
    state = {name.removeprefix("bert."): np.asarray(value) for name, value in state.items()}

    def linear(prefix):
        weight = state[prefix + ".weight"].astype(np.float32)
        return np.ascontiguousarray(weight.T), state[prefix + ".bias"].astype(np.float32)  # [in, out], [out]

    def norm(prefix):
        return state[prefix + ".weight"].astype(np.float32), state[prefix + ".bias"].astype(np.float32)

    params = {
        "word_embeddings": state["embeddings.word_embeddings.weight"].astype(np.float32),  # [vocab, d_model]
        "position_embeddings": state["embeddings.position_embeddings.weight"].astype(np.float32),  # [512, d]
        "token_type_embeddings": state["embeddings.token_type_embeddings.weight"].astype(np.float32),  # [2, d]
        "layers": [],
    }
    params["embeddings_ln_gamma"], params["embeddings_ln_beta"] = norm("embeddings.LayerNorm")
    n_layers = len({name.split(".")[2] for name in state if name.startswith("encoder.layer.")})
    for i in range(n_layers):
        p = f"encoder.layer.{i}."
        layer = {}
        layer["w_q"], layer["b_q"] = linear(p + "attention.self.query")
        layer["w_k"], layer["b_k"] = linear(p + "attention.self.key")
        layer["w_v"], layer["b_v"] = linear(p + "attention.self.value")
        layer["w_o"], layer["b_o"] = linear(p + "attention.output.dense")
        layer["ln1_gamma"], layer["ln1_beta"] = norm(p + "attention.output.LayerNorm")
        layer["w_1"], layer["b_1"] = linear(p + "intermediate.dense")  # [d_model, d_ff]
        layer["w_2"], layer["b_2"] = linear(p + "output.dense")  # [d_ff, d_model]
        layer["ln2_gamma"], layer["ln2_beta"] = norm(p + "output.LayerNorm")
        params["layers"].append(layer)
    return params


def _check_texts(text):
    """`text` as a list of strings, and whether it was a single string."""
    if isinstance(text, str):
        return [text], True
    if isinstance(text, (list, tuple)) and text and all(isinstance(s, str) for s in text):
        return list(text), False
    raise TypeError(f"text must be a string or a non-empty list of strings, got {_describe(text)}")


class MiniLM:
    """all-MiniLM-L6-v2's weights, configuration and tokenizer; `run` computes everything in numpy."""

    def __init__(self, params, config, tokenizer, folder=None):
        self.params = params
        self.config = config
        self.tokenizer = tokenizer
        self.folder = folder
        self.n_layers = config["num_hidden_layers"]  # L = 6
        self.n_heads = config["num_attention_heads"]  # h = 12
        self.d_model = config["hidden_size"]  # 384
        self.d_k = self.d_model // self.n_heads  # 32
        self.eps = config["layer_norm_eps"]

    def __repr__(self):
        return f"MiniLM(L={self.n_layers}, h={self.n_heads}, d_model={self.d_model}, d_k={self.d_k})"

    def tokenize(self, text):
        """str or list of str -> word pieces, input_ids int [.., n], attention_mask int [.., n] (padded batch)."""
        texts, single = _check_texts(text)
        encodings = self.tokenizer.encode_batch(texts)
        n = max(len(e.ids) for e in encodings)
        input_ids = np.zeros((len(texts), n), dtype=np.int64)  # [b, n], 0 = '[PAD]'
        attention_mask = np.zeros((len(texts), n), dtype=np.int64)  # [b, n]
        for row, e in enumerate(encodings):
            input_ids[row, : len(e.ids)] = e.ids
            attention_mask[row, : len(e.ids)] = 1
        tokens = [list(e.tokens) for e in encodings]
        if single:
            return tokens[0], input_ids[0], attention_mask[0]
        return tokens, input_ids, attention_mask

    def run(self, text, *, attention=None):
        """str -> MiniLMOutput with arrays [n, ...]; list of str -> a padded batch with arrays [b, n, ...].

        `attention` (keyword-only) replaces the scaled dot-product step in every head of every layer:
        a function like attn_lib.scaled_dot_product_attention, called as attention(q, k, v, mask=mask)
        with q, k, v [.., h, n, d_k] and a boolean padding mask [.., 1, 1, n], returning (output
        [.., h, n, d_k], weights [.., h, n, n]) — your my_attention from notebook 04, say. None: attn_lib's own.
        """
        tokens, input_ids, attention_mask = self.tokenize(text)
        hidden, weights = bert_encoder(
            input_ids, self.params, self.n_heads, attention_mask, self.eps, attention=attention
        )  # [.., L+1, n, d_model], [.., L, h, n, n]
        embedding = l2_normalize(mean_pooling(hidden[..., -1, :, :], attention_mask))  # [.., d_model]
        return MiniLMOutput(tokens, input_ids, attention_mask, hidden, weights, embedding)

    def embed(self, text, *, attention=None):
        """str -> [d_model], list of str -> [b, d_model]: sentence embeddings of length 1 (cosine = dot).

        `attention`: as in `run`.
        """
        return self.run(text, attention=attention).embedding


def load_minilm(download=True, verify=True):
    """Load all-MiniLM-L6-v2 for `MiniLM.run`: find (or fetch once) its files, read weights and tokenizer.

    See attn_lib.models.fetch for where the files come from. Needs the ``safetensors`` and
    ``tokenizers`` packages (small; no PyTorch).
    """
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(
            f"load_minilm needs the packages safetensors and tokenizers ({exc});"
            " install them with: python -m pip install safetensors tokenizers"
        ) from None
    folder = find_model_files(download=download, verify=verify)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"expected a BERT model with hidden_act 'gelu', got {config.get('hidden_act')!r}")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads every input to 128; MiniLM.tokenize pads a batch to its longest
    tokenizer.enable_truncation(max_length=MAX_LENGTH)
    params = params_from_state_dict(load_file(str(folder / "model.safetensors")))
    return MiniLM(params, config, tokenizer, folder)


def reference_numbers():
    """The numbers transformers' BertModel (PyTorch) gives for all-MiniLM-L6-v2, shipped as JSON.

    Written by tools/make_reference_numbers.py; lets a notebook check attn_lib without PyTorch.
    Layers, heads and positions in it count from 0.
    """
    text = resources.files("attn_lib.models").joinpath("data", "minilm_reference.json").read_text(encoding="utf-8")
    return json.loads(text)
