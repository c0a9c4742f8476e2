// Small helpers for building the page's elements. Text from the data is only ever set as text.
import { markedPieces } from "./text.js";

export function element(tag, properties = {}, ...children) {
  const made = document.createElement(tag);
  Object.assign(made, properties);
  made.append(...children);
  return made;
}

// ``text`` with the places a word starts with a query word in <mark>.
export function marked(text, words) {
  const fragment = document.createDocumentFragment();
  for (const piece of markedPieces(text, words)) {
    fragment.append(piece.marked ? element("mark", { textContent: piece.text }) : piece.text);
  }
  return fragment;
}

// A small square of ``colour`` (a #rrggbb from the data, checked).
export function swatch(colour) {
  const square = element("span", { className: "swatch" });
  if (/^#[0-9a-f]{6}$/i.test(colour)) { square.style.background = colour; }
  return square;
}

// A paper's period and topic, as a result row or a similar paper shows them.
export function paperMeta(map, paper) {
  const topic = map.topics[map.topic[paper]];
  const periods = map.periodsOf(paper).map((period) => map.periods.names[period]).join(", ");
  return element("span", { className: "paper-meta" }, swatch(topic.colour),
    `${periods ? periods + " · " : ""}${topic.topic}: ${topic.label}`);
}

export function save(blob, filename) {
  const link = element("a", { href: URL.createObjectURL(blob), download: filename });
  document.body.append(link);
  link.click();
  link.remove();
}
