// Text helpers shared by the page and the search engine (no use of the page here).

// A word: a run of letters and digits, in any script.
export const WORD = /[\p{L}\p{N}]+/gu;

// The words of ``text``, lower-cased, in order (repeats kept).
export function wordsOf(text) {
  return text.toLowerCase().match(WORD) || [];
}

// The distinct words of a query, in the order typed.
export function searchWords(query) {
  return Array.from(new Set(wordsOf(query)));
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

// A pattern finding, case-insensitively, each place where a word starts with one of ``words``.
export function wordStartPattern(words) {
  return new RegExp("(?<![\\p{L}\\p{N}])(" + words.map(escapeRegExp).join("|") + ")", "giu");
}

// ``text`` split into pieces, each { text, marked }: marked where a word starts with a query word.
export function markedPieces(text, words) {
  if (!words.length) { return [{ text, marked: false }]; }
  const pieces = [];
  let last = 0;
  for (const found of text.matchAll(wordStartPattern(words))) {
    if (found.index > last) { pieces.push({ text: text.slice(last, found.index), marked: false }); }
    pieces.push({ text: found[0], marked: true });
    last = found.index + found[0].length;
  }
  if (last < text.length) { pieces.push({ text: text.slice(last), marked: false }); }
  return pieces;
}

// A text's first ``chars`` characters, cut at a space.
export function firstWords(text, chars) {
  if (text.length <= chars) { return text; }
  const cut = text.slice(0, chars), space = cut.lastIndexOf(" ");
  return (space > 0 ? cut.slice(0, space) : cut) + "…";
}

// About ``chars`` characters of ``text`` around the first place a query word starts a word
// (its start when none does), cut at spaces, with … where text is left out.
export function snippetAround(text, words, chars) {
  if (text.length <= chars) { return text; }
  const found = words.length ? wordStartPattern(words).exec(text) : null;
  let start = found ? Math.max(0, found.index - Math.floor(chars / 4)) : 0;
  if (start > 0) {
    const space = text.indexOf(" ", start);
    start = space === -1 || space >= (found ? found.index : text.length) ? start : space + 1;
  }
  let end = Math.min(text.length, start + chars);
  if (end < text.length) {
    const space = text.lastIndexOf(" ", end);
    end = space > start ? space : end;
  }
  return (start > 0 ? "…" : "") + text.slice(start, end) + (end < text.length ? "…" : "");
}

// ``text`` in lines of at most ``width`` characters, broken at spaces.
export function wrapped(text, width) {
  const lines = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) { lines.push(line); line = word; }
    else { line = line ? line + " " + word : word; }
  }
  if (line) { lines.push(line); }
  return lines;
}

// Text for plotly's labels, which read a small HTML subset.
export function plotlyText(text) {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

// One CSV field (RFC 4180): quoted where it holds a comma, a quote or a line break.
export function csvField(value) {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? '"' + text.replace(/"/g, '""') + '"' : text;
}
