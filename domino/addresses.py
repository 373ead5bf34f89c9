"""Client addresses as one subscriber's: IPv4 as is, IPv6 by the /64 a subscriber is given."""

from __future__ import annotations

import ipaddress


def subscriber(address: str) -> str | None:
    """The key one client's address counts under; None if it is not an IP address.

    An IPv4 address inside IPv6 (`::ffff:a.b.c.d`) is that IPv4 address; a zone (`%eth0`) is
    dropped.
    """
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network((ip, 64), strict=False))
    return str(ip)
