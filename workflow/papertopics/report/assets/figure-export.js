// Figures for slides: each plotly figure of the page downloads as SVG and as PNG at twice its size
// on screen, with a title (its heading, and the report's), its legend and its labels (annotations,
// which plotly's export keeps). ``figureOf(div)`` gives the figure to export; by default the
// figure as drawn with room at its top for the title.
import { element, save } from "./dom.js";
import { PLOT_CONFIG } from "./plot-config.js";
import { plotlyText } from "./text.js";

export const EXPORT_SCALE = 2;
export const TITLE_SPACE = 64;  // pixels added at the top of an exported figure for its title
export const FORMATS = ["svg", "png"];

// The heading the figure sits under: the last heading before it in its section.
function headingOf(div) {
  const section = div.closest("section") || document.body;
  const before = Array.from(section.querySelectorAll("h2, h3, h4")).filter((heading) =>
    heading.compareDocumentPosition(div) & Node.DOCUMENT_POSITION_FOLLOWING);
  return before.length ? before[before.length - 1].textContent.trim() : "";
}

// A figure's title for export (``height`` pixels tall in all): its own where it has one, else its
// heading; under it the report's.
export function exportTitle(div, height) {
  const own = div.layout && div.layout.title && (div.layout.title.text || div.layout.title);
  const name = typeof own === "string" && own ? own : plotlyText(headingOf(div));
  const report = document.querySelector("header h1");
  return { text: report ? `<b>${name}</b><br><sup>${plotlyText(report.textContent.trim())}</sup>` : `<b>${name}</b>`,
           x: 0.01, xanchor: "left", xref: "container", y: 1 - 26 / height, yanchor: "top", yref: "container",
           font: { size: 18 } };
}

// The figure as drawn, ``TITLE_SPACE`` taller, its plotting area the same; the traces switched off
// in the legend are left out (a legend of every topic would not fit, and they show nothing).
export function drawnFigure(div) {
  const full = div._fullLayout, margin = full.margin, height = full.height + TITLE_SPACE;
  return {
    data: div.data.filter((trace) => trace.visible !== "legendonly"),
    layout: { ...div.layout, width: full.width, height, title: exportTitle(div, height),
              margin: { l: margin.l, r: margin.r, b: margin.b, t: margin.t + TITLE_SPACE, pad: margin.pad },
              paper_bgcolor: "white" },
  };
}

// A data: URL from plotly's toImage as bytes.
function dataUrlBlob(url, format) {
  const comma = url.indexOf(",");
  if (format === "svg") {
    return new Blob([decodeURIComponent(url.slice(comma + 1))], { type: "image/svg+xml" });
  }
  const bytes = Uint8Array.from(atob(url.slice(comma + 1)), (c) => c.charCodeAt(0));
  return new Blob([bytes], { type: "image/png" });
}

export async function exportFigure(div, format, figureOf = drawnFigure) {
  const figure = figureOf(div);
  const url = await Plotly.toImage({ ...figure, config: PLOT_CONFIG },
    { format, width: figure.layout.width, height: figure.layout.height, scale: format === "png" ? EXPORT_SCALE : 1 });
  save(dataUrlBlob(url, format), `${div.id}.${format}`);
}

// The figure's download buttons, after it.
export function addExportButtons(div, figureOf = drawnFigure) {
  if (div.nextElementSibling && div.nextElementSibling.classList.contains("figure-export")) { return; }
  const name = headingOf(div) || div.id;
  const buttons = FORMATS.map((format) => {
    const button = element("button", { type: "button", textContent: format === "png" ? "PNG (2×)" : "SVG",
      title: `Download “${name}” as ${format.toUpperCase()}, with its title, legend and labels` });
    button.dataset.exportFormat = format;
    button.addEventListener("click", () => {
      button.disabled = true;
      exportFigure(div, format, figureOf).finally(() => { button.disabled = false; });
    });
    return button;
  });
  div.after(element("div", { className: "figure-export" }, element("span", { className: "hint", textContent: "Download for slides: " }), ...buttons));
}
