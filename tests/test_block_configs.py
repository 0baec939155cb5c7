"""attn_lib.models.configs.BLOCK_CONFIGS: the norm, feed-forward and RoPE lines of published configurations.

Cross-checked against the attention configurations of the same models, LLaMA's own rule for d_ff, and
the default configurations transformers ships (LlamaConfig's defaults are Llama 7B's, MistralConfig's
Mistral 7B's, GemmaConfig's Gemma 7B's), where transformers is installed.
"""

import math

import pytest

from attn_lib.models.configs import (
    BLOCK_CONFIGS,
    GEMMA_7B_BLOCK,
    LLAMA2_7B,
    LLAMA2_7B_BLOCK,
    MISTRAL_7B,
    MISTRAL_7B_BLOCK,
)


def test_the_same_model_has_the_same_d_model_in_both_tables():
    assert LLAMA2_7B_BLOCK.d_model == LLAMA2_7B.d_model and MISTRAL_7B_BLOCK.d_model == MISTRAL_7B.d_model
    assert LLAMA2_7B_BLOCK.context == LLAMA2_7B.context and MISTRAL_7B_BLOCK.context == MISTRAL_7B.context


def test_llama_takes_two_thirds_of_4_d_model_rounded_up_to_a_multiple_of_256():
    d = LLAMA2_7B_BLOCK.d_model
    assert LLAMA2_7B_BLOCK.d_ff == 256 * math.ceil(int(2 * 4 * d / 3) / 256)  # LLaMA's model.py: multiple_of=256


def test_every_config_is_consistent():
    for c in BLOCK_CONFIGS:
        assert (c.position == "RoPE") == (c.rope_theta is not None), c.name
        assert c.rope_scaling is None or c.position == "RoPE", c.name
        assert (c.rope_scaling is None) == (c.rope_original_context is None), c.name
        assert c.ffn_matrices == (2 if c.ffn == "GELU" else 3), c.name
        assert c.source and c.d_ff > c.d_model, c.name
    today = [c for c in BLOCK_CONFIGS if c.position == "RoPE"]
    assert all(c.norm == "RMSNorm" and c.ffn in ("SwiGLU", "GeGLU") and not c.ffn_bias for c in today)


def test_the_numbers_agree_with_the_default_configs_transformers_ships():
    transformers = pytest.importorskip("transformers")
    for block, config in (
        (LLAMA2_7B_BLOCK, transformers.LlamaConfig()),
        (MISTRAL_7B_BLOCK, transformers.MistralConfig()),
        (GEMMA_7B_BLOCK, transformers.GemmaConfig()),
    ):
        assert (config.hidden_size, config.intermediate_size) == (block.d_model, block.d_ff), block.name
