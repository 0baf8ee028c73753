/* A player's own page: the board, their hand, their moves. Only their own private view reaches it. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  const d = document.body.dataset;
  const seat = Number(d.seat);
  function $(id) { return document.getElementById(id); }
  let mine = null, seated = true;

  // The seat is gone (a new game, leaving, or a panel that forgot the session): say so, with the way in,
  // and clear everything that was this player's: the hand, the moves, the "playing as" header, the last note.
  function seatGone(reason) {
    const el = $("left");
    el.hidden = false;
    el.textContent = reason.charAt(0).toUpperCase() + reason.slice(1) + " ";
    const a = document.createElement("a");
    // This phone joined another seat on another page: this page, opened again, is that seat's.
    const moved = /now plays as/i.test(reason);
    a.href = moved ? location.pathname : d.join; a.id = "join-new";
    a.textContent = /new game|game changed/i.test(reason) ? "Join the new game" : moved ? "Show my new seat" : "Join again";
    el.appendChild(a);
    if (/not playing this game/i.test(reason)) {
      // The referee left this player out of the next game: one tap to watch it, or to join with a code.
      a.textContent = "Join with a new code";
      const watch = document.createElement("a");
      watch.href = d.watch; watch.id = "watch-game"; watch.textContent = "Watch the table";
      el.insertBefore(watch, a);
      el.insertBefore(document.createTextNode(" "), a);
    }
    mine = null; seated = false;
    // Every control of the seat goes with it (panel.css): its moves, asking to take back "my" move (gm.js),
    // buzzing on "my" turn (effects.js), whichever script draws them and whenever it does.
    document.body.dataset.seated = "no";
    const who = $("me-name");
    if (who && who.parentElement) who.parentElement.textContent = "not seated";
    // Nothing to leave: the whole "Leave" fold goes (its summary too, not only the form folded inside it),
    // and closes, so a fold left open cannot come back with the seat.
    const leave = $("leave");
    if (leave) { leave.open = false; leave.hidden = true; }
    const reply = $("reply");
    if (reply) { reply.className = "reply"; reply.textContent = ""; }
    live.onchange("left");
  }

  // The stream was refused: a 403 means this session holds no seat now, so retrying cannot help.
  async function stillSeated() {
    const got = await window.GKApi.request(d.me);
    if (got.status !== 403) return true;
    const reason = (got.data && got.data.error) || "you are no longer seated at this table";
    seatGone(reason.charAt(0).toUpperCase() + reason.slice(1) + ".");
    return false;
  }

  const live = window.GKLive({
    streamUrl: d.stream, snapshotUrl: null, onchange: render, onclosed: stillSeated,
    onextra: {
      private: p => {
        // A phone asleep while the referee started the next game, keeping its player on it (docs/panel.md):
        // its stream, opened again, is that player's new seat's; the page opens again for that seat.
        if (p && typeof p.seat === "number" && p.seat !== seat) { location.reload(); return; }
        if (seated) mine = p;
        live.onchange("private");
      },
      left: info => seatGone(info.reason),
      // The referee kept the players on their phones: this page opens again for the new game's seat.
      moved: () => location.reload(),
    },
  });
  window.gkLive = live;
  B.redraw = render;

  function act(a, button) {
    return window.GKLive.sendCommand(d.cmd, d.csrf, "act", { action: a }, W.action(a, live.state || {}), { button })
      .then(reply => {
        // Refused because the seat is gone (left on another page, a new game): say so, as the stream would.
        if (!reply.ok && seated) stillSeated();
        return reply;
      });
  }

  function myLegal() {
    if (!seated) return [];
    const pv = (mine && mine.available && mine.view) || {};
    return (pv.legal || []).filter(a => a.player === seat);
  }
  // What this page offers now: the moves of its private view (which comes apart from the table's state)
  // as last drawn. The tests wait on it before they tap, as a person waits for the move to show: a view
  // that came but is not drawn yet would have them tap the board as it was (a pawn that was the only
  // one to move then, so not one to choose).
  let offered = [];
  live.myLegal = () => offered;

  // The referee took a move back: a "...: done" under the moves would report a move that no longer
  // stands, so it goes (a refusal, or a reply still on its way, stays).
  let undoneSeq = null;
  function forgetUndoneReply() {
    const undone = live.events.filter(ev => ev.type === "undone").pop();
    const seq = undone ? undone.seq : -1;
    if (undoneSeq !== null && seq > undoneSeq) {
      const reply = $("reply");
      if (reply && reply.classList.contains("ok")) { reply.className = "reply"; reply.textContent = ""; }
    }
    undoneSeq = seq;
  }

  // Nothing on a player's page reads the table's sensors or health (the board is drawn without them): a
  // frame that brought only those draws nothing, and leaves the CPU to the phone's other pages and frames.
  const UNSEEN = new Set(["sensors", "health"]);
  function render(whys) {
    if (whys instanceof Set && whys.size && [...whys].every(w => UNSEEN.has(w))) return;
    window.GKLive.renderCommon(live);
    forgetUndoneReply();
    const st = live.state || {};
    const legal = myLegal();
    learnCardTitles();
    // A move that needs this player's Charm shows where it goes only in their own view.
    const own = (mine && mine.available && mine.view && mine.view.view) || {};
    const drawState = own.walks && st.view
      ? Object.assign({}, st, { view: Object.assign({}, st.view, { walks: own.walks, charm_walks: own.charm_walks || {} }) }) : st;
    // From the stream, a board drawn from the same inputs is kept (B.draw); B.redraw (a tap's own choice,
    // a turned phone) draws it again.
    const keep = whys instanceof Set;
    const drawn = B.draw($("board"), drawState, { canControl: false, simulate: false, sensors: {}, legal, act, seat, keep });
    offered = legal;
    window.GKLive.setText($("board-hint"), drawn.hint || "");
    // The moves come from the private view and the state's words; the board's own choices (Superstition's
    // "Place your Whammy…") are the drawing's, so a board drawn again draws them again too.
    const movesKey = JSON.stringify([seated, legal, [...(drawn.handled || [])], st.game, st.players, st.current_player,
                                     st.over, st.waiting_for, !!(st.gm && st.gm.paused), onVirtualBoard(st),
                                     W.cardTitles]) + heldKey() + B.json(st.view);
    const fresh = drawn !== lastDrawn || !keep;
    if (window.GKLive.changed($("actions"), movesKey) || fresh) {
      renderMoves(st, legal, drawn.handled || new Set(), drawn.buttons || []);
    }
    // The hand shows the sealed view alone: the table's words, which change with nearly every state, leave it.
    const sealed = mine && mine.available ? B.json((mine.view || {}).view) : "";
    if (window.GKLive.changed($("hand"), JSON.stringify([seated, mine && [mine.available, mine.reason]]) + sealed)) {
      renderHand();
    }
    lastDrawn = drawn;
    renderYourTurn(st, legal);
  }
  let lastDrawn = null;

  // "Your turn" stands at the top of the page, where the player looks; the phone buzzes once when it
  // becomes their turn (where the browser allows it: not iOS Safari, and only after a first tap).
  // Not when the page opens on their turn: they are looking at it. (null: not known yet, until the
  // player's own view, with their moves, has come as well as the table's state.)
  let wasMine = null;
  // effects.js loads after this script: a turn that comes while the page's scripts are still loading cannot
  // yet tell whether the cues will buzz, so it waits until they have all run (DOMContentLoaded) to decide.
  let buzzWaits = false;
  function buzzUnlessTheCuesDo() {
    if (document.readyState === "loading") { buzzWaits = true; return; }
    if (!window.GKEffects && navigator.vibrate) {
      try { navigator.vibrate(200); } catch (e) { /* a browser may refuse before the first tap */ }
    }
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (buzzWaits) { buzzWaits = false; buzzUnlessTheCuesDo(); }
  });
  function renderYourTurn(st, legal) {
    const box = $("your-turn");
    // A card a Terror player may play on someone else's turn is not a call to act: no banner, no buzz.
    const myTurn = !!st.game && !st.over && legal.some(a => st.current_player === seat || a.kind !== "play_card");
    const big = myTurn ? (st.current_player === seat ? "Your turn" : "Your move") : "";
    // What the table waits for, unless it only says whose turn it is.
    const name = W.playerName(st, seat);
    const small = myTurn && st.waiting_for && st.waiting_for !== name + " to play." ? st.waiting_for + onVirtualBoard(st) : "";
    if (window.GKLive.changed(box, JSON.stringify([big, small]))) {
      box.hidden = !myTurn;
      box.innerHTML = "";
      if (myTurn) {
        const div = document.createElement("div");
        div.textContent = big;
        box.appendChild(div);
        if (small) {
          const what = document.createElement("div");
          what.className = "your-turn-what"; what.textContent = small;
          box.appendChild(what);
        }
      }
    }
    // The table's cues (effects.js) buzz a player's phone on their turn, with the player's own on/off switch;
    // only a page without them buzzes here, so a turn never buzzes twice.
    if (myTurn && wasMine === false) buzzUnlessTheCuesDo();
    if (st.game && mine && mine.available) wasMine = myTurn;
    const turn = myTurn ? "yes" : "no";
    if (document.body.dataset.yourTurn !== turn) document.body.dataset.yourTurn = turn;
  }

  // Under --simulate there is no real board: what the table waits for from it, the referee does on the
  // virtual board of their page. A phone that only said "Slide the Wolf tomb" left the player looking for one.
  function onVirtualBoard(st) {
    const simulate = !!(live.status && live.status.simulate);
    return simulate && (st.expects || []).length && !(st.gm && st.gm.paused)
      ? " The referee does it on the virtual board." : "";
  }

  // What the moves show of the sealed view: not its seq, which every state changes, so that a view that
  // holds the same cards and moves as before leaves them as they are.
  function heldKey() {
    if (!mine || !mine.available) return JSON.stringify(mine ? [false, mine.reason] : null);
    const pv = mine.view || {};
    return JSON.stringify([true, pv.seat, pv.game_id]) + B.json(pv.view) + B.json(pv.legal);
  }

  // Card ids in the moves (and on the board) read better as the titles this player can see.
  function learnCardTitles() {
    const pv = (mine && mine.available && mine.view) || {};
    for (const p of ((pv.view || {}).you || {}).pawns || []) for (const c of p.cards || []) W.cardTitles[c.id] = c.title;
  }

  function renderHand() {
    const hand = $("hand");
    hand.innerHTML = "";
    if (!seated) { hand.textContent = "You have no seat in this game."; return; }
    if (!mine) { hand.textContent = "Waiting for your private view…"; return; }
    if (!mine.available) { hand.textContent = mine.reason; return; }
    const groups = secrets((mine.view || {}).view || {});
    if (!groups.length) hand.textContent = "Nothing secret in your hand right now.";
    for (const [group, items] of groups) {
      const g = document.createElement("div");
      g.className = "group"; g.textContent = group;
      hand.appendChild(g);
      for (const it of items) {
        const el = document.createElement("span");
        // "none" and "no cards" are not cards: plain words, not a card-shaped box a finger might try.
        el.className = it === "none" || it === "no cards" ? "item-empty" : "item secret"; el.textContent = it;
        hand.appendChild(el);
      }
    }
  }

  function renderMoves(st, legal, handled, choices) {
    const box = $("actions");
    box.innerHTML = "";
    if (!seated || !mine || !mine.available) return;  // the hand says why
    const pv = mine.view || {};
    // A board's own choices first (Superstition's "Place your Whammy…"): they change what a tap on it does.
    for (const [id, label, onClick] of choices) box.appendChild(B.choiceButton(id, label, onClick));
    legal.forEach((a, i) => {
      if (handled.has(i)) return;
      const b = document.createElement("button");
      b.type = "button"; b.className = "act"; b.dataset.kind = a.kind;
      b.dataset.action = JSON.stringify(a);
      b.textContent = W.action(a, st);
      b.addEventListener("click", () => act(a, b));
      box.appendChild(b);
    });
    if (!box.childNodes.length) {
      // Paused, or the player's own turn waiting on the board (a tomb to slide, a piece to put back after
      // an undo): "until it is your turn" would be wrong, so the page says what the table waits for.
      const held = !!(st.gm && st.gm.paused) || st.current_player === seat;
      box.textContent = handled.size ? "Tap a green place on the board." : st.over ? "The game is over."
        : held && st.waiting_for ? "Nothing to press on your phone now. " + st.waiting_for + onVirtualBoard(st)
        : "Nothing to do until it is your turn.";
    }
    // What this seat cannot do, and why (Terror: a pawn on the Crypt platform with no Magic Ring).
    for (const note of ((pv.view || {}).you || {}).notes || []) {
      const p = document.createElement("p");
      p.className = "why-not"; p.textContent = note;
      box.appendChild(p);
    }
  }

  function card(c) {
    if (!c || typeof c !== "object") return W.value(c);
    return (c.title || c.name || c.id || "card") + (c.text ? ": " + c.text : "");
  }

  // What this seat alone sees, per game: Terror's saved cards (per pawn), Superstition's Whammy and Charm,
  // and anything else the private view holds that the public one does not.
  function secrets(view) {
    const you = view.you || view.private || {};
    const out = [];
    if (Array.isArray(you.pawns)) {
      for (const p of you.pawns) out.push(["Under your " + p.label, (p.cards || []).length ? p.cards.map(card) : ["no cards"]]);
      return out;
    }
    if ("whammy" in you || "charm" in you) {
      out.push(["Your Whammy", [you.whammy_name || you.whammy || "none"]]);
      out.push(["Your Charm", [you.charm_name || you.charm || "none"]]);
      return out;
    }
    for (const k of Object.keys(you)) {
      if (k === "seat" || k === "colour") continue;
      const v = you[k];
      out.push([W.humanize(k), Array.isArray(v) ? v.map(card) : [W.value(v)]]);
    }
    return out;
  }

  live.start();
})();
