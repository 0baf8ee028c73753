/* The new-game form's choice of the owners' own boards: one list per kind of file of the chosen game.
 * The chosen files are fetched as options (the documents themselves), so the game keeps the board it
 * started with whatever later happens to the file. */
(function () {
  "use strict";
  const box = document.getElementById("ng-boards");
  const gameSelect = document.getElementById("ng-game");
  if (!box || !gameSelect) return;
  let kinds = {};

  function show() {
    for (const label of box.querySelectorAll("label")) label.hidden = label.dataset.game !== gameSelect.value;
  }

  async function load() {
    const got = await window.GKApi.request(box.dataset.list);
    if (!got.ok) return;
    kinds = got.data.kinds || {};
    box.textContent = "";
    for (const key of Object.keys(kinds)) {
      const k = kinds[key];
      const label = document.createElement("label");
      label.dataset.game = k.game;
      label.textContent = k.title + " ";
      const sel = document.createElement("select");
      sel.name = key;
      sel.id = "ng-" + key;
      const def = document.createElement("option");
      def.value = "default"; def.textContent = "the one that comes with the game";
      sel.appendChild(def);
      for (const name of k.names) {
        const o = document.createElement("option");
        o.value = name; o.textContent = name;
        sel.appendChild(o);
      }
      label.appendChild(sel);
      box.appendChild(label);
    }
    show();
  }

  async function options(game) {
    const params = new URLSearchParams();
    for (const sel of box.querySelectorAll("select")) {
      if (kinds[sel.name] && kinds[sel.name].game === game && sel.value !== "default") params.set(sel.name, sel.value);
    }
    if (![...params.keys()].length) return { options: {} };
    const got = await window.GKApi.request(box.dataset.options.replace("GAME", encodeURIComponent(game)) + "?" + params);
    return got.ok ? { options: got.data.options } : { error: "The chosen board cannot be used. " + got.error };
  }

  gameSelect.addEventListener("change", show);
  window.GKNewGameBoards = { options, reload: load };
  load();
})();
