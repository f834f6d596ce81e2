"""Code executors at google-adk's path: run the code a model writes and show it the output.

`BuiltInCodeExecutor` turns on Gemini's own code execution (the code runs at Google);
`UnsafeLocalCodeExecutor` runs fenced Python blocks from the model's answer in a child process on
this machine, with a timeout (never inside the notebook kernel). Set one with
`LlmAgent(code_executor=...)`.
"""

from .base_code_executor import BaseCodeExecutor
from .built_in_code_executor import BuiltInCodeExecutor
from .code_execution_utils import CodeExecutionInput, CodeExecutionResult, CodeExecutionUtils, File
from .code_executor_context import CodeExecutorContext
from .unsafe_local_code_executor import UnsafeLocalCodeExecutor

__all__ = ["BaseCodeExecutor", "BuiltInCodeExecutor", "CodeExecutionInput", "CodeExecutionResult",
           "CodeExecutionUtils", "CodeExecutorContext", "File", "UnsafeLocalCodeExecutor"]
