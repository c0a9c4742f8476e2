"""The largest moves where no change is significant: "No topic's share changed beyond what chance
explains" is true of two years and 30 topics where one topic doubled its share, and a chair still
needs to see that move, with its interval, labelled as within chance, to judge it. Read from the
changes stage's record (``changes.json``): the trends over every period where there are three or
more, else the newest period against the one before; the brief and What changed both say them.
"""

from __future__ import annotations

from dataclasses import dataclass

from papertopics.report.trends_subsection import move_text
from papertopics.stats import SIGNIFICANT

SHOWN = 3


@dataclass(frozen=True)
class LargestMove:
    """One topic's move: its first and last clustered share, the change in points with its
    interval, and its q-value among ``topics`` tested.
    """

    topic: int
    label: str
    first: float
    last: float
    change_pp: float
    low_pp: float
    high_pp: float
    q_value: float
    topics: int

    @property
    def text(self) -> str:
        """The move as a chair reads it: "2.9% → 5.8% of papers, +2.9 points (+0.6 to +4.9)"."""
        return move_text(self.first, self.last, self.change_pp, self.low_pp, self.high_pp)

    @property
    def evidence(self) -> str:
        """The test's figures, said as not beyond chance."""
        return (
            f"q = {self.q_value:.2g} (Benjamini–Hochberg across {self.topics} topics): not beyond what "
            "chance explains with this many papers"
        )


def _trend_moves(trends: dict) -> list[LargestMove]:
    rows = [r for r in trends["topics"] if r.get("move_pp") is not None and r["q_value"] is not None]
    return [
        LargestMove(
            int(r["topic"]),
            r["label"],
            r["clustered_share"][0],
            r["clustered_share"][-1],
            r["move_pp"],
            r["move_low_pp"],
            r["move_high_pp"],
            r["q_value"],
            len(rows),
        )
        for r in rows
    ]


def _step_moves(comparison: list[dict]) -> list[LargestMove]:
    rows = [r for r in comparison if r["q_value"] is not None]
    return [
        LargestMove(
            int(r["topic"]),
            r["label"],
            r["baseline_clustered_share"],
            r["target_clustered_share"],
            r["change_pp"],
            r["change_low_pp"],
            r["change_high_pp"],
            r["q_value"],
            len(rows),
        )
        for r in rows
    ]


def largest_moves(changes: dict | None, shown: int = SHOWN) -> list[LargestMove]:
    """The ``shown`` largest moves, largest first, where no topic's change (or trend) is
    significant; none where one is, or where nothing was tested.
    """
    if not changes or len(changes.get("periods", [])) < 2 or changes.get("ordered") is False:
        return []
    trends = changes["trends"]
    if trends["available"]:
        return _largest(trends["topics"], _trend_moves(trends), shown)
    return largest_step_moves(changes, shown)


def largest_step_moves(changes: dict, shown: int = SHOWN) -> list[LargestMove]:
    """The ``shown`` largest moves from the newest period to the one before (``changes.json``'s
    ``comparison``), where none is significant; none where one is, or where nothing was tested.
    """
    if not (changes.get("comparable", True) and changes["tested"]):
        return []
    return _largest(changes["comparison"], _step_moves(changes["comparison"]), shown)


def _largest(rows: list[dict], moves: list[LargestMove], shown: int) -> list[LargestMove]:
    if any(row["grade"] == SIGNIFICANT for row in rows):
        return []
    return sorted(moves, key=lambda move: (-abs(move.change_pp), move.topic))[:shown]


def within_chance_note(moves: list[LargestMove]) -> str:
    """The plain statement that goes with the moves."""
    return (
        f"The largest moves, all within what chance explains with this many papers (q ≥ "
        f"{min(move.q_value for move in moves):.2g} across {moves[0].topics} topics):"
    )
