// A room: the snapshot, the events applied to it (docs/protocol.md, "Events"), and its screen.
// The page holds no rules: what may be played is the server's `legal`; the move list, marks,
// territory and count are drawn from the snapshot and events.

import { playerLink } from "./profiles.js";
import { h, clockText, tick } from "./dom.js";
import { drawBoard, colourOf, reasonText, step } from "./board.js";
import { BoardZoom } from "./zoom.js";
import { confirmsFor, prefsPanel } from "./prefs.js";
import { appealText, moveSentence, passWarning, rescissionText, who } from "./explain.js";
import { ruleHelp, ruleName, ruleScoring } from "./rulesets.js";

export class Room {
  constructor(app, id, invite) {
    this.app = app;
    this.conn = app.conn;
    this.id = id;
    this.invite = invite || null;
    this.s = null;              // the snapshot, kept up to date by the events
    this.chat = [];
    this.chatForm = null;       // made once (see chatPanel), like the ranking form (proposeForm)
    this.propose = null;
    this.presence = null;       // the latest `presence` event: who is here
    this.analysis = {};         // seat -> its latest `analysis` event (a bot's view, for watchers)
    this.pending = new Map();   // seq -> move sent, not yet acknowledged
    this.lastSeq = 0;
    this.notice = "";
    this.cursor = null;
    this.confirm = null;        // "resign" or "pass" while asking
    this.pendingPoint = null;   // a point chosen, waiting for its confirmation (a tap, or always)
    this.explained = null;      // the last rescission, in words, until the next move
    this.online = app.connStatus === "connected";
    this.offlineAt = this.online ? null : performance.now();
    this.zoom = new BoardZoom();
    this.prefs = prefsPanel();  // made once, so that it stays open across redraws
    this.disputeMode = false;
    this.appealAsk = null;      // a cycle-prohibited point clicked: offer the appeal
    this.clockAt = performance.now();
    this.resumed = { events: 0, snapshots: 0 };   // how resyncs were answered (the tests look)
    // the screen reader's announcements: kept in the page across redraws, so each one is read
    this.live = h("div.sr-only#announce", { "aria-live": "polite", "aria-atomic": "true" });
    this.body = h("div.room-body");
    this.root = h("div.room", {}, this.live, this.body);
    this.timer = setInterval(() => this.tickClocks(), 250);
    this.keys = (e) => this.onKey(e);
    document.addEventListener("keydown", this.keys);
  }

  close() {
    clearInterval(this.timer);
    document.removeEventListener("keydown", this.keys);
    // A spectator who goes elsewhere stops watching, so the players no longer count him. A player
    // sends no `leave`: before the start it would give up the seat; the events of a room no
    // longer shown are dropped by the router.
    if (this.s && this.you === null) this.conn.request("leave", { room: this.id }).catch(() => {});
  }

  async open() {
    try {
      const snap = await this.conn.request("watch", { room: this.id, ...(this.invite ? { invite: this.invite } : {}) });
      this.load(snap);
    } catch (e) {
      // moved (the page reconnects at the room's node) or a dropped connection: reconnected()
      // opens the room once the connection is back
      if (e.code === "disconnected") return;
      this.body.replaceChildren(h("p.error", {}, `cannot open room ${this.id}: ${e.message || e.code}`),
        h("a", { href: "#/" }, "back to the lobby"));
    }
  }

  load(snap) {
    this.s = snap;
    this.chat = (snap.chat || []).slice();
    this.clockAt = performance.now();
    if (snap.you) this.lastSeq = Math.max(this.lastSeq, snap.you.last_seq || 0);
    this.render();
  }

  get you() { return this.s && this.s.you ? this.s.you.seat : null; }
  get points() { return new Set(this.s.game.board.points); }

  // The connection went or came back. Offline, nothing can be sent: the board and the buttons are
  // disabled, the clocks stop where they were (the server's clock goes on: its next report is the
  // truth), and who is connected is unknown.
  connection(online) {
    if (online === this.online) { this.render(); return; }
    this.online = online;
    if (!online) { this.offlineAt = performance.now(); this.pendingPoint = null; this.confirm = null; }
    else {
      this.offlineAt = null;
      if (this.notice.startsWith("offline")) this.notice = "";   // it said why nothing was sent; no longer so
    }
    this.render();
  }

  // Seconds since the clocks' last report, as shown (frozen while offline).
  elapsed() { return ((this.online ? performance.now() : this.offlineAt) - this.clockAt) / 1000; }

  announce(text) { this.live.textContent = text; }
  get game() { return this.s.game; }

  // --- events ---------------------------------------------------------------------------

  onEvent(ev) {
    if (ev.kind === "presence") { this.onPresence(ev); return; }
    if (!this.s) return;
    if (ev.version <= this.s.version) return;
    if (ev.version !== this.s.version + 1) { this.resync(); return; }
    const wasMine = this.myTurn();
    this.apply(ev);
    this.render();
    if (ev.kind === "move" || ev.kind === "timeout") {
      const said = [moveSentence(this.s.seats, ev.seat, ev.kind === "timeout" ? "timeout" : ev.move, this.points)];
      if (this.explained) said.push(this.explained);
      if (!wasMine && this.myTurn()) said.push("Your turn.");
      this.announce(said.join(". "));
    }
  }

  // Presence is not versioned: the latest one is the truth (docs/protocol.md, "Presence"). Only
  // the panels that show it are redrawn, so a form being filled in stays as it is.
  onPresence(ev) {
    this.presence = ev;
    if (!this.s) return;
    const seats = this.root.querySelector(".panel.seats");
    if (seats) seats.replaceWith(this.seatsPanel());
    const turn = this.root.querySelector(".turn-panel");
    const next = turn && this.turnPanel(this.shownTerritory());
    if (next) turn.replaceWith(next);
  }

  apply(ev) {
    const s = this.s, g = s.game;
    s.version = ev.version;
    const state = () => {
      for (const k of ["to_move", "legal", "phase", "prisoners", "kos"]) if (k in ev) g[k] = ev[k];
      if ("clocks" in ev) { s.clocks = ev.clocks; this.clockAt = performance.now(); }
      if (ev.changes) {
        for (const p of ev.changes.clear) delete g.stones[p];
        Object.assign(g.stones, ev.changes.set);
      }
      if (ev.result) { g.result = ev.result; s.status = "ended"; }
      for (const k of ["dead", "disputed", "accepted", "proposal", "dropped"]) if (k in ev) g[k] = ev[k];
    };
    switch (ev.kind) {
      case "seat":
        s.seats[ev.seat] = { ...s.seats[ev.seat], name: ev.name, user: ev.user };
        break;
      case "start":
        s.status = "playing";
        state();
        break;
      case "move":
        g.history[ev.index] = [ev.seat, ev.move, false];
        g.history.length = ev.index + 1;
        for (const i of ev.rescinded || []) if (g.history[i]) g.history[i][2] = true;
        this.explained = (ev.rescinded || []).length ? rescissionText(g, s.seats, ev.rescinded) : null;
        state();
        s.undo = null;
        this.appealAsk = null;
        this.pendingPoint = null;
        break;
      case "timeout":
        g.history[ev.index] = [ev.seat, "timeout", false];
        state();
        s.undo = null;
        break;
      case "undo":
        g.history.length = ev.index;
        state();
        s.undo = null;
        break;
      case "undo-request":
        s.undo = { seat: ev.seat, accepted: [] };
        break;
      case "undo-reply":
        if (!ev.accept) s.undo = null;
        else if (s.undo) s.undo.accepted.push(ev.seat);
        break;
      case "chat":
        this.chat.push(ev);
        break;
      case "analysis":
        this.analysis[ev.seat] = ev;
        break;
      default:
        break;   // kinds this page does not know are ignored (the protocol's rule)
    }
  }

  // After a gap or a reconnection: the events since our version, or a fresh snapshot.
  async resync() {
    if (!this.s) return this.open();       // never opened: the first watch was cut off
    try {
      const reply = await this.conn.request("watch", { room: this.id, since: this.s ? this.s.version : 0,
        ...(this.invite ? { invite: this.invite } : {}) });
      if (reply.type === "events") {
        for (const ev of reply.events) if (ev.version === this.s.version + 1) this.apply(ev);
        this.resumed.events += 1;
        this.render();
      } else {
        this.resumed.snapshots += 1;
        this.load(reply);
      }
    } catch (e) { /* the connection is down again: onReconnect comes back here */ }
  }

  async reconnected() {
    await this.resync();
    for (const [seq, move] of this.pending) this.sendMove(move, seq);
  }

  // --- actions ----------------------------------------------------------------------------

  async sendMove(move, seq = null) {
    if (seq === null) {
      seq = Math.max(Date.now(), this.lastSeq + 1);
      this.lastSeq = seq;
    }
    this.pending.set(seq, move);
    const fields = { room: this.id, move, seq };
    if (move === "done") fields.after = this.s.version;
    try {
      await this.conn.request("move", fields);
      this.pending.delete(seq);
      this.notice = "";
    } catch (e) {
      if (e.code === "disconnected") { this.notice = `sent ${move}; waiting for the server`; this.render(); return; }
      this.pending.delete(seq);
      this.notice = `refused '${move}': ${e.message}` + (e.reason ? ` [${e.reason}]` : "");
    }
    this.render();
  }

  async req(type, fields = {}) {
    try {
      await this.conn.request(type, { room: this.id, ...fields });
      this.notice = "";
    } catch (e) {
      this.notice = `${type}: ${e.message || e.code}`;
    }
    this.render();
  }

  async sit(seat) {
    try {
      const snap = await this.conn.request("sit", { room: this.id, seat, ...(this.invite ? { invite: this.invite } : {}) });
      this.load(snap);
    } catch (e) {
      this.notice = `cannot sit: ${e.message}`;
      this.render();
    }
  }

  myTurn() {
    const g = this.s.game;
    return this.you !== null && g.to_move === this.you && g.legal && g.legal.seat === this.you;
  }

  // A click, tap or Enter on point `p` (`e`: the click, whose pointerType says mouse or touch).
  onPoint(p, e) {
    const g = this.s.game;
    if (this.you === null || this.s.status !== "playing") return;
    if (!this.online) { this.notice = "offline: nothing was sent; wait until the connection is back"; this.render(); return; }
    if (g.phase === "scoring") {
      if (!(p in g.stones)) return;
      if (this.disputeMode) { this.disputeMode = false; this.sendMove(`dispute ${p}`); return; }
      this.sendMove(`${(g.dead || []).includes(p) ? "alive" : "dead"} ${p}`);
      return;
    }
    if (!this.myTurn()) { this.notice = "not your turn"; this.render(); return; }
    if (p in g.stones) {
      this.notice = `${p} is occupied: ${colourOf(g.stones[p]).name}'s stone is there`;
      this.render();
      return;
    }
    const reason = g.legal.prohibited[p];
    if (reason) {
      if (g.legal.appeals.includes(p)) { this.appealAsk = p; this.render(); return; }
      this.notice = `${p} is prohibited: ${reasonText(reason)}`;
      this.render();
      return;
    }
    if (this.pendingPoint !== p && confirmsFor(e ? e.pointerType || "mouse" : "")) {
      this.pendingPoint = p;
      this.notice = "";
      this.render();
      this.announce(`${p} chosen: confirm to play there`);
      return;
    }
    this.pendingPoint = null;
    this.sendMove(p);
  }

  // A new room with this one's settings, the player at the next seat (so two players swap
  // colours, as on OGS), announced in this room's chat as a line the page shows as a link.
  async rematch() {
    const s = this.s, n = s.seats.length, bots = s.settings.bots || 0;
    const next = (this.you + 1) % n;
    try {
      const created = await this.conn.request("create", { settings: s.settings });
      await this.conn.request("sit", { room: created.room, seat: next < n - bots ? next : 0 });
      const link = `#/room/${created.room}` + (created.invite ? `?invite=${encodeURIComponent(created.invite)}` : "");
      await this.conn.request("chat", { room: this.id, text: `rematch ${link}` });
      location.hash = link;
    } catch (e) {
      this.notice = `rematch: ${e.message || e.code}`;
      this.render();
    }
  }

  // Pass, after a question when asked from the keyboard or when the pass does more than pass.
  pass(ask) {
    if (!this.myTurn() || !this.online) return;
    if (ask || passWarning(this.s.game, this.you)) {
      this.confirm = "pass";
      this.render();
      const yes = this.root.querySelector("button.pass-yes");
      if (yes) yes.focus();
      return;
    }
    this.sendMove("pass");
  }

  onKey(e) {
    // keys typed into a field are its own; Escape cancels a question from anywhere else; other
    // keys pressed on a button or a link are theirs
    const inside = (sel) => e.target.closest && e.target.closest(sel);
    if (!this.s || inside("input, textarea, select")) return;
    if (e.key === "Escape" && (this.pendingPoint || this.confirm)) {
      this.pendingPoint = null;
      this.confirm = null;
      this.render();
      return;
    }
    if (inside("button, a, summary")) return;
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    const g = this.s.game;
    if (dirs[e.key]) {
      this.cursor = step(g.board, g.board_spec, this.cursor, ...dirs[e.key]);
      e.preventDefault();
      this.render();
      this.announceCursor();
    } else if ((e.key === "Enter" || e.key === " ") && this.cursor) {
      e.preventDefault();
      this.onPoint(this.cursor);
    } else if (e.key === "p" && this.myTurn()) {
      e.preventDefault();
      this.pass(true);
    }
  }

  // --- drawing ----------------------------------------------------------------------------

  shownTerritory() {   // in marking and at the end
    return this.s.game.phase === "scoring" || this.s.status === "ended" ? this.territory() : null;
  }

  territory() {
    // empty regions touching one player's (living) stones only: display, not rules
    const g = this.s.game, dead = new Set(g.dead || []);
    const adj = new Map(g.board.points.map((p) => [p, []]));
    for (const [a, b] of g.board.edges) { adj.get(a).push(b); adj.get(b).push(a); }
    const owner = (p) => (p in g.stones && !dead.has(p) ? g.stones[p] : null);
    const out = {}, seen = new Set();
    for (const start of g.board.points) {
      if (owner(start) !== null || seen.has(start)) continue;
      const region = [start], touch = new Set();
      seen.add(start);
      for (let i = 0; i < region.length; i++) {
        for (const q of adj.get(region[i])) {
          const o = owner(q);
          if (o !== null) touch.add(o);
          else if (!seen.has(q)) { seen.add(q); region.push(q); }
        }
      }
      if (touch.size === 1) { const [o] = touch; for (const p of region) out[p] = o; }
    }
    return out;
  }

  count(territory) {
    const g = this.s.game, n = g.players.length, dead = new Set(g.dead || []);
    const per = new Array(n).fill(0), stones = new Array(n).fill(0);
    for (const o of Object.values(territory)) per[o] += 1;
    for (const [p, o] of Object.entries(g.stones)) if (!dead.has(p)) stones[o] += 1;
    const komi = this.s.settings.komi || 0;
    const scoring = ruleScoring(g.rules);    // the server's word: welcome.rulesets
    if (scoring === "lasker-maas") return per.map((t, i) => t - (g.prisoners || [])[i]);
    if (scoring !== "area") return null;
    return per.map((t, i) => t + stones[i] + (n === 2 && i === 1 ? komi : 0));
  }

  lastPoint() {
    const g = this.s.game;
    for (let i = g.history.length - 1; i >= 0; i--) {
      const [, move, rescinded] = g.history[i];
      if (rescinded) continue;
      if (move in g.stones) return move;
      if (g.board.points.includes(move)) return null;   // played, since captured
    }
    return null;
  }

  tickClocks() {
    if (!this.online || !this.s || !this.s.clocks || this.s.clocks.running === null || this.s.status !== "playing") return;
    const run = this.s.clocks.running;
    const node = this.root.querySelector(`.seat-row[data-seat="${run}"] .clock`);
    if (!node) return;
    const now = tick(this.s.settings.clock, this.s.clocks.seats[run], this.elapsed());
    node.textContent = clockText(this.s.settings.clock, now);
  }

  render() {
    if (!this.s) return;
    const s = this.s, g = s.game, you = this.you;
    const marking = g.phase === "scoring";
    const terr = this.shownTerritory();
    const hadFocus = document.activeElement && document.activeElement.id === "board";
    const typing = keptFocus();
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("id", "board");
    const mine = this.myTurn() && this.online;
    const last = this.lastPoint();
    drawBoard(svg, {
      board: g.board, spec: g.board_spec, stones: g.stones, last,
      prohibited: g.legal ? g.legal.prohibited : {}, dead: new Set(g.dead || []), territory: terr, kos: koPoints(g.kos),
      cursor: this.cursor, pending: this.pendingPoint, playable: mine && !marking, ghost: mine ? you : undefined,
      onPoint: (p, e) => this.onPoint(p, e),
      onHover: (p) => {
        const r = g.legal && g.legal.prohibited[p];
        const line = this.root.querySelector(".hover");
        if (line) line.textContent = r ? `${p}: prohibited, ${reasonText(r)}` : p;
      },
    });
    this.describeBoard(svg, last);
    this.zoom.attach(svg);
    const phaseText = {
      play: "play", "phase-1": "phase 1 (stones from the supply)", "phase-2": "phase 2 (stones from the prisoners' place)",
      scoring: "marking dead stones", dispute: "dispute play-out", ended: "game over",
    }[g.phase] || g.phase;
    const header = h("div.room-head", {},
      h("a.back", { href: "#/" }, "← lobby"),
      h("span.title", {}, s.settings.title || `room ${s.room}`),
      h("span.meta", { title: ruleHelp(g.rules) }, `${ruleName(g.rules)} · ${g.board_spec || `graph of ${g.board.points.length} points`} · ${g.players.length} players` +
        (g.players.length === 2 ? ` · komi ${s.settings.komi}` : "")),
      h("span.status", { "data-status": s.status, "data-phase": g.phase }, s.status === "playing" ? phaseText : s.status));
    const side = h("div.side", {},
      this.seatsPanel(), this.turnPanel(terr), this.actions(), this.movesPanel(), this.chatPanel(),
      h("div.panel", {}, this.prefs));
    const link = `${location.origin}/#/room/${s.room}` + (this.invite ? `?invite=${this.invite}` : "");
    const banner = this.online ? null
      : h("div.banner", { role: "status", "data-state": "offline" }, "offline: reconnecting… ",
        h("span.why", {}, "Nothing can be played until the connection is back; the clocks shown are stopped, and who is connected is unknown."));
    const tools = h("div.zoom-tools", { role: "group", "aria-label": "zoom" },
      h("button.zoom-in", { type: "button", title: "zoom in", "aria-label": "zoom in", onclick: () => this.zoom.zoomBy(1.6) }, "+"),
      h("button.zoom-out", { type: "button", title: "zoom out", "aria-label": "zoom out", onclick: () => this.zoom.zoomBy(1 / 1.6) }, "−"),
      h("button.zoom-fit", { type: "button", title: "the whole board", onclick: () => this.zoom.reset() }, "fit"));
    this.body.replaceChildren(banner || "", header,
      h("div.play", {}, h("div.board-wrap", {}, tools, svg, this.confirmBar(), h("div.hover", {}, "\u00a0")), side),
      h("div.share", {}, s.status === "ended" ? "Link to this game: " : "Invite (link to this room): ", h("input.link", { readonly: true, value: link, "aria-label": "link to this room" })));
    if (hadFocus) svg.focus({ preventScroll: true });
    typing();
    const what = s.settings.title || `room ${s.room}`;
    this.app.alert.update(mine, what);
  }

  // The board for the keyboard and screen readers: in the Tab order, its label the position in
  // words (stones by colour, the last move, whose turn), the cursor's point as the active one.
  describeBoard(svg, last) {
    const s = this.s, g = s.game;
    svg.setAttribute("tabindex", "0");
    svg.setAttribute("role", "application");
    svg.setAttribute("aria-roledescription", "board");
    const byColour = s.seats.map(() => []);
    for (const [p, seat] of Object.entries(g.stones)) byColour[seat].push(p);
    const stones = byColour.map((list, i) => `${colourOf(i).name}: ${list.length ? list.join(" ") : "none"}`).join("; ");
    const lastMove = g.history.length ? moveSentence(s.seats, g.history[g.history.length - 1][0], g.history[g.history.length - 1][1], this.points) : "no move yet";
    const turn = this.myTurn() ? "your turn" : g.to_move !== null && g.to_move !== undefined ? `${who(s.seats, g.to_move)} to move` : s.status;
    svg.setAttribute("aria-label", `board ${g.board_spec || "graph"}, ${g.board.points.length} points. Stones: ${stones}. ` +
      `Last move: ${lastMove}${last ? ` (stone at ${last})` : ""}. ${turn}. ` +
      "Arrow keys move the cursor along the lines, Enter or Space plays there, p passes (after a question).");
    svg.addEventListener("focus", () => {
      // from the keyboard only: a click focuses the board too, and a redraw under the pointer
      // would swallow the click
      if (this.cursor || !svg.matches(":focus-visible")) return;
      this.cursor = step(g.board, g.board_spec, null, 0, 0);
      this.render();
      this.announceCursor();
    });
  }

  announceCursor() {
    const g = this.s.game, p = this.cursor;
    if (!p) return;
    const r = g.legal && g.legal.prohibited[p];
    const what = p in g.stones ? `${colourOf(g.stones[p]).name} stone` : r ? `prohibited, ${reasonText(r)}` : "empty";
    this.announce(`${p}: ${what}`);
  }

  // Under the board, where a thumb is: the chosen point's confirmation, or the pass's question.
  confirmBar() {
    if (this.pendingPoint) {
      const p = this.pendingPoint;
      return h("div.confirm-bar", { role: "group", "aria-label": "confirm the move" },
        h("button.confirm-play", { type: "button", onclick: () => this.onPoint(p) }, `Play ${p}`),
        h("button.confirm-cancel", { type: "button", onclick: () => { this.pendingPoint = null; this.render(); } }, "Cancel"));
    }
    if (this.confirm === "pass") {
      const warning = passWarning(this.s.game, this.you);
      return h("div.confirm-bar.ask", { role: "alertdialog", "aria-label": "pass?" },
        h("p.pass-warning", {}, warning || "Pass this turn?"),
        h("button.pass-yes", { type: "button", onclick: () => { this.confirm = null; this.sendMove("pass"); } }, warning ? "Pass anyway" : "Yes, pass"),
        h("button.pass-no", { type: "button", onclick: () => { this.confirm = null; this.render(); } }, "No"));
    }
    return null;
  }

  seatsPanel() {
    const s = this.s, g = s.game;
    const rows = s.seats.map((seat, i) => {
      const c = colourOf(i);
      const clockState = s.clocks ? s.clocks.seats[i] : null;
      const running = s.clocks && s.clocks.running === i && s.status === "playing";
      const now = running ? tick(s.settings.clock, clockState, this.elapsed()) : clockState;
      const dropped = (g.dropped || []).includes(i);
      const prisonersLabel = g.rules === "lasker-maas" ? "supply" : "lost";
      const place = g.result ? g.result.ranking[i] : null;
      // offline, the last presence is stale: shown as unknown
      const online = this.presence && seat.name ? (this.online ? this.presence.online[i] : "unknown") : null;
      const said = online === "unknown" ? "unknown while this page is offline" : online ? "connected" : "not connected";
      return h("div.seat-row", { "data-seat": i, class: `seat-row${g.to_move === i ? " to-move" : ""}${dropped ? " dropped" : ""}` },
        online === null ? null : h("span.online", { "data-online": String(online), title: said, "aria-label": said }),
        h("span.swatch", { "data-seat": i, title: c.name }, c.letter),
        h("span.name", {}, seat.user ? playerLink(seat.user) : seat.name || "(free)", i === this.you ? " (you)" : ""),
        seat.name ? null : (this.you === null && s.status === "waiting"
          ? h("button.sit", { onclick: () => this.sit(i) }, `sit as ${c.name}`) : null),
        h("span.caps", { title: g.rules === "lasker-maas" ? "stones of this colour in the prisoners' place (the phase-2 supply)"
          : "stones of this colour captured so far" },
          g.prisoners ? `${prisonersLabel} ${g.prisoners[i]}` : ""),
        h("span.clock", { class: running && !this.online ? "clock stopped" : "clock",
          title: running && !this.online ? "stopped on this page while offline" : null }, clockText(s.settings.clock, now)),
        dropped ? h("span.tag", {}, "out") : null,
        place !== null ? h("span.place", {}, `#${place} · ${g.result.score[i]}`) : null,
        this.analysis[i] ? h("span.analysis", { title: "the player's own analysis (a bot's engine)" }, analysisText(this.analysis[i], g)) : null);
    });
    return h("div.panel.seats", {}, rows, this.watchersLine());
  }

  watchersLine() {
    const p = this.presence;
    if (!p) return null;
    const more = p.spectators - p.names.length;
    const text = p.spectators === 0 ? "no one else watching"
      : `watching (${p.spectators}): ${p.names.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
    return h("p.watchers", {}, text);
  }

  turnPanel(terr) {
    const s = this.s, g = s.game, you = this.you, lines = [];
    if (s.status === "waiting") lines.push(h("p", {}, `waiting for ${s.seats.filter((x) => !x.name).length} more player(s)`));
    if (g.result) {
      const r = g.result;
      const order = s.seats.map((x, i) => i).sort((a, b) => r.ranking[a] - r.ranking[b]);
      lines.push(h("div.result", {}, h("p", {}, `game over (${r.reason})`), h("ol.places", {}, order.map((i) =>
        h("li", { "data-seat": i }, h("span.rank", {}, `${r.ranking[i]}.`), " ",
          `${s.seats[i].name} (${colourOf(i).name})`, " ", h("span.score", {}, `${r.score[i]}`))))));
      if (you !== null) {
        lines.push(h("button.rematch", { onclick: () => this.rematch(),
          title: "a new room with the same settings, where you take the next seat; its link goes to this room's chat" }, "Rematch"));
      }
    } else if (g.to_move !== null && g.to_move !== undefined) {
      const away = this.online && this.presence && g.to_move !== you && !this.presence.online[g.to_move] ? " (not connected)" : "";
      const text = g.to_move === you ? (this.online ? "your turn" : "your turn, once the connection is back")
        : `${s.seats[g.to_move].name} (${colourOf(g.to_move).name}) to move${away}`;
      lines.push(h("p.turn", { class: g.to_move === you && this.online ? "turn mine" : "turn" }, text));
    }
    if (this.pending.size) {
      lines.push(h("p.queued", {}, `sent, not yet confirmed by the server (sent again on reconnection): ${[...this.pending.values()].join(", ")}`));
    }
    if (g.legal && Object.keys(g.legal.prohibited).length) {
      lines.push(h("p.prohib", {}, "prohibited: ", Object.entries(g.legal.prohibited).map(([p, r]) =>
        h("span.reason", { title: reasonText(r), "data-point": p }, `${p} ${r} `))));
    }
    const appeal = appealText(g, s.seats, you);
    if (appeal) lines.push(h("p.explain.appeal-explain", {}, appeal));
    if (this.explained) lines.push(h("p.explain.rescission", {}, this.explained));
    if (this.appealAsk) {
      const p = this.appealAsk;
      lines.push(h("div.ask", {}, `${p} is prohibited by the cycle rule. An appealing pass asks for it (Kee rule 12).`,
        h("button.appeal", { onclick: () => { this.appealAsk = null; this.sendMove(`appeal ${p}`); } }, `Appeal for ${p}`),
        h("button", { onclick: () => { this.appealAsk = null; this.render(); } }, "Cancel")));
    }
    if (g.phase === "scoring" && terr) {
      const count = this.count(terr);
      if (count) lines.push(h("p.count", {}, "count now: " + count.map((c, i) => `${colourOf(i).letter} ${c}`).join(", ")));
      const per = s.seats.map(() => 0);
      for (const o of Object.values(terr)) per[o] += 1;
      lines.push(h("p", {}, "territory: " + per.map((c, i) => `${colourOf(i).letter} ${c}`).join(", ")));
      lines.push(h("p.hint", {}, "Click a stone to mark its chain dead (again: alive). Done accepts the marks." +
        ((g.accepted || []).length ? ` Accepted: ${g.accepted.map((i) => colourOf(i).name).join(", ")}.` : "")));
    }
    if ((g.kos || []).length) lines.push(kosLine(g.kos));
    if (g.phase === "dispute") lines.push(h("p", {}, `dispute play-out of ${(g.disputed || []).join(" ")}`));
    if (g.proposal) {
      lines.push(h("p.proposal", {}, "ranking proposed: " + g.proposal.ranking.map((r, i) => `${colourOf(i).letter} ${r}`).join(", ")));
    }
    if (s.undo) {
      lines.push(h("p.undo", {}, `${s.seats[s.undo.seat].name} asks to take back the last move`));
    }
    if (this.notice) lines.push(h("p.notice", { role: "alert" }, this.notice));
    return lines.length ? h("div.panel.turn-panel", {}, lines) : null;
  }

  actions() {
    const s = this.s, g = s.game, you = this.you, b = [];
    if (you === null || s.status !== "playing" || (g.dropped || []).includes(you)) return null;
    const mine = this.myTurn();
    const warning = mine && g.phase !== "scoring" ? passWarning(g, you) : null;
    if (g.phase === "scoring") {
      b.push(h("button.done", { onclick: () => this.sendMove("done") }, "Done (accept marks)"));
      b.push(h("button", { onclick: () => this.sendMove("resume") }, "Resume play"));
      if (g.rules === "nieminen") {
        b.push(h("button", { onclick: () => { this.disputeMode = !this.disputeMode; this.render(); } },
          this.disputeMode ? "Click a chain to dispute…" : "Dispute a chain"));
      }
    } else {
      b.push(h("button.pass", { disabled: !(mine && g.legal.pass), title: warning, onclick: () => this.pass(false) },
        warning && warning.startsWith("Passing now rescinds") ? "Pass (rescinds your stone)" : "Pass"));
      if (mine && g.legal.appeals.length) {
        for (const p of g.legal.appeals) b.push(h("button.appeal", { onclick: () => this.sendMove(`appeal ${p}`) }, `Appeal ${p}`));
      }
      const owner = (g.disputed || []).length ? g.stones[g.disputed[0]] : null;
      if (g.phase === "dispute" && mine && owner === you) {
        b.push(h("button.give", { onclick: () => this.sendMove("give"), title: "give the attacker a prisoner instead of playing (Nieminen N14b)" }, "Give a stone"));
      }
      b.push(h("button.undo", { onclick: () => this.req("undo") }, "Undo"));
    }
    if (s.undo && s.undo.seat !== you && !s.undo.accepted.includes(you)) {
      b.push(h("button.undo-yes", { onclick: () => this.req("undo_reply", { accept: true }) }, "Accept undo"));
      b.push(h("button.undo-no", { onclick: () => this.req("undo_reply", { accept: false }) }, "Refuse undo"));
    }
    if (g.proposal) {
      b.push(h("button.accept", { onclick: () => this.sendMove("accept") }, "Accept ranking"));
      b.push(h("button.reject", { onclick: () => this.sendMove("reject") }, "Reject ranking"));
    }
    if (this.confirm === "resign") {
      b.push(h("span.ask", {}, "Really resign? ",
        h("button.resign-yes", { onclick: () => { this.confirm = null; this.sendMove("resign"); } }, "Yes, resign"),
        h("button", { onclick: () => { this.confirm = null; this.render(); } }, "No")));
    } else {
      b.push(h("button.resign", { onclick: () => { this.confirm = "resign"; this.render(); } }, "Resign"));
    }
    b.push(this.proposeForm());
    if (!this.online) {   // nothing can be sent: every action waits for the connection
      for (const node of b) for (const button of node.matches("button") ? [node] : node.querySelectorAll("button")) button.disabled = true;
    }
    return h("div.panel.actions", {}, b);
  }

  proposeForm() {
    if (!this.propose) {   // made once, so an event arriving while one fills it in does not close it
      const places = this.s.seats.map((_, i) => h("input.rank", { type: "number", min: 1, max: this.s.seats.length,
        value: i + 1, "aria-label": `place of ${colourOf(i).name}`, "data-seat": i }));
      this.propose = h("details.propose", {}, h("summary", {}, "Propose a ranking"), places,
        h("button.propose", { onclick: () => {
          this.propose.open = false;
          this.sendMove(`rank ${places.map((x) => x.value || "1").join(" ")}`);
        } }, "Propose"));
    }
    return this.propose;
  }

  movesPanel() {
    const g = this.s.game, s = this.s;
    const items = g.history.map(([seat, move, rescinded], i) => {
      const c = colourOf(seat);
      const text = move.startsWith("appeal ") ? `appeals for ${move.slice(7)}` : move;
      const why = rescinded ? "rescinded (Kee rule 13): an appeal answered this stone play and its player then passed without appeal" : "";
      const body = h("span", {}, text);
      return h("li", { class: rescinded ? "rescinded" : "", "data-index": i, title: why },
        h("span.num", {}, `${i + 1}`), h("span.swatch.small", { "data-seat": seat }, c.letter),
        h("span.who", {}, s.seats[seat] ? s.seats[seat].name : ""), rescinded ? h("s", {}, body) : body);
    });
    const list = h("ol.moves", {}, items);
    requestAnimationFrame(() => { list.scrollTop = list.scrollHeight; });
    return h("div.panel", {}, h("h3", {}, "Moves"), list);
  }

  chatPanel() {
    const log = h("div.chat-log", {}, this.chat.map((c) =>
      h("p", {}, h("b", {}, c.name || "?"), c.seat === null || c.seat === undefined ? " (watching)" : "", ": ", chatText(c.text))));
    requestAnimationFrame(() => { log.scrollTop = log.scrollHeight; });
    if (!this.chatForm) {   // made once, so an event arriving while one types does not eat the text
      const input = h("input.chat-input", { placeholder: "say something", maxlength: 500, "aria-label": "chat" });
      this.chatForm = h("form.chat", { onsubmit: (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (text) { this.req("chat", { text }); input.value = ""; }
      } }, input, h("button", { type: "submit" }, "Send"));
    }
    return h("div.panel", {}, h("h3", {}, "Chat"), log, this.chatForm);
  }
}

// The element with the focus (the chat's input, a ranking's place), to be given it back after a
// redraw: the forms are kept across redraws, but taking them out of the page and back in loses
// the focus, and a move arriving while one types would send the next keys elsewhere.
function keptFocus() {
  const el = document.activeElement;
  if (!el || el === document.body || el.id === "board") return () => {};
  const range = typeof el.selectionStart === "number" ? [el.selectionStart, el.selectionEnd] : null;
  return () => {
    if (!el.isConnected || document.activeElement === el) return;
    el.focus({ preventScroll: true });
    if (range) el.setSelectionRange(...range);
  };
}

// A chat line as shown: a rematch's line ("rematch #/room/ID", as `Room.rematch` says it) as a
// link to that room; anything else as text.
function chatText(text) {
  const m = /^rematch (#\/room\/[\w-]+(?:\?invite=[\w%-]+)?)$/.exec(text);
  return m ? h("a.rematch-link", { href: m[1] }, "rematch: join the new room") : text;
}

// A bot's `analysis` event as one line: its lead, win rate and first moves, and how old it is.
function analysisText(a, g) {
  const parts = [];
  if (a.score !== undefined && a.score !== null) parts.push(`lead ${a.score >= 0 ? "+" : ""}${a.score}`);
  if (a.winrate !== undefined && a.winrate !== null) parts.push(`win ${Math.round(a.winrate * 100)}%`);
  if (a.pv && a.pv.length) parts.push(a.pv.slice(0, 6).join(" "));
  const behind = g.history.length - a.index;
  return "analysis: " + parts.join(" · ") + (behind > 0 ? ` (${behind} move${behind > 1 ? "s" : ""} ago)` : "");
}

// Jasiek's ko analysis (jasiek-nkr rooms): each ko position, its type and state, who is barred.
function kosLine(kos) {
  return h("div.kos", {}, h("b", {}, "kos: "), kos.map((k) => {
    const bars = [];
    if (k.fighting_bar !== null && k.fighting_bar !== undefined) bars.push(`${colourOf(k.fighting_bar).name} may not play in it at its next move`);
    if (k.disturber !== null && k.disturber !== undefined) bars.push(`disturber ${colourOf(k.disturber).name}${k.disturber_barred ? " (barred)" : ""}`);
    return h("span.ko", { "data-points": k.points.join(" "), title: `mouths: ${k.mouths.map((m) => m.join(" ")).join(" / ")}` },
      `${k.points.join(" ")}: ${k.type}${k.state ? `, ${k.state}` : ""}${bars.length ? `; ${bars.join("; ")}` : ""}`);
  }));
}

// The points of Jasiek's ko positions, each with the words the board's hover text gives it.
function koPoints(kos) {
  const out = {};
  for (const k of kos || []) for (const p of k.points) out[p] = `${k.type}${k.state ? `, ${k.state}` : ""}`;
  return out;
}
