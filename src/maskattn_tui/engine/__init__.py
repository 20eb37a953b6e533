"""The engine: softmax, matrices, the mask rules (visibility) and attention.
Pure Python: imports neither Textual nor Rich."""
