"""Fixtures shared by the test modules."""

import pytest

from attn_lib.models import fetch as loader


@pytest.fixture(scope="session")
def model():
    """all-MiniLM-L6-v2, loaded once for the session (skipped with the reason, a failure in CI, without its files)."""
    pytest.importorskip("safetensors", reason="load_minilm needs safetensors")
    pytest.importorskip("tokenizers", reason="load_minilm needs tokenizers")
    from attn_lib.models.pretrained import load_minilm

    try:
        return load_minilm()
    except loader.ModelNotAvailableError as exc:
        pytest.skip(f"all-MiniLM-L6-v2 files not found and could not be fetched: {exc}")
