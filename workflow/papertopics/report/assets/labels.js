// The map's labels for a view: which clusters are labelled and where, so that no two labels
// overlap. No use of the page: text is measured by the ``measure(lines, font)`` given.
//
// Zoomed out the topic groups are labelled; zooming in, the group with the most papers in view
// is replaced by its topics while the labels stay at most MAX_LABELS (or while they are fewer
// than MIN_LABELS), so that the map shows groups out and topics in, about a dozen labels at any
// zoom. Every cluster with at least REQUIRED_SHARE of the points in view is labelled where a
// place is free; smaller ones fill up to MAX_LABELS. A label is its whole text in lines (never
// cut), at its cluster's middle or moved around it, in a smaller font where nothing else fits.

export const MIN_LABELS = 8;
export const MAX_LABELS = 20;
export const REQUIRED_SHARE = 0.02;
export const FONTS = {
  group: [{ size: 14, weight: 700 }, { size: 12, weight: 700 }],
  topic: [{ size: 12, weight: 400 }, { size: 10, weight: 400 }],
};
const GAP = 4;  // pixels kept free between two labels
// Places tried around a cluster's middle, in label widths and heights: the middle, then rings.
const OFFSETS = [[0, 0]].concat(...[0.6, 1.2, 1.8].map((ring) =>
  [[0, -1], [0, 1], [1, 0], [-1, 0], [1, -1], [-1, -1], [1, 1], [-1, 1]].map(([x, y]) => [x * ring, y * ring])));

function pixelScale(view) {
  const xscale = view.width / (view.xrange[1] - view.xrange[0]);
  const yscale = view.height / (view.yrange[1] - view.yrange[0]);
  return {
    x: (value) => (value - view.xrange[0]) * xscale,
    y: (value) => view.height - (value - view.yrange[0]) * yscale,
    toX: (pixel) => view.xrange[0] + pixel / xscale,
    toY: (pixel) => view.yrange[0] + (view.height - pixel) / yscale,
    inside: (px, py) => px >= 0 && px <= view.width && py >= 0 && py <= view.height,
  };
}

// Per topic (position in map.topics): the points in view, and the sums of the places of those
// HDBSCAN kept in it (where to put a label whose usual place is out of view).
export function pointsInView(view, map) {
  const n = map.topics.length, count = new Int32Array(n), core = new Int32Array(n);
  const sumX = new Float64Array(n), sumY = new Float64Array(n);
  const [x0, x1] = view.xrange, [y0, y1] = view.yrange;
  let total = 0;
  for (let i = 0; i < map.x.length; i++) {
    const x = map.x[i], y = map.y[i];
    if (x < x0 || x > x1 || y < y0 || y > y1) { continue; }
    const topic = map.topic[i];
    count[topic]++;
    total++;
    if (!map.outlier[i]) { core[topic]++; sumX[topic] += x; sumY[topic] += y; }
  }
  return { count, core, sumX, sumY, total };
}

// The clusters to label in ``view``: groups, topics or both, with their points in view.
export function clustersInView(view, map, inView) {
  const outlierTopic = map.topics.findIndex((t) => t.topic === -1);
  const topicUnit = (label) => ({ kind: "topic", label, topics: [label.topic], count: inView.count[label.topic] });
  const topics = new Map(map.labels.topics.filter((l) => l.topic !== outlierTopic).map((l) => [l.topic, topicUnit(l)]));
  const visibleTopics = (group) => group.topics.filter((t) => topics.has(t) && inView.count[t] > 0).map((t) => topics.get(t));
  let units = map.labels.groups.length
    ? map.labels.groups.map((label) => ({ kind: "group", label, topics: label.topics,
        count: label.topics.reduce((sum, t) => sum + (topics.has(t) ? inView.count[t] : 0), 0) }))
    : Array.from(topics.values());
  units = units.filter((unit) => unit.count > 0)
    .map((unit) => (unit.kind === "group" && visibleTopics(unit.label).length === 1 ? visibleTopics(unit.label)[0] : unit));
  for (;;) {
    const largest = units.filter((unit) => unit.kind === "group").sort((a, b) => b.count - a.count)[0];
    if (largest === undefined) { break; }
    const parts = visibleTopics(largest.label);
    if (units.length - 1 + parts.length > MAX_LABELS && units.length >= MIN_LABELS) { break; }
    units = units.filter((unit) => unit !== largest).concat(parts);
  }
  return units.sort((a, b) => b.count - a.count);
}

function overlaps(a, b) {
  return a.left < b.right + GAP && b.left < a.right + GAP && a.top < b.bottom + GAP && b.top < a.bottom + GAP;
}

// Where the cluster's label goes in pixels: its usual place when in view, else the middle of its
// points in view.
function anchorOf(unit, map, inView, scale) {
  const px = scale.x(unit.label.x), py = scale.y(unit.label.y);
  if (scale.inside(px, py)) { return [px, py]; }
  let n = 0, sx = 0, sy = 0;
  for (const t of unit.topics) { n += inView.core[t]; sx += inView.sumX[t]; sy += inView.sumY[t]; }
  if (n === 0) { return null; }
  return [scale.x(sx / n), scale.y(sy / n)];
}

// The labels of ``view`` ({ width, height } of the plotting area in pixels, its x and y ranges):
// each { unit, lines, x, y (its cluster's place on the map), dx, dy (pixels from there), font,
// required (whether its cluster holds REQUIRED_SHARE of the points in view) }.
export function placeLabels(view, map, measure) {
  const inView = pointsInView(view, map);
  const scale = pixelScale(view);
  const taken = [], placed = [];
  for (const unit of clustersInView(view, map, inView)) {
    const required = unit.count >= REQUIRED_SHARE * inView.total;
    if (placed.length >= MAX_LABELS && !required) { continue; }
    const anchor = anchorOf(unit, map, inView, scale);
    if (anchor === null) { continue; }
    const spot = freeSpot(unit, anchor, view, taken, measure);
    if (spot === null) { continue; }
    taken.push(spot.box);
    placed.push({ unit, lines: unit.label.lines, x: scale.toX(anchor[0]), y: scale.toY(anchor[1]),
      dx: spot.dx, dy: spot.dy, font: spot.font, required });
  }
  return placed;
}

function freeSpot(unit, [px, py], view, taken, measure) {
  for (const font of FONTS[unit.kind]) {
    const size = measure(unit.label.lines, font);
    for (const [ox, oy] of OFFSETS) {
      const dx = ox * size.width, dy = oy * size.height;
      const box = { left: px + dx - size.width / 2, right: px + dx + size.width / 2,
                    top: py + dy - size.height / 2, bottom: py + dy + size.height / 2 };
      if (box.left < 0 || box.right > view.width || box.top < 0 || box.bottom > view.height) { continue; }
      if (taken.some((other) => overlaps(box, other))) { continue; }
      return { box, dx, dy, font };
    }
  }
  return null;
}
