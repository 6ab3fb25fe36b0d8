"""`Store` is the commit engine with each table's queries: every ``polygo/server/store/tables/`` module's
class of queries on `GroupCommit` is one of its bases, and every statement such a module's writes
name is in `Store.WRITES` under a kind no other module uses (a dict union would let one table's
statement silently replace another's)."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from polygo.server.store import Store, tables
from polygo.server.store.commits import GroupCommit

MODULES = [importlib.import_module(f"polygo.server.store.tables.{path.stem}")
           for path in sorted(Path(tables.__file__).parent.glob("*.py")) if path.stem != "__init__"]


def test_every_class_of_queries_on_the_engine_is_a_base_of_the_store():
    assert len(MODULES) == 7
    queries = {cls for module in MODULES for _, cls in inspect.getmembers(module, inspect.isclass)
               if issubclass(cls, GroupCommit) and cls.__module__ == module.__name__}
    assert queries and queries <= set(Store.__bases__)


def test_every_tables_writes_are_in_the_store_under_kinds_of_their_own():
    kinds = [kind for module in MODULES for kind in getattr(module, "WRITES", {})]
    assert len(kinds) == len(set(kinds))
    assert set(kinds) == set(Store.WRITES)
    for module in MODULES:
        for kind, sql in getattr(module, "WRITES", {}).items():
            assert Store.WRITES[kind] == sql
