"""The tokenizers a GGUF file describes, built with the `tokenizers` package (no transformers at run time).

A GGUF header carries its model's vocabulary under ``tokenizer.ggml.*``. Two kinds are built here:

- `build_tokenizer`: SmolLM2's byte-level BPE (``tokenizer.ggml.model`` = "gpt2": a vocabulary spelled in
  GPT-2's byte alphabet, and its merges); `token_bytes` gives back the bytes one of its tokens stands for.
- `build_sentencepiece_tokenizer`: Gemma 3's SentencePiece BPE with byte fallback (``tokenizer.ggml.model`` =
  "llama": a vocabulary spelled in plain Unicode, with "▁" for a space, and no merges: they are rebuilt from
  the vocabulary by `sentencepiece_merges`).
"""

import functools

from attn_lib.models.gguf.reader import CONTROL, TOKENIZER_KEYS

USER_DEFINED = 4  # tokenizer.ggml.token_type of a user-defined token ("\n\n", "<table>", ...): matched whole
#: The array keys build_sentencepiece_tokenizer needs (read the header with array_keys=SENTENCEPIECE_KEYS)
SENTENCEPIECE_KEYS = ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type")
SPACE = "\u2581"  # "▁" (LOWER ONE EIGHTH BLOCK): SentencePiece's spelling of a space


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


# --- SentencePiece BPE with byte fallback (Gemma 3) ----------------------------------------------------------


def sentencepiece_spelling(token):
    """A token as SentencePiece spells it: a token made only of two or more spaces gets one "▁" per space.

    GGUF files of Gemma store the tokens "  ", "   ", ... (ids 138-167 in Gemma 3) with real spaces, while
    every other token spells a space "▁" ("▁world"); the text is spelled with "▁" before the merges run, so
    those tokens must be too, or a run of spaces could never be merged into them.
    """
    if len(token) > 1 and not token.strip(" "):
        return SPACE * len(token)
    return token


def sentencepiece_merges(tokens):
    """tokens [V] (SentencePiece spelling, in id order) -> the merges [(left, right), ...], best first.

    Every way of cutting a token into two tokens of the vocabulary is a merge: "天气" gives ("天", "气"),
    "▁world" gives ("▁wor", "ld"), ("▁w", "orld"), ... if those halves are tokens. The merges are ranked by
    the id of the token they make (a SentencePiece BPE vocabulary lists its pieces in the order they were
    learned), and one token's merges by their left half, longest first: the rule transformers follows, so
    that both build the same 514,906 merges from Gemma 3's 262,144 tokens.
    """
    known = {token: i for i, token in enumerate(tokens)}.__contains__
    return [(token[:k], token[k:]) for token in tokens
            for k in range(len(token) - 1, 0, -1) if known(token[:k]) and known(token[k:])]  # fmt: skip


def build_sentencepiece_tokenizer(metadata):
    """GGUF metadata (with SENTENCEPIECE_KEYS read) -> Gemma's SentencePiece BPE `tokenizers.Tokenizer`.

    How it tokenizes. Special tokens (token_type CONTROL, 3: <bos>, <start_of_turn>, ...) and user-defined
    ones (USER_DEFINED, 4: "\\n", "\\n\\n", "\\t", "<table>", ...) are found in the text first and kept whole.
    In the text between them every space becomes "▁" (no space is put in front: the file says
    add_space_prefix = False), and the text is not cut into words first: spaces are symbols like any other.
    It starts as one symbol per character; then the adjacent pair whose merge has the best rank is merged,
    again and again, until no pair can be. A character that is not in the vocabulary at all (a rare CJK
    character such as 𠀀) falls back to its UTF-8 bytes, one token each (<0xF0> <0xA0> <0x80> <0x80>), so no
    text is ever "unknown". Decoding turns "▁" back into spaces and joins byte tokens back into characters (a byte
    decoded alone, part of a character, shows as '�').

    Why the merges are rebuilt. A "llama" GGUF tokenizer stores only the tokens (with scores), not the merges:
    `sentencepiece_merges` recovers them from the vocabulary, ranked by token id: the order in the file is the
    order the merges were learned. Gemma's scores do not follow it everywhere: an ordinary token's score falls
    as its id grows (今天, id 22601: -22107), but the runs of spaces ("▁▁", ids 138-167) carry -1000 like the
    special tokens, so ranked by score "a  b" would become a ▁ ▁b instead of a ▁▁ b. Those tokens of several spaces are
    respelled with "▁" first (`sentencepiece_spelling`), as the text is.

    With the file's add_bos_token, encode(text) puts <bos> first, as transformers does; the course's models
    call encode(text, add_special_tokens=False) and put it there themselves. Building takes about 2 s
    (rebuilding half a million merges in Python is most of it).
    """
    from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers

    if metadata.get("tokenizer.ggml.model") != "llama":
        raise ValueError(f"only SentencePiece BPE ('llama') is supported, got {metadata.get('tokenizer.ggml.model')!r}")
    missing = [key for key in SENTENCEPIECE_KEYS if key not in metadata]
    if missing:
        raise ValueError(f"metadata lacks {', '.join(missing)}: read the header with array_keys=SENTENCEPIECE_KEYS")
    if metadata.get("tokenizer.ggml.add_space_prefix", False):
        raise ValueError("add_space_prefix = True (a space put before the text) is not supported: Gemma's is False")
    tokens, token_types = (metadata[key] for key in SENTENCEPIECE_KEYS)
    spelled = [sentencepiece_spelling(token) for token in tokens]
    vocab = {token: i for i, token in enumerate(spelled)}
    if len(vocab) != len(tokens):
        raise ValueError(f"the vocabulary of {len(tokens)} tokens spells some of them twice")
    unk_id = metadata.get("tokenizer.ggml.unknown_token_id")
    unk = None if unk_id is None else tokens[unk_id]
    tokenizer = Tokenizer(models.BPE(vocab=vocab, merges=sentencepiece_merges(spelled), unk_token=unk,
                                     fuse_unk=True, byte_fallback=True, dropout=None))  # fmt: skip
    tokenizer.normalizer = normalizers.Replace(" ", SPACE)
    tokenizer.decoder = decoders.Sequence([decoders.Replace(SPACE, " "), decoders.ByteFallback(), decoders.Fuse()])
    control = [token for token, kind in zip(tokens, token_types, strict=True) if kind == CONTROL]
    tokenizer.add_special_tokens([AddedToken(token, special=True, normalized=False) for token in control])
    # the user-defined runs of spaces are left to the merges, as transformers does (it looks them up spelled
    # with spaces, which the respelled vocabulary no longer has)
    user = [token for token, spelling, kind in zip(tokens, spelled, token_types, strict=True)
            if kind == USER_DEFINED and token == spelling]  # fmt: skip
    tokenizer.add_tokens([AddedToken(token, special=False, normalized=False) for token in user])
    tokenizer.post_processor = _bos_eos_template(metadata, tokens)
    return tokenizer


def _bos_eos_template(metadata, tokens):
    """The post-processor putting <bos> first (<eos> last) where the file's add_bos_token (add_eos_token) says.

    A pair of texts gets them around each text, B's marked type 1: transformers' template for Gemma.
    """
    from tokenizers import processors

    def marks(flag, key, default):
        token_id = metadata.get(f"tokenizer.ggml.{key}")
        wanted = metadata.get(f"tokenizer.ggml.{flag}", default) and token_id is not None
        return [(tokens[token_id], token_id)] if wanted else []

    bos, eos = marks("add_bos_token", "bos_token_id", True), marks("add_eos_token", "eos_token_id", False)
    single = [token for token, _ in bos] + ["$A:0"] + [token for token, _ in eos]
    pair = single + [f"{token}:1" for token, _ in bos] + ["$B:1"] + [f"{token}:1" for token, _ in eos]
    return processors.TemplateProcessing(single=single, pair=pair, special_tokens=bos + eos)
