import assert from "node:assert/strict";
import { test } from "node:test";

import { pageRange, recordSpans, topicCsv } from "../../workflow/papertopics/report/assets/topic-csv.js";
import { csv } from "./helpers.js";

const ROWS = [
  { id: "a", abstract: 'Says "hi", then goes on', topic: 1 },
  { id: "b", abstract: "Two\nlines, and\r\nCRLF", topic: 2 },
  { id: "c", abstract: "", topic: 1 },
  { id: "d", abstract: '"Quoted" start, "" and end"', topic: 2 },
];

test("records split where a line ends outside quotes, line breaks inside a field kept", () => {
  const text = csv(ROWS);
  const records = recordSpans(text).map(([start, end]) => text.slice(start, end));
  assert.equal(records.length, ROWS.length + 1);
  assert.equal(records[0], "id,abstract,topic");
  assert.equal(records[2], 'b,"Two\nlines, and\r\nCRLF",2');
  assert.equal(records[4], 'd,"""Quoted"" start, """" and end""",2');
});

test("a topic's CSV is the header and its rows as the table holds them, in the table's order", () => {
  const text = csv(ROWS);
  // Asked most central first (3 then 1): written in the table's order, as pandas filters it.
  assert.equal(topicCsv(text, [3, 1]), csv([ROWS[1], ROWS[3]]));
  assert.equal(topicCsv(text, [2, 0]), csv([ROWS[0], ROWS[2]]));
  assert.equal(topicCsv(text, []), "id,abstract,topic\n");
});

test("CRLF line ends and a last line without one split the same", () => {
  const text = "id,topic\r\nx,1\r\ny,2";
  assert.equal(topicCsv(text, [1]), "id,topic\ny,2\n");
  assert.deepEqual(recordSpans(text), [[0, 8], [10, 13], [15, 18]]);
});

test("a row the table does not have is an error, not a short file", () => {
  assert.throws(() => topicCsv(csv(ROWS), [7]), /no row 7/);
});

test("pages of 25: the last one short, a page past either end is the nearest one", () => {
  assert.deepEqual(pageRange(60, 0, 25), { page: 0, pages: 3, first: 0, end: 25 });
  assert.deepEqual(pageRange(60, 2, 25), { page: 2, pages: 3, first: 50, end: 60 });
  assert.deepEqual(pageRange(60, 9, 25), { page: 2, pages: 3, first: 50, end: 60 });
  assert.deepEqual(pageRange(60, -1, 25), { page: 0, pages: 3, first: 0, end: 25 });
  assert.deepEqual(pageRange(0, 0, 25), { page: 0, pages: 1, first: 0, end: 0 });
});
