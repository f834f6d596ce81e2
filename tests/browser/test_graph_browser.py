"""The graph's geometry and glyphs in a real JupyterLab and Chromium (issue 30 item 9).

A small graph has no empty band above, below or right of it, a tall workflow is shown whole (no scroll box
cutting off its bottom), and every status symbol is drawn by a font the browser has (not the
empty box of a missing glyph, which `⏸` was).
"""

from __future__ import annotations

from tests.browser.test_runview import _open_and_run_all, _wait_for_cells_to_finish

GRAPH_NOTEBOOK = [
    '''%load_ext adk_nb
from adk_nb import Agent, Workflow
from adk_nb.models import ScriptedModel
from adk_nb.notebook import graph_view
def make(i):
    def step(node_input: str = ""):
        return node_input
    step.__name__ = step.__qualname__ = f"step{i}"
    return step
small = Agent(name="root", model=ScriptedModel([]), sub_agents=[Agent(name="helper", model=ScriptedModel([]))])
tall = Workflow(name="tall", edges=[("START", *[make(i) for i in range(12)])])''',
    '''graph_view(small)''',
    '''g = graph_view(tall)
statuses = ["waiting", "running", "paused", "done", "rejected", "error"]
ids = [n["id"] for n in g.graph["nodes"] if n["kind"] != "start"]
g.status = {node: {"status": statuses[k % 6], "runs": 1} for k, node in enumerate(ids)}
g''',
]

GEOMETRY = """(root) => {
  const svg = root.querySelector('svg'), frame = root.querySelector('.adknb-graph-frame');
  const s = svg.getBoundingClientRect(), f = frame.getBoundingClientRect();
  const boxes = [...root.querySelectorAll('.adknb-gnode rect')].map(r => r.getBoundingClientRect());
  return {above: Math.min(...boxes.map(b => b.top)) - s.top, below: s.bottom - Math.max(...boxes.map(b => b.bottom)),
          right: s.right - Math.max(...boxes.map(b => b.right)),
          lowest: Math.max(...boxes.map(b => b.bottom)), frameBottom: f.bottom,
          scroll: frame.scrollHeight, client: frame.clientHeight, nodes: boxes.length};
}"""

# A glyph no font has is drawn as the font's empty box (or not at all): the same pixels as an unassigned code point.
GLYPHS = """(root) => {
  const text = root.querySelector('.adknb-gnode-status');
  const style = getComputedStyle(text);
  const canvas = document.createElement('canvas');
  canvas.width = 48; canvas.height = 48;
  const ctx = canvas.getContext('2d');
  const draw = (ch) => {
    ctx.clearRect(0, 0, 48, 48);
    ctx.font = `32px ${style.fontFamily}`;
    ctx.textBaseline = 'top';
    ctx.fillStyle = '#000';
    ctx.fillText(ch, 4, 4);
    return ctx.getImageData(0, 0, 48, 48).data.join(',');
  };
  const missing = [draw('\\u0378'), draw('\\u0379')];
  const symbols = [...new Set([...root.querySelectorAll('.adknb-gnode-status')].map(t => [...t.textContent][0]).filter(Boolean))];
  return symbols.map(ch => [ch, !missing.includes(draw(ch))]);
}"""


def test_the_graph_is_sized_to_its_content_and_its_glyphs_render(page, lab, write_notebook):
  name = write_notebook("graph.ipynb", GRAPH_NOTEBOOK)
  _open_and_run_all(page, lab, name)
  page.locator(".adknb-graph").nth(1).wait_for(timeout=90_000)
  _wait_for_cells_to_finish(page)
  small, tall = page.locator(".adknb-graph").nth(0), page.locator(".adknb-graph").nth(1)
  tall.locator(".adknb-gnode[data-status='error']").first.wait_for(timeout=30_000)

  # A small graph: the boxes start and end near the drawing's edges (no empty band).
  geometry = small.evaluate(GEOMETRY)
  assert geometry["nodes"] == 2
  assert 0 <= geometry["above"] <= 16 and 0 <= geometry["below"] <= 16, geometry
  assert 0 <= geometry["right"] <= 24, geometry  # no room kept for labels a tree of agents does not have
  # A tall workflow (13 boxes, ~850 px): all of it is in view of its frame, which does not scroll.
  geometry = tall.evaluate(GEOMETRY)
  assert geometry["nodes"] == 13
  assert geometry["lowest"] <= geometry["frameBottom"] + 0.5, geometry
  assert geometry["scroll"] <= geometry["client"] + 1, geometry
  assert 0 <= geometry["above"] <= 16 and 0 <= geometry["below"] <= 16, geometry
  # Every status symbol is drawn by some font here.
  glyphs = tall.evaluate(GLYPHS)
  assert len(glyphs) == 6 and [ch for ch, drawn in glyphs if not drawn] == [], glyphs
