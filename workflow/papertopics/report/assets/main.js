// The report page's script: bundled with the modules it imports into one script (report/bundle.py).
import { drawChartsWhenSeen } from "./charts.js";
import { startEngine } from "./engine-client.js";
import { wireFilters } from "./filters.js";
import { blockText, parsed, unpackInt32s, unpackJson } from "./page-data.js";
import { createPaperMap } from "./paper-map.js";
import { createPaperPanel, createSelectionPanel } from "./panels.js";
import { wireSearch } from "./search-panel.js";
import { wireDownloads, wireTables } from "./tables.js";
import { wireTopicPapers } from "./topic-papers.js";
import { plotlyText, wrapped } from "./text.js";
import { mapOfPapers, similarPapers } from "./unpack.js";

const HOVER_LINE_CHARS = 70;

function whenIdle(callback) {
  if (window.requestIdleCallback) { requestIdleCallback(callback, { timeout: 3000 }); } else { setTimeout(callback, 0); }
}

// A paper's name, period or dumps, topic and the topics it is also about; once the engine has sent
// them, its abstract's first words too.
function hoverTexts(map, snippets) {
  return map.ids.map((_id, paper) => {
    const topic = map.topics[map.topic[paper]];
    const periods = map.periods.by === "year" ? map.periodsOf(paper).map((p) => map.periods.names[p]).concat([""]).join(" · ") : "";
    const further = map.furtherTopicsOf(paper).map((t) => map.topics[t].label);
    const also = further.length ? `<br>${plotlyText(`also about: ${further.join("; ")}`)}` : "";
    const head = `<b>${plotlyText(map.names[paper])}</b><br>${plotlyText(`${periods}${map.dumps[paper]} · ${topic.label}`)}${also}`;
    if (snippets === null) { return head; }
    return [head].concat(wrapped(snippets[paper], HOVER_LINE_CHARS).map(plotlyText)).join("<br>");
  });
}

function startReport(mapDiv) {
  const mapData = unpackJson(mapDiv.dataset.map).then(mapOfPapers);
  // The similar papers are unpacked once the map is drawn and the page is idle, or when a paper is
  // shown before that: the map comes first.
  let similarLoaded = null;
  function similarOf() {
    similarLoaded ??= Promise.all([mapData, unpackInt32s("similar-papers")])
      .then(([map, indices]) => similarPapers(indices, map.similar_count));
    return similarLoaded;
  }
  let engine = null, engineStarted = null, kept = null;

  function onEngineEvent(message) {
    if (message.type === "snippets") {
      // The hover snippets (a second of work at 100,000 papers, and a redraw of the map) wait for
      // a moment the page is idle: the charts being drawn come first.
      whenIdle(async () => {
        const [map, paperMap] = await Promise.all([mapData, mapDrawn]);
        if (message.snippets) { await paperMap.setHoverTexts(hoverTexts(map, message.snippets)); }
        mapDiv.dataset.hoverSnippets = "true";  // tests wait on it
      });
    } else if (message.type === "names indexed") {
      document.body.dataset.namesSearchable = "true";  // the benchmark and tests wait on it
    } else if (message.type === "ready") {
      document.body.dataset.searchReady = "true";
      searchPanel.search();  // a query answered before the abstracts were indexed is answered again, in full
    }
  }

  // The engine starts as soon as the map's data is unpacked, with the papers' names; the papers'
  // table (abstracts) follows once the page is read.
  function startSearch() {
    if (!engineStarted) {
      engineStarted = mapData.then(async (map) => {
        engine = startEngine(await blockText("search-worker"), onEngineEvent);
        engine.send({ type: "papers", names: map.names, topicOf: map.topic, topicTexts: map.topics.map((t) => t.search_text) });
        if (kept !== null) { engine.send({ type: "filter", allowed: kept }); }
        return engine;
      });
      Promise.all([mapData, engineStarted, parsed]).then(async ([map]) => {
        engine.send({ type: "table", csv: await blockText("papers-csv"), hoverChars: map.hover_chars });
      });
    }
    return engineStarted;
  }
  const engineClient = {
    started: () => engine !== null,
    request: async (message) => (await startSearch()).request(message),
  };

  // The engine slows down while charts are being drawn (see createSearchEngine's pause).
  let chartsBeingDrawn = 0;
  function holdEngine(change) {
    const wasHeld = chartsBeingDrawn > 0;
    chartsBeingDrawn += change;
    if (wasHeld !== chartsBeingDrawn > 0) {
      startSearch().then(() => engine.send({ type: "hold", held: chartsBeingDrawn > 0 }));
    }
  }

  function abstractOf(paper) {
    return engineClient.request({ type: "abstracts", papers: [paper] }).then((answer) => answer.texts[0]);
  }
  function detailsOf(paper) {
    return engineClient.request({ type: "details", paper });
  }

  let paperMap = null, paperPanel = null, selectionPanel = null, filters = null;
  const mapDrawn = mapData.then(async (map) => {
    paperPanel = createPaperPanel(document.getElementById("paper-panel"), map, {
      detailsOf, similarOf, onShown: (paper) => paperMap.setShownPaper(paper),
    });
    selectionPanel = createSelectionPanel(document.getElementById("selection"), map, {
      engine: engineClient, showPaper: (paper) => paperPanel.show(paper),
    });
    filters = wireFilters(map, ({ colours, kept: nowKept }) => {
      kept = nowKept;
      paperMap.setColours(colours);
      if (engine !== null) { engine.send({ type: "filter", allowed: kept }); }
      if (searchPanel.box.value) { searchPanel.search({ again: true }); }
    });
    paperMap = createPaperMap(mapDiv, map, {
      hoverTexts: () => hoverTexts(map, null),
      colours: filters.colours(),
      onPaperClicked: (paper) => paperPanel.show(paper),
      onSelected: (papers) => selectionPanel.show(papers && papers.filter((paper) => kept === null || kept[paper])),
    });
    await paperMap.draw();
    return paperMap;
  });

  const searchPanel = wireSearch(mapData, engineClient, {
    whenReady: () => Promise.all([startSearch(), mapDrawn]),
    showFound: (papers) => paperMap.setFound(papers),
    filterByTopic: (position) => filters.showTopic(position),
    showPaper: (paper) => paperPanel.show(paper),
    filtered: () => kept !== null,
  });
  searchPanel.box.addEventListener("focus", startSearch);
  if (searchPanel.box.value) { searchPanel.search(); }  // typed while the page was still being read

  document.querySelectorAll("details.paper[data-index]").forEach((details) => {
    details.addEventListener("toggle", () => {
      if (details.open) {
        abstractOf(Number(details.dataset.index)).then((text) => { details.querySelector("p").textContent = text; });
      }
    });
  });
  wireTopicPapers(mapData, abstractOf);
  mapDrawn.then(() => {
    drawChartsWhenSeen(holdEngine);
    whenIdle(similarOf);
  });
  // The search engine reads the papers' table beside the drawing of the map (in its worker).
  startSearch();
}

wireTables();
wireDownloads();
const mapDiv = document.getElementById("document-map");
if (mapDiv) { startReport(mapDiv); } else { drawChartsWhenSeen(() => {}); }
