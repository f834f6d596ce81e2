"""The LLM agent's loop (`llm_flow`), split by step into private modules.

Other packages use these names, never the private modules themselves:
- `active_task(events)`: the delegated task waiting for the user, if the latest turn ended in one;
- `apply_compactions(events)`: the events as the model sees them, summaries in place of what they cover;
- `has_rewind(events)` / `without_rewound(events)`: whether a rewind is among the events, and the events
  still in force after the rewinds;
- `waiting_call_ids(session, invocation_id)`: the calls of an edited step a continued run takes up;
- `inject_session_state(template, readonly_context)`: `{key}` placeholders filled from state, as instructions are;
- `credential_from_answer(requested, response)` / `credential_answer_problem(call, response)`: the credential a
  client's answer to an `adk_request_credential` call carries, and why an answer carries none.
"""

from ._compaction import apply_compactions
from ._contents import has_rewind, without_rewound
from ._credentials import answer_problem as credential_answer_problem
from ._credentials import credential_from_answer
from ._delegation import active_task
from ._edit import waiting_call_ids
from ._instructions import inject_session_state

__all__ = ["active_task", "apply_compactions", "credential_answer_problem", "credential_from_answer", "has_rewind",
           "inject_session_state", "waiting_call_ids", "without_rewound"]
