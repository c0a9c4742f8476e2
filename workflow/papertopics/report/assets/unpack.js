// The page's data blocks: gzip, base64-encoded (see report/html_blocks.py), unpacked here.
// No use of the page: the search engine's worker runs this too.

function base64Bytes(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
  return bytes;
}

function gunzipped(base64) {
  return new Blob([base64Bytes(base64)]).stream().pipeThrough(new DecompressionStream("gzip"));
}

// Base64 of gzip to text. Read in pieces: Response.text() fails on the ~140 MB table of 100,000 papers.
export async function gunzipBase64(base64) {
  const reader = gunzipped(base64).pipeThrough(new TextDecoderStream()).getReader();
  const pieces = [];
  for (;;) {
    const next = await reader.read();
    if (next.done) { return pieces.join(""); }
    pieces.push(next.value);
  }
}

// Base64 of gzip to the little-endian 32-bit integers it holds.
export async function gunzipInt32s(base64) {
  const buffer = await new Response(gunzipped(base64)).arrayBuffer();
  const view = new DataView(buffer), values = new Int32Array(buffer.byteLength / 4);
  for (let i = 0; i < values.length; i++) { values[i] = view.getInt32(4 * i, true); }
  return values;
}

// RFC 4180 rows of ``text``, read in slices of ``sliceMs``, each followed by ``pause()``, so that
// a caller can answer messages meanwhile.
export async function parseCsv(text, { sliceMs = 20, pause = () => Promise.resolve() } = {}) {
  const rows = [], n = text.length;
  let row = [], field = "", i = 0;
  while (i < n) {
    const until = performance.now() + sliceMs;
    do {  // at least a step per slice, however short
      for (let step = 0; step < 2000 && i < n; step++) {
        if (text.charCodeAt(i) === 34 && field === "") {  // a quoted field
          const parts = [];
          let start = i + 1;
          for (;;) {
            let quote = text.indexOf('"', start);
            if (quote === -1) { quote = n; }
            parts.push(text.slice(start, quote));
            if (text.charCodeAt(quote + 1) === 34) { parts.push('"'); start = quote + 2; continue; }
            i = quote + 1;
            break;
          }
          field = parts.join("");
          continue;
        }
        let stop = i;
        while (stop < n) {
          const c = text.charCodeAt(stop);
          if (c === 44 || c === 10 || c === 13) { break; }
          stop++;
        }
        field += text.slice(i, stop);
        i = stop;
        const separator = text.charCodeAt(i);
        if (separator === 44) { row.push(field); field = ""; i++; }
        else if (separator === 10 || separator === 13) {
          row.push(field); field = ""; rows.push(row); row = [];
          i += (separator === 13 && text.charCodeAt(i + 1) === 10) ? 2 : 1;
        }
      }
    } while (i < n && performance.now() < until);
    if (i < n) { await pause(); }
  }
  if (field !== "" || row.length) { row.push(field); rows.push(row); }
  return rows;
}

// The map's data as the report stage packs it (report/document_map.py).
export function mapOfPapers(data) {
  return {
    ...data,
    // The periods (dumps or years) a paper is in, oldest first; none for a paper without a year.
    periodsOf(paper) {
      const first = data.periods.of_paper[paper];
      return first < 0 ? [] : [first].concat(data.periods.more[paper] || []);
    },
    // The topics (positions in ``topics``) a paper is also about beside its own, nearest first.
    furtherTopicsOf(paper) {
      return (data.further || {})[paper] || [];
    },
  };
}

// Each paper's similar papers from the block of ``count`` paper indices per paper (-1 where fewer).
export function similarPapers(indices, count) {
  return (paper) => Array.from(indices.subarray(paper * count, (paper + 1) * count)).filter((other) => other >= 0);
}
