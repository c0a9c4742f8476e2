// The map's labels for a view: which clusters are labelled and where, so that no two labels
// overlap and each lies on its own cluster's papers. No use of the page: text is measured by the
// ``measure(lines, font)`` given.
//
// Zoomed out the topic groups are labelled; zooming in, the group with the most papers in view
// is replaced by its topics while the labels stay at most MAX_LABELS (or while they are fewer
// than MIN_LABELS), so that the map shows groups out and topics in, about a dozen labels at any
// zoom. Every cluster with at least REQUIRED_SHARE of the points in view is labelled where a
// place is free; smaller ones fill up to MAX_LABELS. A label is its whole text in lines (never
// cut), in a smaller font where nothing else fits. It is placed over one of its cluster's own
// papers in view (one in its densest, least shared part first): the paper lies inside or on the
// edge of the label's box. A label that finds no free place on its own papers is left out rather
// than put over another cluster (a median or a middle can lie on another cluster's papers).

export const MIN_LABELS = 8;
export const MAX_LABELS = 20;
export const REQUIRED_SHARE = 0.02;
export const FONTS = {
  group: [{ size: 14, weight: 700 }, { size: 12, weight: 700 }],
  topic: [{ size: 12, weight: 400 }, { size: 10, weight: 400 }],
};
const GAP = 4;  // pixels kept free between two labels
// The grid (cells of CELL pixels) over which a cluster's papers are counted to find its dense,
// unshared parts (over the cells up to AROUND cells away: about a label's size); a label tries its
// cluster's best CANDIDATES cells, in each its own paper nearest the cell's middle.
const CELL = 16;
const AROUND = 2;
const CANDIDATES = 48;
// Where the label's box goes around its paper, in label widths and heights: centred on it, then
// with the paper on the middle of an edge, then on a corner (always inside or on the box).
const OFFSETS = [[0, 0], [0, -0.5], [0, 0.5], [0.5, 0], [-0.5, 0], [0.5, -0.5], [-0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]];

function pixelScale(view) {
  const xscale = view.width / (view.xrange[1] - view.xrange[0]);
  const yscale = view.height / (view.yrange[1] - view.yrange[0]);
  return {
    x: (value) => (value - view.xrange[0]) * xscale,
    y: (value) => view.height - (value - view.yrange[0]) * yscale,
  };
}

// Per topic (position in map.topics): how many of its papers are in view and which (``papers``,
// rows of the map), and how many papers are in view in all.
export function pointsInView(view, map) {
  const n = map.topics.length, count = new Int32Array(n);
  const papers = Array.from({ length: n }, () => []);
  const [x0, x1] = view.xrange, [y0, y1] = view.yrange;
  let total = 0;
  for (let i = 0; i < map.x.length; i++) {
    const x = map.x[i], y = map.y[i];
    if (x < x0 || x > x1 || y < y0 || y > y1) { continue; }
    const topic = map.topic[i];
    count[topic]++;
    papers[topic].push(i);
    total++;
  }
  return { count, papers, total };
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

// Each paper in view's place in pixels and its cell of the grid, and how many papers in view fall
// in each cell, of every topic together (a paper out of view keeps cell -1).
function gridOfView(grid, inView, map, scale) {
  const counts = new Int32Array(grid.columns * grid.rows), cellOf = new Int32Array(map.x.length).fill(-1);
  const px = new Float64Array(map.x.length), py = new Float64Array(map.x.length);
  for (const papers of inView.papers) {
    for (const paper of papers) {
      px[paper] = scale.x(map.x[paper]);
      py[paper] = scale.y(map.y[paper]);
      cellOf[paper] = grid.cell(px[paper], py[paper]);
      counts[cellOf[paper]]++;
    }
  }
  return { counts, cellOf, px, py, own: new Int32Array(counts.length), nearest: new Float64Array(counts.length).fill(Infinity),
           paper: new Int32Array(counts.length).fill(-1) };
}

// The papers a cluster's label may lie on, best first ({ paper, px, py } in pixels): in the cells
// where its papers most outnumber the others' (over the cells around it), the paper nearest the
// cell's middle. Those HDBSCAN kept in the cluster where any are in view, else all of its papers.
// ``placed``: gridOfView's, its per-cell arrays left as found.
export function labelAnchors(unit, map, inView, grid, placed) {
  const { counts, cellOf, px, py, own, nearest, paper: paperOf } = placed;
  const touched = [];
  let kept = 0;
  for (const topic of unit.topics) {
    for (const paper of inView.papers[topic]) {
      if (own[cellOf[paper]]++ === 0) { touched.push(cellOf[paper]); }
      if (!map.outlier[paper]) { kept++; }
    }
  }
  for (const topic of unit.topics) {
    for (const paper of inView.papers[topic]) {
      if (kept > 0 && map.outlier[paper]) { continue; }
      const cell = cellOf[paper];
      const distance = (px[paper] - grid.middleX(cell)) ** 2 + (py[paper] - grid.middleY(cell)) ** 2;
      if (distance < nearest[cell]) { nearest[cell] = distance; paperOf[cell] = paper; }
    }
  }
  const scored = [];
  for (const cell of touched) {
    if (paperOf[cell] < 0) { continue; }
    const column = cell % grid.columns, row = Math.floor(cell / grid.columns);
    let mine = 0, all = 0;
    for (let r = Math.max(0, row - AROUND); r <= Math.min(grid.rows - 1, row + AROUND); r++) {
      for (let c = Math.max(0, column - AROUND); c <= Math.min(grid.columns - 1, column + AROUND); c++) {
        mine += own[r * grid.columns + c];
        all += counts[r * grid.columns + c];
      }
    }
    scored.push({ score: 2 * mine - all, mine, cell, paper: paperOf[cell] });
  }
  for (const cell of touched) { own[cell] = 0; nearest[cell] = Infinity; paperOf[cell] = -1; }
  scored.sort((a, b) => b.score - a.score || b.mine - a.mine || a.cell - b.cell);
  return scored.slice(0, CANDIDATES).map(({ paper }) => ({ paper, px: px[paper], py: py[paper] }));
}

function viewGrid(view) {
  const columns = Math.max(1, Math.ceil(view.width / CELL)), rows = Math.max(1, Math.ceil(view.height / CELL));
  const clamp = (value, top) => Math.min(top - 1, Math.max(0, Math.floor(value / CELL)));
  return {
    columns, rows,
    cell: (px, py) => clamp(py, rows) * columns + clamp(px, columns),
    middleX: (cell) => ((cell % columns) + 0.5) * CELL,
    middleY: (cell) => (Math.floor(cell / columns) + 0.5) * CELL,
  };
}

// The labels of ``view`` ({ width, height } of the plotting area in pixels, its x and y ranges):
// each { unit, lines, x, y (the place on the map of the paper it lies on), dx, dy (pixels from
// there to the box's middle), font, required (whether its cluster holds REQUIRED_SHARE of the
// points in view) }.
export function placeLabels(view, map, measure) {
  const inView = pointsInView(view, map);
  const grid = viewGrid(view), placedOnGrid = gridOfView(grid, inView, map, pixelScale(view));
  const taken = [], placed = [];
  for (const unit of clustersInView(view, map, inView)) {
    const required = unit.count >= REQUIRED_SHARE * inView.total;
    if (placed.length >= MAX_LABELS && !required) { continue; }
    const anchors = labelAnchors(unit, map, inView, grid, placedOnGrid);
    const spot = freeSpot(unit, anchors, view, taken, measure);
    if (spot === null) { continue; }
    taken.push(spot.box);
    placed.push({ unit, lines: unit.label.lines, x: map.x[spot.anchor.paper], y: map.y[spot.anchor.paper],
      dx: spot.dx, dy: spot.dy, font: spot.font, required });
  }
  return placed;
}

function freeSpot(unit, anchors, view, taken, measure) {
  for (const font of FONTS[unit.kind]) {
    const size = measure(unit.label.lines, font);
    for (const anchor of anchors) {
      for (const [ox, oy] of OFFSETS) {
        const dx = ox * size.width, dy = oy * size.height;
        const box = { left: anchor.px + dx - size.width / 2, right: anchor.px + dx + size.width / 2,
                      top: anchor.py + dy - size.height / 2, bottom: anchor.py + dy + size.height / 2 };
        if (box.left < 0 || box.right > view.width || box.top < 0 || box.bottom > view.height) { continue; }
        if (taken.some((other) => overlaps(box, other))) { continue; }
        return { box, dx, dy, font, anchor };
      }
    }
  }
  return null;
}
