"""What one address, one user or one creator may cost the server: token buckets and tallies, client
addresses behind trusted proxies, the bytes an address may make the server decode, what each one
holds in memory.

Pure bookkeeping: nothing here knows websockets, the store or a room, so every other room can
count with it. It imports nothing of the server.
"""
