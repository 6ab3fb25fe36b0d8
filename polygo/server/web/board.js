// The board as SVG, drawn as a pure function of data (as Sabaki's shudan): drawBoard(svg, view)
// redraws everything from `view`; clicks and keys come back through view.onPoint(point).
// No rules here: what may be played comes from the server's `legal`.

import { stressLayout } from "./layout.js";

const NS = "http://www.w3.org/2000/svg";
export const COLOURS = [
  { name: "black", letter: "B", fill: "#1b1b1b", ink: "#ffffff" },
  { name: "white", letter: "W", fill: "#fafafa", ink: "#111111" },
  { name: "red", letter: "R", fill: "#d62828", ink: "#ffffff" },
  { name: "blue", letter: "L", fill: "#1f6fd1", ink: "#ffffff" },
  { name: "green", letter: "G", fill: "#2a9d3f", ink: "#ffffff" },
  { name: "yellow", letter: "Y", fill: "#f2c230", ink: "#111111" },
  { name: "purple", letter: "P", fill: "#7b3fb5", ink: "#ffffff" },
  { name: "orange", letter: "O", fill: "#f07f13", ink: "#111111" },
];
export function colourOf(seat) { return COLOURS[seat % COLOURS.length]; }

export const REASONS = {
  cycle: "cycle: would repeat an earlier position (Kee rule 11); an appeal can ask for it",
  superko: "superko: would repeat an earlier position",
  ko: "ko: the ko may not be taken back at once",
  suicide: "suicide",
  rescinded: "rescinded: this play was rescinded here (Kee rule 14)",
  "cycle-set": "cycle set (Hansen)",
  disallowed: "disallowed capture (Hansen)",
  tko: "tko (Hansen)",
  "basic-ko": "basic ko rule (Jasiek)",
  fighting: "fighting rule (Jasiek)",
  disturber: "disturber rule (Jasiek)",
  prohibition: "prohibition rule (Jasiek)",
  "own-previous": "would repeat your own previous position (Nieminen)",
};
export function reasonText(code) { return REASONS[code] || code; }

const MAX_UNIT_PX = 100;   // boards of a few points are held to this; from 7×7 up, the screen is the limit
const GRID = /^(?:(torus):)?(\d+)(?:x(\d+))?$/;
const COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

const layouts = new WeakMap();

// Where each point is drawn, in board units, plus what kind of drawing it is.
export function layout(board, spec) {
  if (layouts.has(board)) return layouts.get(board);
  let result;
  const m = typeof spec === "string" ? GRID.exec(spec) : null;
  if (m && board.coords) {
    const w = +m[2], h = +(m[3] || m[2]);
    const pos = {};
    for (const p of board.points) {
      const [x, y] = board.coords[p];
      pos[p] = [x, h - 1 - y];
    }
    result = { kind: m[1] ? "torus" : "grid", w, h, pos, unit: 1 };
  } else {
    const raw = board.coords && board.points.every((p) => board.coords[p]) ? board.coords : stressLayout(board);
    result = { kind: "graph", pos: normalise(board.points, raw), unit: 1 };
  }
  // the shortest edge sets the size of stones on graph boards
  if (result.kind === "graph") {
    let shortest = Infinity;
    for (const [a, b] of board.edges) {
      const [ax, ay] = result.pos[a], [bx, by] = result.pos[b];
      shortest = Math.min(shortest, Math.hypot(ax - bx, ay - by));
    }
    // points that are close but not joined also limit the radius
    const pts = board.points;
    if (pts.length <= 600) {
      for (let i = 0; i < pts.length; i++) for (let j = i + 1; j < pts.length; j++) {
        const [ax, ay] = result.pos[pts[i]], [bx, by] = result.pos[pts[j]];
        shortest = Math.min(shortest, Math.hypot(ax - bx, ay - by) * 1.15);
      }
    }
    // scale so that the shortest distance is 1, as between grid lines: stones and strokes then
    // have the same sizes on every board
    const scale = Number.isFinite(shortest) && shortest > 0 ? 1 / shortest : 1;
    for (const p of pts) result.pos[p] = [result.pos[p][0] * scale, result.pos[p][1] * scale];
  }
  layouts.set(board, result);
  return result;
}

function normalise(points, coords) {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of points) {
    const [x, y] = coords[p];
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  const span = Math.max(maxX - minX, maxY - minY) || 1;
  const scale = Math.max(1, Math.sqrt(points.length)) * 1.6 / span;
  const pos = {};
  for (const p of points) pos[p] = [(coords[p][0] - minX) * scale, (coords[p][1] - minY) * scale];
  return pos;
}

function starPoints(w, h) {
  if (w !== h || ![9, 13, 19].includes(w)) return [];
  const e = w === 9 ? 2 : 3, c = (w - 1) / 2, f = w - 1 - e;
  const list = w === 9 ? [[e, e], [e, f], [f, e], [f, f], [c, c]]
    : [[e, e], [e, c], [e, f], [c, e], [c, c], [c, f], [f, e], [f, c], [f, f]];
  return list;
}

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// view: {board, spec, stones, last, prohibited, dead, territory, kos (point -> text), cursor,
// pending (a point chosen, waiting for its confirmation), playable, ghost (the seat whose stone a
// playable point shows), onPoint(point, clickEvent), onHover}
export function drawBoard(svg, view) {
  const lay = layout(view.board, view.spec);
  const pos = lay.pos;
  const u = lay.unit;
  const r = u * (lay.kind === "graph" ? 0.38 : 0.46);   // graph edges stay visible between stones
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of view.board.points) {
    const [x, y] = pos[p];
    minX = Math.min(minX, x); maxX = Math.max(maxX, x); minY = Math.min(minY, y); maxY = Math.max(maxY, y);
  }
  const margin = lay.kind === "graph" ? u * 0.9 : u * 1.1;
  svg.setAttribute("viewBox", `${minX - margin} ${minY - margin} ${maxX - minX + 2 * margin} ${maxY - minY + 2 * margin}`);
  svg.setAttribute("class", `board board-${lay.kind}`);
  // at most MAX_UNIT_PX a unit: a board of a few points is not drawn with stones as big as a fist
  svg.style.maxWidth = `${Math.round((maxX - minX + 2 * margin) * MAX_UNIT_PX)}px`;
  el("rect", { x: minX - margin, y: minY - margin, width: maxX - minX + 2 * margin, height: maxY - minY + 2 * margin,
    class: "board-bg", rx: u * 0.2 }, svg);
  const lines = el("g", { class: "edges", "stroke-width": u * 0.04 }, svg);
  for (const [a, b] of view.board.edges) {
    const [ax, ay] = pos[a], [bx, by] = pos[b];
    if (lay.kind === "torus" && Math.hypot(ax - bx, ay - by) > 1.5) {
      // a wrap-around edge: a dashed stub out of each side of the board
      const sx = Math.sign(bx - ax) || 0, sy = Math.sign(by - ay) || 0;
      el("line", { x1: ax, y1: ay, x2: ax - sx * 0.6, y2: ay - sy * 0.6, class: "wrap" }, lines);
      el("line", { x1: bx, y1: by, x2: bx + sx * 0.6, y2: by + sy * 0.6, class: "wrap" }, lines);
    } else {
      el("line", { x1: ax, y1: ay, x2: bx, y2: by }, lines);
    }
  }
  if (lay.kind !== "graph") {
    for (const [sx, sy] of starPoints(lay.w, lay.h)) {
      el("circle", { cx: sx, cy: lay.h - 1 - sy, r: 0.1, class: "star" }, svg);
    }
    const labels = el("g", { class: "coords", "font-size": 0.38 }, svg);
    for (let x = 0; x < lay.w; x++) {
      for (const yy of [-0.75, lay.h - 0.25]) {
        const t = el("text", { x, y: yy + 0.12, "text-anchor": "middle" }, labels);
        t.textContent = COLUMNS[x];
      }
    }
    for (let y = 0; y < lay.h; y++) {
      for (const xx of [-0.8, lay.w - 0.2]) {
        const t = el("text", { x: xx, y: lay.h - 1 - y + 0.13, "text-anchor": "middle" }, labels);
        t.textContent = String(y + 1);
      }
    }
  }
  const points = el("g", { class: "points" }, svg);
  for (const p of view.board.points) {
    const [x, y] = pos[p];
    const g = el("g", { class: "pt", "data-point": p }, points);
    const seat = view.stones[p];
    const title = el("title", {}, g);
    let tip = p;
    el("circle", { cx: x, cy: y, r: u * 0.5, class: "hit" }, g);
    if (seat !== undefined && seat !== null) {
      const c = colourOf(seat);
      const dead = view.dead && view.dead.has(p);
      g.classList.add("stone", `seat-${seat}`);
      if (dead) g.classList.add("dead");
      el("circle", { cx: x, cy: y, r: r * 0.96, fill: c.fill, class: "stone-body" }, g);
      const t = el("text", { x, y: y + r * 0.36, "text-anchor": "middle", "font-size": r * 1.0, fill: c.ink,
        class: "stone-letter" }, g);
      t.textContent = c.letter;
      tip += ` ${c.name}`;
      if (dead) {
        el("line", { x1: x - r * 0.6, y1: y - r * 0.6, x2: x + r * 0.6, y2: y + r * 0.6, class: "dead-x" }, g);
        el("line", { x1: x - r * 0.6, y1: y + r * 0.6, x2: x + r * 0.6, y2: y - r * 0.6, class: "dead-x" }, g);
        tip += " (marked dead)";
      }
      if (view.last === p) {
        el("circle", { cx: x, cy: y, r: r * 1.12, class: "last" }, g);
        g.classList.add("last-move");
        tip += " (last move)";
      }
    } else {
      if (lay.kind === "graph") {
        el("circle", { cx: x, cy: y, r: r * 0.16, class: "node" }, g);
        const t = el("text", { x, y: y + r * 0.62, "text-anchor": "middle", "font-size": r * 0.42, class: "pname" }, g);
        t.textContent = p;
      }
      const owner = view.territory ? view.territory[p] : undefined;
      if (owner !== undefined) {
        const c = colourOf(owner);
        el("rect", { x: x - r * 0.3, y: y - r * 0.3, width: r * 0.6, height: r * 0.6, fill: c.fill,
          class: "territory", stroke: "#777" }, g);
        tip += ` (${c.name}'s territory)`;
      }
      const reason = view.prohibited ? view.prohibited[p] : undefined;
      if (reason) {
        g.classList.add("prohibited");
        g.setAttribute("data-reason", reason);
        const s = r * 0.32;
        el("line", { x1: x - s, y1: y - s, x2: x + s, y2: y + s, class: "forbid" }, g);
        el("line", { x1: x - s, y1: y + s, x2: x + s, y2: y - s, class: "forbid" }, g);
        tip += ` prohibited: ${reasonText(reason)}`;
      } else if (view.pending === p) {
        g.classList.add("pending");
        el("circle", { cx: x, cy: y, r: r * 0.96, fill: colourOf(view.ghost).fill, class: "pending-stone" }, g);
        el("circle", { cx: x, cy: y, r: r * 1.15, class: "pending-ring" }, g);
        tip += " (chosen: confirm to play)";
      } else if (view.playable) {
        g.classList.add("playable");
        if (view.ghost !== undefined) {
          el("circle", { cx: x, cy: y, r: r * 0.9, fill: colourOf(view.ghost).fill, class: "ghost" }, g);
        }
      }
    }
    const ko = view.kos ? view.kos[p] : undefined;
    if (ko) {
      g.classList.add("ko");
      el("rect", { x: x - r * 0.98, y: y - r * 0.98, width: r * 1.96, height: r * 1.96, class: "ko-mark", rx: r * 0.5 }, g);
      tip += ` (in a ko: ${ko})`;
    }
    if (view.cursor === p) {
      el("rect", { x: x - r * 1.05, y: y - r * 1.05, width: r * 2.1, height: r * 2.1, class: "cursor", rx: r * 0.2 }, g);
    }
    title.textContent = tip;
    g.addEventListener("click", (e) => view.onPoint && view.onPoint(p, e));
    g.addEventListener("mouseenter", () => view.onHover && view.onHover(p));
  }
}

// The neighbour of `from` whose direction is closest to (dx, dy), for keyboard play.
export function step(board, spec, from, dx, dy) {
  const lay = layout(board, spec);
  const pos = lay.pos;
  if (!from) return board.points[Math.floor(board.points.length / 2)];
  let best = null, bestScore = -Infinity;
  const [fx, fy] = pos[from];
  for (const [a, b] of board.edges) {
    const other = a === from ? b : b === from ? a : null;
    if (!other) continue;
    let [ox, oy] = pos[other];
    let vx = ox - fx, vy = oy - fy;
    if (lay.kind === "torus" && Math.hypot(vx, vy) > 1.5) { vx = -Math.sign(vx); vy = -Math.sign(vy); }
    const len = Math.hypot(vx, vy) || 1;
    const score = (vx * dx + vy * dy) / len;
    if (score > bestScore) { bestScore = score; best = other; }
  }
  return bestScore > 0.3 ? best : from;
}
