"use strict";
// Everything shown from the data is set with textContent, never as HTML.
(function () {
  function readData(id) {
    return JSON.parse(document.getElementById(id).textContent);
  }

  function drawFigures() {
    document.querySelectorAll("div.figure[data-figure]").forEach(function (div) {
      var spec = readData(div.dataset.figure);
      var config = { responsive: true, displaylogo: false };
      Plotly.newPlot(div, spec.data, spec.layout || {}, config);
    });
  }

  var papers = readData("papers-data");
  var paperById = {};
  papers.forEach(function (paper) { paperById[paper.id] = paper; });
  var mapDiv = document.getElementById("document-map");

  function showPaper(id) {
    var paper = paperById[id];
    var panel = document.getElementById("paper-panel");
    panel.replaceChildren();
    if (!paper) { return; }
    var heading = document.createElement("h3");
    heading.textContent = paper.name;
    var meta = document.createElement("p");
    meta.className = "hint";
    meta.textContent = paper.dumps + " · topic " + paper.topic + ": " + paper.label + (paper.outlier ? " (outlier)" : "");
    var abstract = document.createElement("p");
    abstract.textContent = paper.abstract;
    panel.append(heading, meta, abstract);
    // The page only ever receives http(s) links (see web_link); checked again before use.
    if (paper.url && /^https?:\/\//i.test(paper.url)) {
      var link = document.createElement("a");
      link.href = paper.url;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      link.textContent = paper.url;
      panel.append(link);
    }
  }

  function searchWords(query) {
    return query.toLowerCase().split(/\s+/).filter(function (word) { return word.length > 0; });
  }

  // Lower-cased once, not on every keystroke: at 10,000 papers that was most of a search's time.
  var searchTexts = new Map();
  function matches(paper, words) {
    if (!searchTexts.has(paper.id)) { searchTexts.set(paper.id, (paper.name + " " + paper.abstract).toLowerCase()); }
    var text = searchTexts.get(paper.id);
    return words.every(function (word) { return text.indexOf(word) !== -1; });
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function highlighted(text, words) {
    var fragment = document.createDocumentFragment();
    if (!words.length) { fragment.append(text); return fragment; }
    var pattern = new RegExp("(" + words.map(escapeRegExp).join("|") + ")", "gi");
    var last = 0;
    text.replace(pattern, function (found, _group, offset) {
      fragment.append(text.slice(last, offset));
      var mark = document.createElement("mark");
      mark.textContent = found;
      fragment.append(mark);
      last = offset + found.length;
      return found;
    });
    fragment.append(text.slice(last));
    return fragment;
  }

  function highlightOnMap(matchingIds) {
    if (!mapDiv || !mapDiv.data) { return; }
    var selections = mapDiv.data.map(function (trace) {
      if (matchingIds === null) { return null; }
      var selected = [];
      trace.customdata.forEach(function (row, index) {
        if (matchingIds.has(row[0])) { selected.push(index); }
      });
      return selected;
    });
    Plotly.restyle(mapDiv, { selectedpoints: selections });
  }

  function runSearch(query) {
    var words = searchWords(query);
    var list = document.getElementById("search-results");
    var count = document.getElementById("search-count");
    list.replaceChildren();
    if (!words.length) {
      count.textContent = "";
      highlightOnMap(null);
        return;
    }
    var found = papers.filter(function (paper) { return matches(paper, words); });
    count.textContent = found.length + " of " + papers.length + " papers";
    found.slice(0, 300).forEach(function (paper) {
      var item = document.createElement("li");
      item.dataset.id = paper.id;
      item.append(highlighted(paper.name, words));
      var where = document.createElement("span");
      where.className = "dump";
      where.textContent = " — topic " + paper.topic + ": " + paper.label;
      item.append(where);
      item.addEventListener("click", function () { showPaper(paper.id); });
      list.append(item);
    });
    highlightOnMap(new Set(found.map(function (paper) { return paper.id; })));
  }

  function sortTable(table, column, type) {
    var header = table.tHead.rows[0].cells[column];
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell) { cell.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    rows.sort(function (a, b) {
      var x = a.cells[column].dataset.sort || a.cells[column].textContent;
      var y = b.cells[column].dataset.sort || b.cells[column].textContent;
      var order = type === "number" ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return ascending ? order : -order;
    });
    rows.forEach(function (row) { table.tBodies[0].append(row); });
  }

  function unpackGzipBlock(id) {
    var binary = atob(document.getElementById(id).textContent);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).blob();
  }

  function download(blockId, filename) {
    unpackGzipBlock(blockId).then(function (unpacked) {
      save(new Blob([unpacked], { type: "text/csv;charset=utf-8" }), filename);
    });
  }

  function save(blob, filename) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = filename;
    document.body.append(link);
    link.click();
    link.remove();
  }

  drawFigures();
  if (mapDiv && mapDiv.on) {
    mapDiv.on("plotly_click", function (event) {
      if (event.points.length) { showPaper(event.points[0].customdata[0]); }
    });
  }
  var box = document.getElementById("search-box");
  // Search once typing pauses, so that a fast typist does not queue one full search per key.
  var pendingSearch = null;
  box.addEventListener("input", function () {
    clearTimeout(pendingSearch);
    pendingSearch = setTimeout(function () {
      var query = box.value;
      runSearch(query);
      box.dataset.searched = query;  // what the page has searched for (tests wait on it)
    }, 150);
  });
  document.querySelectorAll("table.sortable").forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (cell, column) {
      var sort = function () { sortTable(table, column, cell.dataset.type); };
      cell.addEventListener("click", sort);
      cell.addEventListener("keydown", function (event) { if (event.key === "Enter") { sort(); } });
    });
  });
  document.querySelectorAll("button[data-download]").forEach(function (button) {
    button.addEventListener("click", function () { download(button.dataset.download, button.dataset.filename); });
  });
})();
