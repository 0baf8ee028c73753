/* Graveyard dogs: the placed tiles, the dogs, the spooks (face up, or the face-down pool), the snacks. */
(function () {
  "use strict";
  const W = window.GKWords;
  const FEATURE = { plain: "#263d26", gravestone: "#55585f", jack_o_lantern: "#a8541a" };
  // Letters, not emoji: Debian's Chromium has no colour-emoji font, and a bat drew as an empty box.
  const SPOOK = { skeleton: "Sk", bat: "Ba", gargoyle: "Ga", ghoul: "Gh" };
  let rotation = 0;

  window.GKBoards.renderers.dogs = function (svg, st, ctx, el) {
    const v = st.view;
    const legal = ctx.legal || [];
    const handled = new Set();
    const size = v.tile_size || 3;
    // The drawing's extent: every square placed plus every square a legal action may reach.
    const xs = [0, size - 1], ys = [0, size - 1];
    for (const t of v.tiles || []) for (const q of t.squares) { xs.push(q.x); ys.push(q.y); }
    for (const a of legal) if (typeof a.params.x === "number") {
      xs.push(a.params.x, a.params.x + (a.kind === "place_tile" ? size - 1 : 0));
      ys.push(a.params.y, a.params.y + (a.kind === "place_tile" ? size - 1 : 0));
    }
    const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
    const cell = Math.max(10, Math.floor(Math.min(560 / (maxX - minX + 1), 560 / (maxY - minY + 1))));
    const ox = 20, oy = 20;
    const X = x => ox + (x - minX) * cell, Y = y => oy + (y - minY) * cell;

    for (const t of v.tiles || []) {
      for (const q of t.squares) {
        const g = el(svg, "g", { class: "square", "data-square": q.x + "," + q.y, "data-feature": q.feature });
        el(g, "rect", { x: X(q.x), y: Y(q.y), width: cell, height: cell, fill: FEATURE[q.feature] || "#263d26", stroke: "#1a2a1a" });
        if (q.feature === "gravestone") el(g, "text", { x: X(q.x) + cell / 2, y: Y(q.y) + cell * 0.7, "text-anchor": "middle", fill: "#ddd", "font-size": cell * 0.5 }, "✝");
        if (q.feature === "jack_o_lantern") el(g, "text", { x: X(q.x) + cell / 2, y: Y(q.y) + cell * 0.7, "text-anchor": "middle", fill: "#ffcf7a", "font-size": cell * 0.5 }, "◉");
      }
      el(svg, "rect", { class: "tile", "data-tile": t.id, x: X(t.x), y: Y(t.y), width: size * cell, height: size * cell, fill: "none", stroke: "#8fa88f", "stroke-width": 2 });
    }

    // Tile placement: the legal spots for the chosen rotation.
    const placements = legal.map((a, i) => [a, i]).filter(([a]) => a.kind === "place_tile");
    placements.forEach(([, i]) => handled.add(i));
    const rotations = [...new Set(placements.map(([a]) => a.params.rotation))].sort();
    if (rotations.length && !rotations.includes(rotation)) rotation = rotations[0];
    for (const [a] of placements.filter(([a]) => a.params.rotation === rotation)) {
      const r = el(svg, "rect", { class: "legal", "data-place": a.params.x + "," + a.params.y, x: X(a.params.x) + 2, y: Y(a.params.y) + 2,
                                  width: size * cell - 4, height: size * cell - 4, fill: "rgba(143,209,143,0.12)",
                                  stroke: "#8fd18f", "stroke-width": 2, "stroke-dasharray": "6 4" });
      r.addEventListener("click", () => ctx.act(a));
    }

    for (const s of v.snacks || []) {
      const n = (v.snacks || []).filter(o => o.x === s.x && o.y === s.y).indexOf(s);
      el(svg, "rect", { class: "snack", x: X(s.x) + 3 + n * 7, y: Y(s.y) + cell - 10, width: 6, height: 6, fill: s.colour, stroke: "#000" });
    }
    for (const s of v.spooks || []) {
      const g = el(svg, "g", { class: "spook", "data-spook": s.id, "data-face": s.face_up ? "up" : "down" });
      el(g, "circle", { cx: X(s.x) + cell / 2, cy: Y(s.y) + cell / 2, r: cell * 0.32, fill: s.face_up ? "#ece6d6" : "#3a2f52", stroke: "#000" });
      el(g, "text", { x: X(s.x) + cell / 2, y: Y(s.y) + cell / 2 + cell * 0.12, "text-anchor": "middle", "font-size": cell * 0.32, fill: "#000" },
         s.face_up ? (SPOOK[s.kind] || (s.kind || "?")[0].toUpperCase()) : "?");
      el(g, "title", {}, s.face_up ? W.humanize(s.kind) + (s.snacks.length ? " carrying " + s.snacks.join(", ") : "") : "a face-down spook");
    }
    for (const d of v.dogs || []) {
      const g = el(svg, "g", { class: "dog", "data-seat": d.seat });
      el(g, "rect", { x: X(d.x) + cell * 0.2, y: Y(d.y) + cell * 0.2, width: cell * 0.6, height: cell * 0.6, rx: cell * 0.2, fill: d.colour, stroke: "#000", "stroke-width": 2 });
      el(g, "title", {}, W.playerName(st, d.seat) + "'s dog");
    }

    // Destinations that are squares: placing or moving a dog or a spook, escaping.
    legal.forEach((a, i) => {
      if (!["place_dog", "move_dog", "move_spook", "escape"].includes(a.kind) || typeof a.params.x !== "number") return;
      handled.add(i);
      const r = el(svg, "rect", { class: "legal", "data-kind": a.kind, "data-move": a.params.x + "," + a.params.y, x: X(a.params.x) + 3, y: Y(a.params.y) + 3,
                                  width: cell - 6, height: cell - 6, rx: 4, fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 2 });
      r.addEventListener("click", () => ctx.act(a));
    });

    // The side: the drawn tile (click to turn it), the face-down pool, each player's card.
    const sx = 600;
    let y = 36;
    const text = (t, attrs) => { el(svg, "text", Object.assign({ x: sx, y, fill: "#e9e6df", "font-size": 14 }, attrs || {}), t); y += 20; };
    if (v.drawn_tile) {
      text("Tile to place: " + v.drawn_tile.name, { "font-size": 13 });
      const grid = v.drawn_tile.grid;
      const g = el(svg, "g", { class: "drawn-tile" + (rotations.length > 1 ? " clickable" : ""), id: "drawn-tile",
                               "data-rotation": rotation });
      const c = 14, n = grid.length;
      for (let r = 0; r < n; r++) for (let q = 0; q < n; q++) {
        // Shown as it will be placed: rotated clockwise `rotation` quarter turns.
        let rr = r, qq = q;
        for (let k = 0; k < rotation; k++) { const t = rr; rr = qq; qq = n - 1 - t; }
        const ch = grid[r][q];
        el(g, "rect", { x: sx + qq * c, y: y + rr * c, width: c, height: c, stroke: "#111",
                        fill: ch === "G" ? FEATURE.gravestone : ch === "J" ? FEATURE.jack_o_lantern : FEATURE.plain });
      }
      if (rotations.length > 1) {
        g.addEventListener("click", () => { rotation = rotations[(rotations.indexOf(rotation) + 1) % rotations.length]; window.GKBoards.redraw(); });
      }
      y += n * c + 22;
    }
    text("Tiles: " + v.tiles_placed + " of " + v.tiles_total + " · snack tin " + v.tin_count, { "font-size": 12, fill: "#9a98a0" });
    text("Face-down spooks: " + v.face_down_spooks, { id: "face-down-spooks", "font-size": 12, fill: "#9a98a0" });
    y += 6;
    for (const c of v.cards || []) {
      el(svg, "rect", { x: sx, y: y - 12, width: 12, height: 12, fill: c.colour });
      text(c.name + ": " + c.score + " point" + (c.score === 1 ? "" : "s"), { x: sx + 18, class: "score", "data-seat": c.seat });
      const held = [];
      if (c.snacks.length) held.push(c.snacks.length + " snack" + (c.snacks.length > 1 ? "s" : ""));
      if (c.spooks.length) held.push(c.spooks.map(s => s.kind).join(", "));
      if (held.length) text(held.join("; ").slice(0, 34), { x: sx + 18, "font-size": 12, fill: "#9a98a0" });
    }
    if (v.step) text("Step: " + W.humanize(v.step), { "font-size": 12, fill: "#9a98a0" });
    const hint = placements.length ? "Click a dashed square to place the tile" + (rotations.length > 1 ? "; click the tile on the right to turn it." : ".")
      : legal.some(a => handled.has(legal.indexOf(a)) && a.kind !== "place_tile") ? "Click a highlighted square." : "";
    return { handled, hint };
  };
})();
