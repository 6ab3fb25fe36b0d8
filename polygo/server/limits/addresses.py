"""Who a connection is, for the per-address limits (docs/server.md, "Limits").

Behind the reverse proxies deploy/ ships (nginx, Caddy, HAProxy) every connection comes from the
proxy, so counting by the socket's peer would put all the players of a server under one
address's limits. A proxy named in `Config.trusted_proxies` is believed about the client it
forwards (`X-Forwarded-For`, which each proxy appends to): the client is the nearest address on
that chain, from our end, that is not a trusted proxy; entries further left were written by the
client itself and are not believed. Without trusted proxies the header is ignored, since anyone
could write it.

An IPv6 client is counted by its /64, the block one subscriber is usually given: counting each
address would hand a single host 2^64 fresh limits.
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network

Networks = tuple[IPv4Network | IPv6Network, ...]


def parse_networks(text: str) -> Networks:
    """A comma-separated list of addresses or networks ("127.0.0.1, ::1, 10.0.0.0/8"); ValueError
    naming the entry that is neither."""
    networks = []
    for entry in (part.strip() for part in text.split(",")):
        if not entry:
            continue
        try:
            networks.append(ip_network(entry, strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an IP address or network") from None
    return tuple(networks)


def client_address(peer: str, forwarded_for: str | None, trusted: Networks) -> str:
    """The key the per-address limits count the connection under."""
    return limit_key(forwarded_address(peer, forwarded_for, trusted))


def forwarded_address(peer: str, forwarded_for: str | None, trusted: Networks) -> str:
    """The client's own address, as the logs name it: an IPv6 host, not the /64 it is counted
    under; an IPv4-mapped one (a dual-stack socket's IPv4 client) as the IPv4 address. Anything
    but an IP address is cut to 64 characters, like its key."""
    hops = [hop.strip() for hop in forwarded_for.split(",")] if forwarded_for and trusted else []
    address = peer
    while hops and is_trusted(address, trusted):
        address = hops.pop()
    try:
        ip = ip_address(address)
    except ValueError:
        return address[:64]
    return str(getattr(ip, "ipv4_mapped", None) or ip)


def is_trusted(address: str, trusted: Networks) -> bool:
    """Whether `address` is a proxy whose clients are counted by the header instead."""
    try:
        ip = ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in trusted)


def limit_key(address: str) -> str:
    """An IPv4 address as itself, an IPv6 one as its /64 (an IPv4-mapped one as the IPv4
    address); anything else, cut to 64 characters, as itself."""
    try:
        ip = ip_address(address)
    except ValueError:
        return address[:64]
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ip_network(f"{ip}/64", strict=False))
    return str(ip)

