"""Published attention configurations of real language models (notebook 12's KV-cache budget).

Data only: each entry copies the numbers of a model's paper or released configuration file
(config.json on the model's Hugging Face page), named in `source`. The KV cache of one sequence is
`attn_lib.grouped.kv_cache_bytes(n_layers, n_kv_heads, d_head, n_tokens, bytes_per_number)`; with a
sliding window only the last `sliding_window` tokens of each layer need to stay in it.
"""

from dataclasses import dataclass

from attn_lib.i18n import get_language, t


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
    #: The source without its notes (what a note that has already said them in another language cites).
    reference: str | None = None

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
    reference="Touvron et al. 2023, Llama 2, Table 1; config.json of meta-llama/Llama-2-7b-hf",
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
    reference="Touvron et al. 2023, Llama 2, Table 1 and section 2.2; config.json of meta-llama/Llama-2-70b-hf",
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
    reference="Jiang et al. 2023, Mistral 7B, Table 1",
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
    reference="config.json of tiiuae/falcon-7b; Almazrouei et al. 2023, The Falcon Series of Open Language Models",
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
    reference="Zhang et al. 2022, OPT, Table 1; Kwon et al. 2023 (PagedAttention), section 3",
)

#: The configurations notebook 12 compares, multi-head first.
CONFIGS = (LLAMA2_7B, OPT_13B, LLAMA2_70B, MISTRAL_7B, FALCON_7B)


def source_note(config, lang=None):
    """Where `config`'s numbers come from, as notebook 12 prints it: the source itself, notes and all (English), or
    in Chinese a note on what the source shows, in Chinese, followed by the reference alone."""
    chinese = (get_language() if lang is None else lang) == "zh"
    cited = (config.reference or config.source) if chinese else config.source
    return t("configs.source." + config.name, lang, source=cited)


# --- the other lines of a config: the norm, the feed-forward network, RoPE (notebooks 07 and 12) -------


@dataclass(frozen=True)
class BlockConfig:
    """The lines of a model's config around attention: norm, feed-forward network, position encoding."""

    name: str
    d_model: int
    d_ff: int  # the feed-forward network's hidden size (intermediate_size)
    norm: str  # "LayerNorm" or "RMSNorm"
    norm_eps: float
    ffn: str  # "GELU" (two matrices), "SwiGLU" or "GeGLU" (three: gate, up, down)
    ffn_bias: bool  # biases in the feed-forward network
    position: str  # "learned" or "RoPE"
    rope_theta: float | None  # RoPE's base (10000 in RoFormer; None without RoPE)
    rope_scaling: str | None  # how the RoPE angles are stretched beyond the trained context (None: not at all)
    context: int  # tokens (the longest the config allows)
    source: str
    rope_original_context: int | None = None  # the context the stretch starts from (with rope_scaling)

    @property
    def ffn_matrices(self):
        """2 for GELU (W_1, W_2), 3 for a gated network (W_gate, W_up, W_down)."""
        return 2 if self.ffn == "GELU" else 3


GPT2_SMALL_BLOCK = BlockConfig(
    name="GPT-2 Small",
    d_model=768,
    d_ff=3072,
    norm="LayerNorm",
    norm_eps=1e-5,
    ffn="GELU",
    ffn_bias=True,
    position="learned",
    rope_theta=None,
    rope_scaling=None,
    context=1024,
    source="config.json of openai-community/gpt2 (n_embd 768, n_inner null = 4 x 768, layer_norm_epsilon 1e-05,"
    " n_positions 1024); Radford et al. 2019",
)

LLAMA2_7B_BLOCK = BlockConfig(
    name="Llama 2 7B",
    d_model=4096,
    d_ff=11008,
    norm="RMSNorm",
    norm_eps=1e-5,
    ffn="SwiGLU",
    ffn_bias=False,
    position="RoPE",
    rope_theta=10000.0,
    rope_scaling=None,
    context=4096,
    source="config.json of meta-llama/Llama-2-7b-hf (intermediate_size 11008, rms_norm_eps 1e-05, hidden_act silu);"
    " Touvron et al. 2023, LLaMA, section 2.2 (RMSNorm, SwiGLU with 2/3 4d, RoPE)",
)

MISTRAL_7B_BLOCK = BlockConfig(
    name="Mistral 7B",
    d_model=4096,
    d_ff=14336,
    norm="RMSNorm",
    norm_eps=1e-5,
    ffn="SwiGLU",
    ffn_bias=False,
    position="RoPE",
    rope_theta=10000.0,
    rope_scaling=None,
    context=8192,
    source="Jiang et al. 2023, Mistral 7B, Table 1 (dim 4096, hidden_dim 14336); config.json of"
    " mistralai/Mistral-7B-v0.1 (rms_norm_eps 1e-05, rope_theta 10000.0)",
)

LLAMA31_8B_BLOCK = BlockConfig(
    name="Llama 3.1 8B",
    d_model=4096,
    d_ff=14336,
    norm="RMSNorm",
    norm_eps=1e-5,
    ffn="SwiGLU",
    ffn_bias=False,
    position="RoPE",
    rope_theta=500000.0,
    rope_scaling="llama3 ×8",
    context=131072,
    source="config.json of meta-llama/Llama-3.1-8B (intermediate_size 14336, rope_theta 500000.0, rope_scaling"
    " {rope_type llama3, factor 8.0, low_freq_factor 1.0, high_freq_factor 4.0, original_max_position_embeddings"
    " 8192}, max_position_embeddings 131072)",
    rope_original_context=8192,
)

QWEN2_7B_BLOCK = BlockConfig(
    name="Qwen2 7B",
    d_model=3584,
    d_ff=18944,
    norm="RMSNorm",
    norm_eps=1e-6,
    ffn="SwiGLU",
    ffn_bias=False,
    position="RoPE",
    rope_theta=1000000.0,
    rope_scaling="YaRN ×4",
    context=32768,
    source="config.json of Qwen/Qwen2-7B-Instruct (hidden_size 3584, intermediate_size 18944, rms_norm_eps 1e-06,"
    " rope_theta 1000000.0, max_position_embeddings 32768; q, k, v projections with biases, the MLP without);"
    " its model card adds rope_scaling {type yarn, factor 4.0, original_max_position_embeddings 32768}"
    " for inputs beyond 32,768 tokens (the stretch is not in the released config.json)",
    rope_original_context=32768,
)

GEMMA_7B_BLOCK = BlockConfig(
    name="Gemma 7B",
    d_model=3072,
    d_ff=24576,
    norm="RMSNorm",
    norm_eps=1e-6,
    ffn="GeGLU",
    ffn_bias=False,
    position="RoPE",
    rope_theta=10000.0,
    rope_scaling=None,
    context=8192,
    source="Gemma Team 2024, Gemma, section 2 (RMSNorm, GeGLU, RoPE, 8192 tokens); config.json of google/gemma-7b"
    " (hidden_size 3072, intermediate_size 24576, rms_norm_eps 1e-06)",
)

#: GPT-2 Small, then today's models (notebook 07's table, notebook 12's config lines).
BLOCK_CONFIGS = (GPT2_SMALL_BLOCK, LLAMA2_7B_BLOCK, MISTRAL_7B_BLOCK, LLAMA31_8B_BLOCK, QWEN2_7B_BLOCK, GEMMA_7B_BLOCK)
