// Finished games: the list (`games`) and a replay of one record (`game`), move by move.
// The record holds moves, not positions, so the replay redoes the captures itself: a stone takes
// the liberty-less chains of the other colours, then its own if it has none left. That is display,
// not judgement (every move in a record was accepted by the server's engine); a run of rescinded
// entries puts back the position from before its stone play, as the rescission did.

import { h, download } from "./dom.js";
import { drawBoard, colourOf } from "./board.js";

export function positions(board, history, setup = {}) {
  const adj = new Map(board.points.map((p) => [p, []]));
  for (const [a, b] of board.edges) { adj.get(a).push(b); adj.get(b).push(a); }
  const chain = (stones, p) => {
    const c = stones[p], group = [p], seen = new Set([p]);
    let free = false;
    for (let i = 0; i < group.length; i++) {
      for (const q of adj.get(group[i])) {
        if (!(q in stones)) free = true;
        else if (stones[q] === c && !seen.has(q)) { seen.add(q); group.push(q); }
      }
    }
    return { group, free };
  };
  const out = [{ ...setup }];
  let cur = { ...setup };
  let runStart = null;
  history.forEach(([seat, move, rescinded], i) => {
    if (rescinded && runStart === null) runStart = i;
    const next = { ...cur };
    if (adj.has(move)) {
      next[move] = seat;
      for (const q of adj.get(move)) {
        if (q in next && next[q] !== seat) {
          const { group, free } = chain(next, q);
          if (!free) for (const p of group) delete next[p];
        }
      }
      const own = chain(next, move);
      if (!own.free) for (const p of own.group) delete next[p];
    }
    cur = next;
    const endOfRun = rescinded && (i + 1 >= history.length || !history[i + 1][2]);
    if (endOfRun) { cur = { ...out[runStart] }; runStart = null; }
    out.push(cur);
  });
  return out;
}

const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
const gridName = (x, y) => `${COLUMNS[x]}${y + 1}`;

// A grid or torus board from its spec, for a record whose room the server no longer shows.
export function gridBoard(spec) {
  const m = /^(?:(torus):)?(\d+)(?:x(\d+))?$/.exec(spec || "");
  if (!m) return null;
  const w = +m[2], h = +(m[3] || m[2]), torus = !!m[1];
  const points = [], edges = [], coords = {};
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) { points.push(gridName(x, y)); coords[gridName(x, y)] = [x, y]; }
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    if (x + 1 < w) edges.push([gridName(x, y), gridName(x + 1, y)]);
    else if (torus && w > 2) edges.push([gridName(0, y), gridName(x, y)]);
    if (y + 1 < h) edges.push([gridName(x, y), gridName(x, y + 1)]);
    else if (torus && h > 2) edges.push([gridName(x, 0), gridName(x, y)]);
  }
  return { points, edges, coords };
}

// The fixed handicap stones (they are not moves of the record): polygo/rules/handicap.py's placement.
export function fixedHandicap(spec, stones) {
  const m = /^(\d+)(?:x(\d+))?$/.exec(spec || "");
  if (!m || stones < 2) return {};
  const w = +m[1], h = +(m[2] || m[1]);
  const edge = Math.min(w, h) >= 12 ? 3 : 2;
  const [left, right, midX, low, high, midY] = [edge, w - 1 - edge, Math.floor(w / 2), edge, h - 1 - edge, Math.floor(h / 2)];
  let order = [[left, low], [right, high], [left, high], [right, low]];
  const centre = [5, 7, 9].includes(stones) ? [[midX, midY]] : [];
  if (stones >= 6) order = order.concat([[left, midY], [right, midY]]);
  if (stones >= 8) order = order.concat([[midX, low], [midX, high]]);
  const out = {};
  for (const [x, y] of order.slice(0, stones - centre.length).concat(centre)) out[gridName(x, y)] = 0;
  return out;
}

export async function gamesPage(app) {
  const root = h("div.games", {}, h("a.back", { href: "#/" }, "← lobby"), h("h2", {}, "Finished games"));
  let reply;
  try { reply = await app.conn.request("games", { limit: 100 }); } catch (e) { root.append(h("p.error", {}, e.message)); return root; }
  const rows = reply.games.filter((g) => g.result).map((g) => h("tr", {},
    h("td", {}, h("a.replay-link", { href: `#/replay/${g.room}` }, g.settings.title || g.room)),
    h("td", {}, g.settings.rules), h("td", {}, typeof g.settings.board === "string" ? g.settings.board : "graph"),
    h("td", {}, g.seats.map((n, i) => `${n}${g.result ? ` #${g.result.ranking[i]}` : ""}`).join(", ")),
    h("td", {}, g.result ? g.result.reason : ""), h("td", {}, String(g.moves)),
    h("td", {}, new Date(g.finished * 1000).toLocaleString())));
  root.append(rows.length ? h("table.list", {}, h("thead", {}, h("tr", {}, ["game", "rules", "board", "players", "end", "moves", "finished"].map((t) => h("th", {}, t)))), h("tbody", {}, rows))
    : h("p", {}, "No finished game yet."));
  return root;
}

export async function replayPage(app, id) {
  const root = h("div.replay");
  let rec;
  try { rec = (await app.conn.request("game", { room: id })).record; } catch (e) {
    root.append(h("p.error", {}, e.message), h("a", { href: "#/games" }, "back")); return root;
  }
  const snapshot = await app.conn.request("watch", { room: id }).catch(() => null);
  const recBoard = rec.record.board;
  const spec = snapshot ? snapshot.game.board_spec : typeof recBoard === "string" ? recBoard : null;
  const board = snapshot ? snapshot.game.board : typeof recBoard === "object" ? recBoard : gridBoard(recBoard);
  if (!board) { root.append(h("p.error", {}, "the board of this game is not available")); return root; }
  if (snapshot) app.conn.request("leave", { room: id }).catch(() => {});
  const opts = rec.record.options || {};
  const setup = opts.handicap_mode === "fixed" ? fixedHandicap(spec, opts.handicap || 0) : {};
  const hist = rec.history;
  const pos = positions(board, hist, setup);
  let at = hist.length;
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  const label = h("span.at");
  const list = h("ol.moves", {}, hist.map(([seat, move, resc], i) => h("li", { class: resc ? "rescinded" : "", "data-index": i,
    onclick: () => { at = i + 1; show(); } }, h("span.num", {}, `${i + 1}`), h("span.swatch.small", { "data-seat": seat }, colourOf(seat).letter),
    resc ? h("s", {}, move) : h("span", {}, move))));
  const show = () => {
    const last = at > 0 && hist[at - 1][1] in pos[at] ? hist[at - 1][1] : null;
    drawBoard(svg, { board, spec, stones: pos[at], last, prohibited: {}, dead: new Set() });
    label.textContent = `move ${at} of ${hist.length}` + (at > 0 ? `: ${rec.seats[hist[at - 1][0]]} ${hist[at - 1][1]}${hist[at - 1][2] ? " (rescinded)" : ""}` : "");
    list.querySelectorAll("li").forEach((li, i) => li.classList.toggle("current", i === at - 1));
  };
  const go = (d) => { at = Math.max(0, Math.min(hist.length, at + d)); show(); };
  const r = rec.result;
  const sgfable = rec.seats.length === 2 && /^\d+(x\d+)?$/.test(spec || "");
  root.append(h("a.back", { href: "#/games" }, "← finished games"),
    h("h2", {}, rec.settings.title || `game ${rec.room}`),
    h("p", {}, `${rec.settings.rules} · ${rec.seats.join(", ")}` + (r ? ` · ${r.reason}: ` + rec.seats.map((n, i) => `${n} #${r.ranking[i]} (${r.score[i]})`).join(", ") : "")),
    h("div.play", {}, h("div.board-wrap", {}, svg),
      h("div.side", {},
        h("div.panel.nav", {}, h("button.first", { onclick: () => go(-1e9), title: "the start" }, "«"),
          h("button.prev", { onclick: () => go(-1), title: "one move back (←)" }, "‹"),
          h("button.next", { onclick: () => go(1), title: "one move on (→)" }, "›"),
          h("button.lastm", { onclick: () => go(1e9), title: "the end" }, "»"), label),
        h("div.panel", {},
          h("button.dl-json", { onclick: () => download(`polygo-${id}.json`, JSON.stringify(rec, null, 1), "application/json") }, "Download JSON"),
          h("button.dl-sgf", { disabled: !sgfable, title: sgfable ? null : "SGF holds two-player games on grids only", onclick: async () => {
            try {
              const sgf = await app.conn.request("game", { room: id, format: "sgf" });
              download(`polygo-${id}.sgf`, sgf.record, "application/x-go-sgf");
            } catch (e) { alertLine.textContent = e.message; }
          } }, "Download SGF")),
        h("div.panel", {}, list))));
  const alertLine = h("p.notice");
  root.append(alertLine);
  root.tabIndex = 0;
  root.addEventListener("keydown", (e) => { if (e.key === "ArrowLeft") go(-1); if (e.key === "ArrowRight") go(1); });
  show();
  return root;
}
