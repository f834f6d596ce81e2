"""Credentials at google-adk's paths: the data a tool and a client exchange to authenticate a call.

What is here: the credential and auth-config models (`AuthCredential`, `AuthConfig`, ...), the scheme
kinds, and credential services that keep exchanged credentials per app and user
(`InMemoryCredentialService`, reached from callbacks and tools through `save_credential` /
`load_credential`), and `auth_handler.AuthHandler`, which builds the `adk_request_credential` request
(secrets removed) and reads the client's answer from state. The round trip itself (the request event, the
answer checked, the asking tool call run again) is `adk_nb.flows._credentials`; a workflow function node's
is `FunctionNode(auth_config=...)`. What is not: the OAuth2 / OpenID Connect
exchange and refresh flows (google-adk's exchangers, refreshers); toolsets take their credentials
directly (README "Compatibility").
"""

from ..utils.lazy import lazy_exports

_EXPORTS = {
    "AuthConfig": ".auth_tool",
    "AuthCredential": ".auth_credential",
    "AuthCredentialTypes": ".auth_credential",
    "AuthHandler": ".auth_handler",
    "AuthScheme": ".auth_schemes",
    "AuthSchemeType": ".auth_schemes",
    "OpenIdConnectWithConfig": ".auth_schemes",
    "OAuth2Auth": ".auth_credential",
}

__all__ = sorted(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS)
