/* The club list: every table on the broker, kept current over one stream of one-line summaries.
   Search and filters run here, on what the page already has: they cost the panel nothing. */
(function () {
  "use strict";
  const TITLES = { terror: "Terror in the Graveyard", superstition: "Superstition", dogs: "Graveyard Dogs" };
  const tables = new Map();
  const list = document.getElementById("tables");
  const search = document.getElementById("club-search");
  const gameSel = document.getElementById("club-game");
  const roomSel = document.getElementById("club-room");
  const mismatchFirst = document.getElementById("club-mismatch-first");
  const mismatchOnly = document.getElementById("club-mismatch-only");
  const none = document.getElementById("club-none");
  const count = document.getElementById("club-count");
  const state = document.getElementById("broker-state");
  let queued = false;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  // Natural order: table 2 before table 10.
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  function title(t) { return t.title || TITLES[t.game] || (t.game ? String(t.game) : "No game yet"); }

  // Whether the panel's own link to the broker is up: down, every table's line is as it last was, and none
  // can be reached; each says so rather than the "online" it last had.
  let brokerUp = true;
  const LINK_UP = "in touch with the tables", LINK_DOWN = "lost touch with the tables";
  // Online by its status, yet not answering the panel's commands (a hung controller keeps its "online"
  // until its keepalive lapses): the referee looks at that table before sending it more.
  function badge(t) {
    const stuck = t.online && t.answering === false;
    const cut = t.online && !brokerUp;
    return el("span", "badge " + (t.online && !stuck && !cut ? "online" : "offline"),
      cut ? "out of reach" : stuck ? "not answering" : t.online ? "online" : "offline");
  }
  function linkIs(broker) {
    const up = broker !== "disconnected";
    state.textContent = up ? LINK_UP : LINK_DOWN;  // the organiser's words; "broker" stays in the JSON
    if (up !== brokerUp) { brokerUp = up; later(); }
  }

  function line(t) {
    const li = el("li");
    li.dataset.table = t.table;
    li.dataset.mismatch = t.mismatch ? "yes" : "no";
    if (t.mismatch) li.classList.add("has-mismatch");
    if (!t.online) li.classList.add("is-offline");
    const a = el("a");
    a.href = "/t/" + encodeURIComponent(t.table);
    const head = el("span", "club-head");
    head.append(el("span", "club-name", t.name || "Table"), " ", badge(t));  // the id stays in the link and data-table
    if (t.mismatch) head.append(" ", el("span", "badge mismatch", "board mismatch"));
    if (t.over) head.append(" ", el("span", "badge", "game over"));
    if (t.paused) head.append(" ", el("span", "badge paused", "paused"));  // the game master paused it
    a.append(head, el("span", "club-game", title(t) + (t.room ? " · room " + t.room : "")));
    if (t.turn && t.turn !== "nobody") a.append(el("span", "club-turn", t.turn + " to play"));
    if (t.mismatch && t.mismatch_text) a.append(el("span", "club-problem", t.mismatch_text));
    else if (t.waiting_for) a.append(el("span", "club-wait", t.waiting_for));
    if (t.players && t.players.length) a.append(el("span", "club-players", t.players.join(", ")));
    li.append(a);
    if (!t.online) {
      // An offline table can be taken off the list; it comes back if its controller does.
      const f = el("form", "inline forget");
      f.method = "post"; f.action = "/t/" + encodeURIComponent(t.table) + "/forget";
      const csrf = el("input"); csrf.type = "hidden"; csrf.name = "csrf"; csrf.value = document.body.dataset.csrf || "";
      const b = el("button", "", "Forget"); b.type = "submit";
      f.append(csrf, b);
      li.append(f);
    }
    return li;
  }

  function matches(t, words) {
    if (gameSel.value && t.game !== gameSel.value) return false;
    if (roomSel.value && t.room !== roomSel.value) return false;
    if (mismatchOnly.checked && !t.mismatch) return false;
    const hay = [t.name || "", t.table, title(t), t.room || "", (t.players || []).join(" "), t.turn || ""].join(" ").toLowerCase();
    return words.every(w => hay.includes(w));
  }

  function rooms() {
    const have = new Set([...tables.values()].map(t => t.room).filter(Boolean));
    const shown = new Set([...roomSel.options].map(o => o.value).filter(Boolean));
    for (const r of [...have].sort(collator.compare)) {
      if (!shown.has(r)) roomSel.append(new Option(r, r));
    }
  }

  function render() {
    queued = false;
    rooms();
    const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
    const all = [...tables.values()];
    const shown = all.filter(t => matches(t, words)).sort((x, y) =>
      (mismatchFirst.checked ? Number(y.mismatch) - Number(x.mismatch) : 0) ||
      Number(y.online) - Number(x.online) ||
      collator.compare(x.room || "", y.room || "") || collator.compare(x.name || "", y.name || "") ||
      collator.compare(x.table, y.table));
    if (!all.length) {
      list.replaceChildren(el("li", "empty", "No table has reported to the broker yet."));
    } else {
      list.replaceChildren(...shown.map(line));
    }
    none.hidden = !all.length || shown.length > 0;
    list.dataset.drawn = String(Number(list.dataset.drawn || 0) + 1);  // drawn from the stream, not the HTML
    const problems = all.filter(t => t.mismatch).length;
    count.textContent = all.length + " at the club" + (problems ? ", " + problems + " with a mismatch" : "") +
      (shown.length !== all.length ? " · " + shown.length + " shown" : "");
  }
  // Many tables change at once on a busy night: draw once a frame, not once a message.
  function later() { if (!queued) { queued = true; requestAnimationFrame(render); } }

  for (const input of [search, gameSel, roomSel, mismatchFirst, mismatchOnly]) {
    input.addEventListener("input", later);
    input.addEventListener("change", later);
  }
  document.getElementById("club-filters").addEventListener("submit", e => e.preventDefault());

  function listen() {
    const es = new EventSource(document.body.dataset.stream);
    es.addEventListener("open", () => window.GKApi.hideWhyRefused());
    es.addEventListener("tables", e => {
      const j = JSON.parse(e.data);
      tables.clear();
      for (const t of j.tables) tables.set(t.table, t);
      linkIs(j.broker);
      later();
    });
    es.addEventListener("table", e => {
      const t = JSON.parse(e.data);
      const was = tables.get(t.table);
      // A line as the table changed says nothing of its answering: that comes in "answering" messages.
      if (was && !("answering" in t)) t.answering = was.answering;
      if (t.gone) tables.delete(t.table); else tables.set(t.table, t);
      later();
    });
    es.addEventListener("answering", e => {
      const a = JSON.parse(e.data);
      const t = tables.get(a.table);
      if (t) { t.answering = a.answering; later(); }
    });
    es.addEventListener("link", e => linkIs(JSON.parse(e.data).broker));
    // A reconnect starts with a "tables" event, which also says how the broker is.
    es.onerror = () => {
      state.textContent = "panel unreachable: reconnecting";
      if (es.readyState !== EventSource.CLOSED) return;  // the browser retries by itself
      // The panel refused the stream (an HTTP error ends an EventSource for good): say why, and try again.
      window.GKApi.showWhyRefused().then(why => { if (why.shown) state.textContent = "live updates paused"; });
      setTimeout(listen, 2000);
    };
  }
  listen();
})();
