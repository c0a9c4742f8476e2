import assert from "node:assert/strict";
import { test } from "node:test";

import { gunzipBase64, gunzipInt32s, mapOfPapers, parseCsv, similarPapers } from "../../workflow/papertopics/report/assets/unpack.js";
import { csv, gzipBase64 } from "./helpers.js";

test("gzip in base64 unpacks to the text packed, characters beyond ASCII too", async () => {
  const text = "Graphs, 図表 and émigrés\n".repeat(5000);
  assert.equal(await gunzipBase64(gzipBase64(text)), text);
});

test("little-endian 32-bit integers unpack in order, negative ones too", async () => {
  const values = Int32Array.from([0, 1, -1, 123456789, -2147483648, 2147483647]);
  const bytes = Buffer.alloc(4 * values.length);
  values.forEach((value, i) => bytes.writeInt32LE(value, 4 * i));
  assert.deepEqual(Array.from(await gunzipInt32s(gzipBase64(bytes))), Array.from(values));
});

test("the papers' table parses as pandas writes it: quotes, commas, line breaks and empty fields", async () => {
  const rows = [
    { id: "a", abstract: 'Says "hi", then goes on', topic: 1 },
    { id: "b", abstract: "Two\nlines, and\r\nCRLF", topic: -1 },
    { id: "c", abstract: "", topic: 0 },
  ];
  const parsed = await parseCsv(csv(rows));
  assert.deepEqual(parsed, [["id", "abstract", "topic"], ["a", 'Says "hi", then goes on', "1"],
    ["b", "Two\nlines, and\r\nCRLF", "-1"], ["c", "", "0"]]);
});

test("a table read in slices pauses between them and parses the same", async () => {
  const rows = Array.from({ length: 3000 }, (_, i) => ({ id: `p${i}`, abstract: `words, "quoted" ${i}\nmore` }));
  let pauses = 0;
  const sliced = await parseCsv(csv(rows), { sliceMs: 0, pause: () => { pauses++; return Promise.resolve(); } });
  assert.ok(pauses > 1);
  assert.deepEqual(sliced, await parseCsv(csv(rows)));
});

test("a paper's periods are its first and its further ones; a paper without a year has none", () => {
  const map = mapOfPapers({ ids: ["a", "b", "c"], periods: { of_paper: [0, 1, -1], more: { 1: [2] } } });
  assert.deepEqual([0, 1, 2].map((paper) => map.periodsOf(paper)), [[0], [1, 2], []]);
});

test("a paper's further topics are read by its row, none where it has none or the map has none", () => {
  const map = mapOfPapers({ ids: ["a", "b", "c"], periods: { of_paper: [0, 0, 0], more: {} }, further: { 0: [2, 1], 2: [0] } });
  assert.deepEqual([0, 1, 2].map((paper) => map.furtherTopicsOf(paper)), [[2, 1], [], [0]]);
  const older = mapOfPapers({ ids: ["a"], periods: { of_paper: [0], more: {} } });
  assert.deepEqual(older.furtherTopicsOf(0), []);
});

test("similar papers are read per paper, the padding left out", () => {
  const similarOf = similarPapers(Int32Array.from([1, 2, 0, -1, 1, 0]), 2);
  assert.deepEqual([0, 1, 2].map(similarOf), [[1, 2], [0], [1, 0]]);
});
