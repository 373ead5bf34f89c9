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

  var HAND_TILES = "[data-hand] [data-tile]";

  // Settle at once: until htmx settles, a swapped control keeps its old attributes and does
  // nothing, and a keyboard is quicker than htmx's default 20 ms.
  if (window.htmx) window.htmx.config.defaultSettleDelay = 0;

  function usable(element) {
    if (!element || !element.isConnected || element.disabled) return false;
    return element.getClientRects().length > 0;
  }

  // The hand is a row: Left/Right move between the tiles that can be used, Home/End jump to
  // the first/last; on the hand itself they scroll it. Escape takes back a selected tile.
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "Escape") {
      var selected = document.querySelector('[data-hand] [aria-pressed="true"]');
      if (selected && !selected.disabled) {
        event.preventDefault();
        selected.click(); // asks the server for the table without a selection
      }
      return;
    }
    var moves = { ArrowLeft: -1, ArrowRight: 1, Home: "first", End: "last" };
    var step = moves[event.key];
    var rack = event.target.matches && event.target.matches("[data-hand]") ? event.target : null;
    if (step !== undefined && rack) {
      // The hand itself has focus: the keys scroll it (a tile's width, or to either end).
      var width = rack.querySelector("[data-tile]");
      width = width ? width.getBoundingClientRect().width : 50;
      var left = { first: 0, last: rack.scrollWidth }[step];
      if (left === undefined) left = rack.scrollLeft + step * width;
      event.preventDefault();
      rack.scrollTo({ left: left });
      return;
    }
    var tile = event.target.closest && event.target.closest(HAND_TILES);
    if (step === undefined || !tile) return;
    var tiles = Array.prototype.filter.call(document.querySelectorAll(HAND_TILES), usable);
    if (!tiles.length) return;
    var at = tiles.indexOf(tile);
    var next;
    if (step === "first") next = tiles[0];
    else if (step === "last") next = tiles[tiles.length - 1];
    else next = tiles[Math.min(Math.max(at + step, 0), tiles.length - 1)];
    event.preventDefault();
    if (next && next !== tile) next.focus();
  });

  // Focus after a new table: a swap (a reply or a push) replaces the focused control, so
  // focus goes back to the same control if it is still there; after a tile was chosen it goes
  // to the first end to lay it at; else to a sensible control, never to the page's body.
  var memo = null; // what had focus before the table was replaced
  var wantEnd = false; // the last request asked to choose a tile
  var fixing = false;

  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail && event.detail.elt;
    if (!elt || !elt.closest) return;
    wantEnd = !!elt.closest(HAND_TILES) && elt.getAttribute("aria-pressed") === "false";
  });

  function firstUsable(selectors) {
    for (var i = 0; i < selectors.length; i++) {
      var found = Array.prototype.filter.call(document.querySelectorAll(selectors[i]), usable);
      if (found.length) return found[0];
    }
    return null;
  }

  function fixFocus() {
    fixing = false;
    var before = memo;
    memo = null;
    if (wantEnd) {
      var end = firstUsable(["[data-end]"]);
      if (end) {
        wantEnd = false;
        end.focus();
        return;
      }
    }
    var active = document.activeElement;
    var lost = !active || active === document.body || !active.isConnected;
    if (!before || !before.inside) return; // focus was elsewhere on the page: leave it there
    if (!lost && active.id !== "table") return;
    var same = before.id && before.id !== "table" ? document.getElementById(before.id) : null;
    if (usable(same)) {
      same.focus({ preventScroll: true });
      return;
    }
    var chosen = before.selected ? document.getElementById(before.selected) : null;
    if (!usable(chosen)) {
      chosen = firstUsable([
        '[data-hand] [aria-pressed="true"]',
        "[data-hand] [data-playable]",
        'button[data-action="draw"]', // not a move list's entry, which has data-action too
        'button[data-action="pass"]',
        '#round .new-round [data-action="new-round"]', // after a round: above the result
      ]);
    }
    if (chosen) chosen.focus();
    else {
      var table = document.getElementById("table");
      if (table && document.activeElement !== table) table.focus({ preventScroll: true });
    }
  }

  // Once the whole message is swapped and settled (the new controls work), place focus.
  function settled() {
    if (fixing) fixFocus();
  }
  document.addEventListener("htmx:afterSettle", settled);
  document.addEventListener("htmx:wsAfterMessage", settled);

  var tableSwapped = true; // whether the #table of the message being swapped was taken

  // Where the newest tile lies in a table's line, and which it is ("" for none).
  function newestTile(table) {
    var laid = table.querySelectorAll(".chain .laid");
    var last = table.querySelector(".chain .laid.last");
    if (!last) return "";
    var at = Array.prototype.indexOf.call(laid, last);
    return at + "/" + laid.length + " " + last.getAttribute("data-tile");
  }

  // A long hand shows that it scrolls (issue 29): the rack gets data-more="start"/"end" for
  // the sides with more tiles (the style sheet fades them and shows an arrow there, a
  // picture that lets presses through); the mouse wheel scrolls it sideways; touch, the
  // scroll bar and the keyboard (the hand takes focus: arrows, Home, End) scroll it natively.
  function markHand(area) {
    var hand = area.querySelector("[data-hand]");
    if (!hand) return;
    var more = [];
    if (hand.scrollWidth > hand.clientWidth + 1) {
      if (hand.scrollLeft > 1) more.push("start");
      if (hand.scrollLeft + hand.clientWidth < hand.scrollWidth - 1) more.push("end");
      ["start", "end"].forEach(function (side) {
        if (area.querySelector(".hand-scroll." + side)) return;
        var arrow = document.createElement("span"); // a picture: the tiles under it stay pressable
        arrow.className = "hand-scroll " + side;
        arrow.setAttribute("aria-hidden", "true");
        arrow.textContent = side === "start" ? "\u2039" : "\u203a";
        area.appendChild(arrow);
      });
    }
    if (more.length) area.setAttribute("data-more", more.join(" "));
    else area.removeAttribute("data-more");
  }

  function markHands() {
    Array.prototype.forEach.call(document.querySelectorAll(".hand-area"), markHand);
  }

  document.addEventListener(
    "scroll",
    function (event) {
      var target = event.target;
      if (target && target.matches && target.matches("[data-hand]")) {
        var area = target.closest(".hand-area");
        if (area) markHand(area);
      }
    },
    true
  );

  document.addEventListener(
    "wheel",
    function (event) {
      var hand = event.target.closest && event.target.closest("[data-hand]");
      if (!hand || hand.scrollWidth <= hand.clientWidth + 1) return;
      if (Math.abs(event.deltaY) <= Math.abs(event.deltaX)) return; // already sideways
      event.preventDefault();
      hand.scrollLeft += event.deltaY;
    },
    { passive: false }
  );

  // A long hand stays where it was scrolled when the next table comes (a push, a reply),
  // until the round is over.
  var handScroll = 0;
  document.addEventListener("htmx:oobAfterSwap", function () {
    var rack = document.querySelector("#table:not(.over) [data-hand]"); // a new round: from the start
    if (rack && handScroll) rack.scrollLeft = handScroll;
    handScroll = 0; // once: the table's own swap comes first
  });

  document.addEventListener("htmx:load", markHands);
  document.addEventListener("htmx:oobAfterSwap", markHands);
  window.addEventListener("resize", markHands);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", markHands);
  else markHands();

  // A won match's score sheet (issue 29): its rounds, one row each, read from the room's
  // records (data-record-url, the rounds' public records) under the totals the table drew.
  function fillSheet() {
    var sheet = document.querySelector("[data-match-sheet]:not([data-sheet-filled])");
    var table = document.getElementById("table");
    var url = table && table.getAttribute("data-record-url");
    if (!sheet || !url || !window.fetch) return;
    sheet.setAttribute("data-sheet-filled", "");
    var sides = Array.prototype.map.call(sheet.querySelectorAll("thead [data-sheet-seats]"), function (th) {
      return Number(th.getAttribute("data-sheet-seats").split(",")[0]);
    });
    fetch(url, { credentials: "same-origin" })
      .then(function (answer) {
        return answer.ok ? answer.text() : "";
      })
      .then(function (text) {
        var records = text.split("\n").filter(Boolean).map(function (line) {
          try {
            return JSON.parse(line);
          } catch (e) {
            return null;
          }
        });
        var matched = records.filter(function (r) {
          return r && r.match;
        });
        if (!matched.length) return;
        var number = matched[matched.length - 1].match.number;
        var body = sheet.querySelector("[data-sheet-rounds]");
        if (!body || !sheet.isConnected) return;
        matched
          .filter(function (r) {
            return r.match.number === number;
          })
          .forEach(function (r) {
            var row = document.createElement("tr");
            row.setAttribute("data-sheet-round", r.match.round);
            var head = document.createElement("th");
            head.scope = "row";
            head.textContent = r.match.round;
            row.appendChild(head);
            sides.forEach(function (seat) {
              var cell = document.createElement("td");
              cell.textContent = r.match.after[seat] - r.match.before[seat];
              row.appendChild(cell);
            });
            body.appendChild(row);
          });
      })
      .catch(function () {
        /* the totals stay, without their rounds */
      });
  }
  document.addEventListener("htmx:load", fillSheet);

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail;
    if (!detail || !detail.target) return;
    var id = detail.target.id;
    if (id === "table") {
      // A reply and a push can cross on the way: never let an older table replace a newer one.
      var incoming = detail.fragment && detail.fragment.querySelector("#table[data-seq]");
      var shown = detail.target.getAttribute("data-seq");
      if (incoming && shown !== null) {
        if (Number(incoming.getAttribute("data-seq")) < Number(shown)) detail.shouldSwap = false;
      }
      tableSwapped = detail.shouldSwap;
      if (!detail.shouldSwap) return;
      // The newest tile of the line is drawn in once: a table showing the same line again
      // (a tile chosen, a refusal, the other seat coming or going) keeps it still.
      if (incoming && newestTile(incoming) === newestTile(detail.target)) {
        incoming.classList.add("settled");
      }
      var rack = detail.target.querySelector("[data-hand]");
      handScroll = rack ? rack.scrollLeft : 0;
      var active = document.activeElement;
      var selected = document.querySelector('[data-hand] [aria-pressed="true"]');
      if (!memo) {
        memo = {
          id: active ? active.id : null,
          inside: !!active && (active === detail.target || detail.target.contains(active)),
          selected: selected ? selected.id : null,
        };
      }
      if (!fixing) {
        fixing = true;
        setTimeout(settled, 250); // in case no settle event comes
      }
    } else if (id === "announce") {
      // The live region comes with its table: not with an outdated one, and not again when
      // nothing new happened (screen readers would repeat it).
      var text = detail.fragment ? detail.fragment.textContent.trim() : "";
      if (!tableSwapped || text === detail.target.textContent.trim()) detail.shouldSwap = false;
    }
  });
})();
