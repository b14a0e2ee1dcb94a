// Keyboard grading, save states, the answered count and the phone's jumps between the response
// and the criteria. Progressive enhancement: every control is a real form button or link, so
// the page works without this file; htmx does the saving.
(function () {
  "use strict";
  // Translations from /jsi18n/ (loaded for languages other than English; base.html).
  // Looked up when used: on the grading page this file may run inline, before the catalog.
  function gettext(text) { return window.gettext ? window.gettext(text) : text; }
  function interpolate(format, values, named) {
    if (window.interpolate) return window.interpolate(format, values, named);
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  }

  var root = document.getElementById("grading");
  if (!root) return;
  root.classList.add("keyboard"); // buttons show their keys
  var currentId = null;

  // Only criteria that take an answer are steps (those that do not apply have no buttons).
  function steps() { return Array.prototype.slice.call(root.querySelectorAll("[data-step]")); }
  function current() { return currentId && document.getElementById(currentId); }

  function select(step, focus) {
    steps().forEach(function (s) { s.classList.remove("current"); });
    if (!step) return;
    currentId = step.id;
    step.classList.add("current");
    if (focus) {
      quietly(function () { step.focus({ preventScroll: true }); });
      step.scrollIntoView({ block: "nearest" });
    }
  }

  function move(delta) {
    var all = steps();
    var index = all.indexOf(current());
    var next = all[Math.min(all.length - 1, Math.max(0, index + delta))];
    select(next, true);
    startTiming(next);
  }

  // ----- time per criterion (docs/grading.md, "Time per criterion") ------------------------
  // A criterion's clock runs from the moment the grader goes to it (keyboard, click, focus)
  // until its verdict is saved or they go to another one; after a verdict, the time until the
  // grader goes to the next criterion is that next criterion's. Only active time counts: none
  // while the tab is hidden, and a stretch without input (key, pointer, scroll) as at most the
  // cap. Reading before the first action on a criterion counts for none. Each save sends the
  // time its criterion gathered since its last save (active_ms); a failed save keeps it.
  var IDLE_CAP_MS = Number(root.getAttribute("data-idle-cap-ms")) || 60000;
  var BETWEEN = " between";
  var timed = null; // id of the step whose clock runs, BETWEEN, or null
  var gathered = {}; // step id -> ms not yet sent
  var sending = {}; // step id -> ms sent with the request under way
  var lastTick = Date.now();
  var lastInput = lastTick;
  var focusingByScript = false;

  function quietly(focus) { focusingByScript = true; try { focus(); } finally { focusingByScript = false; } }

  function tick() {
    var now = Date.now();
    if (timed && !document.hidden) {
      var until = Math.min(now, lastInput + IDLE_CAP_MS);
      gathered[timed] = (gathered[timed] || 0) + Math.max(0, until - lastTick);
    }
    lastTick = now;
  }
  function activity() { tick(); lastInput = lastTick; }
  ["keydown", "pointerdown", "wheel", "input"].forEach(function (name) {
    document.addEventListener(name, activity, true);
  });
  document.addEventListener("scroll", activity, true);
  document.addEventListener("visibilitychange", function () {
    tick();
    lastInput = lastTick; // coming back is input; going away stops the clock (hidden)
  });

  function timesItself(step) { return step && step.querySelector("textarea") && step.id.indexOf("likert-") !== 0; }
  function startTiming(step) {
    tick();
    if (!timesItself(step)) { if (timed !== BETWEEN) timed = null; return; }
    if (timed === BETWEEN) {
      gathered[step.id] = (gathered[step.id] || 0) + (gathered[BETWEEN] || 0);
      gathered[BETWEEN] = 0;
    }
    timed = step.id;
  }

  function choose(key) {
    var step = current();
    var button = step && step.querySelector('button[data-key="' + key + '"]:not([disabled])');
    if (!button) return;
    button.click(); // its click bubbles to the step and selects it: move on afterwards
    var area = step.querySelector("textarea");
    // A finding that needs a reason keeps the marker here, with the focus on the criterion,
    // never in its box: the keys typed next are shortcuts still, and "r" opens the box.
    if (!(isAdverse(step, button) && area && !area.value.trim())) move(1);
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
    if (!step) return;
    var submitter = event.detail.triggeringEvent && event.detail.triggeringEvent.submitter;
    lastSent[step.id] = submitter;
    if (!timesItself(step)) return;
    tick();
    var ms = Math.round((gathered[step.id] || 0) + (sending[step.id] || 0));
    event.detail.parameters.active_ms = String(ms);
    sending[step.id] = ms;
    gathered[step.id] = 0;
    var answer = submitter && (submitter.name === "verdict" || submitter.name === "level");
    if (answer && timed === step.id) timed = BETWEEN; // its verdict (or level) stops its clock
  });
  document.body.addEventListener("htmx:afterRequest", function (event) {
    var step = stepOf(event.detail.elt);
    if (!step || !(step.id in sending)) return;
    if (!event.detail.successful) gathered[step.id] = (gathered[step.id] || 0) + sending[step.id];
    delete sending[step.id];
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
  // Submitting waits for the saves under way: a rationale's box saves as it loses focus (a
  // click on Submit, or Escape just before "s"), and the submission must count that save, not
  // race it to the server and be refused for the rationale it was bringing.
  var SAVES_WAIT_MS = 15000;
  var submitting = false;
  function savesUnderWay() { return root.querySelector(".htmx-request") !== null; }
  if (submitForm) {
    submitForm.addEventListener("submit", function (event) {
      if (submitting) { event.preventDefault(); return; } // already waiting to submit
      if (!savesUnderWay()) return;
      event.preventDefault();
      submitting = true;
      var button = document.getElementById("submit-button");
      if (button) button.setAttribute("aria-busy", "true");
      var giveUpAt = Date.now() + SAVES_WAIT_MS;
      (function wait() {
        if (savesUnderWay() && Date.now() < giveUpAt) setTimeout(wait, 50);
        else submitForm.submit();
      })();
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
  var ACTING = /^[pfanrsx0-9]$/;
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
    else if (key === "x") flagCurrent();
    else choose(key);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if ((help && help.open) || (confirmDialog && confirmDialog.open)) return;
    if (flagDialog && flagDialog.open) return;
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

  // ----- writing a rationale: a mode of its own, shown ------------------------------------
  // While a box has the focus the keys are text, not shortcuts: the box and its criterion
  // say so, with the way out (Esc), so nobody types "kkkkps" into it unawares.
  var typingNote = document.createElement("p");
  typingNote.className = "typing-mode";
  typingNote.id = "typing-mode";
  typingNote.setAttribute("role", "status");
  typingNote.textContent = gettext("Writing: keys type text here. Esc leaves the box and the shortcuts work again.");
  function showTyping(area) {
    var step = area.closest("[data-step]");
    root.classList.add("typing");
    if (step) step.classList.add("writing");
    area.insertAdjacentElement("afterend", typingNote);
  }
  function hideTyping() {
    root.classList.remove("typing");
    Array.prototype.forEach.call(root.querySelectorAll(".writing"), function (s) { s.classList.remove("writing"); });
    typingNote.remove();
  }
  root.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("[data-step] textarea")) showTyping(event.target);
  });
  root.addEventListener("focusout", function (event) {
    if (event.target.matches && event.target.matches("[data-step] textarea")) hideTyping();
  });

  root.addEventListener("focusin", function (event) {
    var step = event.target.closest("[data-step]");
    if (!step) return;
    if (!focusingByScript) startTiming(step);
    if (step.id !== currentId) select(step, false);
  });

  root.addEventListener("click", function (event) {
    var step = event.target.closest("[data-step]");
    if (step) { select(step, false); startTiming(step); }
  });

  // ----- flags: one dialog for the response and each criterion ------------------------------
  var flagDialog = document.getElementById("flag-dialog");
  var flagOpener = null;
  function openFlag(link) {
    var form = document.getElementById("flag-form");
    if (!flagDialog || !form || !link) return;
    var criterion = link.getAttribute("data-flag") || "";
    form.querySelector("#flag-criterion").value = criterion;
    form.querySelector("#flag-target").textContent = link.getAttribute("data-flag-label");
    var unclear = form.querySelector('[data-kind="criterion_unclear"]');
    if (unclear) {
      unclear.hidden = !criterion;
      var radio = unclear.querySelector("input");
      if (!criterion && radio) radio.checked = false;
      else if (criterion && radio && !form.querySelector(".flag-kinds input:checked")) radio.checked = true;
    }
    var sent = form.querySelector("#flag-sent");
    if (sent) sent.remove();
    flagOpener = link;
    flagDialog.showModal();
    var first = form.querySelector(".flag-kinds input:checked") || form.querySelector(".flag-kinds label:not([hidden]) input");
    if (first) first.focus();
  }
  function flagCurrent() {
    var step = current();
    var link = step && step.querySelector("a.flag-link");
    var parent = step && step.parentElement && step.parentElement.closest(".per-turn");
    if (!link && parent) link = parent.querySelector(".criterion-head a.flag-link");
    openFlag(link || document.getElementById("flag-response"));
  }
  if (flagDialog) {
    document.addEventListener("click", function (event) {
      var link = event.target.closest && event.target.closest("a.flag-link");
      if (link) { event.preventDefault(); openFlag(link); return; }
      if (event.target.closest && event.target.closest("#flag-cancel")) { event.preventDefault(); flagDialog.close(); }
    });
    flagDialog.addEventListener("close", function () {
      if (flagOpener && document.contains(flagOpener)) quietly(function () { flagOpener.focus(); });
    });
  }

  // A save swaps the criterion's element: put the marker and the focus back on the new one.
  document.body.addEventListener("htmx:afterSettle", function (event) {
    recount();
    var swapped = event.detail.elt;
    if (!swapped || !swapped.id) return;
    if (swapped.id === "flag-form") { // sent: close; refused: the dialog shows why
      if (swapped.querySelector("#flag-sent") && flagDialog && flagDialog.open) flagDialog.close();
      return;
    }
    if (swapped.id === "my-flags") return;
    var step = document.getElementById(swapped.id);
    if (!step) return;
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
