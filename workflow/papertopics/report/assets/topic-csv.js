// A topic's rows of the papers' table as a CSV of their own (a topic card's download): the
// table's header and those rows, each as the table holds it, its quoting kept.

// Where each record of ``text`` starts and ends, its line break left out: [[start, end], ...].
// RFC 4180: a quoted field may hold commas, quotes (doubled) and line breaks.
export function recordSpans(text) {
  const spans = [], n = text.length;
  let start = 0, quoted = false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) { quoted = !quoted; }  // a doubled quote toggles twice: still inside
    else if (!quoted && (c === 10 || c === 13)) {
      spans.push([start, i]);
      if (c === 13 && text.charCodeAt(i + 1) === 10) { i++; }
      start = i + 1;
    }
  }
  if (start < n) { spans.push([start, n]); }
  return spans;
}

// The header of ``text`` and its records ``rows`` (0 is the first after the header), in the
// table's order, one a line.
export function topicCsv(text, rows) {
  const spans = recordSpans(text);
  const wanted = Array.from(rows).sort((a, b) => a - b);
  const lines = [spans[0]].concat(wanted.map((row) => {
    const span = spans[row + 1];
    if (span === undefined) { throw new RangeError(`the papers' table has no row ${row}`); }
    return span;
  }));
  return lines.map(([start, end]) => text.slice(start, end)).join("\n") + "\n";
}

// The rows of page ``page`` (from 0) of ``count`` rows, ``size`` a page: [first, last + 1].
export function pageRange(count, page, size) {
  const pages = Math.max(1, Math.ceil(count / size));
  const shown = Math.min(Math.max(page, 0), pages - 1);
  return { page: shown, pages, first: shown * size, end: Math.min(count, (shown + 1) * size) };
}
