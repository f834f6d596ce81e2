// @ts-check
// adk_nb event tree: draws what the kernel computes. Every model, tool and state text is inserted with
// textContent, never as HTML. Tree updates arrive as append-only batches ({type: "ops", seq, ops}); the
// `nodes` trait holds the full snapshot for reloads. The timeline's rows ({type: "trace"}) and a step's
// details ({type: "detail"}) are computed in Python and only drawn here. Kinds, statuses and their words
// come from Python too (the `labels`, `status_text` and `vocabulary` traits): this file declares none.
//
// Four parts, each a factory returning what the others need: treePart (the nested steps), filterPart (the
// filter box and "errors only"), timelinePart (the trace tab) and detailsPart (the side panel beside the
// tree, with previous / next step). `render` composes them and wires the model's events.

/**
 * @typedef {{id: string, parent: ?string, kind: string, title: string, text: string, status: string,
 *            t?: number, ms?: number, meta?: string, result?: string, branch?: string, traceback?: string,
 *            folded?: boolean, sources?: {title: string, href: string}[], queries?: string[]}} Node
 * @typedef {{data: Node, root: HTMLDetailsElement, [part: string]: any}} Entry
 */

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** @returns {any} */
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

function vocab(model) {
  const v = model.get("vocabulary") || {};
  return { containers: new Set(v.containers || []), errorStatuses: new Set(v.error_statuses || []),
           errorKinds: new Set(v.error_kinds || []) };
}

// What a person opened or folded lives in dict traits (ids only, the oldest choice dropped first), so a view
// re-rendered when a run step ends keeps it, in every view of the widget.
const REMEMBERED = 500;

function remember(model, name, id, value) {
  const map = { ...(model.get(name) || {}) };
  delete map[id];  // set again below, as the newest
  if (value !== undefined) map[id] = value;
  const ids = Object.keys(map);
  for (const old of ids.slice(0, Math.max(0, ids.length - REMEMBERED))) delete map[old];
  model.set(name, map);
  model.save_changes();
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

// ---- tree: the steps as nested <details>, built from the snapshot and the op batches ------------------

function treePart(model, body, onInfo) {
  /** @type {Map<string, Entry>} */
  let byId = new Map();

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

  function startsOpen(n) {
    const chosen = (model.get("opened") || {})[n.id];
    if (chosen !== undefined) return Boolean(chosen);
    if (model.get("expanded")) return true;
    return !n.folded;  // the step model says which kinds start folded (tool calls, state, thoughts)
  }

  function add(n) {
    const known = byId.get(n.id);
    if (known) { Object.assign(known.data, n); paint(known); return; }
    const nodeRoot = el("details", "adknb-node");
    if (vocab(model).containers.has(n.kind)) nodeRoot.classList.add("adknb-container");
    nodeRoot.open = startsOpen(n);
    const summary = el("summary");
    /** @type {Entry} */
    const entry = {
      data: { ...n }, root: nodeRoot,
      kind: el("span", "adknb-kind"), title: el("span", "adknb-node-title"),
      status: el("span", "adknb-node-status"), ms: el("span", "adknb-ms"), meta: el("span", "adknb-meta"),
      text: el("pre", "adknb-text"), result: el("pre", "adknb-result"), grounding: el("div", "adknb-grounding"),
      traceback: el("details", "adknb-traceback"), tracebackText: el("pre", "adknb-text"),
      info: el("button", "adknb-info", "details"), children: el("div", "adknb-children"),
    };
    entry.info.title = "Show the request, response and event of this step beside the tree";
    entry.info.addEventListener("click", (ev) => {
      ev.preventDefault();  // a button in a <summary> would also fold the node
      onInfo(entry.data.id);
    });
    // A click folds or opens the step here and records it in the `opened` trait, which every view follows.
    summary.addEventListener("click", (ev) => {
      if (ev.defaultPrevented) return;  // the details button
      ev.preventDefault();
      nodeRoot.open = !nodeRoot.open;
      remember(model, "opened", entry.data.id, nodeRoot.open);
    });
    summary.append(entry.kind, entry.title, entry.status, entry.ms, entry.meta, entry.info);
    const tracebackSummary = el("summary", "", "traceback");
    tracebackSummary.addEventListener("click", (ev) => {
      ev.preventDefault();
      entry.traceback.open = !entry.traceback.open;
      remember(model, "tracebacks", entry.data.id, entry.traceback.open ? true : undefined);
    });
    entry.traceback.open = Boolean((model.get("tracebacks") || {})[n.id]);
    entry.traceback.append(tracebackSummary, entry.tracebackText);
    nodeRoot.append(summary, entry.text, entry.result, entry.grounding, entry.traceback, entry.children);
    if (model.get("selected") === n.id) nodeRoot.dataset.selected = "yes";
    paint(entry);
    const parent = n.parent !== null && n.parent !== undefined ? byId.get(n.parent) : undefined;
    (parent ? parent.children : body).appendChild(nodeRoot);
    byId.set(n.id, entry);
  }

  function apply(op) {
    const [kind, a, b] = op;
    if (kind === "add") { add(a); return; }
    const entry = byId.get(a);
    if (!entry) return;
    if (kind === "set") { Object.assign(entry.data, b); paint(entry); }
    else if (kind === "text") { entry.data.text = (entry.data.text || "") + b; paint(entry); }
  }

  function rebuild(nodes) {
    body.textContent = "";
    byId = new Map();
    for (const n of nodes || []) add(n);
  }

  function onOpened() {
    const chosen = model.get("opened") || {};
    // "expand all" empties the choices: every step opens (and so does every step arriving later).
    if (model.get("expanded") && !Object.keys(chosen).length) for (const entry of byId.values()) entry.root.open = true;
    for (const [id, open] of Object.entries(chosen)) {
      const entry = byId.get(id);
      if (entry) entry.root.open = Boolean(open);
    }
  }

  function onTracebacks() {
    const open = model.get("tracebacks") || {};
    for (const [id, entry] of byId) entry.traceback.open = Boolean(open[id]);
  }

  return { get byId() { return byId; }, add, apply, rebuild, onOpened, onTracebacks };
}

// ---- filter: author, kind or text, and "errors only" --------------------------------------------------

function filterPart(model, root, tree) {
  const box = el("input", "adknb-filter");
  box.type = "search";
  box.placeholder = "filter: author, kind or text";
  box.setAttribute("aria-label", "filter the steps");
  const errorsOnly = el("label", "adknb-errors-only");
  const errorsBox = el("input");
  errorsBox.type = "checkbox";
  errorsOnly.append(errorsBox, document.createTextNode(" errors only"));

  function matches(entry, needle, errors) {
    const n = entry.data;
    const v = vocab(model);
    if (errors && !(v.errorStatuses.has(n.status) || v.errorKinds.has(n.kind))) return false;
    if (!needle) return true;
    const labels = model.get("labels") || {};
    const hay = `${labels[n.kind] || n.kind} ${n.kind} ${n.title || ""} ${n.text || ""} ${n.branch || ""}`;
    return hay.toLowerCase().includes(needle);
  }

  function apply() {
    const byId = tree.byId;
    const needle = box.value.trim().toLowerCase();
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

  // The graph sets `filter` when a node is clicked; typing in the box sets it too, so a view re-rendered
  // later (the cell's display is refreshed when a run step ends) keeps the same filter.
  function onFilterTrait() {
    if (box.value !== (model.get("filter") || "")) box.value = model.get("filter") || "";
    apply();
  }
  function onErrorsTrait() {
    const value = Boolean(model.get("errors_only"));
    if (errorsBox.checked !== value) errorsBox.checked = value;
    apply();
  }
  box.addEventListener("input", () => { apply(); model.set("filter", box.value); model.save_changes(); });
  errorsBox.addEventListener("change", () => {
    apply();
    model.set("errors_only", errorsBox.checked);
    model.save_changes();
  });
  errorsBox.checked = Boolean(model.get("errors_only"));
  return { box, errorsOnly, apply, onFilterTrait, onErrorsTrait, get active() { return Boolean(root.dataset.filtered); } };
}

// ---- timeline: the trace rows the kernel computed (adk_nb.inspect.timeline.trace), drawn as bars -------
// Open or closed lives in the `timeline` trait. While it is open the kernel sends rows after tree batches
// (throttled there); while the run goes on this view asks once a second, so running bars grow to "now".

const TRACE_EVERY_MS = 1000;

function timelinePart(model, container, button) {
  let ticker = null;

  function draw(msg) {
    if (container.hidden) return;
    container.textContent = "";
    const fields = msg.fields || [];
    const rows = (msg.rows || []).map((row) => Object.fromEntries(fields.map((f, i) => [f, row[i]])));
    if (!rows.length) { container.append(el("div", "adknb-timeline-empty", msg.axis || "nothing timed yet")); return; }
    for (const r of rows) {
      const row = el("div", "adknb-span");
      row.dataset.lane = r.lane;
      row.dataset.kind = r.kind;
      const name = el("div", "adknb-span-name", r.label);
      name.style.paddingLeft = `${r.depth * 0.9}em`;
      const track = el("div", "adknb-track");
      const bar = el("div", "adknb-bar");
      bar.dataset.kind = r.kind;
      bar.dataset.status = r.status || "";
      if (r.running) bar.dataset.running = "yes";
      if (r.broken) bar.dataset.broken = "yes";  // drawn shortened, with a break mark; the text gives its real length
      const left = r.x0 * 100, right = r.x1 * 100;
      bar.style.left = `${left}%`;
      bar.style.width = `${right - left}%`;  // CSS gives every bar a minimum width, so 0 ms still shows
      const dur = el("span", "adknb-dur", r.duration);
      if (right <= 78) dur.style.left = `calc(${right}% + 4px)`; else dur.style.right = `calc(${100 - left}% + 4px)`;
      bar.title = `${r.label}\n${r.duration} · ${r.status || ""}`;
      track.append(bar, dur);
      row.append(name, track);
      container.append(row);
    }
    container.append(el("div", "adknb-timeline-axis", msg.axis));
  }

  function ask() { model.send({ type: "trace" }); }

  function setTicker() {
    const live = !container.hidden && (model.get("vocabulary").going_on || []).includes(model.get("status"));
    if (live && ticker === null) ticker = setInterval(ask, TRACE_EVERY_MS);
    if (!live && ticker !== null) { clearInterval(ticker); ticker = null; }
  }

  function show(open) {
    container.hidden = !open;
    button.setAttribute("aria-pressed", String(open));
    if (open) { container.textContent = ""; container.append(el("div", "adknb-timeline-empty", "…")); ask(); }
    setTicker();
  }
  button.addEventListener("click", () => {
    const open = container.hidden;
    model.set("timeline", open);  // the trait first: the kernel pushes rows while it is set
    model.save_changes();
    if (open === container.hidden) show(open);  // (the trait's change may have shown it already)
  });
  function onTrait() {
    if (Boolean(model.get("timeline")) === container.hidden) show(Boolean(model.get("timeline")));
  }
  return { draw, onTrait, setTicker, dispose() { if (ticker !== null) clearInterval(ticker); } };
}

// ---- step actions: "fork here" and "edit & continue" on a model or tool step, offered by the kernel in
// `msg.actions` and drawn in the details panel. The continued run opens in a new view below; the edit is
// checked as JSON here and again in the kernel.
function stepActions(model, msg, notes, drafts) {
  const box = el("div", "adknb-side-actions");
  const fork = el("button", "adknb-fork", "fork here");
  fork.title = "a new session with everything up to this step, continued live from it (shown below)";
  const edit = el("button", "adknb-edit", "edit & continue");
  edit.title = `edit ${msg.actions.what} and continue from the edit in a new session (shown below)`;
  const editor = el("div", "adknb-editor");
  editor.hidden = !drafts.has(msg.id);
  const label = el("div", "adknb-editor-label", `${msg.actions.what}, as JSON:`);
  const text = el("textarea", "adknb-edit-box");
  text.value = drafts.has(msg.id) ? drafts.get(msg.id) : msg.actions.value;
  text.addEventListener("input", () => drafts.set(msg.id, text.value));
  text.rows = Math.min(14, msg.actions.value.split("\n").length + 1);
  text.spellcheck = false;
  const send = el("button", "adknb-edit-send", "continue from the edit");
  const note = el("div", "adknb-edit-note", notes.get(msg.id) || "");
  editor.append(label, text, send);
  fork.addEventListener("click", () => {
    note.textContent = "forking…";
    model.send({ type: "fork", id: msg.id });
  });
  edit.addEventListener("click", () => {
    editor.hidden = !editor.hidden;
    if (editor.hidden) drafts.delete(msg.id); else { drafts.set(msg.id, text.value); text.focus(); }
  });
  send.addEventListener("click", () => {
    try {
      JSON.parse(text.value);
    } catch (err) {
      note.textContent = `not valid JSON (${err.message}); strings need quotes, e.g. "Booked.". Nothing was sent.`;
      note.dataset.error = "yes";
      return;
    }
    delete note.dataset.error;
    note.textContent = "continuing…";
    model.send({ type: "edit", id: msg.id, value: text.value });
  });
  box.append(fork, edit, editor, note);
  return box;
}

// ---- details: the selected step's request, response and event, in a side panel beside the tree ---------
// The `selected` trait names the step shown (every view follows it); payloads travel as messages and are
// kept only in this drawing, never in the widget state. "‹ prev" / "next ›" step through the steps shown.

function detailsPart(model, side, tree) {
  const head = el("div", "adknb-side-head");
  const kind = el("span", "adknb-side-kind");
  const title = el("span", "adknb-side-title");
  const prev = el("button", "adknb-prev", "‹ prev");
  const next = el("button", "adknb-next", "next ›");
  const close = el("button", "adknb-close", "×");
  prev.title = "the step before (p)";
  next.title = "the step after (n)";
  close.title = "close the details";
  close.setAttribute("aria-label", "close the details");
  head.append(kind, title, prev, next, close);
  const content = el("div", "adknb-side-body");
  side.append(head, content);
  side.hidden = true;

  /** @type {Map<string, any>} */
  const details = new Map();  // id -> the last detail message seen for it
  const asked = new Set();    // "id full" requests this drawing sent and has no answer for yet

  const complete = (msg) => !(msg.sections || []).some((section) => section.cut);

  function askDetail(id, full) {
    const key = `${id} ${full}`;
    if (asked.has(key)) return;
    asked.add(key);
    model.send({ type: "detail", id, full });
  }

  function select(id) {
    model.set("selected", id);
    model.set("selected_full", false);
    model.save_changes();
  }

  // The steps prev / next walk: every step in tree order that the filter shows.
  function shown() {
    return [...tree.byId.values()].filter((e) => !e.root.hidden && !e.root.closest("details.adknb-node[hidden]"));
  }

  function neighbour(step) {
    const steps = shown();
    const at = steps.findIndex((e) => e.data.id === model.get("selected"));
    return at < 0 ? undefined : steps[at + step];
  }

  function nav() {
    prev.disabled = !neighbour(-1);
    next.disabled = !neighbour(1);
  }

  function reveal(entry) {
    for (let up = entry.root.parentElement; up; up = up.parentElement) {
      if (up.tagName === "DETAILS" && up.classList.contains("adknb-node")) up.open = true;
    }
    entry.root.scrollIntoView({ block: "nearest" });
  }

  const notes = new Map();  // id -> what the kernel last said about a fork or edit of that step
  const drafts = new Map();  // id -> the editor's text while it is open (kept when the panel is drawn again)

  function onNote(msg) {
    const text = msg.type === "continued" ? `continued below, in session ${msg.session}` : msg.message;
    notes.set(msg.id, text);
    if (msg.id !== model.get("selected")) return;
    const note = content.querySelector(".adknb-edit-note");
    if (!note) return;
    note.textContent = text;
    if (msg.type === "step_error") note.dataset.error = "yes"; else delete note.dataset.error;
  }

  let painted = null;  // the message the panel shows: the same one is not drawn again
  function forget() { details.clear(); asked.clear(); painted = null; }

  function paint(msg) {
    if (painted === msg && content.isConnected && content.firstChild) return;
    painted = msg;
    content.textContent = "";
    if (msg.actions) content.append(stepActions(model, msg, notes, drafts));
    for (const section of msg.sections || []) {
      const part = el("details", "adknb-section");
      part.open = true;
      part.append(el("summary", "adknb-section-title", section.title), el("pre", "adknb-section-text", section.text));
      if (section.cut) {
        const more = el("button", "adknb-more", `show all ${section.cut.toLocaleString()} characters`);
        more.addEventListener("click", () => { askDetail(msg.id, true); model.set("selected_full", true); model.save_changes(); });
        part.append(more);
      }
      content.append(part);
    }
  }

  function draw() {
    const id = model.get("selected") || "";
    for (const entry of tree.byId.values()) {
      if (entry.root.dataset.selected && entry.data.id !== id) delete entry.root.dataset.selected;
    }
    const entry = tree.byId.get(id);
    side.hidden = !id;
    if (!id) { content.textContent = ""; return; }
    const labels = model.get("labels") || {};
    kind.textContent = entry ? labels[entry.data.kind] || entry.data.kind : "";
    title.textContent = entry ? entry.data.title || "" : "";
    if (entry) entry.root.dataset.selected = "yes";
    nav();
    const full = Boolean(model.get("selected_full"));
    const msg = details.get(id);
    if (msg) paint(msg); else { painted = null; content.textContent = ""; content.append(el("div", "adknb-side-wait", "…")); }
    if (!msg || (full && !complete(msg))) askDetail(id, full);
  }

  function show(msg) {
    details.set(msg.id, msg);
    asked.delete(`${msg.id} false`);  // any answer will do for the first 20,000 characters
    if (complete(msg)) asked.delete(`${msg.id} true`);
    if (msg.id === model.get("selected")) draw();
  }

  function go(step) {
    const to = neighbour(step);
    if (!to) return;
    reveal(to);
    select(to.data.id);
  }
  prev.addEventListener("click", () => go(-1));
  next.addEventListener("click", () => go(1));
  close.addEventListener("click", () => select(""));
  side.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLTextAreaElement || ev.target instanceof HTMLInputElement) return;
    if (ev.key === "n") go(1); else if (ev.key === "p") go(-1); else if (ev.key === "Escape") select("");
  });
  return { select: (id) => select(model.get("selected") === id ? "" : id), draw, show, onNote,
           onSteps() { if (!side.hidden) nav(); },  // steps arriving live: "next ›" may have somewhere to go now
           onStatus() { forget(); draw(); } };
}

// ---- the view --------------------------------------------------------------------------------------------

function render({ model, el: root }) {
  root.classList.add("adknb-tree");
  const header = el("div", "adknb-header");
  const title = el("span", "adknb-title");
  const status = el("span", "adknb-status");
  const count = el("span", "adknb-count");
  header.append(title, status, count);
  const tools = el("div", "adknb-tools");
  const expand = el("button", "adknb-expand", "expand all");
  const timelineButton = el("button", "adknb-timeline-toggle", "timeline");
  timelineButton.setAttribute("aria-pressed", "false");
  const timelineBox = el("div", "adknb-timeline");
  timelineBox.hidden = true;
  const main = el("div", "adknb-main");
  const body = el("div", "adknb-body");
  const side = el("aside", "adknb-side");
  side.tabIndex = -1;
  main.append(body, side);
  root.append(header, tools, timelineBox, main);

  let details;
  const tree = treePart(model, body, (id) => details.select(id));
  const filter = filterPart(model, root, tree);
  const timeline = timelinePart(model, timelineBox, timelineButton);
  details = detailsPart(model, side, tree);
  tools.append(filter.box, expand, filter.errorsOnly, timelineButton);

  let seq = 0;
  let waiting = false;

  function setStatus() {
    const value = model.get("status") || "";
    const words = model.get("status_text") || {};
    status.textContent = words[value] || value;
    status.dataset.status = value;
    root.dataset.status = value;
    title.textContent = model.get("title") || "agent run";
    timeline.setTicker();
  }

  function redraw(nodes, newSeq) {
    tree.rebuild(nodes);
    seq = newSeq || 0;
    count.textContent = `${tree.byId.size} steps`;
    if (filter.active) filter.apply();
    details.draw();
  }

  function onMsg(msg) {
    if (!msg || typeof msg !== "object") return;
    if (msg.type === "reset") { waiting = false; redraw(msg.nodes, msg.seq); return; }
    if (msg.type === "detail") { details.show(msg); return; }
    if (msg.type === "trace") { timeline.draw(msg); return; }
    if (msg.type === "continued" || msg.type === "step_error") { details.onNote(msg); return; }
    if (msg.type !== "ops") return;
    if (msg.seq <= seq) return;            // already in the snapshot
    if (msg.seq !== seq + 1) {             // a gap: ask for everything once
      if (!waiting) { waiting = true; model.send({ type: "hello" }); }
      return;
    }
    for (const op of msg.ops) tree.apply(op);
    seq = msg.seq;
    count.textContent = `${tree.byId.size} steps`;
    if (filter.active) filter.apply();
    details.onSteps();
  }

  function onSnapshot() {
    if ((model.get("seq") || 0) >= seq) redraw(model.get("nodes"), model.get("seq"));
  }

  expand.addEventListener("click", () => {
    model.set("expanded", true);  // every step open, the ones arriving later too
    model.set("opened", {});
    model.save_changes();
  });
  redraw(model.get("nodes"), model.get("seq"));
  setStatus();
  // anywidget removes these listeners itself when the view goes (they are registered with the view).
  model.on("msg:custom", onMsg);
  model.on("change:status", setStatus);
  model.on("change:status", details.onStatus);  // what a step offers (fork, edit) depends on the run's status
  model.on("change:title", setStatus);
  model.on("change:nodes", onSnapshot);
  model.on("change:filter", filter.onFilterTrait);
  model.on("change:errors_only", filter.onErrorsTrait);
  model.on("change:timeline", timeline.onTrait);
  model.on("change:opened", tree.onOpened);
  model.on("change:expanded", tree.onOpened);
  model.on("change:tracebacks", tree.onTracebacks);
  model.on("change:selected", details.draw);
  model.on("change:selected_full", details.draw);
  if (model.get("filter") || model.get("errors_only")) filter.onFilterTrait();
  timeline.onTrait();
  model.send({ type: "hello" });
  return () => timeline.dispose();
}

export default { render };
