// adk_nb artifacts: the session's files and their versions. A version's payload is asked for
// when a person opens it. Text goes in with textContent; images of an allowed raster type are
// drawn from a data: URL; everything else is a download link (SVG arrives as text: never drawn).

const INLINE = new Set(["image/png", "image/jpeg", "image/gif", "image/webp", "image/bmp"]);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function size(n) {
  if (!n) return "";
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

function render({ model, el: root }) {
  root.classList.add("adknb-artifacts");
  const header = el("div", "adknb-artifacts-title", "Artifacts");
  const list = el("div", "adknb-artifact-list");
  const preview = el("div", "adknb-artifact-preview");
  root.append(header, list, preview);
  let urls = [];

  function forget() { for (const u of urls) URL.revokeObjectURL(u); urls = []; }

  function draw() {
    const items = model.get("items") || [];
    list.textContent = "";
    root.hidden = items.length === 0;
    for (const item of items) {
      const row = el("div", "adknb-artifact");
      row.append(el("span", "adknb-artifact-name", item.name));
      for (const v of item.versions || []) {
        const button = el("button", "adknb-artifact-version", `v${v.version}`);
        button.title = `${item.name} version ${v.version}${v.mime_type ? ` (${v.mime_type})` : ""}`;
        button.dataset.name = item.name;
        button.dataset.version = String(v.version);
        button.addEventListener("click", () => {
          preview.textContent = "";
          preview.append(el("div", "adknb-artifact-loading", `loading ${item.name} v${v.version}…`));
          model.send({ type: "open", name: item.name, version: v.version });
        });
        row.append(button);
      }
      list.append(row);
    }
  }

  function show(msg) {
    forget();
    preview.textContent = "";
    const head = el("div", "adknb-artifact-head", `${msg.name} v${msg.version}${msg.mime ? ` · ${msg.mime}` : ""}${msg.size ? ` · ${size(msg.size)}` : ""}`);
    preview.append(head);
    if (msg.kind === "text" || msg.kind === "missing") {
      preview.append(el("pre", "adknb-artifact-text", msg.text || ""));
      if (msg.cut) preview.append(el("div", "adknb-artifact-cut", `… ${msg.cut.toLocaleString()} more characters`));
      return;
    }
    const bytes = Uint8Array.from(atob(msg.data || ""), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes], { type: "application/octet-stream" }));
    urls.push(url);
    if (msg.kind === "image" && INLINE.has(msg.mime)) {
      const img = el("img", "adknb-artifact-image");
      img.alt = `${msg.name} v${msg.version}`;
      img.src = `data:${msg.mime};base64,${msg.data}`;
      preview.append(img);
    }
    const link = el("a", "adknb-artifact-download", `download ${msg.name} (v${msg.version}, ${size(msg.size) || "0 B"})`);
    link.href = url;
    link.setAttribute("download", String(msg.name).replace(/^user:/, "").replace(/[\\/]/g, "_"));
    preview.append(link);
  }

  function onMsg(msg) { if (msg && msg.type === "content") show(msg); }

  draw();
  model.on("change:items", draw);
  model.on("msg:custom", onMsg);
  return () => {
    forget();
    model.off("change:items", draw);
    model.off("msg:custom", onMsg);
  };
}

export default { render };
