"""The step-model tests reuse the notebook layer's fixtures (refund agent, isolated working folder)."""

from tests.notebook.conftest import _isolated, make_refund_agent  # noqa: F401
