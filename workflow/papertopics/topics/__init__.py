"""The topics: BERTopic's fit, the labels, the stable ids across runs, curation, guided topics, evaluation."""
