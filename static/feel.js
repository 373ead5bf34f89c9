/* Domino online: a little feel, and the table's story kept steady across tables.
   - a soft sound when a tile is newly laid (Web Audio, no files), off until the player turns
     it on with the "Tile sound" button; the choice is kept in localStorage;
   - a short flourish on the result when a round ends (style.css draws it);
   - the move list stays open or shut across tables (sessionStorage), scrolled to its newest
     move, and another seat's note keeps fading from where it was.
   Nothing here is spoken, nothing takes focus, and when less motion is asked for there is no
   sound and no flourish (the toggle is not even shown). No game logic lives here. */
(function () {
  "use strict";

  var SOUND = "domino.sound"; // localStorage: "on" or "off"
  var MOVES = "domino.moves"; // sessionStorage: "open" or "shut"
  var calm = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;

  function still() {
    return !!(calm && calm.matches);
  }

  function read(area, key) {
    try {
      return window[area].getItem(key);
    } catch (e) {
      return null; // storage refused (private mode, a policy): keep the defaults
    }
  }

  function write(area, key, value) {
    try {
      window[area].setItem(key, value);
    } catch (e) {
      /* not remembered, nothing else lost */
    }
  }

  function soundOn() {
    return read("localStorage", SOUND) === "on" && !still();
  }

  // -- the sound: a short wooden "tock", a filtered noise burst over a low knock.
  var audio = null;

  function context() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) {
      try {
        audio = new Context();
      } catch (e) {
        return null;
      }
    }
    if (audio && audio.state === "suspended" && audio.resume) audio.resume();
    return audio;
  }

  function envelope(ctx, peak, length) {
    var gain = ctx.createGain();
    var now = ctx.currentTime;
    gain.gain.setValueAtTime(0.0001, now);
    gain.gain.exponentialRampToValueAtTime(peak, now + 0.004);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + length);
    gain.connect(ctx.destination);
    return gain;
  }

  function tock() {
    if (!soundOn()) return;
    var ctx = context();
    if (!ctx) return;
    var now = ctx.currentTime;
    var frames = Math.ceil(ctx.sampleRate * 0.05);
    var buffer = ctx.createBuffer(1, frames, ctx.sampleRate);
    var data = buffer.getChannelData(0);
    for (var i = 0; i < frames; i++) data[i] = (Math.random() * 2 - 1) * (1 - i / frames);
    var noise = ctx.createBufferSource();
    noise.buffer = buffer;
    var band = ctx.createBiquadFilter();
    band.type = "bandpass";
    band.frequency.value = 2400;
    band.Q.value = 2.5;
    noise.connect(band);
    band.connect(envelope(ctx, 0.22, 0.06));
    var knock = ctx.createOscillator();
    knock.type = "sine";
    knock.frequency.setValueAtTime(320, now);
    knock.frequency.exponentialRampToValueAtTime(140, now + 0.08);
    knock.connect(envelope(ctx, 0.12, 0.1));
    noise.start(now);
    knock.start(now);
    knock.stop(now + 0.12);
  }

  // -- a table as it arrives: the toggle shown (or not) and pressed, the move list open or not.
  function prepare(table) {
    var button = table.querySelector("[data-sound]");
    if (button) {
      button.hidden = still();
      button.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    }
    var moves = table.querySelector("details.move-log");
    if (moves) moves.open = read("sessionStorage", MOVES) === "open";
  }

  // Another seat's note fades on its own; the same note in the next table goes on fading from
  // where it was (a tile chosen a second later must not bring it back, nor hide it at once).
  var noted = {}; // note -> when it was first shown (ms)

  function noteKey(note) {
    return note.getAttribute("data-recent") + ":" + note.getAttribute("data-story");
  }

  function keepNotes(table) {
    var now = Date.now();
    var kept = {};
    Array.prototype.forEach.call(table.querySelectorAll("[data-story]"), function (note) {
      var key = noteKey(note);
      kept[key] = key in noted ? noted[key] : now;
      if (kept[key] < now) note.style.animationDelay = kept[key] - now + "ms";
    });
    noted = kept;
  }

  // The move list follows its newest move, unless the player scrolled back in it.
  var listAt = null; // {top, end}: the shown list's scroll before a swap

  function moveList() {
    return document.querySelector("#table [data-move-list]");
  }

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var detail = event.detail;
    if (!detail || !detail.target || detail.target.id !== "table" || !detail.shouldSwap) return;
    var incoming = detail.fragment && detail.fragment.querySelector("#table");
    if (!incoming) return;
    var shown = detail.target;
    prepare(incoming);
    keepNotes(incoming);
    var list = moveList();
    listAt = list
      ? { top: list.scrollTop, end: list.scrollTop + list.clientHeight >= list.scrollHeight - 4 }
      : null;
    if (!still()) {
      var result = incoming.querySelector("[data-result]");
      if (result && !shown.querySelector("[data-result]")) result.classList.add("flourish");
    }
    // table.js (whose listener runs first) marks a table "settled" when its newest tile is the
    // one already shown: then no tile was laid, and there is nothing to hear.
    if (incoming.querySelector(".chain .laid.last") && !incoming.classList.contains("settled")) tock();
  });

  document.addEventListener("htmx:oobAfterSwap", function (event) {
    var target = event.detail && event.detail.target;
    if (!target || target.id !== "table") return;
    var list = moveList();
    if (!list) return;
    list.scrollTop = !listAt || listAt.end ? list.scrollHeight : listAt.top;
  });

  document.addEventListener(
    "toggle",
    function (event) {
      var moves = event.target;
      if (!moves.classList || !moves.classList.contains("move-log")) return;
      if (!moves.isConnected) return; // a table not shown yet, opened by prepare()
      write("sessionStorage", MOVES, moves.open ? "open" : "shut");
      var list = moveList();
      if (moves.open && list) list.scrollTop = list.scrollHeight;
    },
    true // "toggle" does not bubble
  );

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-sound]");
    if (!button) return;
    var on = button.getAttribute("aria-pressed") !== "true";
    write("localStorage", SOUND, on ? "on" : "off");
    button.setAttribute("aria-pressed", on ? "true" : "false");
    if (on) tock(); // a sample, and the player's click lets the page make sounds
  });

  // Less motion asked for while the page is open: the toggle goes away at once.
  if (calm && calm.addEventListener) {
    calm.addEventListener("change", function () {
      var shown = document.getElementById("table");
      if (shown) prepare(shown);
    });
  }

  var table = document.getElementById("table");
  if (table) {
    prepare(table);
    keepNotes(table);
    var list = moveList();
    if (list) list.scrollTop = list.scrollHeight;
  }
})();
