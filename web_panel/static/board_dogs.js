/* Graveyard dogs: the placed tiles, the dogs, the spooks (face up, or the face-down pool), the snacks.
 * A tile is placed in two taps: a dashed spot shows the tile there, turned; "Place it here" sends it. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  // seat_colours.js: the seats' display colours and marks (a page without it draws the colour names).
  const S = window.GKSeats || { colour: (game, name) => name, marks: names => names.map(() => ""), mark: () => null };
  const shade = name => S.colour("dogs", name);
  const FEATURE = { plain: "#263d26", gravestone: "#55585f", jack_o_lantern: "#a8541a" };
  // Letters, not emoji: Debian's Chromium has no colour-emoji font, and a bat drew as an empty box.
  const SPOOK = { skeleton: "Sk", bat: "Ba", gargoyle: "Ga", ghoul: "Gh" };
  let rotation = 0;

  function square(g, el, x, y, c, feature) {
    el(g, "rect", { x, y, width: c, height: c, fill: FEATURE[feature] || FEATURE.plain, stroke: "#1a2a1a" });
    if (feature === "gravestone") {
      el(g, "path", { d: `M${x + c * 0.3} ${y + c * 0.85} v${-c * 0.45} a${c * 0.2} ${c * 0.2} 0 0 1 ${c * 0.4} 0 v${c * 0.45} z`, fill: "#c9c9c9", stroke: "#222" });
    }
    if (feature === "jack_o_lantern") {
      el(g, "circle", { cx: x + c / 2, cy: y + c / 2, r: c * 0.3, fill: "#ff9a2e", stroke: "#5a2a00" });
      el(g, "path", { d: `M${x + c * 0.36} ${y + c * 0.45} l${c * 0.06} ${-c * 0.08} l${c * 0.06} ${c * 0.08} z M${x + c * 0.52} ${y + c * 0.45} l${c * 0.06} ${-c * 0.08} l${c * 0.06} ${c * 0.08} z`, fill: "#3a1a00" });
    }
  }
  // The drawn tile's features, turned clockwise ``rot`` quarter turns, as they will lie once placed.
  function turned(grid, rot) {
    const n = grid.length, out = [];
    for (let r = 0; r < n; r++) for (let q = 0; q < n; q++) {
      let rr = r, qq = q;
      for (let k = 0; k < rot; k++) { const t = rr; rr = qq; qq = n - 1 - t; }
      const ch = grid[r][q];
      out.push([qq, rr, ch === "G" ? "gravestone" : ch === "J" ? "jack_o_lantern" : "plain"]);
    }
    return out;
  }

  B.renderers.dogs = function (svg, st, ctx, el) {
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
    const cols = maxX - minX + 1, rows = maxY - minY + 1;
    // The graveyard grows as tiles are placed, often long and narrow: it fills the width, and a tall
    // one may be up to 1000 units high (a phone scrolls down, never sideways).
    const cell = Math.max(10, Math.min(120, Math.floor(Math.min(592 / cols, 1000 / rows))));
    const ox = 4, oy = 4;
    B.size(svg, ox * 2 + cols * cell, ox * 2 + rows * cell);
    const X = x => ox + (x - minX) * cell, Y = y => oy + (y - minY) * cell;

    // The placed tiles: they only grow, and are kept while none is placed and the drawing keeps its extent.
    B.layer(svg, "tiles", B.json(v.tiles || []) + JSON.stringify([minX, minY, cell, size]), layer => {
      for (const t of v.tiles || []) {
        for (const q of t.squares) {
          const g = el(layer, "g", { class: "square", "data-square": q.x + "," + q.y, "data-feature": q.feature });
          square(g, el, X(q.x), Y(q.y), cell, q.feature);
        }
        el(layer, "rect", { class: "tile", "data-tile": t.id, x: X(t.x), y: Y(t.y), width: size * cell, height: size * cell, fill: "none", stroke: "#8fa88f", "stroke-width": 2 });
      }
    });

    // Tile placement: one dashed spot per place; the turn is chosen once the spot is tapped.
    const placements = legal.map((a, i) => [a, i]).filter(([a]) => a.kind === "place_tile");
    placements.forEach(([, i]) => handled.add(i));
    const proposal = B.proposal && B.proposal.action.kind === "place_tile" ? B.proposal.action : null;
    const spots = {};
    for (const [a] of placements) (spots[a.params.x + "," + a.params.y] = spots[a.params.x + "," + a.params.y] || []).push(a);
    for (const key of Object.keys(spots)) spots[key].sort((a, b) => a.params.rotation - b.params.rotation);
    const pick = (list, rot) => list.find(a => a.params.rotation === rot) || list[0];
    const spotWords = {};
    for (const key of Object.keys(spots)) spotWords[key] = "Place the tile " + W.dogsSpot(st, spots[key][0].params.x, spots[key][0].params.y);
    B.layer(svg, "spots", JSON.stringify([spots, spotWords, minX, minY, cell, size]), layer => {
      for (const key of Object.keys(spots)) {
        const list = spots[key], a0 = list[0];
        const g = el(layer, "g", { class: "legal", "data-place": key });
        // Spots overlap (a tile may go one square along): each is a faint frame with a marker at its centre.
        el(g, "rect", { x: X(a0.params.x) + 3, y: Y(a0.params.y) + 3, width: size * cell - 6, height: size * cell - 6,
                        fill: "rgba(143,209,143,0.06)", stroke: "#8fd18f", "stroke-width": 2, "stroke-dasharray": "8 5", opacity: 0.45 });
        const mx = X(a0.params.x) + size * cell / 2, my = Y(a0.params.y) + size * cell / 2;
        el(g, "circle", { class: "spot-mark", cx: mx, cy: my, r: Math.max(8, cell * 0.28), fill: "rgba(20,40,20,0.85)", stroke: "#8fd18f", "stroke-width": 3 });
        el(g, "path", { d: `M${mx - cell * 0.14} ${my} h${cell * 0.28} M${mx} ${my - cell * 0.14} v${cell * 0.28}`, stroke: "#8fd18f", "stroke-width": 3 });
        B.hit(g, [X(a0.params.x), Y(a0.params.y), size * cell, size * cell], () => {
          const a = pick(list, rotation);
          rotation = a.params.rotation;
          B.propose(a, { sendLabel: "Place it here" });
        }, spotWords[key]);
      }
    });
    let confirmExtra = [];
    if (proposal && v.drawn_tile) {
      const key = proposal.params.x + "," + proposal.params.y;
      const list = spots[key] || [proposal];
      B.layer(svg, "preview", JSON.stringify([proposal, v.drawn_tile.grid, minX, minY, cell, size]), layer => {
        const g = el(layer, "g", { class: "preview", id: "tile-preview", "data-rotation": proposal.params.rotation, "pointer-events": "none" });
        for (const [qx, qy, f] of turned(v.drawn_tile.grid, proposal.params.rotation)) square(g, el, X(proposal.params.x + qx), Y(proposal.params.y + qy), cell, f);
        el(g, "rect", { class: "landing", x: X(proposal.params.x), y: Y(proposal.params.y), width: size * cell, height: size * cell,
                        fill: "none", stroke: "#ffe066", "stroke-width": 5 });
      });
      if (list.length > 1) {
        confirmExtra = [["confirm-turn", "Turn the tile", () => {
          const i = list.findIndex(a => a.params.rotation === proposal.params.rotation);
          const next = list[(i + 1) % list.length];
          rotation = next.params.rotation;
          B.propose(next, { sendLabel: "Place it here" });
        }]];
      }
    }

    // The pieces: snacks, spooks and dogs, each with its player's mark.
    const names = (st.players || []).map((n, i) => W.playerName(st, i));
    const seatMarks = S.marks(names);
    B.layer(svg, "pieces", B.json(v.snacks || []) + B.json(v.spooks || []) + B.json(v.dogs || []) + JSON.stringify([names, minX, minY, cell]), layer => {
      for (const s of v.snacks || []) {
        const n = (v.snacks || []).filter(o => o.x === s.x && o.y === s.y).indexOf(s);
        el(layer, "rect", { class: "snack", x: X(s.x) + 3 + n * cell * 0.22, y: Y(s.y) + cell * 0.72, width: cell * 0.2, height: cell * 0.2, fill: shade(s.colour), stroke: "#000" });
      }
      for (const s of v.spooks || []) {
        const g = el(layer, "g", { class: "spook", "data-spook": s.id, "data-face": s.face_up ? "up" : "down" });
        el(g, "circle", { cx: X(s.x) + cell / 2, cy: Y(s.y) + cell / 2, r: cell * 0.34, fill: s.face_up ? "#ece6d6" : "#3a2f52", stroke: "#000" });
        el(g, "text", { x: X(s.x) + cell / 2, y: Y(s.y) + cell / 2 + cell * 0.13, "text-anchor": "middle", "font-size": cell * 0.36, "font-weight": 700,
                        fill: s.face_up ? "#000" : "#fff" }, s.face_up ? (SPOOK[s.kind] || (s.kind || "?")[0].toUpperCase()) : "?");
        el(g, "title", {}, s.face_up ? W.humanize(s.kind) + (s.snacks.length ? " carrying " + s.snacks.join(", ") : "") : "a face-down spook");
      }
      for (const d of v.dogs || []) {
        const g = el(layer, "g", { class: "dog", "data-seat": d.seat });
        el(g, "rect", { x: X(d.x) + cell * 0.18, y: Y(d.y) + cell * 0.18, width: cell * 0.64, height: cell * 0.64, rx: cell * 0.2, fill: shade(d.colour), stroke: "#000", "stroke-width": 2 });
        S.mark(g, el, X(d.x) + cell / 2, Y(d.y) + cell / 2, cell * 0.64, seatMarks[d.seat] || "", shade(d.colour));
        el(g, "title", {}, names[d.seat] + "'s dog");
      }
    });

    // Destinations that are squares: placing or moving a dog or a spook, escaping.
    const squares = [];
    legal.forEach((a, i) => {
      if (!["place_dog", "move_dog", "move_spook", "escape"].includes(a.kind) || typeof a.params.x !== "number") return;
      handled.add(i);
      squares.push([a, W.action(a, st)]);
    });
    B.layer(svg, "targets", JSON.stringify([squares, minX, minY, cell]), layer => {
      for (const [a, label] of squares) {
        const g = el(layer, "g", { class: "legal", "data-kind": a.kind, "data-move": a.params.x + "," + a.params.y });
        el(g, "rect", { x: X(a.params.x) + 3, y: Y(a.params.y) + 3, width: cell - 6, height: cell - 6, rx: 4,
                        fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 3 });
        B.hit(g, [X(a.params.x), Y(a.params.y), cell, cell], () => B.now().act(a), label);
      }
    });

    // Under the board: the tile to place, the piles, each player's card.
    const notes = [];
    if (v.drawn_tile) notes.push({ label: "Tile to place", text: v.drawn_tile.name, valueId: "drawn-tile-name" });
    notes.push({ label: "Tiles", text: v.tiles_placed + " of " + v.tiles_total + " placed; " + v.tin_count + " snacks in the tin" });
    notes.push({ id: "face-down-spooks", text: "Face-down spooks: " + v.face_down_spooks });
    for (const c of v.cards || []) {
      const held = [];
      if (c.snacks.length) held.push(c.snacks.length + " snack" + (c.snacks.length > 1 ? "s" : ""));
      if (c.spooks.length) held.push(c.spooks.map(s => s.kind).join(", "));
      notes.push({ label: c.name, text: c.score + " point" + (c.score === 1 ? "" : "s") + (held.length ? " (" + held.join("; ") + ")" : ""),
                   cls: "score" });
    }
    const legend = [
      // Whose dog is whose, by colour and by the mark on each (a reader who cannot tell the colours apart).
      ...(v.dogs || []).slice().sort((a, b) => a.seat - b.seat).map(d => [(sw, e) => {
        e(sw, "rect", { x: 1, y: 1, width: 22, height: 22, rx: 6, fill: shade(d.colour), stroke: "#000" });
        S.mark(sw, e, 12, 12, 22, seatMarks[d.seat] || "", shade(d.colour)); }, seatMarks[d.seat] + ": " + W.playerName(st, d.seat) + " (" + d.colour + ")"]),
      [(s, e) => square(s, e, 2, 2, 20, "plain"), "grass"],
      [(s, e) => square(s, e, 2, 2, 20, "gravestone"), "gravestone"],
      [(s, e) => square(s, e, 2, 2, 20, "jack_o_lantern"), "jack-o'-lantern"],
      [(s, e) => e(s, "rect", { x: 4, y: 4, width: 16, height: 16, rx: 5, fill: "#e9e6df", stroke: "#000" }), "a dog, in its player's colour"],
      [(s, e) => { e(s, "circle", { cx: 12, cy: 12, r: 10, fill: "#ece6d6", stroke: "#000" });
                   e(s, "text", { x: 12, y: 16, "text-anchor": "middle", "font-size": 10, "font-weight": 700 }, "Sk"); },
       "a spook: Sk skeleton, Ba bat, Ga gargoyle, Gh ghoul"],
      [(s, e) => { e(s, "circle", { cx: 12, cy: 12, r: 10, fill: "#3a2f52", stroke: "#000" });
                   e(s, "text", { x: 12, y: 16, "text-anchor": "middle", "font-size": 11, fill: "#fff" }, "?"); }, "a face-down spook"],
      [(s, e) => e(s, "rect", { x: 7, y: 7, width: 10, height: 10, fill: "#f5a524", stroke: "#000" }), "a snack"],
      [(s, e) => e(s, "rect", { x: 2, y: 2, width: 20, height: 20, fill: "rgba(143,209,143,0.2)", stroke: "#8fd18f", "stroke-width": 2 }), "where you can go: tap it"],
      [(s, e) => { e(s, "circle", { cx: 12, cy: 12, r: 9, fill: "rgba(20,40,20,0.85)", stroke: "#8fd18f", "stroke-width": 2 });
                   e(s, "path", { d: "M7 12h10M12 7v10", stroke: "#8fd18f", "stroke-width": 2 }); }, "where the tile can go: tap to see it there"],
    ];
    let hint = "";
    if (proposal) hint = "The yellow frame shows the tile as it will lie" + (confirmExtra.length ? "; “Turn the tile” turns it." : ".");
    else if (placements.length) hint = "Tap a green + to see the tile there.";
    else if (legal.some((a, i) => handled.has(i))) hint = "Tap a green square.";
    return { handled, hint, notes, legend, confirmExtra };
  };
  // Graveyard Dogs reads no sensor.
  B.renderers.dogs.reads = () => false;
  B.renderers.dogs.layered = true;
})();
