// Profiles (#/player/NAME) and a pool's page (#/pool/POOL: its leaderboard, and for an arena who
// is in it now and its games to download), read from the server's HTTP JSON (docs/pools.md,
// "HTTP"): the same stored data the wire's listings read.

import { h } from "./dom.js";
import { ruleName } from "./rulesets.js";

// A registered player's name as a link to his profile (guests have none).
export function playerLink(name) {
  return h("a.player-link", { href: `#/player/${encodeURIComponent(name)}` }, name);
}

async function getJSON(path) {
  const resp = await fetch(path, { cache: "no-store" });
  const body = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(body.message || `${resp.status} ${resp.statusText}`);
  return body;
}

// "1012?" for a provisional rating.
export function ratingText(r) { return `${r.rating}${r.provisional ? "?" : ""}`; }

const when = (t) => (t ? new Date(t * 1000).toLocaleString() : "");
const place = (n, of) => `${n}${n === 1 ? "st" : n === 2 ? "nd" : n === 3 ? "rd" : "th"} of ${of}`;
const signed = (d) => (d > 0 ? `+${d}` : `${d}`);

function table(cls, heads, rows, empty) {
  if (!rows.length) return h("p.none", {}, empty);
  return h(`table.list.${cls}`, {}, h("thead", {}, h("tr", {}, heads.map((t) => h("th", {}, t)))), h("tbody", {}, rows));
}

export async function playerPage(app, name) {
  const root = h("div.profile", {}, h("a.back", { href: "#/" }, "← lobby"), h("h2", {}, name));
  let p;
  try { p = await getJSON(`/api/players/${encodeURIComponent(name)}`); } catch (e) {
    root.append(h("p.error", {}, `${e.message}: only registered players have a profile.`));
    return root;
  }
  const ratings = Object.entries(p.ratings).map(([pool, r]) => h("tr", { "data-pool": pool },
    h("td", {}, h("a.pool-link", { href: `#/pool/${pool}` }, pool)),
    h("td.rating", { title: r.provisional ? "provisional: few games yet" : null }, ratingText(r)),
    h("td", {}, r.mu.toFixed(2)), h("td", {}, r.sigma.toFixed(2)), h("td", {}, `${r.games}`), h("td", {}, `${r.wins}`)));
  const change = new Map(p.history.map((c) => [c.room, c]));
  const history = p.history.map((c) => h("tr", { "data-room": c.room },
    h("td", {}, when(c.finished)), h("td", {}, c.pool), h("td", {}, h("a.replay-link", { href: `#/replay/${c.room}` }, c.room)),
    h("td", {}, `${c.rank}`), h("td.change", {}, `${c.before} → ${c.after} (${signed(c.after - c.before)})`)));
  const recent = p.recent.map((g) => {
    const c = change.get(g.room);
    const others = g.seats.map((n, i) => (i === g.seat || !n ? null : n)).filter(Boolean);
    return h("tr", { "data-room": g.room },
      h("td", {}, h("a.replay-link", { href: `#/replay/${g.room}` }, when(g.finished))),
      h("td", {}, g.pool || ruleName(g.rules)),
      h("td.result", {}, `${place(g.place, g.seats.length)} (${g.reason})`),
      h("td", {}, others.flatMap((n, i) => (i ? [", ", playerLink(n)] : [playerLink(n)]))),
      h("td", {}, c ? `${signed(c.after - c.before)}` : "unrated"),
      h("td", {}, h("a.dl-json", { href: g.record, download: `polygo-${g.room}.json` }, "JSON")));
  });
  root.append(
    h("section.panel", {}, h("h3", {}, "Ratings"),
      table("ratings", ["pool", "rating", "mu", "sigma", "games", "wins"], ratings, "No rated game yet."),
      h("p.hint", {}, "The rating is 1000 + 40 × (mu − 3 sigma); “?” marks it provisional while sigma is above 5.")),
    h("section.panel", {}, h("h3", {}, "Recent games"),
      table("recent", ["finished", "game", "result", "opponents", "rating", ""], recent, "No finished game yet.")),
    h("section.panel", {}, h("h3", {}, "Rating history"),
      table("history", ["finished", "pool", "game", "place", "rating"], history, "No rated game yet.")));
  return root;
}

export async function poolPage(app, name) {
  const root = h("div.pool-page", {}, h("a.back", { href: "#/" }, "← lobby"));
  let pool, standings, games;
  try {
    pool = (await getJSON("/api/pools")).pools.find((p) => p.name === name);
    if (!pool) throw new Error(`no pool ${name}`);
    [standings, games] = await Promise.all([getJSON(`/api/pools/${name}/standings?limit=100`), getJSON(`/api/pools/${name}/games?limit=50`)]);
  } catch (e) {
    root.append(h("p.error", {}, e.message));
    return root;
  }
  const rows = standings.standings.map((s) => h("tr", { "data-player": s.player },
    h("td", {}, `${s.rank}`), h("td", {}, playerLink(s.player)),
    h("td.rating", {}, ratingText(s)), h("td", {}, s.mu.toFixed(2)), h("td", {}, s.sigma.toFixed(2)),
    h("td.games", {}, `${s.games}`), h("td.wins", {}, `${s.wins}`), h("td", {}, when(s.last_played)),
    pool.arena ? h("td.in-arena", {}, s.in_arena ? "in the arena" : "") : null));
  const heads = ["#", "player", "rating", "mu", "sigma", "games", "wins", "last played"].concat(pool.arena ? [""] : []);
  const gameRows = games.games.map((g) => h("tr", { "data-room": g.room },
    h("td", {}, h("a.replay-link", { href: `#/replay/${g.room}` }, when(g.finished))),
    h("td", {}, g.players.map((p, i) => `${p} #${g.ranks[i]}`).join(", ")),
    h("td", {}, h("a.dl-json", { href: g.json, download: `polygo-${g.room}.json` }, "JSON"),
      g.sgf ? [" ", h("a.dl-sgf", { href: g.sgf, download: `polygo-${g.room}.sgf` }, "SGF")] : null)));
  root.append(
    h("h2", {}, pool.title || pool.name),
    h("p", {}, `${ruleName(pool.rules)}, ${pool.players} players, ${pool.board}, ${pool.clock || "no clock"}; `,
      pool.rated ? "rated" : "unrated", pool.arena ? `; arena: ${pool.in_arena} playing now` : "", `; ${pool.seeking} seeking`),
    h("section.panel", {}, h("h3", {}, pool.arena ? "Arena standings" : "Leaderboard"),
      table("standings", heads, rows, "Nobody has played a rated game here yet.")),
    h("section.panel", {}, h("h3", {}, "Latest games"),
      h("p", {}, h("a.dl-archive", { href: games.archive, download: `polygo-${name}.zip` }, "Download the latest 100 games (zip)")),
      table("pool-games", ["finished", "players", "download"], gameRows, "No rated game yet.")));
  return root;
}
