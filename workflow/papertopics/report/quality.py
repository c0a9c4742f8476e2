"""Topic quality (results/metrics.json) and the coarse topic groups (``templates/sections/topic_groups.html``)."""

from __future__ import annotations

import math

from markupsafe import Markup

from papertopics.report.render import render


def _figure(value, digits: int = 3) -> str:
    return (
        "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"
    )


def quality_figures(metrics: dict) -> dict[str, str]:
    """The overview's quality lines: coherence, diversity, outliers, agreement with labels."""
    figures = {
        f"Coherence (mean NPMI of the top {metrics['top_n_words']} words, −1…1)": _figure(metrics["npmi"]),
        "Topic diversity (unique share of the top words, 0…1)": _figure(metrics["diversity"]),
        "Outlier share (before assignment to the nearest topic)": f"{metrics['outlier_share']:.1%}",
    }
    agreement = metrics.get("labels")
    if agreement:
        figures[
            f"Agreement with the papers' labels ({agreement['labelled_papers']} papers, {agreement['labels']} labels)"
        ] = (
            f"NMI {_figure(agreement['nmi'])}, ARI {_figure(agreement['ari'])}, "
            f"homogeneity {_figure(agreement['homogeneity'])}"
        )
    consensus = metrics.get("consensus")
    if consensus:
        figures[f"Seed stability ({consensus['runs']} seeded UMAP runs; topics are their consensus)"] = (
            f"single runs agree ARI {_figure(consensus['mean_pairwise_ari_of_runs'])}, "
            f"consensus to each run ARI {_figure(consensus['mean_ari_consensus_to_runs'])}"
        )
    coarse = metrics.get("coarse")
    if coarse and coarse.get("labels"):
        figures[f"Agreement of the {coarse['groups']} topic groups with the labels"] = (
            f"NMI {_figure(coarse['labels']['nmi'])}, ARI {_figure(coarse['labels']['ari'])}"
        )
    return figures


def coherence_by_topic(metrics: dict | None) -> dict[int, float | None]:
    """Each topic's NPMI coherence from the evaluate stage's metrics (empty without them)."""
    return {row["topic"]: row["npmi"] for row in metrics["per_topic"]} if metrics else {}


def topic_groups_section(topic_details: list[dict], groups: list[dict]) -> Markup:
    """The coarse layer: each group with its topics, largest group first."""
    if not groups:
        return Markup()
    label_of = {t["topic"]: t["label"] for t in topic_details}
    shown = [
        {
            "label": group["label"],
            "size": group["size"],
            "topics": [(topic, label_of.get(topic, "")) for topic in group["topics"]],
        }
        for group in groups
    ]
    return render("sections/topic_groups.html", groups=shown)
