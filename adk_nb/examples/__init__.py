"""Few-shot examples at google-adk's path: sample conversations put in an agent's instruction.

`ExampleTool(examples)` (in `adk_nb.tools.example_tool`) adds them to every request; a
`BaseExampleProvider` chooses them per user message.
"""

from .base_example_provider import BaseExampleProvider
from .example import Example

__all__ = ["BaseExampleProvider", "Example"]
