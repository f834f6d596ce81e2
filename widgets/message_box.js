// @ts-check
// adk_nb chat message box: Enter sends, Shift+Enter starts a new line (as in JupyterLab's chat).
// The text is kept in the `value` trait; sending is a message to the kernel, which starts the turn.

/** @param {{ model: any, el: HTMLElement }} args */
function render({ model, el }) {
  const box = document.createElement("textarea");
  box.className = "adknb-message-box";
  box.rows = 2;
  const show = () => {
    if (box.value !== (model.get("value") || "")) box.value = model.get("value") || "";
    box.placeholder = model.get("placeholder") || "";
    box.disabled = !!model.get("disabled");
  };
  const keep = () => { model.set("value", box.value); model.save_changes(); };
  box.addEventListener("input", keep);
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    // The notebook's own shortcuts (Shift+Enter runs the cell) never see a key typed in the box.
    event.stopPropagation();
    if (event.isComposing) return;  // an input method is composing: Enter confirms its text
    event.preventDefault();  // JupyterLab may have prevented the default already: the box does its own newline
    if (event.shiftKey || event.altKey || event.ctrlKey || event.metaKey) {
      box.setRangeText("\n", box.selectionStart, box.selectionEnd, "end");
      keep();
      return;
    }
    const text = box.value;
    // Emptied here, at once: the kernel answers a refused message (a turn still running) with "restore".
    box.value = "";
    keep();
    model.send({ type: "send", text });
  });
  // Messages from the kernel, not trait updates (those can be dropped while a keystroke's echo is pending):
  // "sent" empties the box (the Send button's path), "restore" puts back text the kernel refused.
  model.on("msg:custom", (/** @type {any} */ msg) => {
    if (msg && msg.type === "sent") { box.value = ""; keep(); }
    if (msg && msg.type === "restore" && !box.value) { box.value = msg.text || ""; keep(); }
  });
  show();
  for (const name of ["value", "placeholder", "disabled"]) model.on(`change:${name}`, show);
  el.classList.add("adknb-message");
  el.append(box);
}

export default { render };
