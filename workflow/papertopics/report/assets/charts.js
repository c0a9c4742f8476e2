// The charts other than the map: each drawn from its compressed plotly JSON when it comes near
// the screen, one at a time, each with its buttons to download it for slides (figure-export.js).
// ``hold(+1 | -1)`` tells the search engine a chart is being drawn.
import { addExportButtons } from "./figure-export.js";
import { unpackJson } from "./page-data.js";
import { PLOT_CONFIG } from "./plot-config.js";

function nextTask() {
  return new Promise((resolve) => { setTimeout(resolve, 0); });
}

async function drawFigure(div) {
  const spec = await unpackJson(div.dataset.figure);
  await Plotly.newPlot(div, spec.data, spec.layout || {}, { ...PLOT_CONFIG, responsive: true });
  addExportButtons(div);
}

export function drawChartsWhenSeen(hold) {
  const waiting = Array.from(document.querySelectorAll("div.figure[data-figure]"));
  let drawing = Promise.resolve();
  function markIfAllDrawn() {
    if (waiting.length === 0) { document.body.dataset.drawn = "true"; }  // tests and the benchmark wait on it
  }
  const observer = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting || !waiting.includes(entry.target)) { continue; }
      observer.unobserve(entry.target);
      hold(+1);
      drawing = drawing.then(nextTask).then(() => drawFigure(entry.target)).then(() => {
        waiting.splice(waiting.indexOf(entry.target), 1);
        markIfAllDrawn();
      }).finally(() => hold(-1));  // a chart that failed to draw holds the engine no longer
    }
  }, { rootMargin: "400px 0px" });
  waiting.forEach((div) => observer.observe(div));
  markIfAllDrawn();
}
