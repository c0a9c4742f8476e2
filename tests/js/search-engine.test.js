import assert from "node:assert/strict";
import { test } from "node:test";

import { createSearchEngine, TITLE_WEIGHT } from "../../workflow/papertopics/report/assets/search-engine.js";
import { csv, gzipBase64 } from "./helpers.js";

// An engine given ``papers`` ({ name, abstract, topic }) and ``topics`` (their search texts);
// ``withAbstracts``: the papers' table sent too.
function engineOf(papers, topics, { withAbstracts = true, sliceMs = 20 } = {}) {
  const events = [], waiting = new Map();
  let nextId = 0, ready = null;
  const readyNow = new Promise((resolve) => { ready = resolve; });
  const receive = createSearchEngine((message) => {
    if (message.type === "reply") { waiting.get(message.id)(message); } else { events.push(message); }
    if (message.type === "ready") { ready(); }
  }, { sliceMs });
  receive({ type: "papers", names: papers.map((p) => p.name), topicOf: papers.map((p) => p.topic), topicTexts: topics });
  if (withAbstracts) {
    receive({ type: "table", csv: gzipBase64(csv(papers.map((p, i) => ({ id: `p${i}`, abstract: p.abstract })))), hoverChars: 20 });
  }
  return {
    events,
    ready: readyNow,
    send: receive,
    request(message) {
      return new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        receive({ ...message, id });
      });
    },
  };
}

const search = (engine, query, snippets = 10) =>
  engine.request({ type: "search", words: query.toLowerCase().split(" "), snippets });

const filler = (n) => Array.from({ length: n }, (_, i) => `word${i % 7}`).join(" ");

test("a paper with the query in its title outranks one with it only in its abstract", async () => {
  const papers = [
    { name: "A study of weather", abstract: `We look at graphs once. ${filler(40)}`, topic: 0 },
    { name: "Graphs of weather", abstract: `We look at clouds. ${filler(40)}`, topic: 0 },
    { name: "Unrelated", abstract: `Nothing here. ${filler(40)}`, topic: 0 },
  ];
  const engine = engineOf(papers, ["weather"]);
  await engine.ready;
  const answer = await search(engine, "graph");
  assert.deepEqual(Array.from(answer.papers), [1, 0]);
  assert.equal(answer.complete, true);
  assert.ok(TITLE_WEIGHT > 1);
});

test("more of the query in a paper of the same length ranks it higher; rarer words weigh more", async () => {
  const papers = [
    { name: "One", abstract: `neural ${filler(30)} graph`, topic: 0 },
    { name: "Two", abstract: `neural neural neural ${filler(28)} graph`, topic: 0 },
    { name: "Three", abstract: `neural ${filler(30)} graph graph graph`, topic: 0 },
    ...Array.from({ length: 20 }, (_, i) => ({ name: `Filler ${i}`, abstract: `neural ${filler(32)}`, topic: 0 })),
  ];
  const engine = engineOf(papers, ["x"]);
  await engine.ready;
  // "graph" is in 3 papers, "neural" in all: three graphs count more than three neurals.
  assert.deepEqual(Array.from((await search(engine, "graph neural")).papers), [2, 1, 0]);
});

test("every query word must match, each as the start of a word; letters and digits make words", async () => {
  const papers = [
    { name: "Subgraph mining", abstract: "Counting subgraphs.", topic: 0 },
    { name: "Graph-based models", abstract: "Graph models for 3D shapes.", topic: 0 },
    { name: "Graphs", abstract: "Nothing else here.", topic: 0 },
  ];
  const engine = engineOf(papers, [""]);
  await engine.ready;
  assert.deepEqual(Array.from((await search(engine, "graph")).papers).sort(), [1, 2]);
  assert.deepEqual(Array.from((await search(engine, "graph model")).papers), [1]);
  assert.deepEqual(Array.from((await search(engine, "3d")).papers), [1]);
});

test("a query word in a topic's label or keywords finds the topic's papers, after those that hold it", async () => {
  const papers = [
    { name: "Message passing on molecules", abstract: "We pass messages between atoms.", topic: 0 },
    { name: "A GNN for traffic", abstract: "Our GNN predicts traffic.", topic: 1 },
    { name: "Convolutions on images", abstract: "Pixels and filters.", topic: 1 },
    { name: "Oversmoothing", abstract: "Deep stacks of layers smooth features.", topic: 0 },
  ];
  const engine = engineOf(papers, ["graph neural networks gnn message passing", "computer vision images"]);
  await engine.ready;
  const answer = await search(engine, "gnn");
  assert.equal(answer.papers[0], 1);
  assert.deepEqual(Array.from(answer.papers.subarray(1)).sort(), [0, 3]);
  assert.deepEqual(answer.topics, [0]);
});

test("the filter keeps only the papers the page's filters keep", async () => {
  const papers = Array.from({ length: 6 }, (_, i) => ({ name: `Paper ${i}`, abstract: "graphs", topic: 0 }));
  const engine = engineOf(papers, [""]);
  await engine.ready;
  engine.send({ type: "filter", allowed: Uint8Array.from([1, 0, 1, 0, 0, 1]) });
  assert.deepEqual(Array.from((await search(engine, "graphs")).papers), [0, 2, 5]);
  engine.send({ type: "filter", allowed: null });
  assert.equal((await search(engine, "graphs")).papers.length, 6);
});

test("before the abstracts come, a query is answered from the titles and says so", async () => {
  const papers = [
    { name: "Graph learning", abstract: "About graphs.", topic: 0 },
    { name: "Other", abstract: "Also about graphs.", topic: 0 },
  ];
  const engine = engineOf(papers, [""], { withAbstracts: false });
  const early = await search(engine, "graph");
  assert.deepEqual(Array.from(early.papers), [0]);
  assert.equal(early.complete, false);
  assert.deepEqual(early.snippets, []);
  assert.deepEqual(engine.events.map((e) => e.type), ["names indexed"]);
});

test("abstracts indexed in slices answer a query meanwhile from what is indexed so far", async () => {
  const papers = Array.from({ length: 400 }, (_, i) => ({ name: `Paper ${i}`, abstract: `graphs ${filler(50)}`, topic: 0 }));
  const engine = engineOf(papers, [""], { sliceMs: 0 });
  let answer;
  for (;;) {  // until an answer comes from a partial index; a query is a message, as from the page
    await new Promise((resolve) => { setTimeout(resolve, 0); });
    answer = await search(engine, "graphs");
    if (answer.complete || (answer.indexed > 0 && answer.indexed < 1)) { break; }
  }
  assert.equal(answer.complete, false, "the index was complete before a query came in between slices");
  assert.equal(answer.papers.length, Math.round(answer.indexed * 400));
  await engine.ready;
  assert.equal((await search(engine, "graphs")).papers.length, 400);
});

test("result snippets show the abstract around the first match; hover snippets its first words", async () => {
  const long = `${filler(60)} and then graphs appear ${filler(60)}`;
  const engine = engineOf([{ name: "Title", abstract: long, topic: 0 }], [""]);
  await engine.ready;
  const [snippet] = (await search(engine, "graph")).snippets;
  assert.match(snippet, /^….*then graphs appear.*…$/);
  assert.ok(snippet.length < long.length);
  const hover = engine.events.find((e) => e.type === "snippets").snippets[0];
  assert.ok(long.startsWith(hover.slice(0, -1)) && hover.endsWith("…") && hover.length <= 21);
});

test("a selection's distinctive words are those its papers use more than the rest do", async () => {
  const papers = [
    ...Array.from({ length: 30 }, (_, i) => ({ name: `Paper ${i}`, abstract: `the quantum qubits circuit of ${filler(10)}`, topic: 0 })),
    ...Array.from({ length: 60 }, (_, i) => ({ name: `Paper ${30 + i}`, abstract: `the protein folding of cells ${filler(10)}`, topic: 1 })),
  ];
  const engine = engineOf(papers, ["", ""]);
  await engine.ready;
  const answer = await engine.request({ type: "words", papers: Int32Array.from({ length: 30 }, (_, i) => i), count: 5 });
  const words = answer.words.map((w) => w.word);
  assert.deepEqual(words.slice(0, 3).sort(), ["circuit", "quantum", "qubits"]);
  assert.ok(!words.includes("the") && !words.includes("of"), words);
  assert.equal(answer.words[0].papers, 30);
});

test("whole abstracts are sent as asked, also when asked for before the table is read", async () => {
  const papers = [{ name: "A", abstract: "First abstract.", topic: 0 }, { name: "B", abstract: "Second, \"quoted\".", topic: 0 }];
  const engine = engineOf(papers, [""], { withAbstracts: false });
  const asked = engine.request({ type: "abstracts", papers: [1, 0] });
  engine.send({ type: "table", csv: gzipBase64(csv(papers.map((p, i) => ({ id: `p${i}`, abstract: p.abstract })))), hoverChars: 0 });
  assert.deepEqual((await asked).texts, ["Second, \"quoted\".", "First abstract."]);
});

// Papers as the databases' exports give them: authors, venue, keywords and DOI in papers.csv.
function engineWithDetails(papers) {
  const engine = engineOf(papers, [""], { withAbstracts: false });
  const rows = papers.map((p, i) => ({ id: `p${i}`, abstract: p.abstract, authors: p.authors, venue: p.venue, keywords: p.keywords, doi: p.doi }));
  engine.send({ type: "table", csv: gzipBase64(csv(rows)), hoverChars: 0 });
  return engine;
}

test("a paper's authors and keywords find it; its venue and DOI do not, nor do they make distinctive words", async () => {
  const papers = [
    { name: "Routing experts", abstract: `We route tokens. ${filler(20)}`, authors: "Müller, Jörg; García, Ana", venue: "NeurIPS", keywords: "mixture of experts; robustness", doi: "10.5555/1", topic: 0 },
    { name: "Counting cells", abstract: `We count nuclei. ${filler(20)}`, authors: "O'Neill, Siobhan", venue: "Medical Image Analysis", keywords: "weak supervision", doi: "", topic: 0 },
    ...Array.from({ length: 4 }, (_, i) => ({ name: `Other ${i}`, abstract: `Nothing of the kind. ${filler(20)}`, authors: "Roe, Richard", venue: "", keywords: "", doi: "", topic: 0 })),
  ];
  const engine = engineWithDetails(papers);
  await engine.ready;
  assert.deepEqual(Array.from((await search(engine, "müller")).papers), [0]);
  assert.deepEqual(Array.from((await search(engine, "robustness")).papers), [0]);
  assert.deepEqual(Array.from((await search(engine, "weak supervision")).papers), [1]);
  assert.deepEqual(Array.from((await search(engine, "neurips")).papers), []);
  assert.deepEqual(Array.from((await search(engine, "richard")).papers), [2, 3, 4, 5]);
  const words = (await engine.request({ type: "words", papers: Int32Array.from([2, 3, 4, 5]), count: 10 })).words.map((w) => w.word);
  assert.ok(!words.includes("richard") && !words.includes("roe"), words);
});

test("a paper's details come with its abstract, empty where the table has no such column", async () => {
  const papers = [{ name: "A", abstract: "First abstract.", authors: "Ada Lovelace", venue: "J", keywords: "k1; k2", doi: "10.1/x", topic: 0 }];
  const answer = await engineWithDetails(papers).request({ type: "details", paper: 0 });
  assert.deepEqual(answer.details, { authors: "Ada Lovelace", venue: "J", keywords: "k1; k2", doi: "10.1/x" });
  assert.equal(answer.abstract, "First abstract.");
  const plain = engineOf([{ name: "B", abstract: "Plain.", topic: 0 }], [""]);
  assert.deepEqual(await plain.request({ type: "details", paper: 0 }), { type: "reply", id: 0, abstract: "Plain.", details: {} });
});
