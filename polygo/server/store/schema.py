"""The store's tables, written once for SQLite and once for PostgreSQL, side by side.

Both databases hold the same tables with the same columns, so one set of queries (``polygo.server.store``
and its tables' modules) serves both; only the column types differ where the two disagree: SQLite's ``REAL`` times are
PostgreSQL's ``double precision``, its ``INTEGER`` (64 bits) is ``bigint``, and PostgreSQL's text
keys are ``COLLATE "C"`` so that rooms sort by their bytes as in SQLite, whatever the database's
locale. ``user`` is quoted because PostgreSQL reserves the word.

PostgreSQL also holds cluster mode's leases (``lease.py``): the ``nodes`` table and each room's
``owner_node``/``owner_epoch``. A SQLite file has one server, so it has neither; since no
PostgreSQL database predates cluster mode, they are in its first migration.

Each migration takes the schema from version i to i + 1; both lists always have the same length.
"""

from __future__ import annotations

SCHEMA_VERSION = 7

SQLITE_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE users (name TEXT PRIMARY KEY, password_hash TEXT NOT NULL, created_at REAL NOT NULL)",
        'CREATE TABLE sessions (token TEXT PRIMARY KEY, name TEXT NOT NULL, "user" TEXT,'
        " created_at REAL NOT NULL)",
        "CREATE TABLE rooms (room_id TEXT PRIMARY KEY, settings TEXT NOT NULL, owner TEXT NOT NULL,"
        " invite TEXT, version INTEGER NOT NULL, clocks TEXT, created_at REAL NOT NULL,"
        " updated_at REAL NOT NULL)",
        "CREATE TABLE seats (room_id TEXT NOT NULL, seat INTEGER NOT NULL, token TEXT,"
        " PRIMARY KEY (room_id, seat)) WITHOUT ROWID",
        "CREATE TABLE moves (room_id TEXT NOT NULL, idx INTEGER NOT NULL, seat INTEGER NOT NULL,"
        " move TEXT NOT NULL, seq INTEGER, version INTEGER NOT NULL, rescinded INTEGER NOT NULL DEFAULT 0,"
        " PRIMARY KEY (room_id, idx)) WITHOUT ROWID",
        "CREATE TABLE events (room_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,"
        " PRIMARY KEY (room_id, version)) WITHOUT ROWID",
        "CREATE TABLE results (room_id TEXT PRIMARY KEY, body TEXT NOT NULL, finished_at REAL NOT NULL)",
        "CREATE INDEX results_by_time ON results (finished_at DESC)",
    ),
    (   # 2: look-alike names are found by their skeleton; sessions expire when idle and can be revoked;
        "ALTER TABLE users ADD COLUMN skeleton TEXT",
        "UPDATE users SET skeleton = name_skeleton(name)",
        "CREATE INDEX users_by_skeleton ON users (skeleton)",
        "ALTER TABLE sessions ADD COLUMN last_seen REAL",
        "ALTER TABLE sessions ADD COLUMN revoked_at REAL",
        "UPDATE sessions SET last_seen = created_at",
        "CREATE INDEX sessions_by_last_seen ON sessions (last_seen) WHERE revoked_at IS NULL",
        'CREATE INDEX sessions_by_user ON sessions ("user") WHERE "user" IS NOT NULL',
        # chat lines are kept for a while only: when each was said (NULL for the other events)
        "ALTER TABLE events ADD COLUMN chat_at REAL",
        "UPDATE events SET chat_at = (SELECT updated_at FROM rooms WHERE rooms.room_id = events.room_id)"
        " WHERE json_extract(body, '$.kind') = 'chat'",
        "CREATE INDEX events_by_chat_at ON events (chat_at) WHERE chat_at IS NOT NULL",
    ),
    (   # 3: events in a rowid table, found by a unique index on (room_id, version). A WITHOUT ROWID
        # table keeps whole rows in its b-tree's interior pages too, and SQLite advises against it for
        # rows over a twentieth of a page: a move's event is some 250 bytes. There each room's events
        # fill and split their own leaf every few moves, every one a page the commit writes;
        # appended in rowid order, a batch's events share a few pages and only the index's small
        # entries are spread by room.
        "CREATE TABLE events_by_rowid (room_id TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,"
        " chat_at REAL)",
        "INSERT INTO events_by_rowid (room_id, version, body, chat_at)"
        " SELECT room_id, version, body, chat_at FROM events ORDER BY room_id, version",
        "DROP TABLE events",
        "ALTER TABLE events_by_rowid RENAME TO events",
        "CREATE UNIQUE INDEX events_by_room ON events (room_id, version)",
        "CREATE INDEX events_by_chat_at ON events (chat_at) WHERE chat_at IS NOT NULL",
    ),
    (   # 4: the operator's bans (polygo/server/accounts/bans.py): kind "name" (a name's skeleton) or "address" (a network)
        "CREATE TABLE bans (kind TEXT NOT NULL, value TEXT NOT NULL, shown TEXT NOT NULL, reason TEXT NOT NULL,"
        " created_at REAL NOT NULL, PRIMARY KEY (kind, value)) WITHOUT ROWID",
    ),
    (   # 5: a calendar clock's deadline (correspondence): the wall-clock instant the mover's flag
        # falls, so the sweeper finds games overdue whether or not they are in memory (deadlines.py);
        # and the seat to move, so a player's games are listed from the store (my_games.py), found
        # by the seats' tokens (an index: a scan of every seat grows with the games stored)
        "ALTER TABLE rooms ADD COLUMN deadline REAL",
        "ALTER TABLE rooms ADD COLUMN turn INTEGER",
        "CREATE INDEX rooms_by_deadline ON rooms (deadline) WHERE deadline IS NOT NULL",
        "CREATE INDEX seats_by_token ON seats (token)",
        # an unfinished game's seat to move is its last event's `to_move`, as `Store.record` keeps it
        "UPDATE rooms SET turn = (SELECT json_extract(e.body, '$.to_move') FROM events e"
        " WHERE e.room_id = rooms.room_id AND json_type(e.body, '$.to_move') IS NOT NULL"
        " ORDER BY e.version DESC LIMIT 1) WHERE room_id NOT IN (SELECT room_id FROM results)",
    ),
    (   # 6: ratings per pool (ratings.py): each player's current one, the rated games in the order
        # they were rated (a rebuild replays them), and each seat's change in each game
        "CREATE TABLE ratings (pool TEXT NOT NULL, player TEXT NOT NULL, mu REAL NOT NULL, sigma REAL NOT NULL,"
        " games INTEGER NOT NULL, wins INTEGER NOT NULL, updated_at REAL NOT NULL,"
        " PRIMARY KEY (pool, player)) WITHOUT ROWID",
        "CREATE INDEX ratings_by_player ON ratings (player)",
        "CREATE TABLE rated_games (seq INTEGER PRIMARY KEY, room_id TEXT NOT NULL UNIQUE,"
        " pool TEXT NOT NULL, finished_at REAL NOT NULL)",
        "CREATE INDEX rated_games_by_pool ON rated_games (pool, seq)",
        "CREATE TABLE rating_changes (room_id TEXT NOT NULL, seat INTEGER NOT NULL, pool TEXT NOT NULL,"
        " player TEXT NOT NULL, rank INTEGER NOT NULL, mu_before REAL NOT NULL, sigma_before REAL NOT NULL,"
        " mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (room_id, seat)) WITHOUT ROWID",
        "CREATE INDEX rating_changes_by_player ON rating_changes (player, pool)",
    ),
    (   # 7: a room's settings in a table of their own: every change of a room updates its row in
        # ``rooms``, and SQLite writes a changed row whole, so settings kept there (64 KiB for a
        # 1,024-point lattice) would be written again with every move
        "CREATE TABLE room_settings (room_id TEXT PRIMARY KEY, settings TEXT NOT NULL)",
        "INSERT INTO room_settings (room_id, settings) SELECT room_id, settings FROM rooms",
        "ALTER TABLE rooms DROP COLUMN settings",
    ),
)

POSTGRES_MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        'CREATE TABLE users (name text COLLATE "C" PRIMARY KEY, password_hash text NOT NULL,'
        " created_at double precision NOT NULL)",
        'CREATE TABLE sessions (token text COLLATE "C" PRIMARY KEY, name text NOT NULL, "user" text,'
        " created_at double precision NOT NULL)",
        'CREATE TABLE rooms (room_id text COLLATE "C" PRIMARY KEY, settings text NOT NULL, owner text NOT NULL,'
        " invite text, version bigint NOT NULL, clocks text, created_at double precision NOT NULL,"
        ' updated_at double precision NOT NULL, owner_node text COLLATE "C", owner_epoch bigint)',
        'CREATE TABLE seats (room_id text COLLATE "C" NOT NULL, seat bigint NOT NULL, token text,'
        " PRIMARY KEY (room_id, seat))",
        'CREATE TABLE moves (room_id text COLLATE "C" NOT NULL, idx bigint NOT NULL, seat bigint NOT NULL,'
        " move text NOT NULL, seq bigint, version bigint NOT NULL, rescinded integer NOT NULL DEFAULT 0,"
        " PRIMARY KEY (room_id, idx))",
        'CREATE TABLE events (room_id text COLLATE "C" NOT NULL, version bigint NOT NULL, body text NOT NULL,'
        " PRIMARY KEY (room_id, version))",
        'CREATE TABLE results (room_id text COLLATE "C" PRIMARY KEY, body text NOT NULL,'
        " finished_at double precision NOT NULL)",
        "CREATE INDEX results_by_time ON results (finished_at DESC)",
        'CREATE TABLE nodes (node_id text COLLATE "C" PRIMARY KEY, epoch bigint NOT NULL, url text NOT NULL,'
        " expires_at timestamptz NOT NULL)",
        "CREATE INDEX rooms_by_owner ON rooms (owner_node)",
    ),
    (   # 2: as SQLite's; no PostgreSQL database with users predates it, so skeletons need no backfill
        "ALTER TABLE users ADD COLUMN skeleton text",
        "CREATE INDEX users_by_skeleton ON users (skeleton)",
        "ALTER TABLE sessions ADD COLUMN last_seen double precision",
        "ALTER TABLE sessions ADD COLUMN revoked_at double precision",
        "UPDATE sessions SET last_seen = created_at",
        "CREATE INDEX sessions_by_last_seen ON sessions (last_seen) WHERE revoked_at IS NULL",
        'CREATE INDEX sessions_by_user ON sessions ("user") WHERE "user" IS NOT NULL',
        "ALTER TABLE events ADD COLUMN chat_at double precision",
        "UPDATE events SET chat_at = (SELECT updated_at FROM rooms WHERE rooms.room_id = events.room_id)"
        " WHERE body::json->>'kind' = 'chat'",
        "CREATE INDEX events_by_chat_at ON events (chat_at) WHERE chat_at IS NOT NULL",
    ),
    (),     # 3: SQLite's alone (its events moved to a rowid table); PostgreSQL's tables are heaps already
    (   # 4: as SQLite's
        'CREATE TABLE bans (kind text COLLATE "C" NOT NULL, value text COLLATE "C" NOT NULL, shown text NOT NULL,'
        " reason text NOT NULL, created_at double precision NOT NULL, PRIMARY KEY (kind, value))",
    ),
    (   # 5: as SQLite's
        "ALTER TABLE rooms ADD COLUMN deadline double precision",
        "ALTER TABLE rooms ADD COLUMN turn bigint",
        "CREATE INDEX rooms_by_deadline ON rooms (deadline) WHERE deadline IS NOT NULL",
        "CREATE INDEX seats_by_token ON seats (token)",
        "UPDATE rooms SET turn = (SELECT (e.body::jsonb ->> 'to_move')::bigint FROM events e"
        " WHERE e.room_id = rooms.room_id AND e.body::jsonb -> 'to_move' IS NOT NULL"
        " ORDER BY e.version DESC LIMIT 1) WHERE room_id NOT IN (SELECT room_id FROM results)",
    ),
    (   # 6: as SQLite's, and the finder's row (cluster mode)
        'CREATE TABLE ratings (pool text COLLATE "C" NOT NULL, player text COLLATE "C" NOT NULL,'
        " mu double precision NOT NULL, sigma double precision NOT NULL, games bigint NOT NULL,"
        " wins bigint NOT NULL, updated_at double precision NOT NULL, PRIMARY KEY (pool, player))",
        "CREATE INDEX ratings_by_player ON ratings (player)",
        "CREATE TABLE rated_games (seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
        ' room_id text COLLATE "C" NOT NULL UNIQUE, pool text COLLATE "C" NOT NULL,'
        " finished_at double precision NOT NULL)",
        "CREATE INDEX rated_games_by_pool ON rated_games (pool, seq)",
        'CREATE TABLE rating_changes (room_id text COLLATE "C" NOT NULL, seat bigint NOT NULL,'
        ' pool text COLLATE "C" NOT NULL, player text COLLATE "C" NOT NULL, rank bigint NOT NULL,'
        " mu_before double precision NOT NULL, sigma_before double precision NOT NULL,"
        " mu double precision NOT NULL, sigma double precision NOT NULL, PRIMARY KEY (room_id, seat))",
        "CREATE INDEX rating_changes_by_player ON rating_changes (player, pool)",
        # the node that finds games for the cluster (polygo/server/cluster/finder.py): one row, a lease like a room's
        'CREATE TABLE finder (id integer PRIMARY KEY CHECK (id = 1), node_id text COLLATE "C" NOT NULL,'
        " epoch bigint NOT NULL)",
    ),
    (   # 7: as SQLite's (one set of queries for both databases)
        'CREATE TABLE room_settings (room_id text COLLATE "C" PRIMARY KEY, settings text NOT NULL)',
        "INSERT INTO room_settings (room_id, settings) SELECT room_id, settings FROM rooms",
        "ALTER TABLE rooms DROP COLUMN settings",
    ),
)


class SchemaTooNew(Exception):
    """The database was written by a newer polygo; the store turns this into its own error."""

    def __init__(self, found: int) -> None:
        super().__init__(found)
        self.found = found
