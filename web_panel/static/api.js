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

  window.GKApi = { request };
})();
