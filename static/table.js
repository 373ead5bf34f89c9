/* Domino online: small page helpers. No game logic lives here.
   Listeners sit on the document, so they keep working after htmx swaps the table. */
(function () {
  "use strict";

  var FEEDBACK_MS = 2000;
  var labels = new WeakMap(); // button -> its own text while it shows "Copied!"
  var timers = new WeakMap();

  function copyBySelection(input) {
    try {
      input.focus();
      input.select();
      input.setSelectionRange(0, input.value.length);
      return document.execCommand("copy");
    } catch (e) {
      return false;
    }
  }

  function showCopied(button) {
    var copied = button.getAttribute("data-copied");
    if (!copied) return;
    if (!labels.has(button)) labels.set(button, button.textContent);
    clearTimeout(timers.get(button));
    button.textContent = copied;
    timers.set(
      button,
      setTimeout(function () {
        button.textContent = labels.get(button);
        labels.delete(button);
        timers.delete(button);
      }, FEEDBACK_MS)
    );
  }

  function copyInvite(button) {
    var scope = button.closest(".invite") || document;
    var input = scope.querySelector("[data-invite]") || document.querySelector("[data-invite]");
    if (!input) return;
    var text = input.value || input.getAttribute("href") || "";
    var fallback = function () {
      if (copyBySelection(input)) showCopied(button);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        showCopied(button);
      }, fallback);
    } else {
      fallback();
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest('[data-action="copy-invite"]');
    if (button) {
      event.preventDefault();
      copyInvite(button);
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "Escape" || event.defaultPrevented) return;
    var selected = document.querySelector('[data-hand] [aria-pressed="true"]');
    if (selected && !selected.disabled) {
      event.preventDefault();
      selected.click(); // asks the server for the table without a selection
    }
  });

  // A pushed table replaces the focused button: put focus back on the one with the same id.
  var focusedId = null;
  document.addEventListener("htmx:wsBeforeMessage", function () {
    var active = document.activeElement;
    focusedId = active && active !== document.body ? active.id || null : null;
  });
  document.addEventListener("htmx:wsAfterMessage", function () {
    if (!focusedId || (document.activeElement && document.activeElement.id === focusedId)) return;
    var again = document.getElementById(focusedId);
    if (again && !again.disabled) again.focus({ preventScroll: true });
    focusedId = null;
  });

  // A reply and a push can cross on the way: never let an older table replace a newer one.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail;
    if (!detail || !detail.target || detail.target.id !== "table") return;
    var incoming = detail.fragment && detail.fragment.querySelector("#table[data-seq]");
    var shown = detail.target.getAttribute("data-seq");
    if (incoming && shown !== null) {
      if (Number(incoming.getAttribute("data-seq")) < Number(shown)) detail.shouldSwap = false;
    }
  });
})();
