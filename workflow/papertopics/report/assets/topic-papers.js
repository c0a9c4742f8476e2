// Each topic card's list of all its papers, most central first (report/topic_cards.py orders
// them), a page at a time, and its download link: the topic's rows of the papers' table as CSV,
// built in the page when first clicked.
import { element } from "./dom.js";
import { unpackJson, unpackText } from "./page-data.js";
import { pageRange, topicCsv } from "./topic-csv.js";

const PAGE_SIZE = 25;

function paperItem(map, paper, abstractOf) {
  const summary = element("summary", {}, map.names[paper], " ", element("span", { className: "dump", textContent: map.dumps[paper] }));
  if (map.outlier[paper]) { summary.append(" ", element("span", { className: "assigned", textContent: "assigned outlier" })); }
  const url = map.urls[paper];
  if (url) { summary.append(" ", element("a", { href: url, rel: "noopener noreferrer", target: "_blank", textContent: "link" })); }
  const abstract = element("p");
  const details = element("details", { className: "paper" }, summary, abstract);
  details.addEventListener("toggle", () => {
    if (details.open && !abstract.textContent) { abstractOf(paper).then((text) => { abstract.textContent = text; }); }
  });
  return element("li", {}, details);
}

function pager(range, count, show) {
  const previous = element("button", { type: "button", textContent: "Previous", disabled: range.page === 0 });
  const next = element("button", { type: "button", textContent: "Next", disabled: range.page === range.pages - 1 });
  previous.addEventListener("click", () => show(range.page - 1));
  next.addEventListener("click", () => show(range.page + 1));
  return [previous, element("span", { className: "page-of", textContent: ` ${range.first + 1}–${range.end} of ${count} ` }), next];
}

export function wireTopicPapers(mapData, abstractOf) {
  let order = null, table = null;
  const orders = () => (order ??= unpackJson("topic-papers-order"));
  const tableText = () => (table ??= unpackText("papers-csv"));
  document.querySelectorAll(".topic-papers[data-topic]").forEach((box) => {
    const list = box.querySelector("ol.paper-list"), pages = box.querySelector(".pager");
    async function show(page) {
      const [map, all] = await Promise.all([mapData, orders()]);
      const papers = all[box.dataset.topic] || [];
      const range = pageRange(papers.length, page, PAGE_SIZE);
      list.start = range.first + 1;
      list.replaceChildren(...papers.slice(range.first, range.end).map((paper) => paperItem(map, paper, abstractOf)));
      pages.replaceChildren(...(range.pages > 1 ? pager(range, papers.length, show) : []));
      box.dataset.page = String(range.page);  // tests wait on it
    }
    const card = box.closest("details");
    card.addEventListener("toggle", () => { if (card.open && box.dataset.page === undefined) { show(0); } });
    const link = box.querySelector("a.topic-csv");
    link.addEventListener("click", async (event) => {
      if (link.getAttribute("href").startsWith("blob:")) { return; }  // built: the browser saves it
      event.preventDefault();
      const rows = (await orders())[box.dataset.topic] || [];
      const text = topicCsv(await tableText(), rows);
      link.href = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
      link.click();
    });
  });
}
