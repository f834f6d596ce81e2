"""ADK's `request_confirmation` request processor at its path: importable; running it raises (see `flows.llm_flows`)."""

from __future__ import annotations

from . import ImportOnlyProcessor

request_processor = ImportOnlyProcessor("request_confirmation.request_processor")
