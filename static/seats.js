/* Domino online: a player's display name at a table of three or four
   (the name form in templates/partials/table.html), and the folded table settings.
   - A name the player saves is remembered by this browser (localStorage).
   - At a new table where this seat has no name yet, the remembered name is sent once, as soon
     as the table is live (the server refuses actions from a tab whose socket is not open).
   - A name being typed, and whether its box and the table settings are open, survive the
     table's swaps: the table is drawn anew after every move, pushed by the server. Once a
     saved name comes back in the table, its box and the settings close.
   No game logic lives here; nothing here takes focus (static/table.js puts it back). */
(function () {
  "use strict";

  var NAME = "domino.name"; // localStorage: the name to give at new tables ("" for none)
  var SENT = "domino.named"; // localStorage: the rooms it was given to, newest last
  var KEEP = 100; // rooms remembered in SENT
  var LONGEST = 20; // characters, as the server counts them

  function read(key) {
    try {
      return window.localStorage.getItem(key);
    } catch (e) {
      return null; // storage refused (private mode, a policy): nothing remembered
    }
  }

  function write(key, value) {
    try {
      window.localStorage.setItem(key, value);
    } catch (e) {
      /* not remembered, nothing else lost */
    }
  }

  function sentTo() {
    try {
      var rooms = JSON.parse(read(SENT) || "[]");
      return Array.isArray(rooms) ? rooms : [];
    } catch (e) {
      return [];
    }
  }

  function markSent(room) {
    var rooms = sentTo().filter(function (other) {
      return other !== room;
    });
    rooms.push(room);
    write(SENT, JSON.stringify(rooms.slice(-KEEP)));
  }

  /* The name as the server will keep it: one line, spaces collapsed. */
  function tidy(text) {
    return String(text || "").split(/\s+/).filter(Boolean).join(" ");
  }

  // -- saving: the browser remembers what the player gives
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!form || !form.hasAttribute || !form.hasAttribute("data-name-form")) return;
    var name = tidy(form.elements.name.value);
    if (Array.from(name).length <= LONGEST) write(NAME, name);
    markSent(form.getAttribute("data-room"));
  });

  // -- a new table: give it the remembered name, once
  function offer() {
    var form = document.querySelector("[data-name-form][data-live]");
    if (!form || form.getAttribute("data-name")) return;
    var room = form.getAttribute("data-room");
    var name = tidy(read(NAME));
    if (!name || sentTo().indexOf(room) >= 0) return;
    markSent(room);
    form.elements.name.value = name;
    if (form.requestSubmit) form.requestSubmit();
    else if (window.htmx) window.htmx.trigger(form, "submit");
  }

  // -- a draft, the name box's state and the table settings' across a swap of the table
  var kept = null;
  var settingsOpen = null; // whether the folded table settings were open (null: not shown)
  var saving = false; // a name was just submitted: its box closes once the table has it

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form && form.hasAttribute && form.hasAttribute("data-name-form")) saving = true;
  });

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail;
    if (!detail || !detail.target || detail.target.id !== "table") return;
    var box = document.getElementById("my-name-box");
    var input = document.getElementById("my-name");
    var settings = document.getElementById("settings");
    kept = null;
    if (settings) settingsOpen = settings.open;
    if (box && input && input.form) {
      kept = { open: box.open, value: input.value, given: input.form.getAttribute("data-name") };
    }
  });

  function restore() {
    var was = kept;
    kept = null;
    var settings = document.getElementById("settings");
    if (settings && settingsOpen !== null) settings.open = settingsOpen;
    var box = document.getElementById("my-name-box");
    var input = document.getElementById("my-name");
    if (!was || !box || !input || !input.form) return;
    var given = input.form.getAttribute("data-name");
    if (saving && given !== was.given) {
      // Saved: the table holds the new name, so its box (and the settings round it) close.
      saving = false;
      box.open = false;
      if (settings) settings.open = settingsOpen = false;
      return;
    }
    box.open = was.open;
    // A draft goes on being typed, unless the table now holds a name it did not (saved).
    if (was.value !== was.given && given === was.given) {
      input.value = was.value;
    }
  }

  document.addEventListener("htmx:oobAfterSwap", restore);

  // -- the away seats' countdown to the hand-over: each [data-countdown] holds the seconds
  //    left when its table was drawn; it ticks down from the moment this page got it (the
  //    server pushes the hand-over button itself once the time is up).
  var seen = new WeakMap(); // countdown element -> when this page first showed it

  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll("[data-countdown]"), function (el) {
      if (!seen.has(el)) seen.set(el, now);
      var left = Number(el.getAttribute("data-countdown")) - (now - seen.get(el)) / 1000;
      left = Math.max(0, Math.ceil(left));
      var time = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      var text = (el.getAttribute("data-countdown-text") || "{time}").replace("{time}", time);
      if (el.textContent !== text) el.textContent = text;
    });
    tickClock(now);
  }
  // -- a public table's clock (partials/clock.html): its move time, then its bank, counted
  //    down from the seconds the server gave when the table was drawn; on this seat's own
  //    move, screen readers are told once, 5 s before the computer moves for it.
  function clockTime(seconds) {
    return Math.floor(seconds / 60) + ":" + String(seconds % 60).padStart(2, "0");
  }

  var warned = null; // the position (seat and table version) this page last warned at

  function tickClock(now) {
    var el = document.querySelector("[data-clock]");
    if (!el) return;
    var table = el.closest("[data-seq]");
    var position = el.getAttribute("data-seat") + ":" + (table ? table.getAttribute("data-seq") : "");
    if (!seen.has(el)) seen.set(el, now);
    var gone = (now - seen.get(el)) / 1000;
    var move = Number(el.getAttribute("data-move-left"));
    var bank = Number(el.getAttribute("data-bank-left"));
    var moveLeft = Math.max(0, Math.ceil(move - gone));
    var bankLeft = Math.max(0, Math.ceil(bank - Math.max(0, gone - move)));
    var text = (el.getAttribute("data-clock-text") || "{move} {bank}")
      .replace("{move}", clockTime(moveLeft))
      .replace("{bank}", clockTime(bankLeft));
    var shown = el.querySelector(".clock-left");
    if (shown && shown.textContent !== text) shown.textContent = text;
    var left = moveLeft + bankLeft;
    el.classList.toggle("low", left <= 5);
    var warning = el.getAttribute("data-warning");
    if (warning && left <= 5 && left > 0 && warned !== position) {
      warned = position; // once a position, however often the same table is drawn again
      var announce = document.getElementById("announce");
      if (announce) announce.textContent = warning;
    }
  }

  setInterval(tick, 1000);
  document.addEventListener("htmx:load", tick);
  // htmx:load comes once htmx has made new content work (the page's, then each swapped
  // table's): only then does submitting the form go through htmx, with its headers.
  document.addEventListener("htmx:load", offer);
})();
