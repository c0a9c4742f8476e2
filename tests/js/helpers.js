// Shared by the JavaScript tests: data packed as the report stage packs it.
import { gzipSync } from "node:zlib";

export const ASSETS = new URL("../../workflow/papertopics/report/assets/", import.meta.url);

// Text or bytes gzip-compressed and base64-encoded, as report/html_blocks.py's gzip_block writes them.
export function gzipBase64(content) {
  return gzipSync(typeof content === "string" ? Buffer.from(content, "utf-8") : content).toString("base64");
}

// A CSV table (RFC 4180) of ``rows`` (objects with the same keys).
export function csv(rows) {
  const field = (value) => (/[",\r\n]/.test(String(value)) ? `"${String(value).replace(/"/g, '""')}"` : String(value));
  const header = Object.keys(rows[0]);
  return [header.join(",")].concat(rows.map((row) => header.map((key) => field(row[key])).join(","))).join("\n") + "\n";
}
