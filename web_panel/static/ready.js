/* The page's ready signal: <html data-ready="1"> once its styles, scripts and fonts have all applied.
 * The "load" event comes after every stylesheet and script of the page; fonts may still be loading then,
 * and they change the size of what is laid out. Anything that measures the page (the browser tests)
 * waits for this, never for a time. */
(function () {
  "use strict";
  function ready() {
    const fonts = document.fonts ? document.fonts.ready : Promise.resolve();
    fonts.then(function () { document.documentElement.dataset.ready = "1"; });
  }
  if (document.readyState === "complete") ready();
  else window.addEventListener("load", ready, { once: true });
})();
