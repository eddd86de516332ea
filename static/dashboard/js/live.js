// Live regions poll with plain triggers (`every 5s, lookout:visible from:document`): no
// `[...]` filter, which htmx would have to eval and the Content-Security-Policy forbids.
// This script does what the filters did: no request while the page is hidden (htmx
// keeps its timers, so polling resumes by itself), and one at once when it is shown.
(function () {
  "use strict";

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (document.visibilityState === "hidden") {
      event.preventDefault();
    }
  });

  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      document.dispatchEvent(new CustomEvent("lookout:visible"));
    }
  });
})();
