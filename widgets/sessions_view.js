// adk_nb sessions: a user's sessions as `adk web` lists them. The kernel does every action; this
// only draws the rows and sends requests (open, rename, delete after asking, export, import).
// Every name, id and message goes in with textContent, never as HTML.

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function button(text, title, onClick) {
  const b = el("button", "adknb-sess-button", text);
  b.type = "button";
  if (title) b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function when(seconds) {
  if (!seconds) return "";
  const d = new Date(seconds * 1000);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

const STATUS = { paused: "‖ paused", done: "✓ done", error: "✗ error", new: "○ new" };

function render({ model, el: root }) {
  root.classList.add("adknb-sessions");
  const title = el("div", "adknb-sess-title");
  const table = el("table", "adknb-sess-table");
  const notice = el("div", "adknb-sess-notice");
  notice.setAttribute("role", "status");
  const tools = el("div", "adknb-sess-import");
  const path = el("input", "adknb-sess-path");
  path.type = "text";
  path.placeholder = "session JSON in the working folder (e.g. s1.session.json)";
  const picker = el("input", "adknb-sess-file");
  picker.type = "file";
  picker.accept = ".json,application/json";
  tools.append(el("span", "adknb-sess-label", "Import:"), path,
               button("Import", "Import the named file", () => model.send({ type: "import", path: path.value })),
               el("span", "adknb-sess-label", "or"), picker,
               button("Refresh", "Read the store again", () => model.send({ type: "refresh" })));
  picker.addEventListener("change", () => {
    const file = picker.files && picker.files[0];
    if (!file) return;
    file.text().then((text) => { model.send({ type: "import", text, file: file.name }); picker.value = ""; });
  });
  const scroll = el("div", "adknb-sess-scroll");
  scroll.append(table);
  root.append(title, tools, notice, scroll);
  let asking = null;   // the session whose delete is being confirmed
  let renaming = null; // the session whose name is being edited
  let link = null;

  function send(type, row, extra) {
    model.send({ type, session: row.session, user: row.user, ...(extra || {}) });
  }

  function cells(tr, row, lineageShown) {
    const name = el("td", "adknb-sess-name");
    if (renaming === row.session) {
      const box = el("input", "adknb-sess-rename");
      box.type = "text";
      box.value = row.name || "";
      box.setAttribute("aria-label", `name of session ${row.session}`);
      const save = () => { renaming = null; send("rename", row, { name: box.value }); draw(); };
      box.addEventListener("keydown", (ev) => {
        if (ev.key === "Enter") { ev.preventDefault(); save(); }
        if (ev.key === "Escape") { renaming = null; draw(); }
      });
      name.append(box, button("Save", "Save the name", save),
                  button("Cancel", "Keep the name", () => { renaming = null; draw(); }));
      setTimeout(() => box.focus(), 0);
    } else {
      name.append(el("span", "adknb-sess-display", row.name || row.session));
      if (row.name) name.append(el("span", "adknb-sess-id", row.session));
      if (row.current) name.append(el("span", "adknb-sess-current", "current"));
    }
    const status = el("td", "adknb-sess-status", STATUS[row.status] || row.status);
    tr.dataset.status = row.status;
    tr.append(name, el("td", "adknb-sess-user", row.user), el("td", "adknb-sess-when", when(row.last_update)),
              el("td", "adknb-sess-events", row.events), status);
    if (lineageShown) {
      const lineage = el("td", "adknb-sess-lineage");
      if (row.forked_from) {
        // The point is an invocation or event id (long): cut in the cell, whole in the tooltip.
        const at = String(row.forked_at || "");
        lineage.append(el("span", "", `forked from ${row.forked_from}`),
                       el("span", "adknb-sess-at", ` @ ${at.length > 14 ? `${at.slice(0, 13)}…` : at}`));
        lineage.title = `forked from ${row.forked_from} at ${at}`;
      }
      tr.append(lineage);
    }
    const actions = el("td", "adknb-sess-actions");
    if (asking === row.session) {
      actions.append(el("span", "adknb-sess-ask", `Delete ${row.name || row.session}? This cannot be undone.`),
                     button("Delete", "Delete this session", () => { asking = null; send("delete", row, { confirmed: true }); draw(); }),
                     button("Cancel", "Keep it", () => { asking = null; draw(); }));
    } else {
      actions.append(button("Open", "Show this session's run below", () => send("open", row)),
                     button("Rename", "Give it a name", () => { renaming = row.session; asking = null; draw(); }),
                     button("Export", "Write google-adk's session JSON", () => send("export", row)),
                     button("Delete…", "Delete (asks first)", () => { asking = row.session; renaming = null; draw(); }));
    }
    tr.append(actions);
  }

  function draw() {
    const rows = model.get("rows") || [];
    const user = model.get("user");
    title.textContent = `Sessions of ${model.get("agent") || "the agent"}${user ? ` for user ${user}` : ""} (${rows.length})`;
    table.textContent = "";
    const lineageShown = rows.some((r) => r.forked_from);  // the column only when some session is a fork
    const head = el("tr");
    const columns = ["session", "user", "last activity", "events", "status", ...(lineageShown ? ["lineage"] : []), ""];
    for (const h of columns) head.append(el("th", "", h));
    const thead = el("thead");
    thead.append(head);
    const body = el("tbody");
    if (!rows.length) {
      const tr = el("tr");
      const td = el("td", "adknb-sess-empty", "No sessions yet: run the agent in a %%agent cell, or import one.");
      td.colSpan = columns.length;
      tr.append(td);
      body.append(tr);
    }
    const opened = model.get("opened") || "";
    for (const row of rows) {
      const tr = el("tr", "adknb-sess-row");
      tr.dataset.session = row.session;
      if (row.session === opened) tr.classList.add("adknb-sess-opened");
      cells(tr, row, lineageShown);
      body.append(tr);
    }
    table.append(thead, body);
  }

  function showNotice() {
    const n = model.get("notice") || {};
    notice.textContent = "";
    if (link) { URL.revokeObjectURL(link); link = null; }
    notice.classList.toggle("adknb-sess-error", !!n.error);
    if (!n.text) return;
    notice.append(el("span", "", n.text));
  }

  // An export's file arrives as one message (never in the widget state): offered as a download link.
  function onMsg(msg) {
    if (!msg || msg.type !== "download") return;
    if (link) URL.revokeObjectURL(link);
    link = URL.createObjectURL(new Blob([String(msg.text || "")], { type: "application/json" }));
    const a = el("a", "adknb-sess-download", `download ${msg.file}`);
    a.href = link;
    a.setAttribute("download", String(msg.file || "session.json"));
    notice.append(" ", a);
  }

  draw();
  showNotice();
  model.on("change:rows", draw);
  model.on("change:opened", draw);
  model.on("change:agent", draw);
  model.on("change:user", draw);
  model.on("change:notice", showNotice);
  model.on("msg:custom", onMsg);
  // anywidget removes this view's listeners when the view goes; only the download's object URL is ours to free.
  return () => { if (link) URL.revokeObjectURL(link); };
}

export default { render };
