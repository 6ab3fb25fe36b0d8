// Small DOM helpers: h("div.class", {attrs}, ...children). Text is always set as text, never as
// HTML, so names and chat cannot inject markup.

export function h(tag, attrs = {}, ...children) {
  const name = tag.match(/^[a-z0-9]*/i)[0];
  const id = (tag.match(/#([\w-]+)/) || [])[1];
  const classes = [...tag.matchAll(/\.([\w-]+)/g)].map((m) => m[1]);
  const node = document.createElement(name || "div");
  if (id) node.id = id;
  if (classes.length) node.className = classes.join(" ");
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "value") node.value = v;
    else if (k === "checked") node.checked = !!v;
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return node;
}

export function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// Clock text for one seat `s` ({main, periods, period_left, stones_left}) under settings `c`.
export function clockText(c, s) {
  if (!c || c.kind === "none" || !s) return "";
  const fmt = (t) => {
    t = Math.max(0, t);
    const m = Math.floor(t / 60), sec = Math.floor(t % 60);
    return m >= 60 ? `${Math.floor(m / 60)}:${String(m % 60).padStart(2, "0")}:${String(sec).padStart(2, "0")}`
      : `${m}:${String(sec).padStart(2, "0")}`;
  };
  const main = s.main ?? 0;
  if (c.kind === "byoyomi") {
    if (main > 0) return `${fmt(main)} +${s.periods}×${c.period}s`;
    return `${fmt(s.period_left ?? 0)} ×${s.periods}`;
  }
  if (c.kind === "canadian") {
    if (main > 0) return `${fmt(main)} +${fmt(c.period)}/${c.stones}`;
    return `${fmt(s.period_left ?? 0)} /${s.stones_left}`;
  }
  if (c.kind === "fischer") return `${fmt(main)} +${c.increment}s`;
  if (c.kind === "corr" && main >= 86400) return `${Math.floor(main / 86400)}d ${fmt(main % 86400)}`;
  return fmt(main);
}

// The running seat's clock `elapsed` seconds after the report, with the server's arithmetic:
// main time first, then the current period, then (byo-yomi) the next periods.
export function tick(c, s, elapsed) {
  if (!s || !c || c.kind === "none") return s;
  let { main, periods, period_left: left, stones_left } = s;
  main = main ?? 0;
  let rest = elapsed;
  const fromMain = Math.min(main, rest);
  main -= fromMain; rest -= fromMain;
  if (rest > 0 && (c.kind === "byoyomi" || c.kind === "canadian")) {
    left = left ?? c.period;
    while (rest > 0) {
      const used = Math.min(left, rest);
      left -= used; rest -= used;
      if (left <= 0 && c.kind === "byoyomi" && periods > 1 && rest > 0) { periods -= 1; left = c.period; }
      else if (left <= 0) break;
    }
  }
  return { main, periods, period_left: left, stones_left };
}
