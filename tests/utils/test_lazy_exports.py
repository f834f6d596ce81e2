"""Names packages export lazily: one helper (adk_nb.utils.lazy), the value on first use, optional imports deferred."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

OWN_GETATTR = {
    # The MCP SDK is optional: its class is re-exported through import_mcp(), whose error names the extra.
    "adk_nb/tools/mcp_tool/mcp_session_manager.py", "adk_nb/tools/mcp_tool/mcp_toolset.py",
    # Owned by other areas this session; to move to the helper.
    "adk_nb/workflow/__init__.py",
}


def test_packages_export_lazily_through_one_helper():
  own = set()
  for path in sorted((REPO / "adk_nb").rglob("*.py")):
    tree = ast.parse(path.read_text())
    if any(isinstance(node, ast.FunctionDef) and node.name == "__getattr__" for node in tree.body):
      own.add(str(path.relative_to(REPO)))
  assert own <= OWN_GETATTR, f"write these with adk_nb.utils.lazy.lazy_exports: {sorted(own - OWN_GETATTR)}"


def test_a_lazy_name_is_the_real_object_and_an_unknown_one_says_which_module():
  import adk_nb
  from adk_nb.agents.llm_agent import LlmAgent
  from adk_nb.tools import load_artifacts
  from adk_nb.tools.load_artifacts_tool import load_artifacts_tool

  assert adk_nb.Agent is LlmAgent and adk_nb.LlmAgent is LlmAgent
  assert load_artifacts is load_artifacts_tool  # exported under google-adk's other spelling
  with pytest.raises(AttributeError, match="module 'adk_nb.models' has no attribute 'Nope'"):
    import adk_nb.models as models
    models.Nope  # noqa: B018


def test_importing_the_packages_does_not_import_what_their_lazy_names_need():
  code = ("import sys, adk_nb, adk_nb.models, adk_nb.tools, adk_nb.evaluation, adk_nb.auth\n"
          "from adk_nb.models import LiteLlm\n"
          "print(sorted(m for m in ('litellm', 'adk_nb.runners', 'adk_nb.evaluation.results', 'pandas') "
          "if m in sys.modules))")
  out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                       env={"PYTHONPATH": str(REPO), "PATH": ""}).stdout.strip()
  assert out == "[]"
