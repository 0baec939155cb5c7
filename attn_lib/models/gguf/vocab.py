"""The tokenizers a GGUF file describes, built with the `tokenizers` package (no transformers at run time).

A GGUF header carries its model's vocabulary under ``tokenizer.ggml.*``; `build_tokenizer` turns SmolLM2's
byte-level BPE (``tokenizer.ggml.model`` = "gpt2": a vocabulary spelled in GPT-2's byte alphabet and its
merges) into a `tokenizers.Tokenizer`, and `token_bytes` gives back the bytes one of its tokens stands for.
"""

import functools

from attn_lib.models.gguf.reader import CONTROL, TOKENIZER_KEYS


def pre_tokenizer_for(name):
    """GGUF's tokenizer.ggml.pre -> a `tokenizers` pre-tokenizer (only the byte-level ones this course uses).

    'smollm' (llama.cpp's LLAMA_VOCAB_PRE_TYPE_SMOLLM) splits every digit off on its own, then applies
    GPT-2's regex ('s|'t|...| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+): the Digits +
    ByteLevel pre-tokenizer of SmolLM2's own tokenizer.json.
    """
    from tokenizers import pre_tokenizers

    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    if name == "smollm":
        return pre_tokenizers.Sequence([pre_tokenizers.Digits(individual_digits=True), byte_level])
    if name in ("gpt2", "default", None):
        return byte_level
    raise ValueError(f"pre-tokenizer {name!r} is not one this module knows (it knows 'smollm' and 'gpt2')")


def build_tokenizer(metadata):
    """GGUF metadata (with TOKENIZER_KEYS read) -> the byte-level BPE `tokenizers.Tokenizer` it describes.

    tokenizer.ggml.tokens [V] is the vocabulary spelled in GPT-2's byte alphabet (a space is 'Ġ', a newline
    'Ċ'), tokenizer.ggml.merges ["Ġ t", ...] the merges in priority order, and the tokens whose
    tokenizer.ggml.token_type is CONTROL (3) become special tokens, matched whole and never split.
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models

    if metadata.get("tokenizer.ggml.model") != "gpt2":
        raise ValueError(f"only byte-level BPE ('gpt2') is supported, got {metadata.get('tokenizer.ggml.model')!r}")
    missing = [key for key in TOKENIZER_KEYS if key not in metadata]
    if missing:
        raise ValueError(f"metadata lacks {', '.join(missing)}: read the header with array_keys=TOKENIZER_KEYS")
    tokens, token_types, merges = (metadata[key] for key in TOKENIZER_KEYS)
    vocab = {token: i for i, token in enumerate(tokens)}
    pairs = [tuple(merge.split(" ")) for merge in merges]  # "Ġ t" -> ("Ġ", "t")
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=pairs, dropout=None, fuse_unk=False))
    tokenizer.pre_tokenizer = pre_tokenizer_for(metadata.get("tokenizer.ggml.pre"))
    tokenizer.decoder = decoders.ByteLevel()
    control = [tok for tok, kind in zip(tokens, token_types, strict=True) if kind == CONTROL]
    tokenizer.add_special_tokens([AddedToken(tok, special=True, normalized=False) for tok in control])
    return tokenizer


def token_bytes(tokenizer, token_id):
    """-> the bytes a token stands for (its byte-level spelling undone): b' Paris', b'\\xe4\\xbb', ..."""
    piece = tokenizer.id_to_token(int(token_id))
    if piece is None:
        raise ValueError(f"token_id={token_id} is not in the vocabulary of {tokenizer.get_vocab_size()} tokens")
    table = _byte_alphabet()
    if any(ch not in table for ch in piece):  # a special token such as <|im_start|>: its own text
        return piece.encode("utf-8")
    return bytes(table[ch] for ch in piece)


@functools.lru_cache(maxsize=1)
def _byte_alphabet():
    """GPT-2's map from the 256 printable stand-in characters back to bytes ('Ġ' -> 32, 'Ċ' -> 10, 'a' -> 97)."""
    visible = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    chars, extra = {}, 0
    for b in range(256):
        if b in visible:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars
