// English stand-ins for the JavaScript catalog's functions (static/jsi18n/<lang>/djangojs.js,
// loaded just before this file). Only when that catalog is missing do these run: the
// scripts then speak English instead of failing.
(function () {
  "use strict";

  if (typeof window.gettext !== "function") {
    window.gettext = function (text) { return text; };
  }
  if (typeof window.ngettext !== "function") {
    window.ngettext = function (singular, plural, count) { return count === 1 ? singular : plural; };
  }
  if (typeof window.pgettext !== "function") {
    window.pgettext = function (context, text) { return text; };
  }
  if (typeof window.interpolate !== "function") {
    window.interpolate = function (format, values) {
      return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
    };
  }
})();
