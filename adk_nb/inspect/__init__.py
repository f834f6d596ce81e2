"""Inspecting runs: the step model every view of a run reads (tree, trajectory, static HTML, timeline).

- `step`: a Step and the labels and status words every view shows.
- `builder`: `StepBuilder` folds events and progress points into steps (`steps_of(events)`).
- `changelog`: the step log live views replay in batches, each reader from its own cursor.
- `text`: how values read (JSON, one-line arguments, long texts cut).
- `details`: a step's detail panel; `timeline`: `trace(steps)`, the rows (one per span) every timeline draws.
- `diff`: `diff_runs(a, b)`, two runs aligned step by step in a pandas DataFrame (pandas imported on call).
"""

from .builder import StepBuilder, steps_of
from .diff import diff_runs, first_divergence
from .step import CONTAINER_KINDS, LABELS, STATUS_TEXT, Step

__all__ = ["CONTAINER_KINDS", "LABELS", "STATUS_TEXT", "Step", "StepBuilder", "diff_runs", "first_divergence",
           "steps_of"]
