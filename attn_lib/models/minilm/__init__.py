"""all-MiniLM-L6-v2 (notebook 10), a 6-layer BERT encoder:

bert        a BERT encoder's forward pass on attn_lib's multi-head attention
pretrained  the model loaded from its safetensors file and run in numpy
head_types  its heads sorted by a computed rule
"""
