"""Who a connection speaks for: guest sessions, tokens, registered names.

A session is identified by a random token (`secrets`, 192 bits) that the client keeps; seats are
bound to sessions, so a new connection presenting the token gets its seats back, also after a
server restart (sessions are stored). A registered user logging in gets a fresh session of that
user, and a seat taken by any session of a user belongs to all of them.
"""

from __future__ import annotations

import asyncio
import logging
import math
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

from polygo.protocol import ErrorCode, ProtocolError
from polygo.protocol.names import passes_for_house_bot

from ..limits.ratelimit import Buckets
from ..store import Store, StoreError
from .logins import FAILURE_DELAY, FailureCounter
from .passwords import check_password, hash_password

log = logging.getLogger("polygo.sessions")


@dataclass
class Session:
    """An identity: the secret token, the display name, the registered name if any."""

    token: str
    name: str
    user: str | None = None
    revoked: bool = False
    """Set by a logout or an expiry: connections still holding the session must say hello again."""
    touched: float = 0.0
    """When a resume last recorded the session's use in the store (time.time())."""

    def owns(self, token: str | None, user: str | None) -> bool:
        """Whether a seat bound to (`token`, `user`) is this session's."""
        return token is not None and (token == self.token or (user is not None and user == self.user))


CACHED = 50_000
"""Sessions kept in memory, most recently used first; the others are read back from the store."""

GUEST_BURST = 30
"""Guest sessions one address may open at once before `Config.guest_rate` applies (a class or a
club behind one address opening the page together)."""

REGISTER_BURST = 3
"""Registrations one address may make at once before `Config.register_rate` applies."""

ADDRESSES_TRACKED = 10_000
"""Addresses whose guest and registration rates are remembered at most (`ratelimit.Buckets`)."""

TOUCH_EVERY = 60.0
"""Seconds between two records of one session's use: expiry counts days, a reconnecting client
need not cost a write each time."""


class Sessions:
    """Issues, restores and upgrades sessions; keeps the recently used ones in memory.

    The cache is bounded because every guest `hello` makes a session: a stream of them must not
    grow the server's memory without end (the store keeps them all).
    """

    def __init__(self, store: Store, cached: int = CACHED, *, failures_per_name: int = 5,
                 failures_per_address: int = 20, window: float = 300.0, guest_rate: float = 2.0,
                 register_rate: float = 0.1) -> None:
        self._store = store
        self._cached = cached
        self._cache: OrderedDict[str, Session] = OrderedDict()
        self.failures_by_name = FailureCounter(failures_per_name, window)
        """Failed logins by "address name": a name's guesser is slowed, its owner elsewhere is not."""
        self.failures_by_address = FailureCounter(failures_per_address, window)
        self._touches: set[asyncio.Task[None]] = set()
        self.guest_rates = Buckets(guest_rate, GUEST_BURST, ADDRESSES_TRACKED)
        """Guest sessions by address: each is a stored row, and one address can ask for thousands."""
        self.register_rates = Buckets(register_rate, REGISTER_BURST, ADDRESSES_TRACKED)
        """Registrations by address: each is a stored user and an scrypt hash, deliberately slow
        (a burst of them would slow every bystander's move)."""

    def _remember(self, session: Session) -> Session:
        self._cache[session.token] = session
        self._cache.move_to_end(session.token)
        while len(self._cache) > self._cached:
            self._cache.popitem(last=False)
        return session

    async def new(self, name: str, address: str = "") -> Session:
        """A guest session named `name` (already `clean_name`d), or name-taken if that is or looks
        like a registered name or the house bot's: a guest must not pass for a registered user;
        rate-limited per `address`."""
        _check_rate(self.guest_rates, address, "new guest sessions")
        await self.check_name_free(name)
        session = Session(secrets.token_urlsafe(24), name)
        await self._store.put_session(session.token, name)
        return self._remember(session)

    async def resume(self, token: str) -> Session:
        """The session of `token`, or bad-token."""
        session = self._cache.get(token)
        if session is None:
            row = await self._store.get_session(token)
            if row is None:
                raise ProtocolError(ErrorCode.BAD_TOKEN, "this token names no session (or it was logged out, or "
                                                          "expired unused); say hello with a name or log in")
            session = Session(row["token"], row["name"], row["user"])
        self._touch(session)
        return self._remember(session)

    def _touch(self, session: Session) -> None:
        """Record the session's use (its idle time starts again) without making the hello wait for a
        commit: a resume that waited for one would reach its rooms after their bots had moved."""
        now = time.time()
        if now - session.touched < TOUCH_EVERY:
            return
        session.touched = now
        task = asyncio.get_running_loop().create_task(self._store.touch_session(session.token))
        self._touches.add(task)         # the loop keeps only weak references to tasks
        task.add_done_callback(self._touched)

    def _touched(self, task: asyncio.Task[None]) -> None:
        self._touches.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("could not record a session's use: %s", task.exception())

    async def lookup(self, token: str) -> Session | None:
        """The session of `token` for rebuilding a seat at start-up, or None: also a logged-out one
        (its seat keeps its name), so it is neither cached (to be resumed) nor touched."""
        session = self._cache.get(token)
        if session is not None:
            return session
        found = await self._store.session_name(token)
        return None if found is None else Session(token, found[0], found[1])

    async def login(self, user: str, password: str, address: str = "") -> Session:
        """A new session of the registered `user`, or bad-login; rate-limited after too many
        failures for the name from the address, or from the address (`logins.py`). The attempt
        counts as a failure from before its hashing, so guesses sent together are refused too."""
        now = time.monotonic()
        guess = f"{address} {user}"
        wait = max(self.failures_by_name.wait(guess, now), self.failures_by_address.wait(address, now))
        if wait > 0:
            raise ProtocolError(ErrorCode.RATE_LIMITED, f"too many failed logins for this name or from your "
                                                        f"address; try again in {math.ceil(wait)} s")
        self.failures_by_name.failed(guess, now)
        self.failures_by_address.failed(address, now)
        row = await self._store.get_user(user)
        stored = row["password_hash"] if row else "scrypt$16384$8$1$00$00"
        ok = await asyncio.to_thread(check_password, password, stored)
        if row is None or not ok:
            await asyncio.sleep(FAILURE_DELAY)
            raise ProtocolError(ErrorCode.BAD_LOGIN, "unknown user or wrong password")
        self.failures_by_name.succeeded(guess)
        self.failures_by_address.forgive(address, now)
        session = Session(secrets.token_urlsafe(24), user, user)
        await self._store.put_session(session.token, user, user)
        return self._remember(session)

    async def register(self, session: Session, user: str, password: str, address: str = "") -> None:
        """Register `user` with `password` and make `session` that user's, or name-taken;
        rate-limited per `address`."""
        if session.user is not None:
            raise ProtocolError(ErrorCode.NAME_TAKEN, f"this session is already registered as {session.user!r}")
        _check_rate(self.register_rates, address, "registrations")
        await self.check_name_free(user, field="user")
        digest = await asyncio.to_thread(hash_password, password)
        try:
            await self._store.put_user(user, digest)
        except StoreError as exc:
            if exc.code == "name-taken":
                raise ProtocolError(ErrorCode.NAME_TAKEN, exc.message, field="user") from None
            raise
        await self._store.put_session(session.token, user, user)
        session.name, session.user = user, user

    async def check_name_free(self, name: str, *, mine: str | None = None, field: str = "name") -> None:
        """Name-taken (for the request's `field`) if `name` is, or looks like, a registered name
        other than `mine`, or a name of the house bot: the bot's seats carry no registered user, so a
        person named "bot1" would pass for the server's bot."""
        if passes_for_house_bot(name):
            raise ProtocolError(ErrorCode.NAME_TAKEN, f"{name!r} is, or looks like, a name of the server's house "
                                                      f"bot (bot1, bot2, ...); choose another", field=field)
        like = await self._store.registered_like(name)
        if like is None or like == mine:
            return
        if like == name:
            raise ProtocolError(ErrorCode.NAME_TAKEN, f"{name!r} is a registered name; log in with its password "
                                                      f"or choose another", field=field)
        raise ProtocolError(ErrorCode.NAME_TAKEN, f"{name!r} looks like the registered name {like!r}; "
                                                  f"choose another", field=field)

    async def logout(self, session: Session, everywhere: bool = False) -> None:
        """End `session` (and with `everywhere`, every session of its registered user): the tokens
        no longer resume, and connections holding them must say hello again."""
        user = session.user if everywhere else None
        await self._store.revoke_sessions(session.token, user)
        self._end(lambda s: s.token == session.token or (user is not None and s.user == user))
        session.revoked = True

    async def expire(self, idle: float) -> int:
        """End the sessions nobody used for `idle` seconds (`Store.expire_sessions`); how many."""
        tokens = set(await self._store.expire_sessions(time.time() - idle))
        self._end(lambda s: s.token in tokens)
        return len(tokens)

    def _end(self, which: Callable[[Session], bool]) -> None:
        for token in [t for t, s in self._cache.items() if which(s)]:
            self._cache.pop(token).revoked = True


def _check_rate(rates: Buckets, address: str, what: str) -> None:
    if not rates.allow(address, time.monotonic()):
        raise ProtocolError(ErrorCode.RATE_LIMITED, f"over {rates.rate:g} {what} a second from your address, "
                                                    f"after {rates.burst:g} at once; try again later")
