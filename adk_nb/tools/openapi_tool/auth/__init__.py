"""Auth for OpenAPI tools: API keys and bearer tokens."""

from .auth_helpers import token_to_scheme_credential

__all__ = ["token_to_scheme_credential"]
