"""Which callers the api_server answers: loopback hosts and same-site pages by default, more by --allow_origins.

A server on 127.0.0.1 is still reachable from every web page the user opens: the browser sends a
"simple" POST (text/plain, no preflight) to any address, and a page whose DNS name is rebound to
127.0.0.1 reads the answers as if it were the server's own. So every request (HTTP and WebSocket)
passes two checks before any route runs, as google-adk 2.13's server does:

- Host: on a loopback bind, the `Host` header must name a loopback host (127.0.0.1, ::1, localhost)
  or the host of an origin listed in --allow_origins (a proxy on this machine); anything else is DNS
  rebinding. `--allow_origins '*'` turns this check off.
- Origin: a request that carries `Origin` (browsers send it on cross-site requests, and on every
  POST) is answered only when the origin is listed in --allow_origins (a literal origin, `*`, or
  `regex:PATTERN`) or is the server's own origin on a loopback host.

Refusals are 403 with `{"detail", "error_code"}` naming the flag that allows the caller. Listed
origins also get CORS headers, and their preflights (OPTIONS) are answered; any other preflight is
refused the same way. Clients that are not browsers (curl, httpx, ADK clients) send no `Origin` and
are not affected. The body check (JSON endpoints take only `Content-Type: application/json`) is in
`AdkApiServer.body`.
"""

from __future__ import annotations

import functools
import ipaddress
import json
import re
from typing import Any, Optional
from urllib.parse import urlsplit

from ..errors import codes

REGEX_PREFIX = "regex:"
_LOOPBACK_NAMES = frozenset({"localhost"})


def strip_port(authority: str) -> str:
  """The host part of `host[:port]` or `[v6][:port]`; a malformed authority comes back whole."""
  if authority.startswith("["):
    bare, bracket, rest = authority[1:].partition("]")
    if not bracket or (rest and not (rest.startswith(":") and rest[1:].isdigit())):
      return authority
    return bare
  if authority.count(":") == 1:
    bare, _, port = authority.partition(":")
    return bare if port.isdigit() else authority
  return authority


@functools.lru_cache(maxsize=256)  # a server sees few Host values; parsing addresses costs ~15 us per request
def is_loopback(host: str) -> bool:
  """True for 127.0.0.0/8, ::1 and localhost, with or without a port (case and a final dot ignored)."""
  bare = strip_port(host).lower().rstrip(".")
  if bare in _LOOPBACK_NAMES:
    return True
  try:
    return ipaddress.ip_address(bare).is_loopback
  except ValueError:
    return False


class OriginPolicy:
  """The --allow_origins list, parsed: literal origins, `*`, and `regex:` patterns."""

  def __init__(self, allow_origins: list[str], bind_host: str):
    self.literal = [o.rstrip("/") for o in allow_origins if not o.startswith(REGEX_PREFIX)]
    patterns = [o[len(REGEX_PREFIX):] for o in allow_origins if o.startswith(REGEX_PREFIX) and len(o) > len(REGEX_PREFIX)]
    self.regex = re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None
    self.any = "*" in self.literal
    self.loopback_bind = is_loopback(bind_host)
    hosts = set()
    for origin in self.literal:
      try:
        hostname = urlsplit(origin).hostname
      except ValueError:
        continue
      if hostname:
        hosts.add(hostname.lower())
    self.extra_hosts = frozenset(hosts)
    """Hosts a listed origin vouches for (a proxy on this machine forwards them to a loopback bind)."""

  @property
  def configured(self) -> bool:
    return bool(self.literal or self.regex)

  def listed(self, origin: str) -> bool:
    """True when --allow_origins names `origin`."""
    return self.any or origin in self.literal or (self.regex is not None and self.regex.fullmatch(origin) is not None)

  def host_refused(self, host_values: list[str]) -> Optional[str]:
    """Why the `Host` header marks the request as DNS rebinding, or None when it is fine."""
    if not self.loopback_bind or self.any or not host_values:
      return None  # a public bind answers any host; browsers always send Host, so none is no browser
    if len(host_values) > 1 or "," in host_values[0]:
      return "it carries more than one Host header"
    host = host_values[0]
    if is_loopback(host) or strip_port(host).lower().rstrip(".") in self.extra_hosts:
      return None
    return f"Host {host!r} is not a loopback name"

  def origin_refused(self, origin: str, host: Optional[str], scheme: str) -> bool:
    """True when a request from a page at `origin` must not be answered."""
    if self.listed(origin):
      return False
    try:
      parts = urlsplit(origin)
      origin_host = parts.hostname or ""
    except ValueError:
      return True
    if self.loopback_bind and not is_loopback(origin_host):
      return True  # a rebound page: its origin matches the Host it chose, but it is not ours
    own = f"{'https' if scheme in ('https', 'wss') else 'http'}://{host}" if host else None
    return origin != own


def _headers(scope: dict) -> tuple[list[str], Optional[str]]:
  hosts, origin = [], None
  for name, value in scope.get("headers", []):
    if name == b"host":
      hosts.append(value.decode("latin-1").strip())
    elif name == b"origin" and origin is None:
      origin = value.decode("latin-1").strip()
  return hosts, origin


class RequestGuard:
  """ASGI middleware: refuses DNS-rebound hosts and foreign origins with 403 before any route runs."""

  def __init__(self, app: Any, policy: OriginPolicy):
    self.app, self.policy = app, policy

  async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
    if scope["type"] not in ("http", "websocket"):
      await self.app(scope, receive, send)
      return
    hosts, origin = _headers(scope)
    reason = self.policy.host_refused(hosts)
    if reason is not None:
      host = hosts[0] if hosts else ""
      detail = (f"Forbidden: {reason}. This server is bound to a loopback address and answers only requests "
                "addressed to 127.0.0.1, ::1 or localhost (a guard against DNS rebinding). If a proxy on this "
                f"machine forwards {strip_port(host) or 'another host'} here, start the server with "
                f"--allow_origins https://{host or 'HOST'}.")
      await _refuse(scope, receive, send, detail, codes.HOST_NOT_ALLOWED)
      return
    if origin is not None and self.policy.origin_refused(origin, hosts[0] if hosts else None, scope.get("scheme", "http")):
      detail = (f"Forbidden: origin {origin!r} is not allowed. A web page from another site may not call this "
                f"server, since it runs agents and their tools. To allow it, start the server with "
                f"--allow_origins {origin} (repeat the flag for more origins; 'regex:PATTERN' matches several).")
      await _refuse(scope, receive, send, detail, codes.ORIGIN_NOT_ALLOWED)
      return
    await self.app(scope, receive, send)


async def _refuse(scope: dict, receive: Any, send: Any, detail: str, error_code: str) -> None:
  """A 403 JSON answer; for a WebSocket, the handshake is refused (the client sees 403)."""
  if scope["type"] == "websocket":
    await receive()  # websocket.connect
    await send({"type": "websocket.close", "code": 1008, "reason": detail.encode()[:123].decode(errors="ignore")})
    return
  body = json.dumps({"detail": detail, "error_code": error_code}).encode()
  await send({"type": "http.response.start", "status": 403,
              "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
  await send({"type": "http.response.body", "body": body})


def middleware(allow_origins: list[str], bind_host: str) -> list:
  """Starlette middleware for the app: the guard, then CORS headers for the listed origins (if any)."""
  from starlette.middleware import Middleware
  from starlette.middleware.cors import CORSMiddleware

  policy = OriginPolicy(allow_origins, bind_host)
  stack = [Middleware(RequestGuard, policy=policy)]
  if policy.configured:
    stack.append(Middleware(CORSMiddleware, allow_origins=policy.literal,
                            allow_origin_regex=policy.regex.pattern if policy.regex else None,
                            allow_credentials=True, allow_methods=["*"], allow_headers=["*"]))
  return stack
