import assert from "node:assert/strict";
import { test } from "node:test";

import { clustersInView, MAX_LABELS, MIN_LABELS, placeLabels, pointsInView, REQUIRED_SHARE }
  from "../../workflow/papertopics/report/assets/labels.js";

// A seeded generator, so that every run draws the same map.
function random(seed) {
  let state = seed;
  return () => { state = (state * 1664525 + 1013904223) % 4294967296; return state / 4294967296; };
}

function normal(next) {
  return Math.sqrt(-2 * Math.log(next() + 1e-12)) * Math.cos(2 * Math.PI * next());
}

// A map as report/document_map.py packs it: ``groups`` groups of topics, each topic a cloud of
// points around its centre, sizes falling off; the last topic position is the outliers' group.
function syntheticMap({ papers = 10000, topics = 150, groups = 15, seed = 1 } = {}) {
  const next = random(seed);
  const groupCentres = Array.from({ length: groups }, () => [9 * normal(next), 9 * normal(next)]);
  const groupOf = Array.from({ length: topics }, (_, t) => Math.floor(t * groups / topics));
  const centres = groupOf.map((g) => [groupCentres[g][0] + 1.6 * normal(next), groupCentres[g][1] + 1.6 * normal(next)]);
  const weights = centres.map((_, t) => 1 / (t + 3));
  const total = weights.reduce((a, b) => a + b, 0);
  const map = { x: [], y: [], topic: [], outlier: [], topics: [], labels: { topics: [], groups: [] } };
  for (let i = 0; i < papers; i++) {
    let pick = next() * total, t = 0;
    while (pick > weights[t] && t < topics - 1) { pick -= weights[t]; t++; }
    const outlier = next() < 0.01;
    const topic = outlier ? topics : t;
    const x = centres[t][0] + 0.45 * normal(next), y = centres[t][1] + 0.45 * normal(next);
    map.x.push(x); map.y.push(y); map.topic.push(topic); map.outlier.push(outlier ? 1 : 0);
  }
  for (let t = 0; t < topics; t++) {
    map.topics.push({ topic: t });
    const label = `${t}: ${["graph neural networks", "protein folding", "reinforcement learning for robots"][t % 3]}`;
    map.labels.topics.push({ lines: [label.slice(0, 24), label.slice(24)].filter(Boolean), topic: t });
  }
  map.topics.push({ topic: -1 });
  for (let g = 0; g < groups; g++) {
    const members = groupOf.flatMap((group, t) => (group === g ? [t] : []));
    map.labels.groups.push({ lines: [`group ${g}`, "of topics"], topics: members });
  }
  return map;
}

// Text measured as plotly would draw it near enough: 7 px a character at 12 px.
const measure = (lines, font) => ({
  width: Math.max(...lines.map((line) => line.length)) * font.size * 0.58 + 6,
  height: lines.length * font.size * 1.3 + 6,
});

function zoomedView(map, zoom) {
  const xs = map.x.slice().sort((a, b) => a - b), ys = map.y.slice().sort((a, b) => a - b);
  const [x0, x1] = [xs[0], xs[xs.length - 1]], [y0, y1] = [ys[0], ys[ys.length - 1]];
  // Zoomed out the whole map; zoomed in, towards its median point (where the papers are).
  const towards = 1 - 1 / zoom;
  const [cx, cy] = [(x0 + x1) / 2 + ((xs[xs.length >> 1]) - (x0 + x1) / 2) * towards,
                    (y0 + y1) / 2 + ((ys[ys.length >> 1]) - (y0 + y1) / 2) * towards];
  const [w, h] = [(x1 - x0) / zoom, (y1 - y0) / zoom];
  return { width: 1000, height: 672, xrange: [cx - w / 2, cx + w / 2], yrange: [cy - h / 2, cy + h / 2] };
}

function boxes(labels, view) {
  const sx = view.width / (view.xrange[1] - view.xrange[0]), sy = view.height / (view.yrange[1] - view.yrange[0]);
  return labels.map((label) => {
    const size = measure(label.lines, label.font);
    const px = (label.x - view.xrange[0]) * sx + label.dx, py = view.height - (label.y - view.yrange[0]) * sy + label.dy;
    return { left: px - size.width / 2, right: px + size.width / 2, top: py - size.height / 2, bottom: py + size.height / 2 };
  });
}

function overlapping(placed) {
  return placed.flatMap((a, i) => placed.slice(i + 1).filter((b) =>
    a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom).map((b) => [a, b]));
}

test("zoomed out, the groups are labelled, whole, inside the map, none over another", () => {
  const map = syntheticMap();
  const view = zoomedView(map, 1);
  const labels = placeLabels(view, map, measure);
  assert.ok(labels.length >= MIN_LABELS && labels.length <= MAX_LABELS, labels.length);
  assert.ok(labels.every((label) => label.unit.kind === "group"));
  assert.ok(labels.every((label) => label.lines === label.unit.label.lines), "a label is its whole text");
  const drawn = boxes(labels, view);
  assert.deepEqual(overlapping(drawn), []);
  assert.ok(drawn.every((b) => b.left >= 0 && b.right <= view.width && b.top >= 0 && b.bottom <= view.height));
});

for (const zoom of [1, 2, 4, 8]) {
  test(`at zoom ${zoom}, 8 to 20 labels, no overlap, every cluster of 2% of the points in view labelled`, () => {
    const map = syntheticMap();
    const view = zoomedView(map, zoom);
    const labels = placeLabels(view, map, measure);
    assert.ok(labels.length >= MIN_LABELS && labels.length <= MAX_LABELS, `${labels.length} labels`);
    assert.deepEqual(overlapping(boxes(labels, view)), []);
    const inView = pointsInView(view, map);
    const labelled = new Set(labels.flatMap((label) => label.unit.topics));
    const missing = map.topics.map((t, position) => position).filter((position) =>
      map.topics[position].topic !== -1 && inView.count[position] >= REQUIRED_SHARE * inView.total && !labelled.has(position));
    assert.deepEqual(missing, []);
    if (zoom >= 4) { assert.ok(labels.some((label) => label.unit.kind === "topic"), "zoomed in, topics are labelled"); }
  });
}

test("zooming in replaces the group with most papers in view by its topics", () => {
  const map = syntheticMap();
  const view = zoomedView(map, 3);
  const units = clustersInView(view, map, pointsInView(view, map));
  const groups = units.filter((unit) => unit.kind === "group"), topics = units.filter((unit) => unit.kind === "topic");
  assert.ok(topics.length > 0 && groups.length > 0, "a mix at middle zoom");
  const splitGroups = new Set(topics.map((unit) => map.labels.groups.findIndex((g) => g.topics.includes(unit.topics[0]))));
  const largestKept = Math.max(...groups.map((unit) => unit.count));
  for (const group of splitGroups) {
    const inView = map.labels.groups[group].topics.reduce((sum, t) => sum + pointsInView(view, map).count[t], 0);
    assert.ok(inView >= largestKept, "a group split before a larger one");
  }
});

test("without groups the topics are labelled, the largest first", () => {
  const map = syntheticMap({ topics: 12, groups: 1 });
  map.labels.groups = [];
  const labels = placeLabels(zoomedView(map, 1), map, measure);
  assert.ok(labels.every((label) => label.unit.kind === "topic"));
  assert.ok(labels.length >= MIN_LABELS);
  const counts = labels.map((label) => label.unit.count);
  assert.deepEqual(counts, counts.slice().sort((a, b) => b - a));
});

// Pixels from a box to the nearest paper of ``topics`` in view (0 when one is inside or on it).
function distanceToOwnPapers(box, topics, map, view) {
  const sx = view.width / (view.xrange[1] - view.xrange[0]), sy = view.height / (view.yrange[1] - view.yrange[0]);
  let nearest = Infinity;
  for (let i = 0; i < map.x.length; i++) {
    if (!topics.includes(map.topic[i])) { continue; }
    const px = (map.x[i] - view.xrange[0]) * sx, py = view.height - (map.y[i] - view.yrange[0]) * sy;
    const dx = Math.max(box.left - px, 0, px - box.right), dy = Math.max(box.top - py, 0, py - box.bottom);
    nearest = Math.min(nearest, Math.hypot(dx, dy));
  }
  return nearest;
}

for (const zoom of [1, 2, 4, 8]) {
  test(`at zoom ${zoom}, every label's box lies on a paper of its own cluster`, () => {
    const map = syntheticMap();
    const view = zoomedView(map, zoom);
    const labels = placeLabels(view, map, measure);
    const drawn = boxes(labels, view);
    const far = labels.map((label, i) => distanceToOwnPapers(drawn[i], label.unit.topics, map, view))
      .filter((distance) => distance > 1e-6);
    assert.deepEqual(far, []);
  });
}

// Topic 0 a ring of papers around topic 1: topic 0's middle (and median) lies on topic 1's papers.
function ringMap() {
  const map = { x: [], y: [], topic: [], outlier: [], topics: [{ topic: 0 }, { topic: 1 }],
    labels: { groups: [], topics: [{ lines: ["0: the ring"], topic: 0 }, { lines: ["1: the middle"], topic: 1 }] } };
  for (let i = 0; i < 400; i++) {
    const angle = 2 * Math.PI * i / 400;
    map.x.push(5 * Math.cos(angle)); map.y.push(5 * Math.sin(angle)); map.topic.push(0); map.outlier.push(0);
  }
  for (let i = 0; i < 100; i++) {
    map.x.push(0.3 * Math.cos(i)); map.y.push(0.3 * Math.sin(i * 1.7)); map.topic.push(1); map.outlier.push(0);
  }
  return map;
}

test("a cluster's label goes over its own papers, not over the other cluster at its middle", () => {
  const map = ringMap();
  const view = { width: 400, height: 400, xrange: [-6, 6], yrange: [-6, 6] };
  const labels = placeLabels(view, map, measure);
  const drawn = boxes(labels, view);
  const ring = labels.findIndex((label) => label.unit.topics[0] === 0);
  assert.ok(ring >= 0, "the ring is labelled");
  assert.equal(distanceToOwnPapers(drawn[ring], [0], map, view), 0);
  assert.ok(distanceToOwnPapers(drawn[ring], [1], map, view) > 50, "not over the middle's papers");
  assert.ok(labels.some((label) => label.unit.topics[0] === 1), "the middle is labelled too");
});

test("a label with no free place on its own papers is left out rather than put elsewhere", () => {
  // Topic 1's few papers lie under topic 0's label: any box on them would overlap it.
  const map = { x: [0, 0, 0, 0, 0.01, 0.01], y: [0, 0, 0, 0, 0, 0.01], topic: [0, 0, 0, 0, 1, 1], outlier: [0, 0, 0, 0, 0, 0],
    topics: [{ topic: 0 }, { topic: 1 }],
    labels: { groups: [], topics: [{ lines: ["0: many"], topic: 0 }, { lines: ["1: few"], topic: 1 }] } };
  const view = { width: 400, height: 400, xrange: [-1, 1], yrange: [-1, 1] };
  const labels = placeLabels(view, map, measure);
  assert.deepEqual(labels.map((label) => label.unit.topics[0]), [0]);
});

test("a cluster half out of view is labelled on its papers in view", () => {
  const map = { x: [0, 0.1, 10, 10.2], y: [0, 0.1, 0, 0.2], topic: [0, 0, 0, 0], outlier: [0, 0, 0, 0],
    topics: [{ topic: 0 }], labels: { groups: [], topics: [{ lines: ["0: far"], topic: 0 }] } };
  const view = { width: 400, height: 400, xrange: [9, 11], yrange: [-1, 1] };
  const [label] = placeLabels(view, map, measure);
  assert.ok([[10, 0], [10.2, 0.2]].some(([x, y]) => label.x === x && label.y === y), `${label.x}, ${label.y}`);
});
