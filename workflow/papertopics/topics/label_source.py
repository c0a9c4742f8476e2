"""Where a topic's label came from: ``topic_details.json``'s ``label_source``, set by the labeller
(``papertopics.topics.labeller.label_sources``); kept apart from it, so that the report job reads
them without importing scikit-learn.
"""

FROM_AUTHOR_KEYWORDS = "author keywords"  # one of the topic's authors' keywords
FROM_PAPERS = "papers"  # the phrases of its papers' titles and abstracts
GIVEN = "given"  # the guide's name or the curation's
KEPT_FROM_FIT = "fit"  # a placed update's fitted topic keeps the label the fit gave it
