"""polygo's game server: websockets endpoint, sessions, rooms, clocks and the SQLite store.

Run it with `polygo-server` (or `python -m polygo.server`); embed it with `polygo.server.app.Server`.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("polygo")
    """The installed polygo's version: what `--version`, `welcome.server` and `polygo_build_info` say."""
except PackageNotFoundError:     # run from a source tree that was never installed
    VERSION = "0+unknown"
