"""The explorer's view of a real model (attn_lib.widgets.explorer): its sizes, one pass, cached steps, and its tokens as
labels a heatmap can draw.

`ModelView` wraps MiniLM (notebook 10), SmolLM2 (14) or Gemma 3 (15). `token_label` and `drawable` write a token so
that every label can be drawn by the course's fonts: a piece that is part of a character's bytes as those bytes,
whitespace escaped, a character no font has as U+XXXX.
"""

import numpy as np
from matplotlib import font_manager
from matplotlib.ft2font import FT2Font

from attn_lib._checks import describe_value
from attn_lib.pictures.heatmaps import find_cjk_font

# --- the models ------------------------------------------------------------------------------------


class ModelView:
    """What the explorer needs of one real model: its sizes, its tokens as labels, one pass, and cached steps."""

    def __init__(self, model):
        from attn_lib.models.gemma3.model import Gemma3
        from attn_lib.models.minilm.pretrained import MiniLM
        from attn_lib.models.smollm2.model import SmolLM

        self.model = model
        if isinstance(model, MiniLM):
            self.name, self.causal, self.module = "all-MiniLM-L6-v2", False, None
            self.n_layers, self.n_heads, self.d_k = model.n_layers, model.n_heads, model.d_k
            return
        if isinstance(model, Gemma3):
            from attn_lib.models.gemma3 import model as module

            self.name = "Gemma 3 270M"
        elif isinstance(model, SmolLM):
            from attn_lib.models.smollm2 import model as module

            self.name = "SmolLM2-135M"
        else:
            raise TypeError(
                "model must be MiniLM (load_minilm()), SmolLM2 (load_smollm()) or Gemma 3 (load_gemma3()),"
                f" got {describe_value(model)}"
            )
        c = model.config
        self.causal, self.module = True, module
        self.n_layers, self.n_heads, self.d_k = c.n_layers, c.n_heads, c.d_head

    def tokenize(self, text):
        """str -> (token ids, their labels for the heatmaps): a causal model's begin-of-text token first, where it
        wants one; MiniLM's [CLS] ... [SEP] word pieces as its tokenizer names them ([UNK] included)."""
        if not self.causal:
            pieces, ids, _ = self.model.tokenize(text)
            return [int(i) for i in ids], [drawable(piece) for piece in pieces]
        ids = [int(i) for i in self.model.encode(text)]
        return ids, [token_label(self.model, i) for i in ids]

    def analyse(self, text, ids):
        """-> (weights float32 [L, h, n, n], the next token's logits float64 [V], or None for the encoder)."""
        if not self.causal:
            return np.asarray(self.model.run(text).attentions, np.float32), None
        logits, weights = self.module.forward(self.model, ids, last_only=True, keep_weights=True)
        return np.stack(weights), logits[-1].astype(np.float64)

    def write(self, ids, count, pick):
        """Yield up to `count` token ids after `ids`, one cached step each; stop after the end-of-text token."""
        from attn_lib.models.gguf.decoder import check_pick, new_cache

        cache = new_cache(self.model, len(ids) + count)
        logits = self.module.forward(self.model, ids, cache=cache, last_only=True)[-1]
        for i in range(count):
            token = check_pick(pick(logits), self.model.config.vocab_size)
            yield token
            if token == self.model.config.eos_id or i == count - 1:
                return
            logits = self.module.forward(self.model, [token], cache=cache, last_only=True)[-1]


def _byte_level_to_bytes():
    """GPT-2's byte-level alphabet (SmolLM2's pieces): each piece's character -> the byte it stands for."""
    printable = [*range(33, 127), *range(161, 173), *range(174, 256)]
    chars, extra = {}, 0
    for b in range(256):
        if b in printable:
            chars[chr(b)] = b
        else:
            chars[chr(256 + extra)] = b
            extra += 1
    return chars


_BYTE_LEVEL = _byte_level_to_bytes()


def token_label(model, token_id):
    """A token's label: its text; a piece that is part of a character's bytes as those bytes ('<E4 BB>').

    Whitespace and characters no font of the course can draw are written as `drawable` writes them.
    """
    text = model.tokens([token_id])[0]
    if "\ufffd" in text:  # part of a character: show the piece's bytes
        piece = model.tokenizer.id_to_token(int(token_id))
        if piece.startswith("<0x") and piece.endswith(">"):  # SentencePiece's byte fallback (Gemma): <0xE4>
            return "<" + piece[3:-1] + ">"
        if all(ch in _BYTE_LEVEL for ch in piece):  # byte-level BPE (SmolLM2)
            return "<" + " ".join(f"{_BYTE_LEVEL[ch]:02X}" for ch in piece) + ">"
    return drawable(text)


_charmaps = {}


def _drawable_codepoints():
    """The code points the course's fonts can draw: matplotlib's default Latin font and the CJK font."""
    if not _charmaps:
        for family in ("DejaVu Sans", find_cjk_font()):
            path = font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=True)
            _charmaps[path] = set(FT2Font(path).get_charmap())
    return set().union(*_charmaps.values())


def drawable(text):
    """`text` as a heatmap can label it: control characters escaped ('\\n'), a token of spaces only as '␣' per space,
    a character no font of the course has (an emoji, say) written as U+XXXX instead of a box, an empty text as '∅'."""
    known = _drawable_codepoints()
    if text and text.strip(" ") == "" and ord("␣") in known:  # a token of spaces only: one ␣ per space
        return "␣" * len(text)
    out = []
    for ch in text:
        if ch in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[ch])
        elif ord(ch) in known:
            out.append(ch)
        else:
            out.append(f"U+{ord(ch):04X}")
    return "".join(out) or "∅"
