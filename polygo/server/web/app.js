// The page: a router over location.hash (#/ lobby, #/room/ID[?invite=CODE], #/games,
// #/replay/ID, #/player/NAME, #/pool/POOL), one Connection, and the room being shown.

import { Connection } from "./conn.js";
import { clear } from "./dom.js";
import { Room } from "./room.js";
import { gamesPage, replayPage } from "./replay.js";
import { lobbyPage } from "./lobby.js";
import { TurnAlert } from "./alerts.js";
import { TurnWatch } from "./turns.js";
import { Finding } from "./finding.js";
import { playerPage, poolPage } from "./profiles.js";
import { setRulesets } from "./rulesets.js";

class App {
  constructor() {
    this.main = document.getElementById("main");
    this.statusNode = document.getElementById("conn");
    this.who = document.getElementById("who");
    this.connStatus = "connecting";
    this.room = null;
    this.view = null;           // the page shown, when it has something to stop (the lobby's polling)
    this.alert = new TurnAlert();
    this.turns = new TurnWatch(this);
    this.finding = new Finding(this);
    this.conn = new Connection({
      onEvent: (ev) => { if (this.room && ev.room === this.room.id) this.room.onEvent(ev); this.turns.changed(ev); },
      onStatus: (status, attempt) => this.setStatus(status, attempt),
      onReconnect: () => { if (this.room) this.room.reconnected(); this.finding.reconnected(); },
      onWelcome: (w) => { this.welcome = w; setRulesets(w.rulesets); this.who.textContent = w.name; this.finding.welcomed(w); },
      onNotice: (m) => this.finding.notice(m),
    });
    window.polygo = this;   // for the curious and for the tests' "network drop"
  }

  setStatus(status, attempt) {
    this.connStatus = status;
    this.statusNode.textContent = status === "connected" ? "online" : status === "reconnecting" ? `offline · reconnecting… (${attempt})` : "connecting…";
    this.statusNode.dataset.state = status;
    document.body.dataset.conn = status;
    if (this.room) this.room.connection(status === "connected");
  }

  async start() {
    window.addEventListener("hashchange", () => this.route());
    await this.conn.start();
    this.turns.start();
    this.route();
  }

  async route() {
    const hash = location.hash.replace(/^#/, "") || "/";
    const [path, query] = hash.split("?");
    const params = new URLSearchParams(query || "");
    const parts = path.split("/").filter(Boolean);
    if (this.room) { this.room.close(); this.room = null; }
    if (this.view) { this.view.stop(); this.view = null; }
    this.alert.clear();
    if (parts[0] === "room" && parts[1]) {
      this.room = new Room(this, parts[1], params.get("invite"));
      this.show(this.room.root);
      await this.room.open();
    } else if (parts[0] === "player" && parts[1]) {
      this.show(await playerPage(this, decodeURIComponent(parts[1])));
    } else if (parts[0] === "pool" && parts[1]) {
      this.show(await poolPage(this, parts[1]));
    } else if (parts[0] === "games") {
      this.show(await gamesPage(this));
    } else if (parts[0] === "replay" && parts[1]) {
      this.show(await replayPage(this, parts[1]));
    } else {
      this.view = lobbyPage(this);
      this.show(this.view.node);
    }
  }

  show(node) { clear(this.main).appendChild(node); }
}

new App().start();
