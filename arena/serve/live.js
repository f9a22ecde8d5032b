// The live match pages of the arena's server (arena/serve/): /match/ID and /tv.
//
// The match is drawn by the replay viewer itself (viewer.js, window.ArenaViewer): this script
// fetches the viewer data of the match so far (/match/ID/data.json), starts the viewer with it,
// and feeds it the new steps the event stream brings (/events?match=ID: "steps" events), so the
// page shows the same positions in the same words as the match's replay page will. It decides
// no rule: the steps are computed by the server. The clocks count down in the page, from the
// time left the steps carry. /tv is the same page without controls, following the match in
// progress and moving to the next one when it ends.
"use strict";
(function () {
  const bar = document.getElementById("live-bar");
  const app = document.getElementById("app");
  const stateLabel = document.getElementById("live-state");
  const clocks = document.getElementById("clocks");
  const tv = bar.dataset.mode === "tv";
  const TABLE_DATA_VERSION = 1;
  /** After a match ends, /tv shows its end this long before it moves to the next. */
  const TV_NEXT_MS = 4000;

  let viewer = null;
  let data = null;
  let match = null;
  let source = null;
  let over = false;
  let arrived = performance.now(); // when the last step came: the clock of the seat to move runs from it
  let banks = []; // each seat's bank left (ms), from the move steps so far
  let banked = 0; // the steps counted in banks

  function say(text, kind) {
    stateLabel.textContent = text;
    stateLabel.className = "live-state" + (kind ? " " + kind : "");
    app.setAttribute("data-live", over ? "over" : "live");
  }

  async function getJSON(url) {
    const response = await fetch(url, { cache: "no-store" });
    if (!response.ok) throw new Error(url + ": HTTP " + response.status);
    return response.json();
  }

  async function load(id) {
    match = id;
    const response = await fetch("/match/" + id + "/data.json", { cache: "no-store" });
    if (response.status === 404) {
      // Not started yet (or not a match of this tournament): look again in a moment.
      say("waiting for match " + id + " to start…", "off");
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return load(id);
    }
    if (!response.ok) throw new Error("/match/" + id + "/data.json: HTTP " + response.status);
    data = await response.json();
    const table = data.table && data.table.table_data === TABLE_DATA_VERSION ? data.table : window.ArenaViewer.readTable();
    viewer = new window.ArenaViewer.Viewer(app, data, table);
    window.arenaViewer = viewer; // for the console and the tests
    over = !data.live;
    banks = data.seats.map(() => data.match.time.bank_ms);
    banked = 0;
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    if (!tv && hash.get("move")) viewer.readHash();
    else viewer.go(viewer.steps.length - 1, { keepHash: true });
    const game = document.querySelector(".topbar .game");
    if (game) game.textContent = game.textContent.replace(/ replay$/, "") + (over ? " · finished" : " · live");
    bar.setAttribute("data-match", String(id));
    arrived = performance.now();
    say(over ? "finished" : "live", over ? "over" : "on");
    connect();
  }

  function connect() {
    if (source) source.close();
    source = new EventSource("/events?match=" + match + "&from=" + viewer.steps.length);
    source.addEventListener("open", () => say(over ? "finished" : "live", over ? "over" : "on"));
    source.addEventListener("steps", (e) => onSteps(JSON.parse(e.data)));
    source.addEventListener("match_finished", (e) => {
      if (JSON.parse(e.data).match === match) finished();
    });
    source.addEventListener("reset", () => location.reload()); // the server restarted
    source.addEventListener("error", () => {
      say("reconnecting…", "off");
      if (source.readyState === EventSource.CLOSED) setTimeout(connect, 1000);
    });
  }

  function onSteps(message) {
    if (message.match !== match) return;
    const have = viewer.steps.length;
    if (message.start > have) {
      // Steps missed (a reconnect): fetch them.
      getJSON("/match/" + match + "/steps?from=" + have).then(onSteps, () => {});
      return;
    }
    const fresh = message.steps.slice(have - message.start);
    if (!fresh.length) return;
    viewer.appendSteps(fresh);
    arrived = performance.now();
    const last = fresh[fresh.length - 1];
    if (last.kind === "match_end") finished();
  }

  function finished() {
    if (over) return;
    over = true;
    const game = document.querySelector(".topbar .game");
    if (game) game.textContent = game.textContent.replace(/ · live$/, " · finished");
    say(tv ? "match over: the next match in a moment" : "finished", "over");
    if (tv) setTimeout(() => location.assign("/tv?after=" + match), TV_NEXT_MS);
  }

  // -- the clocks ------------------------------------------------------------------------

  /** Each seat's bank from the move steps not counted yet: the time over the per-move limit
   * comes out of it (the referee's clock, arena/referee/clock.py, as each step records it). */
  function countBanks() {
    const moveMs = data.match.time.move_ms;
    for (; banked < viewer.steps.length; banked++) {
      const s = viewer.steps[banked];
      if (s.kind !== "move" || s.time_left_ms === null || s.time_left_ms === undefined) continue;
      const before = Math.max(0, s.time_left_ms - moveMs);
      banks[s.seat] = Math.max(0, before - Math.max(0, (s.elapsed_ms || 0) - moveMs));
    }
  }

  function tick() {
    if (viewer && data) {
      countBanks();
      const last = viewer.steps[viewer.steps.length - 1];
      const board = last.board;
      const moving = !over && board && last.kind !== "hand_end" ? board.to_move : null;
      const moveMs = data.match.time.move_ms;
      const chips = data.seats.map((seat, i) => {
        const chip = document.createElement("span");
        chip.className = "clock seat-border" + i + (i === moving ? " running" : "");
        chip.setAttribute("data-seat", String(i));
        let ms = moveMs + banks[i];
        if (i === moving) ms = Math.max(0, ms - (performance.now() - arrived));
        chip.textContent = "S" + i + " " + seat.name + " " + (ms / 1000).toFixed(1) + " s";
        chip.title = i === moving ? "time left for this move (the limit and the bank)" : "the per-move limit and the bank left";
        return chip;
      });
      clocks.replaceChildren(...chips);
    }
    setTimeout(tick, 100);
  }

  // -- /tv: which match ----------------------------------------------------------------------

  async function pickForTv() {
    const params = new URLSearchParams(location.search);
    const after = params.has("after") ? Number(params.get("after")) : null; // the match just shown
    const state = await getJSON("/api/state");
    const choices = state.in_progress.filter((m) => m.match !== after);
    const next = choices.length ? choices[0] : null;
    if (next) {
      await load(next.match);
      return;
    }
    say(state.running ? "waiting for the next match…" : "no match in progress", "off");
    if (!state.running && state.finished.length) {
      await load(state.finished[0].match); // the last match played, at its end
      return;
    }
    const waiting = new EventSource("/events");
    waiting.addEventListener("match_started", () => {
      waiting.close();
      pickForTv();
    });
  }

  function start() {
    tick();
    const shown = tv ? pickForTv() : load(Number(bar.dataset.match));
    shown.catch((error) => {
      say("cannot show the match: " + error.message, "off");
      if (tv) setTimeout(pickForTv, 2000);
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
