/* The self-test page: start a run, follow the guided steps, show every check and step as it lands.
 *
 * The report lives in the retained health topic (health.selftest, docs/selftest.md); the table's
 * event stream brings each new version, so this page only draws what it is sent.
 */
(function () {
  "use strict";
  const d = document.body.dataset;
  function $(id) { return document.getElementById(id); }
  const live = window.GKLive({ streamUrl: d.stream, snapshotUrl: d.snapshot, onchange: render });
  window.gkLive = live;  // for people poking at the page (and for tests)
  let deadline = null, deadlineFor = null;

  function send(fields, label) {
    return window.GKLive.sendCommand(d.cmd, d.csrf, "selftest", fields, label);
  }

  $("st-start").addEventListener("click", () => send({}, "Self-test"));
  $("st-guided").addEventListener("click", () => send({ guided: true }, "Guided self-test"));
  $("st-skip").addEventListener("click", () => send({ skip: true }, "Skip"));
  $("st-stop").addEventListener("click", () => send({ skip: "all" }, "Stop"));
  $("st-do").addEventListener("click", () => {
    const cur = ((live.health || {}).selftest || {}).current;
    if (!cur) return;
    const cut = cur.id.lastIndexOf(".");
    const sensor = cur.id.slice(0, cut), value = cur.id.slice(cut + 1);
    const values = value === "drop" ? ["blocked", "clear"] : [value];
    (async () => { for (const v of values) await window.GKLive.sendCommand(d.cmd, d.csrf, "sim", { sensor, value: v }); })();
  });

  function row(tbody, cells, cls) {
    const tr = document.createElement("tr");
    tr.className = cls;
    for (const [c, text] of cells) {
      const td = document.createElement("td");
      td.className = c;
      td.textContent = text;
      tr.appendChild(td);
    }
    tbody.appendChild(tr);
  }

  function render() {
    const h = live.health || {};
    const links = h.links || {};
    $("links").textContent = Object.keys(links).map(k => k + ": " + ((links[k] || {}).state || "?")).join(" · ");
    $("warnings").textContent = (h.warnings || []).join(" · ");
    renderLive(h);
    const rep = h.selftest;
    const checks = document.querySelector("#st-checks tbody"), steps = document.querySelector("#st-steps tbody");
    checks.innerHTML = ""; steps.innerHTML = "";
    const cur = rep && rep.running ? rep.current : null;
    $("st-current").hidden = !cur;
    $("st-start").disabled = $("st-guided").disabled = !!(rep && rep.running);
    if (cur) {
      $("st-progress").textContent = "Step " + (cur.done + 1) + " of " + cur.total + " (" + cur.done + " done, " + cur.left + " left)";
      $("st-prompt").textContent = cur.prompt;
      $("st-do").hidden = !h.simulate;
      if (deadlineFor !== cur.id) { deadlineFor = cur.id; deadline = Date.now() / 1000 + cur.timeout_s; }
    } else {
      deadline = deadlineFor = null;
    }
    if (!rep) return;
    const v = $("st-verdict");
    v.textContent = rep.running ? "running" : (rep.ok ? "passed" : "failed");
    v.className = "badge " + (rep.running ? "" : rep.ok ? "online" : "offline");
    const s = rep.summary || {};
    $("st-summary").textContent = (s.pass || 0) + " passed, " + (s.warn || 0) + " warned, " + (s.fail || 0) + " failed, "
      + (s.skip || 0) + " skipped; steps: " + (s.steps_pass || 0) + " passed, " + (s.steps_fail || 0) + " failed, "
      + (s.steps_timeout || 0) + " timed out, " + (s.steps_skipped || 0) + " skipped";
    for (const c of rep.checks || []) row(checks, [["status", c.status.toUpperCase()], ["id", c.id], ["message", c.message]], "st-" + c.status);
    for (const st of rep.steps || []) {
      const extra = [];
      if (st.bounces) extra.push(st.bounces + " bounce(s)");
      if (typeof st.settle_ms === "number") extra.push("settled in " + st.settle_ms.toFixed(1) + " ms");
      if (typeof st.latency_ms === "number") extra.push("latency " + st.latency_ms.toFixed(1) + " ms");
      row(steps, [["status", st.status.toUpperCase()], ["id", st.prompt], ["message", st.message + (extra.length ? " (" + extra.join(", ") + ")" : "")]], "st-" + st.status);
    }
  }

  function ago(t) {
    if (typeof t !== "number") return "never";
    const s = Math.max(0, Math.round(Date.now() / 1000 - t));
    return s < 60 ? s + " s ago" : Math.round(s / 60) + " min ago";
  }

  function renderLive(h) {
    const halt = h.halt;
    $("st-halt").hidden = !halt;
    if (halt) { $("st-halt-message").textContent = halt.message; $("st-halt-guidance").textContent = halt.guidance; }
    const mon = h.monitor || {};
    const list = $("st-findings");
    list.innerHTML = "";
    for (const f of mon.findings || []) {
      const li = document.createElement("li");
      li.className = "st-" + (f.level === "failure" ? "fail" : "warn");
      li.textContent = f.level.toUpperCase() + ": " + f.message + " — " + f.guidance;
      list.appendChild(li);
    }
    const tbody = document.querySelector("#st-sensors tbody");
    tbody.innerHTML = "";
    const sensors = mon.sensors || {};
    for (const id of Object.keys(sensors).sort()) {
      const s = sensors[id];
      row(tbody, [["id", id], ["changed", "changed " + ago(s.last_change)], ["seen", "seen " + ago(s.last_seen)],
                  ["edges", s.edges + " edges"], ["bounces", s.bounces + " bounces"]], "");
    }
  }

  setInterval(() => {
    if (deadline === null) return;
    $("st-timeleft").textContent = Math.max(0, Math.round(deadline - Date.now() / 1000)) + " s left for this step";
  }, 500);
  live.start();
})();
