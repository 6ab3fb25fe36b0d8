// The games that wait for your move (`my_games`, docs/protocol.md): a correspondence player has
// many going at once. While the page is open it asks the server every minute (and when the tab
// comes back to the front, or a room of yours changes), lists them in the lobby's "Your turn"
// panel, counts them in the tab's title while no room is shown (a room's own title says whose
// turn it is there: alerts.js), and, when a game newly waits for you while the page is in the
// background, shows a browser notification if the page may (the Settings' notification choice).

import { h } from "./dom.js";
import { prefs } from "./prefs.js";

const EVERY_MS = 60_000;
const BASE_TITLE = "polygo";

export class TurnWatch {
  constructor(app) {
    this.app = app;
    this.games = [];
    this.known = null;          // the rooms that waited for you at the last answer (null: none yet)
    this.lists = new Set();     // the lobby panels' lists being shown
    this.timer = null;
    this.soon = null;
  }

  start() {
    this.timer = setInterval(() => { if (!document.hidden) this.refresh(); }, EVERY_MS);
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.refresh(); });
    this.refresh();
  }

  // A room's event: a move or a timeout may have made it someone's turn (asked a moment later,
  // once for a burst of events).
  changed(ev) {
    if (!["start", "move", "undo", "timeout"].includes(ev.kind) || this.soon) return;
    this.soon = setTimeout(() => { this.soon = null; this.refresh(); }, 500);
  }

  // Ask the server again; a failed request (reconnecting) leaves the last answer.
  async refresh() {
    let reply;
    try {
      reply = await this.app.conn.request("my_games");
    } catch (e) {
      return;
    }
    this.games = reply.games.filter((g) => g.your_turn);
    const rooms = new Set(this.games.map((g) => g.room));
    const here = this.app.room ? this.app.room.id : null;     // its own alert tells of that one
    const fresh = this.known ? this.games.filter((g) => !this.known.has(g.room) && g.room !== here) : [];
    this.known = rooms;
    if (fresh.length && document.hidden) this.notify(fresh);
    this.title();
    for (const list of this.lists) {
      if (list.isConnected) list.replaceChildren(...this.items());
      else this.lists.delete(list);
    }
  }

  // The tab's title while no room is shown: "(2) Your turn · polygo".
  title() {
    if (this.app.room) return;
    document.title = this.games.length ? `(${this.games.length}) Your turn · ${BASE_TITLE}` : BASE_TITLE;
  }

  notify(fresh) {
    if (!prefs().notify || !("Notification" in window) || Notification.permission !== "granted") return;
    const body = fresh.length === 1 ? `${describe(fresh[0])}` : `${fresh.length} games wait for your move`;
    try {
      const n = new Notification("Your turn", { body, tag: "polygo-my-games" });
      n.onclick = () => { window.focus(); location.hash = `#/room/${fresh[0].room}`; n.close(); };
    } catch (e) { /* some browsers allow notifications from a service worker only */ }
  }

  // The lobby's panel, kept up to date while it is shown.
  panel() {
    const list = h("ul#your-turn", {}, this.items());
    this.lists.add(list);
    this.refresh();
    return h("section.panel.your-turn", {}, h("h2", {}, "Your turn"), list);
  }

  items() {
    if (!this.games.length) return [h("li.none", {}, "No game waits for your move.")];
    const now = Date.now() / 1000;
    return this.games.map((g) => h("li", { "data-room": g.room },
      h("a.rejoin", { href: `#/room/${g.room}` }, g.title || `room ${g.room}`), ` · ${describe(g)}`,
      g.deadline ? h("span.left", {}, ` · ${left(g.deadline - now)} left`) : null));
  }
}

function describe(g) {
  const others = g.seats.filter((name, seat) => seat !== g.seat && name).join(", ");
  return `${g.settings.rules} against ${others || "nobody yet"}`;
}

// Seconds as their two largest units: "2d 5h", "3h 12m", "45s".
export function left(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400), hr = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  if (d) return `${d}d ${hr}h`;
  if (hr) return `${hr}h ${m}m`;
  return m ? `${m}m ${s % 60}s` : `${s % 60}s`;
}
