/* Asking the panel for JSON, one way for every page: with the session's cookie, the CSRF token on a
 * change, and, when there is no answer to read (the panel out of reach, an answer that is not JSON, a
 * refusal), the reason in plain words, so each page says what went wrong the same way. */
(function () {
  "use strict";

  /** One request to the panel. Resolves, never rejects, to { ok, status, data, error }:
   *  ok     the panel answered 2xx with JSON that does not say "ok": false;
   *  status the HTTP status (0: no answer at all);
   *  data   the JSON answer (null when there was none);
   *  error  null when ok, else why: the answer's own "reason" (its plain words), its "error", or what
   *         happened to the request.
   *  opts: { method, body, csrf }. A body that is a string is sent as it is (a document being edited),
   *  anything else as JSON; with a body the method is POST unless opts.method says otherwise. */
  async function request(url, opts) {
    const o = opts || {};
    const headers = { Accept: "application/json" };
    const init = { method: o.method || (o.body === undefined ? "GET" : "POST"), credentials: "same-origin", headers };
    if (o.body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = typeof o.body === "string" ? o.body : JSON.stringify(o.body);
    }
    if (o.csrf) headers["X-CSRF-Token"] = o.csrf;
    let r;
    try {
      r = await fetch(url, init);
    } catch (e) {
      return { ok: false, status: 0, data: null, error: "the panel cannot be reached" };
    }
    let data = null;
    try { data = await r.json(); } catch (e) { /* no JSON: the status says what happened */ }
    const said = data !== null && typeof data === "object" ? data : {};
    const ok = r.ok && data !== null && said.ok !== false;
    const error = ok ? null : String(said.reason || said.error || "the panel answered " + r.status);
    return { ok, status: r.status, data, error };
  }

  // Asked now and then, not at each of the page's tries (every 2 s): a full panel has many pages waiting.
  const ASK_WHY_EVERY_MS = 10000;
  let askedWhyAt = -Infinity;
  /** A live page the panel refused (an HTTP error closes an EventSource, which cannot read why): ask the
   *  panel why and show it in #live-why, or hide it when the panel would let the page in now. Resolves to
   *  { shown, fresh }: whether the words are shown, and whether the panel was asked just now (else the
   *  words stand as last asked). The page tries again by itself; only the words are here. */
  async function showWhyRefused() {
    const box = document.getElementById("live-why");
    if (!box || !box.dataset.url) return { shown: false, fresh: false };
    if (performance.now() - askedWhyAt < ASK_WHY_EVERY_MS) return { shown: !box.hidden, fresh: false };
    askedWhyAt = performance.now();
    const got = await request(box.dataset.url);
    const d = got.data || {};
    const refused = got.status === 200 && d.open === false && typeof d.why === "string";
    let text = "";
    if (refused) {
      const why = d.why.charAt(0).toUpperCase() + d.why.slice(1);
      text = "Live updates are paused. " + why + ". " + (d.status === 429
        ? "Close another page of this panel on this device (a tab or a window): this one goes live again by itself."
        : "This page goes live again by itself as soon as there is room.");
    }
    if (box.textContent !== text) box.textContent = text;
    if (box.hidden === refused) box.hidden = !refused;
    return { shown: refused, fresh: true };
  }
  /** The page's stream is open again: its words go, and a refusal later is asked about at once. */
  function hideWhyRefused() {
    askedWhyAt = -Infinity;
    const box = document.getElementById("live-why");
    if (box && !box.hidden) box.hidden = true;
  }

  window.GKApi = { request, showWhyRefused, hideWhyRefused };
})();
