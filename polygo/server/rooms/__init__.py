"""A room and what lives in it: the game's set-up from its settings (``games.py``), the room with
its one-request-at-a-time lock (``room.py``), clocks, the window of recent events for a resync,
presence, the lobby's listing, resent moves, the correspondence deadline sweeper, a player's list
of games, and the house bot's seats as the lists name them. Above single rooms: the room table
with who sits where and the limits on rooms in memory (``table.py``), the evictions and expiries
that take rooms out of memory (``evictions.py``), the lists of rooms and finished games
(``listings.py``) and the export of a game's record (``exports.py``); the hub puts them together.

A room reaches the server around it only through `room.RoomHost`, the protocol the hub fulfils;
the evictions through `evictions.EvictionHost`.
Imports `accounts`, `limits`, `net`, `ops` and `store`; never the hub, `house` or `finding`.
"""
