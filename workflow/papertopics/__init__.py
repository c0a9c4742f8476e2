"""papertopics: stage logic for the abstract-dump → topic-report pipeline.

Subpackages in the pipeline's order, each importing only from itself, the ones before it and the
shared modules beside this file (``errors``, ``settings``, ``storage``, ``text``):
``ingest`` (dumps and exports read, the corpus merged), ``embed``, ``periods`` (each paper's period
and compared venue), ``mapping`` (UMAP, HDBSCAN, placement, similar papers), ``figures``,
``topics`` (BERTopic, labels, topic groups, history), ``changes`` (trends, bursts, themes, venues,
reception, people), ``report`` (the page) and ``runtime`` (start-up, jobs, publishing). Each
stage's entry point is a plain function in its subpackage's ``stages`` module (or ``*_stage``);
the Snakemake scripts in ``workflow/scripts`` are thin adapters around them, and every knob
reaches a stage as its ``papertopics.settings`` dataclass.
"""

__version__ = "0.1.0"
