// The replay viewer of the arena (arena view REPLAY --html OUT.html).
//
// This script draws what Python computed (arena/view/html.py): every board, sentence and piece
// of evidence is in the embedded viewer data. It decides no rule; it only lays the chain out on
// the table, shows or hides tiles, and steps through the list. It names no game: the page's
// table data (arena/view/table.py) says what the game's table has (a spinner and its arms, the
// count of the open ends, scoring during a hand, a boneyard to draw from), the names of its ends
// and what its special tiles are called, and the table is drawn by those features.
"use strict";
(function () {
  /** The viewer data layout this script reads (VIEWER_DATA_VERSION in arena/view/html.py).
   * Seeds and request ids are strings there, and so is any integer beyond 2**53 - 1: a JS
   * number would round them, so they are shown as they are and never computed with. */
  const VIEWER_DATA_VERSION = 2;
  /** The replay formats whose viewer data this script understands. */
  const REPLAY_FORMATS = [1, 2];
  /** The table data layout this script reads (TABLE_DATA_VERSION in arena/view/table.py). */
  const TABLE_DATA_VERSION = 1;
  /** The table of a game the page has no table data for: a plain line, as in the data. */
  const PLAIN_TABLE = {
    table_data: TABLE_DATA_VERSION,
    title: "",
    features: { spinner: false, end_count: false, hand_scoring: false, draws: true },
    line_ends: ["left", "right"],
    arm_ends: [],
    special_label: "special tile",
    join_rule: "",
    boneyard_label: "boneyard",
    count_multiple: 0,
    count_multiple_words: "",
  };
  const SVG_NS = "http://www.w3.org/2000/svg"; // a namespace name, never fetched
  const SPEEDS = [
    ["0.5×", 1600],
    ["1×", 800],
    ["2×", 400],
    ["4×", 200],
    ["8×", 100],
  ];
  const DEFAULT_SPEED = 1;
  const UNIT = 34; // pixels per half tile on the table
  const HAND_UNIT = 22; // pixels per half tile in a hand
  /** The evidence labels of the last lines exchanged with a bot (EXCHANGED_LABELS in html.py). */
  const EXCHANGED_LABELS = ["referee → bot", "bot → referee"];

  // -- small DOM helpers (text always goes in as text, never as markup) ----------------------

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
  }

  function fmtMs(ms) {
    if (ms === null || ms === undefined) return "";
    if (ms < 10) return ms.toFixed(1) + " ms";
    return Math.round(ms) + " ms";
  }

  function tileKey(t) {
    return t[0] + "," + t[1];
  }

  // -- dominoes as SVG ---------------------------------------------------------------------

  // Pip centres in a unit square, per value, for a half drawn across (rows of three for six).
  const PIPS_ACROSS = {
    0: [],
    1: [[0.5, 0.5]],
    2: [[0.27, 0.27], [0.73, 0.73]],
    3: [[0.27, 0.27], [0.5, 0.5], [0.73, 0.73]],
    4: [[0.27, 0.27], [0.73, 0.27], [0.27, 0.73], [0.73, 0.73]],
    5: [[0.27, 0.27], [0.73, 0.27], [0.5, 0.5], [0.27, 0.73], [0.73, 0.73]],
    6: [[0.25, 0.28], [0.5, 0.28], [0.75, 0.28], [0.25, 0.72], [0.5, 0.72], [0.75, 0.72]],
  };

  function pipsOf(value, vertical) {
    const pips = PIPS_ACROSS[value] || [];
    // On a tile standing up, the six runs along the tile: swap the axes.
    return vertical && value === 6 ? pips.map(([x, y]) => [y, x]) : pips;
  }

  /**
   * One domino as an SVG group, in tile units: the first half's square at (x1, y1), the
   * second's at (x2, y2) (adjacent squares). Options: special (a special tile of the game), placed (just played),
   * faceDown, cls (extra classes).
   */
  function domino(half1, half2, opts) {
    const o = opts || {};
    const x = Math.min(half1.x, half2.x);
    const y = Math.min(half1.y, half2.y);
    const vertical = half1.x === half2.x;
    const w = vertical ? 1 : 2;
    const h = vertical ? 2 : 1;
    const gap = 0.055;
    const classes = ["tile", o.faceDown ? "face-down" : "face-up"];
    if (o.special) classes.push("special");
    if (o.placed) classes.push("placed");
    if (o.cls) classes.push(o.cls);
    const g = svg("g", { class: classes.join(" ") });
    if (o.placed) {
      g.append(
        svg("rect", {
          class: "glow",
          x: x - 0.05,
          y: y - 0.05,
          width: w + 0.1,
          height: h + 0.1,
          rx: 0.2,
        }),
      );
    }
    g.append(
      svg("rect", {
        class: "shadow",
        x: x + gap + 0.03,
        y: y + gap + 0.06,
        width: w - 2 * gap,
        height: h - 2 * gap,
        rx: 0.14,
      }),
    );
    g.append(
      svg("rect", {
        class: "body",
        x: x + gap,
        y: y + gap,
        width: w - 2 * gap,
        height: h - 2 * gap,
        rx: 0.14,
      }),
    );
    if (o.faceDown) {
      g.append(
        svg("rect", {
          class: "back-inlay",
          x: x + 0.16,
          y: y + 0.16,
          width: w - 0.32,
          height: h - 0.32,
          rx: 0.08,
        }),
      );
      g.append(svg("circle", { class: "back-dot", cx: x + w / 2, cy: y + h / 2, r: 0.12 }));
      return g;
    }
    if (vertical) {
      g.append(svg("line", { class: "divider", x1: x + 0.16, x2: x + 0.84, y1: y + 1, y2: y + 1 }));
    } else {
      g.append(svg("line", { class: "divider", x1: x + 1, x2: x + 1, y1: y + 0.16, y2: y + 0.84 }));
    }
    g.append(svg("circle", { class: "spinner", cx: x + w / 2, cy: y + h / 2, r: 0.055 }));
    for (const half of [half1, half2]) {
      for (const [px, py] of pipsOf(half.v, vertical)) {
        g.append(svg("circle", { class: "pip", cx: half.x + px, cy: half.y + py, r: 0.09 }));
      }
    }
    return g;
  }

  /** A tile standing up in a hand (its own small SVG element). */
  function handTile(tile, opts) {
    const o = opts || {};
    const u = o.unit || HAND_UNIT;
    const root = svg("svg", {
      class: "hand-tile",
      width: u + 2,
      height: 2 * u + 2,
      viewBox: "-0.05 -0.05 1.1 2.1",
      "aria-label": o.faceDown ? "a hidden tile" : tile[0] + "-" + tile[1],
      role: "img",
    });
    const g = domino({ x: 0, y: 0, v: tile ? tile[0] : 0 }, { x: 0, y: 1, v: tile ? tile[1] : 0 }, o);
    if (!o.faceDown) g.setAttribute("data-halves", tileKey(tile));
    root.append(g);
    return root;
  }

  // -- the chain on the table --------------------------------------------------------------

  /**
   * Where each tile of the layout lies on a table `width` halves wide. The lead tile (layout
   * index `anchor`) sits in the middle of row 0; the line's last end (`ends[1]`: right) runs
   * right and snakes downward, its first (`ends[0]`: left) runs left and snakes upward, so a
   * tile once placed keeps its place on the table as the chain grows. Returns the tiles (each
   * with its two halves, inner half first) and, per end, the square where the next tile would
   * go (for the open-end marker).
   */
  function chainGeometry(layout, anchor, width, ends) {
    const tiles = [];
    const slots = {};
    if (!layout.length) return { tiles, slots };
    const x0 = Math.floor(width / 2) - 1;
    const lead = layout[anchor];
    tiles.push({ index: anchor, halves: [{ x: x0, y: 0, v: lead[0] }, { x: x0 + 1, y: 0, v: lead[1] }] });
    const arms = [
      { name: ends[1], forward: true, cur: { x: x0 + 2, y: 0, dir: 1, turn: 1 }, indices: [] },
      { name: ends[0], forward: false, cur: { x: x0, y: 0, dir: -1, turn: -1 }, indices: [] },
    ];
    for (let i = anchor + 1; i < layout.length; i++) arms[0].indices.push(i);
    for (let i = anchor - 1; i >= 0; i--) arms[1].indices.push(i);
    for (const arm of arms) {
      for (const i of arm.indices) {
        const [a, b] = layout[i];
        const [inner, outer] = arm.forward ? [a, b] : [b, a];
        const [p, q] = advance(arm.cur, width);
        tiles.push({ index: i, halves: [{ ...p, v: inner }, { ...q, v: outer }] });
      }
      slots[arm.name] = advance({ ...arm.cur }, width)[0];
    }
    return { tiles, slots };
  }

  /**
   * The squares of the next tile from cursor `cur` (moved past it): straight on along the
   * row, or, at the edge of the table, a corner: a tile standing across the gap to the next
   * row (rows are two halves apart, so the chain reads as a snake).
   */
  function advance(cur, width) {
    const t = cur.turn;
    if (cur.dir === 1) {
      if (cur.x + 2 <= width) {
        cur.x += 2;
        return [{ x: cur.x - 2, y: cur.y }, { x: cur.x - 1, y: cur.y }];
      }
      const c = cur.x - 1; // under (or over) the row's last half
      cur.y += 2 * t;
      cur.dir = -1;
      cur.x = c;
      return [{ x: c, y: cur.y - t }, { x: c, y: cur.y }];
    }
    if (cur.x - 2 >= 0) {
      cur.x -= 2;
      return [{ x: cur.x + 1, y: cur.y }, { x: cur.x, y: cur.y }];
    }
    const c = cur.x;
    cur.y += 2 * t;
    cur.dir = 1;
    cur.x = c + 1;
    return [{ x: c, y: cur.y - t }, { x: c, y: cur.y }];
  }

  // -- the cross of a table with a spinner -------------------------------------------------

  /**
   * Where each tile of a table with a spinner lies (every double crosswise, the first one the
   * spinner: docs/rules.md 2.4). The line (its ends `table.line_ends`, first then last: west and
   * east) runs straight along row 0 from the lead tile (layout index `anchor`, at x = 0), a
   * double standing across it; the spinner's first arm (`table.arm_ends[0]`, north) runs up from it
   * and its second (south) down, each double in an arm lying across the arm. No corners: the
   * page scales the drawing to fit. Returns the tiles (each with its two halves, inner half first,
   * and either `index` in the layout or `arm` and `armIndex`) and, per open end, the square
   * where the next tile would go.
   */
  function crossGeometry(board, table) {
    const [westEnd, eastEnd] = table.line_ends;
    const [northArm, southArm] = table.arm_ends;
    const tiles = [];
    const slots = {};
    const layout = board.layout;
    if (!layout.length) return { tiles, slots };
    const anchor = board.anchor || 0;
    const isDouble = (t) => t[0] === t[1];
    let spinnerX = null;
    // The lead tile, then each side outward from it.
    const lead = layout[anchor];
    if (isDouble(lead)) {
      tiles.push({ index: anchor, halves: [{ x: 0, y: -0.5, v: lead[0] }, { x: 0, y: 0.5, v: lead[1] }] });
    } else {
      tiles.push({ index: anchor, halves: [{ x: 0, y: 0, v: lead[0] }, { x: 1, y: 0, v: lead[1] }] });
    }
    if (anchor === board.spinner) spinnerX = 0;
    let east = isDouble(lead) ? 1 : 2;
    for (let i = anchor + 1; i < layout.length; i++) {
      const [a, b] = layout[i]; // a touches the line, b faces east
      if (isDouble(layout[i])) {
        tiles.push({ index: i, halves: [{ x: east, y: -0.5, v: a }, { x: east, y: 0.5, v: b }] });
        if (i === board.spinner) spinnerX = east;
        east += 1;
      } else {
        tiles.push({ index: i, halves: [{ x: east, y: 0, v: a }, { x: east + 1, y: 0, v: b }] });
        east += 2;
      }
    }
    let west = 0;
    for (let i = anchor - 1; i >= 0; i--) {
      const [a, b] = layout[i]; // b touches the line, a faces west
      if (isDouble(layout[i])) {
        west -= 1;
        tiles.push({ index: i, halves: [{ x: west, y: -0.5, v: b }, { x: west, y: 0.5, v: a }] });
        if (i === board.spinner) spinnerX = west;
      } else {
        west -= 2;
        tiles.push({ index: i, halves: [{ x: west + 1, y: 0, v: b }, { x: west, y: 0, v: a }] });
      }
    }
    slots[westEnd] = { x: west - 1, y: 0 };
    slots[eastEnd] = { x: east, y: 0 };
    if (spinnerX !== null) {
      const arms = board.arms || {};
      // The first arm: upward from the spinner's top edge (y = -0.5); the second: down from 1.5.
      let top = -0.5;
      (arms[northArm] || []).forEach(([inner, outer], k) => {
        if (inner === outer) {
          tiles.push({ arm: northArm, armIndex: k, halves: [{ x: spinnerX - 0.5, y: top - 1, v: inner }, { x: spinnerX + 0.5, y: top - 1, v: outer }] });
          top -= 1;
        } else {
          tiles.push({ arm: northArm, armIndex: k, halves: [{ x: spinnerX, y: top - 1, v: inner }, { x: spinnerX, y: top - 2, v: outer }] });
          top -= 2;
        }
      });
      let bottom = 1.5;
      (arms[southArm] || []).forEach(([inner, outer], k) => {
        if (inner === outer) {
          tiles.push({ arm: southArm, armIndex: k, halves: [{ x: spinnerX - 0.5, y: bottom, v: inner }, { x: spinnerX + 0.5, y: bottom, v: outer }] });
          bottom += 1;
        } else {
          tiles.push({ arm: southArm, armIndex: k, halves: [{ x: spinnerX, y: bottom, v: inner }, { x: spinnerX, y: bottom + 1, v: outer }] });
          bottom += 2;
        }
      });
      slots[northArm] = { x: spinnerX, y: top - 1 };
      slots[southArm] = { x: spinnerX, y: bottom };
    }
    return { tiles, slots, spinnerX };
  }

  // -- the viewer ---------------------------------------------------------------------------

  function fail(app, title, message) {
    app.replaceChildren(
      el(
        "div",
        { id: "error", class: "fatal", role: "alert" },
        el("h1", { text: title }),
        el("p", { text: message }),
      ),
    );
    document.title = "Replay viewer: " + title;
  }

  function readData(app) {
    const holder = document.getElementById("viewer-data");
    let data;
    try {
      data = JSON.parse(holder ? holder.textContent : "");
    } catch (error) {
      fail(app, "This replay cannot be shown", "The page holds no readable replay data (" + error.message + ").");
      return null;
    }
    if (!data || typeof data !== "object") {
      fail(app, "This replay cannot be shown", "The page holds no replay data.");
      return null;
    }
    if (data.viewer_data !== VIEWER_DATA_VERSION) {
      fail(
        app,
        "Unknown viewer data version",
        "This page holds viewer data version " +
          JSON.stringify(data.viewer_data) +
          ", but its viewer reads version " +
          VIEWER_DATA_VERSION +
          ". Nothing is drawn rather than something wrong: make the page again with " +
          "`arena view REPLAY --html OUT.html` from an arena that reads this replay.",
      );
      return null;
    }
    if (!REPLAY_FORMATS.includes(data.replay_format)) {
      fail(
        app,
        "Unknown replay format",
        "This page was made from a replay of format " +
          JSON.stringify(data.replay_format) +
          ", but its viewer reads replay formats " +
          REPLAY_FORMATS.join(" and ") +
          ". Nothing is drawn rather than something wrong.",
      );
      return null;
    }
    if (!Array.isArray(data.steps) || !data.steps.length || !Array.isArray(data.seats)) {
      fail(app, "This replay cannot be shown", "The page's replay data has no steps.");
      return null;
    }
    return data;
  }

  /** The page's table data (arena/view/table.py), or a plain line when it has none. */
  function readTable() {
    const holder = document.getElementById("viewer-table");
    let table = null;
    try {
      table = JSON.parse(holder ? holder.textContent : "null");
    } catch (error) {
      table = null;
    }
    if (!table || typeof table !== "object" || table.table_data !== TABLE_DATA_VERSION) return PLAIN_TABLE;
    return table;
  }

  class Viewer {
    constructor(app, data, table) {
      this.app = app;
      this.data = data;
      this.table = table;
      this.features = table.features;
      this.steps = data.steps;
      this.players = data.match.players;
      this.special = new Set((data.special || []).map(tileKey));
      this.index = 0;
      this.view = "all"; // "all", or a seat number: the hands as that seat saw them
      this.listView = "all"; // the view the move list's texts are told for
      this.timer = null;
      this.hashTimer = null;
      this.speed = DEFAULT_SPEED;
      this.handStarts = [];
      this.steps.forEach((s, i) => {
        if (s.kind === "hand_start") this.handStarts.push(i);
      });
      // Each seat's strikes and restarts so far, at every step (failure policy lenient).
      this.faults = [];
      const strikes = data.seats.map(() => 0);
      const restarts = data.seats.map(() => 0);
      for (const s of this.steps) {
        if (s.strike && (s.kind === "move" || s.kind === "retire")) strikes[s.seat] += 1;
        if (s.kind === "restart") restarts[s.seat] += 1;
        this.faults.push({ strikes: [...strikes], restarts: [...restarts] });
      }
      this.build();
      // The replay's analysis, when it has one (analysis.js, loaded before this script).
      this.analysis = window.ArenaAnalysis ? window.ArenaAnalysis.attach(this) : null;
    }

    // The page's frame: header, table, event card, move list, controls.
    build() {
      const d = this.data;
      document.title = d.title;
      const names = d.seats.map((s) =>
        el("span", { class: "vs-name seat-c" + s.seat, text: s.name }),
      );
      const vs = [];
      names.forEach((n, i) => {
        if (i) vs.push(el("span", { class: "vs", text: "vs" }));
        vs.push(n);
      });
      this.handLabel = el("span", { id: "hand-label", class: "chip" });
      this.stepLabel = el("span", { id: "step-counter", class: "chip" });
      const header = el(
        "header",
        { class: "topbar" },
        el(
          "div",
          { class: "brand" },
          el("span", { class: "logo", "aria-hidden": "true" }, logoSvg()),
          el("div", {}, el("div", { class: "game", text: this.gameTitle() + " replay" }), el("h1", { class: "title" }, vs)),
        ),
        el(
          "div",
          { class: "meta" },
          el("span", { class: "chip", text: d.match.players + " players" }),
          el("span", { class: "chip", text: d.match.length }),
          el("span", { class: "chip", text: "seed " + d.match.seed }),
          this.handLabel,
          this.stepLabel,
        ),
      );

      this.topSeats = el("div", { class: "seats seats-top" });
      this.bottomSeats = el("div", { class: "seats seats-bottom" });
      this.feltInfo = el("div", { class: "felt-info" });
      this.board = el("div", { id: "layout", class: "layout" });
      this.banner = el("div", { class: "banner", hidden: true });
      const felt = el("div", { class: "felt" }, this.feltInfo, this.board, this.banner);
      this.eventCard = el("section", { id: "event", class: "event-card", "aria-live": "polite" });
      const table = el("section", { class: "table" }, this.topSeats, felt, this.bottomSeats);

      this.moveList = el("ol", { id: "move-list", class: "move-list" });
      this.moveItems = this.steps.map((s, i) => this.moveItem(s, i));
      append(this.moveList, this.moveItems);
      const side = el(
        "aside",
        { class: "side" },
        this.eventCard,
        el(
          "section",
          { class: "moves-panel" },
          el("div", { class: "side-head" }, el("h2", { text: "Moves" }), this.legend()),
          this.moveList,
        ),
      );

      this.controls = this.buildControls();
      this.app.replaceChildren(header, el("main", { class: "main" }, table, side), this.controls);

      window.addEventListener("keydown", (e) => this.onKey(e));
      window.addEventListener("hashchange", () => this.readHash());
      let resizeTimer = null;
      window.addEventListener("resize", () => {
        clearTimeout(resizeTimer);
        resizeTimer = setTimeout(() => this.render(), 80);
      });
    }

    /** The game's title, from the table data (else its name, capitalised). */
    gameTitle() {
      return this.table.title || capital(this.data.match.game);
    }

    legend() {
      return el(
        "div",
        { class: "legend" },
        this.special.size ? el("span", { class: "legend-item" }, el("i", { class: "swatch special-swatch" }), this.table.special_label) : null,
        this.features.spinner ? el("span", { class: "legend-item" }, el("i", { class: "swatch spinner-swatch" }), "spinner") : null,
        el("span", { class: "legend-item" }, el("i", { class: "swatch placed-swatch" }), "just played"),
        this.features.draws ? el("span", { class: "legend-item" }, el("i", { class: "swatch drawn-swatch" }), "just drawn") : null,
      );
    }

    buildControls() {
      const button = (id, icon, title, action) =>
        el("button", { id, type: "button", title, "aria-label": title, onclick: action }, iconSvg(icon));
      this.playButton = button("btn-play", "play", "Play / pause (space)", () => this.togglePlay());
      this.slider = el("input", {
        id: "slider",
        type: "range",
        min: 1,
        max: this.steps.length,
        value: 1,
        "aria-label": "Step",
        oninput: () => this.go(Number(this.slider.value) - 1),
      });
      this.speedSelect = el(
        "select",
        { id: "speed", title: "Playback speed", "aria-label": "Playback speed", onchange: () => this.setSpeed(Number(this.speedSelect.value)) },
        SPEEDS.map(([label], i) => el("option", { value: i, selected: i === this.speed, text: label })),
      );
      this.viewSelect = el(
        "select",
        { id: "view-select", title: "Whose tiles to show (a, 0–3)", "aria-label": "Hands shown", onchange: () => this.setView(this.viewSelect.value) },
        el("option", { value: "all", text: "All hands" }),
        this.data.seats.map((s) => el("option", { value: s.seat, text: "As seat " + s.seat + " (" + s.name + ") saw it" })),
      );
      return el(
        "footer",
        { class: "controls" },
        el(
          "div",
          { class: "buttons" },
          button("btn-first", "first", "First step (Home)", () => this.go(0)),
          button("btn-prev-hand", "prevHand", "Previous hand (Page Up)", () => this.jumpHand(-1)),
          button("btn-prev", "prev", "Previous step (←)", () => this.go(this.index - 1)),
          this.playButton,
          button("btn-next", "next", "Next step (→)", () => this.go(this.index + 1)),
          button("btn-next-hand", "nextHand", "Next hand (Page Down)", () => this.jumpHand(1)),
          button("btn-last", "last", "Last step (End)", () => this.go(this.steps.length - 1)),
        ),
        el("label", { class: "speed" }, el("span", { text: "speed" }), this.speedSelect),
        el("div", { class: "slider-wrap" }, this.slider),
        el("label", { class: "view" }, el("span", { text: "show" }), this.viewSelect),
      );
    }

    moveItem(step, i) {
      const li = el("li", { "data-step": i + 1, class: "mv mv-" + step.kind + (step.strike ? " mv-strike" : ""), onclick: () => this.go(i) });
      li.append(el("span", { class: "mv-no", text: i + 1 }));
      if (actorKind(step)) {
        li.append(el("span", { class: "seat-tag seat-bg" + step.seat, text: "S" + step.seat }));
      } else {
        li.append(el("span", { class: "seat-tag none" }));
      }
      li.append(el("span", { class: "mv-text", text: step.summary }));
      if (step.strike) li.append(el("span", { class: "mv-badge strike", title: step.failure_text, text: "strike" }));
      if (step.kind === "move" && step.elapsed_ms !== null && step.elapsed_ms !== undefined) {
        li.append(el("span", { class: "mv-time", text: fmtMs(step.elapsed_ms) }));
      }
      if (step.kind === "move" && step.debug) {
        li.append(el("span", { class: "mv-debug", title: "debug note", text: "✎" }));
      }
      return li;
    }

    /** More steps of a match being played (live pages, arena/serve/live.js): the list
     * grows, and the page follows the last step when it was showing it. */
    appendSteps(steps) {
      const follow = this.index >= this.steps.length - 1;
      for (const s of steps) {
        const last = this.faults[this.faults.length - 1];
        const faults = { strikes: [...last.strikes], restarts: [...last.restarts] };
        if (s.strike && (s.kind === "move" || s.kind === "retire")) faults.strikes[s.seat] += 1;
        if (s.kind === "restart") faults.restarts[s.seat] += 1;
        if (s.kind === "hand_start") this.handStarts.push(this.steps.length);
        this.steps.push(s);
        this.faults.push(faults);
        const item = this.moveItem(s, this.steps.length - 1);
        this.moveItems.push(item);
        this.moveList.append(item);
      }
      this.slider.max = String(this.steps.length);
      if (follow) this.go(this.steps.length - 1, { keepHash: true });
      else this.render();
    }

    // -- state changes -------------------------------------------------------------------

    go(index, opts) {
      const i = Math.max(0, Math.min(this.steps.length - 1, index));
      const forward = i === this.index + 1;
      this.index = i;
      this.render(forward);
      if (!(opts && opts.keepHash)) this.writeHash();
    }

    jumpHand(direction) {
      if (direction > 0) {
        const next = this.handStarts.find((s) => s > this.index);
        this.go(next === undefined ? this.steps.length - 1 : next);
      } else {
        const prev = [...this.handStarts].reverse().find((s) => s < this.index);
        this.go(prev === undefined ? 0 : prev);
      }
    }

    setView(value) {
      this.view = value === "all" || value === undefined ? "all" : Number(value);
      if (this.view !== "all" && !(this.view >= 0 && this.view < this.players)) this.view = "all";
      this.viewSelect.value = String(this.view);
      this.render();
      this.writeHash();
    }

    setSpeed(i) {
      this.speed = Math.max(0, Math.min(SPEEDS.length - 1, i));
      this.speedSelect.value = String(this.speed);
      if (this.timer !== null) {
        this.stop();
        this.play();
      }
    }

    togglePlay() {
      if (this.timer === null) this.play();
      else this.stop();
    }

    play() {
      if (this.index >= this.steps.length - 1) this.go(0);
      this.timer = setInterval(() => {
        if (this.index >= this.steps.length - 1) this.stop();
        else this.go(this.index + 1);
      }, SPEEDS[this.speed][1]);
      this.playButton.replaceChildren(iconSvg("pause"));
      this.playButton.classList.add("playing");
    }

    stop() {
      if (this.timer !== null) clearInterval(this.timer);
      this.timer = null;
      this.playButton.replaceChildren(iconSvg("play"));
      this.playButton.classList.remove("playing");
    }

    onKey(e) {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const target = e.target;
      const key = e.key;
      const tag = target && target.tagName;
      if (tag === "SELECT" || tag === "INPUT") return; // the select's and the slider's own keys
      if (tag === "BUTTON" && (key === " " || key === "Enter")) return; // presses the button
      let handled = true;
      // The terminal viewer's keys (arena/view/terminal.py), but space plays and pauses.
      if (["ArrowRight", "ArrowDown", "n", "j", "l", "Enter"].includes(key)) this.go(this.index + 1);
      else if (["ArrowLeft", "ArrowUp", "p", "b", "k", "h", "Backspace"].includes(key)) this.go(this.index - 1);
      else if (key === "Home" || key === "g") this.go(0);
      else if (key === "End" || key === "G") this.go(this.steps.length - 1);
      else if (key === "PageDown" || key === "]") this.jumpHand(1);
      else if (key === "PageUp" || key === "[") this.jumpHand(-1);
      else if (key === " ") this.togglePlay();
      else if (key === "+" || key === "=") this.setSpeed(this.speed + 1);
      else if (key === "-") this.setSpeed(this.speed - 1);
      else if (key === "a") this.setView("all");
      else if (/^[0-9]$/.test(key) && Number(key) < this.players) this.setView(key);
      else handled = false;
      if (handled) e.preventDefault();
    }

    // The fragment: #move=N (1-based step) and, optionally, &view=S (a seat) .
    readHash() {
      const params = new URLSearchParams(location.hash.replace(/^#/, ""));
      const view = params.get("view");
      if (view !== null) {
        this.view = view === "all" ? "all" : Number(view);
        if (this.view !== "all" && !(this.view >= 0 && this.view < this.players)) this.view = "all";
        this.viewSelect.value = String(this.view);
      }
      const move = Number.parseInt(params.get("move") || "", 10);
      if (Number.isFinite(move)) this.go(move - 1, { keepHash: true });
      else this.render();
    }

    writeHash() {
      let hash = "#move=" + (this.index + 1);
      if (this.view !== "all") hash += "&view=" + this.view;
      if (location.hash === hash) return;
      // replaceState, not a new history entry per step, and no hashchange of our own; the
      // browser throttles it when called too often (a held-down key), so retry a moment later.
      try {
        history.replaceState(null, "", hash);
      } catch (_error) {
        // throttled: the retry below writes it
      }
      clearTimeout(this.hashTimer);
      if (location.hash !== hash) this.hashTimer = setTimeout(() => this.writeHash(), 250);
    }

    // -- drawing ---------------------------------------------------------------------------

    render(forward) {
      const step = this.steps[this.index];
      const board = step.board;
      this.slider.value = String(this.index + 1);
      this.stepLabel.textContent = "Step " + (this.index + 1) + " / " + this.steps.length;
      this.stepLabel.setAttribute("data-step", this.index + 1);
      this.handLabel.textContent = this.handText(step);
      this.renderSeats(step, board);
      this.renderFelt(step, board, forward);
      this.renderEvent(step);
      this.renderMoveList();
      if (this.analysis) this.analysis.render();
      this.app.setAttribute("data-step", this.index + 1);
      this.app.setAttribute("data-view", String(this.view));
    }

    handText(step) {
      const m = this.data.match;
      if (step.hand === null || step.hand === undefined) return step.kind === "match_end" ? "Match over" : "Match start";
      if (m.hands) return "Hand " + step.hand + " of " + m.hands;
      return "Hand " + step.hand + " · to " + m.target;
    }

    /** Whether the tiles of `seat` are shown face up in the current view. */
    shown(seat) {
      return this.view === "all" || this.view === seat;
    }

    /** A text of a step as the current view may tell it (no other seat's drawn tile). */
    textOf(step, field) {
      const publicField = "public_" + field;
      if (this.view !== "all" && step.seat !== this.view && step[publicField] !== undefined) return step[publicField];
      return step[field];
    }

    renderSeats(step, board) {
      const focus = this.view === "all" ? 0 : this.view;
      const order = [];
      for (let k = 1; k < this.players; k++) order.push((focus + k) % this.players);
      this.topSeats.style.setProperty("--cols", String(Math.max(1, order.length)));
      this.topSeats.replaceChildren(...order.map((s) => this.seatCard(s, step, board, false)));
      this.bottomSeats.replaceChildren(this.seatCard(focus, step, board, true));
    }

    seatCard(seat, step, board, bottom) {
      const info = this.data.seats[seat];
      const classes = ["seat", "seat-border" + seat, bottom ? "seat-focus" : "seat-other"];
      const retired = board ? board.retired.includes(seat) : info.startup_failure;
      const toMove = board && board.to_move === seat && step.kind !== "match_end";
      const acted = actorKind(step) && step.seat === seat;
      if (retired) classes.push("retired");
      if (toMove) classes.push("to-move");
      if (acted) classes.push("acted");
      const badges = [];
      if (this.view === seat) badges.push(el("span", { class: "badge you", text: "viewing" }));
      if (toMove) badges.push(el("span", { class: "badge turn", text: "to move" }));
      if (retired) badges.push(el("span", { class: "badge out", text: "retired: " + info.status }));
      const faults = this.faultsAt(seat);
      if (faults.restarts) badges.push(el("span", { class: "badge restarts", title: "the bot crashed and was started again", text: plural(faults.restarts, "restart") }));
      if (faults.strikes) badges.push(el("span", { class: "badge strikes", title: this.strikesTitle(), text: plural(faults.strikes, "strike") }));
      const winners = this.winnersAt(step);
      if (winners.includes(seat)) badges.push(el("span", { class: "badge win", text: step.kind === "match_end" ? "match winner" : "hand winner" }));
      const tiles = board ? board.hands[seat] : [];
      const score = board ? board.scores[seat] : step.kind === "match_end" ? step.result.scores[seat] : 0;
      const hand = el("div", { class: "hand" });
      const up = this.shown(seat);
      const drawn = step.kind === "move" && step.seat === seat && step.drawn ? tileKey(step.drawn) : null;
      for (const t of tiles) {
        const key = t === null ? null : tileKey(t); // null: a tile the live public view hides
        const faceUp = up && key !== null;
        hand.append(
          handTile(faceUp ? t : null, {
            faceDown: !faceUp,
            special: faceUp && this.special.has(key),
            cls: faceUp && drawn === key ? "drawn" : null,
            unit: bottom ? HAND_UNIT + 6 : HAND_UNIT,
          }),
        );
      }
      if (board && !tiles.length) hand.append(el("span", { class: "empty-hand", text: "no tiles left" }));
      if (!board) hand.append(el("span", { class: "empty-hand", text: info.startup_failure ? "failed at start-up" : "no hand dealt yet" }));
      return el(
        "div",
        { class: classes.join(" "), "data-seat": seat },
        el(
          "div",
          { class: "seat-head" },
          el("span", { class: "seat-tag seat-bg" + seat, text: "S" + seat }),
          el("span", { class: "seat-name", title: info.command, text: info.name }),
          badges,
        ),
        el(
          "div",
          { class: "seat-stats" },
          el("span", { class: "score", title: "match score" }, el("b", { text: score }), " pts"),
          board ? el("span", { class: "tile-count", "data-count": tiles.length, text: tiles.length + (tiles.length === 1 ? " tile" : " tiles") }) : null,
        ),
        hand,
      );
    }

    /** The strikes and restarts of `seat` so far (at the match end, its record's). */
    faultsAt(seat) {
      const step = this.steps[this.index];
      const info = this.data.seats[seat];
      if (step.kind === "match_end" && info.strikes !== undefined) {
        return { strikes: info.strikes || 0, restarts: info.restarts || 0 };
      }
      const faults = this.faults[this.index];
      return { strikes: faults.strikes[seat] || 0, restarts: faults.restarts[seat] || 0 };
    }

    strikesTitle() {
      const policy = this.data.match.policy;
      if (!policy || !policy.strikes) return "moves the referee played for this bot after a timeout or a bad reply";
      return "moves the referee played for this bot after a timeout or a bad reply; strike " + policy.strikes + " forfeits";
    }

    winnersAt(step) {
      if (step.kind === "hand_end" && step.outcome.winners.length === 1) return step.outcome.winners;
      if (step.kind === "match_end" && step.result.winner !== null) return [step.result.winner];
      return [];
    }

    renderFelt(step, board, forward) {
      this.banner.hidden = true;
      if (!board) {
        this.feltInfo.replaceChildren();
        this.board.replaceChildren(this.matchCard());
        return;
      }
      const ends = board.ends.map(([pos, value]) =>
        el("span", { class: "end-chip", "data-end": pos }, el("small", { text: pos }), el("b", { text: value })),
      );
      this.feltInfo.replaceChildren(
        ...[
          el("div", { class: "ends" }, ends.length ? [el("span", { class: "felt-label", text: "open ends" }), ends] : el("span", { class: "felt-label", text: "no tile on the table yet" })),
          hasCount(board) ? this.countChip(board) : null,
          this.boneyard(board.boneyard),
        ].filter(Boolean), // replaceChildren would write a null as the text "null"
      );
      const width = Math.max(10, Math.floor((this.board.clientWidth || 800) / UNIT));
      const cross = this.features.spinner;
      const geo = cross ? crossGeometry(board, this.table) : chainGeometry(board.layout, board.anchor, width, this.table.line_ends);
      if (!geo.tiles.length) {
        const leader = step.kind === "hand_start" ? step.seat : board.to_move;
        this.board.replaceChildren(
          el(
            "div",
            { class: "empty-table" },
            el("span", { text: leader === null || leader === undefined ? "The table is empty." : "Seat " + leader + " (" + this.data.seats[leader].name + ") to lead" }),
          ),
        );
      } else {
        this.board.replaceChildren(this.chainSvg(step, board, geo, width, forward, cross));
      }
      if (step.kind === "hand_end" || step.kind === "match_end" || (step.kind === "retire" && step.forfeit)) {
        this.banner.hidden = false;
        this.banner.replaceChildren(el("span", { text: step.summary }));
      }
    }

    chainSvg(step, board, geo, width, forward, cross) {
      const xs = [];
      const ys = [];
      for (const t of geo.tiles) {
        for (const h of t.halves) {
          xs.push(h.x, h.x + 1);
          ys.push(h.y, h.y + 1);
        }
      }
      for (const s of Object.values(geo.slots)) {
        xs.push(s.x, s.x + 1);
        ys.push(s.y, s.y + 1);
      }
      const minY = Math.min(...ys);
      const maxY = Math.max(...ys);
      const pad = 0.35;
      // A line: the snake fills the table's width. With a spinner: the cross, scaled to fit.
      const minX = cross ? Math.min(...xs) : 0;
      const spanX = cross ? Math.max(...xs) - minX : width;
      const vb = [minX - pad, minY - pad, spanX + 2 * pad, maxY - minY + 2 * pad];
      const scale = cross ? Math.min(1, (this.board.clientWidth || 800) / (vb[2] * UNIT)) : 1;
      const root = svg("svg", {
        class: "chain" + (cross ? " cross" : ""),
        viewBox: vb.join(" "),
        width: vb[2] * UNIT * scale,
        height: vb[3] * UNIT * scale,
        role: "img",
        "aria-label": "the layout: " + board.layout.map((t) => t[0] + "|" + t[1]).join(" ") + armsLabel(board, this.table.arm_ends),
      });
      root.append(svg("title", { text: "The layout, " + board.layout.length + " tiles" + (cross && board.arms ? ", and the spinner's arms" : "") }));
      const placed = step.kind === "move" ? step.placed : null;
      const placedArm = step.kind === "move" ? step.placed_arm : null;
      const armTiles = (arm) => (board.arms && board.arms[arm]) || [];
      const order = (t) => (t.arm ? 1000 * (1 + this.table.arm_ends.indexOf(t.arm)) + t.armIndex : t.index);
      const sorted = [...geo.tiles].sort((a, b) => order(a) - order(b));
      for (const t of sorted) {
        const tile = t.arm ? armTiles(t.arm)[t.armIndex] : board.layout[t.index];
        const canonical = tile[0] <= tile[1] ? tile : [tile[1], tile[0]];
        const isPlaced = t.arm ? t.arm === placedArm && t.armIndex === armTiles(t.arm).length - 1 : t.index === placed;
        const g = domino(t.halves[0], t.halves[1], {
          special: this.special.has(tileKey(canonical)),
          placed: isPlaced,
          cls: isPlaced && forward ? "arrive" : null,
        });
        if (t.arm) {
          g.setAttribute("data-arm", t.arm);
          g.setAttribute("data-arm-index", t.armIndex);
        } else {
          g.setAttribute("data-index", t.index);
          if (t.index === board.anchor) g.classList.add("lead");
        }
        g.setAttribute("data-halves", tileKey(tile));
        if (cross && !t.arm && t.index === board.spinner) {
          g.classList.add("spinner-tile");
          g.setAttribute("data-spinner", "");
        }
        root.append(g);
      }
      for (const [pos, value] of board.ends) {
        const slot = geo.slots[pos];
        if (!slot) continue;
        root.append(
          svg(
            "g",
            { class: "end-marker", "data-end": pos, "data-value": value },
            svg("rect", { x: slot.x + 0.1, y: slot.y + 0.1, width: 0.8, height: 0.8, rx: 0.16 }),
            svg("text", { x: slot.x + 0.5, y: slot.y + 0.56, class: "end-value", text: value }),
            svg("text", { x: slot.x + 0.5, y: slot.y + 0.82, class: "end-name", text: pos }),
          ),
        );
      }
      return root;
    }

    /** The count of the open ends (a positive multiple of the game's count_multiple scores it). */
    countChip(board) {
      const multiple = this.table.count_multiple;
      const scores = multiple > 0 && board.count > 0 && board.count % multiple === 0;
      const title = "The count of the open ends" + (multiple > 0 ? ": a positive multiple of " + this.table.count_multiple_words + " scores it" : "");
      return el(
        "div",
        { id: "count", class: "count-chip" + (scores ? " scoring" : ""), "data-count": board.count, title: title },
        el("span", { class: "felt-label", text: "count" }),
        el("b", { text: board.count }),
      );
    }

    boneyard(count) {
      const pile = el("span", { class: "pile", "aria-hidden": "true" });
      for (let i = 0; i < Math.min(count, 6); i++) {
        const t = handTile(null, { faceDown: true, unit: 14 });
        t.style.setProperty("--i", String(i));
        pile.append(t);
      }
      return el(
        "div",
        { class: "boneyard", "data-count": count, title: "The " + this.table.boneyard_label + " is never shown face up" },
        pile,
        el("span", { class: "felt-label", text: this.table.boneyard_label }),
        el("b", { class: "boneyard-count", text: count }),
      );
    }

    matchCard() {
      const m = this.data.match;
      const rules = Object.entries(m.rules).map(([k, v]) => el("li", {}, el("code", { text: k }), " " + v));
      if (!rules.length) rules.push(el("li", { class: "muted", text: "none: the game has no rule flags" }));
      const t = m.time;
      return el(
        "div",
        { class: "match-card" },
        el("h2", { text: this.gameTitle() + ", " + m.players + " players, " + m.length }),
        el(
          "div",
          { class: "match-grid" },
          el(
            "div",
            {},
            el("h3", { text: "Rules" }),
            el("ul", { class: "rules" }, rules),
          ),
          el(
            "div",
            {},
            el("h3", { text: "Clock" }),
            el(
              "ul",
              { class: "rules" },
              el("li", { text: t.move_ms + " ms per move" }),
              el("li", { text: "bank " + t.bank_ms + " ms" }),
              el("li", { text: "start-up " + t.startup_ms + " ms" }),
            ),
            el("h3", { text: "Played" }),
            el("p", { class: "muted", text: (m.started_at || "unknown time") + (m.duration_s ? ", " + m.duration_s + " s" : "") }),
            m.policy && m.policy.name !== "strict" ? [el("h3", { text: "Failure policy" }), el("p", { id: "policy", class: "policy", text: m.policy.text })] : null,
          ),
        ),
        el("p", { class: "hint", text: "Press → or ▶ to start." + this.tilesHint() }),
      );
    }

    /** What the table shows beyond a plain line, in a sentence: the special tiles, the spinner
     * and its arms, the count that scores. */
    tilesHint() {
      const t = this.table;
      if (this.data.special.length) return " Gold tiles are " + t.special_label + "s (" + this.data.special.map((x) => x[0] + "-" + x[1]).join(", ") + ").";
      const parts = [];
      if (this.features.spinner) parts.push("The first double is the spinner, drawn across the line with its " + t.arm_ends.join(" and ") + " arms");
      if (this.features.end_count && t.count_multiple > 0) parts.push("every count of the open ends that is a multiple of " + t.count_multiple_words + " scores");
      if (parts.length) return " " + parts.join("; ") + ".";
      // A plain line: how tiles join, and, where nobody draws, what the undealt tiles are.
      const join = t.join_rule ? " Tiles join by " + t.join_rule + "." : "";
      return join + (this.features.draws ? "" : " Nobody draws: the undealt tiles are " + t.boneyard_label + ".");
    }

    renderEvent(step) {
      const parts = [];
      const kindLabel = {
        match_start: "Match start",
        hand_start: "Deal",
        move: "Move",
        restart: "Restart",
        retire: "Retirement",
        hand_end: "Hand over",
        match_end: "Match over",
      }[step.kind];
      const head = el(
        "div",
        { class: "event-head" },
        el("span", { class: "kind kind-" + step.kind, text: kindLabel }),
        actorKind(step) ? el("span", { class: "seat-tag seat-bg" + step.seat, text: "S" + step.seat }) : null,
        step.strike ? el("span", { id: "strike-badge", class: "badge strike", title: step.failure_text, text: "strike" }) : null,
        el("p", { id: "event-text", class: "event-text", text: this.textOf(step, "headline") }),
      );
      parts.push(head);
      if (step.kind === "move") parts.push(this.moveDetails(step));
      if (step.kind === "move" && step.strike) parts.push(this.evidence("", step.evidence, step.seat, "strike"));
      if (step.kind === "restart") parts.push(this.evidence("", step.evidence, step.seat, "restart"));
      if (step.kind === "retire") parts.push(this.evidence("", step.evidence, step.seat));
      if (step.kind === "hand_end") parts.push(this.handEndTable(step));
      if (step.kind === "match_end") parts.push(this.resultTable(step));
      if (step.kind === "match_start") parts.push(this.seatList());
      this.eventCard.className = "event-card event-" + step.kind;
      this.eventCard.replaceChildren(...parts.filter(Boolean));
    }

    moveDetails(step) {
      const box = el("div", { class: "move-details" });
      if (step.strike) {
        box.append(el("p", { class: "strike-note", text: "The bot's answer did not count: the referee played this move for it, a random legal move chosen from the match seed and the request id." }));
      } else if (step.auto) {
        box.append(el("p", { class: "muted", text: "The referee passed for this retired seat: no request was sent, no time counted." }));
        return box;
      }
      const limit = step.time_left_ms;
      const used = step.elapsed_ms;
      if (limit && used !== null && used !== undefined) {
        const ratio = Math.max(0, Math.min(1, used / limit));
        const level = ratio > 0.8 ? "hot" : ratio > 0.4 ? "warm" : "cool";
        box.append(
          el(
            "div",
            { class: "clock", id: "clock" },
            el("span", { class: "clock-label", text: "time" }),
            el("span", { class: "bar" }, el("span", { class: "fill " + level, style: "width:" + Math.max(0.6, ratio * 100).toFixed(2) + "%" })),
            el("span", { class: "clock-text", text: fmtMs(used) + " of " + limit + " ms" + (step.request_id != null ? " · request " + step.request_id : "") }),
          ),
        );
      }
      if (step.debug !== null && step.debug !== undefined) {
        if (this.shown(step.seat)) {
          box.append(el("div", { class: "debug", id: "debug" }, el("span", { class: "debug-label", text: "debug note" }), el("q", { text: step.debug })));
        } else {
          box.append(el("div", { class: "debug hidden-note" }, el("span", { class: "debug-label", text: "debug note" }), el("span", { text: "not shown: seat " + this.view + " could not see it" })));
        }
      }
      return box;
    }

    /**
     * A failure's evidence rows as a table, with the bot's command and stderr tail. `kind` is
     * "strike" or "restart" for a fault the bot survived (only the failure's own stderr tail is
     * shown then: the seat's stderr goes on after it), else a failure that retired the seat.
     */
    evidence(text, rows, seat, kind) {
      const info = this.data.seats[seat];
      const table = el("table", { class: "evidence-table" });
      let stderr = null;
      let exchanged = false;
      for (const [label, value] of rows || []) {
        if (label === "stderr tail") {
          stderr = value;
          continue;
        }
        const line = EXCHANGED_LABELS.includes(label);
        if (line && !exchanged) {
          exchanged = true;
          table.append(el("tr", { class: "exchanged-head" }, el("th", { colspan: 2, text: "last lines exchanged, oldest first" })));
        }
        table.append(el("tr", { class: line ? "exchanged" : null }, el("th", { text: label }), el("td", { text: value })));
      }
      if (!stderr && info.stderr_tail && !kind) stderr = info.stderr_tail;
      const title = { strike: "Strike evidence", restart: "Restart evidence" }[kind] || "Failure evidence";
      return el(
        "div",
        { class: "evidence" + (kind ? " evidence-" + kind : ""), id: "evidence" },
        el("h3", { text: title + ": seat " + seat + " (" + info.name + ")" }),
        text ? el("p", { class: "evidence-summary", text: text }) : null,
        table,
        el("p", { class: "muted command" }, "command: ", el("code", { text: info.command })),
        stderr ? el("div", { class: "stderr" }, el("div", { class: "stderr-label", text: "stderr tail" + (info.stderr_cut && !kind ? " (end)" : "") }), el("pre", { text: stderr })) : null,
      );
    }

    handEndTable(step) {
      const o = step.outcome;
      const rows = this.data.seats.map((s) =>
        el(
          "tr",
          { class: o.winners.includes(s.seat) ? "winner" : "" },
          el("td", {}, el("span", { class: "seat-tag seat-bg" + s.seat, text: "S" + s.seat }), " " + s.name),
          el("td", { class: "num", text: o.pips[s.seat] }),
          el("td", { class: "num", text: (o.award[s.seat] > 0 ? "+" : "") + o.award[s.seat] }),
          el("td", { class: "num strong", text: o.scores[s.seat] }),
        ),
      );
      const table = el(
        "table",
        { class: "score-table" },
        el("thead", {}, el("tr", {}, el("th", { text: "seat" }), el("th", { class: "num", text: "pips left" }), el("th", { class: "num", text: "award" }), el("th", { class: "num", text: "score" }))),
        el("tbody", {}, rows),
      );
      const scoring = step.board && this.features.hand_scoring ? step.board.scoring || [] : [];
      if (!scoring.length) return table;
      const items = scoring.map(([seat, points, reason]) =>
        el("li", {}, el("span", { class: "seat-tag seat-bg" + seat, text: "S" + seat }), " " + (points >= 0 ? "+" : "") + points + " " + reason),
      );
      return el("div", {}, table, el("h3", { text: "Scored in this hand" }), el("ol", { id: "scoring", class: "scoring-list" }, items));
    }

    resultTable(step) {
      const r = step.result;
      const rows = r.ranking.map((seat, place) => {
        const s = this.data.seats[seat];
        return el(
          "tr",
          { class: r.winner === seat ? "winner" : "" },
          el("td", { class: "num", text: place + 1 + "." }),
          el("td", {}, el("span", { class: "seat-tag seat-bg" + seat, text: "S" + seat }), " " + s.name),
          el("td", { class: "num strong", text: r.scores[seat] }),
          el(
            "td",
            { class: s.status === "ok" ? "ok" : "bad" },
            s.status === "ok" ? "ok" : s.failure_text,
            faultsText(s) ? el("span", { class: "faults", text: " (" + faultsText(s) + ")" }) : null,
          ),
        );
      });
      const hands = this.steps.filter((s) => s.kind === "hand_end").map((s) => el("li", { text: s.summary }));
      return el(
        "div",
        { class: "result" },
        el("table", { class: "score-table" }, el("thead", {}, el("tr", {}, el("th", { text: "" }), el("th", { text: "seat" }), el("th", { class: "num", text: "score" }), el("th", { text: "status" }))), el("tbody", {}, rows)),
        hands.length ? el("details", { class: "hands-summary" }, el("summary", { text: hands.length + " hand" + (hands.length === 1 ? "" : "s") + " played" }), el("ul", {}, hands)) : null,
        this.failuresBlock(),
      );
    }

    seatList() {
      const items = this.data.seats.map((s) =>
        el(
          "li",
          { class: s.startup_failure ? "bad" : "" },
          el("span", { class: "seat-tag seat-bg" + s.seat, text: "S" + s.seat }),
          el("b", { text: " " + s.name + " " }),
          el("code", { text: s.command }),
        ),
      );
      return el("div", {}, el("ul", { class: "seat-list" }, items), this.failuresBlock(true));
    }

    /** Evidence of start-up failures (which have no retirement step) or of every failure. */
    failuresBlock(startupOnly) {
      const failed = this.data.seats.filter((s) => s.status !== "ok" && (!startupOnly || s.startup_failure));
      if (!failed.length) return null;
      return el("div", { class: "failures" }, failed.map((s) => this.evidence(s.failure_text, s.evidence, s.seat)));
    }

    renderMoveList() {
      for (const li of this.moveList.querySelectorAll(".current")) {
        li.classList.remove("current");
        li.removeAttribute("aria-current");
      }
      const li = this.moveItems[this.index];
      li.classList.add("current");
      li.setAttribute("aria-current", "step");
      // Another seat's draw reads "draws a tile" as that seat saw it: retell on a new view.
      if (this.listView !== this.view) {
        this.listView = this.view;
        this.steps.forEach((s, i) => {
          if (s.public_summary === undefined) return;
          this.moveItems[i].querySelector(".mv-text").textContent = this.textOf(s, "summary");
        });
      }
      const list = this.moveList;
      const top = li.offsetTop; // the list is the item's offset parent
      if (top < list.scrollTop + 24 || top + li.offsetHeight > list.scrollTop + list.clientHeight - 24) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }
  }

  /** Whether a board has the count of the open ends (the table feature end_count). */
  function hasCount(board) {
    return board !== null && board !== undefined && board.count !== undefined && board.count !== null;
  }

  function armsLabel(board, armEnds) {
    if (!board.arms) return "";
    const text = (arm) => (board.arms[arm] || []).map((t) => t[0] + "|" + t[1]).join(" ") || "empty";
    return armEnds.map((arm) => "; " + arm + " arm: " + text(arm)).join("");
  }

  /** Whether a step is something a seat did or underwent (its seat tag is shown). */
  function actorKind(step) {
    return step.kind === "move" || step.kind === "retire" || step.kind === "restart";
  }

  function plural(count, word) {
    return count + " " + word + (count === 1 ? "" : "s");
  }

  /** "1 restart, 2 strikes" from a seat's record; "" when it had neither. */
  function faultsText(seat) {
    const parts = [];
    if (seat.restarts) parts.push(plural(seat.restarts, "restart"));
    if (seat.strikes) parts.push(plural(seat.strikes, "strike"));
    return parts.join(", ");
  }

  function capital(text) {
    return text ? text[0].toUpperCase() + text.slice(1) : text;
  }

  const ICONS = {
    first: "M3 3h2v10H3z M13 3v10L6 8z",
    prevHand: "M8 3v10L1.5 8z M14.5 3v10L8 8z",
    prev: "M11.5 3v10L4.5 8z",
    play: "M5 2.5v11l8.5-5.5z",
    pause: "M4 3h3v10H4z M9 3h3v10H9z",
    next: "M4.5 3v10l7-5z",
    nextHand: "M1.5 3v10L8 8z M8 3v10l6.5-5z",
    last: "M3 3v10l7-5z M11 3h2v10h-2z",
  };

  function iconSvg(name) {
    return svg("svg", { class: "icon", viewBox: "0 0 16 16", width: 16, height: 16, "aria-hidden": "true" }, svg("path", { d: ICONS[name] }));
  }

  function logoSvg() {
    const root = svg("svg", { viewBox: "-0.1 -0.1 2.2 1.2", width: 44, height: 24 });
    root.append(domino({ x: 0, y: 0, v: 3 }, { x: 1, y: 0, v: 4 }, { special: true }));
    return root;
  }

  function start() {
    const app = document.getElementById("app");
    const data = readData(app);
    if (!data) return;
    let viewer;
    try {
      viewer = new Viewer(app, data, readTable());
      viewer.readHash();
    } catch (error) {
      fail(app, "This replay cannot be shown", "The viewer failed: " + error.message);
      throw error;
    }
    window.arenaViewer = viewer; // for the console and the tests
  }

  // A live page (arena/serve/live.js) starts the viewer itself, with data that keeps growing.
  window.ArenaViewer = { Viewer: Viewer, readTable: readTable, fail: fail };
  if (document.getElementById("live-bar") !== null) return;
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
