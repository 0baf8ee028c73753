/* Places and dice in a player's words: "the Crypt", "the third brick after the gate", "the top-left square
 * of Lantern Walk". Ids and coordinates stay in the JSON; only these words reach a person. */
(function () {
  "use strict";
  const W = window.GKWords;

  const ORD = ["zeroth", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
               "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth", "sixteenth"];
  function ordinal(n) {
    if (n < ORD.length) return ORD[n];
    const s = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (s[(v - 20) % 10] || s[v] || s[0]);
  }

  // ----- Terror in the Graveyard: a space is named by what is printed on it and the named places near it,
  // never by row and column. The words come with the state (``view.places``, made by place_words in
  // controller/games/terror/words.py): the page looks them up and never works them out itself.
  function terrorCell(st, rc) {
    const places = ((st || {}).view || {}).places;
    if (!Array.isArray(places) || !Array.isArray(rc) || rc.length !== 2) return "a space";
    const row = places[rc[0]];
    const words = Array.isArray(row) ? row[rc[1]] : undefined;
    return typeof words === "string" ? words : "a space not on the board";
  }
  const TOMB_END = { end_a: "end A", middle: "the middle", end_b: "end B" };
  const tombEnd = p => TOMB_END[p] || "an unknown place";
  const tombName = t => W.humanize(t || "?");

  // ----- Superstition: named along the paths from their landmarks, as a player counts spaces.
  function superSpace(st, id) {
    const v = (st || {}).view || {};
    const b = v.board;
    if (!b || typeof id !== "string") return "a space";
    const traps = v.traps || {};
    const trapName = t => "the " + ((traps[t] || {}).name || W.humanize(t));
    if (b.platforms && b.platforms[id]) return trapName(id);
    if (id.startsWith("start.")) return "the " + id.slice(6) + " start circle";
    if (id.startsWith("tomb.")) return "the " + id.slice(5) + " side of the Wizard's Tomb";
    const plats = b.platforms || {};
    const brickAt = {}, stoneAt = {};
    brickAt[b.gate] = "the gate";
    for (const t of Object.keys(plats)) {
      const p = plats[t];
      if (p.brick_entrance) brickAt[p.brick_entrance] = trapName(t);
      if (p.stone_exit) stoneAt[p.stone_exit] = trapName(t);
      if (p.front) stoneAt[p.front] = trapName(t);
    }
    const ring = (b.brick_path || []).includes(id) ? b.brick_path : (b.stone_path || []).includes(id) ? b.stone_path : null;
    if (!ring) return "a space";
    const what = ring === b.brick_path ? "brick" : "stone";
    const marks = ring === b.brick_path ? brickAt : stoneAt;
    if (marks[id]) return what === "brick" && id === b.gate ? "the brick at the gate" :
      "the " + what + (what === "brick" ? " at " : " by ") + marks[id];
    // The nearest landmark behind or ahead, whichever is closer.
    const i = ring.indexOf(id), n = ring.length;
    let best = null;
    for (let d = 1; d < n && !best; d++) {
      const back = ring[(i - d + n) % n], ahead = ring[(i + d) % n];
      if (marks[back]) best = "the " + ordinal(d) + " " + what + " after " + marks[back];
      else if (marks[ahead]) best = "the " + ordinal(d) + " " + what + " before " + marks[ahead];
    }
    return best || "a " + what;
  }
  const DIRECTION = { cw: "clockwise", ccw: "counter-clockwise", in: "onto the platform" };

  // ----- Graveyard dogs: a square is named by the tile it lies on (tiles have names), a spot by its neighbour.
  const ROWS = ["top", "middle", "bottom"], COLS = ["left", "middle", "right"];
  function tileAt(v, x, y) {
    const size = v.tile_size || 3;
    return (v.tiles || []).find(t => x >= t.x && x < t.x + size && y >= t.y && y < t.y + size);
  }
  function dogsSquare(st, x, y) {
    const v = (st || {}).view || {};
    const t = tileAt(v, x, y);
    if (!t) return "a square off the tiles";
    const size = v.tile_size || 3;
    const dx = x - t.x, dy = y - t.y;
    if (size === 3) {
      const r = ROWS[dy], c = COLS[dx];
      const where = r === "middle" && c === "middle" ? "centre" : r === c ? r : r + "-" + c;
      return "the " + where + " square of " + t.name;
    }
    return "a square of " + t.name;
  }
  function dogsSpot(st, x, y) {
    const v = (st || {}).view || {};
    const size = v.tile_size || 3;
    const tiles = v.tiles || [];
    if (!tiles.length) return "the middle of the table";
    const sides = [["right of", size, 0], ["left of", -size, 0], ["below", 0, size], ["above", 0, -size]];
    for (const [word, dx, dy] of sides) {
      const t = tiles.find(t => t.x + dx === x && t.y + dy === y);
      if (t) return word + " " + t.name;
    }
    let near = null, dist = Infinity;
    for (const t of tiles) {
      const d = Math.abs(t.x - x) + Math.abs(t.y - y);
      if (d < dist) { dist = d; near = t; }
    }
    return "near " + near.name;
  }

  // ----- Dice as dice: a small drawing per die, with its value for screen readers.
  const PIPS = { 1: [[1, 1]], 2: [[0, 0], [2, 2]], 3: [[0, 0], [1, 1], [2, 2]], 4: [[0, 0], [0, 2], [2, 0], [2, 2]],
                 5: [[0, 0], [0, 2], [1, 1], [2, 0], [2, 2]], 6: [[0, 0], [0, 2], [1, 0], [1, 2], [2, 0], [2, 2]] };
  const NS = "http://www.w3.org/2000/svg";
  let ruler = null;
  function wordWidth(text) {
    ruler = ruler || document.createElement("canvas").getContext("2d");
    if (!ruler) return text.length * 7;  // wide enough for the widest bold letters
    ruler.font = "700 9px " + getComputedStyle(document.body).fontFamily;
    return ruler.measureText(text).width;
  }
  function die(face, word) {
    const svg = document.createElementNS(NS, "svg");
    const label = String(word || face);
    // A die showing a word ("Monster") is as wide as its word, at a size a person can read: a square
    // die cut the word off at its edges. The word is measured in the page's own bold type (a die is
    // 2em for 30 units, so the type's 9 units are 0.6em).
    const long = !PIPS[face] && label.length > 4;
    const w = long ? Math.ceil(wordWidth(label) + 10) : 30;
    svg.setAttribute("viewBox", `0 0 ${w} 30`);
    if (long) svg.style.width = (2 * w / 30).toFixed(2) + "em";
    svg.setAttribute("class", "die");
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", word || String(face));
    const add = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const k of Object.keys(attrs)) e.setAttribute(k, attrs[k]);
      if (text !== undefined) e.textContent = text;
      svg.appendChild(e);
    };
    add("rect", { x: 1, y: 1, width: w - 2, height: 28, rx: 6, fill: "#f2efe6", stroke: "#000" });
    if (PIPS[face]) for (const [r, c] of PIPS[face]) add("circle", { cx: 8 + c * 7, cy: 8 + r * 7, r: 2.6, fill: "#111" });
    else add("text", { x: w / 2, y: 19, "text-anchor": "middle", "font-size": long ? 9 : 10,
                       fill: "#111", "font-weight": 700 }, label);
    return svg;
  }
  /** The dice of a view, as [face, word] pairs: what the dice show now. */
  function diceOf(view) {
    const d = view.dice;
    if (Array.isArray(d)) return d.filter(n => typeof n === "number").map(n => [n, String(n)]);
    if (d && typeof d === "object") {
      const out = [];
      if (typeof d.number === "number") out.push([d.number, String(d.number)]);
      if (d.symbol) out.push([null, W.humanize(d.symbol)]);
      return out;
    }
    return [];
  }
  /** Fill ``box`` with the dice drawn, or a dash. */
  function drawDice(box, view) {
    box.innerHTML = "";
    const faces = diceOf(view || {});
    if (!faces.length) { box.textContent = "—"; return; }
    for (const [face, word] of faces) box.appendChild(die(face, word));
  }

  /** A sensor's name and value as a person says them (the sensor strip, the virtual board). */
  const SENSOR_VALUE = { end_a: "at end A", middle: "in the middle", end_b: "at end B", armed: "armed", launched: "launched",
                         clear: "clear", blocked: "blocked", in: "in", pulled: "pulled", cocked: "cocked", sprung: "sprung" };
  const TRAP = { ladder: "Ladder", mirror: "Mirror", grave1: "first Grave", grave2: "second Grave" };
  function sensorName(id) {
    const p = String(id).split(".");
    if (p[0] === "tomb" && p[1]) return W.humanize(p[1]) + " tomb";
    if (p[0] === "launcher") return "Ghost launcher";
    if (p[0] === "chute" && p[1]) return W.humanize(p[1]) + " Crypt window";  // as hardware/words.py and the referee say it
    if (p[0] === "trap" && p[1]) {
      const part = { peg_a: "peg A", peg_b: "peg B", sprung: "spring" }[p[2]] || W.humanize(p[2] || "").toLowerCase();
      const trap = TRAP[p[1]] || W.humanize(p[1]);
      return trap.charAt(0).toUpperCase() + trap.slice(1) + (part ? ", " + part : "");
    }
    return W.humanize(id);
  }
  const sensorValue = v => SENSOR_VALUE[v] || W.value(v);
  /** A link of the table's health strip by what a person calls it ("gpio" is the Pi's pins). */
  const LINK = { gpio: "GPIO pins", mcu: "microcontroller", panel: "panel", broker: "broker" };
  // Under --simulate the pins and the microcontroller are the virtual board's: say so, not "GPIO pins".
  const SIMULATED_LINK = { gpio: "virtual board", mcu: "virtual microcontroller" };
  const linkName = (k, simulated) => (simulated && SIMULATED_LINK[k]) || LINK[k] || W.humanize(k);
  /** Where a sensor's reading comes from, in words: the Pi's pins, the microcontroller, the virtual board. */
  const SOURCE = { gpio: "the Pi's pins", mcu: "microcontroller", sim: "virtual board" };
  const sourceName = (s, simulated) => simulated ? "virtual board" : SOURCE[s] || (s ? W.humanize(s) : "");

  Object.assign(W, { ordinal, terrorCell, tombEnd, tombName, superSpace, DIRECTION, dogsSquare, dogsSpot,
                     tileAt, die, diceOf, drawDice, sensorName, sensorValue, linkName, sourceName });
})();
