"""One computer-use scenario that runs on google-adk or adk_nb (`scenario("google.adk")` / `scenario("adk_nb")`).

`make_google_adk_fixture.py --computer-use` writes google-adk 2.13's outcome to
google_adk_computer_use.json; tests/environment/test_computer_use.py runs the same on adk_nb and compares.
A recording computer (1280x720) stands in for the browser; the model is scripted.
"""

import asyncio
import importlib
from typing import Literal

from google.genai import types

CASES = [  # (model name, excluded_predefined_functions)
    ("gemini-2.5-computer-use-preview-10-2025", None),
    ("gemini-2.5-computer-use-preview-10-2025", ["click", "press_key", "hotkey", "type_text"]),
    ("gemini-3-pro-preview", None),
    ("gemini-3-pro-preview", ["click_at", "key_combination", "drag_and_drop"]),
    ("projects/p/locations/l/publishers/google/models/gemini-3-flash", ["scroll_document"]),
]
CALLS = [  # what the scripted model asks for, in one turn
    ("click_at", {"x": 500, "y": 500}),
    ("click", {"x": 1000, "y": 0}),
    ("type", {"text": "hi", "press_enter": True}),
    ("hotkey", {"keys": ["control", "c"]}),
    ("wait", {"seconds": 1.2}),
    ("drag_and_drop", {"start_x": 100, "start_y": 200, "end_x": 300, "end_y": 400}),
    ("navigate", {"url": "http://127.0.0.1:8080/admin"}),
    ("navigate", {"url": "file:///etc/passwd"}),
]


def recorder_class(pkg: str) -> type:
  """A BaseComputer of `pkg` (1280x720) that records each action in `log` and answers PNG<n> at `url`."""
  base = importlib.import_module(f"{pkg}.tools.computer_use.base_computer")
  ComputerState = base.ComputerState

  class Recorder(base.BaseComputer):
    def __init__(self):
      self.log = []
      self.url = "https://example.com/"

    async def _did(self, *what):
      self.log.append(list(what))
      return ComputerState(screenshot=b"PNG" + str(len(self.log)).encode(), url=self.url)

    async def screen_size(self):
      return (1280, 720)

    async def environment(self):
      return base.ComputerEnvironment.ENVIRONMENT_BROWSER

    async def open_web_browser(self) -> ComputerState: return await self._did("open_web_browser")
    async def click_at(self, x: int, y: int) -> ComputerState: return await self._did("click_at", x, y)
    async def hover_at(self, x: int, y: int) -> ComputerState: return await self._did("hover_at", x, y)
    async def type_text_at(self, x: int, y: int, text: str, press_enter: bool = True,
                           clear_before_typing: bool = True) -> ComputerState:
      return await self._did("type_text_at", x, y, text, press_enter, clear_before_typing)
    async def scroll_document(self, direction: Literal["up", "down", "left", "right"]) -> ComputerState:
      return await self._did("scroll_document", direction)
    async def scroll_at(self, x: int, y: int, direction: Literal["up", "down", "left", "right"],
                        magnitude: int) -> ComputerState:
      return await self._did("scroll_at", x, y, direction, magnitude)
    async def wait(self, seconds: int) -> ComputerState: return await self._did("wait", seconds)
    async def go_back(self) -> ComputerState: return await self._did("go_back")
    async def go_forward(self) -> ComputerState: return await self._did("go_forward")
    async def search(self) -> ComputerState: return await self._did("search")
    async def navigate(self, url: str) -> ComputerState: return await self._did("navigate", url)
    async def key_combination(self, keys: list[str]) -> ComputerState: return await self._did("key_combination", keys)
    async def drag_and_drop(self, x: int, y: int, destination_x: int, destination_y: int) -> ComputerState:
      return await self._did("drag_and_drop", x, y, destination_x, destination_y)
    async def current_state(self) -> ComputerState: return ComputerState(screenshot=b"PNG", url=self.url)

  return Recorder


def scenario(pkg: str) -> dict:
  def mod(name):
    return importlib.import_module(f"{pkg}.{name}")

  Recorder = recorder_class(pkg)
  Toolset = mod("tools.computer_use.computer_use_toolset").ComputerUseToolset
  BaseLlm = mod("models.base_llm").BaseLlm
  LlmResponse = mod("models.llm_response").LlmResponse
  Agent = mod("agents.llm_agent").LlmAgent
  InMemoryRunner = mod("runners").InMemoryRunner

  class Model(BaseLlm):
    model: str = "scripted"
    seen: list = []

    async def generate_content_async(self, llm_request, stream=False):
      self.seen.append(llm_request)
      if len(self.seen) == 1:
        parts = [types.Part(function_call=types.FunctionCall(name=n, args=a)) for n, a in CALLS]
      else:
        parts = [types.Part(text="done")]
      yield LlmResponse(content=types.Content(role="model", parts=parts))

  async def offered(model_name, excluded):
    model = Model(model=model_name)
    model.seen = []
    agent = Agent(name="browser", model=model,
                  tools=[Toolset(computer=Recorder(), excluded_predefined_functions=excluded)])
    runner = InMemoryRunner(agent=agent, app_name="cu")
    session = await runner.session_service.create_session(app_name="cu", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id,
                                    new_message=types.Content(role="user", parts=[types.Part(text="go")])):
      pass
    request = model.seen[0]
    config = [t.computer_use.model_dump(mode="json", exclude_none=True)
              for t in request.config.tools or [] if t.computer_use]
    declarations = [d.name for t in request.config.tools or [] for d in (t.function_declarations or [])]
    return {"model": model_name, "excluded": excluded, "computer_use": config,
            "function_declarations": declarations, "actions": sorted(request.tools_dict)}

  async def turn():
    computer = Recorder()
    model = Model(model="gemini-2.5-computer-use-preview-10-2025")
    model.seen = []
    agent = Agent(name="browser", model=model, tools=[Toolset(computer=computer)])
    runner = InMemoryRunner(agent=agent, app_name="cu")
    session = await runner.session_service.create_session(app_name="cu", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id,
                                    new_message=types.Content(role="user", parts=[types.Part(text="go")])):
      pass
    answers = [[p.function_response.name, p.function_response.response,
                [[m.inline_data.mime_type, m.inline_data.data.decode("latin-1")]
                 for m in p.function_response.parts or [] if m.inline_data]]
               for p in model.seen[1].contents[-1].parts if p.function_response]
    return {"computer_log": computer.log, "answers": answers}

  async def main():
    return {"offered": [await offered(m, e) for m, e in CASES], "turn": await turn()}

  return asyncio.run(main())
