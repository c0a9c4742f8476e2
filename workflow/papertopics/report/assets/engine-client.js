// The page's side of the search engine: the engine in a worker made from the worker's script,
// which the page holds as text (a blob: URL, the one kind of worker the page's
// Content-Security-Policy allows; it works from file:// and offline), so that indexing 100,000
// abstracts leaves the page free; on the page itself where the browser allows no worker.
import { createSearchEngine } from "./search-engine.js";

// ``onEvent`` receives the engine's own messages (names indexed, snippets, ready); ``request``
// sends a message and resolves with the engine's reply to it, ``send`` one that has none.
export function startEngine(workerSource, onEvent) {
  const waiting = new Map();
  let nextId = 0;
  function receive(message) {
    if (message.type !== "reply") { onEvent(message); return; }
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve(message);
  }
  let send;
  try {
    const worker = new Worker(URL.createObjectURL(new Blob([workerSource], { type: "text/javascript" })));
    worker.onmessage = (event) => receive(event.data);
    send = (message, transfer) => worker.postMessage(message, transfer || []);
  } catch {
    const engine = createSearchEngine((message) => setTimeout(() => receive(message), 0));
    send = (message) => setTimeout(() => engine(message), 0);
  }
  return {
    send,
    request(message) {
      return new Promise((resolve) => {
        const id = nextId++;
        waiting.set(id, resolve);
        send({ ...message, id });
      });
    },
  };
}
