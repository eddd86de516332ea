// The light / dark / system switch in the header. Loaded without `defer` in <head>, so
// the remembered choice is on <html> before the first paint (no flash of the wrong
// theme); "system" removes it and the CSS follows the browser's prefers-color-scheme.
(function () {
  "use strict";

  var KEY = "lookout-theme";
  var CHOICES = ["light", "dark", "system"];
  var root = document.documentElement;

  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return CHOICES.indexOf(value) >= 0 ? value : "system";
    } catch (error) {
      return "system"; // storage blocked: follow the browser
    }
  }

  function apply(choice) {
    if (choice === "system") root.removeAttribute("data-theme");
    else root.setAttribute("data-theme", choice);
  }

  function remember(choice) {
    try {
      if (choice === "system") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, choice);
    } catch (error) {
      // Not remembered, still applied to this page.
    }
  }

  apply(stored());

  document.addEventListener("DOMContentLoaded", function () {
    var select = document.getElementById("theme-choice");
    if (!select) return;
    select.value = stored();
    // Without this script the switch could do nothing, so it stays hidden until now.
    select.closest("[data-theme-switch]").hidden = false;
    select.addEventListener("change", function () {
      remember(select.value);
      apply(select.value);
    });
  });

  // Another tab changed the theme: follow it.
  window.addEventListener("storage", function (event) {
    if (event.key === KEY) apply(stored());
  });
})();
