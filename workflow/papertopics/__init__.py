"""papertopics: stage logic for the abstract-dump → topic-report pipeline.

Each module holds one stage's logic as plain functions; the Snakemake scripts in
``workflow/scripts`` are thin adapters around them.
"""

__version__ = "0.1.0"
