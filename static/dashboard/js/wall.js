// The wall's only script: say when refreshes fail, and keep the last good state on screen.
// htmx does the polling and swapping; this adds no nodes and no listeners per refresh.
(function () {
  "use strict";

  var notice = document.getElementById("wall-connection");
  if (!notice) {
    return; // the "link not valid" page has nothing to refresh
  }
  var lastSuccess = Date.now();
  var offline = false;

  function liveRegion() {
    return document.getElementById("wall-live");
  }

  function dataLabel() {
    var region = liveRegion();
    return (region && region.getAttribute("data-generated-label")) || "";
  }

  var shownLabel = dataLabel();

  function describe() {
    var minutes = Math.floor((Date.now() - lastSuccess) / 60000);
    notice.textContent =
      "Connection lost: showing data from " + shownLabel + " (" + minutes +
      " min old). Retrying…";
  }

  function connectionLost() {
    offline = true;
    describe();
    notice.hidden = false;
    document.body.classList.add("is-offline");
  }

  function connectionBack() {
    offline = false;
    lastSuccess = Date.now();
    shownLabel = dataLabel();
    notice.hidden = true;
    document.body.classList.remove("is-offline");
  }

  document.body.addEventListener("htmx:beforeSwap", function (event) {
    var status = event.detail.xhr.status;
    if (status === 403 || status === 404) {
      // The link was revoked (or never valid): show the server's message, which has no
      // hx-trigger, so the screen stops polling.
      event.detail.shouldSwap = true;
      event.detail.isError = false;
      return;
    }
    if (event.detail.shouldSwap && event.detail.serverResponse.indexOf('id="wall-live"') === -1) {
      // A 200 that is not our fragment (a proxy's page, a login form): keep the last state.
      event.detail.shouldSwap = false;
      connectionLost();
    }
  });

  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (event.target && event.target.id === "wall-live") {
      connectionBack();
    }
  });

  ["htmx:sendError", "htmx:responseError", "htmx:timeout"].forEach(function (name) {
    document.body.addEventListener(name, connectionLost);
  });

  // Keep "N min old" true while nothing arrives.
  window.setInterval(function () {
    if (offline) {
      describe();
    }
  }, 15000);
})();
