"""polygo's players' tools: the terminal client, the bot SDK, the built-in bot and the GTP bridge.

It talks to a polygo server through `protocol` and decides with `polygo.rules`; it never imports the
server (a local server is started as a subprocess when one is needed).
"""
