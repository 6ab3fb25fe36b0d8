// Words for what happens in a game, read off the history the server sends: a move as a
// sentence (for the screen reader's announcements), and Kee's appeals and rescissions explained
// before and after, citing the rule as the refusals do. Display only: the server decides; these
// say in words what its history and `legal` already show.

import { colourOf } from "./board.js";

// "ann (black)" for a seat.
export function who(seats, seat) {
  const s = seats[seat];
  return `${s && s.name ? s.name : "seat " + seat} (${colourOf(seat).name})`;
}

// One history entry as a sentence: "bob (white) played C3".
export function moveSentence(seats, seat, move, points) {
  const name = who(seats, seat);
  if (move === "pass") return `${name} passed`;
  if (move.startsWith("appeal ")) return `${name} passed with an appeal for ${move.slice(7)}`;
  if (move === "resign") return `${name} resigned`;
  if (move === "timeout") return `${name} ran out of time`;
  if (points.has(move)) return `${name} played ${move}`;
  return `${name}: ${move}`;
}

const isPass = (move) => move === "pass" || move.startsWith("appeal ");

// Since the last live stone play: who made it, and the appeals against it (Kee rules 12-13).
export function appealState(history, points) {
  let stone = null;
  const appeals = [];
  for (let i = history.length - 1; i >= 0; i--) {
    const [seat, move, rescinded] = history[i];
    if (rescinded) continue;
    if (points.has(move)) { stone = { index: i, seat, point: move }; break; }
    if (move.startsWith("appeal ")) appeals.unshift({ index: i, seat, point: move.slice(7) });
    else if (!isPass(move)) break;
  }
  return stone ? { stone, appeals: appeals.filter((a) => a.seat !== stone.seat) } : null;
}

// What a pass by `you` would do now, in words, or null when it is an ordinary pass.
export function passWarning(game, you) {
  const points = new Set(game.board.points);
  const state = appealState(game.history, points);
  if (state && state.stone.seat === you && state.appeals.length && game.rules === "kee") {
    const p = state.stone.point;
    return `Passing now rescinds your stone at ${p} (Kee rule 13: it was answered by an appeal): ` +
      `${p} and the passes after it leave the game, the position goes back to before it, and you play again, ` +
      `but not at ${p} (rule 14).`;
  }
  let trailing = 0;
  for (let i = game.history.length - 1; i >= 0; i--) {
    const [, move, rescinded] = game.history[i];
    if (rescinded) continue;
    if (!isPass(move)) break;
    trailing += 1;
  }
  const active = game.players.length - (game.dropped || []).length;
  if (trailing >= active - 1) return "Every other player has passed since the last stone: your pass ends this part of play.";
  return null;
}

// After an appeal: the options it leaves to each player, from the seat `you`'s view.
export function appealText(game, seats, you) {
  if (game.rules !== "kee") return null;
  const points = new Set(game.board.points);
  const state = appealState(game.history, points);
  if (!state || !state.appeals.length) return null;
  const { stone, appeals } = state;
  const by = appeals.map((a) => `${who(seats, a.seat)} for ${a.point}`).join(", ");
  const head = `Appeal (Kee rule 12) by ${by}: that play is prohibited by the cycle rule (rule 11).`;
  if (you === stone.seat) {
    return `${head} Your stone at ${stone.point} is the last stone play: if you pass without appeal, it is rescinded ` +
      `(rule 13) and you play again from before it; a stone play keeps it.`;
  }
  const owner = who(seats, stone.seat);
  return `${head} ${owner}'s stone at ${stone.point} is the last stone play: if ${seats[stone.seat].name || "its player"} ` +
    `passes without appeal before anyone plays a stone, it is rescinded (rule 13) and replayed from before it. ` +
    (you === null ? "" : "On your turn you may play a stone (that keeps it), pass, or appeal where a point is prohibited.");
}

// After a rescission: what went and why.
export function rescissionText(game, seats, indexes) {
  const points = new Set(game.board.points);
  const gone = indexes.map((i) => game.history[i]).filter(Boolean);
  const stone = gone.find(([, move]) => points.has(move));
  if (!stone) return null;
  const [seat, point] = stone;
  const passes = gone.length - 1;
  return `${who(seats, seat)} passed without appeal after an appeal: the stone at ${point} is rescinded (Kee rule 13). ` +
    `It and the ${passes} pass${passes === 1 ? "" : "es"} after it leave the game (the move list keeps them struck through); ` +
    `${seats[seat].name || "its player"} plays again from the position before it, and may not play ${point} there (rule 14).`;
}
