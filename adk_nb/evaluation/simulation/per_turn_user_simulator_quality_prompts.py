"""The judge prompt of per_turn_user_simulator_quality_v1 (google-adk's module and function; adk_nb's own text)."""

from __future__ import annotations

from typing import Optional

from .llm_backed_user_simulator_prompts import render_template
from .user_simulator_personas import UserPersona

JUDGE_INSTRUCTIONS = """You review one message written by a simulated user: a model playing the user of an AI
agent, to test the agent. It was given a conversation plan (the user's goals, in order, with the details it
may use) and the conversation so far, and wrote the next user message. Decide whether that message is one a
faithful simulated user would write.

The message fails if any of these happens:
- Plan: it pursues a goal that is not in the plan, skips ahead of the plan's order, asks again for a goal the
  agent already completed, or makes up details (names, numbers, dates) the plan does not give.
- Reply: it ignores what the agent said last; it leaves unanswered a question the plan can answer, or answers
  one the plan cannot answer with invented facts instead of saying it does not know.
- Ending: it contains {{ stop_signal }} while goals of the plan are still open and the agent neither failed a
  request twice nor handed the user over to a human; or it goes on without {{ stop_signal }} when all goals
  are done, a request failed twice, or the agent handed over.
- Role: it speaks as the agent or as a tester, comments on the test, or is not addressed to the agent.
{{ persona_rules }}
# Conversation plan
{{ conversation_plan }}

# Conversation so far
{{ conversation_history }}

# Message to review
{{ generated_user_response }}

Reply with one JSON object and nothing else:
{"criteria": [{"name": "<Plan, Reply, Ending, Role{{ persona_names }}>", "reasoning": "<one sentence>",
"passes": true or false}, ...], "is_valid": true or false}
"is_valid" is true only when every criterion passes."""


def _persona_rules(persona: UserPersona) -> str:
  lines = ["", f"The simulated user also plays this persona: {persona.description}",
           "so the message fails as well if it shows any of these:"]
  for behavior in persona.behaviors:
    lines.append(f"- {behavior.name}:")
    lines.append(behavior.get_violation_rubrics_str())
  return "\n".join(lines) + "\n"


def get_per_turn_user_simulator_quality_prompt(conversation_plan: str, conversation_history: str,
                                               generated_user_response: str, stop_signal: str,
                                               user_persona: Optional[UserPersona] = None) -> str:
  """The judge's prompt for one simulated user message (with the persona's violation rubrics, if any)."""
  values = {"conversation_plan": conversation_plan, "conversation_history": conversation_history,
            "generated_user_response": generated_user_response, "stop_signal": stop_signal,
            "persona_rules": "", "persona_names": ""}
  if user_persona is not None:
    # The rubrics may say {{ stop_signal }}: filled like the rest of the prompt.
    values["persona_rules"] = render_template(_persona_rules(user_persona), {"stop_signal": stop_signal})
    values["persona_names"] = ", " + ", ".join(b.name for b in user_persona.behaviors)
  return render_template(JUDGE_INSTRUCTIONS, values)


__all__ = ["get_per_turn_user_simulator_quality_prompt"]
