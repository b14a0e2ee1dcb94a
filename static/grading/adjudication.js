// Keyboard adjudication. Progressive enhancement: the gold verdict is an ordinary form, so the
// page works without this file. The key of each verdict is the one shown on its label (its first
// letter); r writes the note and Esc leaves it; Ctrl+Enter (or Cmd+Enter) records. No letter acts
// while a box has the focus, and Tab always moves on: nothing holds the focus.
(function () {
  "use strict";

  var main = document.getElementById("main");
  if (!main || !document.getElementById("pair")) return;
  main.classList.add("keyboard"); // the keys are shown only where they work

  function form() { return document.querySelector("#pair form.gold-form"); }

  function isTyping(target) {
    return target.closest("textarea, select, [contenteditable], input:not([type=radio])") !== null;
  }

  // Each verdict's radio, by the key its label shows; also announced to assistive technology.
  function choices(gold) {
    var byKey = {};
    gold.querySelectorAll("label.choice").forEach(function (label) {
      var key = label.querySelector("kbd.key");
      var radio = label.querySelector("input[type=radio]");
      if (!key || !radio) return;
      byKey[key.textContent.trim()] = radio;
      radio.setAttribute("aria-keyshortcuts", key.textContent.trim());
    });
    return byKey;
  }

  function label() { var gold = form(); if (gold) choices(gold); }
  label();

  document.addEventListener("keydown", function (event) {
    var gold = form();
    if (!gold) return;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && !event.altKey) {
      event.preventDefault();
      gold.requestSubmit(); // a submit event, which htmx sends
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event.target)) {
      if (event.key === "Escape") {
        event.target.blur();
        var checked = gold.querySelector("input[type=radio]:checked");
        (checked || gold.querySelector("input[type=radio]") || gold).focus();
      }
      return;
    }
    var radio = choices(gold)[event.key];
    if (radio && !radio.disabled) {
      radio.checked = true;
      radio.focus();
    } else if (event.key === "r") {
      var note = gold.querySelector("textarea");
      if (!note) return;
      note.focus();
    } else {
      return;
    }
    event.preventDefault();
  });

  // After a verdict is recorded the next pair is swapped in: label its choices, and start the
  // focus at its heading rather than at the top of the page.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.elt || event.detail.elt.id !== "pair") return;
    label();
    if (document.activeElement && document.activeElement !== document.body) return;
    var heading = document.querySelector("#pair h1");
    if (heading) {
      heading.setAttribute("tabindex", "-1");
      heading.focus({ preventScroll: true });
    }
  });
})();
