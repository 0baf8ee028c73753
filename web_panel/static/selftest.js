/* The self-test page: start a run, follow the guided steps, show every check and step as it lands.
 *
 * The report lives in the retained health topic (health.selftest, docs/selftest.md); the table's
 * event stream brings each new version, so this page only draws what it is sent.
 */
(function () {
  "use strict";
  const W = window.GKWords;
  const d = document.body.dataset;
  const canControl = d.canControl === "yes";  // spectators get the same page, read-only
  function $(id) { return document.getElementById(id); }
  const live = window.GKLive({ streamUrl: d.stream, snapshotUrl: d.snapshot, onchange: render });
  window.gkLive = live;  // for people poking at the page (and for tests)
  let deadline = null, deadlineFor = null, starting = false, startedBefore = null;

  function send(fields, label, okText, button) {
    return window.GKLive.sendCommand(d.cmd, d.csrf, "selftest", fields, label, { okText, button });
  }

  // A run that was just asked for is not done: the table said yes, and the report follows as it runs.
  async function start(fields, label) {
    starting = true;
    startedBefore = (((live.health || {}).selftest) || {}).started;
    render();
    const r = await send(fields, label, "started");
    if (!r.ok) { starting = false; render(); }
  }

  if (canControl) {
  $("st-start").addEventListener("click", () => start({}, "Self-test"));
  $("st-guided").addEventListener("click", () => start({ guided: true }, "Guided self-test"));
  $("st-skip").addEventListener("click", () => send({ skip: true }, "Skip", "skipped", $("st-skip")));
  $("st-stop").addEventListener("click", () => send({ skip: "all" }, "Stop", "stopped", $("st-stop")));
  $("st-do").addEventListener("click", () => {
    const cur = ((live.health || {}).selftest || {}).current;
    if (!cur) return;
    const cut = cur.id.lastIndexOf(".");
    const sensor = cur.id.slice(0, cut), value = cur.id.slice(cut + 1);
    const values = value === "drop" ? ["blocked", "clear"] : [value];
    (async () => { for (const v of values) await window.GKLive.sendCommand(d.cmd, d.csrf, "sim", { sensor, value: v }); })();
  });
  }

  // What each group of checks looks at, as the person running the self-test calls it.
  const GROUPS = { channels: "Reading the sensors", wiring: "Wiring", idle: "At rest", impossible: "Impossible readings",
                   noise: "Quiet board", mcu: "Microcontroller", broker: "Broker", journal: "Journal",
                   data: "Data file", hardware: "Sensors", selftest: "Self-test" };
  function checkName(c) {
    const group = GROUPS[c.group] || W.humanize(c.group || "");
    const rest = String(c.id || "").split(".").slice(1).join(".");
    return c.group === "data" && rest ? group + ": " + W.humanize(rest).toLowerCase() : group;
  }

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
    $("links").textContent = Object.keys(links).map(k => W.linkName(k, !!(links[k] || {}).simulated) + ": " + W.value((links[k] || {}).state || "?")).join(" · ");
    $("warnings").textContent = (h.warnings || []).join(" · ");
    renderLive(h);
    const rep = h.selftest;
    const checks = document.querySelector("#st-checks tbody"), steps = document.querySelector("#st-steps tbody");
    checks.innerHTML = ""; steps.innerHTML = "";
    const cur = rep && rep.running ? rep.current : null;
    if (starting && rep && (rep.running || rep.started !== startedBefore)) starting = false;  // the new run's report is here
    $("st-current").hidden = !cur;
    if (canControl) $("st-start").disabled = $("st-guided").disabled = !!(rep && rep.running) || starting;
    if (cur) {
      $("st-progress").textContent = "Step " + (cur.done + 1) + " of " + cur.total + " (" + cur.done + " done, " + cur.left + " left)";
      $("st-bar").max = cur.total; $("st-bar").value = cur.done;
      $("st-prompt").textContent = cur.prompt;
      if (canControl) $("st-do").hidden = !h.simulate;
      if (deadlineFor !== cur.id) {
        // A new step: its full time, shown at once (not the last step's "0 s left" until the next tick).
        deadlineFor = cur.id; deadline = Date.now() / 1000 + cur.timeout_s;
        showTimeLeft();
      }
    } else {
      deadline = deadlineFor = null;
      $("st-timeleft").textContent = "";
    }
    const v = $("st-verdict");
    if (starting) { v.textContent = "starting"; v.className = "badge"; }
    if (!rep) return;
    if (!starting) {
      // "incomplete": nothing failed, but a step was skipped or never reached, so the board is not proven.
      const verdict = rep.running ? "running" : rep.verdict === "incomplete" ? "incomplete" : rep.ok ? "passed" : "failed";
      v.textContent = verdict;
      v.className = "badge " + ({ passed: "online", failed: "offline", incomplete: "mismatch" }[verdict] || "");
    }
    const s = rep.summary || {};
    $("st-summary").textContent = (s.pass || 0) + " passed, " + (s.warn || 0) + " warned, " + (s.fail || 0) + " failed, "
      + (s.skip || 0) + " skipped; steps: " + (s.steps_pass || 0) + " passed, " + (s.steps_fail || 0) + " failed, "
      + (s.steps_timeout || 0) + " timed out, " + (s.steps_skipped || 0) + " skipped";
    for (const c of rep.checks || []) {
      row(checks, [["status", c.status.toUpperCase()], ["id", checkName(c)], ["message", c.message]], "st-" + c.status);
      checks.lastChild.dataset.check = c.id;  // the id stays for scripts and docs/selftest.md, not for reading
    }
    for (const st of rep.steps || []) {
      const extra = [];
      if (st.bounces) extra.push(st.bounces + " bounce(s)");
      if (typeof st.settle_ms === "number") extra.push("settled in " + st.settle_ms.toFixed(1) + " ms");
      if (typeof st.latency_ms === "number") extra.push("latency " + st.latency_ms.toFixed(1) + " ms");
      row(steps, [["status", st.status.toUpperCase()], ["id", st.prompt], ["message", st.message + (extra.length ? " (" + extra.join(", ") + ")" : "")]], "st-" + st.status);
    }
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
    // The reading and its age come from the same sensors topic as the table page's (GKLive.sensorFacts),
    // so the two pages agree; the monitor adds what only it counts: edges and bounces.
    const counters = mon.sensors || {};
    const facts = window.GKLive.sensorFacts(live.sensors);
    const ids = [...new Set([...Object.keys(facts), ...Object.keys(counters)])].sort();
    for (const id of ids) {
      const f = facts[id] || { value: "—", changed: "changed never", offline: false };
      const c = counters[id] || { edges: 0, bounces: 0 };
      row(tbody, [["id", W.sensorName(id)], ["value", f.value], ["changed", f.changed],
                  ["edges", c.edges + " edges"], ["bounces", c.bounces + " bounces"]], f.offline ? "stale" : "");
      tbody.lastChild.dataset.sensor = id;
    }
  }

  function showTimeLeft() {
    if (deadline === null) return;
    $("st-timeleft").textContent = Math.max(0, Math.round(deadline - Date.now() / 1000)) + " s left for this step";
  }
  setInterval(showTimeLeft, 500);
  setInterval(() => renderLive(live.health || {}), 1000);  // "changed ... ago" ages even when nothing arrives
  live.start();
})();
