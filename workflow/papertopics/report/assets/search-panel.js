// The search box and its results: the papers ranked by the search engine (search-engine.js),
// each with its period, topic and a snippet of its abstract, the matched words marked; the topics
// whose label or keywords hold the query, a click filtering by them; the found papers on the map.
import { element, marked, paperMeta, swatch } from "./dom.js";
import { searchWords } from "./text.js";

export const RESULTS_SHOWN = 100;  // the list shows the best papers; the map shows them all

// ``mapLoaded`` resolves with the map's data; ``whenReady()`` once the engine and the map are
// there; ``showFound(papers | null)`` shows the found papers on the map; ``filterByTopic(position)``;
// ``showPaper(paper)``; ``filtered()`` says whether a filter leaves papers out.
export function wireSearch(mapLoaded, engine, { whenReady, showFound, filterByTopic, showPaper, filtered }) {
  const box = document.getElementById("search-box");
  const list = document.getElementById("search-results");
  const count = document.getElementById("search-count");
  const topicsFound = document.getElementById("search-topics");
  let shown = { query: null, complete: false };
  let map = null;
  mapLoaded.then((loaded) => { map = loaded; });

  function countLine(found, answer) {
    return `${found.length} of ${map.ids.length} papers` + (filtered() ? " in the filter" : "") +
      (found.length > RESULTS_SHOWN ? ` (the first ${RESULTS_SHOWN} listed)` : "") +
      (answer.complete ? "" : ` so far: indexing abstracts… (${Math.floor(100 * answer.indexed)}%)`);
  }

  function resultItem(paper, words, snippet) {
    const item = element("li", {}, element("span", { className: "name" }, marked(map.names[paper], words)),
      " ", paperMeta(map, paper));
    if (snippet) { item.append(element("p", { className: "snippet" }, marked(snippet, words))); }
    item.dataset.id = map.ids[paper];
    item.addEventListener("click", () => showPaper(paper));
    return item;
  }

  function topicButtons(topics) {
    return topics.map((position) => {
      const topic = map.topics[position];
      const button = element("button", { type: "button", className: "topic-chip" }, swatch(topic.colour),
        `${topic.topic}: ${topic.label}`);
      button.dataset.topic = String(position);
      button.addEventListener("click", () => filterByTopic(position));
      return button;
    });
  }

  function show(query, words, answer) {
    if (answer === null) {
      list.replaceChildren();
      topicsFound.replaceChildren();
      count.textContent = "";
      showFound(null);
    } else {
      const found = answer.papers;
      count.textContent = countLine(found, answer);
      const topics = answer.topics;  // the outliers' group has no words to match
      topicsFound.replaceChildren(...(topics.length ? [element("span", { className: "hint", textContent: "Topics: " })] : []),
        ...topicButtons(topics));
      list.replaceChildren(...Array.from(found.subarray(0, RESULTS_SHOWN), (paper, rank) =>
        resultItem(paper, words, answer.snippets[rank])));
      showFound(found);
    }
    shown = { query, complete: answer === null || answer.complete };
    // What the page has searched for with the whole index (tests and the benchmark wait on it).
    if (shown.complete) { box.dataset.searched = query; }
  }

  // Searches run one after another, each on the box's value when its turn comes: keys typed while
  // one runs are answered together by the next.
  let searching = Promise.resolve();
  function search({ again = false } = {}) {
    searching = searching.then(async () => {
      const query = box.value;
      if (!again && shown.query === query && shown.complete) { return; }
      const words = searchWords(query);
      if (!words.length) { show(query, words, null); return; }
      if (!engine.started()) { count.textContent = "indexing…"; }
      await whenReady();
      show(query, words, await engine.request({ type: "search", words, snippets: RESULTS_SHOWN }));
    });
    return searching;
  }

  box.addEventListener("input", () => search());
  return { search, box };
}
