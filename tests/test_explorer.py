"""The explorer widget of notebooks 10, 14 and 15: set each control's value in Python, check what it computed.

Every expected number is recomputed here from the models' own functions (forward with keep_weights, MiniLM's run,
attn_lib.sampling, the models' generate), so the widget cannot agree with itself by accident.
"""

import base64
import io

import numpy as np
import pytest
from PIL import Image

from attn_lib.i18n import set_language
from attn_lib.sampling import sampling_distribution
from attn_lib.widgets import explorer as ex
from attn_lib.widgets import explorer_view as view
from attn_lib.widgets import explorer_widget


@pytest.fixture(autouse=True)
def english():
    set_language("en")
    yield
    set_language("en")


@pytest.fixture(scope="module")
def gemma_widget(gemma3):
    return explorer_widget(gemma3, "今天天气")


def counting_runs(widget, monkeypatch):
    """-> a list that grows by one each time the widget runs the model."""
    calls = []
    original = widget.view.analyse

    def analyse(text, ids):
        calls.append(text)
        return original(text, ids)

    monkeypatch.setattr(widget.view, "analyse", analyse)
    return calls


def png_size(data):
    return Image.open(io.BytesIO(data)).size


# --- Gemma 3 (notebook 15) -----------------------------------------------------------------------


def test_the_article_question_in_gemma_its_tokens_weights_and_next_token(gemma3, gemma_widget):
    from attn_lib.models.gemma3 import model as gm

    w = gemma_widget
    w.text.value = "今天天气"
    ids = gemma3.encode("今天天气")
    assert w.result["ids"] == ids
    assert w.result["labels"] == ["<bos>", "今天", "天气"]
    logits, weights = gm.forward(gemma3, ids, last_only=True, keep_weights=True)
    np.testing.assert_array_equal(w.result["weights"], np.stack(weights))  # [18, 4, 3, 3]
    assert w.result["weights"].shape == (18, 4, 3, 3)
    assert np.allclose(w.result["weights"].sum(-1), 1, atol=1e-5)
    assert not np.triu(w.result["weights"], 1).any(), "a causal model's token saw a later one"
    np.testing.assert_allclose(w.result["probs"], sampling_distribution(logits[-1].astype(np.float64)))
    assert 'data-tokens="3"' in w.tokens.value and "今天" in w.tokens.value
    assert w.message.value == "" and png_size(w.image.value)[0] > 300 and w.bars.value
    top = np.argsort(-w.result["probs"])[0]
    assert gemma3.tokens([int(top)]) == ["晴"]  # the checked fact: 晴 first after 今天天气


def test_typing_a_new_text_runs_the_model_once_and_relabels_the_heatmap(gemma_widget, monkeypatch):
    w = gemma_widget
    runs = counting_runs(w, monkeypatch)
    before = w.image.value
    w.text.value = "猫吃鱼"
    assert runs == ["猫吃鱼"]
    assert w.result["labels"] == ["<bos>", "猫", "吃", "鱼"]
    assert w.image.value != before and png_size(w.image.value)[0] > 300
    assert 'data-tokens="4"' in w.tokens.value and "鱼" in w.tokens.value
    assert w.message.value == ""


def test_moving_layer_head_toggle_and_sampling_only_redraws(gemma3, gemma_widget, monkeypatch):
    w = gemma_widget
    w.text.value = "猫吃鱼"
    runs = counting_runs(w, monkeypatch)
    pictures = {w.image.value}
    w.layer.value, w.head.value = 3, 4  # notebook 15's 猫吃鱼 head (counted from 1): 吃 looks at 猫 (0.80)
    pictures.add(w.image.value)
    assert "Layer 3, head 4" in w.info.value and "吃 → 猫 (0.80)" in w.info.value
    w.all_heads.value = True
    pictures.add(w.image.value)
    assert "all 4 heads" in w.info.value
    w.all_heads.value = False
    w.temperature.value, w.top_k.value = 0.5, 5
    assert int((w.result["drawn"] > 0).sum()) == 5
    np.testing.assert_allclose(w.result["drawn"], sampling_distribution(w.result["logits"], 0.5, 5, None))
    w.temperature.value = 0.0  # greedy: everything on the largest logit
    assert w.result["drawn"].max() == 1 and w.result["drawn"].argmax() == w.result["logits"].argmax()
    w.temperature.value, w.top_k.value, w.top_p.value = 1.0, 0, 0.5
    np.testing.assert_allclose(w.result["drawn"], sampling_distribution(w.result["logits"], 1.0, None, 0.5))
    assert runs == [], "a slider ran the model again"
    assert len(pictures) == 3 and w.message.value == ""
    w.top_p.value = 1.0


def test_write_continues_the_text_with_the_cache_as_generate_does(gemma3, gemma_widget):
    from attn_lib.models.gemma3 import model as gm

    w = gemma_widget
    w.text.value = "今天天气"
    w.temperature.value = 0.0  # greedy: the widget's tokens must be generate's
    w.count.value = 8
    new = w.write()
    w.temperature.value = 1.0
    assert new == gm.generate(gemma3, gemma3.encode("今天天气"), 8, stop_ids=())[: len(new)]
    assert len(new) == 8 or new[-1] == gemma3.config.eos_id
    assert 'data-written="8"' in w.written.value
    prompt, _, written = w.written.value.partition("今天天气</span>")  # the prompt kept apart from what was written
    assert written and gemma3.decode(new)[:2] in written


def test_a_sampled_writing_is_the_seeded_sampler_s(gemma3, gemma_widget):
    from attn_lib.models.gemma3 import model as gm
    from attn_lib.sampling import sampler

    w = gemma_widget
    w.text.value = "猫吃鱼"
    w.temperature.value, w.top_k.value = 0.7, 20
    new = w.write(5)
    expected = gm.generate(gemma3, gemma3.encode("猫吃鱼"), 5, sampler(0, 0.7, 20, None), stop_ids=())
    w.temperature.value, w.top_k.value = 1.0, 0
    assert new == expected[: len(new)]


def test_a_text_over_64_tokens_is_refused_with_a_message_not_cut(gemma_widget, monkeypatch):
    w = gemma_widget
    w.text.value = "猫吃鱼"
    runs = counting_runs(w, monkeypatch)
    long = "我昨天在北京吃了烤鸭，今天在上海吃了小笼包。" * 8
    w.text.value = long
    assert runs == [] and w.result["text"] == "猫吃鱼"
    n = len(w.view.tokenize(long)[0])
    assert n > ex.MAX_TOKENS and f"{n} tokens long" in w.message.value and "at most 64" in w.message.value
    w.text.value = "   "
    assert "at least one character" in w.message.value and runs == []


def test_the_still_picture_holds_the_heatmap_and_the_bars_with_a_caption(gemma_widget):
    w = gemma_widget
    bundle = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    still = Image.open(io.BytesIO(base64.b64decode(bundle["image/png"])))
    heat, bars = png_size(w.image.value), png_size(w.bars.value)
    assert still.height > heat[1] + bars[1] and still.width == max(heat[0], bars[0])


def test_an_error_becomes_one_line_in_the_widget(gemma_widget, monkeypatch):
    w = gemma_widget

    def broken(text, ids):
        raise RuntimeError("the model broke")

    monkeypatch.setattr(w.view, "analyse", broken)
    w.text.value = "今天天气很好"
    assert "Could not redraw: RuntimeError: the model broke" in w.message.value
    monkeypatch.undo()
    w.text.value = "今天天气"
    assert w.message.value == ""


def test_the_chinese_edition_draws_its_words(gemma3):
    w = explorer_widget(gemma3, "猫吃鱼", lang="zh")
    assert "读到 4 个词元" in w.tokens.value and "第 1 层第 1 个头" in w.info.value
    assert w.write_button.description == "生成"


# --- SmolLM2 (notebook 14) and MiniLM (notebook 10) ------------------------------------------------


def test_smollm_shows_byte_pieces_as_bytes_and_runs_causally(smollm):
    from attn_lib.models.smollm2 import model as lm

    w = explorer_widget(smollm, "The cat ate the fish. 猫")
    ids = smollm.encode("The cat ate the fish. 猫")
    logits, weights = lm.forward(smollm, ids, last_only=True, keep_weights=True)
    np.testing.assert_array_equal(w.result["weights"], np.stack(weights))
    labels = w.result["labels"]
    assert labels[:2] == ["The", " cat"]
    pieces = [label for label in labels if label.startswith("<")]  # 猫 is three bytes, cut into byte pieces
    assert pieces and all(len(bytes.fromhex(p[1:-1].replace(" ", ""))) >= 1 for p in pieces)
    assert b"".join(bytes.fromhex(p[1:-1].replace(" ", "")) for p in pieces).endswith("猫".encode())
    assert w.view.causal and w.bars.value


def test_minilm_shows_its_word_pieces_and_unk_and_has_no_next_token(model):
    w = explorer_widget(model, "The cat ate the fish 🙂")
    out = model.run("The cat ate the fish 🙂")
    assert w.result["labels"] == out.tokens and "[UNK]" in out.tokens
    assert out.tokens[0] == "[CLS]" and out.tokens[-1] == "[SEP]"
    np.testing.assert_array_equal(w.result["weights"], out.attentions)
    assert w.result["logits"] is None and not w.view.causal
    assert np.triu(w.result["weights"], 1).any(), "an encoder's token sees the tokens after it"
    assert "encoder" in w.info.value


# --- the labels ------------------------------------------------------------------------------------


def test_labels_of_characters_no_font_can_draw_are_code_points():
    assert view.drawable("猫") == "猫" and view.drawable("cat") == "cat"
    assert view.drawable("🙂") == "U+1F642"
    assert view.drawable("\n") == "\\n" and view.drawable("") == "∅"


def test_gemma_byte_fallback_pieces_show_as_bytes(gemma3):
    ids = gemma3.encode("𓀀")  # an Egyptian hieroglyph: not in the vocabulary, spelt as its four bytes
    labels = [view.token_label(gemma3, i) for i in ids[1:]]
    assert labels == ["<F0>", "<93>", "<80>", "<80>"]
