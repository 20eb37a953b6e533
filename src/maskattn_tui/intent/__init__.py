"""What a mask was meant to be: per-layer intents read from a model's config
(or recorded by capture) and the visibility table each one gives."""
