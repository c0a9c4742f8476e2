"""The fields that say how a paper was received, under the names exports give them.

A paper record keeps each under one name, whatever its export called it: ``decision`` (an
OpenReview ``decision`` or ``status``: "Accept (Oral)", "Reject", "Findings"), ``ratings`` (the
reviewers' ratings, "5; 7; 7", or one mean rating) and ``citations`` (a count: Web of Science
``TC``, Scopus ``Cited by``, OpenAlex ``cited_by_count``, a table's ``citations`` column). The
values are kept as text here; :mod:`papertopics.reception.values` reads them as numbers and says
which could not be read.
"""

from __future__ import annotations

# Names compared as papertopics.ingest.parse.field_key compares them (case, spaces, hyphens and
# underscores ignored); the first a record has wins, so a list of ratings beats their mean.
RECEPTION_FIELDS = {
    "decision": ("decision", "status", "venue_status", "recommendation"),
    "ratings": ("ratings", "rating", "review_ratings", "reviewer_ratings", "scores", "score"),
    "citations": (
        "citations",
        "cited_by_count",
        "cited by",
        "times_cited",
        "times cited",
        "citation_count",
        "citationcount",
        "gs_citation",
        "n_citation",
    ),
}
