import assert from "node:assert/strict";
import { test } from "node:test";

import { keptPapers } from "../../workflow/papertopics/report/assets/filters.js";
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
