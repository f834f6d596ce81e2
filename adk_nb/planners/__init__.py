"""Planners at google-adk's path: how an LlmAgent thinks before it acts.

`BuiltInPlanner` turns on the model's own thinking (Gemini's `thinking_config`);
`PlanReActPlanner` asks any model to plan, reason and act in tagged text and splits the answer
into thought parts and the final answer. Set one with `LlmAgent(planner=...)`.
"""

from .base_planner import BasePlanner
from .built_in_planner import BuiltInPlanner
from .plan_re_act_planner import PlanReActPlanner

__all__ = ["BasePlanner", "BuiltInPlanner", "PlanReActPlanner"]
