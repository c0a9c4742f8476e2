"""bench/results.json and the page written from it, bench/results.md: every benchmark module of
bench.common's workflow figures (pipeline, backend_quality, backend_speed, scale, neighbours,
reduce_paths, consensus_neighbours) updates its part of the JSON and rewrites the page.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from bench.common import BENCH, NEW_DUMP_SIZE, SCALE_DROPPED_WORDS, SCALE_DUMP_SIZE

# Rules renamed since figures were recorded in results.json: their former name → their name now.
RENAMED_RULES = {"map": "map_layout"}


def current_names(rules: dict) -> dict:
    """Per-rule figures under the rules' names now."""
    return {RENAMED_RULES.get(rule, rule): entry for rule, entry in rules.items()}


def run_heading(key: str, run: dict) -> str:
    forced = key.split(" ", 1)[1:]
    return f"{run['size']:,} abstracts" + (f" ({forced[0]} forced)" if forced else "")


def rule_table(heading: str, sizes: dict, order: list, run: str) -> list[str]:
    """Markdown lines: a rule per row, for each size its summed seconds / largest peak RSS / jobs in ``run``."""
    lines = [
        "",
        f"### {heading}",
        "",
        "| rule | " + " | ".join(run_heading(s, sizes[s]) for s in order) + " |",
        "|---|" + "---:|" * len(order),
    ]
    figures = {size: current_names(sizes[size][run]) for size in order}
    for rule in sorted({rule for size in order for rule in figures[size]}):
        entries = [figures[size].get(rule) for size in order]
        cells = [
            f"{e['seconds']:.1f} s / {e['peak_rss_mib']:.0f} / {e['jobs']}" if e else "–" for e in entries
        ]
        lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    return lines


def scale_runs(results: dict) -> dict:
    """The scale runs by label (one column each). A result of the earlier one-run layout (before the
    whole-workflow benchmark: reduce, cluster and topics only) becomes the column "before".
    """
    runs = results.get("scale", {})
    if "stages" in runs:
        return {
            "before": {
                "label": "before",
                "legacy": True,
                "size": runs["size"],
                "resampled_from": runs["resampled_from"],
                "fit_sample_size": runs["fit_sample_size"],
                "rules": {stage: {"jobs": 1, **figures} for stage, figures in runs["stages"].items()},
                "peak_rss_mib": runs["peak_rss_mib"],
                "critical_path_after_embeddings_seconds": runs["seconds"],
            }
        }
    return {label: run for label, run in runs.items() if isinstance(run, dict) and "label" in run}


SCALE_RULES = (
    "parse",
    "corpus",
    "embed",
    "neighbours",
    "reduce",
    "consensus_run",
    "map_layout",
    "cluster",
    "topics",
    "changes",
    "evaluate",
    "report",
)


def scale_table(runs: list[dict]) -> list[str]:
    """Markdown lines: the scale runs side by side, per rule and against the targets."""
    current = [run for run in runs if not run.get("legacy")]
    lines = ["", f"## {runs[0]['size']:,} abstracts, parse to report", ""]
    if current:
        first = current[0]
        lines += [
            f"{first['dumps']} dumps of {SCALE_DUMP_SIZE:,}: the shared corpora's {first['real_abstracts']:,} "
            f"real abstracts, then copies with {SCALE_DROPPED_WORDS:.0%} of their words dropped; the "
            f"embedding cache is filled first (the real abstracts embedded with {first['backend']}, each "
            f"copy its original's vector with Gaussian noise, sd {first['noise_sd']}), so the embed jobs "
            "only read it. Per rule: summed job seconds (their CPU seconds, which vary less with the "
            "others' load on a shared machine) / largest peak RSS (MiB), and the number of jobs "
            "where more than one. *Downstream wall* is the run after the embed jobs, timed whole on the "
            "machine's 2 cores; the *longest chain* adds the longest job of each step, as if each job had "
            "a core of its own.",
        ]
    if len(current) < len(runs):
        before = next(run for run in runs if run.get("legacy"))
        lines += [
            "",
            f"*before*: the earlier `bench-scale` ({before['size']:,} resampled copies of "
            f"{before['resampled_from']:,} abstracts; reduce, cluster and topics only; UMAP fitted on a "
            f"{before['fit_sample_size']:,}-paper sample, the rest placed by `transform`, and the map job "
            "repeating that work beside reduce); its chain is reduce + cluster + topics.",
        ]
    lines += [
        "",
        "| rule | " + " | ".join(run["label"] for run in runs) + " |",
        "|---|" + "---:|" * len(runs),
    ]
    for rule in SCALE_RULES:
        cells = []
        for run in runs:
            entry = current_names(run["rules"]).get(rule)
            jobs = f" ({entry['jobs']} jobs)" if entry and entry["jobs"] > 1 else ""
            cpu = f" ({entry['cpu_seconds']:.0f} CPU)" if entry and "cpu_seconds" in entry else ""
            cells.append(f"{entry['seconds']:.1f}{cpu} / {entry['peak_rss_mib']:.0f}{jobs}" if entry else "–")
        if any(cell != "–" for cell in cells):
            lines.append(f"| {rule} | " + " | ".join(cells) + " |")
    for label, key, unit in (
        (
            "**longest chain after the embeddings** (target ≤ 600 s)",
            "critical_path_after_embeddings_seconds",
            "s",
        ),
        ("**downstream wall, 2 cores** (target ≤ 600 s)", "downstream_seconds", "s"),
        ("**largest peak RSS** (target ≤ 8192 MiB)", "peak_rss_mib", "MiB"),
        ("**no-op rerun** (target ≤ 5 s)", "noop_seconds", "s"),
        ("dry run", "dry_run_seconds", "s"),
        ("load average at the end (2 cores)", "load_average_at_end", ""),
    ):
        cells = [f"{run[key]:.1f} {unit}".strip() if key in run else "–" for run in runs]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines.append(
        "| settings | "
        + " | ".join(
            "earlier defaults" if run.get("legacy") else ", ".join(run["overrides"]) or "config.yaml"
            for run in runs
        )
        + " |"
    )
    return lines


def reduce_paths_table(result: dict | None) -> list[str]:
    if not result:
        return []
    names = list(result["paths"])
    lines = [
        "",
        f"## The cluster space of {result['papers']:,} papers: sampled fit + transform against a full fit",
        "",
        "The scale run's embeddings; each path in a fresh process, one after the other (UMAP's "
        "numba compilation included). *Neighbours kept*: of the 15 nearest papers by cosine of "
        f"{result['queries']:,} seeded papers, the share that are among their 15 nearest in the 5-d "
        "space. ARI: HDBSCAN's topics (config.yaml's settings, outliers joined to topics), each path "
        "against the first full fit.",
        "",
        "| path | seconds | CPU seconds | phases (s) | peak RSS (MiB) | neighbours kept | topics "
        "| ARI to full fit, seed 42 | load average |",
        "|---|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    reference = "full fit, NN-descent" if "full fit, NN-descent" in names else names[0]
    for name in names:
        run = result["paths"][name]
        phases = ", ".join(
            f"{phase} {value:.0f}" for phase, value in run["phases"].items() if phase != "total"
        )
        cells = [
            f"{run['seconds']:.1f}",
            f"{run['cpu_seconds']:.1f}" if "cpu_seconds" in run else "–",
            phases or "–",
            f"{run['peak_rss_mib']:.0f}",
            f"{run['neighbours_preserved']:.3f}" if "neighbours_preserved" in run else "–",
            str(run.get("topics", "–")),
            f"{run['ari'][reference]:.3f}" if reference in run.get("ari", {}) else "–",
            f"{run['load_average']:.1f}",
        ]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def consensus_neighbours_table(result: dict | None) -> list[str]:
    if not result:
        return []
    first = next(iter(result.values()))
    lines = [
        "",
        "## Consensus runs: one shared neighbour graph or one per run (IJCAI)",
        "",
        f"{first['papers']:,} IJCAI abstracts; the consensus topics (umap.consensus_runs) for UMAP seeds "
        f"{'/'.join(map(str, first['seeds']))}, their seed stability as `make quality` computes it (mean "
        "pairwise ARI, outliers joined to topics). Each mode in a fresh process; seconds summed over the seeds.",
        "",
        "| neighbour graph | seed stability (ARI) | topics per seed | neighbour search (s) | projections (s) "
        "| load average |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for mode, run in result.items():
        lines.append(
            f"| {mode} | {run['ari']:.3f} | {'/'.join(map(str, run['topics']))} | "
            f"{run['seconds']['neighbours']:.1f} | {run['seconds']['projections']:.1f} | {run['load_average']:.1f} |"
        )
    return lines


def render_markdown(results: dict) -> str:
    lines = [
        "# Benchmark results",
        "",
        "Written by the `bench` modules (see `make bench`); the numbers come from `results.json`. Each "
        "size's figures come from one run on the machine named below; every figure is wall-clock "
        "seconds, and every RSS is the peak resident memory of one process (MiB).",
        "",
    ]
    sizes = results.get("pipeline", {})
    if sizes:
        order = sorted(sizes, key=lambda key: (sizes[key]["size"], key))
        header = "| | " + " | ".join(run_heading(key, sizes[key]) for key in order) + " |"
        lines += ["## Pipeline", "", header, "|---|" + "---:|" * len(order)]

        def row(label, render):
            cells = []
            for size in order:
                try:
                    cells.append(render(sizes[size]))
                except KeyError:
                    cells.append("–")
            lines.append(f"| {label} | " + " | ".join(cells) + " |")

        row("embedding backend", lambda r: r["backend"])
        row("cold end-to-end (s)", lambda r: f"{r['cold_seconds']:.1f}")
        row("embedding step alone (s)", lambda r: f"{r['embedding_only_seconds']:.1f}")
        row("embedding speed (abstracts/s)", lambda r: f"{r['embedding_docs_per_second']:.1f}")
        row(
            f"rerun after a new {NEW_DUMP_SIZE:,}-abstract dump (s)",
            lambda r: f"{r['new_dump_rerun_seconds']:.1f}",
        )
        row("no-op rerun (s)", lambda r: f"{r['noop_seconds']:.1f}")
        row("plain BERTopic fit_transform (s)", lambda r: f"{r['plain_bertopic_seconds']:.1f}")
        row("plain BERTopic peak RSS (MiB)", lambda r: f"{r['plain_bertopic_peak_rss_mib']:.0f}")
        row(
            "**cold / embedding alone** (target ≤ 1.2)",
            lambda r: f"{r['ratios']['cold_over_embedding_only']:.2f}",
        )
        row(
            "**new-dump rerun / cold** (target ≤ 0.25)",
            lambda r: f"{r['ratios']['new_dump_rerun_over_cold']:.2f}",
        )
        row(
            "**plain BERTopic / ours (cold)** (target ≥ 2)",
            lambda r: f"{r['ratios']['plain_bertopic_over_cold']:.2f}",
        )
        row("**publish step / cold** (target ≤ 0.02)", lambda r: f"{r['ratios']['publish_over_cold']:.4f}")
        row("load average at the end (2 cores)", lambda r: f"{r['load_average_at_end']:.1f}")
        lines += [
            "",
            f"The targets are set for 10,000 abstracts: with fewer, the fixed costs (imports, model "
            f"loading, numba compilation) weigh more, and the new {NEW_DUMP_SIZE:,}-abstract dump "
            "is a larger share of the corpus. The plain BERTopic baseline embeds with torch (fp32), as it comes.",
        ]
        lines += rule_table(
            "Per rule, cold run (summed job seconds / largest peak RSS MiB / jobs)",
            sizes,
            order,
            "cold_rules",
        )
        lines += rule_table(
            f"Per rule, rerun after the new {NEW_DUMP_SIZE:,}-abstract dump", sizes, order, "new_dump_rules"
        )
    quality = results.get("quality")
    if quality:
        lines += [
            "",
            f"## Embedding backends on IJCAI ({quality['corpus']})",
            "",
            "Each backend's vectors clustered with the pipeline's reduce and cluster functions and "
            "default settings; NMI/ARI against the area labels (used only for scoring).",
            "",
            "| backend | NMI | ARI | NMI − torch | clusters | outliers | cosine to torch (min / mean) | abstracts/s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for backend, r in quality["backends"].items():
            lines.append(
                f"| {backend} | {r['nmi']:.4f} | {r['ari']:.4f} | {r.get('nmi_minus_torch', 0):+.4f} | {r['clusters']} | "
                f"{r['outlier_share']:.1%} | {r.get('cosine_to_torch_min', 1):.4f} / {r.get('cosine_to_torch_mean', 1):.4f} | "
                f"{r['docs_per_second']:.1f} |"
            )
    speed = results.get("speed")
    if speed:
        lines += [
            "",
            "## Embedding speed, backends interleaved",
            "",
            f"{speed['docs']} IJCAI abstracts, each backend in turn, {speed['rounds']} rounds in one process "
            f"(median; load average {speed['load_average_at_end']} on 2 cores at the end).",
            "",
            "| backend | abstracts/s | speed-up over torch |",
            "|---|---:|---:|",
        ]
        for backend, r in speed["backends"].items():
            lines.append(f"| {backend} | {r['docs_per_second']:.1f} | {r['speedup_over_torch']:.2f}× |")
    runs = list(scale_runs(results).values())
    if runs:
        lines += scale_table(runs)
    lines += reduce_paths_table(results.get("reduce_paths"))
    lines += consensus_neighbours_table(results.get("consensus_neighbours"))
    neighbours = results.get("neighbours")
    if neighbours:
        lines += [
            "",
            "## Nearest neighbours: exact (blocked products) against UMAP's NN-descent",
            "",
            "The scale run's embeddings, first N papers; each method in a fresh process (seconds of the "
            "search itself, NN-descent's numba compilation included; recall against the exact neighbours).",
            "",
            "| papers | exact (s) | exact peak RSS (MiB) | NN-descent (s) | NN-descent peak RSS (MiB) | NN-descent recall |",
            "|---:|---:|---:|---:|---:|---:|",
        ]
        for size, r in neighbours.items():
            exact, descent = r["exact"], r["nn-descent"]
            lines.append(
                f"| {int(size):,} | {exact['seconds_in_process']:.1f} | {exact['peak_rss_mib']:.0f} | "
                f"{descent['seconds_in_process']:.1f} | {descent['peak_rss_mib']:.0f} | {descent['recall']:.3f} |"
            )
    machine = results.get("machine")
    if machine:
        lines += ["", f"Machine: {machine}"]
    return "\n".join(lines) + "\n"


def save(update, folder: Path = BENCH) -> None:
    """Apply ``update`` to ``folder``/results.json, then write results.md from it (and print it)."""
    results = load(folder)
    update(results)
    results["machine"] = (
        f"{os.cpu_count()} CPU cores, {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB memory, no GPU used"
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    page = render_markdown(results)
    (folder / "results.md").write_text(page)
    print(page)


def load(folder: Path = BENCH) -> dict:
    """What ``folder``/results.json holds (nothing yet: an empty dict)."""
    stored = folder / "results.json"
    return json.loads(stored.read_text()) if stored.exists() else {}
