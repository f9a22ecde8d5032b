#!/usr/bin/env node
// A greedy bot for node, Matador, Fives and Block, no dependencies: the same strategy as
// sample_bots/greedy.py.
//
// Protocol v1 is JSON Lines: one JSON object per line on stdin (from the referee), one per
// line on stdout (to the referee). Every message has a "type". We answer "hello" with "ready"
// and every "request" with a "move" carrying the request's "id"; everything else is
// information. Log to stderr only: stdout is for protocol messages.
//
// Strategy in Matador, decided from the "request" message alone:
//   1. play an ordinary (non-matador) tile if one fits: matadors (0-0, 6-1, 5-2, 4-3) are kept
//      for the ends nothing else fits. Among them, shed the most: the pips, a bonus for a
//      double (it fits one value only), a bonus for leaving an end the opponents cannot
//      answer: blank, or open when an opponent drew or passed (shownVoid reads the history);
//   2. otherwise play a matador rather than draw (drawing goes on until a tile fits), leaving
//      the hardest end: one they cannot answer, else blank, else the lowest value;
//   3. otherwise draw or pass, the only legal move then.
// Strategy in Fives (hello.game is "fives"):
//   1. play the move that scores the most (the count of the open ends after it, worked out
//      from the request's layout, spinner and arms, when it is a positive multiple of five);
//      among equal scores, the heaviest tile;
//   2. otherwise draw or pass, the only legal move then.
// Strategy in Block (hello.game is "block"): shed the most, as in Matador's step 1; otherwise
// pass, the only legal move then.
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
// Tie-break on the end: the lead (end null), then left/west, then right/east, north, south.
const END_RANK = { left: 1, right: 2, west: 1, east: 2, north: 3, south: 4 };
const endRank = (end) => (end === null ? 0 : END_RANK[end]);

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

// -- Fives: what a play scores ------------------------------------------------------------

/** What an end tile counts: its outer half, both halves for a double (docs/rules.md 2.5). */
const endValue = (tile, outer) => (tile[0] === tile[1] ? 2 * outer : outer);

/** The count of the open ends of a Fives table (line west to east, spinner index, arms). */
function fivesCount(line, spinner, north, south) {
  if (spinner === null) {
    if (line.length === 1) return line[0][0] + line[0][1]; // a lone tile counts its pips once
    const last = line[line.length - 1];
    return endValue(line[0], line[0][0]) + endValue(last, last[1]);
  }
  let count = 0;
  const covered = (spinner > 0 ? 1 : 0) + (spinner < line.length - 1 ? 1 : 0);
  if (covered <= 1) count += 2 * line[spinner][0]; // the spinner, while a side of it is open
  if (spinner > 0) count += endValue(line[0], line[0][0]);
  if (spinner < line.length - 1) {
    const last = line[line.length - 1];
    count += endValue(last, last[1]);
  }
  for (const arm of [north, south]) {
    if (arm.length > 0) count += endValue(arm[arm.length - 1], arm[arm.length - 1][1]);
  }
  return count;
}

/** The points a play scores at once: the count after it, if a positive multiple of five. */
function fivesPoints(play, request) {
  const line = request.layout.map((t) => [t[0], t[1]]);
  let spinner = typeof request.spinner === "number" ? request.spinner : null;
  const arms = request.arms || null;
  const north = arms ? arms.north.map((t) => [t[0], t[1]]) : [];
  const south = arms ? arms.south.map((t) => [t[0], t[1]]) : [];
  const [low, high] = play.tile;
  const inner = low + high - play.out; // the half that touches the end
  const double = low === high;
  if (play.end === "west") {
    line.unshift([play.out, inner]);
    spinner = spinner !== null ? spinner + 1 : double ? 0 : null;
  } else if (play.end === "east") {
    line.push([inner, play.out]);
    if (spinner === null && double) spinner = line.length - 1;
  } else if (play.end === "north") {
    north.push([inner, play.out]);
  } else if (play.end === "south") {
    south.push([inner, play.out]);
  }
  const count = fivesCount(line, spinner, north, south);
  return count > 0 && count % 5 === 0 ? count : 0;
}

/** The greedy Fives move: the play that scores the most, then the heaviest. */
function chooseFives(request) {
  const plays = request.legal.filter((move) => move.action === "play");
  if (plays.length === 0) {
    const only = request.legal[0]; // DRAW or PASS, the only legal move then
    return [only, "nothing to play: " + only.action];
  }
  const best = minBy(plays, (play) => [-fivesPoints(play, request), ...heaviestKey(play)]);
  const points = fivesPoints(best, request);
  const where = `${tileName(best.tile)} on ${best.end}`;
  if (points > 0) return [best, `scores ${points}: ${where}`];
  return [best, `no score: heaviest ${where} (${pips(best.tile)} pips)`];
}

/** End values some opponent has shown it cannot answer: the ends open when it drew or
 * passed (it held no ordinary tile for them then). Replays the public history from the lead. */
function shownVoid(request) {
  let ends = {};
  const voids = new Set();
  for (const event of request.history) {
    const move = event.move;
    if (move.action === "play") {
      if (move.end === null || move.end === undefined) {
        // the lead opens both halves: left the low, right the high
        ends = { left: Math.min(...move.tile), right: Math.max(...move.tile) };
      } else {
        ends[move.end] = move.out;
      }
    } else if (event.seat !== request.seat) {
      for (const value of Object.values(ends)) voids.add(value); // an opponent drew or passed
    }
  }
  return voids;
}

/** How much we like a play: its pips (a lighter hand wins a block), a bonus for a double (it
 * fits only one value, the hardest tile to get rid of later), and a bonus for leaving an end
 * in `hard` (one the opponents cannot answer). */
function shedValue(play, hard) {
  const double = play.tile[0] === play.tile[1] ? 1 : 0;
  return pips(play.tile) + 4 * double + 8 * (hard.has(play.out) ? 1 : 0);
}

/** The greedy Block move: shed the most (heavy tiles, doubles, ends the opponent lacks). */
function chooseBlock(request) {
  const plays = request.legal.filter((move) => move.action === "play");
  if (plays.length === 0) return [request.legal[0], "nothing to play: pass"];
  const hard = shownVoid(request);
  const best = minBy(plays, (play) => [-shedValue(play, hard), ...heaviestKey(play)]);
  const note = `shed ${tileName(best.tile)}, ${best.out} out`;
  return [best, note + (hard.has(best.out) ? " (they lack it)" : "")];
}

/** The greedy move for a request, and a short note on why (kept in the replay). */
function choose(request, game) {
  if (game === "fives") return chooseFives(request);
  if (game === "block") return chooseBlock(request);
  const plays = request.legal.filter((move) => move.action === "play");
  if (plays.length === 0) {
    const only = request.legal[0]; // DRAW or PASS is then the only legal move
    return [only, "nothing to play: " + only.action];
  }
  // A blank end takes only a matador; a void end, nothing the opponents hold.
  const hard = shownVoid(request).add(0);
  const ordinary = plays.filter((play) => !isMatador(play.tile));
  if (ordinary.length > 0) {
    // keep the matadors for the ends nothing else fits
    const best = minBy(ordinary, (play) => [-shedValue(play, hard), ...heaviestKey(play)]);
    const note = `shed ${tileName(best.tile)}, ${best.out} out`;
    return [best, note + (hard.has(best.out) ? " (hard for them)" : "")];
  }
  // Only matadors fit. Drawing instead would fill the hand until a tile fits (and a matador
  // costs 7 pips at a block): play it, leaving the hardest end.
  const best = minBy(plays, (play) => [
    hard.has(play.out) ? 0 : 1,
    ...matadorKey(play, request.ends),
  ]);
  const where = best.end === null ? "lead" : `on ${best.end}`;
  return [best, `matador ${tileName(best.tile)} ${where}, ${best.out} out`];
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
let game = "matador";

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
      game = msg.game;
      send({ type: "ready", name: NAME });
      break;
    case "request": {
      const [move, note] = choose(msg, game);
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
