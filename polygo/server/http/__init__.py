"""Plain HTTP beside the websocket on the game port: probes and /metrics (``endpoints.py``), the
JSON API of pools, players and records (``api.py``), the web page's files (``webfiles.py``), and
the separate metrics port (``probes.py``).

Above the hub (the API reads its pools and records); imports `accounts`, `limits`, `ops`, `rooms`
and the hub.
"""
