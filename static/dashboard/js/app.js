// Lookout's only script: opens the confirmation dialogs htmx loads. Without it (or
// without JS) the same links open a confirmation page, so nothing depends on it.
(function () {
  "use strict";

  function openDialogs(root) {
    root.querySelectorAll("dialog[data-open-on-load]").forEach(function (dialog) {
      if (dialog.open || typeof dialog.showModal !== "function") return;
      dialog.addEventListener("close", function () { dialog.remove(); });
      dialog.showModal();
    });
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    openDialogs(event.detail.target);
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
})();
