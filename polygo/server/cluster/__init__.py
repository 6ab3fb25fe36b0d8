"""Cluster mode on PostgreSQL: this node's taking rooms over from dead nodes (``takeover.py``) and
the one node at a time that finds games for the whole cluster (``finder.py``).

Imports `finding`, `rooms`, `net` and `store`; the leases themselves are rows the store writes.
"""
