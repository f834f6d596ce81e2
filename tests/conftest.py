"""Test-wide settings: no test may reach a real model provider."""

import os

import pytest

os.environ["ADK_NB_BLOCK_REAL_MODELS"] = "1"
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _block_real_models():
  from adk_nb.models import block_real_models

  block_real_models(True)
  yield
