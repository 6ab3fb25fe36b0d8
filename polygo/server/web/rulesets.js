// The rulesets the server plays, as it describes them in `welcome.rulesets` (docs/protocol.md):
// each with its title, a line of help (what a player needs to know before choosing one, in the
// lobby, or when reading a room, in its header) and its scoring family. The page keeps no list of
// its own, so a ruleset new on the server is offered and counted here with no change to the page.

let rulesets = [];

// Called with each welcome (a reconnect to an upgraded server may bring new ones).
export function setRulesets(list) { rulesets = Array.isArray(list) ? list : []; }

// [{name, title, help, scoring, ...}] in the server's order.
export function ruleList() { return rulesets; }

const find = (code) => rulesets.find((r) => r.name === code);

// "Kee (2016)" for "kee"; an unknown code as it is.
export function ruleName(code) { const r = find(code); return r ? r.title : code; }

// The ruleset's line of help, or "".
export function ruleHelp(code) { const r = find(code); return r ? r.help : ""; }

// "area", "territory", "lasker-maas" (how the page counts a position), or null.
export function ruleScoring(code) { const r = find(code); return r ? r.scoring : null; }
