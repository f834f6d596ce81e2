// adk_nb event tree: draws nodes sent by the kernel. Every model, tool and state text is
// inserted with textContent, never as HTML. Updates arrive as append-only batches
// ({type: "ops", seq, ops}); the `nodes` trait holds the full snapshot for reloads.

// The labels and status words come from Python (adk_nb.inspect.LABELS / STATUS_TEXT) in
// the `labels` and `status_text` traits, so the live view, static HTML and trajectory agree.

/**
 * @typedef {{id: string, parent: ?string, kind: string, title: string, text: string, status: string,
 *            t?: number, ms?: number, meta?: string, result?: string, branch?: string, traceback?: string,
 *            folded?: boolean, sources?: {title: string, href: string}[], queries?: string[]}} Node
 */

const CONTAINERS = new Set(["invocation", "agent", "sequential", "parallel", "loop", "iteration", "workflow", "node"]);

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

// Only http(s) links are made clickable (the kernel already blanks other hrefs; this is the second check).
function safeHref(href) {
  return typeof href === "string" && /^https?:\/\//i.test(href.trim());
}

// A grounded model call's sources (links) and the searches it ran, all as text nodes.
function paintGrounding(box, n) {
  box.textContent = "";
  const sources = n.sources || [];
  const queries = n.queries || [];
  box.hidden = !sources.length && !queries.length;
  if (sources.length) {
    const list = el("ul");
    for (const source of sources) {
      const item = el("li");
      if (safeHref(source.href)) {
        const link = el("a", "", source.title || source.href);
        link.href = source.href;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        item.append(link);
      } else {
        item.textContent = source.title || "";
      }
      list.append(item);
    }
    box.append(el("div", "adknb-grounding-title", "sources"), list);
  }
  if (queries.length) {
    const list = el("ul");
    for (const q of queries) list.append(el("li", "", q));
    box.append(el("div", "adknb-grounding-title", "searched"), list);
  }
}

function render({ model, el: root }) {
  root.classList.add("adknb-tree");
  const header = el("div", "adknb-header");
  const title = el("span", "adknb-title");
  const status = el("span", "adknb-status");
  const count = el("span", "adknb-count");
  header.append(title, status, count);
  // Tools: a filter (author, kind or text), expand all, errors only.
  const tools = el("div", "adknb-tools");
  const filter = el("input", "adknb-filter");
  filter.type = "search";
  filter.placeholder = "filter: author, kind or text";
  filter.setAttribute("aria-label", "filter the steps");
  const expand = el("button", "adknb-expand", "expand all");
  const errorsOnly = el("label", "adknb-errors-only");
  const errorsBox = el("input");
  errorsBox.type = "checkbox";
  errorsOnly.append(errorsBox, document.createTextNode(" errors only"));
  const timelineButton = el("button", "adknb-timeline-toggle", "timeline");
  timelineButton.setAttribute("aria-pressed", "false");
  tools.append(filter, expand, errorsOnly, timelineButton);
  const timeline = el("div", "adknb-timeline");
  timeline.hidden = true;
  const body = el("div", "adknb-body");
  root.append(header, tools, timeline, body);

  let byId = new Map();
  let seq = 0;
  let waiting = false;

  function setStatus() {
    const value = model.get("status") || "";
    setTicker();
    drawTimeline();
    status.textContent = value;
    status.dataset.status = value;
    root.dataset.status = value;
    title.textContent = model.get("title") || "agent run";
    const words = model.get("status_text") || {};
    status.textContent = words[value] || value;
  }

  function paint(entry) {
    const n = entry.data;
    const labels = model.get("labels") || {};
    const words = model.get("status_text") || {};
    entry.title.textContent = n.title || "";
    entry.kind.textContent = labels[n.kind] || n.kind || "";
    entry.status.textContent = n.status ? (words[n.status] || n.status) : "";
    entry.status.dataset.status = n.status || "";
    entry.ms.textContent = n.ms !== undefined && n.ms !== null ? formatMs(n.ms) : "";
    entry.meta.textContent = n.meta || "";
    entry.text.textContent = n.text || "";
    entry.text.hidden = !n.text;
    entry.result.textContent = n.result ? `→ ${n.result}` : "";
    entry.result.hidden = !n.result;
    paintGrounding(entry.grounding, n);
    entry.tracebackText.textContent = n.traceback || "";  // an exception's traceback, folded
    entry.traceback.hidden = !n.traceback;
    entry.root.dataset.kind = n.kind;
    entry.root.dataset.status = n.status || "";
    entry.root.dataset.author = n.title || "";
  }

  // ---- filter ----------------------------------------------------------------------------------

  function matches(entry, needle, errors) {
    const n = entry.data;
    if (errors && !(n.status === "error" || n.status === "rejected" || n.kind === "error")) return false;
    if (!needle) return true;
    const labels = model.get("labels") || {};
    const hay = `${labels[n.kind] || n.kind} ${n.kind} ${n.title || ""} ${n.text || ""} ${n.branch || ""}`;
    return hay.toLowerCase().includes(needle);
  }

  function applyFilter() {
    const needle = filter.value.trim().toLowerCase();
    const errors = errorsBox.checked;
    root.dataset.filtered = needle || errors ? "yes" : "";
    if (!needle && !errors) { for (const e of byId.values()) e.root.hidden = false; return; }
    const keep = new Set();
    const matched = new Set();
    for (const [id, entry] of byId) if (matches(entry, needle, errors)) matched.add(id);
    for (const [id, entry] of byId) {
      // Everything inside a matching agent (or other container) shows too: "author" filters by agent.
      let hit = matched.has(id);
      for (let up = entry.data.parent; !hit && up !== null && up !== undefined; ) {
        const e = byId.get(up);
        if (!e) break;
        if (matched.has(up) && !errors && e.root.classList.contains("adknb-container")) hit = true;
        up = e.data.parent;
      }
      if (!hit) continue;
      // A match shows with its ancestors, so it stays in its place in the tree.
      let cur = id;
      while (cur !== null && cur !== undefined && !keep.has(cur)) {
        keep.add(cur);
        const e = byId.get(cur);
        cur = e ? e.data.parent : null;
      }
    }
    for (const [id, entry] of byId) {
      entry.root.hidden = !keep.has(id);
      if (keep.has(id)) entry.root.open = true;
    }
  }

  // ---- timeline: a trace view of the same nodes, one row per span -----------------------------
  // Rows follow the tree (invocation > agent > model call / tool call / human wait), indented by depth, each
  // with its whole label, a bar at least a few pixels wide and its duration written beside it. A wait on a
  // person is drawn broken: it takes at most WAIT_SHARE of the axis, so it does not squash everything else.

  const BARS = new Set(["invocation", "agent", "sequential", "parallel", "loop", "workflow", "node", "model_call",
                        "tool_call", "approval", "input_request"]);
  const LANES = new Set(["agent", "sequential", "parallel", "loop", "workflow"]);
  const RUNNING = new Set(["running", "streaming", "pending", "needs approval"]);
  const HUMAN = new Set(["approval", "input_request"]);
  const WAIT_SHARE = 0.1;

  function laneOf(entry) {
    for (let e = entry; e; e = byId.get(e.data.parent)) {
      if (e.data.kind === "node") return String(e.data.title || "").replace(/@\d+$/, "");  // writer@1, writer@2 -> writer
      if (LANES.has(e.data.kind)) return e.data.branch && e.data.branch.includes(".") ? `${e.data.title} (${e.data.branch})` : e.data.title;
      if (e.data.parent === null || e.data.parent === undefined) break;
    }
    return "run";
  }

  // Tree batches arrive up to 15 times a second and a running step ticks 4 times a second: the
  // timeline redraws (every bar again) at most 10 times a second, the last change always drawn.
  const TIMELINE_EVERY_MS = 100;
  let lastTimeline = 0;
  let timelineTimer = null;
  function scheduleTimeline() {
    if (timeline.hidden || timelineTimer !== null) return;
    const wait = Math.max(0, lastTimeline + TIMELINE_EVERY_MS - Date.now());
    timelineTimer = setTimeout(() => { timelineTimer = null; drawTimeline(); }, wait);
  }

  // The spans in tree order (a parent before its children), each with its depth among spans.
  function spans(now) {
    const kids = new Map();
    for (const entry of byId.values()) {
      const parent = entry.data.parent ?? null;
      if (!kids.has(parent)) kids.set(parent, []);
      kids.get(parent).push(entry);
    }
    const out = [];
    const walk = (parent, depth) => {
      for (const entry of kids.get(parent) || []) {
        const n = entry.data;
        const timed = BARS.has(n.kind) && n.t !== undefined && n.t !== null;
        if (timed) {
          const running = (n.ms === undefined || n.ms === null) && RUNNING.has(n.status);
          const end = n.ms !== undefined && n.ms !== null ? n.t + n.ms / 1000 : (running ? now : n.t);
          out.push({ n, entry, depth, start: n.t, end, running, human: HUMAN.has(n.kind) });
        }
        walk(n.id, timed ? depth + 1 : depth);
      }
    };
    walk(null, 0);
    return out;
  }

  // Time to axis position: every wait on a person shrinks to at most WAIT_SHARE of the busy time.
  function axis(rows, t0) {
    const waits = rows.filter((r) => r.human && r.end > r.start).map((r) => [r.start, r.end]).sort((a, b) => a[0] - b[0]);
    const merged = [];
    for (const w of waits) {
      const last = merged[merged.length - 1];
      if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]); else merged.push([...w]);
    }
    const t1 = Math.max(...rows.map((r) => r.end));
    const waited = merged.reduce((sum, [a, b]) => sum + (b - a), 0);
    const cap = Math.max(t1 - t0 - waited, 0.001) * WAIT_SHARE;
    const scale = merged.map(([a, b]) => Math.min(1, cap / (b - a)));
    const at = (t) => {
      let v = t - t0;
      merged.forEach(([a, b], i) => { if (t > a) v -= (Math.min(t, b) - a) * (1 - scale[i]); });
      return v;
    };
    return { at, total: Math.max(at(t1), 0.001), broken: (r) => merged.some(([a, b], i) => scale[i] < 1 && r.start < b && r.end > a) };
  }

  function drawTimeline() {
    if (timeline.hidden) return;
    lastTimeline = Date.now();
    const labels = model.get("labels") || {};
    const rows = spans(Date.now() / 1000);
    timeline.textContent = "";
    if (!rows.length) { timeline.append(el("div", "adknb-timeline-empty", "nothing timed yet")); return; }
    const t0 = Math.min(...rows.map((r) => r.start));
    const { at, total, broken } = axis(rows, t0);
    for (const r of rows) {
      const text = `${r.human ? "human wait: " : ""}${labels[r.n.kind] || r.n.kind} ${r.n.title}`;
      const row = el("div", "adknb-span");
      row.dataset.lane = laneOf(r.entry);
      row.dataset.kind = r.n.kind;
      const name = el("div", "adknb-span-name", text);
      name.style.paddingLeft = `${r.depth * 0.9}em`;
      const track = el("div", "adknb-track");
      const bar = el("div", "adknb-bar");
      bar.dataset.kind = r.n.kind;
      bar.dataset.status = r.n.status || "";
      if (r.running) bar.dataset.running = "yes";
      const left = (at(r.start) / total) * 100, right = (at(r.end) / total) * 100;
      bar.style.left = `${left}%`;
      bar.style.width = `${right - left}%`;  // CSS gives every bar a minimum width, so 0 ms still shows
      const ms = (r.end - r.start) * 1000;
      const cut = broken(r);
      if (cut) bar.dataset.broken = "yes";  // drawn shortened, with a break mark; the text gives its real length
      const dur = el("span", "adknb-dur", `${cut ? "≈ " : ""}${formatMs(ms)}${r.running ? " so far" : ""}`);
      if (right <= 78) dur.style.left = `calc(${right}% + 4px)`; else dur.style.right = `calc(${100 - left}% + 4px)`;
      bar.title = `${text}\n${formatMs(ms)}${r.running ? " so far" : ""} · ${r.n.status || ""}`;
      track.append(bar, dur);
      row.append(name, track);
      timeline.append(row);
    }
    timeline.append(el("div", "adknb-timeline-axis",
                       `0 … ${formatMs((Math.max(...rows.map((r) => r.end)) - t0) * 1000)}` +
                       (rows.some((r) => broken(r)) ? " (waits on a person drawn shortened)" : "")));
  }

  let ticker = null;
  function setTicker() {
    const live = !timeline.hidden && model.get("status") === "running";
    if (live && ticker === null) ticker = setInterval(scheduleTimeline, 250);  // running bars grow to "now"
    if (!live && ticker !== null) { clearInterval(ticker); ticker = null; }
  }

  // Open or closed lives in the `timeline` trait, so a view re-rendered when a run step ends (the cell's
  // display is refreshed) keeps the timeline a person opened.
  function showTimeline(open) {
    timeline.hidden = !open;
    timelineButton.setAttribute("aria-pressed", String(open));
    drawTimeline();
    setTicker();
  }
  timelineButton.addEventListener("click", () => {
    showTimeline(timeline.hidden);
    model.set("timeline", !timeline.hidden);
    model.save_changes();
  });
  function onTimelineTrait() {
    if (Boolean(model.get("timeline")) === timeline.hidden) showTimeline(Boolean(model.get("timeline")));
  }

  // ---- what a person opened --------------------------------------------------------------------
  // The cell's display is refreshed when a run step ends (JupyterLab draws the widget anew) and the
  // snapshot then rebuilds the tree: every step is drawn from these traits, so what a person opened
  // or folded stays so, in every view of the widget. Ids only, never payloads, and a bounded number.

  const REMEMBERED = 500;  // ids kept per trait (the oldest choice goes first): the widget state stays small

  function remember(name, id, value) {
    const map = { ...(model.get(name) || {}) };
    delete map[id];  // set again below, as the newest
    if (value !== undefined) map[id] = value;
    const ids = Object.keys(map);
    for (const old of ids.slice(0, Math.max(0, ids.length - REMEMBERED))) delete map[old];
    model.set(name, map);
    model.save_changes();
  }

  function startsOpen(n) {
    const chosen = (model.get("opened") || {})[n.id];
    if (chosen !== undefined) return Boolean(chosen);
    if (model.get("expanded")) return true;
    // Tool calls, state changes and thoughts start folded (the step model says which); everything else is open.
    return !(n.folded || n.kind === "state" || n.kind === "tool_call");
  }

  function onOpenedTrait() {
    const chosen = model.get("opened") || {};
    // "expand all" empties the choices: every step opens (and so does every step arriving later).
    if (model.get("expanded") && !Object.keys(chosen).length) for (const entry of byId.values()) entry.root.open = true;
    for (const [id, open] of Object.entries(chosen)) {
      const entry = byId.get(id);
      if (entry) entry.root.open = Boolean(open);
    }
  }

  function onTracebacksTrait() {
    const open = model.get("tracebacks") || {};
    for (const [id, entry] of byId) entry.traceback.open = Boolean(open[id]);
  }

  function onErrorsOnlyTrait() {
    const value = Boolean(model.get("errors_only"));
    if (errorsBox.checked !== value) errorsBox.checked = value;
    applyFilter();
  }

  // ---- detail on demand --------------------------------------------------------------------------
  // Payloads travel as messages and are kept only here, in this drawing (never in the widget state).

  const details = new Map();    // id -> the last detail message seen for it
  const asked = new Set();      // "id full" requests this drawing sent and has no answer for yet

  function complete(msg) {
    return !(msg.sections || []).some((section) => section.cut);
  }

  function askDetail(id, full) {
    const key = `${id} ${full}`;
    if (asked.has(key)) return;
    asked.add(key);
    model.send({ type: "detail", id, full });
  }

  // Shows the panel of a step whose details are open (the `detail_panels` trait), asking the kernel when needed.
  function drawDetail(entry) {
    const id = entry.data.id;
    const wanted = (model.get("detail_panels") || {})[id];
    if (wanted === undefined) { entry.detail.hidden = true; entry.detail.textContent = ""; return; }
    const msg = details.get(id);
    if (msg) paintDetail(entry, msg);
    if (!msg || (wanted && !complete(msg))) askDetail(id, Boolean(wanted));
  }

  // While a details panel is open the tree grows to its content, so a model request is read in the page,
  // not by scrolling inside the tree's box.
  function grow() {
    root.classList.toggle("adknb-reading", Object.keys(model.get("detail_panels") || {}).length > 0);
  }

  function onDetailPanelsTrait() {
    grow();
    for (const entry of byId.values()) {
      if (!entry.detail.hidden || (model.get("detail_panels") || {})[entry.data.id] !== undefined) drawDetail(entry);
    }
  }

  function showDetail(msg) {
    details.set(msg.id, msg);
    asked.delete(`${msg.id} false`);  // any answer will do for the first 20,000 characters
    if (complete(msg)) asked.delete(`${msg.id} true`);
    const entry = byId.get(msg.id);
    if (entry) drawDetail(entry);
  }

  function paintDetail(entry, msg) {
    const box = entry.detail;
    box.textContent = "";
    box.hidden = false;
    for (const section of msg.sections || []) {
      const part = el("details", "adknb-section");
      part.open = true;
      const head = el("summary", "adknb-section-title", section.title);
      const pre = el("pre", "adknb-section-text", section.text);
      part.append(head, pre);
      if (section.cut) {
        const more = el("button", "adknb-more", `show all ${section.cut.toLocaleString()} characters`);
        more.addEventListener("click", () => { askDetail(msg.id, true); remember("detail_panels", msg.id, true); });
        part.append(more);
      }
      box.append(part);
    }
  }

  function add(n) {
    if (byId.has(n.id)) { Object.assign(byId.get(n.id).data, n); paint(byId.get(n.id)); return; }
    const nodeRoot = el("details", "adknb-node");
    if (CONTAINERS.has(n.kind)) nodeRoot.classList.add("adknb-container");
    nodeRoot.open = startsOpen(n);
    const summary = el("summary");
    const entry = {
      data: { ...n }, root: nodeRoot,
      kind: el("span", "adknb-kind"), title: el("span", "adknb-node-title"),
      status: el("span", "adknb-node-status"), ms: el("span", "adknb-ms"), meta: el("span", "adknb-meta"),
      text: el("pre", "adknb-text"), result: el("pre", "adknb-result"), grounding: el("div", "adknb-grounding"),
      traceback: el("details", "adknb-traceback"), tracebackText: el("pre", "adknb-text"),
      detail: el("div", "adknb-detail"), info: el("button", "adknb-info", "details"),
      children: el("div", "adknb-children"),
    };
    entry.detail.hidden = true;
    entry.info.title = "Show the request, response and event of this step";
    entry.info.addEventListener("click", (ev) => {
      ev.preventDefault();  // a button in a <summary> would also fold the node
      const shown = (model.get("detail_panels") || {})[entry.data.id] !== undefined;
      remember("detail_panels", entry.data.id, shown ? undefined : false);
      drawDetail(entry);
    });
    // A click folds or opens the step here and records it in the `opened` trait, which every view follows.
    summary.addEventListener("click", (ev) => {
      if (ev.defaultPrevented) return;  // the details button
      ev.preventDefault();
      nodeRoot.open = !nodeRoot.open;
      remember("opened", entry.data.id, nodeRoot.open);
    });
    summary.append(entry.kind, entry.title, entry.status, entry.ms, entry.meta, entry.info);
    const tracebackSummary = el("summary", "", "traceback");
    tracebackSummary.addEventListener("click", (ev) => {
      ev.preventDefault();
      entry.traceback.open = !entry.traceback.open;
      remember("tracebacks", entry.data.id, entry.traceback.open ? true : undefined);
    });
    entry.traceback.open = Boolean((model.get("tracebacks") || {})[n.id]);
    entry.traceback.append(tracebackSummary, entry.tracebackText);
    nodeRoot.append(summary, entry.text, entry.result, entry.grounding, entry.traceback, entry.detail, entry.children);
    paint(entry);
    const parent = n.parent !== null && n.parent !== undefined ? byId.get(n.parent) : undefined;
    (parent ? parent.children : body).appendChild(nodeRoot);
    byId.set(n.id, entry);
    if ((model.get("detail_panels") || {})[n.id] !== undefined) drawDetail(entry);
  }

  function apply(op) {
    const [kind, a, b] = op;
    if (kind === "add") { add(a); return; }
    const entry = byId.get(a);
    if (!entry) return;
    if (kind === "set") { Object.assign(entry.data, b); paint(entry); }
    else if (kind === "text") { entry.data.text = (entry.data.text || "") + b; paint(entry); }
  }

  function rebuild(nodes, newSeq) {
    body.textContent = "";
    byId = new Map();
    for (const n of nodes || []) add(n);
    seq = newSeq || 0;
    count.textContent = `${byId.size} steps`;
    if (root.dataset.filtered) applyFilter();
  }

  function onMsg(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "reset") { waiting = false; rebuild(msg.nodes, msg.seq); return; }
    if (msg.type === "detail") { showDetail(msg); return; }
    if (msg.type !== "ops") return;
    if (msg.seq <= seq) return;            // already in the snapshot
    if (msg.seq !== seq + 1) {             // a gap: ask for everything once
      if (!waiting) { waiting = true; model.send({ type: "hello" }); }
      return;
    }
    for (const op of msg.ops) apply(op);
    seq = msg.seq;
    count.textContent = `${byId.size} steps`;
    if (root.dataset.filtered) applyFilter();
    scheduleTimeline();
  }

  function onSnapshot() {
    if ((model.get("seq") || 0) >= seq) rebuild(model.get("nodes"), model.get("seq"));
  }

  // The graph sets `filter` when a node is clicked; typing in the box sets it too, so a view
  // re-rendered later (the cell's display is refreshed when a run step ends) keeps the same filter.
  function onFilterTrait() {
    if (filter.value !== (model.get("filter") || "")) filter.value = model.get("filter") || "";
    applyFilter();
  }
  filter.addEventListener("input", () => { applyFilter(); model.set("filter", filter.value); model.save_changes(); });
  errorsBox.addEventListener("change", () => {
    applyFilter();
    model.set("errors_only", errorsBox.checked);
    model.save_changes();
  });
  expand.addEventListener("click", () => {
    model.set("expanded", true);  // every step open, the ones arriving later too
    model.set("opened", {});
    model.save_changes();
  });
  errorsBox.checked = Boolean(model.get("errors_only"));
  rebuild(model.get("nodes"), model.get("seq"));
  setStatus();
  grow();
  model.on("msg:custom", onMsg);
  model.on("change:status", setStatus);
  model.on("change:title", setStatus);
  model.on("change:nodes", onSnapshot);
  model.on("change:filter", onFilterTrait);
  model.on("change:timeline", onTimelineTrait);
  model.on("change:opened", onOpenedTrait);
  model.on("change:tracebacks", onTracebacksTrait);
  model.on("change:detail_panels", onDetailPanelsTrait);
  model.on("change:expanded", onOpenedTrait);
  model.on("change:errors_only", onErrorsOnlyTrait);
  if (model.get("filter") || errorsBox.checked) onFilterTrait();
  onTimelineTrait();
  model.send({ type: "hello" });
  return () => {
    if (ticker !== null) clearInterval(ticker);
    if (timelineTimer !== null) clearTimeout(timelineTimer);
    model.off("msg:custom", onMsg);
    model.off("change:status", setStatus);
    model.off("change:title", setStatus);
    model.off("change:nodes", onSnapshot);
    model.off("change:filter", onFilterTrait);
    model.off("change:timeline", onTimelineTrait);
    model.off("change:opened", onOpenedTrait);
    model.off("change:tracebacks", onTracebacksTrait);
    model.off("change:detail_panels", onDetailPanelsTrait);
    model.off("change:expanded", onOpenedTrait);
    model.off("change:errors_only", onErrorsOnlyTrait);
  };
}

export default { render };
