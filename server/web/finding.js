// Finding games on the page: the pools with a seek button each, challenges sent and received, a
// pool's leaderboard (#/pool/NAME, its arena's standings and archive) and a player's profile
// (#/player/NAME). Seeks and challenges go over the websocket (docs/pools.md); the leaderboard
// and the profile are read from the server's HTTP JSON (/api/...).

import { h } from "./dom.js";
import { ruleName } from "./rulesets.js";

// The server pushes `matched` (a room was started for you) and `challenge` (one of yours changed)
// at any time: the first opens the room, the second redraws the challenges' list.
export class Finding {
  constructor(app) {
    this.app = app;
    this.seeking = null;            // the pool (or "custom") this page seeks, while it does
    this.challenges = new Map();    // id -> the challenge as it stands
    this.redraw = () => {};
  }

  pushed(message) {
    if (message.type === "matched") {
      this.seeking = null;
      location.hash = `#/room/${message.room}`;
    } else if (message.type === "challenge") {
      this.challenges.set(message.challenge.id, message.challenge);
      this.redraw();
    }
  }

  async follow() {
    try {
      for (const c of (await this.app.conn.request("challenges")).challenges) this.challenges.set(c.id, c);
    } catch (e) { /* reconnecting: asked again when the lobby is next shown */ }
    this.redraw();
  }

  // The lobby's panel: one row per pool, a seek button each, and the challenge form and list.
  panel() {
    const pools = h("div#pools", {}, h("p", {}, "loading…"));
    const challenges = h("div#challenges");
    const note = h("p.notice#finding-note", { role: "status" });
    const form = challengeForm(this, note);
    this.redraw = () => challenges.replaceChildren(challengeList(this, note));
    getJSON("/api/pools").then((data) => {
      pools.replaceChildren(poolTable(this, data.pools, note));
      form.setPools(data.pools);
    }).catch(() => pools.replaceChildren(h("p", {}, "The pools could not be read.")));
    this.follow();
    return h("section.panel.finding", {}, h("h2", {}, "Find a game"),
      h("p.hint", {}, "Seek a pool and the server starts a game as soon as enough players seek it; rated pools need a registered name."),
      pools, note, h("h3", {}, "Challenges"), challenges, form.node);
  }
}

function poolTable(finding, pools, note) {
  if (!pools.length) return h("p", {}, "This server has no pools.");
  return h("table.list.pools", {}, h("thead", {}, h("tr", {}, ["pool", "game", "seeking", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, pools.map((p) => {
      const button = h("button.seek", { type: "button", "data-pool": p.name });
      const show = () => {
        const mine = finding.seeking === p.name;
        button.textContent = mine ? "Cancel seek" : p.arena ? "Join arena" : "Seek";
        button.setAttribute("aria-pressed", mine ? "true" : "false");
      };
      button.addEventListener("click", async () => {
        note.textContent = "";
        try {
          if (finding.seeking === p.name) {
            await finding.app.conn.request(p.arena ? "arena" : "unseek", p.arena ? { pool: p.name, join: false } : {});
            finding.seeking = null;
          } else {
            await finding.app.conn.request(p.arena ? "arena" : "seek", p.arena ? { pool: p.name, join: true } : { pool: p.name });
            finding.seeking = p.name;
            note.textContent = `Seeking ${p.title || p.name}: the game opens here when it starts.`;
          }
        } catch (err) { note.textContent = err.message || err.code; }
        for (const b of button.closest("tbody").querySelectorAll("button.seek")) b.dispatchEvent(new Event("redraw"));
      });
      button.addEventListener("redraw", show);
      show();
      return h("tr", { "data-pool": p.name },
        h("td", {}, h("a.pool-link", { href: `#/pool/${encodeURIComponent(p.name)}` }, p.title || p.name)),
        h("td", {}, `${ruleName(p.rules)}, ${p.players || 2} players, ${p.board}, ${p.clock || "no clock"}${p.rated === false ? ", unrated" : ", rated"}`),
        h("td", {}, p.arena ? `${p.in_arena} in the arena` : String(p.seeking)), h("td", {}, button));
    })));
}

function challengeForm(finding, note) {
  const players = h("input#challenge-players", { placeholder: "names, separated by commas", "aria-label": "players to challenge" });
  const pool = h("select#challenge-pool", { "aria-label": "pool of the challenge" });
  const node = h("form#challenge-form", { onsubmit: async (e) => {
    e.preventDefault();
    note.textContent = "";
    const names = players.value.split(",").map((s) => s.trim()).filter(Boolean);
    try {
      const reply = await finding.app.conn.request("challenge", { players: names, pool: pool.value });
      finding.challenges.set(reply.challenge.id, reply.challenge);
      finding.redraw();
      players.value = "";
    } catch (err) { note.textContent = err.message || err.code; }
  } }, h("label", {}, "Challenge ", players), h("label", {}, "to ", pool), h("button", { type: "submit" }, "Send challenge"));
  const setPools = (pools) => pool.replaceChildren(...pools.filter((p) => !p.arena)
    .map((p) => h("option", { value: p.name }, p.title || p.name)));
  return { node, setPools };
}

function challengeList(finding, note) {
  const me = finding.app.welcome ? finding.app.welcome.user || finding.app.welcome.name : null;
  const shown = [...finding.challenges.values()].sort((a, b) => b.expires - a.expires);
  if (!shown.length) return h("p", {}, "No challenge to you or from you.");
  return h("ul.challenges", {}, shown.map((c) => {
    const invited = c.players.some((p) => p.name === me);
    const answer = (accept) => async () => {
      note.textContent = "";
      try { await finding.app.conn.request("challenge_reply", { challenge: c.id, accept }); }
      catch (err) { note.textContent = err.message || err.code; }
    };
    const mineToAnswer = invited && c.status === "open" && !c.players.find((p) => p.name === me).accepted;
    return h("li.challenge", { "data-challenge": c.id, "data-status": c.status },
      `${c.by} → ${c.players.map((p) => p.name + (p.accepted ? " ✓" : "")).join(", ")} · ${c.pool || "custom"}${c.rated ? " (rated)" : ""} · `,
      h("span.challenge-status", {}, c.status),
      c.room ? h("a", { href: `#/room/${c.room}` }, " open the room") : null,
      mineToAnswer ? h("button.accept", { type: "button", onclick: answer(true) }, "Accept") : null,
      mineToAnswer ? h("button.decline", { type: "button", onclick: answer(false) }, "Decline") : null,
      !invited && c.status === "open" ? h("button.withdraw", { type: "button", onclick: answer(false) }, "Withdraw") : null);
  }));
}

async function getJSON(path) {
  const resp = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await resp.json();
  if (!resp.ok) throw body;
  return body;
}

// A rating as people read it: the ordinal, with "?" while it is provisional.
function rating(r) { return `${Math.round(r.rating)}${r.provisional ? "?" : ""}`; }

function playerLink(name) {
  return name ? h("a.player-link", { href: `#/player/${encodeURIComponent(name)}` }, name) : "·";
}

function day(seconds) { return seconds ? new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") : ""; }

// #/pool/NAME: the leaderboard (the arena's standings for an arena pool) and the pool's archive.
export async function poolPage(app, name) {
  const back = h("p", {}, h("a", { href: "#/" }, "← lobby"));
  let standings;
  try { standings = await getJSON(`/api/pools/${encodeURIComponent(name)}/standings?limit=100`); }
  catch (err) { return h("div.pool-page", {}, back, h("p.notice", {}, err.message || "The pool could not be read.")); }
  const rows = standings.standings;
  return h("div.pool-page", {}, back, h("h2", {}, `Leaderboard of ${name}`),
    rows.length ? h("table.list.standings", {}, h("thead", {}, h("tr", {},
      ["#", "player", "rating", "games", "wins", "last played", "in the arena"].map((t) => h("th", {}, t)))),
    h("tbody", {}, rows.map((r) => h("tr", { "data-player": r.player },
      h("td", {}, String(r.rank)), h("td", {}, playerLink(r.player)),
      h("td.rating", { title: `mu ${r.mu.toFixed(2)}, sigma ${r.sigma.toFixed(2)}` }, rating(r)),
      h("td", {}, String(r.games)), h("td", {}, String(r.wins)), h("td", {}, day(r.last_played)),
      h("td", {}, r.in_arena ? "yes" : ""))))) : h("p", {}, "No rated game has been played in this pool yet."),
    h("p.hint", {}, "A rating followed by ? is provisional: it is not sure yet (its sigma is still large)."),
    h("p", {}, h("a#pool-archive", { href: `/api/pools/${encodeURIComponent(name)}/games.zip`, download: "" },
      "Download the pool's latest games (zip: JSON, and SGF for two-player grids)")));
}

// #/player/NAME: ratings per pool, the rating history, and the recent games with their replays.
export async function playerPage(app, name) {
  const back = h("p", {}, h("a", { href: "#/" }, "← lobby"));
  let p;
  try { p = await getJSON(`/api/players/${encodeURIComponent(name)}`); }
  catch (err) { return h("div.player-page", {}, back, h("p.notice", {}, err.message || "The player could not be read.")); }
  const pools = Object.entries(p.ratings);
  return h("div.player-page", {}, back, h("h2", {}, p.name),
    h("h3", {}, "Ratings"),
    pools.length ? h("table.list.ratings", {}, h("thead", {}, h("tr", {}, ["pool", "rating", "mu", "sigma", "games", "wins"].map((t) => h("th", {}, t)))),
      h("tbody", {}, pools.map(([pool, r]) => h("tr", { "data-pool": pool },
        h("td", {}, h("a", { href: `#/pool/${encodeURIComponent(pool)}` }, pool)), h("td.rating", {}, rating(r)),
        h("td", {}, r.mu.toFixed(2)), h("td", {}, r.sigma.toFixed(2)), h("td", {}, String(r.games)), h("td", {}, String(r.wins))))))
      : h("p", {}, "No rated game yet."),
    h("h3", {}, "Rating history"),
    p.history.length ? h("ul.history", {}, p.history.map((e) => h("li", { "data-room": e.room },
      `${day(e.finished)} · ${e.pool} · place ${e.rank} · ${Math.round(e.before)} → ${Math.round(e.after)} `,
      h("a", { href: `#/replay/${e.room}` }, "replay")))) : h("p", {}, "None yet."),
    h("h3", {}, "Recent games"),
    p.recent.length ? h("ul.recent", {}, p.recent.map((g) => h("li", { "data-room": g.room },
      `${day(g.finished)} · ${ruleName(g.rules)}${g.pool ? ` (${g.pool})` : ""} · place ${g.place} (${g.reason}) · with `,
      g.seats.filter((s) => s !== p.name).map((s, i) => [i ? ", " : "", playerLink(s)]), " · ",
      h("a.replay", { href: `#/replay/${g.room}` }, "replay"), " · ",
      h("a", { href: g.record, download: "" }, "JSON")))) : h("p", {}, "None yet."));
}
