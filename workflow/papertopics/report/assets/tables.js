// Sortable tables and the download buttons.
import { save } from "./dom.js";
import { unpackText } from "./page-data.js";

function sortTable(table, column, type) {
  const header = table.tHead.rows[0].cells[column];
  const ascending = header.getAttribute("aria-sort") !== "ascending";
  for (const cell of table.tHead.rows[0].cells) { cell.removeAttribute("aria-sort"); }
  header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
  const rows = Array.from(table.tBodies[0].rows);
  rows.sort((a, b) => {
    const x = a.cells[column].dataset.sort || a.cells[column].textContent;
    const y = b.cells[column].dataset.sort || b.cells[column].textContent;
    const order = type === "number" ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
    return ascending ? order : -order;
  });
  rows.forEach((row) => table.tBodies[0].append(row));
}

export function wireTables() {
  document.querySelectorAll("table.sortable").forEach((table) => {
    Array.from(table.tHead.rows[0].cells).forEach((cell, column) => {
      const sort = () => sortTable(table, column, cell.dataset.type);
      cell.addEventListener("click", sort);
      cell.addEventListener("keydown", (event) => { if (event.key === "Enter") { sort(); } });
    });
  });
}

export function wireDownloads() {
  document.querySelectorAll("button[data-download]").forEach((button) => {
    button.addEventListener("click", async () => {
      const text = await unpackText(button.dataset.download);
      save(new Blob([text], { type: "text/csv;charset=utf-8" }), button.dataset.filename);
    });
  });
}
