"""Published attention configurations of real language models (notebook 11's KV-cache budget).

Data only: each entry copies the numbers of a model's paper or released configuration file
(config.json on the model's Hugging Face page), named in `source`. The KV cache of one sequence is
`attn_lib.grouped.kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number)`; with a
sliding window only the last `sliding_window` tokens of each layer need to stay in it.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class AttentionConfig:
    """The numbers of a model that decide its KV cache: layers, query heads, key/value heads, head size."""

    name: str
    n_layers: int
    n_heads: int  # query heads
    n_kv_heads: int  # key/value heads: = n_heads is multi-head, 1 is multi-query, in between grouped-query
    d_head: int  # d_k = d_v of one head
    d_model: int
    context: int  # the context length the model was trained with, in tokens
    sliding_window: int | None  # keys a query sees per layer (None: the whole context)
    source: str

    @property
    def kind(self):
        """The kind of attention: "MHA", "GQA" or "MQA", by how the query heads share key/value heads."""
        if self.n_kv_heads == self.n_heads:
            return "MHA"
        return "MQA" if self.n_kv_heads == 1 else "GQA"


LLAMA2_7B = AttentionConfig(
    name="Llama 2 7B",
    n_layers=32,
    n_heads=32,
    n_kv_heads=32,
    d_head=128,
    d_model=4096,
    context=4096,
    sliding_window=None,
    source="Touvron et al. 2023, Llama 2, Table 1 (4k context; GQA only for 34B and 70B);"
    " config.json of meta-llama/Llama-2-7b-hf",
)

LLAMA2_70B = AttentionConfig(
    name="Llama 2 70B",
    n_layers=80,
    n_heads=64,
    n_kv_heads=8,
    d_head=128,
    d_model=8192,
    context=4096,
    sliding_window=None,
    source="Touvron et al. 2023, Llama 2, Table 1 and section 2.2 (GQA);"
    " config.json of meta-llama/Llama-2-70b-hf (num_key_value_heads 8)",
)

MISTRAL_7B = AttentionConfig(
    name="Mistral 7B",
    n_layers=32,
    n_heads=32,
    n_kv_heads=8,
    d_head=128,
    d_model=4096,
    context=8192,
    sliding_window=4096,
    source="Jiang et al. 2023, Mistral 7B, Table 1 (n_kv_heads 8, window_size 4096, context_len 8192)",
)

FALCON_7B = AttentionConfig(
    name="Falcon 7B",
    n_layers=32,
    n_heads=71,
    n_kv_heads=1,
    d_head=64,
    d_model=4544,
    context=2048,
    sliding_window=None,
    source="config.json of tiiuae/falcon-7b (multi_query true: 71 query heads of 64, one key and one value head);"
    " Almazrouei et al. 2023, The Falcon Series of Open Language Models",
)

OPT_13B = AttentionConfig(
    name="OPT-13B",
    n_layers=40,
    n_heads=40,
    n_kv_heads=40,
    d_head=128,
    d_model=5120,
    context=2048,
    sliding_window=None,
    source="Zhang et al. 2022, OPT, Table 1; Kwon et al. 2023 (PagedAttention), section 3, which gives its KV"
    " cache as 800 KB per token: 2 (key and value) x 5120 (hidden size) x 40 (layers) x 2 (bytes, FP16)",
)

#: The configurations notebook 11 compares, multi-head first.
CONFIGS = (LLAMA2_7B, OPT_13B, LLAMA2_70B, MISTRAL_7B, FALCON_7B)
