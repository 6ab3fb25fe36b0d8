// Drawing positions for graph boards that come without coordinates: stress majorization
// (Gansner, Koren & North, "Graph drawing by stress majorization", 2004), started from pivot MDS
// (Brandes & Pich, "Eigensolver methods for progressive multidimensional scaling", 2006).
// Both place points so that their distances on the screen follow their distances in the graph
// (the fewest edges between them): a lattice comes out flat, as a lattice, where a force layout
// started on a circle folds it over itself. Deterministic: the same board is always drawn the
// same way, on every page. No library: none fits a page without a build step (docs/web.md).

const PIVOTS = 50;              // pivots of the MDS start
const WORK = 60e6;              // pair updates the majorization may spend on one component
const MAX_ROUNDS = 300;
const SETTLED = 1e-4;           // relative change of the stress under which the rounds stop

// {point: [x, y]} for `board` ({points, edges}), about one unit an edge.
export function stressLayout(board) {
  const n = board.points.length;
  const index = new Map(board.points.map((p, i) => [p, i]));
  const adj = Array.from({ length: n }, () => []);
  for (const [a, b] of board.edges) {
    const i = index.get(a), j = index.get(b);
    if (i === undefined || j === undefined || i === j) continue;
    adj[i].push(j); adj[j].push(i);
  }
  const parts = components(adj).map((members) => placeComponent(members, adj));
  const pos = pack(parts);
  const out = {};
  board.points.forEach((p, i) => { out[p] = pos[i]; });
  return out;
}

function components(adj) {
  const seen = new Uint8Array(adj.length), out = [];
  for (let s = 0; s < adj.length; s++) {
    if (seen[s]) continue;
    const members = [s];
    seen[s] = 1;
    for (let k = 0; k < members.length; k++) {
      for (const t of adj[members[k]]) if (!seen[t]) { seen[t] = 1; members.push(t); }
    }
    out.push(members);
  }
  return out;
}

// Positions of one connected component: {members, x, y} with coordinates per member.
function placeComponent(members, adj) {
  const m = members.length;
  const x = new Float64Array(m), y = new Float64Array(m);
  if (m === 1) return { members, x, y };
  const local = new Map(members.map((g, i) => [g, i]));
  const nbr = members.map((g) => adj[g].map((t) => local.get(t)));
  const d = allDistances(nbr);
  pivotMds(d, m, x, y);
  majorize(d, m, x, y);
  return { members, x, y };
}

// Every pair's distance in edges, row by row (m × m), by one breadth-first search a point.
function allDistances(nbr) {
  const m = nbr.length;
  const d = new Uint16Array(m * m).fill(65535);
  const queue = new Int32Array(m);
  for (let s = 0; s < m; s++) {
    const row = s * m;
    d[row + s] = 0;
    let head = 0, tail = 0;
    queue[tail++] = s;
    while (head < tail) {
      const v = queue[head++], dv = d[row + v] + 1;
      for (const w of nbr[v]) if (d[row + w] === 65535) { d[row + w] = dv; queue[tail++] = w; }
    }
  }
  return d;
}

// Classical MDS of the distances to a few pivots, chosen far apart (each the farthest from those
// already chosen): the two main axes of the double-centred squared distances.
function pivotMds(d, m, x, y) {
  const k = Math.min(PIVOTS, m);
  const pivots = [0], nearest = new Float64Array(m).fill(Infinity);
  while (pivots.length < k) {
    const last = pivots[pivots.length - 1];
    let far = 0;
    for (let i = 0; i < m; i++) {
      nearest[i] = Math.min(nearest[i], d[last * m + i]);
      if (nearest[i] > nearest[far]) far = i;
    }
    if (nearest[far] === 0) break;
    pivots.push(far);
  }
  const kk = pivots.length;
  const c = new Float64Array(m * kk), colMean = new Float64Array(kk), rowMean = new Float64Array(m);
  let all = 0;
  for (let i = 0; i < m; i++) for (let j = 0; j < kk; j++) {
    const v = d[pivots[j] * m + i] ** 2;
    c[i * kk + j] = v; rowMean[i] += v / kk; colMean[j] += v / m; all += v / (m * kk);
  }
  for (let i = 0; i < m; i++) for (let j = 0; j < kk; j++) c[i * kk + j] = -0.5 * (c[i * kk + j] - rowMean[i] - colMean[j] + all);
  // the two leading eigenvectors of CᵀC (kk × kk), by power iteration with deflation
  const ctc = new Float64Array(kk * kk);
  for (let i = 0; i < m; i++) for (let a = 0; a < kk; a++) {
    const ca = c[i * kk + a];
    if (ca !== 0) for (let b = 0; b < kk; b++) ctc[a * kk + b] += ca * c[i * kk + b];
  }
  const axes = [];
  for (let axis = 0; axis < 2; axis++) {
    let v = Float64Array.from({ length: kk }, (_, i) => Math.sin(1.7 * i + axis + 1));
    for (let round = 0; round < 200; round++) {
      const next = new Float64Array(kk);
      for (let a = 0; a < kk; a++) { let s = 0; for (let b = 0; b < kk; b++) s += ctc[a * kk + b] * v[b]; next[a] = s; }
      for (const u of axes) { const dot = next.reduce((s, t, i) => s + t * u[i], 0); for (let i = 0; i < kk; i++) next[i] -= dot * u[i]; }
      const len = Math.hypot(...next) || 1;
      for (let i = 0; i < kk; i++) next[i] /= len;
      const moved = next.reduce((s, t, i) => s + Math.abs(t - v[i]), 0);
      v = next;
      if (moved < 1e-9) break;
    }
    axes.push(v);
  }
  for (let i = 0; i < m; i++) {
    let sx = 0, sy = 0;
    for (let j = 0; j < kk; j++) { sx += c[i * kk + j] * axes[0][j]; sy += c[i * kk + j] * axes[1][j]; }
    x[i] = sx; y[i] = sy;
  }
  // scale to the graph's distances (least squares over the pivot pairs), and shake coincident
  // points apart so that the majorization has a direction for each pair
  let num = 0, den = 0;
  for (const p of pivots) for (let i = 0; i < m; i++) {
    const e = Math.hypot(x[p] - x[i], y[p] - y[i]), t = d[p * m + i];
    num += e * t; den += e * e;
  }
  const scale = den > 0 ? num / den : 1;
  for (let i = 0; i < m; i++) { x[i] = x[i] * scale + 1e-3 * Math.sin(i * 12.9898); y[i] = y[i] * scale + 1e-3 * Math.cos(i * 78.233); }
}

// Stress majorization, one point at a time (the localized update of Gansner, Koren & North):
// each point moves to the weighted mean of where every other point says it should be, with
// weights 1/d², until the stress settles or the work budget is spent.
function majorize(d, m, x, y) {
  const rounds = Math.max(3, Math.min(MAX_ROUNDS, Math.floor(WORK / (m * m))));
  let before = Infinity;
  for (let round = 0; round < rounds; round++) {
    let stress = 0;
    for (let i = 0; i < m; i++) {
      const row = i * m;
      let sx = 0, sy = 0, sw = 0;
      const xi = x[i], yi = y[i];
      for (let j = 0; j < m; j++) {
        if (j === i) continue;
        const dij = d[row + j];
        const w = 1 / (dij * dij);
        const ex = xi - x[j], ey = yi - y[j];
        const len = Math.sqrt(ex * ex + ey * ey) || 1e-9;
        sx += w * (x[j] + (dij * ex) / len);
        sy += w * (y[j] + (dij * ey) / len);
        sw += w;
        stress += w * (len - dij) * (len - dij);
      }
      x[i] = sx / sw; y[i] = sy / sw;
    }
    if (before - stress < SETTLED * before) break;
    before = stress;
  }
}

// Components side by side, largest first, in rows about as wide as the whole is tall.
function pack(parts) {
  const boxes = parts.map((p) => {
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
    for (let i = 0; i < p.x.length; i++) {
      minX = Math.min(minX, p.x[i]); maxX = Math.max(maxX, p.x[i]); minY = Math.min(minY, p.y[i]); maxY = Math.max(maxY, p.y[i]);
    }
    return { p, minX, minY, w: maxX - minX, h: maxY - minY };
  }).sort((a, b) => b.p.members.length - a.p.members.length || a.p.members[0] - b.p.members[0]);
  const gap = 1.5;
  const area = boxes.reduce((s, b) => s + (b.w + gap) * (b.h + gap), 0);
  const rowWidth = Math.max(Math.sqrt(area), boxes[0] ? boxes[0].w : 0);
  const pos = [];
  let cx = 0, cy = 0, rowHeight = 0;
  for (const b of boxes) {
    if (cx > 0 && cx + b.w > rowWidth) { cx = 0; cy += rowHeight + gap; rowHeight = 0; }
    b.p.members.forEach((g, i) => { pos[g] = [b.p.x[i] - b.minX + cx, b.p.y[i] - b.minY + cy]; });
    cx += b.w + gap;
    rowHeight = Math.max(rowHeight, b.h);
  }
  return pos;
}

// How many pairs of edges cross in a drawing (edges that share an end do not count): the
// measure of a layout the tests and docs/web.md give.
export function crossings(segments) {
  const n = segments.length;
  let count = 0;
  const orient = (ax, ay, bx, by, cx, cy) => Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));
  for (let i = 0; i < n; i++) {
    const [ax, ay, bx, by] = segments[i];
    const loX = Math.min(ax, bx), hiX = Math.max(ax, bx), loY = Math.min(ay, by), hiY = Math.max(ay, by);
    for (let j = i + 1; j < n; j++) {
      const [cx, cy, dx, dy] = segments[j];
      if (Math.max(cx, dx) < loX || Math.min(cx, dx) > hiX || Math.max(cy, dy) < loY || Math.min(cy, dy) > hiY) continue;
      const shared = (ax === cx && ay === cy) || (ax === dx && ay === dy) || (bx === cx && by === cy) || (bx === dx && by === dy);
      if (shared) continue;
      const o1 = orient(ax, ay, bx, by, cx, cy), o2 = orient(ax, ay, bx, by, dx, dy);
      const o3 = orient(cx, cy, dx, dy, ax, ay), o4 = orient(cx, cy, dx, dy, bx, by);
      if (o1 * o2 < 0 && o3 * o4 < 0) count += 1;
    }
  }
  return count;
}
