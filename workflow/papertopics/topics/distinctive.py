"""When a name is a topic's rather than the corpus's: the rule shared by the phrases of the papers'
text (``papertopics.topics.labels``) and the authors' keywords (``papertopics.topics.author_keywords``).
"""

MIN_LIFT = 2.0


def concentrated(precision: float, share: float) -> bool:
    """Whether a name is not generic: the share of the papers using it that are a unit's
    (``precision``) is at least ``MIN_LIFT`` times the unit's share of the corpus (``share``), or,
    for a unit of over a third of the corpus, halfway from that share to all ("data", "model" are
    generic).
    """
    return precision >= min(MIN_LIFT * share, (1 + share) / 2)
