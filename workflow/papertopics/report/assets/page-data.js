// The page's data blocks (report/html_blocks.py), read from the document.
import { gunzipBase64, gunzipInt32s } from "./unpack.js";

const thisScript = document.currentScript;

export const parsed = new Promise((resolve) => {
  if (document.readyState !== "loading") { resolve(); } else { document.addEventListener("DOMContentLoaded", resolve); }
});

// A block's text as the page holds it; a block after this script (the tables) once the page is
// read: the browser may still be reading one when it is asked for.
export async function blockText(id) {
  const block = document.getElementById(id);
  const later = block === null || (thisScript.compareDocumentPosition(block) & Node.DOCUMENT_POSITION_FOLLOWING);
  if (later && document.readyState === "loading") { await parsed; return blockText(id); }
  return block.textContent;
}

export async function unpackText(id) {
  return gunzipBase64(await blockText(id));
}

export async function unpackJson(id) {
  return JSON.parse(await unpackText(id));
}

export async function unpackInt32s(id) {
  return gunzipInt32s(await blockText(id));
}
