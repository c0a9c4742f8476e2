"use strict";
// Everything shown from the data is set with textContent, never as HTML; what plotly shows
// (hover texts, map labels) is escaped for plotly, which reads a small HTML subset.
(function () {
  var GROUP_LAYER_MAX_ZOOM = 1.9;  // zoomed in less than this (x-range ratio), the map shows the topic groups
  var LABEL_FONT = { group: { size: 14, weight: "bold" }, topic: { size: 12, weight: "normal" } };
  var LABEL_PAD = 3;  // plotly's annotation borderpad, plus its 1px border
  var LABEL_GAP = 4;  // pixels kept free between two labels
  var RESULTS_SHOWN = 100;  // the search lists its first papers; the map shows them all
  // Below this many papers plotly's SVG points draw sooner than a WebGL canvas is set up.
  var WEBGL_FROM_PAPERS = 2000;

  // ---- Also run in the search engine's worker (see startSearchEngine): no use of the page here --
  // Base64 of gzip, as the page's blocks hold it, to text.
  function gunzipBase64(base64) {
    var binary = atob(base64);
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

  // A text's first ``chars`` characters, cut at a space.
  function snippet(text, chars) {
    if (text.length <= chars) { return text; }
    var cut = text.slice(0, chars), space = cut.lastIndexOf(" ");
    return (space > 0 ? cut.slice(0, space) : cut) + "…";
  }

  // The search engine: every word of every name and abstract, indexed once; a query word matches
  // the papers holding a word that starts with it. Names are indexed as soon as they come, then
  // abstracts once the papers' table comes and is unpacked; until then a query is answered from
  // what is indexed, marked incomplete. The engine keeps the abstracts: the page gets their first
  // words for the hover labels, and a paper's whole abstract when it asks for it (the page
  // receiving all 100,000 of them held up its drawing of the charts for seconds).
  // ``post`` sends a message to the page.
  function searchEngine(post) {
    var WORD = /[\p{L}\p{N}]+/gu;
    var postings = new Map();  // word -> paper indices, ascending within each pass over the papers
    var sortedWords = null;    // postings' words sorted; null after a new word is indexed
    var papers = 0, abstractsIndexed = 0, complete = false;
    var abstracts = null;
    var abstractsAsked = [];  // papers whose abstract the page asked for before the table was read

    // Long work is done in slices of SLICE_MS, with a pause between them in which a query is
    // answered; a message, unlike setTimeout, is not delayed by the browser between slices.
    // While the page is drawing a chart it holds the engine, which then rests a slice's length
    // after each slice: on two busy cores the engine's work slows the drawing down, and stopping it
    // outright until the charts are drawn would delay a 10,000-paper search by seconds for nothing.
    var SLICE_MS = 20;
    var held = false;
    function pause() {
      return new Promise(function (resolve) {
        var channel = new MessageChannel();
        channel.port1.onmessage = function () { if (held) { setTimeout(resolve, SLICE_MS); } else { resolve(); } };
        channel.port2.postMessage(null);
      });
    }

    // RFC 4180 rows, read in slices (see pause).
    function parseCsv(text) {
      var rows = [], row = [], field = "", i = 0, n = text.length;
      function slice() {
        var until = performance.now() + SLICE_MS;
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
        if (i < n) { return pause().then(slice); }
        if (field !== "" || row.length) { row.push(field); rows.push(row); }
        return rows;
      }
      return Promise.resolve().then(slice);
    }

    function index(text, paper) {
      var words = text.toLowerCase().match(WORD) || [];
      for (var w = 0; w < words.length; w++) {
        var list = postings.get(words[w]);
        if (list === undefined) { postings.set(words[w], [paper]); sortedWords = null; }
        else if (list[list.length - 1] !== paper) { list.push(paper); }
      }
    }

    function indexAbstracts(start) {
      var until = performance.now() + SLICE_MS, i = start;
      for (; i < abstracts.length && performance.now() < until; i++) { index(abstracts[i], i); }
      abstractsIndexed = i;
      // Slices, so that a query that comes meanwhile is answered from what is indexed so far.
      if (i < abstracts.length) { return pause().then(function () { return indexAbstracts(i); }); }
      complete = true;
      sortedWords = Array.from(postings.keys()).sort();  // now, rather than at the next key typed
      post({ type: "ready" });
    }

    function sendAbstract(paper) {
      post({ type: "abstract", paper: paper, text: abstracts[paper] });
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
    function matching(queryWords) {
      if (sortedWords === null) { sortedWords = Array.from(postings.keys()).sort(); }
      var count = new Uint16Array(papers);
      queryWords.forEach(function (prefix, round) {
        for (var w = firstAtLeast(sortedWords, prefix); w < sortedWords.length && sortedWords[w].startsWith(prefix); w++) {
          var list = postings.get(sortedWords[w]);
          for (var j = 0; j < list.length; j++) {
            if (count[list[j]] === round) { count[list[j]] = round + 1; }
          }
        }
      });
      var found = [];
      for (var i = 0; i < papers; i++) { if (count[i] === queryWords.length) { found.push(i); } }
      return Int32Array.from(found);
    }

    return function receive(message) {
      if (message.type === "names") {  // { names }: the papers' names, in table order
        papers = message.names.length;
        message.names.forEach(index);
        post({ type: "names indexed" });
      } else if (message.type === "table") {  // { csv, hoverChars }: the papers' table, base64 of gzip
        gunzipBase64(message.csv).then(parseCsv).then(function (rows) {
          var column = rows[0].indexOf("abstract");
          abstracts = rows.slice(1).map(function (row) { return row[column]; });
          abstractsAsked.forEach(sendAbstract);
          abstractsAsked = [];
          post({ type: "snippets", snippets: message.hoverChars ? abstracts.map(function (text) {
            return snippet(text, message.hoverChars);
          }) : null });
          return indexAbstracts(0);
        });
      } else if (message.type === "hold") {  // { held }: whether the page is drawing
        held = message.held;
      } else if (message.type === "abstract") {  // { paper }: its whole abstract, once the table is read
        if (abstracts === null) { abstractsAsked.push(message.paper); } else { sendAbstract(message.paper); }
      } else if (message.type === "search") {  // { words }
        var found = matching(message.words);
        post({ type: "found", papers: found, complete: complete, indexed: abstractsIndexed / Math.max(papers, 1) },
             [found.buffer]);
      }
    };
  }

  // The engine in a worker made from this script's own functions (a Blob URL: the report stays
  // one file, and works from file://), so that indexing 100,000 abstracts leaves the page free;
  // on the page itself where the browser allows no worker. Returns a function to send it a message.
  function startSearchEngine(receive) {
    try {
      var source = [gunzipBase64, snippet, searchEngine].map(String).join("\n") +
        "\nvar receive = searchEngine(function (message, transfer) { postMessage(message, transfer || []); });" +
        "\nonmessage = function (event) { receive(event.data); };";
      var worker = new Worker(URL.createObjectURL(new Blob([source], { type: "text/javascript" })));
      worker.onmessage = function (event) { receive(event.data); };
      return function (message) { worker.postMessage(message); };
    } catch (error) {
      var engine = searchEngine(function (message) { setTimeout(function () { receive(message); }, 0); });
      return function (message) { setTimeout(function () { engine(message); }, 0); };
    }
  }

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
    return gunzipBase64(block.textContent);
  }

  function unpackJson(id) {
    return unpackText(id).then(JSON.parse);
  }

  function nextFrame() {
    return new Promise(function (resolve) { setTimeout(resolve, 0); });
  }

  function whenIdle(callback) {
    if (window.requestIdleCallback) { requestIdleCallback(callback, { timeout: 3000 }); } else { setTimeout(callback, 0); }
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
    return mapData.then(function (data) {
      map = data;
      initialWidth = Math.abs(map.ranges[0][1] - map.ranges[0][0]);
      pointColours = map.topic.map(function (topic, index) {
        return map.outlier[index] ? map.topics[topic].assigned_colour : map.topics[topic].colour;
      });
      var trace = {
        type: map.ids.length >= WEBGL_FROM_PAPERS ? "scattergl" : "scatter", mode: "markers", x: map.x, y: map.y, customdata: map.ids,
        hovertext: hoverTexts(), hovertemplate: "%{hovertext}<extra></extra>",
        marker: { color: pointColours, size: map.marker_size, line: { width: 0 } },
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
        if (highlightedPapers !== null) { drawHighlight(null); }
      });
      mapDiv.on("plotly_relayouting", function (change) {
        if (highlightedPapers !== null) { drawHighlight(movingRanges(change)); }
      });
    });
  }

  // A paper's name, dumps and topic; once the search engine has sent them, its abstract's first words too.
  function hoverTexts() {
    return map.ids.map(function (_id, index) {
      var topic = map.topics[map.topic[index]];
      var head = "<b>" + plotlyText(map.names[index]) + "</b><br>" + plotlyText(map.dumps[index] + " · " + topic.label);
      if (snippets === null) { return head; }
      return [head].concat(wrapped(snippets[index], 70).map(plotlyText)).join("<br>");
    });
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

  // The search engine slows down while charts are being drawn (see searchEngine's pause).
  var chartsBeingDrawn = 0;
  function holdEngine(change) {
    if (!mapDiv) { return; }  // no papers, no search engine
    var wasHeld = chartsBeingDrawn > 0;
    chartsBeingDrawn += change;
    if (wasHeld !== chartsBeingDrawn > 0) {
      startSearch().then(function () { sendToEngine({ type: "hold", held: chartsBeingDrawn > 0 }); });
    }
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
        holdEngine(+1);
        drawing = drawing.then(nextFrame).then(function () { return drawFigure(entry.target); }).then(function () {
          waiting.splice(waiting.indexOf(entry.target), 1);
          markIfAllDrawn();
        }).finally(function () { holdEngine(-1); });  // a chart that failed to draw holds the engine no longer
      });
    }, { rootMargin: "400px 0px" });
    waiting.forEach(function (div) { observer.observe(div); });
    markIfAllDrawn();
  }

  // ---- Papers and search: the papers' table (abstracts) is unpacked and indexed by the search
  // engine while the map is drawn; the page gets from it the hover snippets, and a paper's
  // abstract when the paper is shown (read on the map or in a topic card).
  var snippets = null;  // the abstracts' first map.hover_chars characters, once the engine sends them
  var abstractWanted = new Map();  // paper -> resolves of the promises of its abstract
  var sendToEngine = null;
  var answerFound = null;  // resolves the query in flight with the engine's answer

  function onEngineMessage(message) {
    if (message.type === "abstract") {
      var waiting = abstractWanted.get(message.paper);
      abstractWanted.delete(message.paper);
      waiting.forEach(function (resolve) { resolve(message.text); });
    } else if (message.type === "snippets") {
      snippets = message.snippets;
      // The hover snippets (a second of work at 100,000 papers, and a redraw of the map) wait for
      // a moment the page is idle: the charts being drawn come first.
      whenIdle(function () {
        var done = snippets ? Plotly.restyle(mapDiv, { hovertext: [hoverTexts()] }) : Promise.resolve();
        done.then(function () { mapDiv.dataset.hoverSnippets = "true"; });  // tests wait on it
      });
    } else if (message.type === "names indexed") {
      document.body.dataset.namesSearchable = "true";  // the benchmark and tests wait on it
    } else if (message.type === "found") {
      answerFound(message);
    } else if (message.type === "ready") {
      document.body.dataset.searchReady = "true";
      search();  // a query answered before the abstracts were indexed is answered again, in full
    }
  }

  var engineStarted = null;
  function startSearch() {
    if (!engineStarted) {
      // The names as soon as the map's data is unpacked; the papers' table once the page is read.
      engineStarted = mapData.then(function (data) {
        sendToEngine = startSearchEngine(onEngineMessage);
        sendToEngine({ type: "names", names: data.names });
      });
      Promise.all([engineStarted, parsed]).then(function () {
        sendToEngine({ type: "table", csv: document.getElementById("papers-csv").textContent, hoverChars: map.hover_chars });
      });
    }
    return engineStarted;
  }

  // A paper's whole abstract, from the search engine (once it has read the papers' table).
  function abstractOf(index) {
    return startSearch().then(function () {
      return new Promise(function (resolve) {
        if (!abstractWanted.has(index)) {
          abstractWanted.set(index, []);
          sendToEngine({ type: "abstract", paper: index });
        }
        abstractWanted.get(index).push(resolve);
      });
    });
  }

  var shownPaper = null;
  function showPaper(index) {
    shownPaper = index;
    var panel = document.getElementById("paper-panel");
    panel.replaceChildren();
    abstractOf(index).then(function (text) { if (shownPaper === index) { fillPaperPanel(panel, index, text); } });
  }

  function fillPaperPanel(panel, index, abstractText) {
    var topic = map.topics[map.topic[index]];
    var heading = document.createElement("h3");
    heading.textContent = map.names[index];
    var meta = document.createElement("p");
    meta.className = "hint";
    meta.textContent = map.dumps[index] + " · topic " + topic.topic + ": " + topic.label + (map.outlier[index] ? " (outlier)" : "");
    var abstract = document.createElement("p");
    abstract.textContent = abstractText;
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

  // ---- Search --------------------------------------------------------------------------------
  var WORD = /[\p{L}\p{N}]+/gu;

  function searchWords(query) {
    return Array.from(new Set(query.toLowerCase().match(WORD) || []));
  }

  function askEngine(words) {
    return new Promise(function (resolve) {
      answerFound = resolve;
      sendToEngine({ type: "search", words: words });
    });
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

  // The search's papers on the map: a layer over the points (under the labels) that dims them all
  // and draws the found papers in their colours. Drawing only the found papers on a canvas of its
  // own costs a fraction of plotly redrawing its 100,000 WebGL points.
  var highlightCanvas = null;
  var highlightedPapers = null;  // Int32Array of paper indices, null when nothing is searched
  var pointColours = [];

  function drawHighlight(ranges) {
    var layout = mapDiv._fullLayout;
    if (!layout) { return; }
    if (!highlightCanvas) {
      highlightCanvas = document.createElement("canvas");
      highlightCanvas.className = "map-highlight";
    }
    if (!highlightCanvas.isConnected) {  // above the points (WebGL or SVG), below the labels' layer
      mapDiv.querySelector(".gl-container").after(highlightCanvas);
    }
    var ratio = window.devicePixelRatio || 1;
    var pixelWidth = Math.round(layout.width * ratio), pixelHeight = Math.round(layout.height * ratio);
    if (highlightCanvas.width !== pixelWidth || highlightCanvas.height !== pixelHeight) {
      highlightCanvas.width = pixelWidth;
      highlightCanvas.height = pixelHeight;
      highlightCanvas.style.width = layout.width + "px";
      highlightCanvas.style.height = layout.height + "px";
    }
    var context = highlightCanvas.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, layout.width, layout.height);
    highlightCanvas.highlighted = highlightedPapers;  // what is drawn (tests read it)
    if (highlightedPapers === null) { return; }
    var xaxis = layout.xaxis, yaxis = layout.yaxis;
    var xrange = ranges ? ranges.x : xaxis.range, yrange = ranges ? ranges.y : yaxis.range;
    var left = xaxis._offset, top = yaxis._offset, plotWidth = xaxis._length, plotHeight = yaxis._length;
    context.save();
    context.beginPath();
    context.rect(left, top, plotWidth, plotHeight);
    context.clip();
    context.fillStyle = "rgba(255,255,255,0.9)";
    context.fillRect(left, top, plotWidth, plotHeight);
    var xscale = plotWidth / (xrange[1] - xrange[0]), yscale = plotHeight / (yrange[1] - yrange[0]);
    var radius = map.marker_size / 2;
    var byColour = new Map();
    for (var k = 0; k < highlightedPapers.length; k++) {
      var paper = highlightedPapers[k], colour = pointColours[paper], path = byColour.get(colour);
      if (path === undefined) { path = new Path2D(); byColour.set(colour, path); }
      var px = left + (map.x[paper] - xrange[0]) * xscale, py = top + plotHeight - (map.y[paper] - yrange[0]) * yscale;
      path.moveTo(px + radius, py);
      path.arc(px, py, radius, 0, 2 * Math.PI);
    }
    byColour.forEach(function (path, colour) { context.fillStyle = colour; context.fill(path); });
    context.restore();
  }

  // The ranges plotly reports while the map is dragged or zoomed (it redraws its points on each).
  function movingRanges(change) {
    if (!change || !("xaxis.range[0]" in change) || !("yaxis.range[0]" in change)) { return null; }
    return { x: [change["xaxis.range[0]"], change["xaxis.range[1]"]], y: [change["yaxis.range[0]"], change["yaxis.range[1]"]] };
  }

  var shown = { query: null, complete: false };
  function showResults(query, words, answer) {
    var list = document.getElementById("search-results");
    var count = document.getElementById("search-count");
    if (answer === null) {
      list.replaceChildren();
      count.textContent = "";
      highlightedPapers = null;
    } else {
      var found = answer.papers;
      count.textContent = found.length + " of " + map.ids.length + " papers" +
        (found.length > RESULTS_SHOWN ? " (the first " + RESULTS_SHOWN + " listed)" : "") +
        (answer.complete ? "" : " so far: indexing abstracts… (" + Math.floor(100 * answer.indexed) + "%)");
      var items = Array.prototype.slice.call(found.subarray(0, RESULTS_SHOWN)).map(function (index) {
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
      highlightedPapers = found;
    }
    drawHighlight(null);
    shown = { query: query, complete: answer === null || answer.complete };
    // What the page has searched for with the whole index (tests and the benchmark wait on it).
    if (shown.complete) { box.dataset.searched = query; }
  }

  // Searches run one after another, each on the box's value when its turn comes: keys typed while
  // one runs are answered together by the next.
  var searching = Promise.resolve();
  function search() {
    searching = searching.then(function () {
      var query = box.value;
      if (shown.query === query && shown.complete) { return null; }
      var words = searchWords(query);
      if (!words.length) { return showResults(query, words, null); }
      if (sendToEngine === null) { document.getElementById("search-count").textContent = "indexing…"; }
      return Promise.all([startSearch(), mapDrawn]).then(function () { return askEngine(words); }).then(function (answer) {
        showResults(query, words, answer);
      });
    });
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
  box.addEventListener("input", search);
  box.addEventListener("focus", startSearch);
  if (box.value) { search(); }  // typed while the page was still being read, before this script ran
  document.querySelectorAll("details.paper[data-index]").forEach(function (details) {
    details.addEventListener("toggle", function () {
      if (details.open) {
        abstractOf(+details.dataset.index).then(function (text) { details.querySelector("p").textContent = text; });
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

  var mapData = mapDiv ? unpackJson(mapDiv.dataset.map) : null;
  var mapDrawn = drawMap();
  mapDrawn.then(drawChartsWhenSeen);
  // The search engine reads the papers' table beside the drawing of the map (in its worker).
  if (mapDiv) { startSearch(); }
})();
