"""Gemma 3 270M (notebook 15): ``model`` reads its GGUF file and runs it in numpy."""
