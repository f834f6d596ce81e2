// adk_nb graph: an agent tree or workflow graph, laid out in the kernel (networkx, top to bottom) and drawn
// here as SVG. Labels and route names are inserted with textContent, never as HTML. Each
// node shows its status as a word and a symbol (never colour alone) and its run count.

const SVG = "http://www.w3.org/2000/svg";
const NODE_W = 136;
const NODE_H = 40;

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function short(text, n) {
  const s = String(text || "");
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function render({ model, el: root }) {
  root.classList.add("adknb-graph");
  const header = document.createElement("div");
  header.className = "adknb-graph-header";
  const caption = document.createElement("span");
  caption.className = "adknb-graph-title";
  const hint = document.createElement("span");
  hint.className = "adknb-graph-hint";
  hint.textContent = "click a node to filter the steps";
  header.append(caption, hint);
  const frame = document.createElement("div");
  frame.className = "adknb-graph-frame";
  root.append(header, frame);
  let boxes = new Map();

  function draw() {
    const data = model.get("graph") || {};
    caption.textContent = model.get("title") || "graph";
    frame.textContent = "";
    boxes = new Map();
    const width = Math.max(data.width || 0, NODE_W + 20);
    const height = Math.max(data.height || 0, NODE_H + 20);
    const drawing = svg("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img" });
    drawing.setAttribute("aria-label", `graph of ${model.get("title") || "the agent"}`);
    const defs = svg("defs");
    const marker = svg("marker", { id: `adknb-arrow-${model.cid || "g"}`, viewBox: "0 0 10 10", refX: 10, refY: 5,
                                   markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" });
    marker.append(svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "adknb-arrowhead" }));
    defs.append(marker);
    drawing.append(defs);
    const byId = new Map((data.nodes || []).map((n) => [n.id, n]));
    const edges = svg("g", { class: "adknb-edges" });
    for (const e of data.edges || []) {
      const a = byId.get(e.source), b = byId.get(e.target);
      if (!a || !b) continue;
      let d, lx, ly, anchor = "middle";
      if (b.y > a.y) {  // down to a later layer: from the bottom of a to the top of b
        const y1 = a.y + NODE_H / 2, y2 = b.y - NODE_H / 2;
        d = `M ${a.x} ${y1} C ${a.x} ${y1 + 24}, ${b.x} ${y2 - 24}, ${b.x} ${y2}`;
        lx = (a.x + b.x) / 2 + 4; ly = (y1 + y2) / 2 + 4; anchor = "start";
      } else {  // back up (a loop) or within a layer: an arc on the right of both
        const x1 = a.x + NODE_W / 2, x2 = b.x + NODE_W / 2, out = Math.max(x1, x2) + 36;
        d = `M ${x1} ${a.y} C ${out} ${a.y}, ${out} ${b.y}, ${x2} ${b.y}`;
        lx = out - 6; ly = (a.y + b.y) / 2 + 4; anchor = "start";
      }
      const path = svg("path", { d, class: "adknb-edge", "marker-end": `url(#adknb-arrow-${model.cid || "g"})` });
      path.dataset.source = e.source;
      path.dataset.target = e.target;
      edges.append(path);
      if (e.label) edges.append(svg("text", { x: lx, y: ly, class: "adknb-edge-label", "text-anchor": anchor }, e.label));
    }
    drawing.append(edges);
    for (const n of data.nodes || []) {
      const g = svg("g", { class: "adknb-gnode", transform: `translate(${n.x - NODE_W / 2} ${n.y - NODE_H / 2})`,
                           tabindex: 0 });
      g.dataset.id = n.id;
      g.dataset.kind = n.kind;
      const title = svg("title", {}, `${n.kind}: ${n.label}`);
      const rect = svg("rect", { width: NODE_W, height: NODE_H, rx: n.kind === "start" ? 20 : 5 });
      const label = svg("text", { x: NODE_W / 2, y: 16, "text-anchor": "middle", class: "adknb-gnode-label" },
                        short(n.label, 20));
      const status = svg("text", { x: NODE_W / 2, y: 32, "text-anchor": "middle", class: "adknb-gnode-status" });
      g.append(title, rect, label, status);
      g.addEventListener("click", () => model.send({ type: "select", id: n.id }));
      g.addEventListener("keydown", (ev) => { if (ev.key === "Enter") model.send({ type: "select", id: n.id }); });
      drawing.append(g);
      boxes.set(n.id, { g, status, kind: n.kind });
    }
    frame.append(drawing);
    paint();
  }

  function paint() {
    const all = model.get("status") || {};
    const words = model.get("status_text") || {};  // adk_nb.inspect.graph.GRAPH_STATUS_TEXT
    for (const [id, box] of boxes) {
      const entry = all[id];
      const value = entry ? entry.status : "waiting";
      box.g.dataset.status = value;
      if (box.kind === "start") { box.status.textContent = ""; continue; }
      const runs = entry && entry.runs > 1 ? ` · ${entry.runs} runs` : "";
      box.status.textContent = `${words[value] || value}${runs}`;
    }
  }

  draw();
  model.on("change:graph", draw);
  model.on("change:title", draw);
  model.on("change:status", paint);  // anywidget removes these listeners when the view goes
}

export default { render };
