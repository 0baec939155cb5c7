"""Notebook 13's sampling widget: temperature, top-k and top-p sliders over the trained model's next token.

`sampling_widget()` loads the stored tiny language model (attn_lib.models.lm_experiment.load_tiny_lm)
and, for a prompt (default 今天天气), draws the distribution the next token is drawn from under the
sliders' settings: filled bars, with the model's own distribution (T = 1, nothing filtered) as a
dashed outline, for its most likely tokens and the others together. Under it, the sentence that a
sampler with a fixed seed writes with these settings, to the end marker 。 (attn_lib.models.generation.write,
with the KV cache). Temperature 0 means greedy: the most likely token every time. <pad> and <bos>, which
never come next, are left out (attn_lib.models.generation.never_next).

Built on the shell of `attn_lib.widgets` (`controls`, `state`, `update()`, errors as one line, a captioned
still picture for readers without a kernel); the frame is drawn once per prompt, a move repaints the bars
and the two lines of text only.
"""

import html

import ipywidgets
import numpy as np

from attn_lib._checks import check_seed
from attn_lib.i18n import t
from attn_lib.models.generation import never_next, next_token_logits, without, write
from attn_lib.models.lm_corpus import LMCorpus, make_lm_corpus
from attn_lib.models.lm_experiment import load_tiny_lm
from attn_lib.pictures.generation_plots import NextTokenBars, setting_label
from attn_lib.sampling import greedy, sampler, sampling_distribution
from attn_lib.widgets.shell import AttentionWidget, widget_language

TEMPERATURES = (0.0, 0.2, 0.5, 0.7, 1.0, 1.3, 1.6, 2.0, 3.0)
TOP_K = (0, 1, 2, 3, 5, 10, 20, 50)  # 0: off (every token)
TOP_P = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0)
PROMPTS = ("今天 天气", "今天", "我们", "妈妈", "明天 上海", "")
#: How many of the most likely tokens get a bar of their own (the others share one).
BARS = 8


def selection_slider(options, value, label):
    return ipywidgets.SelectionSlider(
        options=list(options), value=value, continuous_update=False, description=label,
        style={"description_width": "initial"},
    )  # fmt: skip


class SamplingWidget(AttentionWidget):
    """Temperature, top-k and top-p sliders (and a prompt): the distribution drawn from, and what a seed writes."""

    kind = "sampling"

    def __init__(self, params, config, corpus, prompts=PROMPTS, seed=0, lang=None):
        if not isinstance(corpus, LMCorpus):
            raise TypeError("corpus must be the LMCorpus the model was trained on (attn_lib.models.lm_corpus)")
        self.params, self.config, self.corpus, self.seed = params, config, corpus, check_seed(seed)
        for prompt in prompts:
            corpus.encode(prompt)  # every prompt's words must be in the vocabulary (a clear error otherwise)
        self._logits = {}  # prompt -> logits [V] of the next token
        now = widget_language(lang)
        labels = [(t("gen.widget_greedy", now) if v == 0 else f"{v:g}", v) for v in TEMPERATURES]
        top_k = [(t("gen.widget_off", now) if k == 0 else str(k), k) for k in TOP_K]
        top_p = [(t("gen.widget_off", now) if p == 1 else f"{p:g}", p) for p in TOP_P]
        shown = [("".join(p.split()) or t("gen.widget_start", now), p) for p in prompts]
        controls = {
            "prompt": ipywidgets.Dropdown(options=shown, value=prompts[0], description=t("gen.widget_prompt", now)),
            "temperature": selection_slider(labels, 1.0, t("gen.widget_temperature", now)),
            "top_k": selection_slider(top_k, 0, "top-k"),
            "top_p": selection_slider(top_p, 1.0, "top-p"),
        }
        super().__init__(controls, lang)

    def logits(self, prompt):
        """-> logits [V] of the next token after <bos> + `prompt`, <pad> and <bos> left out (once per prompt)."""
        if prompt not in self._logits:
            logits = next_token_logits(self.params, self.config, self.corpus, prompt)
            self._logits[prompt] = without(logits, never_next(self.corpus))
        return self._logits[prompt]

    def bars(self, prompt):
        """-> (the ids with a bar of their own [BARS], the other ids that can be drawn): the most likely at T = 1."""
        logits = self.logits(prompt)
        order = np.argsort(-logits, kind="stable")
        return order[:BARS], order[BARS:][np.isfinite(logits[order[BARS:]])]

    def compute(self, lang):
        prompt = self.controls["prompt"].value
        temperature, top_k, top_p = (self.controls[name].value for name in ("temperature", "top_k", "top_p"))
        top_k, top_p = top_k or None, None if top_p == 1 else top_p  # the sliders' "off"
        logits = self.logits(prompt)
        if temperature == 0:  # greedy: all the probability on the largest logit
            probs = np.eye(len(logits))[greedy(logits)]
            pick, setting = greedy, t("gen.widget_greedy_setting", lang)
        else:
            probs = sampling_distribution(logits, temperature, top_k, top_p)  # [V]
            pick = sampler(self.seed, temperature, top_k, top_p)
            setting = setting_label(temperature, top_k, top_p, lang)
        words = write(self.params, self.config, self.corpus, prompt, pick)  # to the end marker 。, with the KV cache
        own, rest = self.bars(prompt)
        heights = np.append(probs[own], probs[rest].sum())  # [BARS + 1]: the 8 most likely, then the others
        shown = "".join(prompt.split())
        state = {
            "prompt": prompt,
            "temperature": temperature,
            "probs": probs,
            "kept": int((probs > 0).sum()),
            "written": words,
            "vocab_size": len(logits),
            "top_probability": float(probs.max()),
        }
        title = t("gen.widget_title", lang, prompt=shown or t("gen.widget_start", lang), setting=setting)
        line = t("gen.widget_written", lang, seed=self.seed, prompt=shown, text="".join(words))
        return state, [heights], [title, line]

    def figure_key(self, state, lang):
        return lang, self.controls["prompt"].value

    def build_figure(self, state, lang):
        prompt = self.controls["prompt"].value
        own, rest = self.bars(prompt)
        outline = sampling_distribution(self.logits(prompt))  # [V]: the model's own distribution, T = 1
        labels = [*(self.corpus.vocab[i] for i in own), None]
        return NextTokenBars(labels, np.append(outline[own], outline[rest].sum()), lang, n_rest=len(rest))

    def describe(self, state, lang):
        text = t("gen.widget_info", lang, kept=state["kept"], V=state["vocab_size"], top=state["top_probability"])
        return f"<p>{html.escape(text)}</p>"


def sampling_widget(params=None, config=None, corpus=None, prompts=PROMPTS, seed=0, lang=None):
    """Sliders "temperature" (0 = greedy), "top-k" (off, 1 ... 50), "top-p" (0.1 ... 1 = off) and a prompt.

    Default model: the stored tiny language model of notebook 13 and its corpus. The picture: the
    distribution the next token is drawn from (filled), the model's own at T = 1 (dashed), for the 8
    most likely tokens and the others together, and what sampler(seed, ...) writes to the end marker.

    controls: "prompt" (Dropdown), "temperature", "top_k" (0 = off), "top_p" (1 = off) (SelectionSliders).
    state: prompt, temperature, top_k, top_p, probs ([V], the distribution drawn from), kept (how many
    tokens can be drawn), written (the words written, 。 included), vocab_size, top_probability,
    n_heatmaps, error.
    """
    if corpus is None:
        corpus = make_lm_corpus()
    if params is None or config is None:
        params, config = load_tiny_lm(corpus)
    return SamplingWidget(params, config, corpus, prompts=prompts, seed=seed, lang=lang)
