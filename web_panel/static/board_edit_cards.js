/* The Terror card mix: how many copies of each card, within the deck's size. Every card the engine knows
 * has a row (the page carries the catalogue), so a card the file leaves out, or one set to 0 and saved,
 * can be put back. A card's copies share its words; each copy gets its own id (the first keeps the card's). */
(function () {
  "use strict";
  const E = window.GKEditors;
  const DECK_SIZE = 36;
  const FIELDS = ["id", "kind", "effect", "title", "text", "steps"];

  const wordsOf = card => JSON.stringify([card.kind, card.effect, card.title, card.text, card.steps || 0]);
  // Only what a deck file holds: a card copied from the catalogue must load as the file's own.
  function fileCard(card) {
    const out = {};
    for (const k of FIELDS) if (card[k] !== undefined) out[k] = card[k];
    return out;
  }

  E["terror-cards"] = function (root, doc, changed) {
    let catalogue = [];
    const source = document.getElementById("card-catalogue");
    if (source) { try { catalogue = JSON.parse(source.textContent); } catch (e) { catalogue = []; } }
    // One row a card: the catalogue's, in its order, then any card of the file it does not know.
    const groups = [];
    for (const entry of catalogue) {
      groups.push({ key: wordsOf(entry.card), card: fileCard(entry.card), kindName: entry.kind_name, count: 0 });
    }
    for (const card of doc.cards) {
      const key = wordsOf(card);
      const g = groups.find(x => x.key === key);
      if (g) {
        if (g.count === 0 && g.fromFile === undefined) { g.card = fileCard(card); g.fromFile = true; }
        g.count++;
      } else {
        groups.push({ key, card: fileCard(card), kindName: "", count: 1, fromFile: true });
      }
    }
    E.hint(root, "How many of each card your deck holds. The box holds " + DECK_SIZE + " cards; " +
      "every card the referee knows is listed, so set 0 for those your printing does not have.");
    const total = document.createElement("p");
    total.id = "deck-total";
    root.appendChild(total);
    const table = document.createElement("table");
    table.className = "cards-mix";
    root.appendChild(table);
    const rows = [];
    for (const g of groups) {
      const tr = document.createElement("tr");
      const name = document.createElement("td");
      const title = document.createElement("span");
      title.className = "card-title";
      title.textContent = g.card.title;
      name.appendChild(title);
      // Two cards may share a title (Ghostly Push 2 and 3): the timing and a move's length tell them apart.
      const steps = g.card.effect === "move_pawn" && g.card.steps ?
        "moves a pawn " + g.card.steps + (g.card.steps === 1 ? " space" : " spaces") : "";
      const how = [g.kindName, steps].filter(Boolean).join(", ");
      if (how) {
        const line = document.createElement("span");
        line.className = "card-kind";
        line.textContent = " " + how;
        name.appendChild(line);
      }
      name.title = g.card.text;
      const td = document.createElement("td");
      const input = document.createElement("input");
      input.type = "number"; input.min = "0"; input.max = String(DECK_SIZE); input.value = g.count;
      input.dataset.card = g.card.id;
      input.setAttribute("aria-label", "Copies of " + g.card.title + (how ? " (" + how + ")" : ""));
      input.addEventListener("change", () => {
        const n = Math.max(0, Math.min(DECK_SIZE, Math.floor(Number(input.value) || 0)));
        input.value = n;
        g.count = n;
        rebuild();
      });
      td.appendChild(input);
      tr.append(name, td);
      tr.dataset.card = g.card.id;
      table.appendChild(tr);
      rows.push(tr);
    }

    function rebuild() {
      const cards = [], used = new Set();
      // Ids must be unique in the deck: copies add -2, -3...; a clash with another card's id moves on.
      const fresh = base => {
        let id = base, n = 1;
        while (used.has(id)) id = base + "-" + (++n);
        used.add(id);
        return id;
      };
      for (const g of groups) {
        for (let i = 0; i < g.count; i++) cards.push(Object.assign({}, g.card, { id: fresh(g.card.id) }));
      }
      doc.cards = cards;
      showTotal();
      if (cards.length > DECK_SIZE) return;  // more than the box holds: not sent for checking
      changed();
    }
    function showTotal() {
      total.textContent = "Cards in the deck: " + doc.cards.length + " of " + DECK_SIZE + ".";
      total.className = doc.cards.length > DECK_SIZE ? "reply err" : "";
    }
    showTotal();
    return {
      mark(at, message) {
        // The loader points at the card's place in the list: find its row (copies share one).
        const m = /^cards\[(\d+)\]$/.exec((at && at.entry) || "");
        let row = null;
        if (m) {
          const card = doc.cards[Number(m[1])];
          const key = card ? wordsOf(card) : null;
          const g = groups.find(x => x.key === key);
          row = g ? rows[groups.indexOf(g)] : null;
        }
        E.note(row ? table : null, message);
        if (row) row.classList.add("has-error");
      },
    };
  };
})();
