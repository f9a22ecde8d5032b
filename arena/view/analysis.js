// The analysis of a replay in the viewer page (arena analyze; arena/view/analysis_data.py).
//
// Loaded before viewer.js, it defines window.ArenaAnalysis; the viewer calls attach(viewer)
// once it has built the page and render() after every step it draws. Like viewer.js it decides
// nothing: every value, grade and sentence is in the viewer data's "analysis" entry. It draws
// the evaluation graph over the match (each seat's value of the move it played, mistakes
// marked, a click goes to that step), the grades in the move list, the played and preferred
// move of the current step, the preferred move of the next decision on the table (its tile in
// the hand, its end marked) and each seat's accuracy. Seen as one seat, another seat's preferred
// move is not shown: it would name tiles that seat could not see.
"use strict";
(function () {
  // The SVG namespace, read from the viewer's own drawings once it has built the page (the page
  // names no URL but the one viewer.js writes).
  let svgNs = null;
  const GRAPH_W = 600; // the graph's drawing units (it is scaled to the panel's width)
  const GRAPH_H = 160;
  const PAD = 22;
  const MARKED = ["inaccuracy", "mistake", "blunder"];

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function svg(tag, attrs) {
    const node = document.createElementNS(svgNs, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    return node;
  }

  class Analysis {
    constructor(viewer, data) {
      this.viewer = viewer;
      this.data = data;
      this.entries = data.steps;
      this.markMoveList();
      this.build();
    }

    /** The grade of every marked decision as a badge in the move list. */
    markMoveList() {
      this.entries.forEach((entry, i) => {
        const li = this.viewer.moveItems[i];
        if (!entry || !li) return;
        li.setAttribute("data-grade", entry.grade);
        if (!MARKED.includes(entry.grade)) return;
        li.classList.add("mv-" + entry.grade);
        li.append(el("span", { class: "mv-badge grade grade-" + entry.grade, title: entry.grade + ": lost " + entry.loss_text + " " + this.data.unit, text: { inaccuracy: "?!", mistake: "?", blunder: "??" }[entry.grade] }));
      });
    }

    build() {
      this.card = el("div", { id: "analysis-move", class: "analysis-move" });
      this.graph = this.buildGraph();
      const panel = el(
        "section",
        { id: "analysis", class: "analysis-panel" },
        el("div", { class: "side-head" }, el("h2", { text: "Analysis" }), el("span", { class: "muted small", text: this.data.bot + " · " + this.data.unit })),
        this.graph,
        this.card,
        this.summaryTable(),
      );
      const side = this.viewer.eventCard.parentNode;
      side.insertBefore(panel, this.viewer.eventCard.nextSibling);
    }

    /** The evaluation graph: one line per seat through the values of the moves it played. */
    buildGraph() {
      const steps = this.viewer.steps.length;
      const values = [0];
      for (const e of this.entries) if (e && e.choices > 1) values.push(e.played_value, e.best_value);
      let lo = Math.min(...values);
      let hi = Math.max(...values);
      if (hi - lo < 1) hi = lo + 1;
      this.x = (i) => PAD + (steps > 1 ? (i * (GRAPH_W - 2 * PAD)) / (steps - 1) : 0);
      this.y = (v) => GRAPH_H - PAD - ((v - lo) * (GRAPH_H - 2 * PAD)) / (hi - lo);
      const root = svg("svg", { id: "eval-graph", class: "eval-graph", viewBox: "0 0 " + GRAPH_W + " " + GRAPH_H, role: "img", "aria-label": "evaluation graph: each seat's value of the move it played, step by step" });
      root.append(svg("title", { text: "Each seat's estimated value of the move it played (" + this.data.unit + "); marks: inaccuracies, mistakes, blunders. Click to go to a step." }));
      root.append(svg("line", { class: "eval-zero", x1: PAD, x2: GRAPH_W - PAD, y1: this.y(0), y2: this.y(0) }));
      root.append(svg("text", { class: "eval-axis", x: 2, y: this.y(hi) + 4, text: hi.toFixed(0) }));
      root.append(svg("text", { class: "eval-axis", x: 2, y: this.y(lo) + 4, text: lo.toFixed(0) }));
      for (const start of this.viewer.handStarts) {
        root.append(svg("line", { class: "eval-hand", x1: this.x(start), x2: this.x(start), y1: PAD / 2, y2: GRAPH_H - PAD / 2 }));
      }
      const seats = this.viewer.data.seats.length;
      for (let seat = 0; seat < seats; seat++) {
        let points = [];
        const flush = () => {
          if (points.length) root.append(svg("polyline", { class: "eval-line seat-stroke" + seat, "data-seat": seat, points: points.join(" ") }));
          points = [];
        };
        this.entries.forEach((e, i) => {
          if (this.viewer.steps[i].kind === "hand_start") flush(); // each hand its own line
          if (e && e.seat === seat && e.choices > 1) points.push(this.x(i).toFixed(1) + "," + this.y(e.played_value).toFixed(1));
        });
        flush();
      }
      this.entries.forEach((e, i) => {
        if (!e || !MARKED.includes(e.grade)) return;
        const mark = svg("circle", { class: "eval-mark grade-" + e.grade, "data-step": i + 1, cx: this.x(i), cy: this.y(e.played_value), r: e.grade === "blunder" ? 5 : 4 });
        mark.append(svg("title", { text: "step " + (i + 1) + ": S" + e.seat + " " + e.grade + ", lost " + e.loss_text }));
        root.append(mark);
      });
      this.cursor = svg("line", { class: "eval-cursor", x1: 0, x2: 0, y1: PAD / 2, y2: GRAPH_H - PAD / 2 });
      root.append(this.cursor);
      root.addEventListener("click", (event) => {
        const box = root.getBoundingClientRect();
        const at = ((event.clientX - box.left) / box.width) * GRAPH_W;
        const i = Math.round(((at - PAD) * (steps - 1)) / (GRAPH_W - 2 * PAD));
        this.viewer.go(i);
      });
      return root;
    }

    summaryTable() {
      const rows = this.data.seats.map((s) => {
        const seat = this.viewer.data.seats[s.seat];
        return el(
          "tr",
          { "data-seat": s.seat },
          el("td", {}, el("span", { class: "seat-tag seat-bg" + s.seat, text: "S" + s.seat }), " " + seat.name),
          el("td", { class: "num accuracy", text: s.accuracy_text }),
          el("td", { class: "num", text: s.mean_loss_text }),
          el("td", { class: "num", text: s.decisions }),
          el("td", { class: "num", text: s.inaccuracies + " / " + s.mistakes + " / " + s.blunders }),
        );
      });
      return el(
        "table",
        { id: "accuracy", class: "accuracy-table" },
        el("thead", {}, el("tr", {}, el("th", { text: "seat" }), el("th", { class: "num", text: "accuracy" }), el("th", { class: "num", title: "mean loss per decision, " + this.data.unit, text: "loss" }), el("th", { class: "num", title: "moves with a choice", text: "decisions" }), el("th", { class: "num", title: "inaccuracies / mistakes / blunders (losses of " + this.data.thresholds.inaccuracy + ", " + this.data.thresholds.mistake + ", " + this.data.thresholds.blunder + " or more)", text: "?! / ? / ??" }))),
        el("tbody", {}, rows),
      );
    }

    /** Whether the current view may see what `seat` held (all hands, or that seat's view). */
    visible(seat) {
      return this.viewer.view === "all" || this.viewer.view === seat;
    }

    render() {
      const i = this.viewer.index;
      this.cursor.setAttribute("x1", this.x(i));
      this.cursor.setAttribute("x2", this.x(i));
      this.renderCard(this.entries[i]);
      this.markPreferred(this.entries[i + 1]);
    }

    renderCard(entry) {
      if (!entry) {
        this.card.replaceChildren(el("p", { class: "muted", text: "No decision at this step." }));
        return;
      }
      const shown = this.visible(entry.seat);
      const lines = [
        el("p", { class: "analysis-played" }, el("span", { class: "seat-tag seat-bg" + entry.seat, text: "S" + entry.seat }), " played " + entry.played + " ", entry.choices > 1 ? el("b", { text: entry.played_value_text }) : null),
      ];
      if (entry.choices === 1) {
        lines.push(el("p", { class: "muted", text: "Forced: the only legal move." }));
      } else if (!shown) {
        lines.push(el("p", { class: "muted", text: "Preferred move hidden in this seat's view; loss " + entry.loss_text + "." }));
      } else {
        lines.push(el("p", { class: "analysis-best" }, "preferred " + entry.best + " ", el("b", { text: entry.best_value_text })));
        lines.push(el("p", { class: "analysis-loss grade-" + entry.grade, "data-grade": entry.grade, text: entry.loss > 0 ? entry.grade + ": lost " + entry.loss_text + " " + this.data.unit : "best move" }));
      }
      if (entry.exact && shown) {
        lines.push(el("p", { class: "analysis-exact", title: "every hand and the boneyard order known", text: "double-dummy: played " + entry.exact.played_text + ", best " + entry.exact.best_text + " (" + entry.exact.best_move + ")" }));
      }
      this.card.replaceChildren(...lines);
    }

    /** The preferred move of the decision taken from the position shown: on the table. */
    markPreferred(next) {
      const app = this.viewer.app;
      for (const node of app.querySelectorAll(".preferred")) node.classList.remove("preferred");
      if (!next || next.choices === 1 || !this.visible(next.seat)) return;
      if (next.best_tile) {
        const key = next.best_tile[0] + "," + next.best_tile[1];
        const tile = app.querySelector('.seat[data-seat="' + next.seat + '"] .hand g[data-halves="' + key + '"]');
        if (tile) tile.closest("svg").classList.add("preferred");
      }
      if (next.best_end) {
        const marker = app.querySelector('#layout .end-marker[data-end="' + next.best_end + '"]');
        if (marker) marker.classList.add("preferred");
      }
    }
  }

  window.ArenaAnalysis = {
    /** The analysis drawn into `viewer`'s page, or null when its data has none. */
    attach(viewer) {
      const data = viewer.data.analysis;
      if (!data || !Array.isArray(data.steps)) return null;
      svgNs = viewer.app.querySelector("svg").namespaceURI;
      return new Analysis(viewer, data);
    },
  };
})();
