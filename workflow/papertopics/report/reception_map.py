"""The map coloured by reception: each paper's decision, its reviewers' mean rating, or its
citations against the mean of its year's papers (never raw counts, which favour older papers).

A colouring is what the page's script needs to colour the points and draw the legend: ``names``
of its classes, their ``colours``, and each paper's class (``of_paper``, −1 for a paper without
the value, drawn grey). Ratings fall into fifths of the corpus's papers, so that each colour holds
about as many points; citations into fixed steps of the year's mean. A copy meant to be shared
(``reception.in_report: false``) has no decision or rating columns left in its papers table
(``reception_record.left_out_columns``), so it offers the citations colouring only.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from papertopics.reception.values import read_values
from papertopics.report.colours import OUTLIER_COLOUR, category_colours, scale_colours

# The most frequent decisions get a colour each; the rarer ones share "other".
_MOST_DECISIONS = 7
_RATING_CLASSES = 5
# Citations over the mean of the paper's year: the upper ends of the classes after "uncited".
_CITATION_STEPS = (
    (0.5, "under half its year's mean"),
    (1.0, "half to its year's mean"),
    (2.0, "1–2× its year's mean"),
)
_CITATION_TOP = "over 2× its year's mean"


def _colouring(key: str, label: str, names: list[str], colours: list[str], of_paper: np.ndarray) -> dict:
    return {
        "key": key,
        "label": label,
        "names": names,
        "colours": colours,
        "none_colour": OUTLIER_COLOUR,
        "of_paper": of_paper.astype(int).tolist(),
    }


def _decisions(decisions: np.ndarray) -> dict | None:
    given = decisions[decisions != ""]
    if not len(given):
        return None
    counts = pd.Series(given).value_counts(sort=True)
    names = counts.index[:_MOST_DECISIONS].tolist()
    if len(counts) > _MOST_DECISIONS:
        names.append("other")
    position = {name: i for i, name in enumerate(names)}
    other = position.get("other", -1)
    of_paper = np.array([position.get(d, other) if d else -1 for d in decisions])
    return _colouring("decision", "decision", names, category_colours(len(names)), of_paper)


def _ratings(ratings: np.ndarray) -> dict | None:
    given = ratings[~np.isnan(ratings)]
    if len(np.unique(given)) < 2:
        return None
    edges = np.unique(np.quantile(given, np.linspace(0, 1, _RATING_CLASSES + 1)))
    names = [f"{low:.2f}–{high:.2f}" for low, high in zip(edges[:-1], edges[1:], strict=True)]
    # Each class holds the ratings up to its upper edge; the lowest holds its lower edge too.
    classes = np.clip(np.searchsorted(edges, ratings, side="left") - 1, 0, len(names) - 1)
    of_paper = np.where(np.isnan(ratings), -1, classes)
    return _colouring("rating", "mean rating", names, scale_colours(len(names)), of_paper)


def _citations(scores: np.ndarray) -> dict | None:
    if np.isnan(scores).all():
        return None
    upper = np.array([step for step, _ in _CITATION_STEPS])
    names = ["uncited"] + [name for _, name in _CITATION_STEPS] + [_CITATION_TOP]
    classes = np.where(scores == 0, 0, 1 + np.searchsorted(upper, scores, side="right"))
    of_paper = np.where(np.isnan(scores), -1, classes)
    return _colouring("citations", "citations for their year", names, scale_colours(len(names)), of_paper)


def map_colourings(record: dict | None, papers: pd.DataFrame) -> list[dict]:
    """The colourings the map offers beside topic and period, from the papers table's reception
    columns as ``record`` (the reception stage's) names them; none where the run has no reception.
    """
    # papertopics.reception.table imports heavy libraries at its top: only the jobs that use it load them.
    from papertopics.reception.table import normalised_citations

    if not record or not record.get("available"):
        return []
    fields = record["fields"]
    values = read_values(papers, fields["decision"], fields["ratings"], fields["citations"])
    years = papers["year"].astype(str).str.strip().to_numpy(dtype=object) if "year" in papers else None
    found = {
        "decision": _decisions(values.decision),
        "rating": _ratings(values.rating),
        "citations": None if years is None else _citations(normalised_citations(values.citations, years)),
    }
    return [colouring for colouring in found.values() if colouring is not None]
