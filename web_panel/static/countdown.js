/* A live countdown of the outcome windows the table waits on: the skull's fall, a trap's outcome, and a
 * tomb caught between positions (the referee's grace before it calls that a mismatch).
 *
 * The state says what was left of each window when the table made it (expects[].left_ms, grace.left_ms),
 * and live.js knows when that was on this page's clock (the panel's age_ms for a copy it kept), so a page
 * opened or reloaded in the middle of a window counts down what is really left. While the game is paused
 * every timer stands still, and so does the number. A state without left_ms (an older table) is counted
 * from when the page first saw the window (window_ms), as before. */
(function () {
  "use strict";
  const seen = new Map();   // window key -> performance.now() when first seen (the fallback only)
  const WHAT = { skull_outcome: "Time for the skull to fall", trap_outcome: "Time for the trap to spring",
                 tomb_moving: "Time to finish sliding the tomb" };

  function windows(st) {
    const open = ((st && st.expects) || []).filter(e => e && typeof e.window_ms === "number" && e.window_ms > 0);
    const grace = st && st.grace;
    if (grace && typeof grace.window_ms === "number" && grace.window_ms > 0) open.push(grace);
    return open;
  }

  function msLeft(st, e, paused) {
    const made = window.GKLive && window.GKLive.stateMadeAt ? window.GKLive.stateMadeAt(st) : undefined;
    if (typeof e.left_ms === "number" && made !== undefined) {
      return paused ? e.left_ms : e.left_ms - (performance.now() - made);
    }
    const key = (st.game_id || "") + "|" + e.kind + "|" + JSON.stringify(e.accepts || e.sensors || null);
    if (!seen.has(key)) seen.set(key, performance.now());
    return { key, ms: e.window_ms - (performance.now() - seen.get(key)) };
  }

  function tick() {
    const box = document.getElementById("countdown");
    const live = window.gkLive;
    if (!box || !live) return;
    const st = live.state || {};
    const open = st.mismatch ? [] : windows(st);
    const paused = !!(st.gm && st.gm.paused);
    const keys = new Set();
    let text = "";
    for (const e of open) {
      let ms = msLeft(st, e, paused);
      if (typeof ms === "object") { keys.add(ms.key); ms = ms.ms; }
      const left = Math.max(0, ms) / 1000;
      const what = WHAT[e.kind] || "Time left";
      text = what + ": " + left.toFixed(1) + " s left" + (paused ? ", stopped while the game is paused" : "");
      box.dataset.left = left.toFixed(1);
    }
    for (const k of [...seen.keys()]) if (!keys.has(k)) seen.delete(k);
    box.hidden = !text;
    box.textContent = text;
  }

  setInterval(tick, 100);
})();
