/* Terror in the Graveyard: the 9x9 graveyard, the three sliding platforms with their tombs and pits,
 * the pawns (monster and paralysed marks), the piles, the Crypt and the Headless Ghost. */
(function () {
  "use strict";
  const W = window.GKWords;
  const FILL = { grass: "#2f4a2a", bush: "#16301a", g: "#3b4d2a", potion: "#4b2d66", hand: "#5a4a3a", pit: "#050505",
                 exit: "#24506b", entrance: "#24506b", gate: "#6b5a24", crypt: "#3d2f4f" };
  const LABEL = { g: "G", potion: "⚗", hand: "HAND", pit: "", bush: "✿", exit: "EXIT", entrance: "IN", gate: "GATE", crypt: "CRYPT" };
  const PAWN = { girl: "G", boy: "B" };
  let selected = null;  // [seat, pawn] whose legal moves are shown

  function sameCell(a, b) { return a && b && a[0] === b[0] && a[1] === b[1]; }

  window.GKBoards.renderers.terror = function (svg, st, ctx, el) {
    const v = st.view, b = v.board;
    const size = Math.floor(560 / Math.max(b.rows, b.cols));
    const ox = 20, oy = 20;
    const X = rc => ox + rc[1] * size, Y = rc => oy + rc[0] * size;
    const handled = new Set();
    const legal = ctx.legal || [];

    for (let r = 0; r < b.rows; r++) {
      for (let c = 0; c < b.cols; c++) {
        const t = b.cells[r][c];
        const colour = t.startsWith("arrow-") || t.startsWith("danger-") ? t.split("-")[1] : null;
        const g = el(svg, "g", { class: "cell", "data-cell": r + "," + c, "data-type": t });
        el(g, "rect", { x: X([r, c]) + 1, y: Y([r, c]) + 1, width: size - 2, height: size - 2, rx: 4,
                        fill: FILL[t] || (t.startsWith("danger-") ? "#5a1d1d" : "#2f4a2a"),
                        stroke: colour || "#1b2b18", "stroke-width": colour ? 3 : 1 });
        const label = t.startsWith("arrow-") ? "➜" : t.startsWith("danger-") ? "!" : (LABEL[t] !== undefined ? LABEL[t] : "");
        if (label) el(g, "text", { x: X([r, c]) + size / 2, y: Y([r, c]) + size / 2 + 6, "text-anchor": "middle",
                                   fill: colour || "#e9e6df", "font-size": label.length > 2 ? 11 : 18 }, label);
      }
    }
    // The sliding platforms: their spaces outlined in the platform's colour, then the tomb on its track.
    for (const name of Object.keys(b.platforms)) {
      const p = b.platforms[name];
      for (const cell of p.cells) {
        el(svg, "rect", { x: X(cell) + 3, y: Y(cell) + 3, width: size - 6, height: size - 6, rx: 6, fill: "none",
                          stroke: p.colour, "stroke-dasharray": "5 3", "stroke-width": 2, "pointer-events": "none" });
      }
      const at = (v.tombs || {})[name];
      for (const pos of Object.keys(p.track)) {
        const cell = p.track[pos];
        const here = pos === at;
        const slide = legal.findIndex(a => a.kind === "move_tomb" && a.params.tomb === name && a.params.to === pos);
        // The virtual board slides the physical tomb, which may stand elsewhere than the game says (a mismatch).
        const sensed = ((ctx.sensors || {})["tomb." + name] || {}).value;
        const canSim = ctx.simulate && ctx.canControl && pos !== (sensed || at);
        const g = el(svg, "g", { class: "tomb-spot" + (slide >= 0 || canSim ? " clickable" : ""),
                                 "data-tomb": name, "data-pos": pos });
        if (here) {
          el(g, "rect", { x: X(cell) + 8, y: Y(cell) + size - 20, width: size - 16, height: 14, rx: 3, fill: p.colour, opacity: 0.9 });
          el(g, "text", { x: X(cell) + size / 2, y: Y(cell) + size - 9, "text-anchor": "middle", "font-size": 10, fill: "#000" },
             name.toUpperCase());
        } else {
          el(g, "circle", { cx: X(cell) + size / 2, cy: Y(cell) + size - 12, r: 5, fill: "none", stroke: p.colour,
                            "stroke-width": slide >= 0 ? 3 : 1 });
        }
        if (sensed && sensed === pos && !here) {
          el(g, "rect", { class: "sensed-tomb", x: X(cell) + 8, y: Y(cell) + size - 20, width: size - 16, height: 14, rx: 3,
                          fill: "none", stroke: "#e5484d", "stroke-width": 2, "stroke-dasharray": "3 2" });
          el(g, "title", {}, "the " + name + " tomb is here on the board");
        }
        if (slide >= 0) {
          handled.add(slide);
          g.addEventListener("click", () => ctx.act(legal[slide]));
        } else if (canSim) {
          g.addEventListener("click", () => ctx.sim("tomb." + name, pos));
        }
      }
    }

    // Legal pawn moves: pick the selected pawn, or the first that can move.
    const moves = legal.map((a, i) => [a, i]).filter(([a]) => a.kind === "move_pawn");
    const movers = [];
    for (const [a] of moves) if (!movers.some(m => m[0] === a.player && m[1] === a.params.pawn)) movers.push([a.player, a.params.pawn]);
    if (!selected || !movers.some(m => m[0] === selected[0] && m[1] === selected[1])) selected = movers[0] || null;
    for (const [a, i] of moves) {
      handled.add(i);
      if (!selected || a.player !== selected[0] || a.params.pawn !== selected[1]) continue;
      const cell = a.params.to;
      const hl = el(svg, "rect", { class: "legal", "data-move": cell.join(","), x: X(cell) + 4, y: Y(cell) + 4,
                                   width: size - 8, height: size - 8, rx: 6, fill: "rgba(143,209,143,0.25)",
                                   stroke: "#8fd18f", "stroke-width": 3 });
      hl.addEventListener("click", () => ctx.act(a));
    }

    // Pawns: two per seat, offset so that pawns sharing a space stay visible.
    const seats = v.players || [];
    const outList = [];
    seats.forEach((s, si) => s.pawns.forEach((p, pi) => {
      if (p.pos === null || p.out) { outList.push(s.name + "'s " + p.label); return; }
      const k = si * 2 + pi;
      const px = X(p.pos) + 12 + (k % 4) * ((size - 24) / 3), py = Y(p.pos) + 14 + Math.floor(k / 4) * 16;
      const mover = movers.some(m => m[0] === si && m[1] === pi);
      const chosen = selected && selected[0] === si && selected[1] === pi;
      const g = el(svg, "g", { class: "pawn" + (mover ? " clickable" : ""), "data-seat": si, "data-pawn": pi });
      el(g, "circle", { cx: px, cy: py, r: 8, fill: s.colour, stroke: chosen ? "#fff" : "#000", "stroke-width": chosen ? 3 : 1 });
      el(g, "text", { x: px, y: py + 4, "text-anchor": "middle", "font-size": 10, fill: "#000" }, PAWN[p.label] || "?");
      if (p.monster) el(g, "circle", { class: "monster-mark", cx: px, cy: py, r: 11, fill: "none", stroke: "#e5484d", "stroke-width": 2 });
      if (p.paralysed) el(g, "line", { class: "paralysed-mark", x1: px - 9, y1: py - 9, x2: px + 9, y2: py + 9, stroke: "#fff", "stroke-width": 2 });
      el(g, "title", {}, s.name + "'s " + p.label + " pawn" + (p.monster ? ", a Monster" : "") + (p.paralysed ? ", paralysed" : "") +
         (p.cards ? ", " + p.cards + " saved card(s)" : ""));
      if (mover) g.addEventListener("click", () => { selected = [si, pi]; window.GKBoards.redraw(); });
    }));

    // The Headless Ghost on its launcher in the Crypt: standing, or knocked off.
    const ghostState = (v.skull || {}).ghost;
    const gx = X(b.crypt) + size - 14, gy = Y(b.crypt) + 16;
    const gg = el(svg, "g", { class: "ghost", "data-ghost": ghostState || "unknown",
                              transform: ghostState === "destroyed" ? `rotate(90 ${gx} ${gy})` : "" });
    el(gg, "path", { d: `M${gx - 8} ${gy + 9} v-9 a8 8 0 0 1 16 0 v9 l-4 -3 l-4 3 l-4 -3 z`, fill: "#f2f2f2", stroke: "#000" });
    el(gg, "title", {}, ghostState === "destroyed" ? "the Headless Ghost, knocked off its launcher" : "the Headless Ghost on its launcher");

    // The side: piles, Crypt and ghost, the pending Monster card, pawns that are out.
    const sx = 600;
    let y = 40;
    const line = (text, attrs) => { el(svg, "text", Object.assign({ x: sx, y, fill: "#e9e6df", "font-size": 15 }, attrs || {}), text); y += 24; };
    el(svg, "rect", { x: sx, y: y - 16, width: 60, height: 84, rx: 6, fill: "#3a2f52", stroke: "#8f7fc0" });
    el(svg, "text", { x: sx + 30, y: y + 30, "text-anchor": "middle", fill: "#fff", "font-size": 22, id: "draw-count" }, String(v.draw_count));
    el(svg, "rect", { x: sx + 80, y: y - 16, width: 60, height: 84, rx: 6, fill: "#2a2a2a", stroke: "#777" });
    el(svg, "text", { x: sx + 110, y: y + 30, "text-anchor": "middle", fill: "#fff", "font-size": 22, id: "discard-count" }, String(v.discard_count));
    y += 88;
    line("draw pile · discard", { "font-size": 12, fill: "#9a98a0" });
    const ghost = (v.skull || {}).ghost;
    line("Ghost: " + (ghost === "destroyed" ? "knocked off!" : ghost || "?"), { id: "ghost", fill: ghost === "destroyed" ? "#8fd18f" : "#e9e6df" });
    if ((v.skull || {}).attempt) line("Skull attempt by " + W.playerName(st, v.skull.attempt.seat), { fill: "#f5a524" });
    for (const t of Object.keys(v.tombs || {})) line(W.humanize(t) + " tomb: " + v.tombs[t].replace("_", " "), { "font-size": 13 });
    if (v.pending) line("Monster card for " + W.playerName(st, v.pending.seat) + ": " + ((v.pending.card || {}).title || ""), { fill: "#e5484d", "font-size": 13 });
    if (v.phase) line("Phase: " + v.phase.replace("_", " "), { "font-size": 13, fill: "#9a98a0" });
    for (const o of outList) line(o + ": out", { "font-size": 13, fill: "#9a98a0" });
    const hint = moves.length && selected ? "Click a highlighted space to move " + W.playerName(st, selected[0]) + "'s " +
      (seats[selected[0]].pawns[selected[1]] || {}).label + " pawn" + (movers.length > 1 ? " (click another pawn to move it instead)." : ".") : "";
    return { handled, hint };
  };
})();
