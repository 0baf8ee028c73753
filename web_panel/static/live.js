/* The live picture of one table, kept by server-sent events, shared by the table and player pages.
 *
 * On connect the server sends a snapshot of everything retained, then changes.
 * Events carry a gap-free seq: one that skips ahead means something was lost, so
 * the page fetches the retained state again (and the server asks the table to
 * republish). EventSource reconnects by itself; a closed stream is reopened.
 */
(function () {
  "use strict";
  const W = window.GKWords;

  function $(id) { return document.getElementById(id); }

  // When the table made each state, on this page's clock: a state with a running timer says what was
  // left of it then (expects[].left_ms), and the panel says how old its copy is (age_ms), so a page
  // opened in the middle of an outcome window counts down what is really left (countdown.js).
  const madeAt = new WeakMap();
  // Hidden at least this long, a page opens its stream again when shown (a glance at another app is not sleep).
  const WAKE_AFTER_MS = 1500;
  // An event's state normally follows it within milliseconds; this late, the page is drawn without it.
  const STATE_LATE_MS = 400;
  function stampState(st, held) {
    if (!st || typeof st !== "object" || madeAt.has(st)) return;
    if (held && madeAt.has(held) && held.game_id === st.game_id && held.seq === st.seq && held.time === st.time) {
      madeAt.set(st, madeAt.get(held));  // the same state again (a reconnect's copy): made when first seen
      return;
    }
    const age = typeof st.age_ms === "number" && st.age_ms > 0 ? st.age_ms : 0;
    madeAt.set(st, performance.now() - age);
  }

  // A phone that slept may hold a stream that died without an error: nothing arrives and nothing fails,
  // and the page would show the table as it was. Waking (shown again after a while, back online, or back
  // from the browser's page cache), each stream of the page is opened again.
  const wakeHandlers = [];
  let hiddenAt = null;
  function wake() { for (const fn of wakeHandlers) fn(); }
  function onWake(fn) {
    if (!wakeHandlers.length) {
      document.addEventListener("visibilitychange", () => {
        if (document.hidden) { hiddenAt = performance.now(); return; }
        if (hiddenAt !== null && performance.now() - hiddenAt >= WAKE_AFTER_MS) wake();
        hiddenAt = null;
      });
      window.addEventListener("online", wake);
      window.addEventListener("pageshow", e => { if (e.persisted) wake(); });
    }
    wakeHandlers.push(fn);
  }

  function GKLive(opts) {
    const live = {
      status: null, sensors: null, health: null, broker: null,
      events: [], seen: new Set(), lastSeq: null, resyncs: 0, gaps: 0, opened: 0, renders: 0, snapshots: 0,
      onextra: opts.onextra || {},
    };
    // Whoever replaces the state (the stream, a fetched snapshot, someone at the console), the page hears
    // of it at once: the countdown's clock sleeps until a state opens a window (countdown.js).
    let state = null;
    Object.defineProperty(live, "state", {
      enumerable: true,
      get() { return state; },
      set(st) { state = st; document.dispatchEvent(new Event("gk-state")); },
    });
    // One change often arrives as several messages (event, state, sensors, health): draw once for all of them.
    let pending = null;
    // Events newer than the state held: the table publishes each event before the state that includes it,
    // so the page shows what an event says (its line in the log, the board's notice) in the next frame, and
    // leaves the whole redraw to that state. Only if the state is late is the whole page drawn without it.
    const ahead = [];
    let lateTimer = null;
    live.onchange = function (why) {
      if (pending === null) {
        pending = new Set();
        const render = whys => {
          clearTimeout(lateTimer);
          live.renders += 1; (opts.onchange || function () {})(whys);
        };
        const flush = () => {
          const whys = pending; pending = null;
          if (!ahead.length) { render(whys); return; }
          showAhead(ahead.splice(0), live);
          if (whys.size === 1 && whys.has("ahead")) {
            clearTimeout(lateTimer);
            lateTimer = setTimeout(() => live.onchange("event"), STATE_LATE_MS);
            return;
          }
          // The state came in the same frame as the event: this frame shows only what the event says, and
          // the whole redraw (tens of ms on a phone) runs as the next task, once the frame is painted.
          setTimeout(() => render(whys), 0);
        };
        if (document.hidden) setTimeout(flush, 50); else requestAnimationFrame(flush);
      }
      pending.add(why);
    };
    live.ahead = function (ev) { ahead.push(ev); live.onchange("ahead"); };
    let es = null;

    function setLive(text) { const el = $("live-state"); if (el) el.textContent = text; }

    function takeSeq(seq) {
      if (typeof seq === "number" && (live.lastSeq === null || seq > live.lastSeq)) live.lastSeq = seq;
    }

    function logEvent(ev) {
      if (typeof ev.seq === "number") {
        if (live.seen.has(ev.seq)) return false;
        live.seen.add(ev.seq);
      }
      live.events.push(ev);
      if (live.events.length > 300) {
        const old = live.events.shift();
        if (typeof old.seq === "number") live.seen.delete(old.seq);
      }
      return true;
    }

    // Which of two copies of a retained topic is newer: a fetched snapshot was read at the panel before
    // its answer arrived, and the stream may have brought a newer copy in the meantime.
    function newest(held, got, fresher) {
      if (!held || !got) return got;
      return fresher(held, got) ? held : got;
    }
    const stateFresher = (a, b) => a.game_id === b.game_id && typeof a.seq === "number" && typeof b.seq === "number" && a.seq > b.seq;
    const timeFresher = (a, b) => typeof a.time === "number" && typeof b.time === "number" && a.time > b.time;

    function applySnapshot(snap, fetched) {
      if (!snap) return;
      live.snapshots += 1;
      document.body.dataset.snapshots = String(live.snapshots);
      stampState(snap.state, live.state);
      if (fetched) {
        // The stream's own snapshots are in order with its messages; only a fetched one can be stale.
        live.state = newest(live.state, snap.state, stateFresher);
        live.sensors = newest(live.sensors, snap.sensors, timeFresher);
        live.health = newest(live.health, snap.health, timeFresher);
        live.status = snap.status;
      } else {
        live.status = snap.status; live.state = snap.state; live.sensors = snap.sensors; live.health = snap.health;
      }
      if (snap.broker) live.broker = snap.broker;
      if (snap.answering) live.answering = snap.answering;
      if (snap.trust) live.trust = snap.trust;
      const seqs = [live.state && live.state.seq, ...(snap.events || []).map(ev => ev.seq)].filter(n => typeof n === "number");
      if (seqs.length && live.lastSeq !== null && Math.max(...seqs) < live.lastSeq) {
        // The table started again from an empty journal: its numbering starts over, and so does the log,
        // or its new events would be taken for ones already seen.
        live.seen.clear(); live.events = [];
      }
      live.lastSeq = null;
      if (live.state) takeSeq(live.state.seq);
      for (const ev of snap.events || []) { logEvent(ev); takeSeq(ev.seq); }
      live.events.sort((a, b) => (a.seq || 0) - (b.seq || 0));
      live.onchange("snapshot");
    }

    async function resync() {
      live.resyncs += 1;
      document.body.dataset.resyncs = String(live.resyncs);
      if (!opts.snapshotUrl) { reopen(); return; }
      const got = await window.GKApi.request(opts.snapshotUrl);
      if (got.ok) applySnapshot(got.data, true);  // else the stream will reconnect and send a snapshot anyway
    }

    function onEvent(ev) {
      const seq = ev.seq;
      if (typeof seq === "number" && live.lastSeq !== null) {
        if (seq <= live.lastSeq) {            // already part of the state we hold
          if (logEvent(ev)) live.onchange("event");
          return;
        }
        if (seq > live.lastSeq + 1) {          // something was lost: start again from the retained state
          live.gaps += 1;
          document.body.dataset.gaps = String(live.gaps);
          logEvent(ev); takeSeq(seq);
          resync();
          return;
        }
      }
      logEvent(ev); takeSeq(seq);
      const st = live.state;
      const sameGame = st && (!ev.context || !st.game_id || ev.context.game_id === st.game_id);
      if (sameGame && typeof seq === "number" && typeof st.seq === "number" && seq > st.seq) live.ahead(ev);
      else live.onchange("event");
    }

    function open() {
      es = new EventSource(opts.streamUrl);
      es.addEventListener("open", () => {
        live.opened += 1; document.body.dataset.opened = String(live.opened); setLive("live");
        window.GKApi.hideWhyRefused();
      });
      es.addEventListener("error", () => {
        setLive("reconnecting…");
        if (es.readyState !== EventSource.CLOSED) return;  // the browser retries by itself
        // The panel refused the stream (an HTTP error): the page may know why, and whether to go on trying.
        const ask = opts.onclosed ? Promise.resolve(opts.onclosed()).catch(() => true) : Promise.resolve(true);
        ask.then(retry => {
          if (!retry) { stopped = true; setLive("stopped"); return; }
          // Refused for room (the device's live pages, the panel's): the people read why, not only "reconnecting".
          window.GKApi.showWhyRefused().then(why => {
            if (!why.shown) return;
            setLive("paused");
            // Meanwhile the table as it is now, as often as the panel is asked why (a page refused at its
            // opening was blank).
            if (why.fresh && opts.snapshotUrl) {
              window.GKApi.request(opts.snapshotUrl).then(got => { if (got.ok) applySnapshot(got.data, true); });
            }
          });
          setTimeout(reopen, 2000);
        });
      });
      es.addEventListener("snapshot", e => applySnapshot(JSON.parse(e.data)));
      for (const kind of ["status", "state", "sensors", "health"]) {
        es.addEventListener(kind, e => {
          const data = JSON.parse(e.data);
          // An older copy of the same game's state (queued before a reopened stream's snapshot) is stale:
          // the page keeps the newer one and its log. Only another game_id with a lower seq is a restart.
          if (kind === "state" && data && live.state && stateFresher(live.state, data)) return;
          if (kind === "state") stampState(data, live.state);
          live[kind] = data;
          if (kind === "state" && data && typeof data.seq === "number" && live.lastSeq !== null && data.seq < live.lastSeq) {
            // The table started again from an empty journal: its numbering starts over, and so does the log.
            live.lastSeq = null; live.seen.clear(); live.events = [];
          }
          if (kind === "state" && data) takeSeq(data.seq);
          live.onchange(kind);
        });
      }
      es.addEventListener("event", e => onEvent(JSON.parse(e.data)));
      es.addEventListener("trust", e => { live.trust = JSON.parse(e.data); live.onchange("trust"); });
      es.addEventListener("link", e => { live.broker = JSON.parse(e.data).broker; live.onchange("link"); });
      // Whether the table answers commands, as the panel saw it (a command waited in vain, or one came back).
      es.addEventListener("answering", e => { live.answering = JSON.parse(e.data); live.onchange("answering"); });
      for (const kind of Object.keys(live.onextra)) {
        es.addEventListener(kind, e => live.onextra[kind](JSON.parse(e.data)));
      }
    }

    function reopen() { if (es) es.close(); open(); }

    // Waking, the stream is opened again: its snapshot brings what the page missed (see onWake).
    let stopped = false;
    live.start = () => { onWake(() => { if (es && !stopped) reopen(); }); open(); };
    live.resync = resync;
    return live;
  }

  // Commands on their way: the same command twice while the first is in flight is one send (a double
  // tap on a board space, or a button pressed again before the page could disable it).
  const inFlight = new Map();

  /** Send one command; resolves to the reply ({ok, error?, data?}), shown in #reply ("<label>: <okText>").
   *  opts.button is disabled until the reply is in, so a double tap sends once. */
  function sendCommand(cmdUrl, csrf, name, fields, label, opts) {
    const o = typeof opts === "string" ? { okText: opts } : (opts || {});
    // The same command at the same state is a double tap; once the state has moved on (the reply may
    // come after the new state), the same command again is a new move (a second opening roll).
    const st = window.gkLive && window.gkLive.state;
    const key = name + " " + JSON.stringify(fields || {}) + " @" + (st ? st.game_id + "/" + st.seq : "");
    if (inFlight.has(key)) return inFlight.get(key);
    if (o.button) o.button.disabled = true;
    const sent = post(cmdUrl, csrf, name, fields, label, o.okText).finally(() => {
      inFlight.delete(key);
      if (o.button) o.button.disabled = false;
    });
    inFlight.set(key, sent);
    return sent;
  }

  async function post(cmdUrl, csrf, name, fields, label, okText) {
    const out = $("reply");
    const what = label || W.humanize(name);
    if (out) { out.className = "reply"; out.textContent = what + "…"; }
    const got = await window.GKApi.request(cmdUrl.replace("NAME", encodeURIComponent(name)),
                                           { body: fields || {}, csrf: csrf });
    const reply = got.ok ? got.data : Object.assign({}, got.data, { ok: false, error: got.error });
    if (out) {
      out.className = "reply " + (reply.ok ? "ok" : "err");
      // A table that did not answer did not refuse: the move may have been made.
      out.textContent = reply.ok ? what + ": " + (okText || "done") : what + (got.status === 504 ? ": " : " refused: ") + reply.error;
    }
    return reply;
  }

  /** What events newer than the page's state say, shown at once: the board's notice when the board stops
   *  or starts again to match the game, and each event's line at the top of the log. The state that follows
   *  draws the whole page again (renderCommon), the same way. */
  function showAhead(events, live) {
    const st = live.state || {};
    const banner = $("mismatch");
    for (const ev of events) {
      if (banner && ev.type === "mismatch" && ev.data) {
        $("mismatch-message").textContent = ev.data.message || "The board and the game disagree.";
        $("mismatch-guidance").textContent = ev.data.guidance || "";
        banner.hidden = false;
      } else if (banner && ev.type === "mismatch_cleared") {
        banner.hidden = true;
      }
    }
    const log = $("log");
    if (log) for (const ev of events) log.insertBefore(lineFor(log, ev, st), log.firstChild);
  }

  /** The board's mismatch as the page knows it: the state's, unless a newer event of the same game (one
   *  the state does not hold yet) said the board stopped or started again to match the game. Any drawing
   *  between such an event and its state (another message, a resize) shows what the event said. */
  function mismatchNow(events, st) {
    let mm = st.mismatch, newest = typeof st.seq === "number" ? st.seq : Infinity;
    for (const ev of events) {
      if (typeof ev.seq !== "number" || ev.seq <= newest) continue;
      if (ev.context && st.game_id && ev.context.game_id !== st.game_id) continue;
      if (ev.type === "mismatch") { mm = ev.data || {}; newest = ev.seq; }
      else if (ev.type === "mismatch_cleared") { mm = null; newest = ev.seq; }
    }
    return mm;
  }

  // What each part of a page was last drawn from: a part whose inputs have not changed is left as it is.
  // A state follows every event, and most change one thing (whose turn, a notice, one move): redrawing every
  // part for each of them costs a phone a layout of the whole page, and nine pages on one machine a frame.
  const drawnFrom = new WeakMap();
  /** Whether ``key`` (a string made of everything ``el`` is drawn from) differs from the last one given for
   *  ``el``; it is remembered either way. */
  function changed(el, key) {
    if (drawnFrom.get(el) === key) return false;
    drawnFrom.set(el, key);
    return true;
  }
  /** A write of the same words still makes the browser lay the page out again: only words that differ. */
  function setText(el, text) {
    if (el.textContent !== text) el.textContent = text;
  }
  /** The same for showing and hiding: setting ``hidden`` to what it already is still costs a frame. */
  function setHidden(el, hidden) {
    if (el.hidden !== hidden) el.hidden = hidden;
  }

  /** The parts every page shows the same way: banners, turn, dice, waiting, log. */
  function renderCommon(live) {
    const st = live.state || {};
    const trust = $("trust");
    if (trust && live.trust) {
      // Whether the panel could check the table's signature, and what it refused (web_panel/trust.py).
      trust.textContent = live.trust.text;
      const refused = Object.values(live.trust.refused || {}).reduce((a, b) => a + b, 0);
      trust.className = "trust " + (!live.trust.vouched ? "unvouched" : refused ? "refused" : "vouched");
    }
    const mm = mismatchNow(live.events, st);
    const banner = $("mismatch");
    if (banner) {
      setHidden(banner, !mm);
      if (mm) {
        setText($("mismatch-message"), mm.message || "The board and the game disagree.");
        setText($("mismatch-guidance"), mm.guidance || "");
      }
    }
    const quiet = $("not-answering");
    if (quiet) {
      const a = live.answering;
      const silent = !!(a && a.answering === false);
      // The panel's own link to the broker down (a broker that hangs, a network cut): nothing reaches the
      // table, and the page shows it as it last was; said first, since it is why the table cannot answer.
      const cut = live.broker === "disconnected";
      setHidden(quiet, !silent && !cut);
      if (cut) {
        setText($("not-answering-title"), "The panel has lost touch with the table");
        setText($("not-answering-message"), "Its message broker is out of reach, so no move gets through and " +
          "what this page shows may be out of date. It comes back by itself when the broker answers again.");
      } else if (silent) {
        const since = typeof a.since === "number" ? " since " + new Date(a.since * 1000).toLocaleTimeString() : "";
        setText($("not-answering-title"), "The table is not answering");
        setText($("not-answering-message"), "It has not answered a move" + since + "; it may be busy or stuck. " +
          "Look at the board before you try again: the panel sends it one move at a time until it answers.");
      }
    }
    const over = $("over");
    if (over) {
      setHidden(over, !st.over);
      if (st.over) {
        const names = (st.winners || []).map(s => W.playerName(st, s));
        setText(over, names.length ? "Game over: " + names.join(" and ") + (names.length > 1 ? " win." : " wins.") : "Game over.");
      }
    }
    const turn = $("turn");
    if (turn) setText(turn, st.game ? (st.over ? "game over" : W.playerName(st, st.current_player)) : "no game yet");
    const dice = $("dice");
    if (dice) {
      // Dice drawn as dice, where the page has the drawings; the same dice are not drawn again.
      if (W.drawDice) { if (changed(dice, JSON.stringify(W.diceOf(st.view || {})))) W.drawDice(dice, st.view || {}); }
      else setText(dice, diceText((st.view || {})));
    }
    const wait = $("waiting-for");
    if (wait) setText(wait, st.waiting_for || (st.game ? "—" : "A new game."));
    if (window.GKGm) window.GKGm.render(live);  // paused banner, the game master's card (gm.js)
    const log = $("log");
    if (log) renderLog(log, live.events, st);
  }

  // The log of the game in play, and below it, folded, the games before it: each event keeps the game it
  // belongs to (its "context", added by the panel), and is worded with that game's rules and names.
  function renderLog(log, events, st) {
    const current = ev => !ev.context || !st.game_id || ev.context.game_id === st.game_id;
    fillLog(log, events.filter(current).slice(-120), () => st);
    let box = $("log-earlier");
    const earlier = events.filter(ev => !current(ev));
    if (!earlier.length) { if (box) box.hidden = true; return; }
    if (!box) {
      box = document.createElement("details");
      box.id = "log-earlier";
      box.className = "log-earlier";
      const sum = document.createElement("summary");
      sum.textContent = "Earlier games";
      box.appendChild(sum);
      box.appendChild(document.createElement("div"));
      log.insertAdjacentElement("afterend", box);
    }
    box.hidden = false;
    const holder = box.lastChild;
    // Earlier games' events no longer change: drawn again only when the list of them does.
    if (!changed(holder, earlier.map(ev => ev.context.game_id + "/" + ev.seq).join(","))) return;
    holder.innerHTML = "";
    const games = [];
    for (const ev of earlier) {
      const id = ev.context.game_id;
      if (!games.length || games[games.length - 1].id !== id) games.push({ id, ctx: ev.context, events: [] });
      games[games.length - 1].events.push(ev);
    }
    for (const g of games.reverse()) {
      const h = document.createElement("h3");
      h.textContent = (g.ctx.title || W.humanize(g.ctx.game || "a game")) +
        ((g.ctx.players || []).length ? ": " + g.ctx.players.join(", ") : "");
      holder.appendChild(h);
      const ol = document.createElement("ol");
      ol.className = "log";
      holder.appendChild(ol);
      const past = { game: g.ctx.game, game_id: g.ctx.game_id, players: g.ctx.players || [], view: {} };
      fillLog(ol, g.events.slice(-120), () => past);
    }
  }

  // Each list's line of each event, kept: a change adds the lines of its new events and leaves the others
  // in place (their words are only checked against the state), so a move redraws one line of the log, not
  // its last 120. Nine pages on one machine, or a slow phone, each lay out one line instead of the list.
  const linesOf = new WeakMap();  // <ol> -> Map(event -> <li>)
  function lineFor(ol, ev, st) {
    let lines = linesOf.get(ol);
    if (!lines) { lines = new Map(); linesOf.set(ol, lines); }
    let li = lines.get(ev);
    if (!li) { li = logLine(ev, st); lines.set(ev, li); return li; }
    const words = W.event(ev, st);
    if (li.lastChild.data !== words) li.lastChild.data = words;
    return li;
  }

  function fillLog(ol, events, stateOf) {
    const want = events.slice().reverse().map(ev => lineFor(ol, ev, stateOf(ev)));
    place(ol, want);
    const kept = new Set(want), lines = linesOf.get(ol);
    if (lines) for (const [ev, li] of lines) if (!kept.has(li)) lines.delete(ev);
  }

  /** ``nodes`` as ``parent``'s children, in order: those already in place are not touched, the others go. */
  function place(parent, nodes) {
    let at = parent.firstChild;
    for (const node of nodes) {
      if (node === at) at = at.nextSibling; else parent.insertBefore(node, at);
    }
    while (at) { const next = at.nextSibling; parent.removeChild(at); at = next; }
  }

  function logLine(ev, st) {
    const li = document.createElement("li");
    // The event's number as text, not a list marker: markers are cut off from 1,000 on.
    const n = document.createElement("span");
    n.className = "n";
    n.textContent = typeof ev.seq === "number" ? String(ev.seq) : "";
    li.appendChild(n);
    const t = document.createElement("span");
    t.className = "t";
    t.textContent = typeof ev.time === "number" ? new Date(ev.time * 1000).toLocaleTimeString() : "";
    li.appendChild(t);
    li.appendChild(document.createTextNode(W.event(ev, st)));
    return li;
  }

  function diceText(view) {
    const d = view.dice !== undefined ? view.dice : (view.roll !== undefined ? view.roll : view.last_roll);
    if (d === undefined || d === null || (Array.isArray(d) && !d.length)) return "—";
    if (Array.isArray(d)) return d.map(x => W.value(x)).join(" and ");
    if (typeof d === "object" && !Array.isArray(d)) {
      const parts = [];
      for (const k of Object.keys(d)) if (d[k] !== null && d[k] !== undefined) parts.push(W.humanize(k).toLowerCase() + " " + W.value(d[k]));
      return parts.length ? parts.join(", ") : "—";
    }
    return W.value(d);
  }

  // Sensor times are the controller's monotonic clock. With the payload's "monotonic" (the controller's
  // clock when it published) they convert exactly; without it, the newest reading is taken as "at publish".
  function wallClock(payload) {
    const sensors = Object.values(payload.sensors || {});
    const stamps = sensors.flatMap(s => [s.seen, s.changed]).filter(t => typeof t === "number");
    if (!stamps.length || typeof payload.time !== "number") return t => t;
    if (Math.min(...stamps) > 1e9) return t => t;  // already wall-clock seconds
    const mono = typeof payload.monotonic === "number" ? payload.monotonic : Math.max(...stamps);
    return t => typeof t === "number" ? payload.time - (mono - t) : t;
  }

  /** Every sensor as each page shows it, from the one retained sensors topic: the table page and the
   *  self-test page read it the same way, so they agree at every moment. A sensor is out of touch only
   *  when its source says so (online false, e.g. the MCU is unreachable): a sensor at rest sends nothing
   *  new, and that is not staleness. */
  function sensorFacts(payload) {
    const sensors = (payload && payload.sensors) || {};
    const toWall = wallClock(payload || {});
    const out = {};
    for (const id of Object.keys(sensors).sort()) {
      const s = sensors[id] || {};
      const offline = s.online === false;
      out[id] = {
        value: (W.sensorValue ? W.sensorValue(s.value) : W.value(s.value)) + (offline ? " (offline)" : ""),
        changed: "changed " + W.ago(toWall(s.changed)),
        source: s.source || "", offline,
      };
    }
    return out;
  }

  /** Whether ``game`` reads sensor ``id`` (a board carries every game's sensors): the table's sensor strip
   *  puts the others under a fold, and the game master is offered only these to mark broken. An unknown
   *  game reads them all, so nothing is hidden from the referee. */
  const READS = { terror: ["tomb", "launcher", "chute"], superstition: ["trap"], dogs: [] };
  /** The kinds of hardware ``game`` reads (all the virtual board knows for a game not known here). */
  function sensorKinds(game) {
    return READS[game] || ["tomb", "launcher", "chute", "trap"];
  }
  /** Whether ``game`` reads sensor ``id`` (every sensor, with no game or one not known here). */
  function gameReads(game, id) {
    const kinds = READS[game];
    return !kinds || kinds.includes(String(id).split(".")[0]);
  }

  window.GKLive = GKLive;
  window.GKLive.sensorFacts = sensorFacts;
  window.GKLive.gameReads = gameReads;
  window.GKLive.sensorKinds = sensorKinds;
  /** performance.now() when the table made this state (undefined for a state this page did not receive). */
  window.GKLive.stateMadeAt = st => (st && typeof st === "object" ? madeAt.get(st) : undefined);
  window.GKLive.sendCommand = sendCommand;
  window.GKLive.onWake = onWake;
  window.GKLive.renderCommon = renderCommon;
  window.GKLive.changed = changed;
  window.GKLive.setText = setText;
  window.GKLive.setHidden = setHidden;
  window.GKLive.place = place;
})();
