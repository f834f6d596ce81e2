"""LlmRequest and LlmResponse helpers behave as google-adk's (instructions, error responses)."""

import pytest
from google.genai import types

from adk_nb.models import LlmRequest, LlmResponse


def test_append_instructions_takes_strings_or_content_and_refuses_a_bare_string():
  request = LlmRequest()
  assert request.append_instructions(["One", "", "Two"]) == []
  carried = request.append_instructions(types.Content(role="user", parts=[
      types.Part(text="Look at this:"),
      types.Part(inline_data=types.Blob(data=b"png", mime_type="image/png", display_name="chart.png")),
      types.Part(file_data=types.FileData(file_uri="files/doc", mime_type="text/plain")),
  ]))
  assert request.config.system_instruction == (
      "One\n\nTwo\n\nLook at this:\n\n"
      "[Reference to inline binary data: inline_data_0 ('chart.png', type: image/png)]\n\n"
      "[Reference to file data: file_data_1 (URI: files/doc, type: text/plain)]")
  assert [c.parts[0].text for c in carried] == ["Referenced inline data: inline_data_0",
                                                 "Referenced file data: file_data_1"]
  assert carried[0].parts[1].inline_data.data == b"png" and request.contents == carried
  with pytest.raises(TypeError, match=r"list of strings or a types.Content.*\[text\]"):
    request.append_instructions("a bare string")


def test_create_keeps_citations_and_logprobs_on_error_responses():
  citations = types.CitationMetadata(citations=[types.Citation(uri="https://example.org")])
  response = LlmResponse.create(types.GenerateContentResponse(candidates=[types.Candidate(
      finish_reason=types.FinishReason.RECITATION, finish_message="recited", citation_metadata=citations,
      avg_logprobs=-0.5)]))
  assert response.error_code == "RECITATION" and response.error_message == "recited"
  assert response.citation_metadata == citations and response.avg_logprobs == -0.5


def test_create_treats_no_candidates_and_no_block_reason_as_an_empty_answer():
  response = LlmResponse.create(types.GenerateContentResponse(candidates=[]))
  assert response.error_code is None and response.content.parts == []
