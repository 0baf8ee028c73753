/* Superstition: the brick and stone paths, the pawns, the four traps (cocked or sprung, with their pegs),
 * the Wizard's Tomb and the Whammies placed on the paths. */
(function () {
  "use strict";
  const W = window.GKWords;

  window.GKBoards.renderers.superstition = function (svg, st, ctx, el) {
    const v = st.view, b = v.board, sp = b.spaces;
    const k = 0.55, ox = 20, oy = 20;
    const X = id => ox + sp[id].x * k, Y = id => oy + sp[id].y * k;
    const legal = ctx.legal || [];
    const handled = new Set();

    const path = (ids, colour, closed) => {
      const pts = ids.map(id => X(id) + "," + Y(id)).join(" ");
      el(svg, closed ? "polygon" : "polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 16, "stroke-linejoin": "round", opacity: 0.35 });
    };
    path(b.brick_path, "#b5653a", true);
    path(b.stone_path, "#9a9a9a", true);
    const t = b.tomb;
    el(svg, "rect", { x: ox + (t.x - t.width / 2) * k, y: oy + (t.y - t.height / 2) * k, width: t.width * k, height: t.height * k,
                      rx: 4, fill: "#3d2f4f", stroke: "#8f7fc0" });
    el(svg, "text", { x: ox + t.x * k, y: oy + t.y * k + 4, "text-anchor": "middle", fill: "#fff", "font-size": 10 }, "Wizard's Tomb");

    // Where a secret Whammy may go (only in the placing player's own legal actions).
    const spots = {};
    legal.forEach((a, i) => {
      const to = a.kind === "place_whammy" ? a.params.space : a.kind === "relocate_whammy" ? a.params.to : null;
      if (to && sp[to]) { spots[to] = [a, i]; handled.add(i); }
    });

    for (const id of Object.keys(sp)) {
      const s = sp[id];
      if (s.kind === "platform") continue;
      const g = el(svg, "g", { class: "space" + (spots[id] ? " legal" : ""), "data-space": id });
      if (s.kind === "brick") el(g, "rect", { x: X(id) - 12, y: Y(id) - 12, width: 24, height: 24, rx: 3, fill: "#7a3f22", stroke: "#b5653a" });
      else if (s.kind === "stone") el(g, "circle", { cx: X(id), cy: Y(id), r: 12, fill: "#4a4a4a", stroke: "#9a9a9a" });
      else if (s.kind === "circle") el(g, "circle", { cx: X(id), cy: Y(id), r: 12, fill: "none", stroke: id.split(".")[1] || "#fff", "stroke-width": 3 });
      else el(g, "circle", { cx: X(id), cy: Y(id), r: 6, fill: "#555" });
      if (spots[id]) {
        el(g, "circle", { cx: X(id), cy: Y(id), r: 15, fill: "rgba(143,209,143,0.25)", stroke: "#8fd18f", "stroke-width": 3 });
        g.addEventListener("click", () => ctx.act(spots[id][0]));
      }
    }
    for (const w of v.whammies || []) {
      if (!sp[w.space]) continue;
      const g = el(svg, "g", { class: "whammy", "data-space": w.space });
      el(g, "path", { d: `M${X(w.space)} ${Y(w.space) - 14} l12 22 h-24 z`, fill: "#e5484d", stroke: "#000" });
      el(g, "title", {}, "Whammy: " + (w.name || w.whammy));
    }

    // The traps: a platform with two pegs; sprung traps are drawn open.
    for (const name of Object.keys(v.traps || {})) {
      const trap = v.traps[name];
      const plat = (b.platforms[name] || {}).space || name;
      if (!sp[plat]) continue;
      const x = X(plat), y = Y(plat);
      const sprung = trap.state === "sprung";
      const g = el(svg, "g", { class: "trap", "data-trap": name, "data-state": trap.state });
      el(g, "rect", { x: x - 42, y: y - 26, width: 84, height: 52, rx: 8, fill: sprung ? "#5e1d1d" : "#26332a",
                      stroke: sprung ? "#e5484d" : "#8fd18f", "stroke-width": 2 });
      el(g, "text", { x, y: y - 10, "text-anchor": "middle", fill: "#fff", "font-size": 11 }, trap.name);
      el(g, "text", { x, y: y + 3, "text-anchor": "middle", fill: sprung ? "#ffb3b3" : "#b7e4b7", "font-size": 10 }, trap.state);
      for (const [peg, dx] of [["a", -20], ["b", 20]]) {
        const state = trap["peg_" + peg];
        const pick = legal.findIndex(a => a.kind === "pull_peg" && a.params.trap === name && a.params.peg === peg);
        const pg = el(g, "g", { class: "peg" + (pick >= 0 ? " legal" : ""), "data-peg": name + "." + peg });
        el(pg, "circle", { cx: x + dx, cy: y + 15, r: 7, fill: state === "pulled" ? "none" : "#d8c38a",
                           stroke: pick >= 0 ? "#8fd18f" : "#d8c38a", "stroke-width": pick >= 0 ? 3 : 1 });
        el(pg, "text", { x: x + dx, y: y + 18, "text-anchor": "middle", "font-size": 8, fill: "#000" }, peg.toUpperCase());
        if (pick >= 0) { handled.add(pick); pg.addEventListener("click", () => ctx.act(legal[pick])); }
      }
    }

    // Pawns on their spaces (several on one space are spread out).
    const at = {};
    for (const p of v.players || []) {
      if (!p.space || !sp[p.space]) continue;
      const n = (at[p.space] = (at[p.space] || 0) + 1) - 1;
      const g = el(svg, "g", { class: "pawn", "data-seat": p.seat });
      el(g, "circle", { cx: X(p.space) - 8 + n * 10, cy: Y(p.space) - 4 + n * 4, r: 9, fill: p.colour, stroke: "#000", "stroke-width": 2 });
      el(g, "title", {}, p.name);
    }

    // The side: each player's progress.
    let y = 40;
    const sx = 600;
    for (const p of v.players || []) {
      el(svg, "circle", { cx: sx + 8, cy: y - 5, r: 7, fill: p.colour });
      el(svg, "text", { x: sx + 22, y, fill: "#e9e6df", "font-size": 14 }, p.name + ": part " + p.part + (p.leg ? ", " + p.leg : ""));
      y += 18;
      const notes = [];
      if ((p.zapped_by || []).length) notes.push("zapped by " + p.zapped_by.join(", "));
      if (p.drew_tokens) notes.push("has drawn at the Tomb");
      if (notes.length) { el(svg, "text", { x: sx + 22, y, fill: "#9a98a0", "font-size": 12 }, notes.join("; ")); y += 18; }
      y += 8;
    }
    if (v.challenge) el(svg, "text", { x: sx, y: y + 10, fill: "#f5a524", "font-size": 13 }, "Challenge: " + W.value(v.challenge).slice(0, 40));
    const hint = Object.keys(spots).length ? "Click a highlighted space to place your Whammy." :
      (legal.some(a => a.kind === "pull_peg") ? "Name a peg: click peg A or B of the trap." : "");
    return { handled, hint };
  };
})();
