// The rulesets by their names, each with a line of help: what a player needs to know before
// choosing one (the lobby) or when reading a room (its header). The codes are the server's.

export const RULES = [
  ["kee", "Kee (2016)", "any number of players; a repeated position is prohibited, but a player may appeal, and an appealed stone can be rescinded"],
  ["chinese", "Chinese", "area scoring, positional superko, komi 7.5; 2 or more players"],
  ["japanese", "Japanese", "territory and prisoners, simple ko, komi 6.5; 2 players"],
  ["aga", "AGA", "area scoring, situational superko, komi 7.5; 2 players"],
  ["tromp-taylor", "Tromp-Taylor", "area scoring, positional superko, suicide allowed, every stone alive at the end; 2 or more players"],
  ["lasker-maas", "Lasker-Maas (1995)", "2 players; after two passes, phase 2 draws each player's stones from the prisoners' place"],
  ["nieminen", "Nieminen (2004)", "2 players; territory scoring, a disputed chain is played out on the board"],
  ["hansen-sst", "Hansen's SST ko rules (1996)", "2 players; precise ko rules (cycle sets, disallowed captures) with area scoring"],
  ["jasiek-nkr", "Jasiek's New Ko Rules (1998)", "2 players; each ko is analysed and barred by its own rules (basic, fighting, disturber)"],
];

const find = (code) => RULES.find(([c]) => c === code);

// "Kee (2016)" for "kee"; an unknown code as it is.
export function ruleName(code) { return find(code) ? find(code)[1] : code; }

// The ruleset's line of help, or "".
export function ruleHelp(code) { return find(code) ? find(code)[2] : ""; }
