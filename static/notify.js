/* Domino online: a table never lost (issue 29).
   - "Your tables": a table page remembers its room's id in this browser (localStorage; an id
     is the invitation's address, never the seat's secret, which stays in its httpOnly cookie).
     The home page asks each remembered room for its card (GET /r/<room>/yours: the cookie of a
     room's seat is only ever sent under that room's path, and nginx sends the request to the
     room's own shard) and lists what comes back; a room that no longer knows this browser
     answers 404 and is forgotten.
   - The tab's title starts with "Your turn ·" while it is this seat's turn, kept right as the
     server pushes new tables (the words come translated on <title>, templates/room.html).
   - An optional desktop notification on this seat's turn and when someone joins: asked for
     only when the button is pressed, and shown only while the tab is not focused.
   No game logic lives here: everything read comes from the server's own hooks
   (docs/contracts.md: data-turn, data-preview, data-free-seats). */
(function () {
  "use strict";

  var TABLES = "domino.tables"; // localStorage: room ids this browser was seated at, newest last
  var NOTIFY = "domino.notify"; // localStorage: "on" once the player turned notifications on
  var KEEP = 20; // rooms remembered
  var SHOWN = 12; // rooms asked for on the home page
  var ROOM = /\/r\/([A-Za-z0-9_-]{16,64})\/?$/;

  function read(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return null; // storage refused (private mode, a policy): nothing remembered
    }
  }

  function write(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch (e) {
      /* not remembered, nothing else lost */
    }
  }

  function remembered() {
    try {
      var rooms = JSON.parse(read(TABLES) || "[]");
      return Array.isArray(rooms)
        ? rooms.filter(function (room) {
            return typeof room === "string" && /^[A-Za-z0-9_-]{16,64}$/.test(room);
          })
        : [];
    } catch (e) {
      return [];
    }
  }

  function remember(room) {
    var rooms = remembered().filter(function (other) {
      return other !== room;
    });
    rooms.push(room);
    write(TABLES, JSON.stringify(rooms.slice(-KEEP)));
  }

  function forget(room) {
    write(
      TABLES,
      JSON.stringify(
        remembered().filter(function (other) {
          return other !== room;
        })
      )
    );
  }

  // -- the home page: the remembered tables, newest first
  function listTables(section) {
    var list = section.querySelector("[data-your-tables-list]");
    var pattern = section.getAttribute("data-room-url") || "";
    var base = pattern.slice(0, pattern.length - "ROOM".length);
    var rooms = remembered().slice(-SHOWN).reverse();
    if (!list || !base || !rooms.length || !window.fetch) return;
    var slots = rooms.map(function () {
      return null;
    });
    var pending = rooms.length;

    function done() {
      pending -= 1;
      if (pending) return;
      slots.forEach(function (card) {
        if (card) list.appendChild(card);
      });
      if (list.children.length) section.hidden = false;
    }

    rooms.forEach(function (room, index) {
      window
        .fetch(base + room + "/yours", {
          credentials: "same-origin",
          cache: "no-store",
          headers: { Accept: "text/html" },
        })
        .then(function (response) {
          if (response.status === 404) forget(room); // no seat there, or no room any more
          if (!response.ok) return null; // e.g. its shard is down: kept, not shown now
          return response.text();
        })
        .then(function (text) {
          if (text) {
            var holder = document.createElement("template");
            holder.innerHTML = text;
            var card = holder.content.querySelector("[data-your-table]");
            if (card && card.getAttribute("data-room") === room) slots[index] = card;
          }
        })
        .catch(function () {
          /* unreachable now: nothing shown, still remembered */
        })
        .then(done);
    });
  }

  // -- a table page: the title, and what may call for a notification
  var title = document.querySelector("title");

  function tableState() {
    var table = document.getElementById("table");
    if (!table) return null;
    var preview = table.querySelector("[data-preview]");
    var free = table.querySelector("[data-free-seats]");
    return {
      // a preview (seats still free) is nobody's turn yet: the table waits
      mine: !preview && !!table.querySelector('[data-turn="you"]'),
      free: preview ? (free ? Number(free.getAttribute("data-free-seats")) : 1) : 0,
    };
  }

  function retitle(state) {
    if (!title || !state) return;
    var text = title.getAttribute(state.mine ? "data-title-yours" : "data-title");
    if (text && document.title !== text) document.title = text;
  }

  var notifier = document.querySelector("[data-notify]");
  var button = document.getElementById("notify");
  var stateNote = document.getElementById("notify-state");

  function canNotify() {
    return "Notification" in window && typeof window.Notification === "function";
  }

  function notifying() {
    return canNotify() && window.Notification.permission === "granted" && read(NOTIFY) === "on";
  }

  function showSwitch() {
    if (!notifier || !button) return;
    var on = notifying();
    button.setAttribute("aria-pressed", on ? "true" : "false");
    if (stateNote) {
      var blocked = canNotify() && window.Notification.permission === "denied";
      var key = blocked ? "data-text-blocked" : on ? "data-text-on" : "data-text-off";
      stateNote.textContent = stateNote.getAttribute(key) || "";
    }
  }

  function tell(text) {
    if (!text || !notifying() || document.hasFocus()) return;
    try {
      var shown = new window.Notification(document.title, { body: text, tag: "domino-table" });
      shown.onclick = function () {
        window.focus();
        shown.close();
      };
    } catch (e) {
      /* a browser that only notifies from a service worker: nothing shown */
    }
  }

  var last = null;

  function changed() {
    var now = tableState();
    if (!now) return;
    retitle(now);
    if (last && notifier) {
      if (now.free < last.free) tell(notifier.getAttribute("data-text-joined"));
      else if (now.mine && !last.mine) tell(notifier.getAttribute("data-text-turn"));
    }
    last = now;
  }

  function start() {
    var section = document.querySelector("[data-your-tables]");
    if (section) listTables(section);

    var live = document.getElementById("live");
    var found = ROOM.exec(window.location.pathname);
    if (!live) return;
    if (found) remember(found[1]);
    changed();
    // Every table the server sends (a reply, a push over the socket) replaces #table
    // inside #live: look again after each.
    new MutationObserver(changed).observe(live, { childList: true, subtree: true });

    if (notifier && button && canNotify()) {
      notifier.hidden = false;
      showSwitch();
      button.addEventListener("click", function () {
        if (notifying()) {
          write(NOTIFY, null);
          showSwitch();
          return;
        }
        var asked = window.Notification.requestPermission(function (answer) {
          if (answer === "granted") write(NOTIFY, "on");
          showSwitch();
        });
        if (asked && asked.then) {
          asked.then(function (answer) {
            if (answer === "granted") write(NOTIFY, "on");
            showSwitch();
          });
        }
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
