// Keyboard grading for the grading page. Progressive enhancement: every control is a real form
// button, so the page works without this file; htmx does the saving.
(function () {
  "use strict";

  var root = document.getElementById("grading");
  if (!root) return;
  var currentId = null;
  var rationaleFor = null; // id of a criterion whose rationale gets the focus once it is swapped

  function steps() { return Array.prototype.slice.call(root.querySelectorAll("[data-step]")); }
  function current() { return currentId && document.getElementById(currentId); }

  function select(step, focus) {
    steps().forEach(function (s) { s.classList.remove("current"); });
    if (!step) return;
    currentId = step.id;
    step.classList.add("current");
    if (focus) {
      step.focus({ preventScroll: true });
      step.scrollIntoView({ block: "nearest" });
    }
  }

  function move(delta) {
    var all = steps();
    var index = all.indexOf(current());
    var next = all[Math.min(all.length - 1, Math.max(0, index + delta))];
    select(next, true);
  }

  function choose(key) {
    var step = current();
    var button = step && step.querySelector('button[data-key="' + key + '"]:not([disabled])');
    if (!button) return;
    button.click(); // its click bubbles to the step and selects it: move on afterwards
    var area = step.querySelector("textarea");
    if (key === "f" && area && !area.value.trim()) {
      rationaleFor = step.id; // say why it fails: focus the rationale after the save
    } else {
      move(1);
    }
  }

  function isTyping(target) {
    return target.closest("textarea, input, select, [contenteditable]") !== null;
  }

  var help = document.getElementById("keyboard-help");
  var helpButton = document.getElementById("keyboard-help-button");
  function showHelp() { if (help && !help.open) help.showModal(); }
  if (helpButton) {
    helpButton.hidden = false;
    helpButton.addEventListener("click", showHelp);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (help && help.open) return;
    if (isTyping(event.target)) {
      if (event.key === "Escape") {
        var step = event.target.closest("[data-step]");
        event.target.blur(); // blurring saves the rationale (htmx "change")
        if (step) select(step, true);
      }
      return;
    }
    var key = event.key;
    if (key === "j" || key === "ArrowDown") move(1);
    else if (key === "k" || key === "ArrowUp") move(-1);
    else if (key === "p" || key === "f" || key === "n" || /^[1-5]$/.test(key)) choose(key);
    else if (key === "r") {
      var area = current() && current().querySelector("textarea:not([disabled])");
      if (area) area.focus();
      else return;
    } else if (key === "s") {
      var submit = document.getElementById("submit-button");
      if (submit) submit.click();
      else return;
    } else if (key === "?") showHelp();
    else return;
    event.preventDefault();
  });

  root.addEventListener("click", function (event) {
    var step = event.target.closest("[data-step]");
    if (step) select(step, false);
  });

  // A save swaps the criterion's element: put the marker and the focus back on the new one.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    var swapped = event.detail.elt;
    if (!swapped || !swapped.id) return;
    var step = document.getElementById(swapped.id);
    if (!step) return;
    if (rationaleFor === step.id) {
      rationaleFor = null;
      select(step, false);
      var area = step.querySelector("textarea");
      if (area) area.focus();
      return;
    }
    var active = current();
    if (active) select(active, document.activeElement === document.body || !document.activeElement);
  });

  var first = steps().filter(function (s) { return !s.classList.contains("answered"); })[0];
  select(first || steps()[0], false);
})();
