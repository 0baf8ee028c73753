/* Turning events, actions and values into words for people. Shared by every page. */
(function () {
  "use strict";

  const W = {};
  function humanize(key) {
    return String(key).replace(/[_.]+/g, " ").replace(/^\w/, c => c.toUpperCase());
  }

  function playerName(state, seat) {
    const players = (state && state.players) || [];
    if (typeof seat === "number" && players[seat] !== undefined) return players[seat];
    if (seat === null || seat === undefined) return "the board";
    // Seats are counted from 1 wherever a person reads them.
    return typeof seat === "number" ? "player " + (seat + 1) : "a player";
  }

  function value(v, state) {
    if (v === null || v === undefined) return "—";
    if (Array.isArray(v)) {
      // A bare pair is a place on some board: a game's own words name it (words_games.js); never the numbers.
      if (v.length === 2 && v.every(n => typeof n === "number")) return (W.place && W.place(state, v)) || "a place on the board";
      return v.map(x => value(x, state)).join(", ");
    }
    if (typeof v === "object") {
      return Object.keys(v).map(k => humanize(k).toLowerCase() + " " + value(v[k], state)).join(", ");
    }
    if (typeof v === "string" && W.place) return W.place(state, v) || v;
    return String(v);
  }

  // The words of one data object, with seat numbers turned into names.
  function details(data, state) {
    if (!data || typeof data !== "object") return "";
    const parts = [];
    for (const k of Object.keys(data)) {
      if (k === "text" || k === "message" || k === "sentence") continue;
      let v = data[k];
      if ((k === "player" || k === "seat" || k === "by" || k === "target_player" || k === "victim") && typeof v === "number") {
        v = playerName(state, v);
      }
      parts.push(humanize(k).toLowerCase() + ": " + value(v, state));
    }
    return parts.join("; ");
  }

  /** One event as a sentence. Engines may give their own words in data.text. */
  function event(ev, state) {
    const data = ev.data || {};
    const own = data.text || data.message || data.sentence || ev.text;
    if (typeof own === "string" && own) return own;
    const who = typeof data.player === "number" ? playerName(state, data.player) + ": " : "";
    const rest = Object.assign({}, data);
    delete rest.player;
    const extra = details(rest, state);
    return who + humanize(ev.type) + (extra ? " (" + extra + ")" : "");
  }

  /** One legal action as a button label. */
  function action(a, state) {
    const p = a.params || {};
    const bits = Object.keys(p).map(k => humanize(k).toLowerCase() + " " + value(p[k], state));
    return humanize(a.kind) + (bits.length ? ": " + bits.join(", ") : "");
  }

  function ago(t) {
    if (typeof t !== "number") return "never";
    const s = Math.max(0, Date.now() / 1000 - t);
    if (s < 1.5) return "just now";
    if (s < 90) return Math.round(s) + " s ago";
    if (s < 5400) return Math.round(s / 60) + " min ago";
    return Math.round(s / 3600) + " h ago";
  }

  Object.assign(W, { humanize, playerName, value, details, event, action, ago });
  window.GKWords = W;
})();
