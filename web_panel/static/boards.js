/* Boards drawn as SVG, one renderer a game. Each returns {hint, handled, notes, legend, buttons}: the indexes
 * of state.legal it made tappable on the board (the rest become buttons), lines of text shown under the board,
 * the legend of what the drawing means, and choices of the board's own ([id, label, onClick]) that change what
 * a tap on it does (Superstition's "Place your Whammy…"), shown before the action buttons.
 *
 * Phones: everything a person taps is at least 44x44 CSS px. A target whose drawing is smaller gets a larger,
 * invisible hit area; where hit areas of neighbours overlap, a tap goes to the target whose centre is
 * nearest. A move is not sent on the first tap: it is proposed, drawn where it goes, and sent from the
 * confirm bar under the board ("Move here" / "Cancel"). */
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const W = window.GKWords;
  const MIN_PX = 44;

  function el(parent, tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  const renderers = {};
  let targets = [];      // [{cx, cy, box: [x, y, w, h], tap}] of the drawing on screen
  let minUnits = 80;     // 44 CSS px in the board's own units, measured at each drawing
  let svgNow = null;

  // The drawing's size on screen as last laid out, kept by a ResizeObserver. Asking the browser for it
  // while drawing (getBoundingClientRect) makes it lay the whole page out there and then, in the middle of
  // a redraw: that was most of a board's redraw on a phone. It is asked only when the drawing's proportions
  // change (another game's board) or before the first layout; a size that changes later (a turned phone, a
  // fold opened) redraws the board at its new size.
  const onScreen = new WeakMap();  // svg -> {width, height, viewBox}
  const watching = new WeakSet();
  let fitted = 0;  // the width the last drawing's hit areas were sized for
  function watch(svg) {
    if (watching.has(svg) || !window.ResizeObserver) return;
    watching.add(svg);
    new ResizeObserver(entries => {
      const entry = entries[entries.length - 1];
      const box = (entry.borderBoxSize && entry.borderBoxSize[0]) || null;
      const width = box ? box.inlineSize : entry.contentRect.width, height = box ? box.blockSize : entry.contentRect.height;
      const known = onScreen.get(svg);
      onScreen.set(svg, { width, height, viewBox: svg.getAttribute("viewBox") });
      if (known && Math.round(known.width) !== Math.round(width)) redrawSoon();
    }).observe(svg);
  }

  /** Set the drawing's size; from then on ``hit`` knows how many units 44 CSS px are. */
  function size(svg, w, h) {
    const viewBox = "0 0 " + w + " " + h;
    if (svg.getAttribute("viewBox") !== viewBox) svg.setAttribute("viewBox", viewBox);
    watch(svg);
    let r = onScreen.get(svg);
    // Without a ResizeObserver nothing would tell a kept size is out of date: every drawing asks.
    if (!r || r.viewBox !== viewBox || !(r.width > 0) || !window.ResizeObserver) {
      const rect = svg.getBoundingClientRect();
      r = { width: rect.width, height: rect.height, viewBox };
      onScreen.set(svg, r);
    }
    fitted = r.width;
    const scale = r.width > 0 && r.height > 0 ? Math.min(r.width / w, r.height / h) : 0;
    // 4% to spare, for rounding and borders; a hidden board (no size yet) assumes a 340 px wide phone.
    minUnits = (MIN_PX * 1.04) / (scale || 340 / w);
  }

  /** A tappable target drawn in ``g``: its hit area covers the drawing [x, y, w, h] and is at least 44 px. */
  function hit(g, box, tap, label) {
    const [x, y, w, h] = box;
    const hw = Math.max(w, minUnits), hh = Math.max(h, minUnits);
    const cx = x + w / 2, cy = y + h / 2;
    const area = el(g, "rect", { class: "hit", x: cx - hw / 2, y: cy - hh / 2, width: hw, height: hh,
                                 fill: "#000", "fill-opacity": 0 });
    const t = { cx, cy, box, tap };
    targets.push(t);
    g.setAttribute("role", "button");
    g.setAttribute("tabindex", "0");
    if (label) g.setAttribute("aria-label", label);
    g.addEventListener("click", e => (e.isTrusted && e.clientX ? nearest(e) || t : t).tap());
    g.addEventListener("keydown", e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); tap(); } });
    return area;
  }

  // A tap where hit areas overlap goes to the target drawn under the finger, else to the nearest centre.
  function nearest(e) {
    if (!svgNow || !svgNow.getScreenCTM()) return null;
    const p = svgNow.createSVGPoint();
    p.x = e.clientX; p.y = e.clientY;
    const q = p.matrixTransform(svgNow.getScreenCTM().inverse());
    const inside = ([x, y, w, h]) => q.x >= x && q.x <= x + w && q.y >= y && q.y <= y + h;
    const under = targets.filter(t => inside(t.box));
    const pool = under.length ? under : targets.filter(t => Math.abs(q.x - t.cx) <= minUnits / 2 + t.box[2] / 2 &&
                                                            Math.abs(q.y - t.cy) <= minUnits / 2 + t.box[3] / 2);
    let best = null, dist = Infinity;
    for (const t of pool) {
      const d = (t.cx - q.x) ** 2 + (t.cy - q.y) ** 2;
      if (d < dist) { dist = d; best = t; }
    }
    return best;
  }

  // ----- a proposed move: drawn where it goes, sent only from the confirm bar -------------------------
  const same = (a, b) => canon(a) === canon(b);
  function canon(v) {
    if (Array.isArray(v)) return "[" + v.map(canon).join(",") + "]";
    if (v && typeof v === "object") return "{" + Object.keys(v).sort().map(k => JSON.stringify(k) + ":" + canon(v[k])).join(",") + "}";
    return JSON.stringify(v);
  }
  function propose(action, extra) {
    B.proposal = Object.assign({ action }, extra || {});
    B.redraw();
  }
  function cancel() { B.proposal = null; B.redraw(); }

  function renderConfirm(state, ctx, drawn) {
    const bar = document.getElementById("confirm");
    if (!bar) return;
    const p = B.proposal;
    if (!p) {  // nearly every redraw: written only if it was showing something
      if (!bar.hidden) bar.hidden = true;
      if (bar.firstChild) bar.textContent = "";
      return;
    }
    bar.hidden = false;
    bar.textContent = "";
    const text = document.createElement("p");
    text.id = "confirm-text";
    text.textContent = W.action(p.action, state) + "?";
    bar.appendChild(text);
    const row = document.createElement("div");
    row.className = "confirm-buttons";
    const button = (id, label, onClick, cls) => {
      const b = document.createElement("button");
      b.type = "button"; b.id = id; b.textContent = label;
      if (cls) b.className = cls;
      b.addEventListener("click", onClick);
      row.appendChild(b);
      return b;
    };
    const send = button("confirm-send", p.sendLabel || "Yes, do it", () => {
      B.proposal = null;
      send.disabled = true;
      Promise.resolve(ctx.act(p.action)).finally(() => B.redraw());
    }, "primary");
    send.dataset.action = JSON.stringify(p.action);
    for (const [id, label, onClick] of (drawn.confirmExtra || [])) button(id, label, onClick);
    button("confirm-cancel", "Cancel", cancel);
    bar.appendChild(row);
  }

  /** A board's own choice as a button among the actions (``drawn.buttons``). */
  function choiceButton(id, label, onClick) {
    const b = document.createElement("button");
    b.type = "button"; b.id = id; b.className = "act choice"; b.textContent = label;
    b.addEventListener("click", onClick);
    return b;
  }

  // ----- notes and legend under the board ---------------------------------------------------------------
  // The notes and the legend are built again only when their words change: a redraw for moves that came or
  // went leaves them. A legend's swatch is drawn from what its words name (a seat's mark and colour).
  // GKLive.changed does the same on a live page; the board editor loads this file without live.js.
  const builtFrom = new WeakMap();  // element -> the key it was last built from
  function rebuild(box, key) {
    if (builtFrom.get(box) === key) return false;
    builtFrom.set(box, key);
    return true;
  }
  function renderNotes(drawn, game) {
    const box = document.getElementById("board-notes");
    if (box && rebuild(box, JSON.stringify(drawn.notes || []))) {
      box.textContent = "";
      for (const n of drawn.notes || []) {
        const li = document.createElement("li");
        const spec = typeof n === "string" ? { text: n } : n;
        if (spec.id) li.id = spec.id;
        if (spec.cls) li.className = spec.cls;
        if (spec.label) {
          const l = document.createElement("span");
          l.className = "label"; l.textContent = spec.label;
          li.appendChild(l);
          const v = document.createElement("span");
          if (spec.valueId) v.id = spec.valueId;
          v.textContent = spec.text;
          li.appendChild(v);
        } else li.textContent = spec.text;
        box.appendChild(li);
      }
    }
    const choices = document.getElementById("board-choices");
    // Its buttons are made again at each drawing: what they do is the drawing's own.
    if (choices && (choices.firstChild || (drawn.choices || []).length)) {
      choices.textContent = "";
      for (const [id, label, onClick, pressed] of drawn.choices || []) {
        const b = document.createElement("button");
        b.type = "button"; b.id = id; b.textContent = label;
        b.setAttribute("aria-pressed", pressed ? "true" : "false");
        b.addEventListener("click", onClick);
        choices.appendChild(b);
      }
      choices.hidden = !(drawn.choices || []).length;
    }
    const legend = document.getElementById("board-legend-items");
    if (legend && rebuild(legend, JSON.stringify([game, (drawn.legend || []).map(item => item[1])]))) {
      legend.textContent = "";
      for (const [draw, text] of drawn.legend || []) {
        const li = document.createElement("li");
        const sw = el(li, "svg", { viewBox: "0 0 24 24", class: "swatch", "aria-hidden": "true" });
        draw(sw, el);
        li.appendChild(document.createTextNode(text));
        legend.appendChild(li);
      }
      const box = document.getElementById("board-legend");
      if (box) {
        if (box.hidden && (drawn.legend || []).length && !box.dataset.shown) {
          box.dataset.shown = "yes";
          box.open = window.innerWidth >= 700;  // once: after that it stays as the person left it
        }
        box.hidden = !(drawn.legend || []).length;
      }
    }
  }

  // A piece drawn over a target (a pawn on a green space, a Whammy on a landing, a trap by its pegs) would
  // take the tap and do nothing with it: a finger on a piece within a target's area is that target's.
  const routed = new WeakSet();
  function routeTaps(svg) {
    if (routed.has(svg)) return;
    routed.add(svg);
    svg.addEventListener("click", e => {
      if (!e.isTrusted || !e.clientX || (e.target.closest && e.target.closest("[role=button]"))) return;
      const t = nearest(e);
      if (t) t.tap();
    });
  }

  // A state's parts are compared a few times a state (its board, its moves, then each sealed view that
  // follows it): each object the stream brought is written out once. boards.js, not live.js, keeps it:
  // the board editor draws boards without a live stream.
  const written = new WeakMap();
  /** ``JSON.stringify(v)``, kept for each object: the stream's objects are never changed in place. */
  function json(v) {
    if (!v || typeof v !== "object") return JSON.stringify(v);
    let t = written.get(v);
    if (t === undefined) { t = JSON.stringify(v); written.set(v, t); }
    return t;
  }
  // The window's width, as the last resize left it. Reading ``innerWidth`` on a phone's page lays the page
  // out first (the viewport's width may follow its content), in the middle of a redraw that has just changed
  // the words; a resize redraws every board anyway (redrawSoon).
  let windowWidth = null;
  // Everything a drawing is made from, as one string: the game's public view and names, the moves offered,
  // the seat, a proposed move, card titles known, the sensors' values (a tomb on the virtual board), the
  // window's width. A board's own little choices (the selected pawn) redraw it through B.redraw, which
  // always draws.
  function drawingKey(state, ctx) {
    if (windowWidth === null) windowWidth = window.innerWidth;
    const st = state || {};
    // A renderer that says which sensors it draws (``reads``) is not drawn again when another one changes:
    // the launcher going up changes nothing on Terror's graveyard, where only the tombs are drawn.
    const reads = (renderers[st.game] || {}).reads || (() => true);
    const sensors = {};
    for (const id of Object.keys(ctx.sensors || {})) if (reads(id)) sensors[id] = (ctx.sensors[id] || {}).value;
    return JSON.stringify([st.game, st.game_id, st.players, ctx.seat, !!ctx.canControl, !!ctx.simulate, sensors,
                           B.proposal, W.cardTitles, windowWidth, window.devicePixelRatio]) +
      json(st.view) + json(ctx.legal || []);
  }
  const made = new WeakMap();  // svg -> {key, drawn, width, layered}: what it was last drawn from

  // ----- parts of a drawing kept from one state to the next ---------------------------------------------
  // A board whose moves come and go is mostly the same drawing: the graveyard's 81 spaces do not change in a
  // game. A renderer that draws in parts (``layered``) puts each in B.layer, with a key of everything that
  // part is drawn from; a redraw from the stream (ctx.keep) keeps a part whose key is unchanged, with its tap
  // targets, and draws the rest again in its place. Anything a renderer draws outside a part is drawn anew.
  const partsOf = new WeakMap();  // svg -> Map(name -> {g, key, targets})
  let drawing = null;             // during a draw: {svg, parts, seen, prev, reuse}
  // The latest drawing's ctx: a kept part's target acts through it (B.now().act), never through the ctx of the
  // drawing that made it, whose words and connection may be out of date.
  let ctxNow = null;

  /** Draw a part of the board in a group of its own, ``fill(g)``, stacked above the parts asked for before it
   *  in this drawing. From the stream, a part whose ``key`` is the one it was last drawn from is kept. */
  function layer(svg, name, key, fill) {
    const d = drawing;
    if (!d || d.svg !== svg) { const g = el(svg, "g", { "data-part": name }); fill(g); return g; }
    // Hit areas are sized for the drawing's width on screen (44 CSS px), and a part is drawn in the drawing's
    // own units: one drawn for another width or another size of drawing is stale.
    const full = key + "|" + minUnits.toFixed(3) + "|" + svg.getAttribute("viewBox");
    let part = d.parts.get(name);
    if (!part) {
      part = { g: document.createElementNS(NS, "g"), key: null, targets: [] };
      part.g.setAttribute("data-part", name);
      d.parts.set(name, part);
    }
    const at = d.prev ? d.prev.nextSibling : svg.firstChild;
    if (part.g !== at) svg.insertBefore(part.g, at);
    d.prev = part.g;
    d.seen.add(name);
    if (d.reuse && part.key === full) {
      for (const t of part.targets) targets.push(t);
      return part.g;
    }
    while (part.g.firstChild) part.g.removeChild(part.g.firstChild);
    const from = targets.length;
    fill(part.g);
    part.key = full;
    part.targets = targets.slice(from);
    return part.g;
  }

  function clear(svg) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    targets = [];
    const parts = new Map();
    partsOf.set(svg, parts);
    return parts;
  }

  /** Draw ``state`` in ``svg``. With ``ctx.keep``, a board already drawn from the same inputs is kept as it
   *  is (the state that follows a notice, or a turn's words, changes nothing on it): the page lays out and
   *  paints one line instead of the whole board; and a board drawn in parts keeps those that did not change. */
  function draw(svg, state, ctx) {
    routeTaps(svg);
    // A move proposed before the game moved on (a pause, an undo, another's move) is dropped before the
    // board is drawn, so neither its way on the board nor "Tap Move here" outlives the confirm bar.
    if (B.proposal && !(ctx.legal || []).some(a => same(a, B.proposal.action))) B.proposal = null;
    const key = drawingKey(state, ctx);
    const last = made.get(svg);
    // A board drawn while hidden had no size to fit its hit areas to: it is drawn again once it has one.
    if (ctx.keep && last && last.key === key && last.width > 0) return last.drawn;
    const game = state && state.game;
    const r = game ? renderers[game] || generic : null;
    const layered = !!(r && r.layered);
    let parts = partsOf.get(svg);
    const reuse = !!(layered && ctx.keep && parts && last && last.layered === game && last.width > 0);
    if (!reuse) parts = clear(svg);
    else {
      // What is not a part (drawn outside one, or put there from outside) goes; the parts stay until asked for.
      const mine = new Set([...parts.values()].map(p => p.g));
      for (const child of [...svg.childNodes]) if (!mine.has(child)) svg.removeChild(child);
    }
    targets = [];
    svgNow = svg;
    fitted = 0;
    ctxNow = ctx;
    drawing = { svg, parts, seen: new Set(), prev: null, reuse };
    let drawn;
    try {
      if (!r) {
        size(svg, 600, 200);
        el(svg, "text", { x: 300, y: 110, "text-anchor": "middle", fill: "#9a98a0", "font-size": 28 }, "No game yet");
        drawn = { handled: new Set() };
      } else {
        try {
          drawn = r(svg, state, ctx, el) || { handled: new Set() };
        } catch (e) {
          drawing = null;
          clear(svg);
          generic(svg, state, ctx, el);
          drawn = { handled: new Set(), hint: "The board could not be drawn: " + e.message, failed: true };
        }
      }
    } finally {
      const d = drawing;
      drawing = null;
      if (d) for (const [name, part] of d.parts) if (!d.seen.has(name)) { part.g.remove(); d.parts.delete(name); }
    }
    renderConfirm(state, ctx, drawn);
    renderNotes(drawn, game);
    // For tests and people poking at the page: the width the hit areas were sized for.
    const width = Math.round(fitted);
    svg.dataset.drawnWidth = String(width);
    made.set(svg, { key, drawn, width, layered: layered && !drawn.failed ? game : null });
    return drawn;
  }

  // Any game without a drawing of its own: its public view as text, so nothing is hidden from the referee.
  function generic(svg, state, ctx, el) {
    const view = state.view || {};
    size(svg, 600, 600);
    let y = 30;
    for (const k of Object.keys(view)) {
      el(svg, "text", { x: 16, y, fill: "#e9e6df", "font-size": 15 }, W.humanize(k) + ": " + W.value(view[k], state).slice(0, 70));
      y += 22;
      if (y > 590) break;
    }
    return { handled: new Set() };
  }

  // A drawing follows the board's width: a phone turned sideways draws it again, with hit areas to match.
  let resizing = null;
  function redrawSoon() {
    windowWidth = null;
    clearTimeout(resizing);
    resizing = setTimeout(() => B.redraw(), 120);
  }
  window.addEventListener("resize", redrawSoon);

  // A board keeps a little local choice (the selected pawn, the tile's turn); the page redraws on it.
  const B = { draw, renderers, el, generic, size, hit, layer, propose, cancel, same, choiceButton, json, proposal: null, redraw: function () {},
              minUnits: () => minUnits, now: () => ctxNow };
  window.GKBoards = B;
})();
