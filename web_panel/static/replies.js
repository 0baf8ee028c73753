/* A refusal's reason comes from the table in the engine's words, which may name a seat by its number, a
 * place by its coordinates or id, or a tomb end by its id ("it is Ann's turn (seat 0)", "(2, -1) is not an
 * empty square", "the Wolf tomb is at end_a"). People read it: say it in their words. */
(function () {
  "use strict";
  const W = window.GKWords;

  function plain(st, text) {
    if (typeof text !== "string") return text;
    const game = (st || {}).game;
    let out = text
      .replace(/\s*\(seat (\d+)\)/g, "")
      .replace(/\bseat (\d+)'s\b/g, (m, n) => W.playerName(st, Number(n)) + "'s")
      .replace(/\bseat (\d+)\b/g, (m, n) => W.playerName(st, Number(n)))
      .replace(/\b(end_a|end_b)\b/g, m => W.tombEnd(m));
    if (game === "terror") out = out.replace(/[[(](-?\d+), (-?\d+)[\])]/g, (m, r, c) => W.terrorCell(st, [Number(r), Number(c)]));
    if (game === "dogs") out = out.replace(/\((-?\d+), (-?\d+)\)/g, (m, x, y) => W.dogsSquare(st, Number(x), Number(y)));
    if (game === "superstition") {
      const spaces = (((st || {}).view || {}).board || {}).spaces || {};
      out = out.replace(/\b([bs]\d+|start\.\w+|tomb\.\w+)\b/g, m => spaces[m] ? W.superSpace(st, m) : m);
    }
    return out;
  }
  W.plain = plain;

  // Every command's reply passes through here before a person reads it (#reply shows it).
  const send = window.GKLive.sendCommand;
  window.GKLive.sendCommand = async function (...args) {
    const reply = await send.apply(this, args);
    if (reply && !reply.ok && typeof reply.error === "string") {
      const said = plain((window.gkLive || {}).state, reply.error);
      if (said !== reply.error) {
        const out = document.getElementById("reply");
        if (out) out.textContent = out.textContent.replace(reply.error, said);
        reply.error = said;
      }
    }
    return reply;
  };
})();
