"""How fast the report opens at 10,000 and 100,000 papers: `make bench-report`.

Reports are built from synthetic stage outputs (tests/synthetic_report.py, which the report tests
share: no models, points scattered around topic centres on the 2-d map, abstracts drawn from the
shipped dumps' words plus words of their topic, BERTopic's figures fitted on them with the topics
stage's own function), and opened in headless Chromium in
the same run as the report of the shipped dumps, with the network blocked:

- size of the HTML file;
- load: navigation start to the map and every chart on the first screen drawn (charts further
  down may draw when scrolled to); and to every chart drawn, scrolling to each at once after
  load (median of runs, the reports' runs interleaved, so that a busy machine weighs on all alike);
- search: keystroke to the updated result list and map (median over several queries); and when,
  after navigation, the page could search the papers' names, and everything (names and abstracts).

``--before`` builds the reports with another checkout's package (an export of main before the
change measured), for the "before" rows. Results: bench/report.json and bench/report.md, which
keep the earlier comparisons recorded there.

    PYTHONPATH=workflow python -m bench.report_bench run --before BEFORE/workflow --scratch SCRATCH
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

from bench.common import CHROMIUM, CHROMIUM_ARGS, REPO
from tests.synthetic_report import build_synthetic_report

# ---- Measuring -----------------------------------------------------------------------------------
# Recorded in the page from its first script on: when the map and the charts on the first screen
# have been drawn by plotly, when every chart has, when a key was pressed, and the frame after the
# page marked a search done (list and map).
_PROBE = """
(() => {
  const drawn = d => d.classList.contains('js-plotly-plot');
  const onScreen = d => { const r = d.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; };
  const firstView = () => { const map = document.getElementById('document-map');
    return map !== null && drawn(map) && [...document.querySelectorAll('div.figure')].filter(onScreen).every(drawn); };
  const all = () => firstView() && document.querySelectorAll('div.figure:not(.js-plotly-plot)').length === 0;
  const watch = () => {
    if (window.__firstViewAt === undefined && firstView()) { window.__firstViewAt = performance.now(); }
    if (window.__chartsDrawnAt === undefined && all()) { window.__chartsDrawnAt = performance.now(); }
    if (window.__chartsDrawnAt === undefined || window.__firstViewAt === undefined) { requestAnimationFrame(watch); }
  };
  requestAnimationFrame(watch);
  document.addEventListener('keydown', () => { window.__keyAt = performance.now(); }, true);
  new MutationObserver(records => records.forEach(r => {
    if (r.attributeName === 'data-searched') {
      requestAnimationFrame(() => { window.__searchedAt = performance.now(); });
    } else if (r.attributeName === 'data-names-searchable' && window.__namesSearchableAt === undefined) {
      window.__namesSearchableAt = performance.now();
    } else if (r.attributeName === 'data-search-ready' && window.__searchReadyAt === undefined) {
      window.__searchReadyAt = performance.now();
    }
  })).observe(document, {subtree: true, attributes: true,
                         attributeFilter: ['data-searched', 'data-names-searchable', 'data-search-ready']});
})();
"""


def _open(context, path: Path, timeout_s: float):
    page = context.new_page()
    page.add_init_script(_PROBE)
    page.route(re.compile(r"^(?!file:|data:|blob:)"), lambda route: route.abort())
    page.goto(path.resolve().as_uri(), wait_until="load", timeout=timeout_s * 1000)
    page.wait_for_function("window.__firstViewAt !== undefined", timeout=timeout_s * 1000)
    page.evaluate("""async () => {
        const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
        for (const chart of document.querySelectorAll('div.figure')) { chart.scrollIntoView(); await frame(); await frame(); }
    }""")
    page.wait_for_function("window.__chartsDrawnAt !== undefined", timeout=timeout_s * 1000)
    page.evaluate("window.scrollTo(0, 0)")
    return page


def load_seconds(context, path: Path, timeout_s: float) -> dict | None:
    """Seconds from navigation start to the first screen drawn (``first``), to every chart drawn
    (``all``, scrolled through at once after the first), to the papers' names searchable
    (``names``, None where the page does not say) and to everything searchable (``ready``);
    None when the page did not get there in ``timeout_s``.
    """
    try:
        page = _open(context, path, timeout_s)
        page.wait_for_function("document.body.dataset.searchReady === 'true'", timeout=timeout_s * 1000)
    except Exception:  # a timeout or a crashed tab: the page did not load
        return None
    seconds = page.evaluate(
        """() => ({first: window.__firstViewAt / 1000, all: window.__chartsDrawnAt / 1000,
                   names: window.__namesSearchableAt === undefined ? null : window.__namesSearchableAt / 1000,
                   ready: window.__searchReadyAt / 1000})"""
    )
    page.close()
    return seconds


def search_seconds(context, path: Path, words: list[str], timeout_s: float) -> list[float]:
    """Keystroke to updated list and map, for every key of ``words`` typed one by one, once the
    page can search everything.
    """
    page = _open(context, path, timeout_s)
    page.wait_for_function("document.body.dataset.searchReady === 'true'", timeout=timeout_s * 1000)
    latencies = []
    for word in words:
        if page.input_value("#search-box"):
            page.fill("#search-box", "")
            page.wait_for_function(
                "document.getElementById('search-box').dataset.searched === ''", timeout=timeout_s * 1000
            )
        for end in range(1, len(word) + 1):
            page.evaluate("window.__searchedAt = undefined")
            page.keyboard.type(word[end - 1]) if end > 1 else page.type("#search-box", word[0])
            page.wait_for_function(
                "q => document.getElementById('search-box').dataset.searched === q"
                " && window.__searchedAt !== undefined",
                arg=word[:end],
                timeout=timeout_s * 1000,
            )
            latencies.append(page.evaluate("(window.__searchedAt - window.__keyAt) / 1000"))
    page.close()
    return latencies


def _build_with(package_root: Path, outputs_args: list[str], path: Path) -> None:
    """Build one report in a fresh process that imports the package from ``package_root`` (and
    these benchmarks from this checkout).
    """
    import subprocess

    subprocess.run(
        [sys.executable, "-m", "bench.report_bench", "build", "--output", str(path), *outputs_args],
        check=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(package_root), str(REPO)])},
    )


def _shipped_report(results: Path, path: Path) -> Path:
    """The shipped dumps' report, rebuilt from the stage outputs in ``results`` with the imported package."""
    import dataclasses
    import inspect

    from papertopics import report

    # The package of an earlier commit takes the files as keyword arguments, without ReportFiles.
    files_type = getattr(report, "ReportFiles", None)
    accepted = (
        {field.name for field in dataclasses.fields(files_type)}
        if files_type
        else set(inspect.signature(report.load_report_inputs).parameters)
    )
    similar = results / "similar/papers.npz"
    shows_similar = "similar" in accepted and similar.exists()
    files = dict(
        corpus_summary=str(results / "corpus/summary.json"),
        umap_settings=str(results / "reduced/umap.json"),
        hdbscan_settings=str(results / "clusters/hdbscan.json"),
        topics=str(results / "topics/topics.csv"),
        papers=str(results / "topics/papers.csv"),
        details=str(results / "topics/topic_details.json"),
        figures=str(results / "topics/figures.json"),
        metrics=str(results / "metrics.json") if (results / "metrics.json").exists() else None,
        **({"similar": str(similar)} if shows_similar else {}),
        # The periods stage's periods, where the package reads them (an earlier one set them itself).
        **(
            {
                "periods_table": str(results / "periods/papers.csv"),
                "periods_settings": str(results / "periods/periods.json"),
            }
            if "periods_table" in accepted
            else {}
        ),
    )
    inputs = (
        report.load_report_inputs(files_type(**files)) if files_type else report.load_report_inputs(**files)
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(report.build_report(inputs, title="auto", hover_chars=200), encoding="utf-8")
    return path


def _median(values: list) -> float | None:
    done = [v for v in values if v is not None]
    return statistics.median(done) if len(done) == len(values) and done else None


def _table(comparison: dict) -> str:
    def seconds(value, digits=2):
        return "did not load" if value is None else f"{value:.{digits}f}"

    lines = [
        "| Report | Version | File (MB) | Load: map + first screen (s) | / 38-paper report's "
        "| Every chart drawn (s) | / 38-paper report's | Search, key to list + map (ms, median / max) "
        "| Names searchable (s after navigation) | All searchable (s after navigation) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, versions in comparison["reports"].items():
        for version, row in versions.items():
            base = comparison["reports"]["shipped (38 papers)"][version]
            ratio = f"{row['load_s'] / base['load_s']:.2f}" if row["load_s"] and base["load_s"] else "–"
            all_ratio = f"{row['all_s'] / base['all_s']:.2f}" if row["all_s"] and base["all_s"] else "–"
            search = (
                f"{1000 * statistics.median(row['search_s']):.0f} / {1000 * max(row['search_s']):.0f}"
                if row.get("search_s")
                else "did not finish"
                if row["load_s"]
                else "–"
            )
            names = seconds(row["names_s"]) if row.get("names_s") else "–"
            ready = seconds(row["ready_s"]) if row.get("ready_s") else "–"
            lines.append(
                f"| {name} | {version} | {row['mb']:.1f} | {seconds(row['load_s'])} | {ratio} | "
                f"{seconds(row['all_s'])} | {all_ratio} | {search} | {names} | {ready} |"
            )
    return "\n".join(lines)


def _markdown(comparisons: list[dict]) -> str:
    """bench/report.md: every comparison recorded, the latest first."""
    sections = ["# The report at 38, 10,000 and 100,000 papers\n"]
    for comparison in comparisons:
        sections.append(f"## {comparison['title']}\n\n{comparison['note']}\n\n{_table(comparison)}\n")
    return "\n".join(sections)


def _embedding_backend(results: Path) -> str:
    """What the embed stage's ``auto`` picked for the shipped dumps (from its logs)."""
    logs = results / "logs"
    for log in [logs / "embed.log", *sorted((logs / "embed").rglob("*.log"))]:
        if not log.is_file():
            continue
        found = re.search(r"embedded now \((\S+ on \S+)\)", log.read_text(encoding="utf-8"))
        if found:
            return found.group(1)
    return "unknown (no embed log)"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser(
        "build", help="build one report (in the process whose package is on PYTHONPATH)"
    )
    build.add_argument("--output", type=Path, required=True)
    build.add_argument("--papers", type=int)
    build.add_argument("--topics", type=int, default=150)
    build.add_argument("--groups", type=int, default=15)
    build.add_argument(
        "--shipped-results", type=Path, help="rebuild the shipped dumps' report from these stage outputs"
    )
    run = commands.add_parser("run", help="build every report with both packages and open them in Chromium")
    run.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    run.add_argument(
        "--results", type=Path, default=REPO / "results", help="the shipped dumps' stage outputs"
    )
    run.add_argument(
        "--before", type=Path, required=True, help="folder holding the package of main (papertopics/)"
    )
    run.add_argument("--before-commit", default="main", help="the commit of main that --before holds")
    run.add_argument("--scratch", type=Path, required=True)
    run.add_argument("--runs", type=int, default=3)
    run.add_argument("--timeout", type=float, default=300)
    run.add_argument("--keep", action="store_true", help="reuse the reports already in --scratch")
    run.add_argument(
        "--title", default="The report explored like a paper explorer", help="what the comparison measures"
    )
    args = parser.parse_args()

    if args.command == "build":
        if args.shipped_results:
            _shipped_report(args.shipped_results, args.output)
        else:
            build_synthetic_report(args.output, args.papers, args.topics, args.groups)
        return

    after_root = REPO / "workflow"
    reports: dict[str, dict[str, Path]] = {}
    for version, root in (("before (main)", args.before), ("after", after_root)):
        folder = args.scratch / version.split()[0]
        shipped = folder / "shipped.html"
        if not (args.keep and shipped.exists()):
            _build_with(root, ["--shipped-results", str(args.results.resolve())], shipped)
        reports.setdefault("shipped (38 papers)", {})[version] = shipped
        for size in args.sizes:
            path = folder / f"synthetic-{size}.html"
            if not (args.keep and path.exists()):
                started = time.perf_counter()
                _build_with(root, ["--papers", str(size)], path)
                print(f"{version}: {size} papers built in {time.perf_counter() - started:.0f} s", flush=True)
            reports.setdefault(f"synthetic {size:,} papers, 150 topics", {})[version] = path

    from playwright.sync_api import sync_playwright

    measured: dict[str, dict[str, dict]] = {
        name: {v: {"mb": p.stat().st_size / 1e6, "loads": []} for v, p in vs.items()}
        for name, vs in reports.items()
    }
    words = ["network", "vogro"]
    load_average = [os.getloadavg()]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        context = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
        for run_number in range(args.runs):  # interleaved: every report once per round
            for name, versions in reports.items():
                for version, path in versions.items():
                    row = measured[name][version]
                    if run_number and row["loads"] and row["loads"][-1] is None:
                        continue  # it did not load once; no use waiting again
                    row["loads"].append(load_seconds(context, path, args.timeout))
                    print(f"{name} / {version}: load {row['loads'][-1]}", flush=True)
        for name, versions in reports.items():
            for version, path in versions.items():
                row = measured[name][version]
                for key, field in (
                    ("load_s", "first"),
                    ("all_s", "all"),
                    ("names_s", "names"),
                    ("ready_s", "ready"),
                ):
                    row[key] = _median([load and load[field] for load in row["loads"]])
                if row["load_s"] is not None:
                    try:
                        row["search_s"] = search_seconds(context, path, words, args.timeout)
                    except Exception as error:  # a search that never finished is a result too
                        print(f"{name} / {version}: search did not finish: {error}", flush=True)
        version_line = browser.version
        context.close()
        browser.close()
    load_average.append(os.getloadavg())
    title = f"{args.title}: main {args.before_commit} (before) against this change (after)"
    note = (
        f"`make bench-report`: headless Chromium {version_line} (software WebGL, network blocked) "
        f"on a machine shared with others, {os.cpu_count()} cores, load average (1 / 5 / 15 min) "
        f"{' / '.join(f'{v:.1f}' for v in load_average[0])} at the start and "
        f"{' / '.join(f'{v:.1f}' for v in load_average[1])} at the end; "
        f"{args.runs} loads per report interleaved (median). Load = navigation start to the map and "
        "the charts on the first screen drawn (charts further down may be drawn when scrolled to); "
        "every chart drawn = the same, scrolling to every chart at once after load; names searchable "
        "and all searchable = navigation start to the page marking that it can search the papers' "
        "names, and names and abstracts (charts scrolled through meanwhile, as above); search = "
        "keystroke to the frame after the result list and map are updated, every key of "
        f"{', '.join(words)}, once all is searchable. Synthetic reports: stage outputs made up without "
        "any model (bench/report_bench.py), BERTopic's figures fitted on them; the shipped report is "
        "rebuilt from `make run`'s stage outputs (embeddings: `auto` picked "
        f'{_embedding_backend(args.results)}). "before" builds them with main\'s package at '
        f"{args.before_commit}."
    )
    latest = {
        "title": title,
        "note": note,
        "chromium": version_line,
        "runs": args.runs,
        "search_words": words,
        "load_average": load_average,
        "reports": measured,
    }
    stored = REPO / "bench" / "report.json"
    earlier = json.loads(stored.read_text(encoding="utf-8"))["comparisons"] if stored.exists() else []
    comparisons = [latest] + [c for c in earlier if c["title"] != title]
    stored.write_text(json.dumps({"comparisons": comparisons}, indent=2) + "\n", encoding="utf-8")
    (REPO / "bench" / "report.md").write_text(_markdown(comparisons), encoding="utf-8")
    print(_table(latest))


if __name__ == "__main__":
    main()
