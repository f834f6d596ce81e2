"""Choosing between a Google API's plain and mutual-TLS endpoint (google-adk's private `utils._mtls_utils` path).

Only what adk_nb's Google Cloud clients use: whether a client certificate should be presented
(`use_client_cert_effective`) and which endpoint to call (`get_api_endpoint`). The rules are google-auth's and
the generated client libraries': `GOOGLE_API_USE_CLIENT_CERTIFICATE` says whether to present a certificate,
`GOOGLE_API_USE_MTLS_ENDPOINT` (`auto`, the default, `always` or `never`) which host to call; under `auto` the
mTLS host is chosen only when a certificate is both wanted and available, since without one that host refuses
the connection. Multi-region hosts (`*.us.rep.googleapis.com`, `*.eu.rep.googleapis.com`) have no mTLS
variant and are kept.
"""

from __future__ import annotations

import os
from urllib.parse import urlsplit

__all__ = ["get_api_endpoint", "use_client_cert_effective"]

_MULTI_REGION_SUFFIXES = (".us.rep.googleapis.com", ".eu.rep.googleapis.com")


def use_client_cert_effective() -> bool:
  """Whether a client certificate should be presented (google-auth's answer, else the environment variable)."""
  try:
    from google.auth.transport import mtls
    return bool(mtls.should_use_client_cert())
  except (ImportError, AttributeError):  # an older google-auth
    return os.environ.get("GOOGLE_API_USE_CLIENT_CERTIFICATE", "false").strip().lower() == "true"


def _setting() -> str:
  value = os.environ.get("GOOGLE_API_USE_MTLS_ENDPOINT", "auto").strip().lower()
  return value if value in ("auto", "always", "never") else "auto"


def get_api_endpoint(location: str, default_template: str, mtls_template: str) -> str:
  """`default_template` or `mtls_template`, formatted with `location`, by the rules in the module docstring."""
  plain = default_template.format(location=location)
  host = urlsplit(plain if "://" in plain else f"//{plain}").hostname or ""
  if host.endswith(_MULTI_REGION_SUFFIXES):
    return plain
  setting = _setting()
  if setting == "always":
    return mtls_template.format(location=location)
  if setting == "auto" and use_client_cert_effective():
    from google.auth.transport import mtls
    if mtls.has_default_client_cert_source():
      return mtls_template.format(location=location)
  return plain
