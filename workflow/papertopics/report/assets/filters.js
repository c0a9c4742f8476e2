// What the map shows and the search keeps: points coloured by topic or by period (dump or
// year), with the legend of that colouring; a filter by period and one by topic, which dim the
// other points on the map, narrow the search's results and selections, and (the period filter)
// the topic table's counts. The controls are the page's (report/document_map.py).

const DIMMED = 0.85;  // a filtered-out point's colour, this far towards white

function lighter(colour, amount) {
  const channels = [1, 3, 5].map((i) => parseInt(colour.slice(i, i + 2), 16));
  return "#" + channels.map((c) => Math.round(c + (255 - c) * amount).toString(16).padStart(2, "0")).join("");
}

// The classes the map can be coloured by besides topic: the period, and each reception
// colouring (decision, rating, citations), each with ``colours`` and every paper's class in
// ``of_paper`` (-1: none, drawn in ``none_colour``). Undefined for "topic".
export function colouring(map, by) {
  return by === "period" ? map.periods : (map.colourings || []).find((candidate) => candidate.key === by);
}

// Each paper's colour: its topic's (lighter where HDBSCAN left it out), or its class's in the
// colouring chosen.
export function paperColours(map, by) {
  const classes = colouring(map, by);
  if (classes) {
    return classes.of_paper.map((at) => (at < 0 ? classes.none_colour : classes.colours[at]));
  }
  return map.topic.map((topic, paper) => (map.outlier[paper] ? map.topics[topic].assigned_colour : map.topics[topic].colour));
}

// Which papers the filters keep: every paper in one of ``periods`` (a Set of period indices, null
// for all), in ``topic`` (a position in map.topics, -1 for all) and by ``person`` (a country or an
// institution, a position in map.people.names, -1 for all); null when they keep all.
export function keptPapers(map, periods, topic, person = -1) {
  if (periods === null && topic < 0 && person < 0) { return null; }
  const kept = new Uint8Array(map.ids.length);
  for (let paper = 0; paper < kept.length; paper++) {
    kept[paper] = (topic < 0 || map.topic[paper] === topic) &&
      (person < 0 || map.people.of_paper[paper].includes(person)) &&
      (periods === null || map.periodsOf(paper).some((period) => periods.has(period))) ? 1 : 0;
  }
  return kept;
}

// ``colours`` with the papers the filters leave out turned pale.
export function dimmedColours(colours, kept) {
  if (kept === null) { return colours; }
  const pale = new Map();
  return colours.map((colour, paper) => {
    if (kept[paper]) { return colour; }
    if (!pale.has(colour)) { pale.set(colour, lighter(colour, DIMMED)); }
    return pale.get(colour);
  });
}

// Papers per topic (position in map.topics) among those ``kept`` (null: all).
export function topicCounts(map, kept) {
  const counts = new Int32Array(map.topics.length);
  map.topic.forEach((topic, paper) => { if (kept === null || kept[paper]) { counts[topic]++; } });
  return counts;
}

// The controls: ``onChange({ colours, kept })`` is called whenever one of them changes.
export function wireFilters(map, onChange) {
  const colourBy = document.getElementById("colour-by");
  const topicFilter = document.getElementById("topic-filter");
  const peopleFilter = document.getElementById("people-filter");  // none where people are left out
  const periodBoxes = Array.from(document.querySelectorAll("#period-filter input[data-period]"));
  const table = document.getElementById("topic-table");
  const by = () => (colourBy ? colourBy.value : "topic");  // no choice with one period and no reception
  let colours = paperColours(map, by());

  function periodsChosen() {
    const chosen = periodBoxes.filter((box) => box.checked).map((box) => Number(box.dataset.period));
    return chosen.length === periodBoxes.length ? null : new Set(chosen);
  }

  function showTopicCounts(periods) {
    if (!table) { return; }
    const counts = topicCounts(map, keptPapers(map, periods, -1));
    const total = counts.reduce((sum, n) => sum + n, 0);
    const position = new Map(map.topics.map((t, i) => [String(t.topic), i]));
    for (const row of table.tBodies[0].rows) {
      const count = counts[position.get(row.dataset.topic)] || 0, share = total ? count / total : 0;
      const [size, percent] = [row.querySelector("td.size"), row.querySelector("td.share")];
      size.textContent = String(count);
      size.dataset.sort = String(count);
      percent.textContent = (100 * share).toFixed(1) + "%";
      percent.dataset.sort = String(share);
    }
  }

  function changed() {
    const periods = periodsChosen();
    const kept = keptPapers(map, periods, Number(topicFilter.value), Number(peopleFilter ? peopleFilter.value : -1));
    document.getElementById("map").dataset.colourBy = by();
    showTopicCounts(periods);
    onChange({ colours: dimmedColours(colours, kept), kept });
  }

  colourBy?.addEventListener("change", () => { colours = paperColours(map, by()); changed(); });
  topicFilter.addEventListener("change", changed);
  peopleFilter?.addEventListener("change", changed);
  periodBoxes.forEach((box) => box.addEventListener("change", changed));
  // A topic of the legend, clicked, is the topic filter (clicked again, no filter).
  document.querySelectorAll("#topic-legend [data-topic]").forEach((entry) => {
    entry.addEventListener("click", () => {
      topicFilter.value = topicFilter.value === entry.dataset.topic ? "-1" : entry.dataset.topic;
      changed();
    });
  });
  document.querySelectorAll("#period-filter button[data-periods]").forEach((button) => {
    button.addEventListener("click", () => {
      periodBoxes.forEach((box) => { box.checked = button.dataset.periods === "all"; });
      changed();
    });
  });
  return {
    colours: () => colours,
    showTopic(topic) { topicFilter.value = String(topic); changed(); },
  };
}
