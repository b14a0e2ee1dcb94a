// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  // The translations come from /jsi18n/ (Django's JavaScriptCatalog), loaded for languages other
  // than English; without it the English text stands.
  // Looked up when used: on the grading page this file may run inline, before the catalog.
  function gettext(text) { return window.gettext ? window.gettext(text) : text; }
  function interpolate(format, values, named) {
    if (window.interpolate) return window.interpolate(format, values, named);
    return format.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  }

  // Run from its own URL, this file and the other shared ones are in the browser's cache now:
  // the grading page may link them instead of carrying them inline (see
  // grading/templatetags/inline_assets.py).
  var self = document.currentScript;
  if (self && self.src && self.dataset.assets) {
    document.cookie = "assets=" + self.dataset.assets + "; path=/; max-age=31536000; samesite=lax";
  }

  function notice(text) {
    var box = document.getElementById("notice");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
  }

  // htmx leaves the page as it was on an error it does not swap; say so instead of failing silently.
  document.addEventListener("htmx:responseError", function (event) {
    var status = event.detail.xhr.status;
    if (status === 403) notice(gettext("Your role does not allow this action."));
    else if (status === 404) notice(gettext("That item no longer exists. Reload the page to see the current state."));
    else notice(interpolate(gettext("The server could not complete the request (%(status)s). Nothing was changed; please try again."), {status: status}, true));
  });
  document.addEventListener("htmx:sendError", function () {
    notice(gettext("No connection to the server. Nothing was changed; check your connection and try again."));
  });
  document.addEventListener("htmx:beforeRequest", function () {
    var box = document.getElementById("notice");
    if (box) box.hidden = true;
  });

  // Confirmation without inline scripts: <button data-confirm="Delete 01a?">.
  document.addEventListener("htmx:confirm", function (event) {
    var message = event.target.getAttribute("data-confirm");
    if (!message) return;
    event.preventDefault();
    if (window.confirm(message)) event.detail.issueRequest(true);
  });
  document.addEventListener("submit", function (event) {
    var button = event.submitter;
    var message = button && button.getAttribute("data-confirm");
    if (message && !window.htmx && !window.confirm(message)) {
      event.preventDefault();
    }
  });

  // A criterion form shows its scale fields only while its scoring is ordinal.
  function showScales(root) {
    Array.prototype.forEach.call(root.querySelectorAll('select[name$="scoring_type"]'), function (select) {
      var form = select.form;
      if (!form) return;
      Array.prototype.forEach.call(form.querySelectorAll("[data-scale]"), function (field) {
        var wrapper = field.parentElement;
        if (wrapper && wrapper !== form) wrapper.hidden = select.value !== "ordinal";
      });
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches('select[name$="scoring_type"]')) showScales(event.target.form);
  });
  document.addEventListener("DOMContentLoaded", function () { showScales(document); });
  document.addEventListener("htmx:afterSettle", function (event) { showScales(event.detail.elt); });

  // After a swap, put the keyboard focus where the person's attention should go.
  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.elt.querySelector("[data-autofocus]");
    if (target) target.focus();
  });

  // A table wider than its box scrolls inside it (.table-wrap, see the stylesheet): a box that scrolls is
  // made reachable with Tab so the keyboard can scroll it; one that fits is no extra stop.
  function scrollableTables() {
    document.querySelectorAll(".table-wrap").forEach(function (box) {
      if (box.scrollWidth > box.clientWidth) box.setAttribute("tabindex", "0");
      else box.removeAttribute("tabindex");
    });
  }
  document.addEventListener("DOMContentLoaded", scrollableTables);
  document.addEventListener("htmx:afterSettle", scrollableTables);
  document.addEventListener("toggle", scrollableTables, true);  // a <details> opened
  window.addEventListener("resize", scrollableTables);
})();
