"""Embedding the papers: the encoder backends, the model's location, the embedding cache and shards."""
