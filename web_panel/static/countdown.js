/* A live countdown of the outcome windows the table waits on: the skull's fall, a trap's outcome.
 *
 * The state says how long a window is (expects[].window_ms, and grace.window_ms for a tomb caught between
 * positions: what is left of its grace when the state was made), not when it opened, so the page counts from
 * when it first saw the window in the state; a state arrives within milliseconds of the window opening,
 * and a page opened in the middle of one counts the whole window again (it says "about"). */
(function () {
  "use strict";
  const seen = new Map();   // window key -> performance.now() when first seen
  const WHAT = { skull_outcome: "Time for the skull to fall", trap_outcome: "Time for the trap to spring",
                 tomb_moving: "Time to finish sliding the tomb" };

  function windows(st) {
    const open = ((st && st.expects) || []).filter(e => e && typeof e.window_ms === "number" && e.window_ms > 0);
    // A tomb caught between positions: the referee's grace before it calls that a mismatch.
    const grace = st && st.grace;
    if (grace && typeof grace.window_ms === "number" && grace.window_ms > 0) open.push(grace);
    return open;
  }

  function tick() {
    const box = document.getElementById("countdown");
    const live = window.gkLive;
    if (!box || !live) return;
    const st = live.state || {};
    const open = st.mismatch ? [] : windows(st);
    const keys = new Set();
    let text = "";
    for (const e of open) {
      const key = (st.game_id || "") + "|" + JSON.stringify(e);
      keys.add(key);
      if (!seen.has(key)) seen.set(key, performance.now());
      const left = Math.max(0, e.window_ms - (performance.now() - seen.get(key))) / 1000;
      const what = WHAT[e.kind] || "Time left";
      text = what + ": " + left.toFixed(1) + " s left";
      box.dataset.left = left.toFixed(1);
    }
    for (const k of [...seen.keys()]) if (!keys.has(k)) seen.delete(k);
    box.hidden = !text;
    box.textContent = text;
  }

  setInterval(tick, 100);
})();
