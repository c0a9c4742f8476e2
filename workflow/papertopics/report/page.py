"""Put the report's sections together into one self-contained HTML page."""

from __future__ import annotations

from importlib import resources

import plotly.graph_objects as go
from markupsafe import Markup
from plotly.offline import get_plotlyjs

from papertopics.figures import too_few_topics
from papertopics.figures.keywords import keyword_barchart
from papertopics.report import structure
from papertopics.report.bridges_subsection import bridges_subsection
from papertopics.report.brief import brief_section
from papertopics.report.bundle import bundle
from papertopics.report.document_map import map_data, map_periods, map_section, similar_block, similar_rows
from papertopics.report.dump_share import dump_share_chart
from papertopics.report.html_blocks import figure_block, gzip_block, notice, text_block
from papertopics.report.inputs import ReportInputs
from papertopics.report.lineage_flow import lineage_section
from papertopics.report.overview import method_section
from papertopics.report.people_section import experts_blocks, map_filter, people_section, topic_people_line
from papertopics.report.quality import topic_groups_section
from papertopics.report.reception_map import map_colourings
from papertopics.report.reception_record import shown_rows
from papertopics.report.reception_section import card_blocks, confidential, reception_section
from papertopics.report.render import fragment, render
from papertopics.report.stability_marks import topic_stability
from papertopics.report.strategic_subsection import strategic_subsection
from papertopics.report.title import compared_years, report_title
from papertopics.report.topic_cards import topic_cards_section
from papertopics.report.topic_table import papers_per_dump, topic_table_section
from papertopics.report.venues_section import venues_section
from papertopics.report.what_changed_section import changes_section

# The page's sections as the header's links name them.
_NAV = (
    ("topics", "Topics"),
    ("map", "Map"),
    ("changes", "What changed"),
    ("topic-details", "Topics in detail"),
    ("structure", "Structure"),
    ("lineage", "Since the last run"),
    ("downloads", "Downloads"),
    ("method", "Method and settings"),
)


def _nav(inputs: ReportInputs) -> tuple:
    """The header's links, with Venues after What changed where venues were compared, and
    Reception after them where the papers carry decisions, ratings or citations; People after
    Topics in detail where the people stage found authors.
    """
    added = (("venues", "Venues"),) if (inputs.venues or {}).get("available") else ()
    added += (("reception", "Reception"),) if shown_rows(inputs.reception) else ()
    at = [anchor for anchor, _ in _NAV].index("changes") + 1
    nav = (*_NAV[:at], *added, *_NAV[at:])
    if inputs.people is not None:
        at = [anchor for anchor, _ in nav].index("topic-details") + 1
        nav = (*nav[:at], ("people", "People"), *nav[at:])
    return nav


def _asset(name: str) -> str:
    return resources.files("papertopics.report").joinpath("assets", name).read_text(encoding="utf-8")


def _model_figure(figure_id: str, figures: dict[str, dict]) -> Markup:
    """A figure the topics stage drew from the model (see ``model_figures``), or why there is none."""
    entry = figures[figure_id]
    return (
        notice(entry["notice"]) if "notice" in entry else figure_block(figure_id, go.Figure(entry["figure"]))
    )


def _download_id(filename: str) -> str:
    return filename.replace(".", "-")


def _keywords_section(inputs: ReportInputs) -> Markup:
    """Each topic's keywords as bars, or why there are none."""
    if len(inputs.real_topics):
        chart = figure_block("keyword-chart", keyword_barchart(inputs.real_topics, inputs.topic_colours))
    else:
        chart = notice(
            "No topics were found: every paper is an outlier. Try a smaller hdbscan.min_cluster_size."
        )
    return render("sections/keywords.html", chart=chart)


def _structure_section(inputs: ReportInputs) -> Markup:
    """The intertopic map, the topic hierarchy and similarity, and each topic's share per dump."""
    n_topics = len(inputs.real_topics)
    intertopic_problem = too_few_topics("intertopic", n_topics)
    intertopic = (
        notice(intertopic_problem)
        if intertopic_problem
        else figure_block(
            "intertopic-map",
            structure.intertopic_map(inputs.papers, inputs.topic_details, inputs.topic_colours),
        )
    )
    # Real topics, then the outlier group where one is left.
    labels_with_outliers = {t["topic"]: t["label"] for t in inputs.topic_details}
    per_dump = papers_per_dump(inputs)
    dump_share = (
        figure_block(
            "dump-share",
            dump_share_chart(per_dump, labels_with_outliers, inputs.dump_labels, inputs.topic_colours),
        )
        if n_topics
        else notice("Every paper is an outlier, so there are no topics to share out.")
    )
    parts = (
        ("Intertopic map", intertopic),
        ("Topic hierarchy", _model_figure("topic-hierarchy", inputs.figures)),
        ("Topic similarity", _model_figure("topic-heatmap", inputs.figures)),
        ("Topic share per dump", dump_share),
    )
    if inputs.bridges is not None:
        bridges = bridges_subsection(inputs.bridges, inputs.topic_settings.get("further_topic_min_weight"))
        parts += (("Bridges: topics that share papers", bridges),)
    if inputs.strategic is not None and len(inputs.strategic):
        parts += (("Strategic diagram: central and dense themes", strategic_subsection(inputs)),)
    return render("sections/structure.html", parts=parts)


def _map_section(inputs: ReportInputs, shown_papers, hover_chars: int) -> tuple[Markup, list]:
    """The map of papers, coloured by topic, by the periods stage's periods or by reception and
    filtered by period, topic and people, and the similar papers' table it links to.
    """
    similar, similar_count = similar_rows(inputs.papers["id"].tolist(), inputs.similar)
    periods = map_periods(inputs.periods, len(inputs.papers), inputs.dump_labels)
    colours = inputs.topic_colours
    groups = inputs.topic_groups or []
    data = map_data(shown_papers, inputs.topic_details, groups, hover_chars, colours, periods, similar_count)
    people_control, data["people"] = map_filter(inputs.people, inputs.papers)
    data["colourings"] = map_colourings(inputs.reception, inputs.papers)
    return map_section(data, inputs.topic_details, colours, periods, people_control), similar


def build_report(inputs: ReportInputs, title: str, hover_chars: int) -> str:
    """The whole report as one offline HTML page (``templates/page.html``), its sections in the
    order of the header's links.
    """
    heading = report_title(title, inputs.corpus_summary, compared_years(inputs.changes))
    shown_papers = inputs.papers.assign(dumps=inputs.paper_dumps())
    colours = inputs.topic_colours
    map_html, similar = _map_section(inputs, shown_papers, hover_chars)
    # The tables behind the report, each a download: the papers and topics, then the comparison's files.
    downloads = {
        "papers.csv": inputs.papers.to_csv(index=False),
        "topics.csv": inputs.topics.to_csv(index=False),
        **({"bridges.csv": inputs.bridges.to_csv(index=False)} if inputs.bridges is not None else {}),
        **({"strategic.csv": inputs.strategic.to_csv(index=False)} if inputs.strategic is not None else {}),
        **inputs.comparison_files,
        **(inputs.people.files if inputs.people is not None else {}),
    }
    cards_html = topic_cards_section(
        inputs.topic_details,
        shown_papers,
        inputs.changes,
        inputs.dump_labels,
        inputs.topic_settings.get("wording_by", "dump"),
        colours,
        people_lines={t["topic"]: topic_people_line(inputs.people, t["topic"]) for t in inputs.real_topics},
        reception=card_blocks(inputs.reception),
        stability=topic_stability(inputs.topics),
    )

    def period_label(name: str) -> str:
        return inputs.dump_labels.get(name, name) if (inputs.changes or {}).get("by") == "dump" else name

    sections = [
        brief_section(inputs, period_label, colours),
        topic_table_section(inputs),
        topic_groups_section(inputs.topic_details, inputs.topic_groups or []),
        map_html,
        changes_section(inputs.changes, inputs.dump_labels, colours),
        venues_section(inputs.venues, inputs.venue_cells),
        reception_section(inputs.reception),
        _keywords_section(inputs),
        cards_html,
        people_section(inputs.people, {t["topic"]: t["label"] for t in inputs.real_topics}),
        _structure_section(inputs),
        lineage_section(inputs.changes["since_previous_run"] if inputs.changes else None, colours),
        render("sections/downloads.html", downloads=[(name, _download_id(name)) for name in downloads]),
        method_section(inputs),
    ]
    tables = [
        *(gzip_block(_download_id(name), text) for name, text in downloads.items()),
        similar_block(similar),
        *experts_blocks(inputs.people),
    ]
    return render(
        "page.html",
        title=heading,
        confidential=confidential(inputs.reception),
        css=fragment(_asset("report.css")),
        plotly_js=fragment(get_plotlyjs()),
        nav=_nav(inputs),
        sections=[section for section in sections if section],
        worker=text_block("search-worker", bundle("worker.js")),
        main_js=fragment(bundle("main.js")),
        tables=tables,
    )
