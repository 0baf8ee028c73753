/* Terror in the Graveyard: the 9x9 graveyard, the three sliding platforms with their tombs and pits,
 * the pawns (a girl is round, a boy is square; a Monster wears a red star, a paralysed pawn a cage), the
 * Crypt and the Headless Ghost. Piles, tombs and who is out are written under the board. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  // seat_colours.js: the seats' display colours and marks (a page without it draws the colour names).
  const S = window.GKSeats || { colour: (game, name) => name, marks: names => names.map(() => ""), mark: () => null };
  const FILL = { grass: "#2f4a2a", bush: "#16301a", g: "#2f4a2a", potion: "#4b2d66", hand: "#5a4a3a", pit: "#050505",
                 exit: "#24506b", entrance: "#24506b", gate: "#6b5a24", crypt: "#3d2f4f" };
  const LABEL = { potion: "⚗", bush: "✿", exit: "EXIT", entrance: "IN", gate: "GATE", crypt: "CRYPT" };
  const END = { end_a: "A", end_b: "B" };
  const RED = "#ff5a5f";
  // Spaces whose word keeps to an edge, and the band of the space it takes: pawns stand clear of it.
  const WORD_BAND = { crypt: "top", gate: "foot", entrance: "foot", exit: "foot" };
  const BAND = 16;

  /** Where the ``n`` pawns on one space stand: [x, y, r] each, inside the space less its word's band, as
   *  large as they can be (r up to 15) while no pawn's centre and mark is covered by its neighbour. Up to
   *  eight pawns (four seats, two pawns each) share the Gate at the start, and several the Crypt at the end. */
  function pawnSpots(n, x0, y0, size, band) {
    const pad = 2, gap = 1.8;  // a neighbour's centre is 1.8 radii away: the pawns just touch
    const x = x0 + pad, w = size - 2 * pad;
    const y = y0 + pad + (band === "top" ? BAND : 0), h = size - 2 * pad - (band ? BAND : 0);
    let best = null;
    for (let cols = 1; cols <= n; cols++) {
      const rows = Math.ceil(n / cols);
      const r = Math.min(15, w / (2 + gap * (cols - 1)), h / (2 + gap * (rows - 1)));
      if (!best || r > best.r + 0.01) best = { cols, rows, r };
    }
    const { cols, rows, r } = best;
    const at = (lo, len, k, count) => count === 1 ? lo + len / 2
      : lo + len / 2 + (k - (count - 1) / 2) * Math.min(gap * r * 1.15, (len - 2 * r) / (count - 1));
    const spots = [];
    for (let i = 0; i < n; i++) {
      const row = Math.floor(i / cols), inRow = row === rows - 1 ? n - row * cols : cols;
      spots.push([at(x, w, i % cols, inRow), at(y, h, row, rows), r]);
    }
    return spots;
  }
  let selected = null;  // [seat, pawn] whose legal moves are shown

  // The pawn shapes, shared by the board and the legend.
  function pawnShape(g, el, x, y, r, label, colour, attrs) {
    const a = Object.assign({ fill: colour, stroke: "#000", "stroke-width": 2 }, attrs || {});
    if (label === "boy") return el(g, "rect", Object.assign({ x: x - r, y: y - r, width: 2 * r, height: 2 * r, rx: 3 }, a));
    return el(g, "circle", Object.assign({ cx: x, cy: y, r }, a));
  }
  function star(g, el, x, y, r) {
    const pts = [];
    for (let i = 0; i < 16; i++) {
      const rr = i % 2 ? r * 0.62 : r, t = Math.PI * i / 8;
      pts.push((x + rr * Math.sin(t)).toFixed(1) + "," + (y - rr * Math.cos(t)).toFixed(1));
    }
    return el(g, "polygon", { class: "monster-mark", points: pts.join(" "), fill: RED, stroke: "#fff", "stroke-width": 1.5 });
  }
  function cage(g, el, x, y, r) {
    const c = el(g, "g", { class: "paralysed-mark" });
    el(c, "rect", { x: x - r - 3, y: y - r - 3, width: 2 * r + 6, height: 2 * r + 6, rx: 3, fill: "none", stroke: "#bfe3ff", "stroke-width": 3 });
    for (const dx of [-r / 2, 0, r / 2]) el(c, "line", { x1: x + dx, y1: y - r - 3, x2: x + dx, y2: y + r + 3, stroke: "#bfe3ff", "stroke-width": 2.5 });
    return c;
  }
  // A skeleton hand: a palm and four bony fingers (no emoji font is needed).
  function hand(g, el, x, y, s) {
    const h = el(g, "g", { stroke: "#f2efe6", "stroke-width": s * 0.09, "stroke-linecap": "round", fill: "none" });
    el(h, "rect", { x: x - s * 0.22, y: y, width: s * 0.44, height: s * 0.3, rx: s * 0.06 });
    for (const dx of [-0.16, -0.05, 0.06, 0.17]) el(h, "line", { x1: x + dx * s, y1: y, x2: x + dx * s * 1.2, y2: y - s * 0.32 });
    el(h, "line", { x1: x - s * 0.22, y1: y + s * 0.12, x2: x - s * 0.36, y2: y - s * 0.04 });
    return h;
  }
  function card(g, el, x, y, s) {
    el(g, "rect", { x: x - s * 0.35, y: y - s * 0.45, width: s * 0.7, height: s * 0.9, rx: 3, fill: "#e8dcc0", stroke: "#000" });
    el(g, "text", { x, y: y + s * 0.17, "text-anchor": "middle", "font-size": s * 0.5, "font-weight": 700, fill: "#3a2a10" }, "G");
  }

  let chooseNow = new Map();  // "seat,pawn" -> choosing that pawn, for the pawns that can be chosen now
  const chooser = (si, pi) => () => { selected = [si, pi]; B.proposal = null; B.redraw(); };
  B.renderers.terror = function (svg, st, ctx, el) {
    const v = st.view, b = v.board;
    const ox = 3, oy = 3;
    const size = Math.floor(594 / Math.max(b.rows, b.cols));
    B.size(svg, ox * 2 + size * b.cols, oy * 2 + size * b.rows);
    // Where the grid lies in the drawing, for pages that mark cells over it (the board editor).
    Object.assign(svg.dataset, { cellSize: String(size), originX: String(ox), originY: String(oy) });
    const X = rc => ox + rc[1] * size, Y = rc => oy + rc[0] * size;
    const box = rc => [X(rc), Y(rc), size, size];
    const grid = JSON.stringify([ox, oy, size]);  // where the grid lies: every part's key holds it
    const handled = new Set();
    const legal = ctx.legal || [];
    const proposal = B.proposal && B.proposal.action.kind === "move_pawn" ? B.proposal.action : null;

    // The graveyard's spaces and the platforms' outlines: the same all game long.
    B.layer(svg, "ground", B.json(b) + grid, g => {
      for (let r = 0; r < b.rows; r++) {
        for (let c = 0; c < b.cols; c++) {
          const t = b.cells[r][c];
          const colour = t.startsWith("arrow-") || t.startsWith("danger-") ? t.split("-")[1] : null;
          const cg = el(g, "g", { class: "cell", "data-cell": r + "," + c, "data-type": t });
          el(cg, "rect", { x: X([r, c]) + 1, y: Y([r, c]) + 1, width: size - 2, height: size - 2, rx: 4,
                           fill: FILL[t] || (t.startsWith("danger-") ? "#5a1d1d" : "#2f4a2a"),
                           stroke: colour || "#1b2b18", "stroke-width": colour ? 4 : 1 });
          if (t === "g") { card(cg, el, X([r, c]) + size / 2, Y([r, c]) + size / 2, size * 0.55); continue; }
          if (t === "hand") { hand(cg, el, X([r, c]) + size / 2, Y([r, c]) + size / 2, size * 0.8); continue; }
          const label = t.startsWith("arrow-") ? "➜" : t.startsWith("danger-") ? "!" : (LABEL[t] || "");
          // The words of spaces where pawns gather keep to an edge, clear of the pawns (pawnSpots): the Crypt's
          // at the top left, beside the Headless Ghost; the Gate's, the Entrance's and the Exit's at the foot.
          const edge = WORD_BAND[t];
          const labelX = t === "crypt" ? X([r, c]) + 4 : X([r, c]) + size / 2;
          const labelY = t === "crypt" ? Y([r, c]) + 13 : edge ? Y([r, c]) + size - 4
            : Y([r, c]) + size / 2 + (label.length > 2 ? 5 : 9);
          if (label) el(cg, "text", { x: labelX, y: labelY, "text-anchor": t === "crypt" ? "start" : "middle",
                                      fill: colour || "#e9e6df", "font-size": edge ? 12 : label.length > 2 ? 14 : 26,
                                      "font-weight": 700 }, label);
        }
      }
      // The sliding platforms: their spaces outlined in the platform's colour.
      for (const name of Object.keys(b.platforms)) {
        for (const cell of b.platforms[name].cells) {
          el(g, "rect", { x: X(cell) + 4, y: Y(cell) + 4, width: size - 8, height: size - 8, rx: 6, fill: "none",
                          stroke: b.platforms[name].colour, "stroke-dasharray": "6 4", "stroke-width": 2, "pointer-events": "none" });
        }
      }
    });

    // Each tomb on its track, and where it can slide (a move, or on the virtual board the physical tomb).
    const moveCells = new Set(legal.filter(a => a.kind === "move_pawn").map(a => a.params.to.join(",")));
    const spots = [];
    for (const name of Object.keys(b.platforms)) {
      const p = b.platforms[name];
      const at = (v.tombs || {})[name];
      // The virtual board slides the physical tomb, which may stand elsewhere than the game says (a mismatch).
      const sensed = ((ctx.sensors || {})["tomb." + name] || {}).value;
      for (const pos of Object.keys(p.track)) {
        const cell = p.track[pos];
        const slide = legal.findIndex(a => a.kind === "move_tomb" && a.params.tomb === name && a.params.to === pos);
        if (slide >= 0) handled.add(slide);
        const canSim = !!(ctx.simulate && ctx.canControl && pos !== (sensed || at) && !moveCells.has(cell.join(",")));
        spots.push({ name, pos, cell, colour: p.colour, here: pos === at, sensed: !!sensed && sensed === pos,
                     slide: slide >= 0 ? legal[slide] : null, canSim });
      }
    }
    B.layer(svg, "tombs", JSON.stringify(spots) + grid, g => {
      for (const { name, pos, cell, colour, here, sensed, slide, canSim } of spots) {
        const sg = el(g, "g", { class: "tomb-spot" + (slide || canSim ? " clickable" : ""), "data-tomb": name, "data-pos": pos });
        if (here) {
          el(sg, "rect", { x: X(cell) + 5, y: Y(cell) + size - 24, width: size - 10, height: 19, rx: 3, fill: colour, opacity: 0.95 });
          el(sg, "text", { x: X(cell) + size / 2, y: Y(cell) + size - 9, "text-anchor": "middle", "font-size": name.length > 5 ? 10 : 13,
                           "font-weight": 700, fill: "#000" }, W.tombName(name).toUpperCase());
        }
        if (END[pos]) {
          // The ends of each track are lettered, as the rules call them: end A and end B.
          el(sg, "circle", { cx: X(cell) + 12, cy: Y(cell) + 12, r: 10, fill: "#000", stroke: colour, "stroke-width": 2 });
          el(sg, "text", { x: X(cell) + 12, y: Y(cell) + 17, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: colour }, END[pos]);
        }
        if (!here && slide) {
          el(sg, "rect", { x: X(cell) + 3, y: Y(cell) + 3, width: size - 6, height: size - 6, rx: 6, fill: "rgba(143,209,143,0.18)",
                           stroke: "#8fd18f", "stroke-width": 3 });
        }
        if (sensed && !here) {
          el(sg, "rect", { class: "sensed-tomb", x: X(cell) + 5, y: Y(cell) + size - 24, width: size - 10, height: 19, rx: 3,
                           fill: "none", stroke: "#e5484d", "stroke-width": 3, "stroke-dasharray": "4 3" });
          el(sg, "title", {}, "the " + W.tombName(name) + " tomb stands here on the real board");
        }
        // The whole space takes the tap, not just its marker.
        const where = pos === "middle" ? "the middle" : "end " + END[pos];
        if (slide) {
          B.hit(sg, box(cell), () => B.now().act(slide), "Slide the " + W.tombName(name) + " tomb to " + where);
        } else if (canSim) {
          B.hit(sg, box(cell), () => B.now().sim("tomb." + name, pos), "Slide the " + W.tombName(name) + " tomb to " + where + " on the virtual board");
        }
      }
    });

    // Legal pawn moves: pick the selected pawn, or the first that can move.
    const moves = legal.map((a, i) => [a, i]).filter(([a]) => a.kind === "move_pawn");
    const movers = [];
    for (const [a] of moves) if (!movers.some(m => m[0] === a.player && m[1] === a.params.pawn)) movers.push([a.player, a.params.pawn]);
    if (proposal) selected = [proposal.player, proposal.params.pawn];
    if (!selected || !movers.some(m => m[0] === selected[0] && m[1] === selected[1])) selected = movers[0] || null;
    const seats = v.players || [];
    const pawnWord = (si, pi) => W.playerName(st, si) + "'s " + ((seats[si] || {}).pawns[pi] || {}).label;
    const targetsShown = [];
    for (const [a, i] of moves) {
      handled.add(i);
      if (!selected || a.player !== selected[0] || a.params.pawn !== selected[1]) continue;
      targetsShown.push([a, "Move " + pawnWord(a.player, a.params.pawn) + " to " + W.terrorCell(st, a.params.to)]);
    }
    B.layer(svg, "moves", JSON.stringify(targetsShown) + grid, g => {
      for (const [a, label] of targetsShown) {
        const cell = a.params.to;
        const mg = el(g, "g", { class: "legal", "data-move": cell.join(",") });
        el(mg, "rect", { x: X(cell) + 4, y: Y(cell) + 4, width: size - 8, height: size - 8, rx: 6,
                         fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 4 });
        B.hit(mg, box(cell), () => B.propose(a, { sendLabel: "Move here" }), label);
      }
    });

    // The proposed move: its path, step by step, and where the pawn ends.
    if (proposal) {
      const walk = (v.walks || []).find(w => w.seat === proposal.player && w.pawn === proposal.params.pawn &&
                                             w.to[0] === proposal.params.to[0] && w.to[1] === proposal.params.to[1]);
      const from = ((seats[proposal.player] || {}).pawns[proposal.params.pawn] || {}).pos;
      const cells = [from, ...((walk && walk.path) || [proposal.params.to])].filter(Boolean);
      B.layer(svg, "preview", JSON.stringify([cells, proposal.params.to]) + grid, layerG => {
        const g = el(layerG, "g", { class: "preview", "pointer-events": "none" });
        el(g, "polyline", { points: cells.map(c => (X(c) + size / 2) + "," + (Y(c) + size / 2)).join(" "), fill: "none",
                            stroke: "#ffe066", "stroke-width": 7, "stroke-linejoin": "round", "stroke-linecap": "round", opacity: 0.9 });
        cells.slice(1).forEach((c, k) => {
          el(g, "circle", { cx: X(c) + size / 2, cy: Y(c) + size / 2, r: 12, fill: "#ffe066", stroke: "#000" });
          el(g, "text", { x: X(c) + size / 2, y: Y(c) + size / 2 + 5, "text-anchor": "middle", "font-size": 14, "font-weight": 700, fill: "#000" }, String(k + 1));
        });
        el(g, "rect", { class: "landing", x: X(proposal.params.to) + 2, y: Y(proposal.params.to) + 2, width: size - 4, height: size - 4,
                        rx: 6, fill: "none", stroke: "#ffe066", "stroke-width": 5 });
      });
    }

    // Pawns: every pawn on a space in sight (pawnSpots), each carrying its player's mark besides the colour.
    const outList = [], marks = [];
    const names = seats.map((s, si) => W.playerName(st, si));
    const seatMarks = S.marks(names);
    const fill = s => S.colour("terror", s.colour);
    seats.forEach((s, si) => s.pawns.forEach(p => {
      const who = names[si] + "'s " + p.label;
      if (p.monster) marks.push(who + " is a Monster" + (p.monster_card && p.monster_card.title ? " (" + p.monster_card.title + ")" : "") + ".");
      if (p.paralysed) marks.push(who + " is paralysed on a Skeleton Hand.");
      if (p.pos === null || p.out) outList.push(who);
    }));
    // Where each pawn stands: the pieces are drawn from it, and the choice of which pawn to move is drawn over it.
    const crowd = {};
    seats.forEach((s, si) => s.pawns.forEach((p, pi) => {
      if (p.pos !== null && !p.out) (crowd[p.pos.join(",")] = crowd[p.pos.join(",")] || []).push([si, pi]);
    }));
    const spotOf = {};
    for (const key of Object.keys(crowd)) {
      const [pr, pc] = key.split(",").map(Number);
      const spots = pawnSpots(crowd[key].length, X([pr, pc]), Y([pr, pc]), size, WORD_BAND[b.cells[pr][pc]]);
      crowd[key].forEach(([si, pi], k) => { spotOf[si + "," + pi] = spots[k]; });
    }
    B.layer(svg, "pawns", B.json(seats) + JSON.stringify(names) + B.json(b) + grid, g => {
      // The Monsters' stars first, under every pawn: a star as wide as a fingertip must not hide a neighbour.
      const stars = el(g, "g", { class: "monster-marks", "pointer-events": "none" });
      seats.forEach((s, si) => s.pawns.forEach((p, pi) => {
        const spot = spotOf[si + "," + pi];
        if (spot && p.monster) star(stars, el, spot[0], spot[1], spot[2] * 2);
      }));
      seats.forEach((s, si) => s.pawns.forEach((p, pi) => {
        if (p.pos === null || p.out) return;
        const who = names[si] + "'s " + p.label;
        const [px, py, r] = spotOf[si + "," + pi];
        const pg = el(g, "g", { class: "pawn", "data-seat": si, "data-pawn": pi, "data-label": p.label });
        pawnShape(pg, el, px, py, r, p.label, fill(s));
        S.mark(pg, el, px, py, 2 * r, seatMarks[si], fill(s));
        if (p.paralysed) cage(pg, el, px, py, r);
        el(pg, "title", {}, who + (p.monster ? ", a Monster" : "") + (p.paralysed ? ", paralysed" : "") +
           (p.cards ? ", " + p.cards + " saved card" + (p.cards > 1 ? "s" : "") : ""));
        // A finger lands on the choice drawn over the pawn (picks); a click sent to the pawn itself (a
        // screen reader's, a script's) chooses it too, if it is one to choose now.
        pg.addEventListener("click", e => {
          const choose = chooseNow.get(si + "," + pi);
          if (choose) { e.stopPropagation(); choose(); }
        });
      }));
    });
    // Over the pieces: the pawn whose moves are shown, ringed in white, and with two that can move, each one
    // to tap (a choice that comes and goes with the moves, where the pieces stay).
    const choosable = movers.length > 1;
    const picks = movers.filter(([si, pi]) => spotOf[si + "," + pi])
      .map(([si, pi]) => [si, pi, seats[si].pawns[pi].label, !!selected && selected[0] === si && selected[1] === pi]);
    chooseNow = new Map();
    B.layer(svg, "picks", JSON.stringify([picks, choosable, names, spotOf]) + grid, g => {
      for (const [si, pi, label, chosen] of picks) {
        const [px, py, r] = spotOf[si + "," + pi];
        const pg = el(g, "g", { class: "pawn-pick" + (choosable ? " clickable" : ""), "data-seat": si, "data-pawn": pi });
        if (chosen) pawnShape(pg, el, px, py, r, label, "none", { stroke: "#fff", "stroke-width": 4, "pointer-events": "none" });
        if (choosable) B.hit(pg, [px - r, py - r, 2 * r, 2 * r], chooser(si, pi), "Choose " + names[si] + "'s " + label + " to move");
      }
    });
    if (choosable) for (const [si, pi] of picks) chooseNow.set(si + "," + pi, chooser(si, pi));

    // The Headless Ghost on its launcher in the Crypt: standing, or knocked off.
    const ghostState = (v.skull || {}).ghost;
    B.layer(svg, "ghost", JSON.stringify([ghostState, b.crypt]) + grid, g => {
      // At the top of the Crypt's space, clear of its word at the foot, standing or knocked off (turned).
      // Small, in the band at the top of the space the pawns keep clear of (WORD_BAND), right of the word.
      const gx = X(b.crypt) + size - 11, gy = Y(b.crypt) + 10;
      const gg = el(g, "g", { class: "ghost", "data-ghost": ghostState || "unknown",
                              transform: ghostState === "destroyed" ? `rotate(90 ${gx} ${gy})` : "" });
      el(gg, "path", { d: `M${gx - 6.5} ${gy + 7} v-7 a6.5 6.5 0 0 1 13 0 v7 l-3.25 -2.6 l-3.25 2.6 l-3.25 -2.6 z`, fill: "#f2f2f2", stroke: "#000" });
      el(gg, "title", {}, ghostState === "destroyed" ? "the Headless Ghost, knocked off its launcher" : "the Headless Ghost on its launcher");
    });

    // Under the board: the piles, the ghost, the tombs, the marks on pawns, pawns that are out.
    const notes = [];
    notes.push({ label: "Draw pile", text: String(v.draw_count), valueId: "draw-count" });
    notes.push({ label: "Discard pile", text: String(v.discard_count), valueId: "discard-count" });
    const ghost = (v.skull || {}).ghost;
    notes.push({ label: "Headless Ghost", text: ghost === "destroyed" ? "knocked off!" : ghost === "standing" ? "standing on its launcher" : "unknown", valueId: "ghost" });
    if ((v.skull || {}).attempt) notes.push({ text: W.playerName(st, v.skull.attempt.seat) + " is dropping the skull down the Crypt.", cls: "warn" });
    const tombs = Object.keys(v.tombs || {}).map(t => W.tombName(t) + " " + (v.tombs[t] === "middle" ? "in the middle" : "at " + W.tombEnd(v.tombs[t])));
    if (tombs.length) notes.push({ label: "Tombs", text: tombs.join(", ") });
    if (v.pending) notes.push({ text: "Monster card for " + W.playerName(st, v.pending.seat) + ": " + ((v.pending.card || {}).title || "") + ".", cls: "bad" });
    for (const m of marks) notes.push({ text: m, cls: "bad" });
    for (const o of outList) notes.push({ text: o + " is out of the graveyard." });

    const choices = movers.length > 1 ? movers.map(([si, pi]) => [
      "choose-" + si + "-" + pi, "Move " + (si === (ctx.seat !== undefined ? ctx.seat : -1) ? "your " + seats[si].pawns[pi].label : pawnWord(si, pi)),
      chooser(si, pi), selected && selected[0] === si && selected[1] === pi]) : [];

    const legend = [
      // Whose pawns are whose, by colour and by the mark on each (a reader who cannot tell the colours apart).
      ...seats.map((s, si) => [(sw, e) => { pawnShape(sw, e, 12, 12, 11, "girl", fill(s)); S.mark(sw, e, 12, 12, 22, seatMarks[si], fill(s)); },
                               seatMarks[si] + ": " + W.playerName(st, si) + " (" + s.colour + ")"]),
      [(s, e) => pawnShape(s, e, 12, 12, 9, "girl", "#e9e6df"), "girl pawn (in the player's colour)"],
      [(s, e) => pawnShape(s, e, 12, 12, 8, "boy", "#e9e6df"), "boy pawn"],
      [(s, e) => { star(s, e, 12, 12, 12); pawnShape(s, e, 12, 12, 6, "girl", "#e9e6df"); }, "a Monster"],
      [(s, e) => { pawnShape(s, e, 12, 12, 6, "girl", "#e9e6df"); cage(s, e, 12, 12, 6); }, "paralysed"],
      [(s, e) => card(s, e, 12, 12, 22), "“G” space: draw a Goosebumps card"],
      [(s, e) => e(s, "text", { x: 12, y: 19, "text-anchor": "middle", "font-size": 18, fill: "#e9e6df" }, "⚗"), "Magic Potion"],
      [(s, e) => { e(s, "rect", { x: 0, y: 0, width: 24, height: 24, fill: FILL.hand }); hand(s, e, 12, 12, 20); }, "Skeleton Hand"],
      [(s, e) => e(s, "rect", { x: 2, y: 2, width: 20, height: 20, fill: "#050505", stroke: "#555" }), "pit"],
      [(s, e) => e(s, "text", { x: 12, y: 19, "text-anchor": "middle", "font-size": 18, fill: "#e9e6df" }, "✿"), "bush (blocks the way)"],
      [(s, e) => { e(s, "circle", { cx: 12, cy: 12, r: 10, fill: "#000", stroke: "#d8c38a", "stroke-width": 2 });
                   e(s, "text", { x: 12, y: 17, "text-anchor": "middle", "font-size": 13, "font-weight": 700, fill: "#d8c38a" }, "A"); },
       "the ends of a tomb's track, A and B"],
      [(s, e) => e(s, "rect", { x: 2, y: 2, width: 20, height: 20, rx: 4, fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 3 }), "where you can go: tap it"],
    ];
    let hint = "";
    if (B.proposal) hint = "The yellow line shows the way. Tap “Move here” to send it.";
    else if (moves.length && selected) hint = "Tap a green space to move " + pawnWord(selected[0], selected[1]) + (movers.length > 1 ? ", or choose the other pawn." : ".");
    else if (legal.some(a => a.kind === "move_tomb")) hint = "Tap a green space to slide the tomb there.";
    return { handled, hint, notes, legend, choices };
  };
  // The only sensors the graveyard shows are the tombs (where the real board has them, on the virtual board).
  B.renderers.terror.reads = id => String(id).startsWith("tomb.");
  B.renderers.terror.layered = true;
})();
