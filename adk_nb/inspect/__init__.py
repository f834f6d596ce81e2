"""Inspecting runs: the step model every view of a run reads (tree, trajectory, static HTML, timeline)."""

from .steps import LABELS, STATUS_TEXT, Step, StepBuilder, steps_of

__all__ = ["LABELS", "STATUS_TEXT", "Step", "StepBuilder", "steps_of"]
