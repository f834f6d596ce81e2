"""Ready-made personas for simulated users: EXPERT, NOVICE and EVALUATOR (google-adk's ids and behavior names).

Each persona combines behaviors from `PreBuiltBehaviors`. The wording of every description, instruction and
rubric here is adk_nb's own; only the ids, the enum names and which behaviors each persona has follow
google-adk.
"""

from __future__ import annotations

import enum

from .user_simulator_personas import UserBehavior, UserPersona, UserPersonaRegistry

_PLAN = "the conversation plan"


class PreBuiltBehaviors(enum.Enum):
  """Behaviors that personas are built from."""

  ADVANCE_DETAIL_ORIENTED = UserBehavior(
      name="Move on when the agent succeeds, giving every detail up front",
      description=(f"The user follows {_PLAN} request by request and, when starting a request, gives the agent "
                   "everything it needs to complete it."),
      behavior_instructions=[
          f"When the agent has done what you asked, make the next request of {_PLAN}.",
          "Do not ask again for something the agent has already done.",
          "With each new request, say what you want and give all the details the plan has for it.",
      ],
      violation_rubrics=[
          "The message asks again for a goal the agent already completed.",
          "The message repeats details of a goal the agent already completed.",
          f"The message accepts a change of topic or a task that is not in {_PLAN}.",
          f"The message brings up a goal that is not in {_PLAN}.",
          f"The message makes up details (names, numbers, addresses) that {_PLAN} does not give.",
          "The message states a goal without its details, so the agent has to ask for them.",
          "The message asks for more than one goal at once.",
      ],
  )

  ADVANCE_GOAL_ORIENTED = UserBehavior(
      name="Move on when the agent succeeds, stating only the goal",
      description=(f"The user follows {_PLAN}, but may follow the agent's lead when it asks; a request names "
                   "only the goal, and the agent is expected to ask for the details."),
      behavior_instructions=[
          f"When the agent has done what you asked, make the next request of {_PLAN}.",
          "Do not ask again for something the agent has already done.",
          "With each new request, say only what you want to achieve.",
          "Give no details of the request until the agent asks for them.",
      ],
      violation_rubrics=[
          "The message asks again for a goal the agent already completed.",
          "The message repeats details of a goal the agent already completed.",
          f"The message brings up a goal that is neither in {_PLAN} nor offered by the agent.",
          f"The message makes up details that neither {_PLAN} nor the agent gave.",
          "The message gives details of a new goal that the agent has not asked for yet.",
      ],
  )

  ANSWER_RELEVANT_ONLY = UserBehavior(
      name="Answer only questions the plan covers",
      description=f"The user answers the agent's questions only when they bear on {_PLAN}.",
      behavior_instructions=[
          f"Answer a question of the agent when {_PLAN} has the answer.",
          f"When the agent asks something {_PLAN} does not cover, say you do not know or that it does not matter.",
      ],
      violation_rubrics=[
          f"The message answers a question with information that is not in {_PLAN}.",
          f"The message ignores a question whose answer is in {_PLAN}.",
      ],
  )

  ANSWER_ALL = UserBehavior(
      name="Answer every question",
      description="The user answers whatever the agent asks, inventing plausible answers the plan does not give.",
      behavior_instructions=[
          f"Answer every question of the agent, from {_PLAN} when it has the answer.",
          f"When {_PLAN} has no answer, give a plausible one that does not contradict the plan.",
      ],
      violation_rubrics=[
          "The message leaves a question of the agent unanswered.",
          f"The message contradicts {_PLAN}.",
      ],
  )

  CORRECT_AGENT = UserBehavior(
      name="Point out the agent's mistakes",
      description="The user notices when the agent gets something wrong and says so.",
      behavior_instructions=[
          f"When the agent says or does something that contradicts {_PLAN}, tell it what is wrong.",
      ],
      violation_rubrics=[
          f"The message lets pass an agent statement that contradicts {_PLAN}.",
      ],
  )

  DO_NOT_CORRECT_AGENT = UserBehavior(
      name="Do not point out the agent's mistakes",
      description="The user does not notice, or does not mention, when the agent gets something wrong.",
      behavior_instructions=[
          "Never tell the agent it made a mistake; go on with the conversation.",
      ],
      violation_rubrics=[
          "The message tells the agent that it made a mistake.",
      ],
  )

  TROUBLESHOOT_ONCE = UserBehavior(
      name="Try once more when the agent fails",
      description="When the agent cannot do a request, the user tries one other way before giving up on it.",
      behavior_instructions=[
          "When the agent fails a request, ask for it once more, rephrased or with another detail from the plan.",
          "When it fails the same request again, stop pursuing that request.",
      ],
      violation_rubrics=[
          "The message gives up on a request the agent failed only once.",
          "The message asks a third time for a request the agent already failed twice.",
      ],
  )

  END_LIMITED_TROUBLESHOOTING = UserBehavior(
      name="End the conversation at the right time, after one retry",
      description=("The user ends the conversation when the plan is done, when a request failed twice, or when "
                   "the agent hands over to a human."),
      behavior_instructions=[
          "Say {{ stop_signal }} when every request of the plan is done.",
          "Say {{ stop_signal }} when the agent failed the same request twice.",
          "Say {{ stop_signal }} when the agent hands you to a human or another service.",
      ],
      violation_rubrics=[
          "The message ends the conversation while requests of the plan are still open and none failed twice.",
          "The message keeps the conversation going after every request of the plan is done.",
          "The message keeps the conversation going after a request failed twice.",
          "The message keeps the conversation going after the agent handed over to a human.",
      ],
  )

  END_NO_TROUBLESHOOTING = UserBehavior(
      name="End the conversation at the right time, without retrying",
      description=("The user ends the conversation when the plan is done, when the agent fails a request, or "
                   "when the agent hands over to a human."),
      behavior_instructions=[
          "Say {{ stop_signal }} when every request of the plan is done.",
          "Say {{ stop_signal }} as soon as the agent fails a request.",
          "Say {{ stop_signal }} when the agent hands you to a human or another service.",
      ],
      violation_rubrics=[
          "The message ends the conversation while requests of the plan are still open and none failed.",
          "The message keeps the conversation going after every request of the plan is done.",
          "The message retries a request the agent failed instead of ending the conversation.",
          "The message keeps the conversation going after the agent handed over to a human.",
      ],
  )

  TONE_PROFESSIONAL = UserBehavior(
      name="Brief, businesslike tone",
      description="The user writes short, factual messages without small talk.",
      behavior_instructions=[
          "Write short, plain messages.",
          "Skip greetings, thanks and small talk unless the agent's message calls for them.",
      ],
      violation_rubrics=[
          "The message contains small talk or chattiness.",
          "The message is long-winded where a short one would do.",
      ],
  )

  TONE_CONVERSATIONAL = UserBehavior(
      name="Casual, friendly tone",
      description="The user writes as people chat: informal, friendly, sometimes imprecise.",
      behavior_instructions=[
          "Write informally, as in a chat with a helpful stranger.",
          "Keep messages short; a greeting or a thank-you is fine.",
      ],
      violation_rubrics=[
          "The message reads like a formal letter or a specification.",
      ],
  )


class _PreBuiltPersonas(enum.Enum):
  """The personas of the default registry."""

  EXPERT = UserPersona(
      id="EXPERT",
      description=("Has a precise goal and treats the agent as an instrument for reaching it fast; little "
                   "patience for small talk or for questions that were not needed."),
      behaviors=[PreBuiltBehaviors.ADVANCE_DETAIL_ORIENTED.value, PreBuiltBehaviors.ANSWER_RELEVANT_ONLY.value,
                 PreBuiltBehaviors.CORRECT_AGENT.value, PreBuiltBehaviors.TROUBLESHOOT_ONCE.value,
                 PreBuiltBehaviors.END_LIMITED_TROUBLESHOOTING.value, PreBuiltBehaviors.TONE_PROFESSIONAL.value],
  )
  NOVICE = UserPersona(
      id="NOVICE",
      description=("Has a problem they only partly understand and leans on the agent to guide them; answers its "
                   "questions patiently but cannot spot or fix its mistakes."),
      behaviors=[PreBuiltBehaviors.ADVANCE_GOAL_ORIENTED.value, PreBuiltBehaviors.DO_NOT_CORRECT_AGENT.value,
                 PreBuiltBehaviors.ANSWER_ALL.value, PreBuiltBehaviors.END_NO_TROUBLESHOOTING.value,
                 PreBuiltBehaviors.TONE_CONVERSATIONAL.value],
  )
  EVALUATOR = UserPersona(
      id="EVALUATOR",
      description="Checks whether the agent can get the goals of the conversation plan done.",
      behaviors=[PreBuiltBehaviors.ADVANCE_DETAIL_ORIENTED.value, PreBuiltBehaviors.ANSWER_RELEVANT_ONLY.value,
                 PreBuiltBehaviors.END_NO_TROUBLESHOOTING.value, PreBuiltBehaviors.DO_NOT_CORRECT_AGENT.value,
                 PreBuiltBehaviors.TONE_CONVERSATIONAL.value],
  )


def get_default_persona_registry() -> UserPersonaRegistry:
  """A new registry holding EXPERT, NOVICE and EVALUATOR."""
  registry = UserPersonaRegistry()
  for persona in _PreBuiltPersonas:
    registry.register_persona(persona.value.id, persona.value)
  return registry


DEFAULT_USER_PERSONA_REGISTRY = get_default_persona_registry()
"""The registry scenarios look persona ids up in (older google-adk releases' name for it)."""

__all__ = ["DEFAULT_USER_PERSONA_REGISTRY", "PreBuiltBehaviors", "get_default_persona_registry"]
