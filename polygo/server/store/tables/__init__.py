"""One module per table: its class of queries on the commit engine and the statements its writes
name (``WRITES``). `polygo.server.store.Store` has every class as a base; a new table adds its
module here and its class there (tests/server/store/test_store_layout.py checks both).
"""
