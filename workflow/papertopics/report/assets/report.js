"use strict";
// Everything shown from the data is set with textContent, never as HTML; what plotly shows
// (hover texts, map labels) is escaped for plotly, which reads a small HTML subset.
(function () {
  var GROUP_LAYER_MAX_ZOOM = 1.9;  // zoomed in less than this (x-range ratio), the map shows the topic groups
  var LABEL_FONT = { group: { size: 14, weight: "bold" }, topic: { size: 12, weight: "normal" } };
  var LABEL_PAD = 3;  // plotly's annotation borderpad, plus its 1px border
  var LABEL_GAP = 4;  // pixels kept free between two labels
  var RESULTS_SHOWN = 300;
  // Below this many papers plotly's SVG points draw sooner than a WebGL canvas is set up.
  var WEBGL_FROM_PAPERS = 2000;

  var parsed = new Promise(function (resolve) {
    if (document.readyState !== "loading") { resolve(); } else { document.addEventListener("DOMContentLoaded", resolve); }
  });

  var thisScript = document.currentScript;

  // A block's text, unpacked; blocks after this script (the tables) once the page is read: the
  // browser may still be reading one when it is asked for.
  function unpackText(id) {
    var block = document.getElementById(id);
    var later = block === null || (thisScript.compareDocumentPosition(block) & Node.DOCUMENT_POSITION_FOLLOWING);
    if (later && document.readyState === "loading") { return parsed.then(function () { return unpackText(id); }); }
    var binary = atob(block.textContent);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    // Read in pieces: Response.text() fails on the ~140 MB table of 100,000 papers.
    var reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))
      .pipeThrough(new TextDecoderStream()).getReader();
    var pieces = [];
    function read() {
      return reader.read().then(function (next) {
        if (next.done) { return pieces.join(""); }
        pieces.push(next.value);
        return read();
      });
    }
    return read();
  }

  function unpackJson(id) {
    return unpackText(id).then(JSON.parse);
  }

  function nextFrame() {
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  function painted() {  // resolves once the browser has painted what is drawn so far
    return new Promise(function (resolve) { requestAnimationFrame(function () { requestAnimationFrame(resolve); }); });
  }

  // ---- The map -------------------------------------------------------------------------------
  var mapDiv = document.getElementById("document-map");
  var map = null;  // the unpacked map-data block
  var initialWidth = 1;
  var measureContext = document.createElement("canvas").getContext("2d");
  var bodyFont = getComputedStyle(document.body).fontFamily;

  function plotlyText(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function plainText(plotlyText) {
    return plotlyText.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  }

  function labelSize(label, font) {
    measureContext.font = font.weight + " " + font.size + "px " + bodyFont;
    var lines = label.text.split("<br>");
    var width = Math.max.apply(null, lines.map(function (line) { return measureContext.measureText(plainText(line)).width; }));
    return { width: width + 2 * LABEL_PAD, height: lines.length * font.size * 1.3 + 2 * LABEL_PAD };
  }

  function overlaps(a, b) {
    return a.left < b.right + LABEL_GAP && b.left < a.right + LABEL_GAP &&
      a.top < b.bottom + LABEL_GAP && b.top < a.bottom + LABEL_GAP;
  }

  // The labels of the current layer that fit, largest first: each at its place, or shifted up or
  // down by its height when that is taken; a label that fits nowhere is left out.
  // ``view``: the plotting area's width and height in pixels and its x and y ranges.
  function placedLabels(view) {
    var xaxis = linearAxis(view.xrange, view.width, false), yaxis = linearAxis(view.yrange, view.height, true);
    var zoom = initialWidth / Math.abs(view.xrange[1] - view.xrange[0]);
    var useGroups = map.labels.groups.length > 0 && zoom < GROUP_LAYER_MAX_ZOOM;
    var layer = useGroups ? map.labels.groups : map.labels.topics;
    var font = useGroups ? LABEL_FONT.group : LABEL_FONT.topic;
    var plotWidth = view.width, plotHeight = view.height;
    var taken = [];
    var annotations = [];
    layer.forEach(function (label) {
      var px = xaxis.l2p(label.x), py = yaxis.l2p(label.y);
      if (!(px >= 0 && px <= plotWidth && py >= 0 && py <= plotHeight)) { return; }
      var size = labelSize(label, font);
      var shifts = [0, -size.height, size.height, -2 * size.height, 2 * size.height];
      for (var i = 0; i < shifts.length; i++) {
        var box = { left: px - size.width / 2, right: px + size.width / 2,
                    top: py + shifts[i] - size.height / 2, bottom: py + shifts[i] + size.height / 2 };
        if (box.left < 0 || box.right > plotWidth || box.top < 0 || box.bottom > plotHeight) { continue; }
        if (taken.some(function (other) { return overlaps(box, other); })) { continue; }
        taken.push(box);
        annotations.push({
          x: label.x, y: label.y, yshift: -shifts[i], text: label.text, showarrow: false,
          xanchor: "center", yanchor: "middle", borderpad: LABEL_PAD - 1,
          font: { size: font.size, color: "#222", family: bodyFont, weight: font.weight === "bold" ? 700 : 400 },
          bgcolor: "rgba(255,255,255,0.75)", captureevents: false,
        });
        return;
      }
    });
    return annotations;
  }

  function linearAxis(range, pixels, upwards) {
    return { l2p: function (value) {
      var share = (value - range[0]) / (range[1] - range[0]);
      return upwards ? pixels * (1 - share) : pixels * share;
    } };
  }

  function currentView() {
    var xaxis = mapDiv._fullLayout.xaxis, yaxis = mapDiv._fullLayout.yaxis;
    return { width: xaxis._length, height: yaxis._length, xrange: xaxis.range, yrange: yaxis.range };
  }

  var labelling = false;
  function relabel() {
    labelling = true;
    return Plotly.relayout(mapDiv, { annotations: placedLabels(currentView()) }).then(function () { labelling = false; });
  }

  function drawMap() {
    if (!mapDiv) { return Promise.resolve(); }
    return unpackJson(mapDiv.dataset.map).then(function (data) {
      map = data;
      initialWidth = Math.abs(map.ranges[0][1] - map.ranges[0][0]);
      var colours = map.topic.map(function (topic, index) {
        return map.outlier[index] ? map.topics[topic].assigned_colour : map.topics[topic].colour;
      });
      var trace = {
        type: map.ids.length >= WEBGL_FROM_PAPERS ? "scattergl" : "scatter", mode: "markers", x: map.x, y: map.y, customdata: map.ids,
        hovertext: hoverTexts(), hovertemplate: "%{hovertext}<extra></extra>",
        marker: { color: colours, size: map.marker_size, line: { width: 0 } },
        selected: { marker: { opacity: 1 } }, unselected: { marker: { opacity: 0.08 } },
        showlegend: false,
      };
      var margin = 4;
      var layout = {
        height: map.height, margin: { l: margin, r: margin, t: margin, b: margin },
        xaxis: { visible: false, range: map.ranges[0] }, yaxis: { visible: false, range: map.ranges[1] },
        plot_bgcolor: "white", hovermode: "closest", clickmode: "event", dragmode: "pan",
      };
      // The first labels are placed before the map is drawn, in the same pass.
      layout.annotations = placedLabels({ width: mapDiv.clientWidth - 2 * margin, height: map.height - 2 * margin,
                                          xrange: map.ranges[0], yrange: map.ranges[1] });
      var config = { responsive: true, displaylogo: false, scrollZoom: true };
      return Plotly.newPlot(mapDiv, [trace], layout, config);
    }).then(function () {
      mapDiv.on("plotly_click", function (event) {
        if (event.points.length) { showPaper(event.points[0].pointIndex); }
      });
      mapDiv.on("plotly_relayout", function (change) {
        if (!labelling && !("annotations" in change)) { relabel(); }
      });
    });
  }

  // A paper's name, dumps and topic; once the abstracts are unpacked, its first words too.
  function hoverTexts() {
    return map.ids.map(function (_id, index) {
      var topic = map.topics[map.topic[index]];
      var head = "<b>" + plotlyText(map.names[index]) + "</b><br>" + plotlyText(map.dumps[index] + " · " + topic.label);
      if (abstracts === null || !map.hover_chars) { return head; }
      return [head].concat(wrapped(snippet(abstracts[index], map.hover_chars), 70).map(plotlyText)).join("<br>");
    });
  }

  function snippet(text, chars) {
    if (text.length <= chars) { return text; }
    var cut = text.slice(0, chars), space = cut.lastIndexOf(" ");
    return (space > 0 ? cut.slice(0, space) : cut) + "…";
  }

  function wrapped(text, width) {
    var lines = [], line = "";
    text.split(/\s+/).filter(Boolean).forEach(function (word) {
      if (line && line.length + 1 + word.length > width) { lines.push(line); line = word; }
      else { line = line ? line + " " + word : word; }
    });
    if (line) { lines.push(line); }
    return lines;
  }

  function drawFigure(div) {
    return unpackJson(div.dataset.figure).then(function (spec) {
      return Plotly.newPlot(div, spec.data, spec.layout || {}, { responsive: true, displaylogo: false });
    });
  }

  // The charts other than the map are drawn one at a time as they come near the screen.
  function drawChartsWhenSeen() {
    var waiting = Array.prototype.slice.call(document.querySelectorAll("div.figure[data-figure]"));
    var drawing = Promise.resolve();
    function markIfAllDrawn() {
      if (waiting.length === 0) { document.body.dataset.drawn = "true"; }  // tests and the benchmark wait on it
    }
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting || waiting.indexOf(entry.target) === -1) { return; }
        observer.unobserve(entry.target);
        drawing = drawing.then(nextFrame).then(function () { return drawFigure(entry.target); }).then(function () {
          waiting.splice(waiting.indexOf(entry.target), 1);
          markIfAllDrawn();
        });
      });
    }, { rootMargin: "400px 0px" });
    waiting.forEach(function (div) { observer.observe(div); });
    markIfAllDrawn();
  }

  // ---- Papers: the full table (abstracts) is unpacked after the charts, for reading and search --
  // RFC 4180 rows, read in slices of a few milliseconds so that the page stays responsive.
  function parseCsv(text) {
    var rows = [], row = [], field = "", i = 0, n = text.length;
    function slice() {
      var until = performance.now() + 20;
      while (i < n && performance.now() < until) {
        for (var step = 0; step < 2000 && i < n; step++) {
          if (text.charCodeAt(i) === 34 && field === "") {  // a quoted field
            var end = i + 1, parts = [];
            for (;;) {
              var quote = text.indexOf('"', end);
              if (quote === -1) { quote = n; }
              parts.push(text.slice(end, quote));
              if (text.charCodeAt(quote + 1) === 34) { parts.push('"'); end = quote + 2; continue; }
              i = quote + 1;
              break;
            }
            field = parts.join("");
            continue;
          }
          var stop = i;
          while (stop < n) {
            var c = text.charCodeAt(stop);
            if (c === 44 || c === 10 || c === 13) { break; }
            stop++;
          }
          field += text.slice(i, stop);
          i = stop;
          var separator = text.charCodeAt(i);
          if (separator === 44) { row.push(field); field = ""; i++; }
          else if (separator === 10 || separator === 13) {
            row.push(field); field = ""; rows.push(row); row = [];
            i += (separator === 13 && text.charCodeAt(i + 1) === 10) ? 2 : 1;
          }
        }
      }
      if (i < n) { return nextFrame().then(slice); }
      if (field !== "" || row.length) { row.push(field); rows.push(row); }
      return rows;
    }
    return Promise.resolve().then(slice);
  }

  var abstracts = null;
  var abstractsReady = null;
  function loadAbstracts() {
    if (!abstractsReady) {
      abstractsReady = unpackText("papers-csv").then(parseCsv).then(function (rows) {
        var column = rows[0].indexOf("abstract");
        abstracts = rows.slice(1).map(function (row) { return row[column]; });
        if (map && map.hover_chars) { Plotly.restyle(mapDiv, { hovertext: [hoverTexts()] }); }
        return abstracts;
      });
    }
    return abstractsReady;
  }

  var shownPaper = null;
  function showPaper(index) {
    shownPaper = index;
    var panel = document.getElementById("paper-panel");
    panel.replaceChildren();
    if (abstracts === null) {
      loadAbstracts().then(function () { if (shownPaper === index) { showPaper(index); } });
      return;
    }
    var topic = map.topics[map.topic[index]];
    var heading = document.createElement("h3");
    heading.textContent = map.names[index];
    var meta = document.createElement("p");
    meta.className = "hint";
    meta.textContent = map.dumps[index] + " · topic " + topic.topic + ": " + topic.label + (map.outlier[index] ? " (outlier)" : "");
    var abstract = document.createElement("p");
    abstract.textContent = abstracts[index];
    panel.append(heading, meta, abstract);
    var url = map.urls[index];
    // The page only ever receives http(s) links (see web_link); checked again before use.
    if (url && /^https?:\/\//i.test(url)) {
      var link = document.createElement("a");
      link.href = url;
      link.rel = "noopener noreferrer";
      link.target = "_blank";
      link.textContent = url;
      panel.append(link);
    }
  }

  // ---- Search: every word of every name and abstract, indexed once; a query word matches the
  // papers holding a word that starts with it.
  var WORD = /[\p{L}\p{N}]+/gu;
  var searchIndex = null;  // { words: sorted array, papers: Map word -> array of paper indices }
  var searchReady = null;

  function buildSearchIndex() {
    if (!searchReady) {
      searchReady = Promise.all([mapDrawn, loadAbstracts()]).then(function () {
        var postings = new Map();
        var n = abstracts.length;
        function indexFrom(start) {
          var until = performance.now() + 20, i = start;
          for (; i < n && performance.now() < until; i++) {
            var words = (map.names[i] + " " + abstracts[i]).toLowerCase().match(WORD) || [];
            for (var w = 0; w < words.length; w++) {
              var list = postings.get(words[w]);
              // Papers are indexed in order: a word already listed for this one is its last entry.
              if (list === undefined) { postings.set(words[w], [i]); } else if (list[list.length - 1] !== i) { list.push(i); }
            }
          }
          if (i < n) { return nextFrame().then(function () { return indexFrom(i); }); }
          searchIndex = { words: Array.from(postings.keys()).sort(), papers: postings };
          return searchIndex;
        }
        return indexFrom(0);
      });
    }
    return searchReady;
  }

  function searchWords(query) {
    return Array.from(new Set(query.toLowerCase().match(WORD) || []));
  }

  function firstAtLeast(words, prefix) {
    var low = 0, high = words.length;
    while (low < high) {
      var middle = (low + high) >> 1;
      if (words[middle] < prefix) { low = middle + 1; } else { high = middle; }
    }
    return low;
  }

  // Papers holding, for every query word, a word that starts with it; in table order.
  function matchingPapers(words) {
    var n = map.ids.length;
    var count = new Uint16Array(n);
    words.forEach(function (prefix, round) {
      var start = firstAtLeast(searchIndex.words, prefix);
      for (var w = start; w < searchIndex.words.length && searchIndex.words[w].startsWith(prefix); w++) {
        var list = searchIndex.papers.get(searchIndex.words[w]);
        for (var j = 0; j < list.length; j++) {
          if (count[list[j]] === round) { count[list[j]] = round + 1; }
        }
      }
    });
    var found = [];
    for (var i = 0; i < n; i++) { if (count[i] === words.length) { found.push(i); } }
    return found;
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  function highlighted(text, words) {
    var fragment = document.createDocumentFragment();
    if (!words.length) { fragment.append(text); return fragment; }
    var pattern = new RegExp("(?<![\\p{L}\\p{N}])(" + words.map(escapeRegExp).join("|") + ")", "giu");
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

  function highlightOnMap(found) {
    if (!mapDiv || !mapDiv.data) { return Promise.resolve(); }
    return Plotly.restyle(mapDiv, { selectedpoints: [found] });
  }

  function runSearch(query) {
    var words = searchWords(query);
    var list = document.getElementById("search-results");
    var count = document.getElementById("search-count");
    if (!words.length) {
      list.replaceChildren();
      count.textContent = "";
      return highlightOnMap(null);
    }
    var found = matchingPapers(words);
    count.textContent = found.length + " of " + map.ids.length + " papers";
    var items = found.slice(0, RESULTS_SHOWN).map(function (index) {
      var topic = map.topics[map.topic[index]];
      var item = document.createElement("li");
      item.dataset.id = map.ids[index];
      item.append(highlighted(map.names[index], words));
      var where = document.createElement("span");
      where.className = "dump";
      where.textContent = " — topic " + topic.topic + ": " + topic.label;
      item.append(where);
      item.addEventListener("click", function () { showPaper(index); });
      return item;
    });
    list.replaceChildren.apply(list, items);
    return highlightOnMap(found);
  }

  // ---- Tables and downloads ---------------------------------------------------------------------
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

  function download(blockId, filename) {
    unpackText(blockId).then(function (text) {
      save(new Blob([text], { type: "text/csv;charset=utf-8" }), filename);
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

  var box = document.getElementById("search-box");
  var searching = Promise.resolve();
  box.addEventListener("input", function () {
    // Searches run one after another, each on the box's value when its turn comes.
    searching = searching.then(function () { return buildSearchIndex(); }).then(function () {
      var query = box.value;
      if (box.dataset.searched === query) { return null; }
      return runSearch(query).then(function () {
        box.dataset.searched = query;  // what the page has searched for (tests wait on it)
      });
    });
  });
  box.addEventListener("focus", buildSearchIndex);
  document.querySelectorAll("details.paper[data-index]").forEach(function (details) {
    details.addEventListener("toggle", function () {
      if (details.open) {
        loadAbstracts().then(function () { details.querySelector("p").textContent = abstracts[+details.dataset.index]; });
      }
    });
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

  var mapDrawn = drawMap();
  mapDrawn.then(function () {
    drawChartsWhenSeen();
    return painted();  // the papers' table is read once the map is on the screen
  }).then(buildSearchIndex).then(function () {
    document.body.dataset.searchReady = "true";
  });
})();
