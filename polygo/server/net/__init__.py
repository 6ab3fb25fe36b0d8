"""The websocket side of a connection as the rest of the server sees it: a `Peer` to write to,
frames built once for many peers, the quick reading of a client's frames, and the gate (how many
connections, from where, and what a refused handshake is told).

With `http` and the assembly (`connection.py`, `app.py`), the only code that knows websockets.
Imports `accounts`, `limits` and `ops`.
"""
