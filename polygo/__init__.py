"""polygo: a game server for Go and its relatives.

    polygo.rules      the rules engine, a pure library: boards, positions, rulesets, games, scoring
    polygo.protocol   the wire: messages, validation, error codes (imports polygo.rules only)
    polygo.server     `polygo-server`: websockets, sessions, rooms, clocks, the store
    polygo.client     `polygo`: terminal client, bot SDK, built-in bot, GTP bridge

The arrows point one way: rules <- protocol <- server, and protocol <- client; the server and
the client never import each other (tests/test_import_graph.py).
"""
