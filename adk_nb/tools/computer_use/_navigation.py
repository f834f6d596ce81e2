"""The check `navigate` applies to a model's URL: http(s) only, and no private or link-local host by default."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

_BLOCKED_NAMES = {"localhost", "metadata", "metadata.google.internal"}
_BLOCKED_SUFFIXES = (".localhost", ".internal", ".local")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def host_of(url: object) -> str:
  """The URL's host name; ValueError for anything that is not an http(s) URL with a host a browser reads alike."""
  if not isinstance(url, str):
    raise ValueError("url is not a string")
  parts = urlsplit(url.strip())
  if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
    raise ValueError("url must be http(s) with a host")
  if "\\" in parts.netloc:  # browsers end the authority at a backslash; urlsplit does not
    raise ValueError("backslash in host")
  return parts.hostname


def _blocked_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
  if not address.is_global:
    return True
  if isinstance(address, ipaddress.IPv6Address):  # an IPv4 target inside an IPv6 address
    inner = address.ipv4_mapped or address.sixtofour
    if inner is None and address in _NAT64:
      inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if inner is None and int(address) >> 32 == 0 and (int(address) & 0xFFFFFFFF) not in (0, 1):
      inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return inner is not None and not inner.is_global
  return False


def check_public(hostname: str) -> None:
  """Raises ValueError when `hostname` is, or resolves to, an address that is not public (blocks: DNS)."""
  name = hostname.rstrip(".").lower()
  if name in _BLOCKED_NAMES or name.endswith(_BLOCKED_SUFFIXES):
    raise ValueError("blocked host name")
  try:
    addresses = [ipaddress.ip_address(name)]
  except ValueError:
    try:
      infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError) as exc:
      raise ValueError(f"cannot resolve {hostname}") from exc
    addresses = [ipaddress.ip_address(info[4][0]) for info in infos
                 if info[0] in (socket.AF_INET, socket.AF_INET6)]
    if not addresses:
      raise ValueError(f"cannot resolve {hostname}")
  if any(_blocked_address(address) for address in addresses):
    raise ValueError(f"blocked host {hostname}")
