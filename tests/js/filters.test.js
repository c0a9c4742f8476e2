import assert from "node:assert/strict";
import { test } from "node:test";

import { keptPapers, paperColours } from "../../workflow/papertopics/report/assets/filters.js";
import { mapOfPapers } from "../../workflow/papertopics/report/assets/unpack.js";

// Four papers in two topics and two years; papers 0 and 2 by France (name 0), 2 and 3 by Oxford (name 1).
const map = mapOfPapers({
  ids: ["a", "b", "c", "d"],
  topic: [0, 0, 1, 1],
  periods: { of_paper: [0, 1, 1, 0], more: {} },
  people: { names: ["France", "University of Oxford"], of_paper: [[0], [], [0, 1], [1]] },
});

test("a country or an institution keeps its papers, with the other filters", () => {
  assert.equal(keptPapers(map, null, -1, -1), null);
  assert.deepEqual(Array.from(keptPapers(map, null, -1, 0)), [1, 0, 1, 0]);
  assert.deepEqual(Array.from(keptPapers(map, null, -1, 1)), [0, 0, 1, 1]);
  assert.deepEqual(Array.from(keptPapers(map, null, 1, 0)), [0, 0, 1, 0]);
  assert.deepEqual(Array.from(keptPapers(map, new Set([0]), -1, 1)), [0, 0, 0, 1]);
});

test("without people (left out of the report) the other filters work as before", () => {
  const bare = mapOfPapers({ ids: ["a", "b"], topic: [0, 1], periods: { of_paper: [0, 0], more: {} }, people: null });
  assert.deepEqual(Array.from(keptPapers(bare, null, 1)), [0, 1]);
});

test("coloured by a reception colouring, each paper takes its class's colour, grey without a value", () => {
  const coloured = mapOfPapers({
    ids: ["a", "b", "c"],
    topic: [0, 0, 1],
    outlier: [0, 1, 0],
    topics: [{ colour: "#111111", assigned_colour: "#999999" }, { colour: "#222222", assigned_colour: "#aaaaaa" }],
    periods: { of_paper: [0, 1, -1], colours: ["#0000aa", "#0000bb"], none_colour: "#b0b0b0", more: {} },
    colourings: [{ key: "decision", names: ["Accept", "Reject"], colours: ["#00aa00", "#aa0000"],
                   none_colour: "#b0b0b0", of_paper: [1, -1, 0] }],
  });
  assert.deepEqual(paperColours(coloured, "decision"), ["#aa0000", "#b0b0b0", "#00aa00"]);
  assert.deepEqual(paperColours(coloured, "period"), ["#0000aa", "#0000bb", "#b0b0b0"]);
  assert.deepEqual(paperColours(coloured, "topic"), ["#111111", "#999999", "#222222"]);
  // A report without reception colours by topic whatever is asked.
  assert.deepEqual(paperColours({ ...coloured, colourings: undefined }, "rating"), paperColours(coloured, "topic"));
});
