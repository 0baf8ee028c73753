/* The board editor's common part: load the document, check every change with the engines' own loaders
 * (on the panel), show the reason at the entry it names, save, and import files. Each kind of file has
 * its own editor in board_edit_<kind>.js, registered in GKEditors. */
(function () {
  "use strict";
  const editors = {};
  window.GKEditors = editors;
  const body = document.body;
  const $ = id => document.getElementById(id);

  async function post(url, text) {
    const got = await window.GKApi.request(url, { body: text, csrf: body.dataset.csrf });
    // ``reason`` is the refusal in plain words; ``error`` names the file's entry (for hand edits).
    const reply = Object.assign({}, got.data, { ok: got.ok });
    if (!got.ok) reply.reason = got.error;
    return reply;
  }

  function apiUrl(kind, name) {
    return "/api/t/" + encodeURIComponent(body.dataset.table) + "/boards/" + encodeURIComponent(kind) + "/" +
      encodeURIComponent(name);
  }

  // ----- the list page: import a shared file under a name ------------------------------------------
  const MAX_FILE_BYTES = 48 * 1024;  // web_panel/boards_store.py MAX_DOCUMENT_BYTES: the panel refuses more
  for (const form of document.querySelectorAll("form.import")) {
    form.addEventListener("submit", async e => {
      e.preventDefault();
      const out = form.querySelector(".reply");
      const file = form.elements.file.files[0];
      const name = form.elements.name.value.trim();
      if (!file) return;
      if (file.size > MAX_FILE_BYTES) {
        // Not read at all: a phone would hold the whole of a wrong file in memory only to send it back.
        out.className = "reply err";
        out.textContent = "Not imported, nothing was saved. The file is " + Math.round(file.size / 1024) +
          " KiB, larger than " + MAX_FILE_BYTES / 1024 + " KiB: a board, card mix or set of tiles takes a few KiB.";
        return;
      }
      const text = await file.text();
      const r = await post(apiUrl(form.dataset.kind, name), text);
      out.className = "reply " + (r.ok ? "ok" : "err");
      // An imported file is fixed by hand: besides the plain reason, name the entry as the file spells it.
      out.textContent = r.ok ? "Imported and saved as " + name + "." :
        "Not imported, nothing was saved. " + r.reason + (r.error && r.error !== r.reason ? " (In the file: " + r.error + ")" : "");
      if (r.ok) setTimeout(() => location.reload(), 600);
    });
  }

  for (const b of document.querySelectorAll("button.delete")) {
    b.addEventListener("click", async () => {
      if (!window.confirm("Delete " + b.dataset.name + "? A game already started on it keeps its board.")) return;
      const r = await post(apiUrl(b.dataset.kind, b.dataset.name) + "/delete", "{}");
      if (r.ok) location.reload(); else window.alert("Not deleted: " + r.reason);
    });
  }

  if (body.dataset.page !== "board-edit") return;

  // ----- the editor page ----------------------------------------------------------------------------
  const verdict = $("verdict");
  let doc = null, editor = null, checking = 0, lastOk = false;

  async function check() {
    const mine = ++checking;
    const r = await post(body.dataset.check, JSON.stringify(doc));
    if (mine !== checking) return;  // a newer change is being checked
    lastOk = !!r.ok;
    verdict.className = "reply " + (r.ok ? "ok" : "err");
    verdict.textContent = r.ok ? "The rules can play this board." : "The rules cannot play this. " + r.reason;
    editor.mark(r.ok ? null : (r.at || {}), r.ok ? "" : r.reason);
  }

  async function start() {
    const got = await window.GKApi.request(body.dataset.doc);
    if (!got.ok) { verdict.className = "reply err"; verdict.textContent = "The file could not be opened: " + got.error + "."; return; }
    doc = got.data;
    const make = editors[body.dataset.kind];
    editor = make($("editor"), doc, () => check());
    check();
  }

  $("save-form").addEventListener("submit", async e => {
    e.preventDefault();
    const out = $("saved");
    const name = $("save-name").value.trim();
    const r = await post(body.dataset.save.replace("NAME", encodeURIComponent(name)), JSON.stringify(doc));
    out.className = "reply " + (r.ok ? "ok" : "err");
    out.textContent = r.ok ? "Saved as " + name + ". Choose it in the new-game form." : "Not saved. " + r.reason;
    if (!r.ok && r.at) editor.mark(r.at, r.reason);
  });

  // Shared by the editors: a row of buttons, one chosen at a time (44 px targets).
  editors.palette = function (parent, items, chosen, onPick) {
    const row = document.createElement("div");
    row.className = "palette";
    for (const [value, label] of items) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "pick" + (value === chosen ? " chosen" : "");
      b.dataset.value = value;
      b.textContent = label;
      b.addEventListener("click", () => {
        for (const o of row.children) o.classList.toggle("chosen", o === b);
        onPick(value);
      });
      row.appendChild(b);
    }
    parent.appendChild(row);
    return row;
  };

  // The editor's one-line instructions, above its fields.
  editors.hint = function (parent, text) {
    const p = document.createElement("p");
    p.className = "hint";
    p.textContent = text;
    parent.appendChild(p);
    return p;
  };

  // The reason, written beside the entry it is about.
  editors.note = function (anchor, message) {
    for (const old of document.querySelectorAll(".at-error")) old.remove();
    for (const old of document.querySelectorAll(".has-error")) old.classList.remove("has-error");
    if (!anchor || !message) return;
    anchor.classList.add("has-error");
    const p = document.createElement("p");
    p.className = "at-error";
    p.setAttribute("role", "alert");
    p.textContent = message;
    anchor.insertAdjacentElement("afterend", p);
  };

  window.addEventListener("DOMContentLoaded", start);
})();
