"""Each outcome of the decisions is said as a reader expects it ("80% were rejected", "9% went to
the workshop track"), never as the export's raw word after "were": over every outcome of the
shared OpenReview and ACL metadata and the usual OpenReview decisions, in the finding sentences,
the changes across the years and the Reception section that shows them.
"""

from __future__ import annotations

import gzip
import json
import re

import pytest
from conftest import require_corpus
from papertopics.reception.outcome_words import outcome_phrase
from papertopics.reception.stages import change_sentence, finding_sentence
from papertopics.report.reception_section import reception_section

USUAL = (
    "Accept (Oral)",
    "Accept (Poster)",
    "Reject",
    "Withdraw",
    "Desk Reject",
    "Workshop",
    "Findings",
    "Invite to Workshop Track",
)


def _shared_outcomes() -> set[str]:
    outcomes = set()
    for name in ("openreview_metadata.jsonl.gz", "acl_2021_2022_metadata.jsonl.gz"):
        with gzip.open(require_corpus(name), "rt", encoding="utf-8") as lines:
            outcomes |= {json.loads(line)["decision"] for line in lines} - {None, ""}
    return outcomes


def _row(outcome: str) -> dict:
    return {
        "topic": 3,
        "label": "adversarial examples, attacks",
        "measure": "outcome",
        "outcome": outcome,
        "papers": 40,
        "value": 0.8,
        "low": 0.65,
        "high": 0.9,
        "rest": 0.36,
        "median": None,
        "median_low": None,
        "median_high": None,
        "spread": None,
        "rest_spread": None,
        "p_value": 0.0001,
        "q_value": 0.001,
        "evidence": "significant",
        "direction": "higher",
    }


def _record(row: dict) -> dict:
    """The reception record of 400 papers with decisions and ``row`` its one topic's."""
    return {
        "available": True,
        "papers": 400,
        "given": {"decision": 400, "ratings": 0, "citations": 0},
        "accepted": ["accept"],
        "notes": [],
        "in_report": True,
        "topics": [row],
    }


def _raw_after_were(outcome: str, text: str) -> bool:
    return re.search(rf"\bwere\s+[“\"]?{re.escape(outcome)}\b", text, re.IGNORECASE) is not None


def test_no_sentence_says_an_outcomes_raw_word_after_were():
    outcomes = _shared_outcomes() | set(USUAL)
    assert {"Oral", "Poster", "Long", "Findings", "Short"} <= outcomes
    for outcome in sorted(outcomes):
        row = _row(outcome)
        years = [{**row, "year": year, "value": share} for year, share in (("2024", 0.1), ("2025", 0.5))]
        record = {**_record(row), "changes": [change_sentence(years)]}
        texts = [finding_sentence(row), change_sentence(years), str(reception_section(record))]
        assert not any(_raw_after_were(outcome, text) for text in texts), (outcome, texts)
        assert finding_sentence(row).startswith(
            "Of the papers on adversarial examples, attacks, 80% (65%–90%) "
        )


def test_outcomes_read_as_verbs_and_an_unknown_word_is_quoted():
    said = {outcome: outcome_phrase(outcome) for outcome in (*USUAL, "Rejected", "desk_rejected", "Short")}
    assert said == {
        "Accept (Oral)": "were accepted as orals",
        "Accept (Poster)": "were accepted as posters",
        "Reject": "were rejected",
        "Withdraw": "were withdrawn",
        "Desk Reject": "were desk-rejected",
        "Workshop": "went to the workshop track",
        "Findings": "went to Findings",
        "Invite to Workshop Track": "were invited to the workshop track",
        "Rejected": "were rejected",
        "desk_rejected": "were desk-rejected",
        "Short": "were accepted as short papers",
    }
    assert outcome_phrase(" Camera-ready pending ") == "had the decision “Camera-ready pending”"
    sentence = finding_sentence({**_row("Camera-ready pending"), "value": 0.03, "low": 0.01, "high": 0.08})
    assert sentence == (
        "Of the papers on adversarial examples, attacks, 3% (1%–8%) had the decision “Camera-ready pending”, "
        "against 36% elsewhere."
    )


@pytest.mark.parametrize(("outcome", "said"), [("Withdraw", "were withdrawn"), ("<b>Odd</b>", "“&lt;b&gt;")])
def test_the_section_says_the_outcome_in_words_and_escapes_an_unknown_one(outcome, said):
    page = str(reception_section(_record(_row(outcome))))
    assert said in page and "<b>Odd" not in page
