"""An outcome of the decisions said as a reader expects it in a sentence: "80% were rejected",
"3% were withdrawn", "9% went to the workshop track", not the export's raw word after "were"
("were Reject"). A small table of the words the venues' exports use, compared without case,
punctuation or spacing; any other word is quoted as the export gives it ("had the decision
“Camera-ready pending”"). docs/reception.md lists the table.
"""

from __future__ import annotations

import re

# The export's word, lower case, its punctuation and spacing made single spaces → what the papers
# were given, said after their share ("80% were rejected").
OUTCOME_PHRASES = {
    "reject": "were rejected",
    "rejected": "were rejected",
    "desk reject": "were desk-rejected",
    "desk rejected": "were desk-rejected",
    "withdraw": "were withdrawn",
    "withdrawn": "were withdrawn",
    "withdrawn submission": "were withdrawn",
    "workshop": "went to the workshop track",
    "invite to workshop track": "were invited to the workshop track",
    "findings": "went to Findings",
    "accept": "were accepted",
    "accepted": "were accepted",
    "accept oral": "were accepted as orals",
    "oral": "were accepted as orals",
    "accept poster": "were accepted as posters",
    "poster": "were accepted as posters",
    "accept spotlight": "were accepted as spotlights",
    "spotlight": "were accepted as spotlights",
    "long": "were accepted as long papers",
    "short": "were accepted as short papers",
}


def _key(outcome: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", outcome.lower()))


def outcome_phrase(outcome: str) -> str:
    """What the papers of ``outcome`` were given, said after their share: "were rejected", or,
    for a word not in :data:`OUTCOME_PHRASES`, "had the decision “…”" with the export's word.
    """
    return OUTCOME_PHRASES.get(_key(outcome), f"had the decision “{outcome.strip()}”")
