"""SmolLM2-135M-Instruct (notebook 14): ``model`` reads its GGUF file and runs it in numpy."""
