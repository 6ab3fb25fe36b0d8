// The page: a router over location.hash (#/ lobby, #/room/ID[?invite=CODE], #/games,
// #/replay/ID), one Connection, and the room being shown.

import { Connection } from "./conn.js";
import { h, clear } from "./dom.js";
import { Room } from "./room.js";
import { gamesPage, replayPage } from "./replay.js";

const RULES = ["kee", "lasker-maas", "nieminen", "tromp-taylor", "chinese", "japanese", "aga", "hansen-sst", "jasiek-nkr"];
const GRAPHS = ["village", "petersen", "hex5", "cube4"];
const CLOCKS = [["byoyomi:600+5x30", "10 min, then 5 periods of 30 s"], ["fischer:300+10", "5 min, +10 s a move"],
  ["canadian:600+300/25", "10 min, then 25 stones in 5 min"], ["absolute:600", "10 min for the game"],
  ["byoyomi:60+3x10", "blitz: 1 min, then 3 × 10 s"]];

class App {
  constructor() {
    this.main = document.getElementById("main");
    this.statusNode = document.getElementById("conn");
    this.who = document.getElementById("who");
    this.connStatus = "connecting";
    this.room = null;
    this.lobbyTimer = null;
    this.conn = new Connection({
      onEvent: (ev) => { if (this.room && ev.room === this.room.id) this.room.onEvent(ev); },
      onStatus: (status, attempt) => this.setStatus(status, attempt),
      onReconnect: () => { if (this.room) this.room.reconnected(); },
      onWelcome: (w) => { this.welcome = w; this.who.textContent = w.name; },
    });
    window.polygo = this;   // for the curious and for the tests' "network drop"
  }

  setStatus(status, attempt) {
    this.connStatus = status;
    this.statusNode.textContent = status === "connected" ? "online" : status === "reconnecting" ? `reconnecting… (${attempt})` : "connecting…";
    this.statusNode.dataset.state = status;
    document.body.dataset.conn = status;
    if (this.room) this.room.render();
  }

  async start() {
    window.addEventListener("hashchange", () => this.route());
    await this.conn.start();
    this.route();
  }

  async route() {
    const hash = location.hash.replace(/^#/, "") || "/";
    const [path, query] = hash.split("?");
    const params = new URLSearchParams(query || "");
    const parts = path.split("/").filter(Boolean);
    if (this.room) { this.room.close(); this.room = null; }
    clearInterval(this.lobbyTimer);
    if (parts[0] === "room" && parts[1]) {
      this.room = new Room(this, parts[1], params.get("invite"));
      this.show(this.room.root);
      await this.room.open();
    } else if (parts[0] === "games") {
      this.show(await gamesPage(this));
    } else if (parts[0] === "replay" && parts[1]) {
      this.show(await replayPage(this, parts[1]));
    } else {
      this.show(this.lobby());
    }
  }

  show(node) { clear(this.main).appendChild(node); }

  lobby() {
    const list = h("div.rooms", {}, h("p", {}, "loading…"));
    // Polled, not pushed (docs/web.md, "Decisions"); a tab in the background asks nothing.
    const refresh = async () => {
      if (document.hidden) return;
      try {
        const reply = await this.conn.request("list");
        list.replaceChildren(this.roomTable(reply.rooms));
      } catch (e) { /* reconnecting: the next refresh tries again */ }
    };
    refresh();
    this.lobbyTimer = setInterval(refresh, 2000);
    const mine = (this.welcome ? this.welcome.seats : []).map((s) =>
      h("li", {}, h("a.rejoin", { href: `#/room/${s.room}` }, `room ${s.room}`), ` (your seat ${s.seat})`));
    const nameInput = h("input#name", { value: this.conn.name || "", maxlength: 32, "aria-label": "your name" });
    const joinRoom = h("input#join-room", { placeholder: "room id or link", "aria-label": "room id" });
    const joinCode = h("input#join-code", { placeholder: "invitation code (private)", "aria-label": "invitation code" });
    return h("div.lobby", {},
      h("section.panel.me", {}, h("h2", {}, "You"),
        h("form#name-form", { onsubmit: async (e) => {
          e.preventDefault();
          const name = nameInput.value.trim();
          if (name) { await this.conn.rename(name); this.route(); }
        } }, h("label", {}, "Name ", nameInput), h("button", { type: "submit" }, "Play as this name")),
        h("p.hint", {}, "A new name is a new guest session; this browser keeps its token, so a reload keeps your seats."),
        this.accountForm(),
        mine.length ? h("div", {}, h("h3", {}, "Your games"), h("ul", {}, mine)) : null),
      h("section.panel", {}, h("h2", {}, "Open rooms and games in progress"), list,
        h("p", {}, h("a#finished", { href: "#/games" }, "Finished games →"))),
      h("section.panel", {}, h("h2", {}, "Join by link or invitation"),
        h("form#join-form", { onsubmit: (e) => {
          e.preventDefault();
          let id = joinRoom.value.trim();
          const m = /#\/room\/([^?]+)(?:\?invite=(.*))?/.exec(id);
          let code = joinCode.value.trim();
          if (m) { id = m[1]; code = code || m[2] || ""; }
          if (id) location.hash = `#/room/${id}` + (code ? `?invite=${encodeURIComponent(code)}` : "");
        } }, joinRoom, joinCode, h("button", { type: "submit" }, "Open"))),
      this.createForm());
  }

  // Registered names: `register` makes this session's name a registered user; `hello` with
  // user + password logs in from any browser (and holds the seats of that user's sessions).
  accountForm() {
    const user = h("input#user", { maxlength: 32, autocomplete: "username", "aria-label": "user" });
    const password = h("input#password", { type: "password", maxlength: 128, autocomplete: "current-password", "aria-label": "password" });
    const note = h("p.notice#account-note", { role: "status" });
    const act = (kind) => async (e) => {
      e.preventDefault();
      note.textContent = "";
      try {
        if (kind === "register") {
          await this.conn.request("register", { user: user.value.trim(), password: password.value });
          await this.conn.login(user.value.trim(), password.value);
        } else {
          await this.conn.login(user.value.trim(), password.value);
        }
        this.route();
      } catch (err) { note.textContent = err.message || err.code; }
    };
    const registered = this.welcome && this.welcome.user;
    return h("details.account", {}, h("summary", {}, registered ? `registered as ${registered}` : "Log in or register a name"),
      h("form#account-form", { onsubmit: act("login") }, h("label", {}, "User ", user), h("label", {}, "Password ", password),
        h("button#login", { type: "submit" }, "Log in"), h("button#register", { type: "button", onclick: act("register") }, "Register"), note));
  }

  roomTable(rooms) {
    if (!rooms.length) return h("p", {}, "No open room. Create one below.");
    return h("table.list", {}, h("thead", {}, h("tr", {}, ["room", "rules", "board", "seats", "status", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, rooms.map((r) => {
        const free = r.seats.filter((s) => !s).length;
        return h("tr", { "data-room": r.room },
          h("td", {}, r.title || r.room), h("td", {}, r.settings.rules),
          h("td", {}, typeof r.settings.board === "string" ? r.settings.board : "graph"),
          h("td", {}, r.seats.map((s) => s || "·").join(", ")), h("td", {}, r.status),
          h("td", {}, h("a.button.open-room", { href: `#/room/${r.room}` }, r.status === "waiting" && free ? "Join" : "Watch")));
      })));
  }

  createForm() {
    const f = {};
    const field = (label, input) => h("label", {}, h("span", {}, label), input);
    f.rules = h("select#rules", {}, RULES.map((r) => h("option", { value: r }, r)));
    f.boardKind = h("select#board-kind", {}, [["size", "square grid"], ["wxh", "W×H grid"], ["torus", "torus"],
      ["graph", "shipped graph"], ["json", "paste JSON graph"]].map(([v, t]) => h("option", { value: v }, t)));
    f.size = h("select#size", {}, ["9", "13", "19", "7", "5"].map((s) => h("option", { value: s }, `${s}×${s}`)));
    f.wxh = h("input#wxh", { value: "7x5", "aria-label": "width x height" });
    f.graph = h("select#graph", {}, GRAPHS.map((g) => h("option", { value: g }, g)));
    f.json = h("textarea#board-json", { rows: 4, placeholder: '{"points": ["a","b"], "edges": [["a","b"]], "coords": {"a": [0,0], "b": [1,0]}}' });
    f.players = h("input#players", { type: "number", min: 2, max: 8, value: 3 });
    f.komi = h("input#komi", { placeholder: "ruleset's", inputmode: "decimal" });
    f.handicap = h("input#handicap", { type: "number", min: 0, max: 25, value: 0 });
    f.hmode = h("select#handicap-mode", {}, ["fixed", "free"].map((m) => h("option", { value: m }, m)));
    f.clock = h("input#clock", { list: "clock-presets", placeholder: "none, or pick one" });
    const clockPresets = h("datalist#clock-presets", {}, CLOCKS.map(([v, t]) => h("option", { value: v }, t)));
    f.private = h("input#private", { type: "checkbox" });
    f.title = h("input#title", { maxlength: 80 });
    f.bots = h("input#bots", { type: "number", min: 0, max: 7, value: 0 });
    f.options = h("input#options", { placeholder: '{"no_result_at": 4}' });
    const error = h("p.error#create-error", { role: "alert" });
    const boardRow = h("div.board-choice");
    const showBoard = () => {
      const k = f.boardKind.value;
      boardRow.replaceChildren(k === "size" ? f.size : k === "graph" ? f.graph : k === "json" ? f.json : f.wxh);
    };
    f.boardKind.addEventListener("change", showBoard);
    showBoard();
    const submit = async (e) => {
      e.preventDefault();
      error.textContent = "";
      const k = f.boardKind.value;
      let board;
      try {
        board = k === "size" ? f.size.value : k === "wxh" ? f.wxh.value.trim() : k === "torus" ? `torus:${f.wxh.value.trim()}`
          : k === "graph" ? f.graph.value : JSON.parse(f.json.value);
      } catch (err) { error.textContent = `the board JSON does not parse: ${err.message}`; return; }
      const settings = { rules: f.rules.value, board, players: +f.players.value };
      if (f.komi.value.trim()) settings.komi = +f.komi.value;
      if (+f.handicap.value) { settings.handicap = +f.handicap.value; settings.handicap_mode = f.hmode.value; }
      if (f.clock.value.trim()) settings.clock = f.clock.value.trim();
      if (f.private.checked) settings.private = true;
      if (f.title.value.trim()) settings.title = f.title.value.trim();
      if (+f.bots.value) settings.bots = +f.bots.value;
      if (f.options.value.trim()) {
        try { settings.options = JSON.parse(f.options.value); } catch (err) { error.textContent = `options: ${err.message}`; return; }
      }
      try {
        const created = await this.conn.request("create", { settings });
        const invite = created.invite ? `?invite=${encodeURIComponent(created.invite)}` : "";
        await this.conn.request("sit", { room: created.room, seat: 0 });
        location.hash = `#/room/${created.room}${invite}`;
      } catch (err) {
        error.textContent = `${err.message}` + (err.field ? ` (${err.field})` : "");
      }
    };
    return h("section.panel.create", {}, h("h2", {}, "Create a room"),
      h("form#create-form", { onsubmit: submit },
        field("Rules", f.rules), field("Board", f.boardKind), boardRow, field("Players", f.players),
        field("Komi", f.komi), field("Handicap", f.handicap), field("Placement", f.hmode), field("Clock", f.clock), clockPresets,
        field("House bots", f.bots), field("Options (JSON)", f.options), field("Title", f.title), field("Private", f.private),
        h("button#create", { type: "submit" }, "Create and sit"), error));
  }
}

new App().start();
