// The tournament page of the arena's live server (/): standings, ratings, cross-table, the
// matches in progress with their scores, and the finished ones linking to their replays.
//
// Everything shown comes from /api/state (computed by the server from the tournament's
// database and the matches being played); the event stream (/events) says when to fetch it
// again, and keeps the moves counter going. The page reconnects by itself when the server
// goes away and comes back (a restarted `arena serve`).
"use strict";
(function () {
  const main = document.getElementById("home-main");
  const connection = document.getElementById("connection");
  const title = document.getElementById("home-title");
  let state = null;
  let refreshTimer = null;
  let source = null;
  let moves = 0;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else node.setAttribute(key, String(value));
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function table(id, heads, rows) {
    return el(
      "table",
      { id: id, class: "live-table" },
      el("thead", {}, el("tr", {}, heads.map((h) => el("th", { text: h })))),
      el("tbody", {}, rows),
    );
  }

  function seatsText(seats) {
    return seats.join(" vs ");
  }

  function render() {
    const s = state;
    title.textContent = s.title;
    document.title = s.title + " · live";
    const doc = s.standings;
    const done = s.finished.length;
    const parts = [];
    parts.push(el("p", { id: "progress", class: "progress" }, (s.total ? done + " of " + s.total + " matches" : done + " matches") + " finished · " + s.in_progress.length + " in progress · ", el("span", { id: "moves", text: moves.toLocaleString() }), " moves seen" + (s.running ? "" : " · the tournament is over")));

    const live = s.in_progress.map((m) =>
      el(
        "tr",
        { class: "in-progress", "data-match": m.match },
        el("td", {}, el("a", { href: "/match/" + m.match, text: "match " + m.match })),
        el("td", { text: seatsText(m.seats) }),
        el("td", { class: "num", text: m.scores.join(" – ") }),
        el("td", { class: "num", text: m.hand ? "hand " + m.hand : "starting" }),
      ),
    );
    parts.push(el("section", { id: "in-progress" }, el("h2", { text: "In progress" }), live.length ? table("live-matches", ["match", "seats", "scores", ""], live) : el("p", { class: "muted", text: s.running ? "No match is being played right now." : "No match in progress." }), el("p", {}, el("a", { href: "/tv", text: "Watch on the TV page" }))));

    if (doc) {
      const rows = doc.standings.map((b) =>
        el(
          "tr",
          { "data-bot": b.name },
          el("td", { class: "num", text: b.place }),
          el("td", { text: b.name }),
          el("td", { class: "num points", text: b.points }),
          el("td", { class: "num", text: b.wins + "-" + b.draws + "-" + b.losses }),
          el("td", { class: "num", text: b.matches }),
          el("td", { class: "num", text: Object.values(b.failures).reduce((a, c) => a + c, 0) }),
          el("td", { class: "num", text: b.median_ms === null ? "" : b.median_ms.toFixed(1) }),
        ),
      );
      parts.push(el("section", { id: "standings" }, el("h2", { text: "Standings" }), table("standings-table", ["#", "bot", "points", "W-D-L", "matches", "failures", "median ms"], rows)));
      const ratings = (doc.ratings || []).map((r) => {
        const elo = r.elo_games && r.elo_games.elo !== null ? (r.elo_games.elo >= 0 ? "+" : "") + r.elo_games.elo.toFixed(1) : "";
        return el("tr", {}, el("td", { text: r.name }), el("td", { class: "num", text: r.mu.toFixed(2) }), el("td", { class: "num", text: r.sigma.toFixed(2) }), el("td", { class: "num", text: elo }));
      });
      parts.push(el("section", { id: "ratings" }, el("h2", { text: "Ratings" }), table("ratings-table", ["bot", "μ", "σ", "Elo"], ratings)));
      const names = doc.standings.map((b) => b.name);
      const cells = {};
      for (const c of doc.cross_table || []) cells[c.bot + "\u0000" + c.opponent] = c;
      const cross = names.map((a) =>
        el(
          "tr",
          {},
          el("th", { text: a }),
          names.map((b) => {
            const c = cells[a + "\u0000" + b];
            return el("td", { class: "num", text: a === b ? "—" : c ? c.points + " / " + c.games : "" });
          }),
        ),
      );
      parts.push(el("section", { id: "cross" }, el("h2", { text: "Cross-table (points / games)" }), table("cross-table", ["", ...names], cross)));
    }

    const finished = s.finished.slice(0, 100).map((m) =>
      el(
        "tr",
        { class: "finished", "data-match": m.match },
        el("td", {}, m.replay ? el("a", { href: m.replay, text: "match " + m.match }) : "match " + m.match),
        el("td", { text: seatsText(m.seats) }),
        el("td", { class: "num", text: m.scores.join(" – ") }),
        el("td", { text: m.winner === null || m.winner === undefined ? "draw" : m.seats[m.winner] + " wins" }),
      ),
    );
    parts.push(el("section", { id: "finished" }, el("h2", { text: "Finished matches" }), finished.length ? table("finished-matches", ["replay", "seats", "scores", "result"], finished) : el("p", { class: "muted", text: "None yet." })));
    main.replaceChildren(...parts);
  }

  async function refresh() {
    refreshTimer = null;
    try {
      const response = await fetch("/api/state", { cache: "no-store" });
      if (!response.ok) throw new Error("HTTP " + response.status);
      state = await response.json();
      moves = Math.max(moves, state.moves);
      render();
    } catch (error) {
      connection.textContent = "cannot read the state: " + error.message;
    }
  }

  function later() {
    if (refreshTimer === null) refreshTimer = setTimeout(refresh, 250);
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("/events");
    source.addEventListener("open", () => {
      connection.textContent = "live";
      connection.className = "connection on";
      refresh(); // what happened while the stream was away
    });
    source.addEventListener("error", () => {
      connection.textContent = "reconnecting…";
      connection.className = "connection off";
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
    });
    for (const kind of ["match_started", "hand_ended", "match_finished", "match_recorded", "standings", "finished", "reset"]) {
      source.addEventListener(kind, later);
    }
    source.addEventListener("move", () => {
      moves += 1;
      const counter = document.getElementById("moves");
      if (counter) counter.textContent = moves.toLocaleString();
    });
  }

  function start() {
    connect();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
