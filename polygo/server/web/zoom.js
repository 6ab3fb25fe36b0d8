// Zoom and pan of a board's SVG, kept across redraws (the board is redrawn from state at every
// event; the view onto it is the reader's own): the wheel with Ctrl (a touchpad's pinch), or
// alone once zoomed in, zooms around the pointer; two fingers pinch; once zoomed in, one finger
// or the mouse drags the view; the buttons zoom by steps. A drag is not a tap: the click that
// ends it is swallowed, so panning never plays a stone.

const MAX_ZOOM = 12;
const DRAG_PX = 8;      // movement that turns a press into a drag

export class BoardZoom {
  constructor(onChange) {
    this.k = 1;                 // magnification; 1 shows the whole board
    this.cx = null;             // centre of the view, in board units (null: the board's centre)
    this.cy = null;
    this.base = null;           // the whole board's viewBox [x, y, w, h]
    this.svg = null;
    this.onChange = onChange;
    this.pointers = new Map();  // pointerId -> [x, y] while pressed
    this.dragged = false;
  }

  get zoomed() { return this.k > 1.001; }

  // Take over a freshly drawn board: its viewBox is the whole board.
  attach(svg) {
    const vb = svg.getAttribute("viewBox").split(" ").map(Number);
    this.base = vb;
    this.svg = svg;
    if (this.cx === null) this.reset(false);
    this.apply();
    svg.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    svg.addEventListener("pointerdown", (e) => this.onDown(e));
    svg.addEventListener("pointermove", (e) => this.onMove(e));
    for (const kind of ["pointerup", "pointercancel", "pointerleave"]) svg.addEventListener(kind, (e) => this.onUp(e));
    svg.addEventListener("click", (e) => { if (this.dragged) { e.stopPropagation(); e.preventDefault(); this.dragged = false; } }, true);
  }

  reset(redraw = true) {
    const [x, y, w, h] = this.base;
    this.k = 1; this.cx = x + w / 2; this.cy = y + h / 2;
    if (redraw) this.apply();
  }

  // Zoom by `factor` keeping the board point under (fx, fy) (board units) where it is.
  zoomBy(factor, fx = this.cx, fy = this.cy) {
    const k = Math.min(MAX_ZOOM, Math.max(1, this.k * factor));
    const f = this.k / k;
    this.cx = fx + (this.cx - fx) * f;
    this.cy = fy + (this.cy - fy) * f;
    this.k = k;
    this.apply();
  }

  apply() {
    if (!this.svg) return;
    const [x, y, w, h] = this.base;
    const vw = w / this.k, vh = h / this.k;
    // keep the view on the board
    this.cx = Math.min(x + w - vw / 2, Math.max(x + vw / 2, this.cx));
    this.cy = Math.min(y + h - vh / 2, Math.max(y + vh / 2, this.cy));
    this.svg.setAttribute("viewBox", `${this.cx - vw / 2} ${this.cy - vh / 2} ${vw} ${vh}`);
    this.svg.classList.toggle("zoomed", this.zoomed);
    this.svg.dataset.zoom = this.k.toFixed(2);
    if (this.onChange) this.onChange(this);
  }

  // A screen point of the svg in board units.
  toBoard(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    const [x, y, w, h] = this.base;
    const vw = w / this.k, vh = h / this.k;
    return [this.cx - vw / 2 + ((clientX - r.left) / r.width) * vw, this.cy - vh / 2 + ((clientY - r.top) / r.height) * vh];
  }

  onWheel(e) {
    if (!e.ctrlKey && !this.zoomed) return;   // the page scrolls on over an unzoomed board
    e.preventDefault();
    const [fx, fy] = this.toBoard(e.clientX, e.clientY);
    this.zoomBy(Math.exp(-e.deltaY * 0.002), fx, fy);
  }

  onDown(e) {
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    this.start = { x: e.clientX, y: e.clientY, cx: this.cx, cy: this.cy, k: this.k, spread: this.spread() };
    this.dragged = false;
  }

  spread() {
    const p = [...this.pointers.values()];
    if (p.length < 2) return null;
    return { d: Math.hypot(p[0][0] - p[1][0], p[0][1] - p[1][1]), x: (p[0][0] + p[1][0]) / 2, y: (p[0][1] + p[1][1]) / 2 };
  }

  onMove(e) {
    if (!this.pointers.has(e.pointerId) || !this.start) return;
    this.pointers.set(e.pointerId, [e.clientX, e.clientY]);
    const s = this.start;
    const now = this.spread();
    if (now && s.spread) {                        // two fingers: pinch
      this.dragged = true;
      const [fx, fy] = this.toBoard(now.x, now.y);
      this.zoomBy((s.k * now.d) / (s.spread.d || 1) / this.k, fx, fy);
      return;
    }
    if (!this.zoomed) return;
    const dx = e.clientX - s.x, dy = e.clientY - s.y;
    if (!this.dragged && Math.hypot(dx, dy) < DRAG_PX) return;
    this.dragged = true;
    const r = this.svg.getBoundingClientRect();
    const unit = this.base[2] / this.k / r.width;
    this.cx = s.cx - dx * unit;
    this.cy = s.cy - dy * unit;
    this.apply();
  }

  onUp(e) {
    this.pointers.delete(e.pointerId);
    if (this.pointers.size === 0) this.start = null;
  }
}
