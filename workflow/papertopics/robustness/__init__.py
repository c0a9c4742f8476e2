"""How often the run's topics and findings come back on resampled papers with other seeds."""
