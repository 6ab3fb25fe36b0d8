"""The operator's bans: names and addresses the server refuses (`polygo-server admin ban`).

A banned name is matched by its skeleton (`polygo.protocol.names.skeleton`), as registered names are,
so a banned `Mallory` does not come back as `Ma11ory`; it is refused at `hello` (a guest's name,
a resumed session's name or user, a login's user) with `banned`. A banned address is an IP
address or network (an IPv6 client is best banned by its /64, as the limits count it); every
websocket handshake and web request from it is refused 403, the client's address taken through
the trusted proxies as for the limits. The bans are stored (table `bans`) and held in memory,
where every handshake and `hello` reads them.
"""

from __future__ import annotations

from dataclasses import dataclass
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import TYPE_CHECKING

from polygo.protocol import ProtocolError
from polygo.protocol.names import clean_name, skeleton

if TYPE_CHECKING:
    from ..store import Store

KINDS = ("name", "address")


class BanError(ValueError):
    """A ban that cannot be: the message says why, for the operator."""


@dataclass(frozen=True)
class Ban:
    kind: str
    value: str       # what is matched: the name's skeleton, or the network
    shown: str       # as the operator gave it
    reason: str
    created_at: float = 0.0


def key(kind: str, target: str) -> tuple[str, str]:
    """The (value matched, value shown) of a ban of `kind` on `target`; BanError if it cannot be one."""
    if kind == "name":
        try:
            name = clean_name(target)
        except ProtocolError as exc:
            raise BanError(f"not a name: {exc.message}") from None
        return skeleton(name), name
    if kind == "address":
        try:
            network = ip_network(target.strip(), strict=False)
        except ValueError:
            raise BanError(f"{target!r} is not an IP address or network") from None
        return str(network), str(network)
    raise BanError(f"a ban is of a name or an address, not {kind!r}")


class Bans:
    """The bans in force, as the server checks them."""

    def __init__(self) -> None:
        self._names: dict[str, Ban] = {}
        self._networks: dict[str, tuple[IPv4Network | IPv6Network, Ban]] = {}

    async def load(self, store: Store) -> None:
        for row in await store.bans():
            self._hold(Ban(**row))

    def _hold(self, ban: Ban) -> None:
        if ban.kind == "name":
            self._names[ban.value] = ban
        else:
            self._networks[ban.value] = (ip_network(ban.value), ban)

    def __iter__(self):
        return iter([*self._names.values(), *(ban for _, ban in self._networks.values())])

    async def add(self, store: Store, kind: str, target: str, reason: str) -> Ban:
        value, shown = key(kind, target)
        await store.ban(kind, value, shown, reason)
        ban = Ban(kind, value, shown, reason)
        self._hold(ban)
        return ban

    async def remove(self, store: Store, kind: str, target: str) -> bool:
        value, _ = key(kind, target)
        held = self._names if kind == "name" else self._networks
        if value not in held:
            return False
        await store.unban(kind, value)
        del held[value]
        return True

    def name(self, *names: str | None) -> Ban | None:
        """The ban on any of `names` (a session's name and user), or None."""
        for name in names:
            if name is not None and self._names:
                ban = self._names.get(skeleton(name))
                if ban is not None:
                    return ban
        return None

    def address(self, address: str) -> Ban | None:
        """The ban on `address` (an IP address, or a limit key such as an IPv6 /64), or None."""
        if not self._networks:
            return None
        try:
            ip = ip_address(address)
        except ValueError:
            try:
                ip = ip_network(address, strict=False).network_address
            except ValueError:
                return None
        for network, ban in self._networks.values():
            if ip in network:
                return ban
        return None
