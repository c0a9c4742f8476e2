import assert from "node:assert/strict";
import { test } from "node:test";

// The panel's elements are built with document.createElement only; a minimal stand-in records them.
globalThis.document = {
  createElement: (tag) => ({ tag, children: [], append(...children) { this.children.push(...children); } }),
};
const { detailLines } = await import("../../workflow/papertopics/report/assets/panels.js");

const text = (node) => (typeof node === "string" ? node : (node.textContent || "") + node.children.map(text).join(""));

test("a paper's authors, venue, keywords and DOI are lines of text, the DOI a doi.org link", () => {
  const lines = detailLines({ authors: "Müller, Jörg; <b>García</b>", venue: "NeurIPS", keywords: "routing; robustness", doi: "10.5555/3540261.3541001" });
  assert.deepEqual(lines.map(text), [
    "Authors: Müller, Jörg; <b>García</b>",  // set as text, never parsed as HTML
    "Venue: NeurIPS",
    "Keywords: routing; robustness",
    "DOI: 10.5555/3540261.3541001",
  ]);
  const link = lines[3].children[1];
  assert.equal(link.tag, "a");
  assert.equal(link.href, "https://doi.org/10.5555/3540261.3541001");
});

test("missing details give no line; a DOI that is not one is shown as text, not linked", () => {
  assert.deepEqual(detailLines({}), []);
  const [line] = detailLines({ authors: "", doi: "javascript:alert(1)" });
  assert.equal(text(line), "DOI: javascript:alert(1)");
  assert.equal(line.children[1], "javascript:alert(1)");
});
