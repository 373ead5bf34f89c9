// Round review (templates/review.html): the arrow keys step through the round, like the
// page's "Previous move" and "Next move" links, which htmx follows by swapping the stepping
// region (#review) and pushing its address, without a reload; without htmx the links are
// plain links. Once the analysis comes in (the spinner's poll), the review goes to the first
// costly move, unless the reader has stepped or asked for a step. No effect on other pages.
(function () {
  "use strict";

  var stepped = /[?&]step=/.test(window.location.search);
  var focusWas = null; // the step link that had the focus when a swap began
  var busy = false; // a step asked by a key is on its way
  var queued = []; // keys pressed meanwhile, taken once it has come
  var listOpen = false; // the move list stays open or shut from step to step

  function target(key) {
    if (key === "ArrowLeft") return document.querySelector("[data-review] [data-step-prev]");
    if (key === "ArrowRight") return document.querySelector("[data-review] [data-step-next]");
    return null;
  }

  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) {
      return;
    }
    var active = document.activeElement;
    if (active && active.closest("input, select, textarea, [contenteditable]")) return;
    if (!target(event.key)) return;
    event.preventDefault();
    stepped = true;
    if (busy) {
      // A step is on its way: this key steps on from the step it brings.
      if (queued.length < 8) queued.push(event.key);
      return;
    }
    step(event.key);
  });

  function step(key) {
    var link = target(key);
    if (!link) return;
    if (window.htmx) busy = true;
    link.click(); // htmx swaps the region; without it the link loads the step
  }

  document.addEventListener(
    "click",
    function (event) {
      var link = event.target.closest && event.target.closest("a[href*='step=']");
      if (link && link.closest("[data-review], .review-analysis")) stepped = true;
    },
    true
  );

  document.addEventListener("htmx:afterSettle", function (event) {
    var region = document.getElementById("review");
    if (!region) return;
    var path = (event.detail && event.detail.pathInfo && event.detail.pathInfo.requestPath) || "";
    if (/[?&]step=/.test(path)) {
      busy = false;
      var list = document.getElementById("review-moves");
      if (list) list.open = listOpen;
      // A step link keeps the focus where it was: on the same link of the new region, or on
      // the step's header once that link is gone (the round's first or last move).
      var active = document.activeElement;
      if (focusWas && (!active || active === document.body)) {
        var again = region.querySelector(focusWas);
        var header = document.getElementById("review-step-title");
        if (again) again.focus();
        else if (header) header.focus();
      }
      focusWas = null;
      if (queued.length) step(queued.shift());
      return;
    }
    var ready = document.querySelector("#review-analysis[data-review-ready][data-first-costly]");
    if (stepped || !ready || !window.htmx) return;
    stepped = true;
    var move = ready.getAttribute("data-first-costly");
    if (region.getAttribute("data-step") === move) return;
    var url = window.location.pathname + "?step=" + move;
    window.htmx.ajax("GET", url, { target: "#review", swap: "outerHTML" }).then(function () {
      window.history.replaceState(window.history.state, "", url);
    });
  });

  document.addEventListener(
    "toggle",
    function (event) {
      if (event.target.id === "review-moves") listOpen = event.target.open;
    },
    true
  );

  // A step that failed (the network, the server) lets the keys go again.
  ["htmx:responseError", "htmx:sendError", "htmx:timeout"].forEach(function (name) {
    document.addEventListener(name, function () {
      busy = false;
      queued = [];
    });
  });

  // Which step link had the focus when a swap began (read back once it has settled).
  document.addEventListener("htmx:beforeRequest", function () {
    var active = document.activeElement;
    var region = document.getElementById("review");
    if (!region || !active || !region.contains(active)) return;
    if (active.hasAttribute("data-step-next")) focusWas = "[data-step-next]";
    else if (active.hasAttribute("data-step-prev")) focusWas = "[data-step-prev]";
  });
})();
