/* The table page: the live board, the controls of a token holder, the virtual board, the sensor strip. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  const d = document.body.dataset;
  const canControl = d.canControl === "yes";
  function $(id) { return document.getElementById(id); }

  let codesFor = null;
  const live = window.GKLive({ streamUrl: d.stream, snapshotUrl: d.snapshot, onchange: render });
  window.gkLive = live;  // for people poking at the page (and for tests)

  function send(name, fields, label, button) {
    return window.GKLive.sendCommand(d.cmd, d.csrf, name, fields, label, { button });
  }

  function simulated() {
    const sensors = (live.sensors && live.sensors.sensors) || {};
    if (live.status && live.status.simulate) return true;
    return Object.values(sensors).some(s => s && s.source === "sim");
  }

  B.redraw = () => render(new Set(["redraw"]));

  const G = window.GKLive;
  let lastDrawn = null;
  function render(whys) {
    const st = live.state || {};
    const status = live.status || {};
    const badge = $("status-badge");
    // Online by its status, yet not answering commands (a hung controller), or out of the panel's reach (its
    // broker link down: the status is as it last was): said so, like the banner.
    const cut = live.broker === "disconnected";
    const stuck = status.state === "online" && !!live.answering && live.answering.answering === false;
    G.setText(badge, cut ? "out of reach" : stuck ? "not answering" : status.state || "unknown");
    const badgeClass = "badge " + (status.state === "online" && !stuck && !cut ? "online" : "offline");
    if (badge.className !== badgeClass) badge.className = badgeClass;
    G.setText($("game-name"), st.game ? (st.view && st.view.title) || st.game : "no game yet");
    G.renderCommon(live);
    // From the stream, each part drawn from the same inputs as before is kept (B.draw, G.changed);
    // B.redraw (a tap's own choice, a turned screen) draws them all again.
    const keep = !!whys && !whys.has("redraw");
    const ctx = {
      canControl, simulate: simulated(), sensors: (live.sensors && live.sensors.sensors) || {},
      legal: canControl ? (st.legal || []) : [],
      act: (action, button) => send("act", { action }, W.action(action, st), button),
      sim: (sensor, value, button) => send("sim", { sensor, value }, W.sensorName(sensor) + " " + W.sensorValue(value), button),
      keep,
    };
    const drawn = B.draw($("board"), st, ctx);
    G.setText($("board-hint"), drawn.hint || "");
    // The board's own choices are the drawing's: a board drawn again draws its buttons again too.
    const fresh = drawn !== lastDrawn || !keep;
    lastDrawn = drawn;
    if (canControl) renderActions(st, drawn.handled || new Set(), ctx, drawn.buttons || [], fresh);
    if (canControl) refreshCodes(st);
    renderSim(ctx, fresh);
    if (!whys || whys.has("sensors") || whys.has("health") || whys.has("snapshot") || whys.has("link")) renderStrip();
  }

  function renderActions(st, handled, ctx, choices, fresh) {
    const box = $("actions");
    const key = JSON.stringify([st.game, st.players, [...handled], st.over, st.waiting_for, st.expects,
                                !!(st.gm && st.gm.paused), ctx.simulate]) + B.json(st.view) + B.json(st.legal);
    if (!G.changed(box, key) && !fresh) return;
    box.innerHTML = "";
    if (!st.game) { box.textContent = "Start a new game below."; return; }
    for (const [id, label, onClick] of choices) box.appendChild(window.GKBoards.choiceButton(id, label, onClick));
    const legal = (st.legal || []).filter((a, i) => !handled.has(i));
    for (const a of legal) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "act";
      b.dataset.kind = a.kind;
      b.dataset.action = JSON.stringify(a);
      b.textContent = W.action(a, st);
      b.addEventListener("click", () => ctx.act(a, b));
      box.appendChild(b);
    }
    if (!legal.length && !choices.length && handled.size) box.textContent = "Tap a green place on the board.";
    else if (!legal.length && st.over) box.textContent = "The game is over.";
    else if (!legal.length) nothingHere(box, st, ctx);
  }

  // Nothing to press here: the table waits for the board. In --simulate the virtual board is that board.
  function nothingHere(box, st, ctx) {
    box.textContent = "Nothing to do from here: " + (st.waiting_for || "wait.");
    // Paused, nothing on the board is judged: no pointing at the virtual board until the game resumes.
    if (!ctx.simulate || !((st.expects || []).length) || (st.gm && st.gm.paused)) return;
    box.textContent = "Nothing to press here: the table waits for the board. " + (st.waiting_for || "");
    const a = document.createElement("a");
    a.href = "#sim"; a.id = "to-sim"; a.className = "button-link"; a.textContent = "Do it on the virtual board ↓";
    a.addEventListener("click", e => {
      e.preventDefault();
      const sim = $("sim");
      sim.scrollIntoView({ behavior: "smooth", block: "start" });
      const first = sim.querySelector("button");
      if (first) first.focus({ preventScroll: true });
    });
    box.appendChild(a);
  }

  async function refreshCodes(st) {
    if (!st.game_id || codesFor === st.game_id) return;
    codesFor = st.game_id;
    const ul = $("codes");
    const got = await window.GKApi.request(d.codes);
    if (!got.ok) { codesFor = null; return; }  // asked again at the next change
    ul.innerHTML = "";
    for (const c of got.data.codes || []) {
      const li = document.createElement("li");
      li.dataset.seat = c.seat;
      li.appendChild(document.createTextNode(c.player + ": "));
      const code = document.createElement("code");
      code.textContent = c.code;
      li.appendChild(code);
      ul.appendChild(li);
    }
  }

  // The virtual board: one row per piece of hardware, with the moves a person makes on the real one.
  function renderSim(ctx, fresh) {
    const card = $("sim");
    if (!card) return;
    // Only the hardware the game in play senses (GKLive.sensorKinds); graveyard dogs has none. The card is
    // drawn again when one of those sensors, or what the game expects of them, changes.
    const game = (live.state || {}).game;
    const uses = G.sensorKinds(game);
    const values = {};
    for (const id of Object.keys(ctx.sensors)) if (G.gameReads(game, id)) values[id] = (ctx.sensors[id] || {}).value;
    if (!G.changed(card, JSON.stringify([game, (live.state || {}).expects, ctx.simulate, values])) && !fresh) return;
    card.hidden = !(ctx.simulate && canControl && uses.length);
    if (card.hidden) return;
    $("sim-hint").textContent = game === "terror"
      ? "Act as the hardware: tap a tomb's space on the board to slide it there, launch or re-arm the ghost, drop a skull."
      : game === "superstition" ? "Act as the hardware: pull a peg, spring a trap, or reset it (pegs in, cocked)."
      : "Act as the hardware.";
    const sensors = ctx.sensors;
    const box = $("sim-controls");
    box.innerHTML = "";
    const row = (name, buttons) => {
      const div = document.createElement("div");
      div.className = "sim-group";
      const n = document.createElement("span");
      n.className = "name";
      n.textContent = name;
      div.appendChild(n);
      for (const [label, id, steps] of buttons) {
        const b = document.createElement("button");
        b.type = "button"; b.textContent = label; b.id = id;
        b.addEventListener("click", async () => {
          if (b.disabled) return;
          b.disabled = true;  // one press, one movement, however many taps
          try { for (const [s, v] of steps) { const r = await ctx.sim(s, v); if (!r.ok) break; } } finally { b.disabled = false; }
        });
        div.appendChild(b);
      }
      box.appendChild(div);
    };
    const val = id => (sensors[id] || {}).value;
    const has = id => id.split(".")[0] === "launcher" ? uses.includes("launcher") && id in sensors
      : uses.includes(id.split(".")[0]) && id in sensors;
    for (const tomb of ["mummy", "monster", "wolf"]) {
      const id = "tomb." + tomb;
      if (!has(id)) continue;
      row(W.sensorName(id) + " (" + W.sensorValue(val(id)) + ")", ["end_a", "middle", "end_b"].map(p => [W.tombEnd(p), "sim-" + tomb + "-" + p, [[id, p]]]));
    }
    if (has("launcher")) {
      row("Ghost (" + W.sensorValue(val("launcher")) + ")", [["launch", "sim-launch", [["launcher", "launched"]]], ["re-arm", "sim-arm", [["launcher", "armed"]]]]);
    }
    // The skull goes down one of the Crypt's two windows: the left one misses; the right one is where
    // the launcher sits, so a skull there knocks the Headless Ghost off (launched) or not.
    // The window beams are optional hardware: without the left one, a skull down it is seen by nobody, and
    // the table calls it a miss when the skull's time runs out; the row says so rather than offer a dead button.
    const covered = new Set(["launcher", "chute.left", "chute.right"]);
    const drop = id => has(id) ? [[id, "blocked"], [id, "clear"]] : [];
    if (uses.includes("chute") && (has("launcher") || has("chute.left") || has("chute.right"))) {
      row("Skull", [
        ["down the left window", "sim-chute-left", drop("chute.left")],
        ["down the right window, ghost knocked off", "sim-chute-right-hit", has("launcher") ? [...drop("chute.right"), ["launcher", "launched"]] : []],
        ["down the right window, ghost stays", "sim-chute-right", drop("chute.right")],
      ].filter(([, , steps]) => steps.length));
      if (!has("chute.left")) {
        const note = document.createElement("p");
        note.className = "hint"; note.id = "sim-no-left-beam";
        note.textContent = "This board has no beam in the left window: a skull dropped there is a miss once its time runs out.";
        box.lastChild.appendChild(note);
      }
    }
    for (const trap of ["ladder", "mirror", "grave1", "grave2"]) {
      const p = "trap." + trap;
      if (!has(p + ".sprung")) continue;
      for (const part of ["peg_a", "peg_b", "sprung"]) covered.add(p + "." + part);
      row(W.sensorName(p) + " (" + W.sensorValue(val(p + ".sprung")) + ")", [
        ["pull peg A", "sim-" + trap + "-pull-a", [[p + ".peg_a", "pulled"]]],
        ["pull peg B", "sim-" + trap + "-pull-b", [[p + ".peg_b", "pulled"]]],
        ["spring", "sim-" + trap + "-spring", [[p + ".sprung", "sprung"]]],
        ["reset", "sim-" + trap + "-reset", [[p + ".peg_a", "in"], [p + ".peg_b", "in"], [p + ".sprung", "cocked"]]],
      ]);
    }
    for (const t of ["mummy", "monster", "wolf"]) covered.add("tomb." + t);
    // Whatever else the game waits for from the board gets a control too: every sensor it expects.
    const expected = {};
    for (const e of ((live.state || {}).expects || [])) {
      for (const id of Object.keys(e.accepts || {})) expected[id] = new Set([...(expected[id] || []), ...Object.keys(e.accepts[id])]);
      for (const id of Object.keys(e.requires || {})) expected[id] = new Set([...(expected[id] || []), e.requires[id]]);
    }
    for (const id of Object.keys(expected).sort()) {
      if (covered.has(id)) continue;
      row(W.sensorName(id), [...expected[id]].map(v => [W.sensorValue(v), "sim-" + id.replace(/\./g, "-") + "-" + v, [[id, v]]]));
    }
  }

  function renderStrip() {
    const h = live.health || {};
    const links = Object.assign({}, h.links || {});
    links.panel = live.broker || "connected";
    const linkText = l => (l && typeof l === "object") ? (l.state || W.value(l)) + (l.last_error ? " (" + l.last_error + ")" : "") : W.value(l);
    const simulated = k => !!(links[k] && typeof links[k] === "object" && links[k].simulated);
    G.setText($("links"), Object.keys(links).map(k => W.linkName(k, simulated(k)) + ": " + linkText(links[k])).join(" · "));
    G.setText($("warnings"), (h.warnings || []).map(w => typeof w === "string" ? w : W.value(w)).join(" · "));
    const tbody = document.querySelector("#sensors tbody");
    const other = document.querySelector("#sensors-other tbody");
    // Value and age from the same code as the self-test page (GKLive.sensorFacts), so the two agree.
    const facts = window.GKLive.sensorFacts(live.sensors);
    // The current game's sensors first; the rest of the board's sensors under a fold.
    const mine = id => window.GKLive.gameReads((live.state || {}).game, id);
    // Each sensor keeps its row, drawn every second ("changed 3 s ago"): only the words that changed are
    // written, so a second that changes nothing lays nothing out. A cell's first text is its words; what
    // gm.js adds after them ("out of service") stays.
    const shown = [], folded = [];
    for (const id of Object.keys(facts)) {
      const f = facts[id];
      let tr = stripRows.get(id);
      if (!tr) {
        tr = document.createElement("tr");
        tr.dataset.sensor = id;
        for (const cls of ["id", "value", "changed", "source"]) {
          const td = document.createElement("td");
          td.className = cls;
          td.appendChild(document.createTextNode(""));
          tr.appendChild(td);
        }
        stripRows.set(id, tr);
      }
      const texts = [W.sensorName(id), f.value, f.changed, W.sourceName(f.source, simulated(f.source))];
      texts.forEach((text, i) => { const words = tr.children[i].firstChild; if (words.data !== text) words.data = text; });
      tr.classList.toggle("stale", !!f.offline);  // only an unreachable source: a sensor at rest is not stale
      (mine(id) || !other ? shown : folded).push(tr);
    }
    for (const id of [...stripRows.keys()]) if (!(id in facts)) stripRows.delete(id);
    G.place(tbody, shown);
    if (other) G.place(other, folded);
    // Every second: written only when they change (GKLive.setHidden).
    if ($("other-sensors")) G.setHidden($("other-sensors"), !folded.length);
    G.setHidden($("sensors"), !tbody.childNodes.length);  // graveyard dogs reads no sensor
  }
  const stripRows = new Map();  // sensor id -> its row

  const ng = $("new-game");
  if (ng) {
    ng.addEventListener("submit", async e => {
      e.preventDefault();
      const players = $("ng-players").value.split(",").map(s => s.trim()).filter(Boolean);
      const fields = { game: $("ng-game").value, players };
      const seed = $("ng-seed").value.trim();
      // Sent as typed: the panel reads it as an integer, and a JavaScript number would round seeds above 2^53.
      if (seed) fields.seed = seed;
      // The phones of the last game's players go on to their seats of this one (docs/panel.md).
      if ($("ng-keep") && $("ng-keep").checked) fields.keep_seats = true;
      // Only the chosen game's house rules, and only those changed from the rulebook's default.
      const options = {};
      const box = document.querySelector('fieldset.house-rules[data-game="' + fields.game + '"]');
      for (const el of box ? box.querySelectorAll("[data-rule]") : []) {
        if (el.type === "number" && !el.value.trim()) continue;  // left empty: the rulebook's default
        const v = el.type === "checkbox" ? el.checked : el.type === "number" ? Number(el.value) : JSON.parse(el.value);
        if (JSON.stringify(v) !== el.dataset.default) options[el.dataset.rule] = v;
      }
      if (Object.keys(options).length) fields.options = options;
      // The owner's own boards chosen in the form travel inside the options (new_game_boards.js).
      const chosen = window.GKNewGameBoards ? await window.GKNewGameBoards.options(fields.game) : {};
      if (chosen.error) {
        $("reply").className = "reply err";
        $("reply").textContent = chosen.error;
        return;
      }
      if (Object.keys(chosen.options || {}).length) fields.options = Object.assign({}, fields.options, chosen.options);
      const r = await send("new_game", fields, "New game", $("ng-start"));
      if (r.ok) $("new-game-box").open = false;
    });
    const showRules = () => {
      for (const fs of document.querySelectorAll("fieldset.house-rules")) fs.hidden = fs.dataset.game !== $("ng-game").value;
    };
    $("ng-game").addEventListener("change", showRules);
    showRules();
    $("ng-start").disabled = false;
  }

  // The strip kept at the foot of the screen (#attention): a move's confirm bar stays above it. The height is
  // set on the bar itself: set on the body, each notice that grew the strip restyled the whole page (some
  // 550 elements, 4 to 5 ms of a frame on the referee's page).
  const attention = $("attention"), confirmBar = $("confirm");
  if (attention && confirmBar && window.ResizeObserver) {
    new ResizeObserver(entries => {
      const entry = entries[entries.length - 1];
      const box = (entry.borderBoxSize && entry.borderBoxSize[0]) || null;
      const h = Math.ceil(box ? box.blockSize : attention.offsetHeight) + "px";
      if (confirmBar.style.getPropertyValue("--attention-h") !== h) confirmBar.style.setProperty("--attention-h", h);
    }).observe(attention);
  }

  setInterval(renderStrip, 1000);  // "last seen" ages even when nothing arrives
  live.start();
})();
