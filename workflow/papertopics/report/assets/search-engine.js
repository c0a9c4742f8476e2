// The search engine: every word of every title (the paper's display name) and abstract, indexed
// once, and queries ranked by BM25F. No use of the page: it runs in a worker (worker.js), or on
// the page where the browser gives none. ``post(message, transfer)`` sends a message to the page;
// the function returned takes the page's messages.
//
// Ranking: BM25 over one document per paper whose term counts are its title's, weighted
// TITLE_WEIGHT, plus its abstract's (the simple BM25F of Robertson, Zaragoza and Taylor 2004:
// field weights applied to the counts, one length normalisation), with a query word counting every
// indexed word it starts ("graph" counts "graphs"). A paper matches when each query word is in its
// title or abstract, or in its topic's label or keywords: such a paper counts the word
// TOPIC_WEIGHT times, so that "GNN" finds the papers of the graph-neural-network topic, after
// those that say GNN. A paper's authors and keywords (where papers.csv has those columns, as the
// databases' exports give them) are a third field, counted as its abstract's words are, so that a
// name or a keyword finds the paper; they are not among a selection's distinctive words.
//
// Titles are indexed as soon as they come, abstracts once the papers' table comes and is
// unpacked; until then a query is answered from what is indexed, marked incomplete. The engine
// keeps the abstracts: the page gets their first words for the hover labels and a paper's whole
// abstract when it asks (the page receiving all 100,000 of them held up its drawing for seconds).
import { gunzipBase64, parseCsv } from "./unpack.js";
import { firstWords, snippetAround, wordsOf } from "./text.js";

// The papers.csv columns a paper's panel shows beside its abstract; AUTHORS_AND_KEYWORDS are searched too.
export const DETAIL_COLUMNS = ["authors", "venue", "keywords", "doi"];
const AUTHORS_AND_KEYWORDS = ["authors", "keywords"];

export const TITLE_WEIGHT = 3;
export const TOPIC_WEIGHT = 1;
const K1 = 1.2;
const B = 0.75;
const MAX_COUNT = 255;  // a word's count in one field, stored in a posting's low 8 bits
const SNIPPET_CHARS = 200;
// Distinctive words of a selection: weighted log-odds with an informative Dirichlet prior (Monroe,
// Colaresi and Quinn 2008) of the papers holding a word, in the selection against the rest; the
// prior is the whole corpus's counts scaled to PRIOR_WEIGHT word-papers.
const PRIOR_WEIGHT = 1000;
const MIN_WORD_CHARS = 3;
const MIN_Z = 1.96;

export function createSearchEngine(post, { sliceMs = 20 } = {}) {
  // word -> postings (paper * 256 + the word's count in the field), ascending by paper
  const titleIndex = new Map(), abstractIndex = new Map(), detailIndex = new Map();
  let sortedWords = null;  // the indexed words sorted; null after a new word is indexed
  let papers = 0, abstractsIndexed = 0, complete = false;
  let titleLength = null, abstractLength = null, weightedLength = 0;
  let topicWords = [], topicPapers = [];
  let abstracts = null, details = null;  // details: { column: values in paper order } of DETAIL_COLUMNS present
  let waitingForAbstracts = [];
  let allowed = null;  // Uint8Array: the papers the page's filters keep; null: all

  // Long work is done in slices of sliceMs, with a pause between them in which a message is
  // answered; a message, unlike setTimeout, is not delayed by the browser between slices.
  // While the page is drawing a chart it holds the engine, which then rests a slice's length
  // after each slice: on two busy cores the engine's work slows the drawing down, and stopping it
  // outright until the charts are drawn would delay a search on a large corpus for nothing
  // (bench/one-off-measurements.md, "The report's search engine beside the drawing").
  let held = false;
  function pause() {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        if (held) { setTimeout(resolve, sliceMs); } else { resolve(); }
      };
      channel.port2.postMessage(null);
    });
  }

  // Index a field's words for ``paper``, papers coming in ascending order (so that a word's
  // posting for this paper, if any, is its last); returns how many words the field has.
  function index(fieldIndex, text, paper) {
    const words = wordsOf(text);
    for (const word of words) {
      const list = fieldIndex.get(word);
      if (list === undefined) {
        if (!titleIndex.has(word) && !abstractIndex.has(word) && !detailIndex.has(word)) { sortedWords = null; }
        fieldIndex.set(word, [paper * 256 + 1]);
        continue;
      }
      const last = list[list.length - 1];
      if (last >>> 8 !== paper) { list.push(paper * 256 + 1); }
      else if ((last & 255) < MAX_COUNT) { list[list.length - 1] = last + 1; }
    }
    return words.length;
  }

  async function indexAbstracts() {
    while (abstractsIndexed < papers) {
      const until = performance.now() + sliceMs;
      let i = abstractsIndexed;
      for (; i < papers && (i === abstractsIndexed || performance.now() < until); i++) {  // a paper a slice at least
        const searched = AUTHORS_AND_KEYWORDS.filter((column) => details[column]).map((column) => details[column][i]);
        abstractLength[i] = Math.min(index(abstractIndex, abstracts[i], i) + index(detailIndex, searched.join(" "), i), 65535);
        weightedLength += abstractLength[i];
      }
      abstractsIndexed = i;
      // Slices, so that a query that comes meanwhile is answered from what is indexed so far.
      if (i < papers) { await pause(); }
    }
    complete = true;
    words();  // sorted now, rather than at the next key typed
    post({ type: "ready" });
  }

  function words() {
    if (sortedWords === null) {
      sortedWords = Array.from(new Set([...titleIndex.keys(), ...abstractIndex.keys(), ...detailIndex.keys()])).sort();
    }
    return sortedWords;
  }

  function firstAtLeast(sorted, prefix) {
    let low = 0, high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (sorted[middle] < prefix) { low = middle + 1; } else { high = middle; }
    }
    return low;
  }

  function topicHas(topic, prefix) {
    return topicWords[topic].some((word) => word.startsWith(prefix));
  }

  // The papers holding every query word (or whose topic does), ranked, best first; and the
  // topics whose label or keywords hold every query word.
  function ranked(queryWords) {
    const sorted = words();
    const score = new Float64Array(papers), matched = new Uint8Array(papers), count = new Float32Array(papers);
    const averageLength = Math.max(weightedLength / Math.max(papers, 1), 1);
    let touched = [];
    queryWords.forEach((prefix, round) => {
      touched = [];
      const add = (paper, amount) => {
        if (count[paper] === 0) { touched.push(paper); }
        count[paper] += amount;
      };
      for (let w = firstAtLeast(sorted, prefix); w < sorted.length && sorted[w].startsWith(prefix); w++) {
        for (const posting of titleIndex.get(sorted[w]) || []) { add(posting >>> 8, TITLE_WEIGHT * (posting & 255)); }
        for (const posting of abstractIndex.get(sorted[w]) || []) { add(posting >>> 8, posting & 255); }
        for (const posting of detailIndex.get(sorted[w]) || []) { add(posting >>> 8, posting & 255); }
      }
      topicPapers.forEach((members, topic) => {
        if (topicHas(topic, prefix)) { for (const paper of members) { add(paper, TOPIC_WEIGHT); } }
      });
      const idf = Math.log(1 + (papers - touched.length + 0.5) / (touched.length + 0.5));
      for (const paper of touched) {
        const f = count[paper], length = TITLE_WEIGHT * titleLength[paper] + abstractLength[paper];
        if (matched[paper] === round) {
          matched[paper] = round + 1;
          score[paper] += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / averageLength));
        }
        count[paper] = 0;
      }
    });
    const found = Int32Array.from(touched.filter((paper) =>
      matched[paper] === queryWords.length && (allowed === null || allowed[paper])));
    found.sort((a, b) => score[b] - score[a] || a - b);
    const topics = [];
    topicWords.forEach((_, topic) => {
      if (queryWords.every((prefix) => topicHas(topic, prefix))) { topics.push(topic); }
    });
    return { found, topics };
  }

  // The words most typical of ``selection`` (paper indices) against the other papers.
  function distinctive(selection, wanted) {
    const inSelection = new Uint8Array(papers);
    for (const paper of selection) { inSelection[paper] = 1; }
    const seen = new Int32Array(papers).fill(-1);
    const candidates = [];
    let selectedTotal = 0, restTotal = 0;
    words().forEach((word, stamp) => {
      let all = 0, selected = 0;
      for (const posting of titleIndex.get(word) || []) {
        const paper = posting >>> 8;
        seen[paper] = stamp; all++; selected += inSelection[paper];
      }
      for (const posting of abstractIndex.get(word) || []) {
        const paper = posting >>> 8;
        if (seen[paper] !== stamp) { all++; selected += inSelection[paper]; }
      }
      selectedTotal += selected;
      restTotal += all - selected;
      if (selected >= 2 && word.length >= MIN_WORD_CHARS && !/^\d+$/.test(word)) {
        candidates.push({ word, all, selected });
      }
    });
    const total = selectedTotal + restTotal;
    const scored = candidates.map(({ word, all, selected }) => {
      const prior = PRIOR_WEIGHT * all / total, rest = all - selected;
      const delta = Math.log((selected + prior) / (selectedTotal + PRIOR_WEIGHT - selected - prior)) -
        Math.log((rest + prior) / (restTotal + PRIOR_WEIGHT - rest - prior));
      return { word, papers: selected, z: delta / Math.sqrt(1 / (selected + prior) + 1 / (rest + prior)) };
    });
    return scored.filter((w) => w.z > MIN_Z).sort((a, b) => b.z - a.z || (a.word < b.word ? -1 : 1)).slice(0, wanted);
  }

  function whenAbstracts(answer) {
    if (abstracts === null) { waitingForAbstracts.push(answer); } else { answer(); }
  }

  async function readTable(csv, hoverChars) {
    const rows = await parseCsv(await gunzipBase64(csv), { sliceMs, pause });
    const column = rows[0].indexOf("abstract");
    abstracts = rows.slice(1, papers + 1).map((row) => row[column]);
    details = {};
    for (const name of DETAIL_COLUMNS) {
      const at = rows[0].indexOf(name);
      if (at >= 0) { details[name] = rows.slice(1, papers + 1).map((row) => row[at] || ""); }
    }
    waitingForAbstracts.forEach((answer) => answer());
    waitingForAbstracts = [];
    post({ type: "snippets", snippets: hoverChars ? abstracts.map((text) => firstWords(text, hoverChars)) : null });
    await indexAbstracts();
  }

  const reply = (id, answer, transfer) => post({ type: "reply", id, ...answer }, transfer);

  return function receive(message) {
    if (message.type === "papers") {  // { names, topicOf, topicTexts }: in table order
      papers = message.names.length;
      titleLength = new Uint16Array(papers);
      abstractLength = new Uint16Array(papers);
      message.names.forEach((name, paper) => {
        titleLength[paper] = Math.min(index(titleIndex, name, paper), 65535);
        weightedLength += TITLE_WEIGHT * titleLength[paper];
      });
      topicWords = message.topicTexts.map(wordsOf);
      topicPapers = topicWords.map(() => []);
      message.topicOf.forEach((topic, paper) => { topicPapers[topic].push(paper); });
      post({ type: "names indexed" });
    } else if (message.type === "table") {  // { csv, hoverChars }: the papers' table, base64 of gzip
      readTable(message.csv, message.hoverChars);
    } else if (message.type === "hold") {  // { held }: whether the page is drawing
      held = message.held;
    } else if (message.type === "filter") {  // { allowed }: Uint8Array per paper, or null for all
      allowed = message.allowed;
    } else if (message.type === "abstracts") {  // { id, papers }: their whole abstracts, once read
      whenAbstracts(() => reply(message.id, { texts: Array.from(message.papers, (paper) => abstracts[paper]) }));
    } else if (message.type === "details") {  // { id, paper }: its abstract, authors, venue, keywords and DOI
      whenAbstracts(() => reply(message.id, {
        abstract: abstracts[message.paper],
        details: Object.fromEntries(Object.entries(details).map(([name, values]) => [name, values[message.paper]])),
      }));
    } else if (message.type === "search") {  // { id, words, snippets }: snippets for the first papers
      const { found, topics } = ranked(message.words);
      const snippets = abstracts === null ? [] : Array.from(found.subarray(0, message.snippets),
        (paper) => snippetAround(abstracts[paper], message.words, SNIPPET_CHARS));
      reply(message.id, { papers: found, topics, snippets, complete, indexed: abstractsIndexed / Math.max(papers, 1) },
        [found.buffer]);
    } else if (message.type === "words") {  // { id, papers, count }: a selection's distinctive words
      reply(message.id, { words: distinctive(message.papers, message.count), complete });
    }
  };
}
