"""polygo's game server: the websocket endpoint, rooms, finding games, and the store.

Its rooms are folders, each with its own page saying what lives there and what it may import;
docs/architecture.md draws them and follows one move through. At the top sits the assembly a
newcomer opens first: `__main__` (the command), `app` (the `Server`), `config`, `hub` (the room
table), `connection` (one client's requests) and `admin`.

Run it with `polygo-server` (or `python -m polygo.server`); embed it with `polygo.server.app.Server`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("polygo")
    """The installed polygo's version: what `--version`, `welcome.server` and `polygo_build_info` say."""
except PackageNotFoundError:     # run from a source tree that was never installed
    VERSION = "0+unknown"
