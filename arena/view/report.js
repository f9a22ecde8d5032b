(function () {
  "use strict";
  // Sortable columns: a click on a heading sorts by it (again: the other way).
  for (const table of document.querySelectorAll("table.sortable")) {
    const heads = [...table.tHead.rows[0].cells];
    heads.forEach((th, column) => th.addEventListener("click", () => {
      const up = !th.classList.contains("sorted-asc");
      heads.forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      th.classList.add(up ? "sorted-asc" : "sorted-desc");
      const body = table.tBodies[0];
      const key = (row) => {
        const cell = row.cells[column];
        const raw = cell.dataset.sort !== undefined ? cell.dataset.sort : cell.textContent.trim();
        const number = parseFloat(raw);
        return isNaN(number) || !/^[-+]?[0-9.]/.test(raw) ? raw.toLowerCase() : number;
      };
      const rows = [...body.rows].map((row, i) => [key(row), i, row]);
      rows.sort((a, b) => {
        if (a[0] < b[0]) return up ? -1 : 1;
        if (a[0] > b[0]) return up ? 1 : -1;
        return a[1] - b[1];
      });
      for (const [, , row] of rows) body.appendChild(row);
    }));
  }
  // The match list's filters.
  const bot = document.getElementById("filter-bot");
  const failed = document.getElementById("filter-failed");
  const text = document.getElementById("filter-text");
  const count = document.getElementById("match-count");
  const rows = [...document.querySelectorAll("tr.match")];
  function filter() {
    const who = bot.value;
    const words = text.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    for (const row of rows) {
      const ok = (!who || JSON.parse(row.dataset.bots).includes(who)) &&
        (!failed.checked || row.dataset.failed === "1") &&
        words.every((w) => row.dataset.words.includes(w));
      row.classList.toggle("hidden", !ok);
      if (ok) shown++;
    }
    count.textContent = shown + " of " + rows.length + " matches";
  }
  if (bot && failed && text && count) {
    bot.addEventListener("change", filter);
    failed.addEventListener("change", filter);
    text.addEventListener("input", filter);
    filter();
  }
})();
