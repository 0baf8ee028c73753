/* Boards drawn as SVG, one renderer a game. Each returns {hint, handled}: the indexes of
 * state.legal it made clickable on the board (the rest become buttons). */
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const W = window.GKWords;

  function el(parent, tag, attrs, text) {
    const e = document.createElementNS(NS, tag);
    for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }

  const renderers = {};

  function draw(svg, state, ctx) {
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    if (!state || !state.game) {
      el(svg, "text", { x: 400, y: 300, "text-anchor": "middle", fill: "#9a98a0", "font-size": 24 }, "No game yet");
      return { handled: new Set() };
    }
    const r = renderers[state.game] || generic;
    try {
      return r(svg, state, ctx, el) || { handled: new Set() };
    } catch (e) {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      generic(svg, state, ctx, el);
      return { handled: new Set(), hint: "The board could not be drawn: " + e.message };
    }
  }

  // Any game without a drawing of its own: its public view as text, so nothing is hidden from the referee.
  function generic(svg, state, ctx, el) {
    const view = state.view || {};
    let y = 30;
    for (const k of Object.keys(view)) {
      el(svg, "text", { x: 16, y, fill: "#e9e6df", "font-size": 15 }, W.humanize(k) + ": " + W.value(view[k]).slice(0, 110));
      y += 22;
      if (y > 590) break;
    }
    return { handled: new Set() };
  }

  // A board keeps a little local choice (the selected pawn, the tile's turn); the page redraws on it.
  window.GKBoards = { draw, renderers, el, generic, redraw: function () {} };
})();
