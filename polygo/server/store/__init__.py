"""The durable history, on SQLite or PostgreSQL, behind one `Store`.

Here: the commit engine (``commits.py``: group commit, savepoint retries, the down state,
fencing), SQLite's writer (``writer.py``, ``sqlite.py``), PostgreSQL (``postgres.py``), the schema
and its migrations (``schema.py``), one module of queries per table (``tables/``), the checks a
value passes before a write (``values.py``), cluster leases (``lease.py``), backups, the database
file's lock and the WAL check.

The only room that writes SQL. It imports `ops` (events, flags) and nothing else of the server:
rooms, finding and the hub call it, never the other way.
"""
