"""Fixtures of the cluster tests: three `python -m polygo.server` nodes on one private PostgreSQL
database behind a real HAProxy running deploy/haproxy/haproxy.cfg, all on loopback ports
(tests/haproxy_cluster.py).

Without HAProxy the tests are skipped, except under CI (CI=true), where .ci/run installs it.
"""

from __future__ import annotations

import pytest

from tests.haproxy_cluster import LEASE, NODES, ROOT, Cluster, start_cluster

__all__ = ["LEASE", "ROOT", "Cluster"]


@pytest.fixture
async def cluster(postgres_url):
    running = start_cluster(postgres_url)
    try:
        for node in NODES:
            await running.ready(node)
        yield running
    finally:
        running.stop()
