/* Superstition: the brick and stone paths, the pawns, the four traps (cocked or sprung, with their pegs),
 * the Wizard's Tomb and the Whammies placed on the paths. A move is a tap on the space where it lands. */
(function () {
  "use strict";
  const W = window.GKWords, B = window.GKBoards;
  // seat_colours.js: the seats' display colours and marks (a page without it draws the colour names).
  const S = window.GKSeats || { colour: (game, name) => name, marks: names => names.map(() => ""), mark: () => null };
  const shade = name => S.colour("superstition", name);

  function brick(g, el, x, y, s) { return el(g, "rect", { x: x - s, y: y - s, width: 2 * s, height: 2 * s, rx: 3, fill: "#7a3f22", stroke: "#c9794a", "stroke-width": 2 }); }
  function stone(g, el, x, y, s) { return el(g, "circle", { cx: x, cy: y, r: s, fill: "#4a4a4a", stroke: "#b0b0b0", "stroke-width": 2 }); }
  function whammy(g, el, x, y, s) { return el(g, "path", { d: `M${x} ${y - s} l${s} ${s * 1.7} h${-2 * s} z`, fill: "#e5484d", stroke: "#000", "stroke-width": 1.5 }); }
  function trapBox(g, el, x, y, sprung, name) {
    el(g, "rect", { x: x - 50, y: y - 32, width: 100, height: 64, rx: 8, fill: sprung ? "#5e1d1d" : "#26332a",
                    stroke: sprung ? "#e5484d" : "#8fd18f", "stroke-width": 3 });
    if (name) el(g, "text", { x, y: y - 12, "text-anchor": "middle", fill: "#fff", "font-size": 15, "font-weight": 700 }, name);
  }

  // Placing a Whammy is a choice of its own ("Place your Whammy…"): until the player makes it, a tap on the
  // board is a move, and only the move's landings are green. A tap on a destination once placed the Whammy
  // there, on a board where every free space was ringed green alike.
  let placing = false;

  B.renderers.superstition = function (svg, st, ctx, el) {
    const v = st.view, b = v.board, sp = b.spaces;
    const k = 0.57, ox = 15, oy = 12;
    B.size(svg, 600, 600);
    const X = id => ox + sp[id].x * k, Y = id => oy + sp[id].y * k;
    const legal = ctx.legal || [];
    const handled = new Set();
    const walks = v.walks || {};
    const proposal = B.proposal && ["move", "charm_move"].includes(B.proposal.action.kind) ? B.proposal.action : null;

    // The paths and the Wizard's Tomb: the same all game long.
    B.layer(svg, "ground", B.json(b), g => {
      const path = (ids, colour, closed) => {
        const pts = ids.map(id => X(id) + "," + Y(id)).join(" ");
        el(g, closed ? "polygon" : "polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 18, "stroke-linejoin": "round", opacity: 0.3 });
      };
      path(b.brick_path, "#b5653a", true);
      path(b.stone_path, "#9a9a9a", true);
      const t = b.tomb;
      el(g, "rect", { x: ox + (t.x - t.width / 2) * k, y: oy + (t.y - t.height / 2) * k, width: t.width * k, height: t.height * k,
                      rx: 4, fill: "#3d2f4f", stroke: "#8f7fc0", "stroke-width": 2 });
      el(g, "text", { x: ox + t.x * k, y: oy + t.y * k + 5, "text-anchor": "middle", fill: "#fff", "font-size": 13 }, "Tomb");
    });

    // Where a secret Whammy may go (only in the placing player's own legal actions), once they chose to place
    // it; and where a Whammy landed on may be moved to (the only choice of that moment).
    const spots = {};
    const canPlace = legal.some(a => a.kind === "place_whammy" && sp[a.params.space]);
    if (!canPlace) placing = false;
    legal.forEach((a, i) => {
      if (a.kind === "place_whammy") {
        handled.add(i);  // never a button of its own per space: the choice is the button below
        if (placing && sp[a.params.space]) spots[a.params.space] = [a, i];
      } else if (a.kind === "relocate_whammy" && sp[a.params.to]) {
        spots[a.params.to] = [a, i]; handled.add(i);
      }
    });
    const buttons = [];
    if (canPlace && !placing) {
      buttons.push(["whammy-place", "Place your Whammy…", () => { placing = true; B.proposal = null; B.redraw(); }]);
    } else if (placing) {
      buttons.push(["whammy-back", "Back: don't place the Whammy", () => { placing = false; B.proposal = null; B.redraw(); }]);
    }
    // Where each legal move lands: the move is a tap on that space.
    // Two directions may land on the same space (from the start circle both ways reach the gate).
    const landings = {};
    legal.forEach((a, i) => {
      if (!["move", "charm_move"].includes(a.kind)) return;
      if (placing) { handled.add(i); return; }  // while placing, only where the Whammy may go is green
      // A way may offer both (house rule whammy_stop): the stop on the Whammy, or the throw past it with the Charm.
      const w = (a.kind === "charm_move" && (v.charm_walks || {})[a.params.direction]) || walks[a.params.direction];
      if (w && sp[w.to]) { (landings[w.to] = landings[w.to] || []).push([a, i, w]); handled.add(i); }
    });

    // The spaces, and on them where a Whammy may go (green, a tap proposes it): kept while neither changes.
    const spotActs = {};
    for (const id of Object.keys(spots)) spotActs[id] = [spots[id][0], W.action(spots[id][0], st)];
    B.layer(svg, "spaces", B.json(sp) + JSON.stringify(spotActs), layer => {
      for (const id of Object.keys(sp)) {
        const s = sp[id];
        if (s.kind === "platform") continue;
        const g = el(layer, "g", { class: "space" + (spotActs[id] ? " legal" : ""), "data-space": id });
        if (s.kind === "brick") brick(g, el, X(id), Y(id), 13);
        else if (s.kind === "stone") stone(g, el, X(id), Y(id), 13);
        else if (s.kind === "circle") el(g, "circle", { cx: X(id), cy: Y(id), r: 14, fill: "none", stroke: id.split(".")[1] ? shade(id.split(".")[1]) : "#fff", "stroke-width": 4 });
        else el(g, "circle", { cx: X(id), cy: Y(id), r: 7, fill: "#777" });
        if (spotActs[id]) {
          el(g, "circle", { cx: X(id), cy: Y(id), r: 18, fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 4 });
          const [a, label] = spotActs[id];
          const sendLabel = a.kind === "place_whammy" ? "Place it here" : "Move it here";
          B.hit(g, [X(id) - 18, Y(id) - 18, 36, 36], () => B.propose(a, { sendLabel }), label);
        }
      }
    });
    let confirmExtra = [];
    for (const id of Object.keys(landings)) {
      const list = landings[id];
      const [a, , w] = list[0];
      const g = el(svg, "g", { class: "legal walk", "data-walk": list.map(([x]) => x.params.direction).join(" "), "data-space": id });
      el(g, "circle", { cx: X(id), cy: Y(id), r: 19, fill: "rgba(143,209,143,0.3)", stroke: w.charm ? "#c9a0ff" : "#8fd18f", "stroke-width": 4 });
      B.hit(g, [X(id) - 19, Y(id) - 19, 38, 38], () => B.propose(a, { sendLabel: "Move here" }), W.action(a, st));
      // Same space by two different ways: the confirm bar offers the other one.
      const ways = list.filter(([, , x], k) => list.findIndex(([, , y]) => y.path.join() === x.path.join()) === k);
      const at = ways.findIndex(([x]) => proposal && x.params.direction === proposal.params.direction);
      if (proposal && ways.length > 1 && at >= 0) {
        const next = ways[(at + 1) % ways.length][0];
        confirmExtra = [["confirm-other-way", "Go the other way round", () => B.propose(next, { sendLabel: "Move here" })]];
      }
    }
    if (proposal) {
      const w = (proposal.kind === "charm_move" && (v.charm_walks || {})[proposal.params.direction]) || walks[proposal.params.direction];
      const me = (v.players || []).find(p => p.seat === proposal.player);
      if (w && me && sp[me.space]) {
        const ids = [me.space, ...w.path].filter(id => sp[id]);
        const g = el(svg, "g", { class: "preview", "pointer-events": "none" });
        el(g, "polyline", { points: ids.map(id => X(id) + "," + Y(id)).join(" "), fill: "none", stroke: "#ffe066", "stroke-width": 7,
                            "stroke-linejoin": "round", "stroke-linecap": "round" });
        el(g, "circle", { class: "landing", cx: X(w.to), cy: Y(w.to), r: 22, fill: "none", stroke: "#ffe066", "stroke-width": 5 });
        el(g, "circle", { cx: X(w.to), cy: Y(w.to), r: 11, fill: shade(me.colour), stroke: "#000", "stroke-width": 2, opacity: 0.8 });
      }
    }
    const whammyAt = B.proposal && ["place_whammy", "relocate_whammy"].includes(B.proposal.action.kind)
      ? (B.proposal.action.params.space || B.proposal.action.params.to) : null;
    if (whammyAt && sp[whammyAt]) {
      const g = el(svg, "g", { class: "preview whammy-preview", "pointer-events": "none" });
      el(g, "circle", { class: "landing", cx: X(whammyAt), cy: Y(whammyAt), r: 22, fill: "none", stroke: "#ffe066", "stroke-width": 5 });
      whammy(g, el, X(whammyAt), Y(whammyAt) - 4, 12).setAttribute("opacity", "0.8");
    }
    for (const wh of v.whammies || []) {
      if (!sp[wh.space]) continue;
      const g = el(svg, "g", { class: "whammy", "data-space": wh.space });
      whammy(g, el, X(wh.space), Y(wh.space) - 4, 14);
      el(g, "title", {}, "Whammy: " + (wh.name || "a Whammy"));
    }

    // The traps: a platform with two pegs; sprung traps are drawn open.
    for (const name of Object.keys(v.traps || {})) {
      const trap = v.traps[name];
      const plat = (b.platforms[name] || {}).space || name;
      if (!sp[plat]) continue;
      const x = X(plat), y = Y(plat);
      const sprung = trap.state === "sprung";
      const g = el(svg, "g", { class: "trap", "data-trap": name, "data-state": trap.state });
      trapBox(g, el, x, y, sprung, trap.name.replace(/^first /, "1st ").replace(/^second /, "2nd "));
      for (const [peg, dx] of [["a", -24], ["b", 24]]) {
        const state = trap["peg_" + peg];
        const pick = legal.findIndex(a => a.kind === "pull_peg" && a.params.trap === name && a.params.peg === peg);
        const pg = el(g, "g", { class: "peg" + (pick >= 0 ? " legal" : ""), "data-peg": name + "." + peg });
        el(pg, "circle", { cx: x + dx, cy: y + 14, r: 11, fill: state === "pulled" ? "none" : "#d8c38a",
                           stroke: pick >= 0 ? "#8fd18f" : "#d8c38a", "stroke-width": pick >= 0 ? 4 : 2 });
        el(pg, "text", { x: x + dx, y: y + 19, "text-anchor": "middle", "font-size": 13, "font-weight": 700,
                         fill: state === "pulled" ? "#d8c38a" : "#000" }, peg.toUpperCase());
        if (pick >= 0) {
          handled.add(pick);
          B.hit(pg, [x + dx - 24, y - 32, 48, 64], () => ctx.act(legal[pick]), W.action(legal[pick], st));
        }
      }
    }

    // Pawns on their spaces (several on one space are spread out), each with its player's mark.
    const at = {};
    const seatMarks = S.marks((v.players || []).map(p => p.name));
    for (const p of v.players || []) {
      if (!p.space || !sp[p.space]) continue;
      const n = (at[p.space] = (at[p.space] || 0) + 1) - 1;
      const g = el(svg, "g", { class: "pawn", "data-seat": p.seat });
      const cx = X(p.space) - 6 + n * 16, cy = Y(p.space) - 4 + n * 8;
      el(g, "circle", { cx, cy, r: 12, fill: shade(p.colour), stroke: "#000", "stroke-width": 2 });
      S.mark(g, el, cx, cy, 24, seatMarks[(v.players || []).indexOf(p)], shade(p.colour));
      el(g, "title", {}, p.name);
    }

    // Under the board: each player's progress, in words.
    const notes = [];
    for (const p of v.players || []) {
      const bits = [(p.part === 1 ? "on the way in" : "on the way out") + ", on " + W.superSpace(st, p.space)];
      if ((p.zapped_by || []).length) bits.push("zapped by " + p.zapped_by.map(t => "the " + ((v.traps[t] || {}).name || W.humanize(t))).join(" and "));
      if (p.drew_tokens) bits.push("has been to the Wizard's Tomb");
      notes.push({ label: p.name, text: bits.join("; ") + ".", cls: "player-note" });
    }
    if (v.challenge) {
      const trap = (v.traps[v.challenge.trap] || {}).name || "a trap";
      notes.push({ text: "Challenging the " + trap + (v.challenge.peg ? ": peg " + String(v.challenge.peg).toUpperCase() + " named." : "."), cls: "warn" });
    }
    const legend = [
      // Whose pawn is whose, by colour and by the mark on each (a reader who cannot tell the colours apart).
      ...(v.players || []).map((p, i) => [(sw, e) => { e(sw, "circle", { cx: 12, cy: 12, r: 11, fill: shade(p.colour), stroke: "#000" });
                                                       S.mark(sw, e, 12, 12, 22, seatMarks[i], shade(p.colour)); },
                                          seatMarks[i] + ": " + p.name + " (" + p.colour + ")"]),
      [(s, e) => brick(s, e, 12, 12, 9), "brick path (the way in)"],
      [(s, e) => stone(s, e, 12, 12, 9), "stone path"],
      [(s, e) => e(s, "circle", { cx: 12, cy: 12, r: 9, fill: "none", stroke: "#e9e6df", "stroke-width": 3 }), "start circles, outside the gate"],
      [(s, e) => { e(s, "rect", { x: 1, y: 4, width: 22, height: 16, rx: 3, fill: "#26332a", stroke: "#8fd18f", "stroke-width": 2 }); }, "a trap, cocked"],
      [(s, e) => { e(s, "rect", { x: 1, y: 4, width: 22, height: 16, rx: 3, fill: "#5e1d1d", stroke: "#e5484d", "stroke-width": 2 }); }, "a trap, sprung"],
      [(s, e) => { e(s, "circle", { cx: 7, cy: 12, r: 5, fill: "#d8c38a" }); e(s, "circle", { cx: 18, cy: 12, r: 5, fill: "none", stroke: "#d8c38a", "stroke-width": 2 }); },
       "pegs A and B: in, pulled"],
      [(s, e) => whammy(s, e, 12, 13, 9), "a Whammy on the path"],
      [(s, e) => e(s, "circle", { cx: 12, cy: 12, r: 10, fill: "rgba(143,209,143,0.3)", stroke: "#8fd18f", "stroke-width": 3 }), "where you can go: tap it"],
    ];
    let hint = "";
    if (B.proposal && proposal) hint = "The yellow line shows the way. Tap “Move here” to send it.";
    else if (whammyAt) hint = "The yellow ring shows where the Whammy goes. Tap “" + (B.proposal.sendLabel || "Yes, do it") + "” to send it.";
    else if (placing) hint = "Tap a green space to place your Whammy there.";
    else if (Object.keys(landings).length) hint = "Tap a green space to move there.";
    else if (Object.keys(spots).length) hint = "Tap a green space to move the Whammy there.";
    else if (legal.some(a => a.kind === "pull_peg")) hint = "Name a peg: tap peg A or B of the trap.";
    return { handled, hint, notes, legend, confirmExtra, buttons };
  };
  // Superstition's board draws no sensor: the traps are drawn from the game's own view.
  B.renderers.superstition.reads = () => false;
  // The paths and the spaces are parts kept from one drawing to the next; the rest is drawn each time.
  B.renderers.superstition.layered = true;
})();
