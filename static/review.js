// Round review (templates/review.html): the arrow keys step through the round, like the
// page's "Previous move" and "Next move" links. No effect on other pages.
(function () {
  "use strict";

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
    var link = target(event.key);
    if (!link) return;
    event.preventDefault();
    window.location.assign(link.href);
  });
})();
