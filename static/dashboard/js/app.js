// Opens the confirmation dialogs htmx loads (without it, or without JS, the same links
// open a confirmation page), and lets the keyboard scroll a table wider than the screen.
(function () {
  "use strict";

  function openDialogs(root) {
    root.querySelectorAll("dialog[data-open-on-load]").forEach(function (dialog) {
      if (dialog.open || typeof dialog.showModal !== "function") return;
      var opener = document.activeElement;
      var openerHref = opener && opener.getAttribute ? opener.getAttribute("href") : null;
      dialog.addEventListener("close", function () {
        dialog.remove();
        // A live poll may have replaced the link that opened the dialog: give focus to its
        // successor (same address), or to the page, never lose it to the body.
        if (opener && opener.isConnected) return;
        var successor = openerHref && document.querySelector('a[href="' + CSS.escape(openerHref) + '"]');
        (successor || document.getElementById("main")).focus();
      });
      dialog.showModal();
      // Start on Cancel: a stray Enter must not approve or hide anything.
      var cancel = dialog.querySelector("[data-dialog-close]");
      if (cancel) cancel.focus();
    });
  }

  // A table that scrolls sideways must be reachable by keyboard to be scrolled: it becomes
  // a named, focusable region, and stops being one when it fits again.
  function scrollableTables() {
    document.querySelectorAll(".table-wrap").forEach(function (wrap) {
      if (wrap.scrollWidth > wrap.clientWidth) {
        var caption = wrap.querySelector("caption");
        wrap.setAttribute("tabindex", "0");
        wrap.setAttribute("role", "region");
        wrap.setAttribute("aria-label", caption ? caption.textContent.trim() : window.gettext("Table"));
      } else if (wrap.getAttribute("role") === "region") {
        wrap.removeAttribute("tabindex");
        wrap.removeAttribute("role");
        wrap.removeAttribute("aria-label");
      }
    });
  }

  document.addEventListener("DOMContentLoaded", scrollableTables);
  window.addEventListener("resize", scrollableTables);
  document.addEventListener("toggle", scrollableTables, true); // a <details> opened

  document.addEventListener("htmx:afterSwap", function (event) {
    openDialogs(event.detail.target);
    scrollableTables();
  });

  document.addEventListener("click", function (event) {
    var cancel = event.target.closest("[data-dialog-close]");
    if (!cancel) return;
    var dialog = cancel.closest("dialog");
    if (dialog) {
      event.preventDefault();
      dialog.close();
    }
  });

  // A one-time address (a new wall link) is selected whole when focused, ready to copy.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("input[data-select-on-focus]")) {
      event.target.select();
    }
  });
})();
