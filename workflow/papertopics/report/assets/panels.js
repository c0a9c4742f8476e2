// The panels beside and below the map: the paper shown (with its similar papers) and the papers
// selected on the map (their distinctive words, a CSV of them).
import { element, paperMeta, save } from "./dom.js";
import { csvField } from "./text.js";

export const SELECTION_LISTED = 100;
const DISTINCTIVE_WORDS = 20;

const DOI = /^10\.\d{4,9}\/\S+$/;

// A paper's authors, venue, keywords and DOI (papers.csv's columns, as the exports give them), each
// a line of text where the paper has it; the DOI a link to doi.org.
export function detailLines(details) {
  const lines = [];
  const line = (label, ...content) => element("p", { className: "paper-detail" }, element("span", { className: "hint", textContent: `${label}: ` }), ...content);
  if (details.authors) { lines.push(line("Authors", details.authors)); }
  if (details.venue) { lines.push(line("Venue", details.venue)); }
  if (details.keywords) { lines.push(line("Keywords", details.keywords)); }
  if (details.doi) {
    const doi = details.doi.trim();
    lines.push(line("DOI", DOI.test(doi)
      ? element("a", { href: `https://doi.org/${encodeURI(doi)}`, rel: "noopener noreferrer", target: "_blank", textContent: doi })
      : doi));
  }
  return lines;
}

// The paper panel. ``detailsOf(paper)`` resolves with its whole abstract and its details
// ({ abstract, details }), ``similarOf()`` with the function giving a paper's similar papers;
// ``onShown(paper)``.
export function createPaperPanel(panel, map, { detailsOf, similarOf, onShown }) {
  let shown = null;

  function fill(paper, { abstract: abstractText, details }, similarTo) {
    const topic = map.topics[map.topic[paper]];
    const periods = map.periodsOf(paper).map((period) => map.periods.names[period]);
    const where = map.periods.by === "year" && periods.length ? `${periods.join(", ")} · ${map.dumps[paper]}` : map.dumps[paper];
    const children = [
      element("h3", { textContent: map.names[paper] }),
      element("p", { className: "hint", textContent: `${where} · topic ${topic.topic}: ${topic.label}${map.outlier[paper] ? " (outlier)" : ""}` }),
      ...detailLines(details || {}),
      element("p", { className: "abstract", textContent: abstractText }),
    ];
    const url = map.urls[paper];
    // The page only ever receives http(s) links (see web_link); checked again before use.
    if (url && /^https?:\/\//i.test(url)) {
      children.push(element("a", { href: url, rel: "noopener noreferrer", target: "_blank", textContent: url }));
    }
    const similar = similarTo(paper);
    if (similar.length) {
      const items = similar.map((other) => {
        const item = element("li", {}, element("span", { className: "name", textContent: map.names[other] }), " ",
          paperMeta(map, other));
        item.dataset.id = map.ids[other];
        item.tabIndex = 0;
        item.addEventListener("click", () => show(other));
        item.addEventListener("keydown", (event) => { if (event.key === "Enter") { show(other); } });
        return item;
      });
      children.push(element("h4", { textContent: "Similar papers" }), element("ol", { className: "similar" }, ...items));
    }
    panel.replaceChildren(...children);
    panel.dataset.paper = map.ids[paper];  // tests wait on it
  }

  function show(paper) {
    shown = paper;
    onShown(paper);
    Promise.all([detailsOf(paper), similarOf()]).then(([paperDetails, similarTo]) => {
      if (shown === paper) { fill(paper, paperDetails, similarTo); }
    });
  }
  return { show };
}

// The selection's papers, most central first: nearest the middle of the selection on the map.
export function byCentrality(map, papers) {
  const median = (values) => {
    const sorted = Float64Array.from(values).sort();
    return sorted.length ? sorted[sorted.length >> 1] : 0;
  };
  const cx = median(papers.map((p) => map.x[p])), cy = median(papers.map((p) => map.y[p]));
  const distance = (p) => (map.x[p] - cx) ** 2 + (map.y[p] - cy) ** 2;
  return papers.slice().sort((a, b) => distance(a) - distance(b) || a - b);
}

// The selection as CSV: one row per paper, most central first.
export function selectionCsv(map, papers, abstracts) {
  const header = ["id", "display_name", "dumps", map.periods.by, "topic", "topic_label", "outlier", "url", "x", "y", "abstract"];
  const rows = papers.map((paper, i) => {
    const topic = map.topics[map.topic[paper]];
    return [map.ids[paper], map.names[paper], map.dumps[paper],
      map.periodsOf(paper).map((period) => map.periods.names[period]).join(", "),
      topic.topic, topic.label, map.outlier[paper] ? "true" : "false", map.urls[paper] || "",
      map.x[paper], map.y[paper], abstracts[i]];
  });
  return [header].concat(rows).map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

// The selection panel. ``engine``: the search engine's client; ``showPaper(paper)``.
export function createSelectionPanel(container, map, { engine, showPaper }) {
  let current = null;

  async function exportCsv(papers) {
    const answer = await engine.request({ type: "abstracts", papers });
    save(new Blob([selectionCsv(map, papers, answer.texts)], { type: "text/csv;charset=utf-8" }), "selection.csv");
  }

  function show(papers) {
    current = papers;
    if (papers === null || papers.length === 0) {
      container.hidden = true;
      container.replaceChildren();
      return;
    }
    const ranked = byCentrality(map, papers);
    const words = element("ul", { className: "distinctive" }, element("li", { className: "hint", textContent: "…" }));
    const button = element("button", { type: "button", textContent: "Export selection as CSV" });
    button.dataset.export = "selection";
    button.addEventListener("click", () => exportCsv(ranked));
    const items = ranked.slice(0, SELECTION_LISTED).map((paper) => {
      const item = element("li", {}, element("span", { className: "name", textContent: map.names[paper] }), " ", paperMeta(map, paper));
      item.dataset.id = map.ids[paper];
      item.addEventListener("click", () => showPaper(paper));
      return item;
    });
    container.replaceChildren(
      element("h3", { textContent: `Selection: ${papers.length} papers` }),
      element("p", { className: "hint", textContent: "Words these papers use more than the others do:" }),
      words, button,
      element("p", { className: "hint", textContent: papers.length > SELECTION_LISTED
        ? `The ${SELECTION_LISTED} papers nearest the middle of the selection:` : "Nearest the middle of the selection first:" }),
      element("ol", { className: "selected" }, ...items));
    container.hidden = false;
    engine.request({ type: "words", papers: Int32Array.from(papers), count: DISTINCTIVE_WORDS }).then((answer) => {
      if (current !== papers) { return; }
      words.replaceChildren(...answer.words.map((word) =>
        element("li", { textContent: word.word, title: `in ${word.papers} of the selected papers` })));
      if (!answer.words.length) { words.append(element("li", { className: "hint", textContent: "none stands out" })); }
      container.dataset.words = answer.complete ? "complete" : "so far";  // tests wait on it
    });
  }
  return { show };
}
