"""A real pretrained transformer, all-MiniLM-L6-v2, run through attn_lib's own multi_head_attention.

all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0) is a BERT encoder: 6 layers x 12 heads,
d_model = 384, d_k = 32, trained to map a sentence to a 384-number embedding. Its weights are read
from its .safetensors file one tensor at a time (`SafetensorsFile`) and text is split into word pieces by
``tokenizers``; everything after that is numpy: `attn_lib.models.minilm.bert` on top of `attn_lib.multi_head_attention`.

    model = load_minilm()                 # finds (or fetches once) the files: see attn_lib.models.fetch
    out = model.run("The animal didn't cross the street because it was too tired")
    out.tokens                            # ['[CLS]', 'the', 'animal', ..., '[SEP]']
    out.attentions                        # [6, 12, n, n]: every head of every layer, each row sums to 1
    out.embedding                         # [384], length 1
"""

import json
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

import numpy as np

from attn_lib._checks import describe_value
from attn_lib.models.fetch import find_model_files
from attn_lib.models.minilm.bert import bert_encoder, l2_normalize, mean_pooling

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
    """PyTorch BertModel tensors (names as in its state dict) -> attn_lib.models.minilm.bert's parameters, float32.

    Linear weights are transposed: PyTorch stores [out, in] and computes x W^T; attn_lib uses x @ w.
    `state` may be any mapping of names to arrays; each tensor is read once, when its parameter is made
    (so a lazy mapping, such as `load_minilm`'s, never holds the whole file in memory beside the parameters).
    """
    names = {name.removeprefix("bert."): name for name in state}

    def tensor(key):  # float32, a copy only when the dtype differs
        return np.asarray(state[names[key]]).astype(np.float32, copy=False)

    def linear(prefix):
        weight = tensor(prefix + ".weight")
        return np.ascontiguousarray(weight.T), tensor(prefix + ".bias")  # [in, out], [out]

    def norm(prefix):
        return tensor(prefix + ".weight"), tensor(prefix + ".bias")

    params = {
        "word_embeddings": tensor("embeddings.word_embeddings.weight"),  # [vocab, d_model]
        "position_embeddings": tensor("embeddings.position_embeddings.weight"),  # [512, d]
        "token_type_embeddings": tensor("embeddings.token_type_embeddings.weight"),  # [2, d]
        "layers": [],
    }
    params["embeddings_ln_gamma"], params["embeddings_ln_beta"] = norm("embeddings.LayerNorm")
    n_layers = len({name.split(".")[2] for name in names if name.startswith("encoder.layer.")})
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
    raise TypeError(f"text must be a string or a non-empty list of strings, got {describe_value(text)}")


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

    See attn_lib.models.fetch for where the files come from. Needs the ``tokenizers`` package (small; no
    PyTorch); the weights are read with `SafetensorsFile`, one tensor at a time.
    """
    try:
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise ImportError(
            f"load_minilm needs the package tokenizers ({exc}); install it with: python -m pip install tokenizers"
        ) from None
    folder = find_model_files(download=download, verify=verify)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if config.get("hidden_act") != "gelu":
        raise ValueError(f"expected a BERT model with hidden_act 'gelu', got {config.get('hidden_act')!r}")
    tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokenizer.no_padding()  # the file pads every input to 128; MiniLM.tokenize pads a batch to its longest
    tokenizer.enable_truncation(max_length=MAX_LENGTH)
    with open(folder / "model.safetensors", "rb") as file:  # one tensor at a time: the file never sits in memory
        params = params_from_state_dict(SafetensorsFile(file, mapped=(MAPPED,)))
    return MiniLM(params, config, tokenizer, folder)


#: The word embeddings (30,522 x 384 float32, 45 MB) stay in the file, memory-mapped and read-only: a sentence
#: reads only its own rows, and the rest never takes the kernel's memory.
MAPPED = "embeddings.word_embeddings.weight"


class SafetensorsFile(Mapping):
    """The tensors of an open .safetensors file, by name; each is read from the file when it is looked up.

    The format: 8 bytes (little-endian length N), N bytes of JSON {name: {"dtype", "shape", "data_offsets"}},
    then the tensors' bytes. safetensors.numpy.load_file reads them all at once, and safe_open maps the whole
    file into memory (counted in the process's resident memory); here only the tensor asked for is read, and
    those named in `mapped` are returned as read-only np.memmap arrays (their pages read when touched).
    """

    DTYPES = {
        "F64": "<f8",
        "F32": "<f4",
        "F16": "<f2",
        "I64": "<i8",
        "I32": "<i4",
        "I16": "<i2",
        "I8": "i1",
        "U8": "u1",
    }

    def __init__(self, file, mapped=()):
        self.file, self.mapped = file, set(mapped)  # `mapped`: names returned memory-mapped (read-only), not read
        file.seek(0)
        (length,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(length))
        header.pop("__metadata__", None)
        self.header, self.start = header, 8 + length

    def __getitem__(self, name):
        entry = self.header[name]
        if entry["dtype"] not in self.DTYPES:
            raise ValueError(f"tensor {name} has dtype {entry['dtype']}, which attn_lib does not read")
        begin, end = entry["data_offsets"]
        dtype = np.dtype(self.DTYPES[entry["dtype"]])
        if name in self.mapped and dtype.isnative:  # the pages a lookup touches are read when it touches them
            return np.memmap(self.file, dtype=dtype, mode="r", offset=self.start + begin, shape=tuple(entry["shape"]))
        self.file.seek(self.start + begin)
        data = np.fromfile(self.file, dtype=dtype, count=(end - begin) // dtype.itemsize)
        return data.reshape(entry["shape"]).astype(dtype.newbyteorder("="), copy=False)

    def __iter__(self):
        return iter(self.header)

    def __len__(self):
        return len(self.header)


def reference_numbers():
    """The numbers transformers' BertModel (PyTorch) gives for all-MiniLM-L6-v2, shipped as JSON.

    Written by tools/make_reference_numbers.py; lets a notebook check attn_lib without PyTorch.
    Layers, heads and positions in it count from 0.
    """
    text = resources.files("attn_lib.models").joinpath("data", "minilm_reference.json").read_text(encoding="utf-8")
    return json.loads(text)
