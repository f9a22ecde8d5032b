#!/usr/bin/env node
// A greedy Matador bot for node, no dependencies: the same strategy as sample_bots/greedy.py.
//
// Protocol v1 is JSON Lines: one JSON object per line on stdin (from the referee), one per
// line on stdout (to the referee). Every message has a "type". We answer "hello" with "ready"
// and every "request" with a "move" carrying the request's "id"; everything else is
// information. Log to stderr only: stdout is for protocol messages.
//
// Strategy, decided from the "request" message alone:
//   1. play the heaviest ordinary (non-matador) tile among the legal plays;
//   2. otherwise draw, if drawing is legal (matadors 0-0, 6-1, 5-2, 4-3 are kept for later);
//   3. otherwise play a matador, leaving the hardest end: blank (out 0) if possible, else the
//      lowest value, preferring not to cover a blank end;
//   4. otherwise pass (then PASS is the only legal move).
// Ties are broken deterministically.
//
// Run: node sample_bots/greedy.js
"use strict";

const readline = require("node:readline");

const NAME = "greedy-js";
const MAX_DEBUG_CHARS = 1024;
const MATADORS = new Set(["0-0", "1-6", "2-5", "3-4"]);

/** A tile as "low-high", e.g. "5-6" (legal moves list tiles as [low, high] already). */
function tileName(tile) {
  const [a, b] = tile;
  return a <= b ? `${a}-${b}` : `${b}-${a}`;
}

const isMatador = (tile) => MATADORS.has(tileName(tile));
const pips = (tile) => tile[0] + tile[1];
// Tie-break on the end: the lead (end null), then left, then right.
const endRank = (end) => (end === null ? 0 : end === "left" ? 1 : 2);

/** Compare two key arrays element by element (like Python's tuple comparison). */
function compareKeys(x, y) {
  for (let i = 0; i < x.length; i++) {
    if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return 0;
}

/** The legal move with the smallest key. */
function minBy(moves, key) {
  let best = null;
  let bestKey = null;
  for (const move of moves) {
    const k = key(move);
    if (best === null || compareKeys(k, bestKey) < 0) {
      best = move;
      bestKey = k;
    }
  }
  return best;
}

/** The open-end values once `play` is made (a lead opens both of its halves). */
function endsAfter(play, ends) {
  if (play.end === null) return [...play.tile].sort((a, b) => a - b);
  return ends.map((end) => (end.position === play.end ? play.out : end.value));
}

/** Ordinary plays: most pips first, then the higher top half, then the end. */
const heaviestKey = (play) => [
  -pips(play.tile),
  -Math.max(...play.tile),
  endRank(play.end),
  play.out,
];

/** Matador plays: lowest end left (0 = blank), then the most blank ends, then the end. */
function matadorKey(play, ends) {
  const blanks = endsAfter(play, ends).filter((v) => v === 0).length;
  return [play.out, -blanks, endRank(play.end)];
}

/** The greedy move for a request, and a short note on why (kept in the replay). */
function choose(request) {
  const plays = request.legal.filter((move) => move.action === "play");
  const ordinary = plays.filter((play) => !isMatador(play.tile));
  if (ordinary.length > 0) {
    const best = minBy(ordinary, heaviestKey);
    return [best, `heaviest ${tileName(best.tile)} (${pips(best.tile)} pips)`];
  }
  const draw = request.legal.find((move) => move.action === "draw");
  if (draw !== undefined) {
    const kept = [...new Set(plays.map((play) => tileName(play.tile)))].sort();
    const why = kept.length > 0 ? `keeping matador ${kept.join(", ")}` : "nothing to play";
    return [draw, `draw (${why})`];
  }
  if (plays.length > 0) {
    const best = minBy(plays, (play) => matadorKey(play, request.ends));
    const where = best.end === null ? "lead" : `on ${best.end}`;
    return [best, `matador ${tileName(best.tile)} ${where}, ${best.out} out`];
  }
  return [request.legal[0], "nothing to play: pass"]; // PASS is then the only legal move
}

// process.stdout.write is asynchronous for pipes on some platforms: an exit right after a
// write could lose it. Remember the last write and exit only once it has been flushed.
let lastWrite = Promise.resolve();

function send(message) {
  const line = JSON.stringify(message) + "\n";
  lastWrite = new Promise((resolve) => process.stdout.write(line, () => resolve()));
}

let finishing = false;

function finish() {
  if (finishing) return;
  finishing = true;
  rl.close();
  lastWrite.then(() => process.exit(0));
}

const rl = readline.createInterface({ input: process.stdin, terminal: false });

rl.on("line", (line) => {
  if (finishing || line.trim() === "") return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    console.error(`${NAME}: ignoring a line that is not JSON: ${err.message}`);
    return;
  }
  switch (msg.type) {
    case "hello":
      send({ type: "ready", name: NAME });
      break;
    case "request": {
      const [move, note] = choose(msg);
      // Echo the chosen legal move back exactly as listed, with the request's id.
      send({ type: "move", id: msg.id, move, debug: note.slice(0, MAX_DEBUG_CHARS) });
      break;
    }
    case "error":
      console.error(`${NAME}: stopped by the referee: ${msg.code}: ${msg.message}`);
      finish();
      break;
    case "match_end":
      finish();
      break;
    default:
      break; // hand_start, hand_end and unknown types: information only, no reply
  }
});

rl.on("close", finish); // EOF: the referee is gone
