"""The parts of google-adk's dev-UI HTTP API that adk_nb has the features for: the agent graph and evals.

Served at google-adk 2.13's paths (`/dev/apps/{app}/...`) and at the 1.x paths older clients call
(`/apps/{app}/...`), with the same JSON:

    GET  .../graph[?dark_mode=true]                                   {"dotSrc": "digraph {...}"}
    GET  .../users/{user}/sessions/{id}/events/{event_id}/graph      the same, the event's step highlighted
    GET  .../eval-sets -> {"evalSetIds": [...]};  GET .../eval_sets -> [...]
    POST .../eval-sets {"evalSet": {"evalSetId": ...}};  POST .../eval_sets/{id}
    POST .../eval-sets/{id}/add-session, .../eval_sets/{id}/add_session   {"evalId", "sessionId", "userId"}
    GET  .../eval_sets/{id}/evals -> [case ids]
    GET|PUT|DELETE .../eval-sets/{id}/eval-cases/{case}, .../eval_sets/{id}/evals/{case}
    POST .../eval-sets/{id}/run -> {"runEvalResults": [...]};  POST .../eval_sets/{id}/run_eval -> [...]
         ({"evalCaseIds"?, "evalMetrics"?: [{"metricName", "threshold"}]}; results saved as `adk-nb eval` does)
    GET  .../eval-results -> {"evalResultIds": [...]}, .../eval_results -> [...], .../eval-results/{id}

Eval sets are the `*.evalset.json` files beside each agent folder's code (`adk-nb eval` reads the same
files). What google-adk's dev UI calls beyond these is listed in the README with the reason it is absent.
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Optional

from pydantic import BaseModel, ConfigDict, alias_generators
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..errors import codes
from .errors import HttpError

# ---- the agent graph (Graphviz DOT, as google-adk's UI renders it) ------------------------------------


def _quote(text: str) -> str:
  return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ") + '"'


_SHAPES = {"tool": "box", "toolset": "box", "node": "box", "start": "circle", "join": "diamond"}
"""DOT shape per graph-node kind; agents of every kind are ellipses, as in google-adk's graph."""
_QUIET_EDGES = {"", "tool", "tools", "transfer"}
"""Edge labels left off the drawing (google-adk draws these edges bare); routes and steps are shown."""


def agent_graph_dot(root: Any, highlights: Iterable[tuple[str, str]] = (), dark_mode: bool = False) -> str:
  """The agent's picture as DOT, from the same `graph_of` the notebook's graph draws.

  Nodes are named by their labels, as google-adk names them (agents, tools, workflow nodes);
  `highlights` are (from, to) name pairs, e.g. (agent, tool) for a call: the nodes and the edge
  between them (either direction) are drawn highlighted.
  """
  from ..inspect.graph import graph_of

  graph = graph_of(root)
  pairs = {(a, b) for a, b in highlights}
  lit = {name for pair in pairs for name in pair if name}
  fg, bg, accent = ("#e8eaed", "#202124", "#8ab4f8") if dark_mode else ("#202124", "#ffffff", "#1a73e8")
  lines = ["digraph {", f'  graph [rankdir=LR, bgcolor="{bg}"];',
           f'  node [fontname="Helvetica", color="{fg}", fontcolor="{fg}"];', f'  edge [color="{fg}"];']
  drawn: set[str] = set()
  for node in graph.nodes.values():
    if node.label in drawn:  # one name, one DOT node (google-adk's graph shares a tool two agents use)
      continue
    drawn.add(node.label)
    style = f', style=filled, fillcolor="{accent}", fontcolor="{bg}"' if node.label in lit else ""
    lines.append(f"  {_quote(node.label)} [shape={_SHAPES.get(node.kind, 'ellipse')}{style}];")
  for edge in graph.edges:
    a, b = graph.nodes[edge.source].label, graph.nodes[edge.target].label
    attributes = [] if edge.label in _QUIET_EDGES else [f"label={_quote(edge.label)}"]
    if (a, b) in pairs or (b, a) in pairs:
      attributes += [f'color="{accent}"', "penwidth=2"]
    lines.append(f"  {_quote(a)} -> {_quote(b)}" + (f" [{', '.join(attributes)}]" if attributes else "") + ";")
  lines.append("}")
  return "\n".join(lines)


def event_highlights(event: Any) -> list[tuple[str, str]]:
  """What an event did, as (from, to) pairs: agent -> tool for calls, tool -> agent for answers."""
  calls = event.get_function_calls()
  if calls:
    return [(event.author, call.name) for call in calls]
  responses = event.get_function_responses()
  if responses:
    return [(response.name, event.author) for response in responses]
  return [(event.author, "")]


# ---- request bodies -----------------------------------------------------------------------------------


class _Body(BaseModel):
  model_config = ConfigDict(alias_generator=alias_generators.to_camel, populate_by_name=True, extra="ignore")


class _EvalSetId(_Body):
  eval_set_id: str


class CreateEvalSetRequest(_Body):
  """The body of POST .../eval-sets (google-adk's: an EvalSet; only its id is used)."""

  eval_set: _EvalSetId


class RunEvalRequest(_Body):
  """The body of POST .../eval-sets/{id}/run (google-adk's; live and user-simulator options are not supported)."""

  eval_case_ids: list[str] = []
  eval_ids: list[str] = []
  """google-adk's older spelling of eval_case_ids."""
  eval_metrics: list[dict[str, Any]] = []
  """EvalMetric objects: {"metricName", "threshold"} or {"metricName", "criterion": {...}}; none: the eval
  set's test_config.json, else the defaults of `adk-nb eval`."""


class AddSessionRequest(_Body):
  """The body of POST .../add-session."""

  eval_id: str
  session_id: str
  user_id: str


def _dump(model: Any) -> Any:
  return model.model_dump(mode="json", by_alias=True, exclude_none=True)


class DevEndpoints:
  """Handlers for the dev-UI routes, over the api server's apps and session store."""

  def __init__(self, server: Any):
    self.server = server
    self._managers: dict[str, Any] = {}

  # ---- graph --------------------------------------------------------------------------------------

  def _root(self, app: str) -> Any:
    self.server.runner(app)  # 404 for an unknown app
    return self.server.loaded[app].agent

  async def graph(self, request: Request) -> Response:
    app = request.path_params["app_name"]
    dark = request.query_params.get("dark_mode", "").lower() in ("1", "true")
    return JSONResponse({"dotSrc": agent_graph_dot(self._root(app), dark_mode=dark)})

  async def event_graph(self, request: Request) -> Response:
    p = request.path_params
    root = self._root(p["app_name"])
    session = await self.server.session_service.get_session(app_name=p["app_name"], user_id=p["user_id"],
                                                            session_id=p["session_id"])
    event = next((e for e in (session.events if session else []) if e.id == p["event_id"]), None)
    if event is None:
      return JSONResponse({})  # as google-adk: an unknown event has no graph
    dark = request.query_params.get("dark_mode", "").lower() in ("1", "true")
    return JSONResponse({"dotSrc": agent_graph_dot(root, event_highlights(event), dark_mode=dark)})

  # ---- eval sets ----------------------------------------------------------------------------------

  def _agents_dir(self, app: str) -> str:
    """The folder holding `app`'s agent folder (eval sets live in the agent folder, results below it)."""
    self.server.runner(app)
    folder = self.server.loaded[app].path
    if folder is None or not folder.is_dir():
      raise HttpError(404, f"App {app!r} was not loaded from a folder, so it has no eval sets.", codes.NOT_FOUND)
    return str(folder.parent)

  def _evals(self, app: str) -> Any:
    """The eval sets manager of `app`: files beside its agent folder's code."""
    from ..evaluation.local_eval_sets_manager import LocalEvalSetsManager

    manager = self._managers.get(app)
    if manager is None:
      manager = self._managers[app] = LocalEvalSetsManager(self._agents_dir(app))
    return manager

  def _call(self, fn, *args, **kwargs) -> Any:
    """Runs a manager call; its ValueErrors (bad id, id taken) are the client's: 400, as google-adk."""
    from ..errors import AdkNbError

    try:
      return fn(*args, **kwargs)
    except ValueError as exc:
      if isinstance(exc, AdkNbError):
        raise
      raise HttpError(400, str(exc), codes.BAD_REQUEST) from exc

  def _ids(self, app: str) -> list[str]:
    from ..errors import NotFoundError

    try:
      return self._evals(app).list_eval_sets(app)
    except NotFoundError:
      return []

  async def list_eval_sets(self, request: Request) -> Response:
    return JSONResponse({"evalSetIds": self._ids(request.path_params["app_name"])})

  async def list_eval_sets_legacy(self, request: Request) -> Response:
    return JSONResponse(self._ids(request.path_params["app_name"]))

  async def create_eval_set(self, request: Request) -> Response:
    app = request.path_params["app_name"]
    req = await self.server.body(request, CreateEvalSetRequest)
    manager = self._evals(app)
    return JSONResponse(_dump(self._call(manager.create_eval_set, app, req.eval_set.eval_set_id)))

  async def create_eval_set_legacy(self, request: Request) -> Response:
    app = request.path_params["app_name"]
    manager = self._evals(app)
    self._call(manager.create_eval_set, app, request.path_params["eval_set_id"])
    return JSONResponse(None)

  async def add_session(self, request: Request) -> Response:
    from ..evaluation.from_session import eval_case_from_session

    p = request.path_params
    app, eval_set_id = p["app_name"], p["eval_set_id"]
    manager = self._evals(app)
    req = await self.server.body(request, AddSessionRequest)
    session = await self.server.session_or_404(app, req.user_id, req.session_id)
    case = self._call(eval_case_from_session, session, eval_id=req.eval_id)
    self._call(manager.add_eval_case, app, eval_set_id, case)
    return JSONResponse(None)

  def _eval_set(self, app: str, eval_set_id: str) -> Any:
    eval_set = self._call(self._evals(app).get_eval_set, app, eval_set_id)
    if eval_set is None:
      raise HttpError(404, f"Eval set {eval_set_id!r} not found for app {app!r}; create it with POST "
                           f"/dev/apps/{app}/eval-sets.", codes.NOT_FOUND)
    return eval_set

  async def list_cases(self, request: Request) -> Response:
    p = request.path_params
    return JSONResponse(sorted(c.eval_id for c in self._eval_set(p["app_name"], p["eval_set_id"]).eval_cases))

  def _case(self, request: Request) -> Optional[Any]:
    p = request.path_params
    eval_set = self._eval_set(p["app_name"], p["eval_set_id"])
    return next((c for c in eval_set.eval_cases if c.eval_id == p["eval_case_id"]), None)

  async def get_case(self, request: Request) -> Response:
    case = self._case(request)
    if case is None:
      p = request.path_params
      raise HttpError(404, f"Eval case {p['eval_case_id']!r} not found in eval set {p['eval_set_id']!r}.",
                      codes.NOT_FOUND)
    return JSONResponse(_dump(case))

  async def update_case(self, request: Request) -> Response:
    from ..evaluation.eval_case import EvalCase

    p = request.path_params
    app, case_id = p["app_name"], p["eval_case_id"]
    manager = self._evals(app)
    case = await self.server.body(request, EvalCase)
    if case.eval_id and case.eval_id != case_id:
      raise HttpError(400, f"The case's evalId {case.eval_id!r} differs from the one in the path ({case_id!r}).",
                      codes.BAD_REQUEST)
    case.eval_id = case_id
    self._call(manager.update_eval_case, app, p["eval_set_id"], case)
    return JSONResponse(None)

  async def delete_case(self, request: Request) -> Response:
    p = request.path_params
    manager = self._evals(p["app_name"])
    self._call(manager.delete_eval_case, p["app_name"], p["eval_set_id"], p["eval_case_id"])
    return JSONResponse(None)

  # ---- eval runs and their results ----------------------------------------------------------------

  def _results(self, app: str) -> Any:
    from ..evaluation.local_eval_set_results_manager import LocalEvalSetResultsManager

    return LocalEvalSetResultsManager(self._agents_dir(app))

  async def _run_eval(self, request: Request) -> list[dict]:
    from ..evaluation import EvalConfig, EvalMetric, evaluate

    p = request.path_params
    app, eval_set_id = p["app_name"], p["eval_set_id"]
    self._eval_set(app, eval_set_id)  # 404 for an unknown eval set
    req = await self.server.body(request, RunEvalRequest, required=False) or RunEvalRequest()
    config = None
    if req.eval_metrics:
      metrics = [self._call(EvalMetric.model_validate, m) for m in req.eval_metrics]
      config = EvalConfig(criteria={m.metric_name: m.criterion if m.criterion is not None else m.threshold
                                    for m in metrics})
    path = os.path.join(self._agents_dir(app), app, eval_set_id + ".evalset.json")  # _eval_set checked the id
    try:
      results = await evaluate(self.server.loaded[app].target, path, config, cases=req.eval_case_ids or req.eval_ids
                               or None, progress=False, app_name=app)
    except ValueError as exc:  # an unknown case or metric, an empty eval set: the request's fault
      from ..errors import AdkNbError

      if isinstance(exc, AdkNbError):
        raise
      raise HttpError(400, str(exc), codes.BAD_REQUEST) from exc
    self._results(app).save_eval_set_result(app, eval_set_id, results.case_results)
    return [{**_dump(case), "evalSetId": eval_set_id} for case in results.case_results]

  async def run_eval(self, request: Request) -> Response:
    return JSONResponse({"runEvalResults": await self._run_eval(request)})

  async def run_eval_legacy(self, request: Request) -> Response:
    return JSONResponse(await self._run_eval(request))

  async def list_results(self, request: Request) -> Response:
    app = request.path_params["app_name"]
    return JSONResponse({"evalResultIds": sorted(self._results(app).list_eval_set_results(app))})

  async def list_results_legacy(self, request: Request) -> Response:
    app = request.path_params["app_name"]
    return JSONResponse(sorted(self._results(app).list_eval_set_results(app)))

  async def get_result(self, request: Request) -> Response:
    p = request.path_params
    return JSONResponse(_dump(self._results(p["app_name"]).get_eval_set_result(p["app_name"], p["eval_result_id"])))

  def routes(self) -> list[tuple[str, Any, list[str]]]:
    """(path, handler, methods) for each dev route, at google-adk 2.13's paths and the 1.x ones."""
    table = []
    for base in ("/dev/apps/{app_name}", "/apps/{app_name}"):
      sets, legacy = base + "/eval-sets", base + "/eval_sets"
      table += [
          (base + "/graph", self.graph, ["GET"]),
          (base + "/users/{user_id}/sessions/{session_id}/events/{event_id}/graph", self.event_graph, ["GET"]),
          (sets, self.list_eval_sets, ["GET"]),
          (sets, self.create_eval_set, ["POST"]),
          (legacy, self.list_eval_sets_legacy, ["GET"]),
          (legacy + "/{eval_set_id}", self.create_eval_set_legacy, ["POST"]),
          (sets + "/{eval_set_id}/add-session", self.add_session, ["POST"]),
          (legacy + "/{eval_set_id}/add_session", self.add_session, ["POST"]),
          (legacy + "/{eval_set_id}/evals", self.list_cases, ["GET"]),
          (sets + "/{eval_set_id}/eval-cases/{eval_case_id}", self.get_case, ["GET"]),
          (sets + "/{eval_set_id}/eval-cases/{eval_case_id}", self.update_case, ["PUT"]),
          (sets + "/{eval_set_id}/eval-cases/{eval_case_id}", self.delete_case, ["DELETE"]),
          (legacy + "/{eval_set_id}/evals/{eval_case_id}", self.get_case, ["GET"]),
          (legacy + "/{eval_set_id}/evals/{eval_case_id}", self.update_case, ["PUT"]),
          (legacy + "/{eval_set_id}/evals/{eval_case_id}", self.delete_case, ["DELETE"]),
          (sets + "/{eval_set_id}/run", self.run_eval, ["POST"]),
          (legacy + "/{eval_set_id}/run_eval", self.run_eval_legacy, ["POST"]),
          (base + "/eval-results", self.list_results, ["GET"]),
          (base + "/eval_results", self.list_results_legacy, ["GET"]),
          (base + "/eval-results/{eval_result_id}", self.get_result, ["GET"]),
          (base + "/eval_results/{eval_result_id}", self.get_result, ["GET"]),
      ]
    return table
