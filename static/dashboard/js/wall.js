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

  var gettext = window.gettext;
  var ngettext = window.ngettext;
  var pgettext = window.pgettext;

  function format(text, values) {
    return window.interpolate(text, values, true);
  }

  // One unit of a span. Each message is written out in an ngettext call, with the ids
  // of dashboard/lib/vocabulary.py, so makemessages finds it.
  function counted(text, count) {
    return format(text, { count: count });
  }

  function twoUnits(larger, smaller) {
    return format(pgettext("duration", "%(larger)s %(smaller)s"), { larger: larger, smaller: smaller });
  }

  // The words of `duration` and `ago` in dashboard/lib/vocabulary.py, for the one age
  // the screen has to count by itself; a browser test holds the two to the same words.
  function duration(seconds) {
    var whole = Math.floor(seconds);
    if (whole < 1) return gettext("< 1 s");
    if (whole < 60) return counted(ngettext("%(count)s s", "%(count)s s", whole), whole);
    var minutes = Math.floor(whole / 60) % 60;
    var minuteWords = counted(ngettext("%(count)s min", "%(count)s min", minutes), minutes);
    if (whole < 3600) return minuteWords;
    var hours = Math.floor(whole / 3600) % 24;
    var hourWords = counted(ngettext("%(count)s h", "%(count)s h", hours), hours);
    if (whole < 86400) return minutes ? twoUnits(hourWords, minuteWords) : hourWords;
    var days = Math.floor(whole / 86400);
    var dayWords = counted(ngettext("%(count)s day", "%(count)s days", days), days);
    return hours && days < 7 ? twoUnits(dayWords, hourWords) : dayWords;
  }

  function ago(seconds) {
    return seconds < 5
      ? gettext("just now")
      : format(gettext("%(duration)s ago"), { duration: duration(seconds) });
  }

  window.LookoutWall = { duration: duration, ago: ago };

  function describe() {
    notice.textContent = format(
      gettext("Connection lost: showing data from %(time)s (updated %(ago)s). Retrying…"),
      { time: shownLabel, ago: ago((Date.now() - lastSuccess) / 1000) }
    );
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

  // Keep "updated N min ago" true while nothing arrives.
  window.setInterval(function () {
    if (offline) {
      describe();
    }
  }, 15000);
})();
