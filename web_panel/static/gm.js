/* The game master on the live pages: the paused banner (every page), the referee's undo, pause and
 * corrections (the table page, token holders), and a player's request to take back their move (their page).
 * Drawn from state.gm (docs/topics.md); every command goes through the panel's signed command route. */
(function () {
  "use strict";
  const W = window.GKWords;
  const d = document.body.dataset;
  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function send(name, fields, label) { return window.GKLive.sendCommand(d.cmd, d.csrf, name, fields, label); }

  const TRAPS = { ladder: "Ladder", mirror: "Mirror", grave1: "first Grave", grave2: "second Grave" };
  function sensorLabel(id) {
    const p = String(id).split(".");
    if (p[0] === "tomb") return "the " + W.humanize(p[1]) + " tomb";
    if (p[0] === "trap" && p.length === 3) {
      const trap = TRAPS[p[1]] || W.humanize(p[1]);
      return p[2] === "sprung" ? "the " + trap + " trap" : "peg " + p[2].slice(-1).toUpperCase() + " of the " + trap + " trap";
    }
    if (id === "launcher") return "the Headless Ghost's launcher";
    if (p[0] === "chute") return "the " + p[1] + " Crypt window";
    return id;
  }

  // ----- every page: paused ---------------------------------------------------------------------
  function banner(gm) {
    let b = $("gm-paused");
    if (!b) {
      b = el("div", { id: "gm-paused", class: "paused-banner", role: "status" });
      b.hidden = true;
      const main = document.querySelector("main");
      if (main) main.insertBefore(b, main.firstChild);
    }
    const p = gm.paused;
    // Written only when it changes (GKLive.setHidden, setText): this runs every second on every page.
    window.GKLive.setHidden(b, !p);
    if (p) window.GKLive.setText(b, "Paused by the " + (p.by || "referee") + (p.reason ? " (" + p.reason + ")" : "") +
      ". Every timer has stopped and no move is taken until the game resumes.");
  }

  // ----- the table page: the referee's card --------------------------------------------------------
  let built = false, declareKey = null, windowKey = null, sensorKey = null;

  function reason() { return ($("gm-reason").value || "").trim(); }
  function needReason() {
    if (reason()) return false;
    const out = $("reply");
    out.className = "reply err";
    out.textContent = "Say why in a few words first: every correction is recorded with its reason.";
    $("gm-reason").focus();
    return true;
  }
  function withReason(fields) { const r = reason(); return r ? Object.assign({ reason: r }, fields) : fields; }
  async function done(reply) { if (reply.ok) $("gm-reason").value = ""; return reply; }

  function build() {
    const anchor = $("controls");
    if (!anchor) return false;
    const card = el("section", { class: "card gm", id: "gm" });
    card.appendChild(el("h2", {}, "Game master"));
    const req = el("div", { id: "gm-request", class: "request", role: "alert" });
    req.hidden = true;
    req.appendChild(el("p", { id: "gm-request-text" }));
    const rrow = el("div", { class: "gm-row" });
    rrow.appendChild(el("button", { type: "button", id: "gm-approve" }, "Take it back"));
    rrow.appendChild(el("button", { type: "button", id: "gm-decline" }, "Turn it down"));
    req.appendChild(rrow);
    // The request goes in the strip kept in sight (#attention, table.html), beside the reply to its buttons.
    const strip = $("attention");
    if (strip) strip.insertBefore(req, $("reply")); else card.appendChild(req);
    card.appendChild(el("p", { id: "gm-undo-info" }));
    card.appendChild(el("p", { id: "gm-put-back", class: "guidance" }));
    const lab = el("label", {}, "Why (needed for a correction) ");
    lab.appendChild(el("input", { type: "text", id: "gm-reason", maxlength: "200", placeholder: "e.g. the Wolf switch missed it" }));
    card.appendChild(lab);
    const row = el("div", { class: "gm-row" });
    row.appendChild(el("button", { type: "button", id: "gm-undo" }, "Undo the last move"));
    row.appendChild(el("button", { type: "button", id: "gm-pause" }, "Pause"));
    card.appendChild(row);
    const fix = el("div", { class: "section", id: "gm-fix" });
    fix.appendChild(el("h2", {}, "Correct a misread"));
    const dbox = el("div", { id: "gm-declare-box" });
    dbox.appendChild(el("span", { class: "label" }, "What really happened"));
    dbox.appendChild(el("div", { id: "gm-declare", class: "gm-row" }));
    fix.appendChild(dbox);
    const wbox = el("div", { id: "gm-window-box" });
    wbox.appendChild(el("span", { class: "label" }, "End the waiting window"));
    wbox.appendChild(el("div", { id: "gm-window", class: "gm-row" }));
    fix.appendChild(wbox);
    const trow = el("div", { class: "gm-row" });
    trow.appendChild(el("button", { type: "button", id: "gm-trust" }, "Trust the board as it stands"));
    fix.appendChild(trow);
    const srow = el("div", { class: "gm-row" });
    const sl = el("label", {}, "Sensor ");
    sl.appendChild(el("select", { id: "gm-sensor" }));
    srow.appendChild(sl);
    srow.appendChild(el("button", { type: "button", id: "gm-broken" }, "Mark it broken for this game"));
    fix.appendChild(srow);
    fix.appendChild(el("p", { id: "gm-out", class: "hint" }));
    card.appendChild(fix);
    const slot = $("gm-slot");  // the table page keeps a place for it, after the virtual board
    if (slot) slot.replaceWith(card); else anchor.parentNode.insertBefore(card, anchor.nextSibling);

    $("gm-undo").addEventListener("click", () => send("undo", withReason({}), "Undo").then(done));
    $("gm-pause").addEventListener("click", () => {
      const paused = $("gm-pause").dataset.paused === "yes";
      send(paused ? "resume" : "pause", paused ? {} : withReason({}), paused ? "Resume" : "Pause").then(done);
    });
    $("gm-approve").addEventListener("click", () => send("undo_answer", withReason({ seat: Number($("gm-request").dataset.seat), approve: true }), "Take it back").then(done));
    $("gm-decline").addEventListener("click", () => send("undo_answer", withReason({ seat: Number($("gm-request").dataset.seat), approve: false }), "Turn it down").then(done));
    $("gm-trust").addEventListener("click", () => {
      if (needReason()) return;
      send("correct", { op: "trust_board", reason: reason() }, "Trust the board").then(done);
    });
    $("gm-broken").addEventListener("click", () => {
      if (needReason()) return;
      const sensor = $("gm-sensor").value;
      if (!sensor) return;
      send("correct", { op: "broken", sensor, reason: reason() }, "Mark " + sensorLabel(sensor) + " broken").then(done);
    });
    return true;
  }

  function buttons(box, actions, op, st, key, prev) {
    if (key === prev) return key;
    box.innerHTML = "";
    for (const a of actions) {
      const b = el("button", { type: "button", class: "gm-" + op }, W.action(a, st));
      b.dataset.action = JSON.stringify(a);
      b.addEventListener("click", () => {
        if (needReason()) return;
        send("correct", { op, action: a, reason: reason() }, W.action(a, st)).then(done);
      });
      box.appendChild(b);
    }
    return key;
  }

  function renderCard(live, st, gm) {
    if (!built) built = build();
    if (!built) return;
    const undo = gm.undo || { steps: 0 };
    $("gm-undo").disabled = !st.game || !undo.steps;
    $("gm-undo-info").textContent = !st.game ? "No game yet." : undo.steps
      ? "You can take back " + undo.steps + (undo.steps === 1 ? " move" : " moves") + " (the last: " + undo.last + "). No further than: " + (undo.stops_at || "the start") + "."
      : "No move to take back: undo stops at " + (undo.stops_at || "the start") + ".";
    const put = (gm.last_undo && gm.last_undo.put_back) || [];
    $("gm-put-back").textContent = put.length ? "Put back on the board: " + put.join(" ") : "";
    const paused = !!gm.paused;
    $("gm-pause").textContent = paused ? "Resume" : "Pause";
    $("gm-pause").dataset.paused = paused ? "yes" : "no";
    const req = gm.undo_request;
    $("gm-request").hidden = !req;
    if (req) {
      $("gm-request").dataset.seat = String(req.seat);
      $("gm-request-text").textContent = (req.player || W.playerName(st, req.seat)) + " asks to take back their last move: " + req.move + ".";
    }
    const exps = st.expects || [];
    const declare = [], windows = [];
    for (const e of exps) {
      for (const s of Object.keys(e.accepts || {})) for (const v of Object.keys(e.accepts[s])) declare.push(e.accepts[s][v]);
      if (e.action && e.requires && Object.keys(e.requires).length) declare.push(e.action);
      if (e.window_ms) {
        for (const s of Object.keys(e.accepts || {})) for (const v of Object.keys(e.accepts[s])) windows.push(e.accepts[s][v]);
        if (e.on_timeout) windows.push(e.on_timeout);
      }
    }
    const uniq = list => list.filter((a, i) => list.findIndex(b => JSON.stringify(b) === JSON.stringify(a)) === i);
    declareKey = buttons($("gm-declare"), uniq(declare), "declare", st, JSON.stringify(declare), declareKey);
    windowKey = buttons($("gm-window"), uniq(windows), "end_window", st, JSON.stringify(windows), windowKey);
    $("gm-declare-box").hidden = !declare.length;
    $("gm-window-box").hidden = !windows.length;
    $("gm-trust").disabled = !st.mismatch;
    const out = (gm.out_of_service || []);
    const broken = new Set(out.map(s => s.sensor));
    // Only this game's sensors: a trap marked broken in a Terror game would change nothing the table does.
    const ids = Object.keys((live.sensors && live.sensors.sensors) || {})
      .filter(s => !broken.has(s) && window.GKLive.gameReads(st.game, s)).sort();
    const key = ids.join(",");
    if (key !== sensorKey) {
      sensorKey = key;
      const sel = $("gm-sensor");
      sel.innerHTML = "";
      for (const id of ids) { const o = el("option", { value: id }, sensorLabel(id)); sel.appendChild(o); }
    }
    $("gm-broken").disabled = !ids.length || !st.game;
    // A game that reads no sensor (Graveyard dogs) has no misread to correct: the whole fold goes.
    $("gm-fix").hidden = !declare.length && !windows.length && !ids.length && !out.length && !st.mismatch;
    $("gm-out").textContent = out.length ? "Out of service for this game (enter their moves by hand): " + out.map(s => s.label).join(", ") + "." : "";
  }

  // ----- a player's page: ask to take back their own move ------------------------------------------------
  function renderAsk(st, gm) {
    let box = $("gm-player");
    if (!box) {
      const anchor = $("reply");
      if (!anchor) return;
      box = el("div", { id: "gm-player", class: "gm" });
      box.appendChild(el("p", { id: "gm-player-info", class: "hint" }));
      const b = el("button", { type: "button", id: "gm-ask" }, "Ask the referee to take back my last move");
      b.addEventListener("click", () => send("undo_request", { seat: Number(d.seat) }, "Ask to take it back"));
      box.appendChild(b);
      anchor.parentNode.insertBefore(box, anchor.nextSibling);
    }
    const seat = Number(d.seat);
    const undo = gm.undo || { steps: 0 };
    const mine = undo.steps > 0 && undo.last_seat === seat;
    const req = gm.undo_request;
    // A game that is over has no "last move" to ask back: its winner would only be asking to lose.
    // Written only when they change: this runs with every state.
    window.GKLive.setHidden($("gm-ask"), !!st.over || !mine || !!(req && req.seat === seat));
    window.GKLive.setText($("gm-player-info"), st.over ? "The game is over."
      : req && req.seat === seat
      ? "You asked to take back \u201c" + req.move + "\u201d: waiting for the referee."
      : undo.steps ? "The referee can take back " + undo.steps + (undo.steps === 1 ? " move." : " moves.") + (mine ? " The last one was yours." : "")
      : "No move can be taken back now.");
  }

  function render(live) {
    const st = live.state || {};
    const gm = st.gm || {};
    banner(gm);
    if (d.page === "table" && d.canControl === "yes") renderCard(live, st, gm);
    if (d.page === "player") renderAsk(st, gm);
  }

  // The game master's events in words (the event log of every page, and the history).
  const why = data => data.reason ? " (" + data.reason + ")" : "";
  const words = {
    undone: (x, st) => "The " + (x.by || "referee") + " took back: " + x.move + why(x) +
      (x.requested_by ? ", as " + x.requested_by + " asked" : "") + "." + ((x.put_back || []).length ? " " + x.put_back.join(" ") : ""),
    undo_requested: (x, st) => (x.player || W.playerName(st, x.seat)) + " asks to take back: " + x.move + ".",
    undo_declined: (x, st) => "The " + (x.by || "referee") + " kept " + (x.player || W.playerName(st, x.seat)) + "'s move" + why(x) + ".",
    paused: x => "The " + (x.by || "referee") + " paused the game" + why(x) + ".",
    resumed: x => "The " + (x.by || "referee") + " resumed the game.",
    corrected: x => "Correction by the " + (x.by || "referee") + ": " + x.text + why(x) + ".",
  };
  const plain = W.event;
  W.event = function (ev, st) {
    const f = words[ev.type];
    if (f) { try { return f(ev.data || {}, st); } catch (e) { /* generic words */ } }
    return plain(ev, st);
  };

  // Sensors marked broken: "out of service" on every sensor table (the table page's strip, the self-test
  // page's health), kept when those tables are drawn again. Pages without renderCommon get the banner here.
  function outOfService() {
    const live = window.gkLive;
    if (!live) return new Set();
    const gm = (live.state || {}).gm || {};
    const ids = (gm.out_of_service || []).concat((live.health || {}).out_of_service || []).map(s => s.sensor);
    return new Set(ids);
  }
  function annotate() {
    const live = window.gkLive;
    if (!live) return;
    banner((live.state || {}).gm || {});
    const out = outOfService();
    for (const tr of document.querySelectorAll("#sensors tbody tr, #st-sensors tbody tr")) {
      const id = tr.dataset.sensor || ((tr.querySelector("td.id") || {}).textContent || "");
      const broken = out.has(id);
      tr.classList.toggle("out-of-service", broken);
      // In the value's own cell: a column more would widen a table a phone already scrolls.
      let tag = tr.querySelector(".oos");
      const cell = tr.querySelector("td.value") || tr.querySelector("td:last-child");
      if (broken && !tag && cell) { tag = el("span", { class: "oos" }, " out of service"); cell.appendChild(tag); }
      if (!broken && tag) tag.remove();
    }
  }
  const watch = new MutationObserver(() => { watch.disconnect(); annotate(); observe(); });
  function observe() {
    for (const body of document.querySelectorAll("#sensors tbody, #st-sensors tbody")) watch.observe(body, { childList: true });
  }
  document.addEventListener("DOMContentLoaded", () => { annotate(); observe(); });
  setInterval(annotate, 1000);  // the paused banner on pages that draw no common parts (the self-test)

  window.GKGm = { render, sensorLabel };
})();
