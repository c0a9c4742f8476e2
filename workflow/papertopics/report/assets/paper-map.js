// The map of papers: one plotly trace of every paper (WebGL from WEBGL_FROM_PAPERS papers), its
// labels placed by labels.js after every zoom or pan, and a layer of our own over the points
// that shows the papers found (dimming the rest) and the paper shown in the panel; plotly's
// 100,000 WebGL points are not redrawn at each keystroke (restyling plotly's selectedpoints did
// that, and was most of a keystroke's time).
import { addExportButtons, exportTitle, TITLE_SPACE } from "./figure-export.js";
import { colouring } from "./filters.js";
import { placeLabels } from "./labels.js";
import { PLOT_CONFIG } from "./plot-config.js";
import { plotlyText } from "./text.js";

// Below this many papers plotly's SVG points draw sooner than a WebGL canvas is set up.
const WEBGL_FROM_PAPERS = 2000;
const MARGIN = 4;
const LABEL_PAD = 3;  // plotly's annotation borderpad, plus its 1px border
const LINE_HEIGHT = 1.3;  // plotly's, in font sizes
const SHOWN_RING = 7;  // pixels: the ring around the paper shown in the panel
// The exported map's points are SVG shapes (sharp on a slide) up to this many papers; beyond,
// plotly's WebGL picture of them (an SVG of 100,000 shapes is slow to open).
const SVG_POINTS_UP_TO = 20000;
// The exported legend's entries: fonts tried, row height and room for the swatch beside the text
// (pixels); a legend of up to SHORT_LEGEND entries may take one column.
const LEGEND_FONTS = [12, 11, 10], LEGEND_ROW = 20, LEGEND_SWATCH = 48, SHORT_LEGEND = 12;

// ``hoverTexts()``: each paper's hover label; ``colours``: each point's colour.
export function createPaperMap(div, map, { hoverTexts, colours, onPaperClicked, onSelected }) {
  const measureContext = document.createElement("canvas").getContext("2d");
  const bodyFont = getComputedStyle(document.body).fontFamily;
  let pointColours = colours;
  let found = null;  // Int32Array of the papers found, null when nothing is searched or filtered
  let shownPaper = null;
  let layer = null;
  let labelling = false;

  function measure(lines, font) {
    measureContext.font = `${font.weight} ${font.size}px ${bodyFont}`;
    const width = Math.max(...lines.map((line) => measureContext.measureText(line).width));
    return { width: width + 2 * LABEL_PAD, height: lines.length * font.size * LINE_HEIGHT + 2 * LABEL_PAD };
  }

  // The plotting area's size in pixels and its ranges (``ranges`` while the map is being moved).
  // The map's width is set here (the panel's, in whole pixels), not left to plotly's autosize, so
  // that the layer over the points is drawn at the very places of plotly's.
  function view(ranges) {
    return {
      width: div.layout.width - 2 * MARGIN, height: map.height - 2 * MARGIN,
      xrange: ranges ? ranges.x : div.layout.xaxis.range, yrange: ranges ? ranges.y : div.layout.yaxis.range,
    };
  }

  function annotations(ofView) {
    return placeLabels(ofView, map, measure).map((label) => ({
      x: label.x, y: label.y, xshift: label.dx, yshift: -label.dy,
      text: label.lines.map(plotlyText).join("<br>"), showarrow: false,
      xanchor: "center", yanchor: "middle", borderpad: LABEL_PAD - 1,
      font: { size: label.font.size, weight: label.font.weight, color: "#222", family: bodyFont },
      bgcolor: "rgba(255,255,255,0.8)", captureevents: false,
    }));
  }

  function relabel() {
    labelling = true;
    return Plotly.relayout(div, { annotations: annotations(view()) }).then(() => {
      labelling = false;
      div.dataset.labelled = String(div.layout.xaxis.range);  // the view labelled last (tests wait on it)
    });
  }

  // What the exported map's legend lists: the topics, or the classes of the colouring chosen.
  function legendEntries() {
    const classes = colouring(map, div.closest("[data-colour-by]")?.dataset.colourBy);
    if (classes) {
      return classes.names.map((name, i) => ({ name, colour: classes.colours[i] }));
    }
    return map.topics.map((t) => ({ name: t.topic === -1 ? t.label : `${t.topic}: ${t.label}`, colour: t.colour }));
  }

  // The map for slides (figure-export.js): as drawn, its labels included, with a title above it and
  // its legend below in as many columns as fit, the plotting area as on screen.
  function exportedMap() {
    const entries = legendEntries(), width = div.layout.width;
    // The largest font that fits the legend in two columns or more (a short one in any).
    const fits = (size) => {
      const textWidth = Math.max(...entries.map((entry) => measure([entry.name], { size, weight: 400 }).width));
      const entryWidth = Math.min(width, textWidth + LEGEND_SWATCH);
      return { size, entryWidth, columns: Math.max(1, Math.floor(width / entryWidth)) };
    };
    const sizes = LEGEND_FONTS.map(fits);
    const legendFont = sizes.find((fit) => fit.columns >= 2 || entries.length <= SHORT_LEGEND) || sizes[sizes.length - 1];
    const rows = Math.ceil(entries.length / legendFont.columns);
    const legendHeight = rows * LEGEND_ROW + 2 * MARGIN, height = map.height + TITLE_SPACE + legendHeight;
    const points = { ...div.data[0], type: map.ids.length <= SVG_POINTS_UP_TO ? "scatter" : "scattergl",
                     hovertext: null, customdata: null };
    const legend = entries.map((entry) => ({
      type: "scatter", mode: "markers", x: [null], y: [null], name: plotlyText(entry.name), showlegend: true,
      marker: { color: entry.colour, size: 10, symbol: "square" },
    }));
    return {
      data: [points, ...legend],
      layout: { ...div.layout, width, height, title: exportTitle(div, height),
                margin: { l: MARGIN, r: MARGIN, t: MARGIN + TITLE_SPACE, b: MARGIN + legendHeight },
                showlegend: true, paper_bgcolor: "white",
                legend: { orientation: "h", x: 0, xanchor: "left", y: 0, yanchor: "top", traceorder: "normal",
                          entrywidth: legendFont.entryWidth - LEGEND_SWATCH, entrywidthmode: "pixels",
                          maxheight: legendHeight, font: { size: legendFont.size, family: bodyFont } } },
    };
  }

  // The layer over the points: the found papers in their colours over the whitened map, and a
  // ring around the paper shown.
  function drawLayer(ranges) {
    if (!div.layout) { return; }
    if (!layer) {
      layer = document.createElement("canvas");
      layer.className = "map-highlight";
    }
    if (!layer.isConnected) {  // above the points (WebGL or SVG), below the labels' layer
      div.querySelector(".gl-container").after(layer);
    }
    const ratio = window.devicePixelRatio || 1, width = div.layout.width, height = map.height;
    if (layer.width !== Math.round(width * ratio) || layer.height !== Math.round(height * ratio)) {
      layer.width = Math.round(width * ratio);
      layer.height = Math.round(height * ratio);
      layer.style.width = width + "px";
      layer.style.height = height + "px";
    }
    const context = layer.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    layer.highlighted = found;  // what is drawn (tests read it)
    if (found === null && shownPaper === null) { return; }
    const area = view(ranges);
    const xscale = area.width / (area.xrange[1] - area.xrange[0]), yscale = area.height / (area.yrange[1] - area.yrange[0]);
    const place = (paper) => [MARGIN + (map.x[paper] - area.xrange[0]) * xscale,
                              MARGIN + area.height - (map.y[paper] - area.yrange[0]) * yscale];
    context.save();
    context.beginPath();
    context.rect(MARGIN, MARGIN, area.width, area.height);
    context.clip();
    if (found !== null) {
      context.fillStyle = "rgba(255,255,255,0.9)";
      context.fillRect(MARGIN, MARGIN, area.width, area.height);
      const radius = map.marker_size / 2, byColour = new Map();
      for (const paper of found) {
        const colour = pointColours[paper];
        let path = byColour.get(colour);
        if (path === undefined) { path = new Path2D(); byColour.set(colour, path); }
        const [px, py] = place(paper);
        path.moveTo(px + radius, py);
        path.arc(px, py, radius, 0, 2 * Math.PI);
      }
      byColour.forEach((path, colour) => { context.fillStyle = colour; context.fill(path); });
    }
    if (shownPaper !== null) {
      const [px, py] = place(shownPaper);
      context.lineWidth = 2.5;
      context.strokeStyle = "#111";
      context.beginPath();
      context.arc(px, py, SHOWN_RING, 0, 2 * Math.PI);
      context.stroke();
    }
    context.restore();
  }

  // The ranges plotly reports while the map is dragged or zoomed (it redraws its points on each).
  function movingRanges(change) {
    if (!change || !("xaxis.range[0]" in change) || !("yaxis.range[0]" in change)) { return null; }
    return { x: [change["xaxis.range[0]"], change["xaxis.range[1]"]], y: [change["yaxis.range[0]"], change["yaxis.range[1]"]] };
  }

  async function draw() {
    const trace = {
      type: map.ids.length >= WEBGL_FROM_PAPERS ? "scattergl" : "scatter", mode: "markers", x: map.x, y: map.y,
      customdata: map.ids, hovertext: hoverTexts(), hovertemplate: "%{hovertext}<extra></extra>",
      marker: { color: pointColours, size: map.marker_size, line: { width: 0 } },
      showlegend: false,
    };
    const layout = {
      width: div.clientWidth, height: map.height, margin: { l: MARGIN, r: MARGIN, t: MARGIN, b: MARGIN },
      xaxis: { visible: false, range: map.ranges[0] }, yaxis: { visible: false, range: map.ranges[1] },
      plot_bgcolor: "white", hovermode: "closest", clickmode: "event", dragmode: "pan",
    };
    // The first labels are placed before the map is drawn, in the same pass.
    layout.annotations = annotations({ width: layout.width - 2 * MARGIN, height: map.height - 2 * MARGIN,
                                       xrange: map.ranges[0], yrange: map.ranges[1] });
    await Plotly.newPlot(div, [trace], layout, { ...PLOT_CONFIG, scrollZoom: true });
    addExportButtons(div, exportedMap);
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => {
        if (div.clientWidth !== div.layout.width) { Plotly.relayout(div, { width: div.clientWidth }); }
      }, 100);
    });
    div.dataset.labelled = String(div.layout.xaxis.range);
    div.on("plotly_click", (event) => {
      if (event.points.length) { onPaperClicked(event.points[0].pointIndex); }
    });
    div.on("plotly_relayout", (change) => {
      if (!labelling && !("annotations" in change)) { relabel(); }
      drawLayer(null);
    });
    div.on("plotly_relayouting", (change) => { drawLayer(movingRanges(change)); });
    div.on("plotly_selected", (event) => {
      if (event) { onSelected(event.points.map((point) => point.pointIndex)); }
    });
    div.on("plotly_deselect", () => onSelected(null));
  }

  return {
    draw,
    relabel,
    setFound(papers) { found = papers; drawLayer(null); },
    setShownPaper(paper) { shownPaper = paper; drawLayer(null); },
    setColours(newColours) {
      pointColours = newColours;
      return Plotly.restyle(div, { "marker.color": [newColours] }).then(() => drawLayer(null));
    },
    setHoverTexts(texts) { return Plotly.restyle(div, { hovertext: [texts] }); },
  };
}
