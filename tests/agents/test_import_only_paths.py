"""google-adk names adk_nb lacks but lets import: using them raises an error naming the issue and the way out."""

import pytest


def test_import_only_configs_raise_naming_the_issue_and_the_alternative():
  from adk_nb.artifacts.gcs_artifact_service import GcsArtifactService

  with pytest.raises(NotImplementedError, match="FileArtifactService"):
    GcsArtifactService(bucket_name="b")
