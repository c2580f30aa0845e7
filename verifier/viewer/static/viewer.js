// The viewer's one script. Every page works without it; it only saves clicks:
// a filter applies as soon as it changes, and the compare button of the runs
// list waits until two different runs are picked.
(function () {
  "use strict";
  document.querySelectorAll("form.filters .autosubmit").forEach(function (control) {
    control.addEventListener("change", function () { control.form.submit(); });
  });
  var picker = document.getElementById("diff-picker");
  if (!picker) { return; }
  var button = picker.querySelector("button[type=submit]");
  function picked(name) {
    var chosen = picker.querySelector("input[name=" + name + "]:checked");
    return chosen ? chosen.value : null;
  }
  function update() {
    var a = picked("a"), b = picked("b");
    button.disabled = !(a && b && a !== b);
  }
  picker.addEventListener("change", update);
  update();
})();
