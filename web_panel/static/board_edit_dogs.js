/* The dogs tiles editor: the 16 tiles on their 3x3 grids. Tap a square to turn it from plain to
 * Jack-O-Lantern to Gravestone and back. */
(function () {
  "use strict";
  const E = window.GKEditors;
  const NEXT = { ".": "J", J: "G", G: "." };
  const WORDS = { ".": "plain square", J: "Jack-O-Lantern", G: "Gravestone" };
  // Letters, not pictures: every font has them; the colour and the spoken label say the rest.
  const LABEL = { ".": "", J: "J", G: "G" };

  E["dogs-tiles"] = function (root, doc, changed) {
    E.hint(root, "Tap a square to change it: plain, then Jack-O-Lantern, then Gravestone. Each tile has " +
      "one Jack-O-Lantern and at most one Gravestone, as printed on yours.");
    const box = document.createElement("div");
    box.className = "tiles";
    root.appendChild(box);
    const tiles = [];
    doc.tiles.forEach((tile, t) => {
      const card = document.createElement("div");
      card.className = "tile";
      card.dataset.tile = t;
      const name = document.createElement("input");
      name.value = tile.name || tile.id;
      name.setAttribute("aria-label", "Name of tile " + (t + 1));
      name.addEventListener("change", () => { tile.name = name.value; changed(); });
      card.appendChild(name);
      const grid = document.createElement("div");
      grid.className = "grid";
      const size = tile.grid.length;
      grid.style.gridTemplateColumns = "repeat(" + size + ", 44px)";
      for (let r = 0; r < size; r++) {
        for (let c = 0; c < size; c++) {
          const b = document.createElement("button");
          b.type = "button";
          b.className = "sq";
          b.dataset.square = r + "," + c;
          const paint = () => {
            const ch = tile.grid[r][c];
            b.textContent = LABEL[ch] !== undefined ? LABEL[ch] : ch;
            b.title = WORDS[ch] || ch;
            b.setAttribute("aria-label", "Tile " + (t + 1) + ", row " + (r + 1) + ", square " + (c + 1) + ": " + (WORDS[ch] || ch));
            b.dataset.value = ch;
          };
          paint();
          b.addEventListener("click", () => {
            const row = tile.grid[r];
            tile.grid[r] = row.slice(0, c) + (NEXT[row[c]] || ".") + row.slice(c + 1);
            paint();
            changed();
          });
          grid.appendChild(b);
        }
      }
      card.appendChild(grid);
      box.appendChild(card);
      tiles.push(card);
    });
    return {
      mark(at, message) {
        for (const s of root.querySelectorAll(".sq.err")) s.classList.remove("err");
        const card = at && typeof at.tile === "number" ? tiles[at.tile] : null;
        if (card && at.square) {
          const sq = card.querySelector('[data-square="' + at.square.join(",") + '"]');
          if (sq) sq.classList.add("err");
        }
        E.note(card ? card.lastChild : null, message);
      },
    };
  };
})();
