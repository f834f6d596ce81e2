"""The prompt of the model-driven simulated user (google-adk's module and function names; adk_nb's own text).

Templates use `{{ name }}` placeholders (`{{ persona.description }}` reaches into the persona). Jinja blocks
(`{% for ... %}`) work when jinja2 is installed, which adk_nb itself does not need.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .user_simulator_personas import UserPersona

DEFAULT_INSTRUCTIONS = """You play the user of an AI agent, to test it. Stay in that role: write only what the
user would type next, in the first person, without commentary.

The user's plan for this conversation:
{{ conversation_plan }}

The conversation so far:
{{ conversation_history }}

Reply to what the agent said last. Answer its questions from the plan only (say you do not know when the plan
does not say); when it has done what you asked, move to the next request of the plan; correct it when it gets
something wrong. When every request of the plan is done, or the agent failed the same request twice, or it
hands you over to a human, reply with exactly {{ stop_signal }} and nothing else."""

PERSONA_INSTRUCTIONS = """You play the user of an AI agent, to test it. Stay in that role: write only what the
user would type next, in the first person, without commentary. Whatever you write must follow from the
agent's last message; the plan below tells you what you want, not the words to say.

Who you are:
{{ persona }}

The user's plan for this conversation:
{{ conversation_plan }}

The conversation so far:
{{ conversation_history }}

Reply to what the agent said last, as this user would. To end the conversation, reply with exactly
{{ stop_signal }} and nothing else."""

_PLACEHOLDER = re.compile(r"{{\s*([A-Za-z_][\w.]*)\s*}}")


def persona_text(persona: UserPersona) -> str:
  """A persona as prompt text: its description, then each behavior with its instructions."""
  lines = [persona.description, "", "How you behave:"]
  for behavior in persona.behaviors:
    lines += [f"- {behavior.name}: {behavior.description}", behavior.get_behavior_instructions_str()]
  return "\n".join(lines)


def template_variables(template_str: str) -> set[str]:
  """The names a template's placeholders start from (`{{ persona.description }}` gives 'persona')."""
  if "{%" in template_str:
    jinja = _jinja()
    if jinja is not None:
      from jinja2 import meta

      return set(meta.find_undeclared_variables(jinja.parse(template_str)))
  return {name.split(".")[0] for name in _PLACEHOLDER.findall(template_str)}


def is_valid_user_simulator_template(template_str: str, required_params: list[str]) -> bool:
  """Whether the template parses and has a placeholder for each of `required_params`."""
  try:
    found = template_variables(template_str)
  except Exception:  # a jinja2 syntax error
    return False
  return all(p in found for p in required_params)


def render_template(template_str: str, values: dict[str, Any]) -> str:
  """Fills the placeholders. A persona becomes `persona_text`, whose own placeholders are filled in turn (its
  behaviors say `{{ stop_signal }}`); other values go in as they are. Unknown placeholders stay as written."""
  if "{%" in template_str:
    jinja = _jinja()
    if jinja is None:
      raise ValueError("This template uses Jinja blocks ({% ... %}); install jinja2 (pip install jinja2) or use "
                       "only {{ name }} placeholders.")
    return jinja.from_string(template_str).render(**values)

  def fill(match: re.Match, inner: bool = False) -> str:
    root, *attrs = match.group(1).split(".")
    if root not in values or (inner and isinstance(values[root], UserPersona)):
      return match.group(0)
    value = values[root]
    for attr in attrs:
      value = value.get(attr) if isinstance(value, dict) else getattr(value, attr, None)
    if value is None:
      return ""
    if not isinstance(values[root], UserPersona):  # the plan and the dialogue go in as they are
      return str(value)
    text = persona_text(value) if isinstance(value, UserPersona) else str(value)
    return _PLACEHOLDER.sub(lambda m: fill(m, inner=True), text)

  return _PLACEHOLDER.sub(fill, template_str)


def _jinja() -> Any:
  try:
    from jinja2.sandbox import SandboxedEnvironment
  except ImportError:
    return None
  return SandboxedEnvironment()


def get_llm_backed_user_simulator_prompt(conversation_plan: str, conversation_history: str, stop_signal: str,
                                         custom_instructions: Optional[str] = None,
                                         user_persona: Optional[UserPersona] = None) -> str:
  """The simulated user's prompt for its next message.

  With a persona, `custom_instructions` must have a `{{ persona }}` placeholder (ValueError otherwise).
  """
  if custom_instructions is None:
    template = DEFAULT_INSTRUCTIONS if user_persona is None else PERSONA_INSTRUCTIONS
  else:
    template = custom_instructions
    required = ["stop_signal", "conversation_plan", "conversation_history"]
    if user_persona is not None and not is_valid_user_simulator_template(template, required + ["persona"]):
      raise ValueError("With a user persona, custom_instructions must contain the placeholders {{ stop_signal }}, "
                       "{{ conversation_plan }}, {{ conversation_history }} and {{ persona }}.")
  values: dict[str, Any] = {"stop_signal": stop_signal, "conversation_plan": conversation_plan,
                            "conversation_history": conversation_history}
  if user_persona is not None:
    values["persona"] = user_persona
  return render_template(template, values)


__all__ = ["get_llm_backed_user_simulator_prompt", "is_valid_user_simulator_template"]
