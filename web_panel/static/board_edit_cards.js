/* The Terror card mix: how many copies of each card, within the deck's size. A card's copies share its
 * words; each copy gets its own id (the first keeps the original). */
(function () {
  "use strict";
  const E = window.GKEditors;
  const DECK_SIZE = 36;

  E["terror-cards"] = function (root, doc, changed) {
    // Group the deck's cards by their words: one row a card, with its count.
    const groups = [];
    for (const card of doc.cards) {
      const key = JSON.stringify([card.kind, card.effect, card.title, card.text, card.steps || 0]);
      const g = groups.find(x => x.key === key);
      if (g) g.count++; else groups.push({ key, card: Object.assign({}, card), count: 1 });
    }
    const help = document.createElement("p");
    help.className = "hint";
    help.textContent = "How many of each card your deck holds. The box holds " + DECK_SIZE + " cards.";
    root.appendChild(help);
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
      name.textContent = g.card.title;
      const td = document.createElement("td");
      const input = document.createElement("input");
      input.type = "number"; input.min = "0"; input.max = String(DECK_SIZE); input.value = g.count;
      input.dataset.card = g.card.id;
      input.setAttribute("aria-label", "Copies of " + g.card.title);
      input.addEventListener("change", () => {
        const n = Math.max(0, Math.min(DECK_SIZE, Math.floor(Number(input.value) || 0)));
        input.value = n;
        g.count = n;
        rebuild();
      });
      td.appendChild(input);
      tr.append(name, td);
      table.appendChild(tr);
      rows.push(tr);
    }

    function rebuild() {
      const cards = [];
      for (const g of groups) {
        for (let i = 0; i < g.count; i++) {
          cards.push(Object.assign({}, g.card, { id: i === 0 ? g.card.id : g.card.id + "-" + (i + 1) }));
        }
      }
      doc.cards = cards;
      total.textContent = "Cards in the deck: " + cards.length + " of " + DECK_SIZE + ".";
      total.className = cards.length > DECK_SIZE ? "reply err" : "";
      if (cards.length > DECK_SIZE) return;  // more than the box holds: not sent for checking
      changed();
    }
    total.textContent = "Cards in the deck: " + doc.cards.length + " of " + DECK_SIZE + ".";
    return {
      mark(at, message) {
        const m = /cards\[(\d+)\]/.exec(message || "");
        let row = null;
        if (m) {
          const card = doc.cards[Number(m[1])];
          const base = card ? String(card.id).replace(/-\d+$/, "") : null;
          row = rows.find(tr => tr.querySelector("input").dataset.card === base) || null;
        }
        E.note(row ? table : null, message);
      },
    };
  };
})();
