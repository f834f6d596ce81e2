"""google-adk 2.x's module path for `finish_task`; the tool itself lives in `adk_nb.tools._task_tools`."""

from ....tools._task_tools import FINISH_TASK as FINISH_TASK_TOOL_NAME
from ....tools._task_tools import FINISH_TASK_SUCCESS, FinishTaskTool

__all__ = ["FINISH_TASK_SUCCESS", "FINISH_TASK_TOOL_NAME", "FinishTaskTool"]
