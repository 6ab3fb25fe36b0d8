"""The garbage collector's settings for a process that does nothing but serve.

They change the whole process, so only `polygo-server`'s entry point applies them (and the
benchmarks that measure it); a program or test that embeds `Server` keeps its own collector.
"""

from __future__ import annotations

import gc

GC_THRESHOLDS = (50_000, 20, 100)
"""Every move leaves a few objects alive (its event in the resync window, its row); with the default
thresholds the collector's full passes over all games' state stall every room at once, as the p99
move latency shows (docs/performance.md). Collect young objects less often instead."""


def tune_for_serving() -> None:
    """Raise the collector's thresholds, and move everything alive now (the modules, the rooms
    resumed at the start) out of its passes for good: call it once the server is ready."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
