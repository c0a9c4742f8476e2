// The search engine's worker: the script of this module and those it imports is put into the
// page as text (report/page.py) and started from a blob: URL by engine-client.js.
import { createSearchEngine } from "./search-engine.js";

const receive = createSearchEngine((message, transfer) => self.postMessage(message, transfer || []));
self.onmessage = (event) => receive(event.data);
