/* A live countdown of the outcome windows the table waits on: the skull's fall, a trap's outcome, and a
 * tomb caught between positions (the referee's grace before it calls that a mismatch).
 *
 * The state says what was left of each window when the table made it (expects[].left_ms, grace.left_ms),
 * and live.js knows when that was on this page's clock (the panel's age_ms for a copy it kept), so a page
 * opened or reloaded in the middle of a window counts down what is really left. While the game is paused
 * every timer stands still, and so does the number. A state without left_ms (an older table) is counted
 * from when the page first saw the window (window_ms), as before.
 *
 * This is the page's one countdown clock. It wakes when the state changes (live.js says so with a
 * "gk-state" event) and, while a window runs, when the tenth of a second it shows next is due; with no
 * window, or a paused one, it does not run at all. Each change of what it shows is told to the rest of
 * the page as a "gk-countdown" event (detail: the seconds left, or null once no window is shown), which
 * is how effects.js ticks the last seconds without a clock of its own. */
(function () {
  "use strict";
  const seen = new Map();   // window key -> performance.now() when first seen (the fallback only)
  const WHAT = { skull_outcome: "Time for the skull to fall", trap_outcome: "Time for the trap to spring",
                 tomb_moving: "Time to finish sliding the tomb" };
  let timer = null;         // the next draw, while a window runs
  let woken = false;        // a draw is already on its way for this turn of the event loop
  let told = null;          // the seconds last told to the page ("gk-countdown"), null while none is shown

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

  function draw() {
    if (timer !== null) { clearTimeout(timer); timer = null; }
    const box = document.getElementById("countdown");
    const live = window.gkLive;
    if (!box || !live) return;
    const st = live.state || {};
    const open = st.mismatch ? [] : windows(st);
    const paused = !!(st.gm && st.gm.paused);
    const keys = new Set();
    let text = "", left = null, running = 0;
    for (const e of open) {  // the page shows the last window: its number is the one that moves
      let ms = msLeft(st, e, paused);
      if (typeof ms === "object") { keys.add(ms.key); ms = ms.ms; }
      left = (Math.round(Math.max(0, ms) / 100) / 10).toFixed(1);
      text = (WHAT[e.kind] || "Time left") + ": " + left + " s left" + (paused ? ", stopped while the game is paused" : "");
      running = paused ? 0 : ms;
    }
    for (const k of [...seen.keys()]) if (!keys.has(k)) seen.delete(k);
    if (box.textContent !== text) box.textContent = text;
    if (box.hidden !== !text) box.hidden = !text;
    if (left !== null && box.dataset.left !== left) box.dataset.left = left;
    const shown = text ? left : null;
    if (shown !== told) {
      told = shown;
      document.dispatchEvent(new CustomEvent("gk-countdown", { detail: shown === null ? null : Number(shown) }));
    }
    // The number is shown to a tenth, rounded: it next changes once half a tenth more has gone by
    // (the extra millisecond lands the draw just past that moment, never just before it). At 0.0 it
    // cannot change any more, though a few milliseconds may be left.
    const tenths = Math.round(running / 100);
    if (tenths > 0) timer = setTimeout(draw, running - (tenths * 100 - 50) + 1);
  }

  // Several changes in one go (a snapshot sets the state, then the stream's copy) make one draw.
  function wake() {
    if (woken) return;
    woken = true;
    queueMicrotask(() => { woken = false; draw(); });
  }

  document.addEventListener("gk-state", wake);
  wake();
})();
