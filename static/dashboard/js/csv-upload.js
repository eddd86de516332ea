// The CSV validation form: refuse a file over the size limit before it is sent.
// The limit and the message come from the input's data attributes (set by the server).
(function () {
  "use strict";
  function check(input) {
    var max = parseInt(input.dataset.maxBytes, 10);
    var file = input.files && input.files[0];
    var tooLarge = Boolean(file && max && file.size > max);
    input.setCustomValidity(tooLarge ? input.dataset.tooLarge : "");
    var note = document.getElementById(input.id + "-size");
    if (note) {
      note.textContent = tooLarge ? input.dataset.tooLarge : "";
      note.hidden = !tooLarge;
    }
    return !tooLarge;
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("input[type=file][data-max-bytes]")) {
      check(event.target);
    }
  });
  document.addEventListener("submit", function (event) {
    var inputs = event.target.querySelectorAll("input[type=file][data-max-bytes]");
    for (var i = 0; i < inputs.length; i += 1) {
      if (!check(inputs[i])) {
        event.preventDefault();
        inputs[i].reportValidity();
      }
    }
  });
})();
