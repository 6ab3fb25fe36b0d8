// Finding a game (docs/pools.md): the lobby's pools with a seek button each, and challenges sent
// and received. One `Finding` lives as long as the page: it keeps the seek and the challenges
// across views, asks for `challenges` while the lobby shows them (the server then sends every
// change on this connection, and the standing ones now), seeks again after a reconnection (a
// seek belongs to its connection), and goes to the room at once when `matched` arrives.

import { h } from "./dom.js";
import { ruleList, ruleName } from "./rulesets.js";

const CLOSED = { declined: "declined", withdrawn: "withdrawn", expired: "expired", failed: "could not start", started: "started" };

export class Finding {
  constructor(app) {
    this.app = app;
    this.pools = [];
    this.seek = null;            // {pool, rating, provisional} while a seek stands
    this.arena = null;           // the arena pool this page joined, while it is in it
    this.error = "";
    this.challenges = new Map(); // id -> the challenge as last told
    this.panels = new Set();     // {node, draw} of the lobby's panels being shown
  }

  get user() { return this.app.welcome ? this.app.welcome.user : null; }
  get me() { return this.user || (this.app.welcome ? this.app.welcome.name : null); }

  // Each hello (a reconnection, a login) starts a new list on the server's side: ask again, but
  // only while the lobby shows the challenges. In a cluster `challenges` is answered `moved` to
  // the finder's node (docs/cluster.md), so a room's page does not ask it.
  async welcomed() {
    if (![...this.panels].some((p) => p.node.isConnected && p.challenges)) return;
    await this.follow();
  }

  async follow() {
    try {
      const reply = await this.app.conn.request("challenges");
      this.challenges = new Map(reply.challenges.map((c) => [c.id, c]));
    } catch (e) { /* reconnecting: asked again at the next welcome */ }
    this.redraw();
  }

  // The connection was lost and is back: the server forgot the seek and the arena membership
  // with the old connection.
  async reconnected() {
    if (this.arena) await this.join(this.arena, true);
    if (!this.seek) return;
    const pool = this.seek.pool;
    this.seek = null;
    await this.start(pool);
  }

  // Join (or leave) a pool's arena: the server then pairs this page's player game after game.
  async join(pool, join) {
    this.error = "";
    try {
      await this.app.conn.request("arena", { pool, join });
      this.arena = join ? pool : null;
    } catch (e) { this.error = e.message || e.code; }
    await this.loadPools();     // the counts as they are now
    this.redraw();
  }

  notice(m) {
    if (m.type === "matched") {
      this.seek = null;
      location.hash = `#/room/${m.room}`;
    } else if (m.type === "challenge") {
      this.challenges.set(m.challenge.id, m.challenge);
    }
    this.redraw();
  }

  async loadPools() {
    try { this.pools = (await this.app.conn.request("pools")).pools; } catch (e) { return; }
    this.redraw();
  }

  async start(pool) {
    this.error = "";
    try {
      const r = await this.app.conn.request("seek", { pool });
      this.seek = { pool, rating: r.rating, provisional: r.provisional };
    } catch (e) { this.error = e.message || e.code; }
    this.redraw();
  }

  async cancel() {
    this.seek = null;
    try { await this.app.conn.request("unseek"); } catch (e) { /* the seek ended with the connection */ }
    this.redraw();
  }

  async answer(id, accept) {
    try { await this.app.conn.request("challenge_reply", { challenge: id, accept }); } catch (e) {
      const c = this.challenges.get(id);
      if (c) this.challenges.set(id, { ...c, problem: e.message });
    }
    this.redraw();
  }

  redraw() {
    for (const panel of this.panels) {
      if (panel.node.isConnected) panel.draw();
      else this.panels.delete(panel);
    }
  }

  keep(node, draw, challenges = false) {
    const panel = { node, draw, challenges };
    this.panels.add(panel);
    draw();
    return node;
  }

  // The lobby's pools: one row each, its Seek button, the leaderboard a click away.
  poolsPanel() {
    const body = h("div.pools-body");
    const node = h("section.panel.pools", {}, h("h2", {}, "Play a rated game"), body);
    this.loadPools();
    return this.keep(node, () => body.replaceChildren(...this.poolRows()));
  }

  poolRows() {
    const guest = !this.user;
    const note = guest ? h("p.hint#guest-note", {}, "Rated pools need an account: register or log in under “You” to seek them. Unrated pools are open to guests.") : null;
    if (!this.pools.length) return [h("p", {}, "loading…")];
    const rows = this.pools.map((p) => {
      const mine = this.seek && this.seek.pool === p.name;
      const inArena = this.arena === p.name;
      const arena = p.arena ? h("button.arena", { "data-pool": p.name, "aria-pressed": inArena ? "true" : "false",
        disabled: guest && p.rated, onclick: () => this.join(p.name, !inArena) }, inArena ? "Leave arena" : "Join arena") : null;
      const action = mine
        ? h("span.waiting", { role: "status" }, `waiting for ${p.players - 1} opponent${p.players > 2 ? "s" : ""}…`,
          this.seek.rating !== null && this.seek.rating !== undefined ? ` (your rating ${this.seek.rating}${this.seek.provisional ? "?" : ""})` : "",
          " ", h("button.unseek", { onclick: () => this.cancel() }, "Cancel"))
        : h("button.seek", { "data-pool": p.name, disabled: !!this.seek || (guest && p.rated),
          title: guest && p.rated ? "rated: register or log in first" : null, onclick: () => this.start(p.name) }, "Seek");
      return h("tr", { "data-pool": p.name },
        h("td", {}, h("a.pool-link", { href: `#/pool/${p.name}` }, p.title || p.name)),
        h("td", {}, `${ruleName(p.rules)}, ${p.players} players, ${p.board}`), h("td", {}, p.clock || "no clock"),
        h("td", {}, [p.rated ? "rated" : "unrated", p.arena ? "arena" : null].filter(Boolean).join(", ")),
        h("td.seeking", {}, `${p.seeking} seeking` + (p.arena ? `, ${p.in_arena} in the arena` : "")), h("td", {}, action, arena ? [" ", arena] : null));
    });
    return [note, h("table.list.pool-table", {}, h("tbody", {}, rows)),
      h("p.error#seek-error", { role: "alert" }, this.error)];
  }

  // Challenges to and from you, and the form that sends one.
  challengesPanel() {
    const list = h("div.challenge-list", { "aria-live": "polite" });
    const node = h("section.panel.challenges", {}, h("h2", {}, "Challenges"), list, this.challengeForm());
    this.keep(node, () => list.replaceChildren(...this.challengeItems()), true);
    this.follow();
    return node;
  }

  challengeItems() {
    if (!this.challenges.size) return [h("p.none", {}, "No challenge to or from you.")];
    const items = [...this.challenges.values()].sort((a, b) => b.expires - a.expires).map((c) => {
      const mineToAnswer = this.user && c.players.some((p) => p.name === this.user && p.accepted === null);
      const game = c.pool ? `${c.pool}${c.rated ? " (rated)" : ""}` : `${ruleName(c.settings.rules)} ${c.settings.board}, unrated`;
      const who = c.by === this.me ? `You challenge ${c.players.map((p) => p.name + (p.accepted ? " ✓" : "")).join(", ")}`
        : `${c.by} challenges you${c.players.length > 1 ? ` and ${c.players.filter((p) => p.name !== this.user).map((p) => p.name).join(", ")}` : ""}`;
      const status = c.status === "open" ? (mineToAnswer ? null : "waiting for answers") : CLOSED[c.status] || c.status;
      return h("li.challenge", { "data-challenge": c.id, "data-status": c.status }, `${who}: ${game}`,
        status ? h("span.status", {}, ` · ${status}`) : null,
        c.status === "started" && c.room ? h("a.rejoin", { href: `#/room/${c.room}` }, " open the room") : null,
        c.status === "open" && mineToAnswer ? [" ", h("button.accept", { onclick: () => this.answer(c.id, true) }, "Accept"),
          " ", h("button.decline", { onclick: () => this.answer(c.id, false) }, "Decline")] : null,
        c.status === "open" && c.by === this.me ? [" ", h("button.withdraw", { onclick: () => this.answer(c.id, false) }, "Withdraw")] : null,
        c.problem ? h("span.error", {}, ` ${c.problem}`) : null);
    });
    return [h("ul", {}, items)];
  }

  challengeForm() {
    const names = h("input#challenge-players", { placeholder: "names, separated by commas", "aria-label": "players to challenge" });
    const pool = h("select#challenge-pool", { "aria-label": "game" }, h("option", { value: "" }, "custom settings (unrated)"));
    const rules = h("select#challenge-rules", { "aria-label": "rules" }, ruleList().map((r) => h("option", { value: r.name }, r.title)));
    const board = h("input#challenge-board", { value: "9", "aria-label": "board", size: 6 });
    const clock = h("input#challenge-clock", { placeholder: "clock, e.g. byoyomi:600+5x30", "aria-label": "clock" });
    const custom = h("div.challenge-custom", {}, rules, board, clock);
    const fill = () => {
      const chosen = pool.value;
      pool.replaceChildren(h("option", { value: "" }, "custom settings (unrated)"),
        ...this.pools.map((p) => h("option", { value: p.name }, `${p.title || p.name}${p.rated ? " (rated)" : ""}`)));
      pool.value = chosen;
      custom.hidden = !!pool.value;
    };
    pool.addEventListener("change", () => { custom.hidden = !!pool.value; });
    pool.addEventListener("focus", fill);
    fill();
    const error = h("p.error#challenge-error", { role: "alert" });
    const submit = async (e) => {
      e.preventDefault();
      error.textContent = "";
      const players = names.value.split(",").map((s) => s.trim()).filter(Boolean);
      const fields = { players };
      if (pool.value) fields.pool = pool.value;
      else {
        fields.settings = { rules: rules.value, board: board.value.trim(), players: players.length + 1 };
        if (clock.value.trim()) fields.settings.clock = clock.value.trim();
      }
      try {
        const reply = await this.app.conn.request("challenge", fields);
        this.challenges.set(reply.challenge.id, reply.challenge);
        names.value = "";
        this.redraw();
      } catch (err) { error.textContent = err.message + (err.field ? ` (${err.field})` : ""); }
    };
    return h("form#challenge-form", { onsubmit: submit }, h("label", {}, "Challenge ", names), pool, custom,
      h("button", { type: "submit" }, "Send"), error);
  }
}
