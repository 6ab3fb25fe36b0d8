"""Background tasks that nobody awaits, kept alive until they finish.

The event loop holds only weak references to tasks: a task started with `create_task` and not
stored anywhere may be garbage-collected before it is done. `spawn` keeps a strong reference.
"""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine

_running: set[asyncio.Task[Any]] = set()


def spawn(coro: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    task = asyncio.create_task(coro)
    _running.add(task)
    task.add_done_callback(_running.discard)
    return task
