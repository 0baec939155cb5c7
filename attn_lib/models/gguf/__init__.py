"""What the course's GGUF decoders share, kept once (SmolLM2 in notebook 14):

- reader: a GGUF file's header and its tensors, dequantized to float32;
- vocab: the tokenizers the files describe (SmolLM2's byte-level BPE);
- arithmetic: every product of an activation and a weight (precision, layout, threads), the 8-bit embedding;
- decoder: the loop over the blocks, the seams for a learner's attention, the masks, the KV cache, the losses,
  the generate loop.
"""
