// adk_nb state view: app / user / session / temp scopes side by side. Keys and values are
// inserted with textContent only. Editing a value sends it to the kernel, which records a
// state-delta event (nothing changes behind the session's back).

const SCOPES = ["app", "user", "session", "temp"];

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function render({ model, el: root }) {
  root.classList.add("adknb-state");
  const grid = el("div", "adknb-scopes");
  const error = el("div", "adknb-state-error");
  root.append(grid, error);

  function valueCell(key, value, editable) {
    const cell = el("div", "adknb-value");
    const json = JSON.stringify(value, null, 2) ?? "null";
    if (json.length > 60) {
      const details = el("details");
      details.append(el("summary", null, json.slice(0, 57) + "…"), el("pre", null, json));
      cell.append(details);
    } else {
      cell.append(el("code", null, json));
    }
    if (editable) {
      const edit = el("button", "adknb-edit", "edit");
      edit.title = "Edit (recorded as a state-delta event)";
      edit.addEventListener("click", () => {
        const box = el("textarea", "adknb-editor");
        box.value = json;
        const save = el("button", "adknb-save", "save");
        save.addEventListener("click", () => model.send({ type: "edit", key, value: box.value }));
        cell.replaceChildren(box, save);
      });
      cell.append(edit);
    }
    return cell;
  }

  function draw() {
    const scopes = model.get("scopes") || {};
    const changed = new Set(model.get("changed") || []);
    const editable = !!model.get("editable");
    grid.replaceChildren();
    for (const scope of SCOPES) {
      const column = el("div", "adknb-scope");
      column.append(el("div", "adknb-scope-name", scope));
      const entries = Object.entries(scopes[scope] || {});
      if (!entries.length) column.append(el("div", "adknb-empty", "empty"));
      for (const [key, value] of entries) {
        const row = el("div", "adknb-row");
        if (changed.has(key)) row.classList.add("adknb-changed");
        row.append(el("div", "adknb-key", key), valueCell(key, value, editable && scope !== "temp"));
        column.append(row);
      }
      grid.append(column);
    }
    error.textContent = model.get("error") || "";
  }

  draw();
  for (const name of ["scopes", "changed", "editable", "error"]) model.on(`change:${name}`, draw);
  return () => { for (const name of ["scopes", "changed", "editable", "error"]) model.off(`change:${name}`, draw); };
}

export default { render };
