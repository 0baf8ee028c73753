/* The table list refreshes itself, so a table that comes online appears without a reload. */
(function () {
  "use strict";
  const api = document.body.dataset.api;
  function esc(s) { const d = document.createElement("span"); d.textContent = s; return d.innerHTML; }
  async function refresh() {
    try {
      const r = await fetch(api, { credentials: "same-origin" });
      const j = await r.json();
      document.getElementById("broker-state").textContent = "broker " + j.broker;
      const body = document.querySelector("#tables tbody");
      if (!j.tables.length) {
        body.innerHTML = '<tr class="empty"><td colspan="5">No table has reported to the broker yet.</td></tr>';
        return;
      }
      body.innerHTML = j.tables.map(t =>
        '<tr data-table="' + esc(t.table) + '"><td><a class="tap" href="/t/' + encodeURIComponent(t.table) + '">' + esc(t.table) + "</a></td>" +
        '<td><span class="badge ' + (t.online ? "online" : "offline") + '">' + (t.online ? "online" : "offline") + "</span></td>" +
        "<td>" + esc(t.title || (t.game ? "a game this panel does not know" : "no game yet")) + "</td><td>" + esc((t.players || []).join(", ")) + "</td><td>" +
        (t.mismatch ? '<span class="badge mismatch">board mismatch</span>' : "") +
        (t.over ? '<span class="badge">game over</span>' : "") + "</td></tr>").join("");
    } catch (e) {
      document.getElementById("broker-state").textContent = "panel unreachable";
    }
  }
  setInterval(refresh, 2000);
})();
