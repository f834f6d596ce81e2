"""Test-wide settings: no test may reach a real model provider."""

import atexit
import os
import shutil
import tempfile

import pytest

os.environ["ADK_NB_BLOCK_REAL_MODELS"] = "1"
# Eval runs store their results on disk (.adk_nb/eval/ by default): keep the tests' runs out of the checkout.
if "ADK_NB_EVAL_DIR" not in os.environ:
  os.environ["ADK_NB_EVAL_DIR"] = _eval_dir = tempfile.mkdtemp(prefix="adk_nb_eval_")
  atexit.register(shutil.rmtree, _eval_dir, ignore_errors=True)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _block_real_models():
  from adk_nb.models import block_real_models

  block_real_models(True)
  yield
