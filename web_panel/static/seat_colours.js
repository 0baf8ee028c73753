/* The colours seats are drawn in, and the mark each seat's pieces carry besides colour.
 *
 * The engines name the physical pawns' colours ("green", "blue"...); drawn as CSS's named colours, red and
 * green (and Terror's green and orange) look alike to the one man in twelve with a red-green deficiency.
 * These display colours stay apart under protanopia, deuteranopia and tritanopia (CIEDE2000 of 20 and
 * more between any two seats of a game, and from the cells they stand on: tests/web_panel/test_seat_colours_cvd.py
 * reads the object between the PALETTE and END comments). Each piece also carries its player's initial. */
(function () {
  "use strict";
  const PALETTE = /*PALETTE*/ {
    "terror": {"green": "#27c19a", "blue": "#2459f0", "orange": "#df8316", "white": "#ffffff"},
    "superstition": {"red": "#e75f45", "blue": "#3270ef", "green": "#60dfbb", "yellow": "#fbff34"},
    "dogs": {"red": "#e75f45", "blue": "#3270ef", "green": "#60dfbb", "yellow": "#fbff34"}
  } /*END*/;

  /** The display colour of a colour name in ``game`` (an unknown name is drawn as it is). */
  function colour(game, name) { return ((PALETTE[game] || {})[name]) || name; }

  /** Black or white, whichever reads better on ``hex`` (WCAG relative luminance). */
  function ink(hex) {
    const m = /^#([0-9a-f]{6})$/i.exec(hex || "");
    if (!m) return "#000";
    const lin = c => { c /= 255; return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    const n = parseInt(m[1], 16);
    const y = 0.2126 * lin(n >> 16) + 0.7152 * lin((n >> 8) & 255) + 0.0722 * lin(n & 255);
    return (y + 0.05) / 0.05 > 1.05 / (y + 0.05) ? "#000" : "#fff";
  }

  /** Each player's mark: the initial, or as many first letters as tell apart players who share it. */
  function marks(names) {
    const list = (names || []).map(n => Array.from(String(n || "?").trim() || "?"));
    return list.map((chars, i) => {
      for (let k = 1; k <= 3; k++) {
        const p = chars.slice(0, k).join("").toLowerCase();
        if (list.every((o, j) => j === i || o.slice(0, k).join("").toLowerCase() !== p)) {
          const s = chars.slice(0, k).join("");
          return s.charAt(0).toUpperCase() + s.slice(1);
        }
      }
      // Three letters alike: the initial and the player's place among those who share it (Al1, Al2).
      const same = list.filter(o => o.slice(0, 2).join("").toLowerCase() === chars.slice(0, 2).join("").toLowerCase());
      return chars.slice(0, 2).join("").replace(/^./, c => c.toUpperCase()) + (same.indexOf(chars) + 1);
    });
  }

  /** The seat's mark written on a piece centred at (x, y) whose fill is ``fill``, ``size`` units across. */
  function mark(g, el, x, y, size, text, fill) {
    const fs = Math.max(7, size * (text.length > 1 ? 0.62 : 0.8));
    return el(g, "text", { class: "seat-mark", x, y: y + fs * 0.36, "text-anchor": "middle", "font-size": fs.toFixed(1),
                           "font-weight": 700, fill: ink(fill), "pointer-events": "none", "aria-hidden": "true" }, text);
  }

  window.GKSeats = { colour, ink, marks, mark, PALETTE };
})();
