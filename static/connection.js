/* Domino online: the table's connection, said out loud (SPEC §7.3 `data-connection`).
   - The #live wrapper (it holds the socket and outlives every table swap) carries
     data-connection="live" or "reconnecting".
   - When the socket drops, the page says so at once in the #connection note (a polite live
     region, always there, only visible while reconnecting), and the table is made inert: no
     click, key or request goes out until the socket is back.
   - It reconnects soon: the first try within half a second, then at most 2 s apart, each
     delay drawn at random in its upper half so that the tabs of a restarted server do not
     all come back in the same instant. Once the server's first message (the whole current
     table) has been swapped in, the page is live again and focus goes back where it was.
   - A close the server made on purpose (1000: a newer tab took the seat, which the table
     says, or the room is gone) is final: no retry, no "Reconnecting…".
   No game logic lives here. */
(function () {
  "use strict";

  var FIRST_MS = 500; // the first retry comes within this
  var CAP_MS = 2000; // and no retry comes later than this after the one before
  var FINAL = 1000; // a normal close by the server
  // The codes on which the ws extension retries by itself; on any other (e.g. 1001 from a
  // server or proxy going away, 1008, 1009) this file retries.
  var RETRIED = [1006, 1011, 1012, 1013];

  var waiting = false; // the socket dropped, and no table has come since
  var leaving = false; // the page is being left: its socket closes, nothing to say
  var retries = 0; // this file's own retries since the socket was last open
  var focused = null; // the id of what had focus in the table when it dropped

  // The delay before retry number `retry` (0 first): 500 ms doubling up to 2 s, from half of
  // it to all of it.
  function delay(retry) {
    var ceiling = Math.min(CAP_MS, FIRST_MS * Math.pow(2, retry));
    return ceiling / 2 + (Math.random() * ceiling) / 2;
  }

  if (window.htmx) window.htmx.config.wsReconnectDelay = delay;

  function wrapper() {
    return document.getElementById("live");
  }

  function say(text) {
    var note = document.getElementById("connection");
    if (!note) return;
    note.textContent = note.getAttribute(text) || "";
    note.classList.toggle("visually-hidden", !waiting);
  }

  function dropped() {
    var live = wrapper();
    if (!live || waiting) return;
    waiting = true;
    var active = document.activeElement;
    focused = active && active.id && live.contains(active) ? active.id : null;
    live.setAttribute("data-connection", "reconnecting");
    live.inert = true; // before the note, so focus leaves the table first
    say("data-text-reconnecting");
  }

  function back() {
    var live = wrapper();
    if (!live || !waiting) return;
    waiting = false;
    retries = 0;
    live.inert = false;
    live.setAttribute("data-connection", "live");
    say("data-text-back");
  }

  // Focus goes back where it was once that control can take it: the first table may hold it
  // disabled (the other seat is not back yet), and a later one enables it. It waits only
  // while focus is nowhere; a player who moved it elsewhere keeps their choice.
  function refocus() {
    if (!focused || waiting) return;
    var active = document.activeElement;
    if (active && active !== document.body) {
      focused = null;
      return;
    }
    var again = document.getElementById(focused);
    if (again && !again.disabled) {
      focused = null;
      again.focus({ preventScroll: true });
    }
  }

  document.addEventListener("htmx:wsClose", function (event) {
    var detail = event.detail || {};
    var code = detail.event ? detail.event.code : 0;
    if (leaving || code === FINAL || event.target !== wrapper()) return;
    dropped();
    var socket = detail.socketWrapper;
    if (RETRIED.indexOf(code) < 0 && socket) {
      setTimeout(function () {
        if (!leaving && waiting) socket.reconnect();
      }, delay(retries++));
    }
  });

  // The first message on a new socket is the whole current table: live again.
  document.addEventListener("htmx:wsAfterMessage", function (event) {
    if (event.target !== wrapper()) return;
    if (waiting) back();
    refocus();
  });

  // Belt and braces: a request from the table (e.g. a key that clicks a tile) waits for the
  // socket, as the inert table does for clicks.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var live = wrapper();
    var elt = event.detail && event.detail.elt;
    if (waiting && live && elt && live.contains(elt)) event.preventDefault();
  });

  window.addEventListener("pagehide", function () {
    leaving = true;
  });
  window.addEventListener("pageshow", function (event) {
    leaving = false;
    // Back from the browser's page cache: the socket closed as the page was left, and the
    // table is old. A fresh page brings both.
    if (event.persisted && wrapper()) window.location.reload();
  });
})();
