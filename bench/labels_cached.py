"""The label bench without refitting: ``capture`` runs ``quality_labels.labels_benchmark`` once and keeps
what each call of the topics stage's labeller read (the partition, c-TF-IDF keywords, groups,
earlier labels); ``rescore`` labels those same inputs again with the current labelling code and
scores them as bench/quality-labels.md does (top 3 words and MMR are the captured run's: labels
move no paper). A label change is then measured in seconds, not a refit.

    PYTHONPATH=workflow python -m bench.labels_cached capture CORPUS...
    PYTHONPATH=workflow python -m bench.labels_cached rescore CORPUS... [--misses]
    PYTHONPATH=workflow python -m bench.labels_cached halves CORPUS... [--seeds 0 1 ...]
    PYTHONPATH=workflow:. python -m bench.labels_cached loco DIR

``loco`` (bench/labels-loco.md) relabels each held-out venue's captured corpus (in ``DIR``) with
the keyphraseness table built without that venue's papers, and scores that venue.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from bench import label_scores, quality_labels, quality_runs

CACHE_DIR = Path(tempfile.gettempdir()) / "papertopics-quality"
# The leave-one-corpus-out folds: each held-out venue, the captured corpus holding it.
FOLDS = {
    "COLM": "openreview_free_keywords.jsonl.gz",
    "CoRL": "openreview_free_keywords.jsonl.gz",
    "IJCAI": "ijcai_2020_2024_areas.jsonl.gz",
    "3DV": "keyword_lists_3dv_ai4x_2025.jsonl.gz",
}
_SUBJECTS = re.compile(r",| and ")


def _capture_file(cache_dir: Path, corpus: Path) -> Path:
    return cache_dir / f"labels-{corpus.name.split('.')[0]}.pickle"


def capture(corpus: Path, cache_dir: Path) -> dict:
    """``labels_benchmark``'s result, with each labeller call's arguments (first the whole
    corpus's run, then the two runs of the labels-kept figure), kept in ``cache_dir``.
    """
    from papertopics.topics import run as topic_run

    calls: list[tuple] = []
    real = topic_run.label_topics

    def recording(*args, **kwargs):
        calls.append((args[:7], args[8] if len(args) > 8 else kwargs.get("keywords")))
        return real(*args, **kwargs)

    topic_run.label_topics = recording
    try:
        result = quality_labels.labels_benchmark(corpus, cache_dir)
    finally:
        topic_run.label_topics = real
    with open(_capture_file(cache_dir, corpus), "wb") as out:
        pickle.dump({"result": result, "calls": calls}, out)
    return result


def _relabel(
    call: tuple,
    encoder,
    title_of: dict[str, str],
    earlier: dict[int, str] | None = None,
    authors: tuple[list[list[str]], int] | None = None,
    prior=None,
):
    """The labeller on a captured call's inputs, the papers' titles found by their text; with
    ``authors`` (each paper's keywords, the least papers a keyword names a topic with), those too;
    ``prior``, the keyphraseness table (the shipped one by default).
    """
    from papertopics.topics.labeller import PaperTexts, label_topics

    (texts, vectors, curated, captured_earlier, given, kept, coarse), keywords = call
    earlier = captured_earlier if earlier is None else earlier
    titles = [title_of.get(text, "") for text in texts]
    read = PaperTexts(titles, *(authors or (None, None)), prior)
    return label_topics(texts, vectors, curated, earlier, given, kept, coarse, encoder, keywords, read)


def halves(corpus: Path, cache_dir: Path, seeds: list[int]) -> dict:
    """The half-split figure (issue #50, item 2) on the captured partition, for each seed: the
    keywords of a random half of the papers (``quality_labels.keyword_halves`` with that seed) fed
    to the labeller, its labels scored against the other half's keywords only, a label phrase
    counting where at least 2 of the topic's papers of that half carry it, and where any one does;
    beside them, on the same half, the labels made with no keywords and BERTopic's top 3 words and
    MMR keywords of the captured run. The corpus's free keywords, or IJCAI's sub-area keywords fed
    the same way.
    """
    from papertopics.embed.encoders import load_model
    from papertopics.topics.phrases import label_phrases

    from bench.label_keywords import (
        MIN_KEYWORD_PAPERS,
        keyword_naming,
        load_free_keywords,
        topic_keyword_counts,
    )

    keywords = load_free_keywords(corpus) or label_scores.load_paper_keywords(corpus)
    if not keywords:
        raise SystemExit(f"{corpus}: its papers carry no keywords to split")
    with open(_capture_file(cache_dir, corpus), "rb") as stored:
        captured = pickle.load(stored)
    call = captured["calls"][0]
    config = quality_runs.default_config()
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    by_text = {p["text"]: p for p in quality_runs.load_corpus(corpus)}
    title_of = {text: p["title"] or "" for text, p in by_text.items()}
    texts, curated = call[0][0], call[0][2]
    ids = [by_text[text]["id"] for text in texts]
    topics = np.asarray(curated.topics)
    sizes = Counter(topics[topics != -1].tolist())
    none_fed = _relabel(call, encoder, title_of).label_of
    shown = [e for e in captured["result"]["all_topics"] if e["topic"] in sizes]
    baselines = {
        "ours, no keywords": {t: label_phrases(none_fed[t]) for t in sizes},
        "top 3 words": {e["topic"]: e["top_words"][:3] for e in shown},
        "MMR": {e["topic"]: e["mmr"] for e in shown},
    }
    least = config["topics"]["label_keyword_min_papers"]
    readings = {"at_least_2": MIN_KEYWORD_PAPERS, "any_paper": 1}
    rows = []
    for seed in seeds:
        fed, scored = quality_labels.keyword_halves(ids, seed)
        given = [keywords.get(i, []) if i in fed else [] for i in ids]
        labelled = _relabel(call, encoder, title_of, authors=(given, least)).label_of
        counts = topic_keyword_counts(ids, topics, {i: keywords.get(i, []) for i in scored})
        compared = {"ours, half fed": {t: label_phrases(labelled[t]) for t in sizes}, **baselines}
        rows.append(
            {
                name: {r: keyword_naming(of, counts, sizes, papers) for r, papers in readings.items()}
                for name, of in compared.items()
            }
        )
    mean = {name: {r: _mean_figures([row[name][r] for row in rows]) for r in readings} for name in rows[0]}
    for seed, row in zip(seeds, rows, strict=True):
        row["seed"] = seed
    return {"corpus": corpus.name, "topics": len(sizes), "seeds": rows, "mean": mean}


def _mean_figures(figures: list[dict]) -> dict:
    """The mean of each figure over the draws."""
    return {key: float(np.mean([f[key] for f in figures])) for key in figures[0]}


def halves_markdown(found: list[dict]) -> str:
    """``halves``'s hit rates (phrase shares in brackets): ours per seed, every label set's mean."""
    lines = [
        "| corpus | labels | seed | hit rate, >= 2 papers (phrase share) | hit rate, any paper (phrase share) |",
        "|---|---|---|---:|---:|",
    ]

    def cells(figures: dict) -> str:
        return " | ".join(
            f"{figures[r]['hit_rate']:.3f} ({figures[r]['phrase_share']:.3f})"
            for r in ("at_least_2", "any_paper")
        )

    for corpus in found:
        name = corpus["corpus"].split(".")[0]
        lines += [
            f"| {name} | ours, half fed | {row['seed']} | {cells(row['ours, half fed'])} |"
            for row in corpus["seeds"]
        ]
        lines += [
            f"| {name} | {labels} | mean | {cells(figures)} |" for labels, figures in corpus["mean"].items()
        ]
    return "\n".join(lines)


def loco(corpora: Path, cache_dir: Path) -> list[dict]:
    """Each fold (``FOLDS``): the held-out venue's hit rates, ours (labelled with the keyphraseness
    table built without its papers), the top 3 words and MMR: against its free keywords
    (``naming_by_venue``), or IJCAI's sub-area keywords; and its whole labels of one generic word.
    """
    from bench.keyphraseness_table import build

    rows = []
    for venue, name in FOLDS.items():
        result = rescore(corpora / name, cache_dir, prior=build(corpora, frozenset({venue})))
        by_venue = result["naming_by_venue"] or {}
        figures = by_venue.get(venue) or next(r for r in result["naming"] if "sub-area" in r["reference"])
        words = result["single_words"]
        single = words.get(venue, words.get(name.split(".")[0], []))
        rows.append(
            {"held_out": venue, **{k: figures[k] for k in ("ours", "top3_words", "mmr")}, "single": single}
        )
    return rows


def loco_markdown(rows: list[dict]) -> str:
    """``loco``'s folds, one row each."""
    lines = ["| held out | ours | top 3 words | MMR | single generic words |", "|---|---:|---:|---:|---|"]
    lines += [
        f"| {r['held_out']} | {r['ours']:.3f} | {r['top3_words']:.3f} | {r['mmr']:.3f} | {', '.join(r['single']) or '-'} |"
        for r in rows
    ]
    return "\n".join(lines)


def rescore(corpus: Path, cache_dir: Path, misses: bool = False, prior=None) -> dict:
    """The captured result with our labels, group labels and labels kept made again now (with the
    keyphraseness table ``prior``, the shipped one by default).
    """
    from papertopics.embed.encoders import load_model
    from papertopics.topics.phrases import label_phrases

    from bench.label_keywords import kept_most_share, most_papers_kept

    with open(_capture_file(cache_dir, corpus), "rb") as stored:
        captured = pickle.load(stored)
    result, calls = captured["result"], captured["calls"]
    config = quality_runs.default_config()
    encoder = load_model(config["embedding"]["model"], config["embedding"]["max_seq_length"])
    papers = quality_runs.load_corpus(corpus)
    title_of = {p["text"]: p["title"] or "" for p in papers}
    labelled = _relabel(calls[0], encoder, title_of, prior=prior)
    topics = calls[0][0][2].topics
    details = [
        {"topic": e["topic"], "size": e["size"], "label": labelled.label_of[e["topic"]], "keywords": []}
        for e in result["all_topics"]
    ]
    for detail, entry in zip(details, result["all_topics"], strict=True):
        detail["keywords"] = [(w, 0.0) for w in entry["top_words"]]
    mmr = {e["topic"]: e["mmr"] for e in result["all_topics"]}
    result["naming"] = label_scores.label_naming(papers, corpus, np.asarray(topics), details, encoder, mmr)
    for entry in result["all_topics"]:
        entry["label"] = labelled.label_of[entry["topic"]]
    result["largest"] = result["all_topics"][:20]
    result["groups"] = [g["label"] for g in labelled.groups]
    result["group_naming"] = label_scores.group_naming(
        papers, corpus, np.asarray(topics), labelled.groups, encoder
    )
    if len(calls) == 3 and result["kept"]:
        first = _relabel(calls[1], encoder, title_of, prior=prior).from_papers
        kept = sorted(set(calls[2][0][3]) & set(first) & set(calls[2][0][2].merged.tolist()))
        earlier = {t: first[t] for t in calls[2][0][3] if t in first}
        second = _relabel(calls[2], encoder, title_of, earlier, prior=prior).from_papers
        kept = [t for t in kept if t in second]
        same = [t for t in kept if first[t] == second[t]]
        relabelled = [{"id": t, "from": first[t], "to": second[t]} for t in kept if first[t] != second[t]]
        topic_of = [dict(zip(call[0][0], call[0][2].topics.tolist(), strict=True)) for call in calls[1:]]
        result["kept"] = {
            **result["kept"],
            "kept_id": len(kept),
            "kept_label": len(same),
            "share": len(same) / len(kept) if kept else None,
            **kept_most_share(most_papers_kept(*topic_of, kept), same),
            "relabelled": relabelled,
        }
    result["naming_by_venue"] = naming_by_venue(corpus, papers, topics, result, label_phrases)
    result["single_words"] = single_word_labels(corpus, papers, topics, result, encoder)
    if misses:
        _print_misses(corpus, papers, topics, result, label_phrases)
    return result


def naming_by_venue(corpus: Path, papers, topics, result, label_phrases) -> dict | None:
    """The free-keyword hit rate of ours, the top 3 words and MMR on each venue's papers apart
    (issue #50: a label rule must win on each corpus separately): a paper counts as a hit when its
    topic's label has a phrase that is a keyword of the topic (``label_keywords.phrase_is_keyword``).
    """
    from bench.label_keywords import load_free_keywords, phrase_is_keyword, topic_keyword_counts

    free = load_free_keywords(corpus)
    if not free:
        return None
    topics = np.asarray(topics)
    counts = topic_keyword_counts([p["id"] for p in papers], topics, free)
    real = [e for e in result["all_topics"] if e["topic"] != -1]
    labels = {
        "ours": {e["topic"]: label_phrases(e["label"]) for e in real},
        "top3_words": {e["topic"]: e["top_words"][:3] for e in real},
        "mmr": {e["topic"]: e["mmr"] for e in real},
    }
    venues = np.array([p.get("venue") or "" for p in papers])
    found = {}
    for venue in sorted(set(venues.tolist()) - {""}):
        in_venue = Counter(topics[(venues == venue) & (topics != -1)].tolist())
        found[venue] = {
            name: sum(
                n
                for t, n in in_venue.items()
                if any(phrase_is_keyword(p, counts.get(t, Counter())) for p in of[t])
            )
            / sum(in_venue.values())
            for name, of in labels.items()
        }
    return found


def single_word_labels(corpus: Path, papers, topics, result, encoder) -> dict[str, list[str]]:
    """The whole labels that are one generic word, on each venue (free keywords) or the whole
    corpus (sub-area keywords): one word that the field does not use alone as a keyword of the
    topic (issue #50: a label of one word names what its papers are about only where their authors
    use that word alone). Against free keywords, one at least 2 of the topic's papers carry
    (``phrase_is_keyword``); against sub-area keywords, one of the subjects of the topic's
    reference names, or one as similar (``label_scores.label_hits``). Topics with papers in the
    venue only.
    """
    from papertopics.topics.phrases import label_phrases, phrase_key

    from bench.label_keywords import load_free_keywords, phrase_is_keyword, topic_keyword_counts

    topics = np.asarray(topics)
    ids = [p["id"] for p in papers]
    one_word = {
        e["topic"]: phrases[0]
        for e in result["all_topics"]
        if e["topic"] != -1
        and len(phrases := label_phrases(e["label"])) == 1
        and len(phrase_key(phrases[0])) == 1
    }
    free = load_free_keywords(corpus)
    if free:
        counts = topic_keyword_counts(ids, topics, free)
        generic = {t for t, word in one_word.items() if not phrase_is_keyword(word, counts.get(t, Counter()))}
        venues = np.array([p.get("venue") or "" for p in papers])
        return {
            venue: sorted(one_word[t] for t in generic if np.any((topics == t) & (venues == venue)))
            for venue in sorted(set(venues.tolist()) - {""})
        }
    keywords = label_scores.load_paper_keywords(corpus)
    if not keywords:
        return {}
    # A sub-area names several subjects ("Planning and Scheduling"): each is a name the field uses.
    names = {
        t: [part.strip() for name in of for part in _SUBJECTS.split(name) if part.strip()]
        for t, of in label_scores.reference_names(ids, topics, keywords).items()
    }
    hits = label_scores.label_hits({t: [word] for t, word in one_word.items()}, names, encoder)
    return {corpus.name.split(".")[0]: sorted(one_word[t] for t, hit in hits.items() if not hit)}


def venue_markdown(found: list[dict]) -> str:
    """The hit rates of ``naming_by_venue``, one row per venue."""
    rows = [(r["corpus"], venue, f) for r in found for venue, f in (r.get("naming_by_venue") or {}).items()]
    if not rows:
        return ""
    lines = ["| corpus | venue | ours | top 3 words | MMR |", "|---|---|---:|---:|---:|"]
    lines += [f"| {c} | {v} | {f['ours']:.2f} | {f['top3_words']:.2f} | {f['mmr']:.2f} |" for c, v, f in rows]
    return "\n".join(lines)


def single_word_markdown(found: list[dict]) -> str:
    """The labels of ``single_word_labels``, one row per venue or corpus (the target is none)."""
    rows = [
        (r["corpus"], part, words) for r in found for part, words in (r.get("single_words") or {}).items()
    ]
    if not rows:
        return ""
    lines = ["| corpus | venue | single generic words | labels |", "|---|---|---:|---|"]
    lines += [f"| {c} | {v} | {len(words)} | {', '.join(words)} |" for c, v, words in rows]
    return "\n".join(lines)


def _print_misses(corpus: Path, papers, topics, result, label_phrases) -> None:
    """Each topic's label and the free keywords ≥ 2 of its papers carry (for reading misses)."""
    from bench.label_keywords import load_free_keywords, phrase_is_keyword, topic_keyword_counts

    free = load_free_keywords(corpus)
    if not free:
        return
    counts = topic_keyword_counts([p["id"] for p in papers], np.asarray(topics), free)
    for entry in result["all_topics"]:
        mine = counts.get(entry["topic"])
        phrases = label_phrases(entry["label"])
        marks = ["+" if phrase_is_keyword(p, mine) else "-" for p in phrases]
        common = [f"{' '.join(sorted(k))}:{n}" for k, n in mine.most_common(8) if n >= 2]
        print(
            f"{entry['topic']:>3} {entry['size']:>4} {' '.join(marks):<4} {entry['label']!r:<55}"
            f" mmr={entry['mmr']} | {'; '.join(common)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("mode", choices=["capture", "rescore", "halves", "loco"])
    parser.add_argument("corpora", nargs="+", type=Path)
    parser.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    parser.add_argument("--misses", action="store_true", help="print each topic's label and keywords")
    parser.add_argument("--output", type=Path, help="write OUTPUT.md and OUTPUT.json (rescore)")
    parser.add_argument(
        "--seeds", type=int, nargs="+", default=list(range(8)), help="the halves drawn (halves)"
    )
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.mode == "loco":
        print(loco_markdown(loco(args.corpora[0], args.cache_dir)))
        return
    if args.mode == "halves":
        print(halves_markdown([halves(corpus, args.cache_dir, args.seeds) for corpus in args.corpora]))
        return
    if args.mode == "capture":
        found = [capture(corpus, args.cache_dir) for corpus in args.corpora]
    else:
        found = [rescore(corpus, args.cache_dir, args.misses) for corpus in args.corpora]
    if args.output:
        from papertopics import storage

        storage.write_json(args.output.with_suffix(".json"), found)
        storage.write_text(args.output.with_suffix(".md"), quality_labels.labels_markdown(found))
    print(quality_labels.labels_markdown(found))
    print(venue_markdown(found))
    print(single_word_markdown(found))


if __name__ == "__main__":
    main()
