"""RequestInput: a workflow node asks a person for input (ADK's `adk_request_input` call)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, Field, alias_generators, model_validator

from .event import new_uuid4


class RequestInput(BaseModel):
  """Yield (or return) this from a workflow node to pause the run until someone answers.

  The run ends its turn with a long-running `adk_request_input` function call whose id is
  `interrupt_id`; answering it with `FunctionResponse(id=interrupt_id, name='adk_request_input',
  response={...})` resumes the same invocation. The node stops at the yield: code after it
  does not run in that pass (in google-adk it does).
  """

  model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid", alias_generator=alias_generators.to_camel,
                            populate_by_name=True)

  interrupt_id: str = Field(default_factory=new_uuid4)
  """The id of the function call to answer; unique by default."""
  payload: Any = None
  """Data shown to the person answering (e.g. the draft to approve)."""
  message: Optional[str] = None
  """The question, in words."""
  response_schema: Any = None
  """A pydantic model or JSON schema the answer should follow (passed on as JSON schema)."""

  @model_validator(mode="before")
  @classmethod
  def _prompt_is_message(cls, data: Any) -> Any:
    # `prompt=` is taken as `message=` (google-adk 2.13 silently drops it, so a question written
    # that way is lost there); any other unknown name is refused.
    if isinstance(data, dict) and "prompt" in data:
      data = dict(data)
      prompt = data.pop("prompt")
      message = data.get("message")
      if message is not None and message != prompt:
        raise ValueError("RequestInput got both message= and prompt= (the same thing); pass message= only.")
      data["message"] = prompt
    return data
