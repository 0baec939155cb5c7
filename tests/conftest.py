"""Fixtures shared by the test modules."""

import pytest

from attn_lib.models import fetch as loader


@pytest.fixture(scope="session")
def model():
    """all-MiniLM-L6-v2, loaded once for the session (skipped with the reason, a failure in CI, without its files)."""
    pytest.importorskip("safetensors", reason="load_minilm needs safetensors")
    pytest.importorskip("tokenizers", reason="load_minilm needs tokenizers")
    from attn_lib.models.minilm.pretrained import load_minilm

    try:
        return load_minilm()
    except loader.ModelNotAvailableError as exc:
        pytest.skip(f"all-MiniLM-L6-v2 files not found and could not be fetched: {exc}")


@pytest.fixture(scope="session")
def smollm():
    """SmolLM2-135M-Instruct, loaded once per session (skipped with the reason, in CI a failure, without its file)."""
    pytest.importorskip("gguf", reason="load_smollm needs gguf")
    pytest.importorskip("tokenizers", reason="load_smollm needs tokenizers")
    from attn_lib.models.smollm2.model import load_smollm

    try:
        return load_smollm()
    except loader.ModelNotAvailableError as exc:
        pytest.skip(f"SmolLM2-135M-Instruct's file not found and could not be fetched: {exc}")


@pytest.fixture(scope="session")
def gemma3():
    """Gemma 3 270M, loaded once per session (skipped with the reason, in CI a failure, without its file)."""
    pytest.importorskip("gguf", reason="load_gemma3 needs gguf")
    pytest.importorskip("tokenizers", reason="load_gemma3 needs tokenizers")
    from attn_lib.models.gemma3.model import load_gemma3

    try:
        return load_gemma3()
    except loader.ModelNotAvailableError as exc:
        pytest.skip(f"Gemma 3 270M's file not found and could not be fetched: {exc}")
