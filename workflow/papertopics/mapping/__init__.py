"""The map: the neighbour graph, the UMAP projections and their consensus, the clusters, placing new papers, similar papers."""
