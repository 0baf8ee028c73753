/* The history pages: the games of a table, and one game replayed step by step with its board. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  const d = document.body.dataset;
  function $(id) { return document.getElementById(id); }

  async function get(url) {
    const got = await window.GKApi.request(url);
    if (!got.ok) throw new Error(got.error);
    return got.data;
  }

  function fail(e) {
    const el = $("history-error");
    el.hidden = false;
    el.textContent = "The history could not be read: " + e.message;
  }

  function when(t) { return typeof t === "number" ? new Date(t * 1000).toLocaleString() : "—"; }
  function length(s) {
    if (typeof s !== "number") return "—";
    if (s < 90) return Math.round(s) + " s";
    if (s < 5400) return Math.round(s / 60) + " min";
    return (s / 3600).toFixed(1) + " h";
  }
  function cell(tr, text) { const td = document.createElement("td"); td.textContent = text; tr.appendChild(td); return td; }

  async function listGames() {
    const tbody = document.querySelector("#games tbody");
    try {
      const data = await get(d.games);
      tbody.innerHTML = "";
      const games = data.games || [];
      $("games-note").textContent = games.length ? games.length + (games.length === 1 ? " game" : " games") + ", newest first." : "No game has been played at this table yet.";
      for (const g of games) {
        const tr = document.createElement("tr");
        tr.dataset.gameId = g.game_id;
        cell(tr, when(g.started));
        cell(tr, g.title || g.game);
        cell(tr, (g.players || []).join(", "));
        cell(tr, g.in_progress ? "in progress" : (g.winners || []).length ? g.winners.join(" and ") : (g.over ? "nobody" : "unfinished"));
        cell(tr, length(g.length_s));
        cell(tr, String(g.mismatches));
        cell(tr, String(g.corrections));
        cell(tr, String(g.undos));
        const a = document.createElement("a");
        a.href = d.gameUrl.replace("GAME", encodeURIComponent(g.game_id));
        a.className = "replay";
        a.textContent = "Replay";
        cell(tr, "").appendChild(a);
        tbody.appendChild(tr);
      }
    } catch (e) { fail(e); }
    try {
      const stats = await get(d.sensors);
      const body = document.querySelector("#sensor-stats tbody");
      body.innerHTML = "";
      for (const s of stats.sensors || []) {
        const tr = document.createElement("tr");
        tr.dataset.sensor = s.sensor;
        cell(tr, s.label || s.sensor);
        for (const k of ["readings", "mismatches", "corrections", "broken"]) cell(tr, String(s[k]));
        // Bounces are journalled per game by the controller: every game, across restarts.
        const games = s.bounce_games || 0;
        cell(tr, typeof s.bounces === "number"
          ? String(s.bounces) + (s.bounces ? " in " + games + (games === 1 ? " game" : " games") : "") : "—");
        body.appendChild(tr);
      }
      if (!(stats.sensors || []).length) {
        const tr = document.createElement("tr");
        cell(tr, "No sensor has reported at this table.").colSpan = 6;
        body.appendChild(tr);
      }
    } catch (e) { fail(e); }
  }

  // ----- one game, step by step ---------------------------------------------------------------
  let steps = [], current = 0, info = null, loading = 0, shown = null;
  const replayCtx = () => ({ canControl: false, simulate: false, sensors: {}, legal: [], act: () => {} });
  // A phone turned sideways (or a resized window): the step on show is drawn again for the new width.
  B.redraw = () => { if (shown) B.draw($("board"), shown, replayCtx()); };

  async function loadGame(at) {
    try {
      info = await get(d.steps);
      steps = info.steps || [];
      $("game-title").textContent = (info.title || info.game) + ": " + (info.players || []).join(", ") + (info.over ? "" : " (in progress)");
      const ol = $("steps");
      ol.innerHTML = "";
      steps.forEach((s, i) => {
        const li = document.createElement("li");
        li.value = i;
        li.dataset.step = i;
        li.tabIndex = 0;
        li.textContent = s.text;
        li.addEventListener("click", () => show(i));
        li.addEventListener("keydown", e => { if (e.key === "Enter") show(i); });
        ol.appendChild(li);
      });
      $("refresh").hidden = !!info.over;  // a game in progress: fetch the steps played since
      await show(at === undefined ? 0 : at === "last" ? steps.length - 1 : at);
    } catch (e) { fail(e); }
  }

  async function show(n) {
    if (!steps.length) return;
    n = Math.max(0, Math.min(steps.length - 1, n));
    current = n;
    const ticket = ++loading;
    $("step-label").textContent = "Step " + n + " of " + (steps.length - 1);
    for (const li of document.querySelectorAll("#steps li")) li.classList.toggle("current", Number(li.dataset.step) === n);
    $("first").disabled = $("prev").disabled = n === 0;
    $("next").disabled = $("last").disabled = n === steps.length - 1;
    try {
      const url = d.board.replace(/\/board\/0$/, "/board/" + n);
      const st = await get(url);
      if (ticket !== loading) return;  // a later click won
      document.body.dataset.shownStep = String(n);
      shown = st;
      B.draw($("board"), st, replayCtx());
      $("step-text").textContent = steps[n].text;
      const ul = $("step-events");
      ul.innerHTML = "";
      for (const ev of steps[n].events || []) {
        const li = document.createElement("li");
        li.textContent = W.event(ev, st);
        ul.appendChild(li);
      }
      const mm = $("step-mismatch");
      mm.hidden = !st.mismatch;
      if (st.mismatch) mm.textContent = (st.mismatch.message || "") + " " + (st.mismatch.guidance || "");
      renderHands(st);
    } catch (e) { fail(e); }
  }

  function renderHands(st) {
    const box = $("hands");
    box.hidden = !st.hands;
    if (!st.hands) return;
    const list = $("hands-list");
    list.innerHTML = "";
    for (const h of st.hands) {
      const el = document.createElement("div");
      el.className = "item";
      el.textContent = h.player + ": " + handWords(h.hand || {});
      list.appendChild(el);
    }
  }

  // A hand in words: Terror's cards under each pawn, Superstition's Whammy and Charm, else every field.
  function handWords(hand) {
    const you = hand.you || hand.private || {};
    if (Array.isArray(you.pawns)) {
      return you.pawns.map(p => (p.label || "pawn") + " pawn: " +
        ((p.cards || []).map(c => c.title || c.id).join(", ") || "no cards")).join("; ");
    }
    if ("whammy" in you || "charm" in you) {
      return "Whammy: " + (you.whammy_name || you.whammy || "none") + "; Charm: " + (you.charm_name || you.charm || "none");
    }
    return W.value(you) || "nothing hidden";
  }

  if (d.gameId) {
    $("first").addEventListener("click", () => show(0));
    $("prev").addEventListener("click", () => show(current - 1));
    $("next").addEventListener("click", () => show(current + 1));
    $("last").addEventListener("click", () => show(steps.length - 1));
    $("refresh").addEventListener("click", () => loadGame("last"));
    loadGame();
  } else {
    listGames();
  }
})();
