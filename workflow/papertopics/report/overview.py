"""Method and settings, at the end of the report: the dumps read, counts, topic quality, the
settings actually used, versions and the input hash; and the stages' notes on the input.
"""

from __future__ import annotations

import hashlib
from importlib import metadata

from markupsafe import Markup

from papertopics import __version__
from papertopics.ingest.corpus import identifier_conflict_note
from papertopics.report.inputs import ReportInputs
from papertopics.report.quality import coherence_by_topic, quality_figures
from papertopics.report.render import render
from papertopics.report.topic_table import sortable_table, table_cell

_PACKAGES = (
    "papertopics",
    "bertopic",
    "sentence-transformers",
    "umap-learn",
    "hdbscan",
    "scikit-learn",
    "torch",
)


def package_versions() -> dict[str, str]:
    """The versions of the packages that made the report, for the provenance table."""
    versions = {}
    for package in _PACKAGES:
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            if package == "papertopics":
                versions[package] = __version__
    return versions


def inputs_hash(corpus_summary: dict) -> str:
    """One hash over every dump's name and content hash."""
    digest = hashlib.sha256()
    for dump in sorted(corpus_summary["dumps"], key=lambda d: d["dump"]):
        digest.update(f"{dump['dump']}\0{dump['sha256']}\n".encode())
    return digest.hexdigest()


def _rejected_cell(dump: dict) -> str:
    """The count of rejected records and why, e.g. ``3 (2 empty, 1 too short)``."""
    reasons = dump.get("rejected_by_reason") or {}
    detail = ", ".join(f"{count} {reason.replace('_', ' ')}" for reason, count in reasons.items())
    return f"{dump['rejected']} ({detail})" if detail else str(dump["rejected"])


def _duplicates_cell(dump: dict) -> str:
    """A dump's duplicates: the same abstract as a record before (parsing), and the records one
    paper with another of the dump by an identifier (the corpus), e.g. ``3 + 1 by identifier``.
    """
    merged = dump.get("merged_within_dump", 0)
    return f"{dump['duplicates']} + {merged} by identifier" if merged else str(dump["duplicates"])


def _shared_cell(dump: dict) -> str:
    """The papers a dump shares with the other dumps and how those found in an earlier one were
    matched, e.g. ``40 (in earlier dumps: 32 by identifier, 8 by text)``.
    """
    how = [
        f"{dump.get(f'matched_by_{kind}', 0)} by {kind}"
        for kind in ("identifier", "text")
        if dump.get(f"matched_by_{kind}")
    ]
    shared = dump.get("shared_with_other_dumps", 0)
    return f"{shared} (in earlier dumps: {', '.join(how)})" if how else str(shared)


def _dump_table(corpus_summary: dict) -> Markup:
    # Only where dumps overlap: the column would say 0 for each dump otherwise.
    sharing = any(dump.get("shared_with_other_dumps") for dump in corpus_summary["dumps"])
    rows = []
    for dump in corpus_summary["dumps"]:
        cells = [
            dump["dump"],
            dump["title"],
            dump["records_read"],
            dump["kept"],
            _duplicates_cell(dump),
            dump["also_in_earlier_dumps"],
            _rejected_cell(dump),
        ] + ([_shared_cell(dump)] if sharing else [])
        rows.append(cells)
    header = (
        "Dump",
        "Title",
        "Records read",
        "Papers kept",
        "Duplicates in dump",
        "Also in an earlier dump",
        "Rejected",
    ) + (("Shared with other dumps",) if sharing else ())
    return render("sections/dump_table.html", header=header, rows=rows, cut=_cut_note(corpus_summary))


def _cut_note(corpus_summary: dict) -> str:
    """What parsing took out of the abstracts: publisher lines cut, placeholders rejected, per dump
    ("" where nothing).
    """
    parts = []
    for dump in corpus_summary["dumps"]:
        cut, placeholders = dump.get("boilerplate_cut", 0), dump.get("placeholders", 0)
        said = [f"publisher lines cut from {cut} abstracts"] if cut else []
        said += (
            [f"{placeholders} placeholders (“[No abstract available]”) rejected as empty"]
            if placeholders
            else []
        )
        if said:
            parts.append(f"{dump['dump']}: {' and '.join(said)}")
    return "; ".join(parts)


def _guide_settings(settings: dict) -> dict:
    """The guide as used, where there is one: its names and the similarity a paper needs to join one."""
    if not settings.get("guide"):
        return {}
    return {
        "topics.guide": "; ".join(settings["guide"]),
        "topics.guide_min_similarity": (
            f"{settings['guide_min_similarity']} ({settings['named_topics']} of {len(settings['guide'])} "
            "names made a topic)"
        ),
    }


def _unmatched_guide_note(settings: dict) -> str | None:
    """What a user must hear of a guide: the names that made no topic, because no paper fits them."""
    unmatched = settings.get("guide_unmatched")
    if not unmatched:
        return None
    return (
        f"topics.guide: no paper fits {', '.join(repr(name) for name in unmatched)}, so "
        f"{'it makes' if len(unmatched) == 1 else 'they make'} no topic (papers join a name at a "
        "similarity of at least topics.guide_min_similarity)."
    )


def _curation_settings(settings: dict) -> dict:
    """What the curation file did: renamed, merged and hidden topics."""
    curation = settings.get("curation")
    if not curation:
        return {}
    merged = "; ".join(f"{', '.join(map(str, m['from']))} into {m['into']}" for m in curation["merged"])
    hidden = "; ".join(f"{h['id']} ({h['label']}, {h['papers']} papers)" for h in curation["hidden"])
    return {
        "topics.curation": curation["file"],
        "Curated labels (topics)": ", ".join(map(str, curation["renamed"])) or "none",
        "Merged topics": merged or "none",
        "Not a topic (papers counted as unassigned)": hidden or "none",
    }


def _window_figure(inputs: ReportInputs) -> dict:
    """How many abstracts the model read only in part (longer than its window), where counted."""
    if inputs.over_window is None:
        return {}
    count = int(inputs.papers["id"].isin(inputs.over_window).sum())
    return {
        "Longer than the model's window": (
            f"{count:,} abstract{' embedded from its' if count == 1 else 's embedded from their'} first "
            f"{inputs.window_tokens} tokens"
            if count
            else "none"
        )
    }


def input_notes(inputs: ReportInputs) -> list[str]:
    """The stages' notes a reader must see: too few papers to split, guide names no paper fits,
    years not compared, curation notices, each dump's warnings, and identifiers that named more
    than one paper.
    """
    settings = inputs.topic_settings
    dump_warnings = [
        warning for dump in inputs.corpus_summary["dumps"] for warning in dump.get("warnings", [])
    ]
    year_note = (inputs.changes or {}).get("year_note")
    curation_notices = (settings.get("curation") or {}).get("notices", [])
    return [
        note
        for note in (
            inputs.hdbscan_settings.get("note"),
            (inputs.hdbscan_settings.get("placement") or {}).get("note"),
            *new_topic_notes(settings),
            _unmatched_guide_note(settings),
            year_note,
            *curation_notices,
            *dump_warnings,
            identifier_conflict_note(inputs.corpus_summary),
            extraction_note(inputs.corpus_summary),
        )
        if note
    ]


def new_topic_notes(settings: dict) -> list[str]:
    """One line per dump in which ``update: place`` found new topics: "new in <dump>: ..."."""
    found: dict[str, list[str]] = {}
    for topic in (settings.get("placement") or {}).get("new_topics", []):
        found.setdefault(topic["dump"], []).append(
            f"topic {topic['topic']}, {topic['label']} ({topic['papers']} papers)"
        )
    return [f"new in {dump}: {'; '.join(topics)}." for dump, topics in found.items()]


def extraction_note(corpus_summary: dict) -> str | None:
    """What the parse stage removed of PDF extraction, over all dumps, where it removed some."""
    found = [d.get("extraction_artefacts") or {} for d in corpus_summary["dumps"]]
    papers = sum(f.get("papers", 0) for f in found)
    if not papers:
        return None
    codes, ligatures = sum(f.get("glyph_codes", 0) for f in found), sum(f.get("ligatures", 0) for f in found)
    done = [f"{codes:,} glyph {'code' if codes == 1 else 'codes'} such as (cid:173) removed"] if codes else []
    done += (
        [f"{ligatures:,} {'ligature' if ligatures == 1 else 'ligatures'} such as \ufb01 read as letters"]
        if ligatures
        else []
    )
    carried = "abstract carried" if papers == 1 else "abstracts carried"
    return f"{papers:,} {carried} PDF-extraction artefacts, cleaned before the topics: {' and '.join(done)}."


def _coherence_table(inputs: ReportInputs) -> Markup | None:
    """Each topic's coherence (NPMI of its top words), where the evaluate stage scored it."""
    coherence = coherence_by_topic(inputs.metrics)
    if not coherence:
        return None
    rows = []
    for topic in inputs.real_topics:
        npmi = coherence.get(topic["topic"])
        cells = [
            table_cell(topic["topic"], topic["topic"], "num"),
            table_cell(topic["label"]),
            # Topics it could not score: an empty cell, sorted last.
            table_cell(f"{npmi:.3f}", npmi, "num") if npmi is not None else table_cell("", -2, "num"),
        ]
        rows.append((topic["topic"], cells))
    return sortable_table("coherence-table", ["Topic", "Label", "Coherence (NPMI)"], {0, 2}, rows)


def _replicates_text(inputs: ReportInputs) -> str:
    """How the replicates were drawn, from ``topics.csv``'s count of them (none: not drawn)."""
    drawn = (
        int(inputs.topics["replicates"].max())
        if "replicates" in inputs.topics.columns and len(inputs.topics)
        else 0
    )
    if not drawn:
        return "0 (no topic's stability or finding's robustness measured)"
    return (
        f"{drawn}: subsamples of the papers (robustness.sample_share) drawn without replacement, each with "
        "its own seed, projected from this run's neighbour graph and clustered with these settings; a "
        "topic's stability is its mean best Jaccard with their topics, a finding holds where it is "
        "significant in the same direction on the matched topic"
    )


def method_section(inputs: ReportInputs) -> Markup:
    """Method and settings, collapsed: corpus figures, the dumps read, quality, the settings used
    and provenance.
    """
    papers = inputs.papers
    n_papers = len(papers)
    outliers = int(papers["outlier"].sum())
    reassigned = inputs.topic_settings.get("reduce_outliers") and outliers
    figures = {
        "Papers (after removing duplicates)": n_papers,
        "Dumps": len(inputs.corpus_summary["dumps"]),
        "Duplicates removed": sum(d["duplicates"] for d in inputs.corpus_summary["dumps"])
        + inputs.corpus_summary["duplicates_across_dumps"]
        + inputs.corpus_summary.get("merged_within_dumps", 0),
        **_window_figure(inputs),
        "Topics": len(inputs.real_topics),
        "Outliers": f"{outliers} ({outliers / n_papers:.1%})"
        + (" — assigned to their nearest topic, still marked" if reassigned else ""),
        **(quality_figures(inputs.metrics) if inputs.metrics else {}),
    }
    umap = inputs.umap_settings
    hdbscan = inputs.hdbscan_settings
    settings = inputs.topic_settings
    used = {
        "embedding.model": settings["embedding_model"],
        "umap.n_neighbors": f"{umap['n_neighbors']} (setting: {umap['n_neighbors_setting']})",
        "umap.n_components / min_dist / metric / random_state": (
            f"{umap['n_components']} / {umap['min_dist']} / {umap['metric']} / {umap['random_state']}"
        ),
        "hdbscan.min_cluster_size": f"{hdbscan['min_cluster_size']} (setting: {hdbscan['min_cluster_size_setting']})",
        "hdbscan.min_samples / cluster_selection_method": (
            f"{hdbscan['min_samples'] or '= min_cluster_size'} / {hdbscan['cluster_selection_method']}"
            f" (setting: {hdbscan.get('cluster_selection_method_setting', hdbscan['cluster_selection_method'])})"
        ),
        "hdbscan.max_cluster_share": (
            f"{hdbscan.get('max_cluster_share', 0)} (largest topic allowed: "
            + (f"{hdbscan['max_cluster_size']} papers)" if hdbscan.get("max_cluster_size") else "no limit)")
        ),
        "topics.ngram_range / stop_words / top_n_words": (
            f"{settings['ngram_range']} / {settings['stop_words']} / {settings['top_n_words']}"
        ),
        "topics.reduce_outliers": settings["reduce_outliers"],
        "topics.representation / reduce_frequent_words / min_keyword_share": (
            f"{settings.get('representation')} / {settings.get('reduce_frequent_words')}"
            f" / {settings.get('min_keyword_share')}"
        ),
        "umap.word_weight": umap.get("word_weight"),
        "report.coarse_topics": f"{settings.get('coarse_topics')} (setting: {settings.get('coarse_topics_setting')})",
        **_guide_settings(settings),
        **_curation_settings(settings),
        "robustness.replicates": _replicates_text(inputs),
    }
    return render(
        "sections/method.html",
        notes=input_notes(inputs),
        figures=figures,
        dumps=_dump_table(inputs.corpus_summary),
        coherence=_coherence_table(inputs),
        used=used,
        input_hash=inputs_hash(inputs.corpus_summary),
        versions=", ".join(f"{name} {version}" for name, version in package_versions().items()),
    )
