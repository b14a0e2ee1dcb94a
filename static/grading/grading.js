// Keyboard grading, save states, the answered count and the phone's jumps between the response
// and the criteria. Progressive enhancement: every control is a real form button or link, so
// the page works without this file; htmx does the saving.
(function () {
  "use strict";
  // Translations from /jsi18n/ (loaded for languages other than English; base.html).
  var gettext = window.gettext || function (text) { return text; };
  var interpolate = window.interpolate || function (format, values) {
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };

  var root = document.getElementById("grading");
  if (!root) return;
  root.classList.add("keyboard"); // buttons show their keys
  var currentId = null;
  var rationaleFor = null; // id of a criterion whose rationale gets the focus once it is swapped

  // Only criteria that take an answer are steps (those that do not apply have no buttons).
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
    if (isAdverse(step, button) && area && !area.value.trim()) {
      rationaleFor = step.id; // say why: focus the rationale after the save
    } else {
      move(1);
    }
  }

  // Fail on a criterion, Present on a penalty: the finding that needs a rationale.
  function isAdverse(step, button) {
    var penalty = step.classList.contains("is-penalty");
    return button.value === (penalty ? "pass" : "fail");
  }

  function isTyping(target) {
    return target.closest("textarea, input, select, [contenteditable]") !== null;
  }

  // ----- answered count and save states ---------------------------------------------------
  var count = document.getElementById("answered-count");
  function recount() {
    if (!count) return;
    var answered = root.querySelectorAll("[data-step].answered").length;
    count.querySelector("strong").textContent = String(answered);
  }

  function stepOf(element) { return element && element.closest && element.closest("[data-step]"); }

  function showState(step, text, kind) {
    var state = step && step.querySelector(".save-state");
    if (!state) return;
    state.className = "save-state " + kind;
    state.textContent = text;
    if (kind === "failed") {
      var retry = document.createElement("button");
      retry.type = "button";
      retry.className = "secondary retry";
      retry.textContent = gettext("Retry");
      retry.addEventListener("click", function () { resend(step); });
      state.appendChild(retry);
    }
  }

  // What each criterion last sent, so "Retry" sends the same again.
  var lastSent = {};
  document.body.addEventListener("htmx:configRequest", function (event) {
    var step = stepOf(event.detail.elt);
    if (step) lastSent[step.id] = event.detail.triggeringEvent && event.detail.triggeringEvent.submitter;
  });
  function resend(step) {
    var form = step.querySelector("form");
    var button = lastSent[step.id];
    if (button && document.contains(button)) button.click();
    else if (form) form.requestSubmit();
  }

  document.body.addEventListener("htmx:beforeRequest", function (event) {
    var step = stepOf(event.detail.elt);
    if (step) showState(step, gettext("Saving…"), "saving");
  });
  function failed(event) {
    var step = stepOf(event.detail.elt);
    if (step && document.contains(step)) showState(step, gettext("Not saved"), "failed");
  }
  document.body.addEventListener("htmx:responseError", failed);
  document.body.addEventListener("htmx:sendError", failed);

  // ----- submitting asks first ------------------------------------------------------------
  var confirmDialog = document.getElementById("submit-confirm");
  var submitForm = document.getElementById("submit-form");
  function askToSubmit() {
    var submit = document.getElementById("submit-button");
    if (!submit) return;
    if (!confirmDialog || !submitForm) { submit.click(); return; } // "Next response"
    var total = count ? count.getAttribute("data-total") : "";
    var answered = root.querySelectorAll("[data-step].answered").length;
    document.getElementById("submit-confirm-count").textContent =
      interpolate(gettext("%(answered)s of %(total)s answered. Your grades are saved either way."),
        {answered: answered, total: total}, true);
    confirmDialog.returnValue = "";
    confirmDialog.showModal();
  }
  if (confirmDialog) {
    confirmDialog.addEventListener("close", function () {
      if (confirmDialog.returnValue === "submit" && submitForm) submitForm.requestSubmit();
    });
  }

  // ----- keyboard ---------------------------------------------------------------------------
  var help = document.getElementById("keyboard-help");
  var helpButton = document.getElementById("keyboard-help-button");
  function showHelp() { if (help && !help.open) help.showModal(); }
  if (helpButton) {
    helpButton.hidden = false;
    helpButton.addEventListener("click", showHelp);
  }

  // Letters typed outside a box are someone typing where they think a box is: they never act.
  // A key that changes something (a verdict, a rating, the rationale, submitting) waits a
  // moment, and any other letter typed meanwhile cancels it and rests the shortcuts until the
  // typing stops; moving between criteria and the help act at once.
  var AT_ONCE = /^(j|k|\?|ArrowDown|ArrowUp)$/;
  var ACTING = /^[pfanrs0-9]$/;
  var WAIT_MS = 400; // longer than the gap between two letters of a word, even typed slowly
  var PAUSE_MS = 1500;
  var pending = null;
  var pausedUntil = 0;
  var pauseTimer = null;
  var note = null;

  function pause() {
    if (pending) { clearTimeout(pending); pending = null; }
    pausedUntil = Date.now() + PAUSE_MS;
    if (!note) {
      note = document.createElement("p");
      note.className = "typing-note notice-inline";
      note.setAttribute("role", "status");
      note.textContent = gettext("Typing outside a text box: shortcuts rest until you stop. Press r to write the rationale.");
      document.getElementById("criteria-pane").prepend(note);
    }
    clearTimeout(pauseTimer);
    pauseTimer = setTimeout(function () {
      if (note) { note.remove(); note = null; }
    }, PAUSE_MS);
  }

  function act(key) {
    if (key === "j" || key === "ArrowDown") move(1);
    else if (key === "k" || key === "ArrowUp") move(-1);
    else if (key === "?") showHelp();
    else if (key === "r") {
      var area = current() && current().querySelector("textarea:not([disabled])");
      if (area) area.focus();
    } else if (key === "s") askToSubmit();
    else choose(key);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if ((help && help.open) || (confirmDialog && confirmDialog.open)) return;
    if (isTyping(event.target)) {
      if (event.key === "Escape") {
        var step = event.target.closest("[data-step]");
        event.target.blur(); // blurring saves the rationale (htmx "change")
        if (step) select(step, true);
      }
      return;
    }
    var key = event.key;
    var printable = key.length === 1 && key !== " ";
    if (printable && (Date.now() < pausedUntil || pending || !(ACTING.test(key) || AT_ONCE.test(key)))) {
      pause();
      event.preventDefault();
      return;
    }
    if (AT_ONCE.test(key)) {
      act(key);
    } else if (ACTING.test(key)) {
      pending = setTimeout(function () { pending = null; act(key); }, WAIT_MS);
    } else {
      return;
    }
    event.preventDefault();
  });

  root.addEventListener("focusin", function (event) {
    var step = event.target.closest("[data-step]");
    if (step && step.id !== currentId) select(step, false);
  });

  root.addEventListener("click", function (event) {
    var step = event.target.closest("[data-step]");
    if (step) select(step, false);
  });

  // A save swaps the criterion's element: put the marker and the focus back on the new one.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    recount();
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

  // ----- one column: from the criteria to the response and back, each at its place ---------
  var places = {};
  function scrolledTo(name, element) {
    var top = places[name];
    if (top === undefined) {
      element.scrollIntoView({ block: "start" });
    } else {
      window.scrollTo(0, top);
    }
    element.focus({ preventScroll: true });
  }
  Array.prototype.forEach.call(root.querySelectorAll("[data-jump]"), function (link) {
    link.addEventListener("click", function (event) {
      var goingTo = link.getAttribute("data-jump");
      var leaving = goingTo === "response" ? "criteria" : "response";
      var target = document.getElementById(goingTo === "response" ? "response" : "rubric");
      if (!target) return;
      event.preventDefault();
      places[leaving] = window.scrollY;
      scrolledTo(goingTo, goingTo === "criteria" && current() ? current() : target);
    });
  });

  var first = steps().filter(function (s) { return !s.classList.contains("answered"); })[0];
  select(first || steps()[0], false);
})();
