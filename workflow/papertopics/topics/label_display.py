"""How the report shows a topic's label, kept apart from the labeller, whose stop words come from
scikit-learn, so that the report job reads it without importing scikit-learn: the lines a label
wraps into on the map (the group labels are kept to them, ``papertopics.topics.label_groups``) and
where a label came from (``topic_details.json``'s ``label_source``, set by
``papertopics.topics.labeller.label_sources``).
"""

# The map wraps its labels in lines of this many characters; a group label is kept to two of them.
GROUP_LABEL_LINE_CHARS = 24
GROUP_LABEL_LINES = 2

FROM_AUTHOR_KEYWORDS = "author keywords"  # one of the topic's authors' keywords
FROM_PAPERS = "papers"  # the phrases of its papers' titles and abstracts
GIVEN = "given"  # the guide's name or the curation's
KEPT_FROM_FIT = "fit"  # a placed update's fitted topic keeps the label the fit gave it
