/* The Terror board editor: pick a type, tap spaces to paint it. The board is drawn by the board page's
 * own renderer (board_terror.js) for the tomb positions chosen above it; a space on a sliding platform
 * is set for the position its tomb is shown at, so each platform is edited at each of its three stops. */
(function () {
  "use strict";
  const E = window.GKEditors;
  const LAYOUT = { ".": "grass", "#": "bush", g: "g", p: "potion", E: "entrance", X: "exit", S: "gate", C: "crypt" };
  const STATIC_CHAR = { grass: ".", bush: "#", g: "g", potion: "p" };
  const FIXED = { entrance: "the Entrance", exit: "the Exit", gate: "the Gate platform", crypt: "the Crypt platform" };
  const TYPES = [["grass", "Grass"], ["g", "G space"], ["potion", "Magic Potion"], ["hand", "Skeleton Hand"],
                 ["bush", "Bushes"], ["pit", "Pit"], ["arrow-red", "Red arrow"], ["arrow-purple", "Purple arrow"],
                 ["arrow-gold", "Gold arrow"], ["danger", "Danger (platform's colour)"]];
  const POSITIONS = [["end_a", "one end"], ["middle", "the middle"], ["end_b", "the other end"]];
  const NAMES = { mummy: "Mummy", monster: "Monster", wolf: "Wolf" };

  E["terror-board"] = function (root, doc, changed) {
    let paint = "bush", mark = null;
    const tombs = {};
    for (const p of doc.platforms) tombs[p.tomb] = "end_a";

    E.hint(root, "Choose a type, then tap the spaces that show it on your board. A space on a sliding " +
      "platform changes as its tomb slides: set where each tomb stands, then paint what shows there.");
    E.palette(root, TYPES, paint, v => { paint = v; });
    const stops = document.createElement("div");
    for (const p of doc.platforms) {
      const label = document.createElement("label");
      label.textContent = "The " + (NAMES[p.tomb] || p.tomb) + " tomb (" + p.colour + " platform) stands at ";
      const sel = document.createElement("select");
      sel.dataset.tomb = p.tomb;
      for (const [v, words] of POSITIONS) {
        const o = document.createElement("option");
        o.value = v; o.textContent = words; sel.appendChild(o);
      }
      sel.addEventListener("change", () => { tombs[p.tomb] = sel.value; draw(); });
      label.appendChild(sel);
      stops.appendChild(label);
    }
    root.appendChild(stops);
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 800 600");
    svg.id = "edit-board";
    root.appendChild(svg);
    const local = document.createElement("p");
    local.className = "reply err";
    local.id = "edit-refused";
    root.appendChild(local);

    function where(r, c) {
      const ch = doc.layout[r][c];
      if ("123".includes(ch)) {
        const p = doc.platforms.find(q => String(q.number) === ch);
        const s = p && p.spaces.find(s => s.cell[0] === r && s.cell[1] === c);
        return { platform: p, space: s };
      }
      return { type: LAYOUT[ch] || null };
    }

    function view() {
      const rows = doc.layout.length, cols = doc.layout[0].length;
      const cells = [], platforms = {};
      const found = {};
      for (let r = 0; r < rows; r++) {
        const row = [];
        for (let c = 0; c < cols; c++) {
          const w = where(r, c);
          const t = w.platform ? (w.space ? w.space[tombs[w.platform.tomb]] : "grass") : w.type;
          if (t && FIXED[t]) found[t] = [r, c];
          row.push(t || "");
        }
        cells.push(row);
      }
      for (const p of doc.platforms) {
        platforms[p.tomb] = { number: p.number, colour: p.colour, track: p.track, cells: p.spaces.map(s => s.cell) };
      }
      return { board: { rows, cols, cells, platforms, crypt: found.crypt || [0, 0] }, tombs, players: [],
               skull: {}, draw_count: "", discard_count: "" };
    }

    function draw() {
      window.GKBoards.draw(svg, { game: "terror", view: view(), players: [] }, { legal: [] });
      // The renderer's side column speaks of a game in play; the editor shows only the board.
      for (const t of [...svg.querySelectorAll("text, rect")]) {
        const x = Number(t.getAttribute("x"));
        if (x >= 600) t.remove();
      }
      // The renderer sizes the drawing (and its 44 px hit areas) itself and says where its grid lies.
      const size = Number(svg.dataset.cellSize), ox = Number(svg.dataset.originX), oy = Number(svg.dataset.originY);
      for (const g of svg.querySelectorAll("g.cell")) {
        g.classList.add("clickable");
        const [r, c] = g.dataset.cell.split(",").map(Number);
        g.addEventListener("click", () => tap(r, c));
      }
      if (mark && mark.cell) {
        const box = document.createElementNS("http://www.w3.org/2000/svg", "rect");
        for (const [k, v] of Object.entries({ x: ox + mark.cell[1] * size, y: oy + mark.cell[0] * size, width: size,
                                              height: size, fill: "none", stroke: "#ff8a8a", "stroke-width": 5,
                                              "pointer-events": "none", class: "error-cell",
                                              "data-cell": mark.cell.join(",") })) box.setAttribute(k, v);
        svg.appendChild(box);
      }
    }

    function tap(r, c) {
      local.textContent = "";
      const w = where(r, c);
      if (w.platform) {
        if (!w.space) { local.textContent = "This platform space has no entry in the file."; return; }
        const value = paint === "danger" ? "danger-" + w.platform.colour : paint;
        w.space[tombs[w.platform.tomb]] = value;
      } else if (w.type && FIXED[w.type]) {
        local.textContent = FIXED[w.type] + " stays where it is.";
        return;
      } else if (STATIC_CHAR[paint] !== undefined) {
        const line = doc.layout[r];
        doc.layout[r] = line.slice(0, c) + STATIC_CHAR[paint] + line.slice(c + 1);
      } else {
        local.textContent = "Only a space on a sliding platform can be a Skeleton Hand, a pit, an arrow or a Danger space.";
        return;
      }
      draw();
      changed();
    }

    draw();
    return {
      mark(at, message) {
        mark = at && at.cell ? at : null;
        // A platform space is wrong at one position of its tomb: show the board with the tombs there.
        for (const [tomb, pos] of Object.entries((mark && mark.tombs) || {})) {
          tombs[tomb] = pos;
          const sel = stops.querySelector('select[data-tomb="' + tomb + '"]');
          if (sel) sel.value = pos;
        }
        draw();
        // At the cell, the loader's plain reason (the outline shows where).
        E.note(mark ? svg : null, message);
      },
    };
  };
})();
