// The lobby (#/): who you are, your games, the open rooms (polled, see docs/web.md), joining by
// link, and the form that creates a room. Each part is a function of its own, so that other
// views (seeks, profiles) can be set beside them.

import { h } from "./dom.js";
import { prefsPanel } from "./prefs.js";
import { ruleHelp, ruleList, ruleName } from "./rulesets.js";
import { playerLink } from "./profiles.js";

const GRAPHS = [["village", "village (a small graph)"], ["petersen", "Petersen graph (10 points)"], ["hex5", "hex5 (hexagonal, 61 points)"],
  ["cube4", "cube4 (a 4-cube, 16 points)"]];
const CLOCKS = [
  ["", "no clock"],
  ["byoyomi:600+5x30", "Standard: 10 min, then 5 × 30 s byo-yomi"],
  ["fischer:300+10", "Rapid: 5 min, +10 s a move (Fischer)"],
  ["byoyomi:60+3x10", "Blitz: 1 min, then 3 × 10 s byo-yomi"],
  ["canadian:600+300/25", "Canadian: 10 min, then 25 stones in 5 min"],
  ["absolute:1800", "Sudden death: 30 min for the game"],
  ["corr:3d", "Correspondence: 3 days a move"],
  ["custom", "Custom…"],
];

export function lobbyPage(app) {
  const list = h("div.rooms", {}, h("p", {}, "loading…"));
  let rooms = null;
  const filters = roomFilters(() => { if (rooms) list.replaceChildren(roomTable(filters.pick(rooms), rooms.length)); });
  // Polled, not pushed (docs/web.md, "Decisions"); a tab in the background asks nothing.
  const refresh = async () => {
    if (document.hidden) return;
    try {
      rooms = (await app.conn.request("list")).rooms;
      list.replaceChildren(roomTable(filters.pick(rooms), rooms.length));
    } catch (e) { /* reconnecting: the next refresh tries again */ }
  };
  refresh();
  const timer = setInterval(refresh, 2000);
  const node = h("div.lobby", {},
    youPanel(app),
    app.turns.panel(),
    app.finding.poolsPanel(),
    app.finding.challengesPanel(),
    h("section.panel.open-rooms", {}, h("h2", {}, "Open rooms and games in progress"), filters.node, list,
      h("p", {}, h("a#finished", { href: "#/games" }, "Finished games →"))),
    joinPanel(),
    createPanel(app));
  return { node, stop: () => clearInterval(timer) };
}

// The listed rooms narrowed by ruleset, a free seat, and words of a title or a player's name:
// `pick(rooms)` applies them, `changed()` is called when one changes.
function roomFilters(changed) {
  const rules = h("select#filter-rules", { "aria-label": "rules", onchange: changed },
    h("option", { value: "" }, "any rules"), ruleList().map((r) => h("option", { value: r.name }, r.title)));
  const free = h("input#filter-free", { type: "checkbox", onchange: changed });
  const words = h("input#filter-words", { type: "search", placeholder: "title or player", "aria-label": "search rooms", oninput: changed });
  const pick = (rooms) => rooms.filter((r) => {
    if (rules.value && r.settings.rules !== rules.value) return false;
    if (free.checked && !(r.status === "waiting" && r.seats.some((x) => !x))) return false;
    const w = words.value.trim().toLowerCase();
    return !w || [r.title || r.room, ...r.seats.filter(Boolean)].some((t) => t.toLowerCase().includes(w));
  });
  const node = h("div.filters", { role: "group", "aria-label": "filter the rooms" }, rules,
    h("label", {}, free, " with a free seat"), words);
  return { node, pick };
}

function youPanel(app) {
  const mine = (app.welcome ? app.welcome.seats : []).map((s) =>
    h("li", {}, h("a.rejoin", { href: `#/room/${s.room}` }, `room ${s.room}`), ` (your seat ${s.seat})`));
  const nameInput = h("input#name", { value: app.conn.name || "", maxlength: 32, "aria-label": "your name" });
  return h("section.panel.me", {}, h("h2", {}, "You"),
    h("form#name-form", { onsubmit: async (e) => {
      e.preventDefault();
      const name = nameInput.value.trim();
      if (name) { await app.conn.rename(name); app.route(); }
    } }, h("label", {}, "Name ", nameInput), h("button", { type: "submit" }, "Play as this name")),
    h("p.hint", {}, "A new name is a new guest session; this browser keeps its token, so a reload keeps your seats."),
    app.welcome && app.welcome.user ? h("p", {}, h("a#my-profile", { href: `#/player/${encodeURIComponent(app.welcome.user)}` }, "Your profile")) : null,
    accountForm(app), prefsPanel(),
    mine.length ? h("div", {}, h("h3", {}, "Your games"), h("ul", {}, mine)) : null);
}

// Registered names: `register` makes this session's name a registered user; `hello` with
// user + password logs in from any browser (and holds the seats of that user's sessions).
function accountForm(app) {
  const user = h("input#user", { maxlength: 32, autocomplete: "username", "aria-label": "user" });
  const password = h("input#password", { type: "password", maxlength: 128, autocomplete: "current-password", "aria-label": "password" });
  const note = h("p.notice#account-note", { role: "status" });
  const act = (kind) => async (e) => {
    e.preventDefault();
    note.textContent = "";
    try {
      if (kind === "register") await app.conn.request("register", { user: user.value.trim(), password: password.value });
      await app.conn.login(user.value.trim(), password.value);
      app.route();
    } catch (err) { note.textContent = err.message || err.code; }
  };
  const registered = app.welcome && app.welcome.user;
  return h("details.account", {}, h("summary", {}, registered ? `registered as ${registered}` : "Log in or register a name"),
    h("form#account-form", { onsubmit: act("login") }, h("label", {}, "User ", user), h("label", {}, "Password ", password),
      h("button#login", { type: "submit" }, "Log in"), h("button#register", { type: "button", onclick: act("register") }, "Register"), note));
}

function joinPanel() {
  const joinRoom = h("input#join-room", { placeholder: "room id or link", "aria-label": "room id" });
  const joinCode = h("input#join-code", { placeholder: "invitation code (private)", "aria-label": "invitation code" });
  return h("section.panel", {}, h("h2", {}, "Join by link or invitation"),
    h("form#join-form", { onsubmit: (e) => {
      e.preventDefault();
      let id = joinRoom.value.trim();
      const m = /#\/room\/([^?]+)(?:\?invite=(.*))?/.exec(id);
      let code = joinCode.value.trim();
      if (m) { id = m[1]; code = code || m[2] || ""; }
      if (id) location.hash = `#/room/${id}` + (code ? `?invite=${encodeURIComponent(code)}` : "");
    } }, joinRoom, joinCode, h("button", { type: "submit" }, "Open")));
}

function boardName(board) {
  if (typeof board === "string") return /^\d+$/.test(board) ? `${board}×${board}` : board.replace(/^graph:(\d+)$/, "graph, $1 points");
  if (board && Array.isArray(board.points)) return `graph, ${board.points.length} points`;
  return "graph";
}

// A list, not a wide table: on a phone each room is a card of a few lines (style.css).
function roomTable(rooms, listed) {
  if (!listed) return h("p", {}, "No open room. Create one below.");
  if (!rooms.length) return h("p", {}, `None of the ${listed} rooms listed fits these filters.`);
  return h("table.list", {}, h("thead", {}, h("tr", {}, ["room", "rules", "board", "seats", "status", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, rooms.map((r) => {
      const free = r.seats.filter((s) => !s).length;
      return h("tr", { "data-room": r.room },
        h("td.room-title", {}, r.title || r.room), h("td", { title: r.settings.rules }, ruleName(r.settings.rules)),
        h("td", {}, boardName(r.settings.board)),
        h("td", {}, r.seats.map((s, i) => s && r.registered && r.registered[i] ? playerLink(s) : s || "·").flatMap((x, i) => i ? [", ", x] : [x])),
        h("td", {}, r.status),
        h("td", {}, h("a.button.open-room", { href: `#/room/${r.room}` }, r.status === "waiting" && free ? "Join" : "Watch")));
    })));
}

function createPanel(app) {
  const f = {};
  const field = (label, input, help) => h("label", {}, h("span", {}, label), input, help || null);
  f.rules = h("select#rules", {}, ruleList().map((r) => h("option", { value: r.name }, r.title)));
  const rulesHelp = h("p.hint#rules-help", { "aria-live": "polite" });
  const showRules = () => { rulesHelp.textContent = ruleHelp(f.rules.value); };
  f.rules.addEventListener("change", showRules);
  showRules();
  f.boardKind = h("select#board-kind", {}, [["size", "square grid"], ["wxh", "W×H grid"], ["torus", "torus"],
    ["graph", "shipped graph"], ["json", "paste JSON graph"]].map(([v, t]) => h("option", { value: v }, t)));
  f.size = h("select#size", { "aria-label": "size" }, ["9", "13", "19", "7", "5"].map((s) => h("option", { value: s }, `${s}×${s}`)));
  f.wxh = h("input#wxh", { value: "7x5", "aria-label": "width x height" });
  f.graph = h("select#graph", { "aria-label": "graph" }, GRAPHS.map(([v, t]) => h("option", { value: v }, t)));
  f.json = h("textarea#board-json", { rows: 4, "aria-label": "board graph as JSON",
    placeholder: '{"points": ["a","b"], "edges": [["a","b"]], "coords": {"a": [0,0], "b": [1,0]}} (coords optional)' });
  f.players = h("input#players", { type: "number", min: 2, max: 8, value: 3 });
  f.clockPreset = h("select#clock-preset", {}, CLOCKS.map(([v, t]) => h("option", { value: v }, t)));
  f.clock = h("input#clock", { placeholder: "byoyomi:600+5x30", "aria-label": "clock (custom)" });
  const clockHelp = h("p.hint#clock-help", {}, "main time, then byo-yomi periods (byoyomi:600+5x30), an increment (fischer:300+10), stones in a period (canadian:600+300/25) or none (absolute:600); times in seconds; or days a move (corr:3d, corr:3d/10d with a bank)");
  const clockCustom = h("div.clock-custom", { hidden: true }, f.clock, clockHelp);
  f.clockPreset.addEventListener("change", () => {
    clockCustom.hidden = f.clockPreset.value !== "custom";
    if (f.clockPreset.value !== "custom") f.clock.value = f.clockPreset.value;
  });
  f.title = h("input#title", { maxlength: 80 });
  f.bots = h("input#bots", { type: "number", min: 0, max: 7, value: 0 });
  f.private = h("input#private", { type: "checkbox" });
  f.komi = h("input#komi", { placeholder: "the ruleset's", inputmode: "decimal" });
  f.handicap = h("input#handicap", { type: "number", min: 0, max: 25, value: 0 });
  f.hmode = h("select#handicap-mode", {}, [["fixed", "fixed points"], ["free", "free placement"]].map(([v, t]) => h("option", { value: v }, t)));
  f.options = h("input#options", { placeholder: '{"no_result_at": 4}', "aria-label": "other ruleset options as JSON" });
  const advanced = h("details.advanced", {}, h("summary", {}, "Advanced: komi, handicap, other ruleset options"),
    field("Komi", f.komi), field("Handicap", f.handicap), field("Placement", f.hmode),
    field("Ruleset options", f.options, h("span.hint", {}, "JSON, by the engine's names (docs/rules)")));
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
    const settings = readSettings(f, error);
    if (!settings) return;
    try {
      const created = await app.conn.request("create", { settings });
      const invite = created.invite ? `?invite=${encodeURIComponent(created.invite)}` : "";
      await app.conn.request("sit", { room: created.room, seat: 0 });
      location.hash = `#/room/${created.room}${invite}`;
    } catch (err) {
      error.textContent = `${err.message}` + (err.field ? ` (${err.field})` : "");
    }
  };
  return h("section.panel.create", {}, h("h2", {}, "Create a room"),
    h("form#create-form", { onsubmit: submit },
      field("Rules", f.rules), rulesHelp, field("Board", f.boardKind), boardRow, field("Players", f.players),
      field("Clock", f.clockPreset), clockCustom, field("House bots", f.bots), field("Title", f.title), field("Private", f.private),
      advanced, h("button#create", { type: "submit" }, "Create and sit"), error));
}

// The form's values as `create` settings, or null with the reason shown in `error`.
function readSettings(f, error) {
  const k = f.boardKind.value;
  let board;
  try {
    board = k === "size" ? f.size.value : k === "wxh" ? f.wxh.value.trim() : k === "torus" ? `torus:${f.wxh.value.trim()}`
      : k === "graph" ? f.graph.value : JSON.parse(f.json.value);
  } catch (err) { error.textContent = `the board JSON does not parse: ${err.message}`; return null; }
  const settings = { rules: f.rules.value, board, players: +f.players.value };
  if (f.komi.value.trim()) settings.komi = +f.komi.value;
  if (+f.handicap.value) { settings.handicap = +f.handicap.value; settings.handicap_mode = f.hmode.value; }
  const clock = f.clockPreset.value === "custom" ? f.clock.value.trim() : f.clockPreset.value;
  if (clock) settings.clock = clock;
  if (f.private.checked) settings.private = true;
  if (f.title.value.trim()) settings.title = f.title.value.trim();
  if (+f.bots.value) settings.bots = +f.bots.value;
  if (f.options.value.trim()) {
    try { settings.options = JSON.parse(f.options.value); } catch (err) { error.textContent = `options: ${err.message}`; return null; }
  }
  return settings;
}
