"""Finding games: pools, seeks, challenges, the arena, the matcher, and ratings (openskill's
Plackett-Luce) with their stored standings and history.

A match becomes a room through the hub (`seeks.FindingHost`). Imports `rooms`, `net`, `accounts`,
`limits` and `store`.
"""
