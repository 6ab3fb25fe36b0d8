"""The house bot: the server's own player in a room's last seats, its play, its reading of life
and death, its marks in the marking phase.

It plays through `Room.call` like a client. Imports `rooms`, `accounts` and `store`.
"""
