"""The four environment tools under one import path (google-adk keeps `environment._tools` for old imports)."""

from __future__ import annotations

from ._edit_file_tool import EditFileTool as EditFileTool
from ._execute_tool import ExecuteTool as ExecuteTool
from ._read_file_tool import ReadFileTool as ReadFileTool
from ._write_file_tool import WriteFileTool as WriteFileTool
