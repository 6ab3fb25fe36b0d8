"""polygo's game server: websockets endpoint, sessions, rooms, clocks and the SQLite store.

Run it with `polygo-server` (or `python -m server`); embed it with `server.app.Server`.
"""
