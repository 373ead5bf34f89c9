/* Domino online: fair deals (SPEC §10), in the browser with Web Crypto only.

   - Every request that can lead to a deal (an element inside or at [data-fair-seed]) carries
     `client_seed`, 16 random bytes in hex, and `commitment`, the SHA-256 of the server seed the
     page was shown ([data-next-commitment]); the seed is kept in localStorage under
     "domino-fair:<commitment>", so that this browser can later find it in the deal.
   - "Check this deal" ([data-action="check-deal"]) fetches the table's round records, takes
     the one whose commitment is the table's, recomputes the shuffle and shows, step by step,
     that the commitment, the seeds, the hands and the boneyard agree.
   - window.DominoFair = {commitment, deal, checkRecord} for anyone who wants to check by hand.
   No game logic lives here: the server deals; this only checks. */
(function () {
  "use strict";

  var PREFIX = "domino-deal/v1";
  var STORE = "domino-fair:";
  var SERVER_HEX = /^[0-9a-f]{64}$/;
  var CLIENT_HEX = /^[0-9a-f]{32}$/;

  function subtle() {
    return window.crypto && window.crypto.subtle ? window.crypto.subtle : null;
  }

  function toHex(buffer) {
    return Array.from(new Uint8Array(buffer), function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  function fromHex(text) {
    var bytes = new Uint8Array(text.length / 2);
    for (var i = 0; i < bytes.length; i++) bytes[i] = parseInt(text.substr(i * 2, 2), 16);
    return bytes;
  }

  function requireCrypto() {
    if (!subtle()) throw new Error("this check needs a secure page (HTTPS): no crypto.subtle");
  }

  /* SHA-256 of the server seed's 32 raw bytes, lowercase hex. */
  async function commitment(serverSeedHex) {
    requireCrypto();
    if (!SERVER_HEX.test(serverSeedHex)) throw new Error("a server seed is 64 lowercase hex");
    return toHex(await subtle().digest("SHA-256", fromHex(serverSeedHex)));
  }

  /* The byte stream, 4 bytes at a time: block i = HMAC-SHA256(server seed,
     "domino-deal/v1:{round}:{i}:{s0}:{s1}:…"), a null seed written as "". */
  async function reader(serverSeedHex, round, clientSeeds) {
    var key = await subtle().importKey(
      "raw", fromHex(serverSeedHex), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    var seeds = clientSeeds.map(function (s) { return s === null ? "" : s; }).join(":");
    var index = 0;
    var view = null;
    var at = 32;
    return async function next() {
      if (at === 32) {
        var text = PREFIX + ":" + round + ":" + index + ":" + seeds;
        view = new DataView(await subtle().sign("HMAC", key, new TextEncoder().encode(text)));
        index += 1;
        at = 0;
      }
      var x = view.getUint32(at, false);
      at += 4;
      return x;
    };
  }

  /* A uniform integer in 0..n-1, discarding the biased top of 2^32. */
  async function uniform(next, n) {
    var limit = 4294967296 - (4294967296 % n);
    for (;;) {
      var x = await next();
      if (x < limit) return x % n;
    }
  }

  /* The deal of these seeds: {hands, boneyard}, tiles written "a-b" with a <= b. With a
     rotation r (a duplicate rematch) seat s holds the shuffle's hand (s + r) mod seats. */
  async function deal(serverSeedHex, round, clientSeeds, seats, handSize, rotation) {
    requireCrypto();
    rotation = rotation || 0;
    if (!SERVER_HEX.test(serverSeedHex)) throw new Error("a server seed is 64 lowercase hex");
    if (clientSeeds.length !== seats) throw new Error("one client seed per seat");
    var tiles = [];
    for (var a = 0; a <= 6; a++) for (var b = a; b <= 6; b++) tiles.push(a + "-" + b);
    var next = await reader(serverSeedHex, round, clientSeeds);
    for (var i = tiles.length - 1; i > 0; i--) {
      var j = await uniform(next, i + 1);
      var held = tiles[i];
      tiles[i] = tiles[j];
      tiles[j] = held;
    }
    var hands = [];
    for (var seat = 0; seat < seats; seat++) {
      var first = ((seat + rotation) % seats) * handSize;
      hands.push(tiles.slice(first, first + handSize));
    }
    return { hands: hands, boneyard: tiles.slice(seats * handSize) };
  }

  function isInt(x, low, high) {
    return typeof x === "number" && Number.isInteger(x) && x >= low && x <= high;
  }

  /* Why the record's block or deal cannot be recomputed, or "". */
  function malformed(fair, dealt) {
    var hands = dealt && dealt.hands;
    if (!Array.isArray(hands) || !isInt(hands.length, 2, 4)) return "deal: no 2 to 4 hands";
    var size = Array.isArray(hands[0]) ? hands[0].length : -1;
    var even = hands.every(function (h) { return Array.isArray(h) && h.length === size; });
    if (!even || size < 1 || size * hands.length > 28 || !Array.isArray(dealt.boneyard)) {
      return "deal: hands of one size that fit in 28 tiles, and a boneyard";
    }
    if (!SERVER_HEX.test(String(fair.server_seed))) return "server_seed: not 64 lowercase hex";
    if (!isInt(fair.round, 1, Number.MAX_SAFE_INTEGER)) return "round: not a whole number from 1";
    if (!isInt(fair.rotation === undefined ? 0 : fair.rotation, 0, hands.length - 1)) {
      return "rotation: out of range";
    }
    return "";
  }

  function seedsProblem(seeds, seats) {
    if (!Array.isArray(seeds) || seeds.length !== seats) return "one client seed per seat";
    var bad = seeds.findIndex(function (s) {
      return !(s === null || (typeof s === "string" && CLIENT_HEX.test(s)));
    });
    return bad < 0 ? "" : "seat " + bad + ": neither null nor 32 lowercase hex digits";
  }

  function sameTiles(written, dealt) {
    if (!Array.isArray(written) || written.length !== dealt.length) return false;
    return written.every(function (tile, i) { return tile === dealt[i]; });
  }

  function firstDifference(written, dealt) {
    for (var i = 0; i < Math.max(written.length, dealt.length); i++) {
      if (written[i] !== dealt[i]) return (written[i] || "–") + " ≠ " + (dealt[i] || "–");
    }
    return "";
  }

  function outcome(step, ok, note, detail) {
    return { step: step, ok: ok, note: note || "", detail: detail || "" };
  }

  /* The server seed's SHA-256 is the record's commitment, and the one the table showed. */
  async function commitmentStep(fair, shown) {
    var seed = String(fair.server_seed);
    var computed = SERVER_HEX.test(seed) ? await commitment(seed) : "";
    var ok = computed !== "" && computed === fair.commitment && (!shown || shown === computed);
    return outcome("commitment", ok);
  }

  /* Every seed well formed; this seat's the one this browser sent, if it sent one. */
  function seedsStep(seeds, seats, opts) {
    var problem = seedsProblem(seeds, seats);
    if (problem) return outcome("seeds", false, "", problem);
    if (opts.sentSeed) {
      var mine = typeof opts.seat === "number" ? seeds[opts.seat] : undefined;
      return outcome("seeds", mine === opts.sentSeed, "yours", mine === opts.sentSeed ? "" : "≠");
    }
    var none = seeds.every(function (seed) { return seed === null; });
    return outcome("seeds", true, none ? "all-null" : "none");
  }

  /* The hands tile for tile and the boneyard in order, against the recomputed deal. */
  function dealSteps(dealt, recomputed) {
    var wrong = dealt.hands.findIndex(function (hand, seat) {
      return !sameTiles(hand, recomputed.hands[seat]);
    });
    var hand = wrong < 0 ? "" : firstDifference(dealt.hands[wrong], recomputed.hands[wrong]);
    var fine = sameTiles(dealt.boneyard, recomputed.boneyard);
    var undealt = fine ? "" : firstDifference(dealt.boneyard, recomputed.boneyard);
    return [outcome("hands", wrong < 0, "", hand), outcome("boneyard", fine, "", undealt)];
  }

  /* Check a round record's fair deal. opts: {seat, sentSeed, shownCommitment}: this browser's
     seat, the seed it sent for this deal (if any), the commitment the table shows.
     Resolves to {ok, steps: [{step, ok, note, detail}] (commitment, seeds, hands,
     boneyard), deal: the recomputed {hands, boneyard} or null}. */
  async function checkRecord(record, opts) {
    requireCrypto();
    opts = opts || {};
    var fair = (record && record.fairness) || {};
    var dealt = (record && record.deal) || {};
    var seats = Array.isArray(dealt.hands) ? dealt.hands.length : 0;
    var steps = [await commitmentStep(fair, opts.shownCommitment)];
    steps.push(seedsStep(fair.client_seeds, seats, opts));
    var problem = malformed(fair, dealt) || seedsProblem(fair.client_seeds, seats);
    var recomputed = null;
    if (problem) {
      steps.push(outcome("hands", false, "", problem), outcome("boneyard", false, "", problem));
    } else {
      var size = dealt.hands[0].length;
      var rotation = fair.rotation || 0;
      recomputed = await deal(fair.server_seed, fair.round, fair.client_seeds, seats, size, rotation);
      steps = steps.concat(dealSteps(dealt, recomputed));
    }
    return { ok: steps.every(function (s) { return s.ok; }), steps: steps, deal: recomputed };
  }

  window.DominoFair = { commitment: commitment, deal: deal, checkRecord: checkRecord };

  /* ---- sending a seed with every request that can deal ---- */

  function remember(key, seed) {
    try {
      window.localStorage.setItem(STORE + key, seed);
    } catch (e) {
      /* private mode or storage full: the seed still counts, this browser just can't show it */
    }
  }

  function recalled(key) {
    try {
      return window.localStorage.getItem(STORE + key);
    } catch (e) {
      return null;
    }
  }

  function nextCommitment(element) {
    var holder = element.closest("[data-next-commitment]") ||
      document.querySelector("#table[data-next-commitment]") ||
      document.querySelector("[data-next-commitment]");
    return holder ? holder.getAttribute("data-next-commitment") : "";
  }

  /* {client_seed, commitment} for a request from `element`, or null when it deals nothing. */
  function seedFor(element) {
    if (!element || !element.closest || !element.closest("[data-fair-seed]")) return null;
    var shown = nextCommitment(element);
    if (!SERVER_HEX.test(shown) || !window.crypto || !window.crypto.getRandomValues) return null;
    var seed = toHex(window.crypto.getRandomValues(new Uint8Array(16)));
    remember(shown, seed);
    return { client_seed: seed, commitment: shown };
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var trigger = event.detail.triggeringEvent;
    var fields = seedFor((trigger && trigger.submitter) || event.detail.elt);
    if (!fields) return;
    event.detail.parameters.client_seed = fields.client_seed;
    event.detail.parameters.commitment = fields.commitment;
  });

  function hidden(form, name, value) {
    var input = form.querySelector('input[type="hidden"][name="' + name + '"]');
    if (!input) {
      input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      form.appendChild(input);
    }
    input.value = value;
  }

  // A form htmx does not handle (htmx cancels the native submit of its own) is sent as is.
  document.addEventListener("submit", function (event) {
    if (event.defaultPrevented) return;
    var fields = seedFor(event.submitter || event.target);
    if (!fields) return;
    hidden(event.target, "client_seed", fields.client_seed);
    hidden(event.target, "commitment", fields.commitment);
  });

  /* ---- "Check this deal" ---- */

  function show(box, verdict, results) {
    var list = box.querySelector("[data-fair-steps]");
    box.querySelectorAll("[data-fair-step]").forEach(function (item) {
      item.removeAttribute("data-fair-ok");
      item.removeAttribute("data-fair-note");
    });
    box.removeAttribute("data-fair-seeds");
    (results || []).forEach(function (result) {
      if (result.note === "all-null") box.setAttribute("data-fair-seeds", "none");
      var item = list && list.querySelector('[data-fair-step="' + result.step + '"]');
      if (!item) return;
      item.setAttribute("data-fair-ok", result.ok ? "true" : "false");
      item.setAttribute("data-fair-note", result.note);
      var detail = item.querySelector("[data-fair-detail]");
      if (detail) detail.textContent = result.detail;
    });
    if (list) list.hidden = !results;
    box.setAttribute("data-fair-verdict", verdict);
  }

  async function check(button) {
    var box = button.closest("[data-fair-check]") || document.querySelector("[data-fair-check]");
    var table = document.getElementById("table");
    if (!box || !table) return;
    box.removeAttribute("data-fair-verdict");
    if (!subtle()) {
      show(box, "unavailable", null);
      return;
    }
    var shown = table.getAttribute("data-commitment");
    var text = "";
    try {
      var url = table.getAttribute("data-record-url");
      var answer = await fetch(url, { credentials: "same-origin" });
      if (answer.ok) text = await answer.text();
    } catch (e) {
      text = "";
    }
    var record = null;
    text.split("\n").forEach(function (line) {
      try {
        var read = line.trim() ? JSON.parse(line) : null;
        if (read && read.fairness && read.fairness.commitment === shown) record = read; // the last
      } catch (e) {
        /* a line that is not JSON is not this deal's record */
      }
    });
    if (!record) {
      show(box, "failed", [{ step: "commitment", ok: false, note: "missing", detail: "" }]);
      return;
    }
    var seat = table.getAttribute("data-fair-seat");
    var result = await checkRecord(record, {
      seat: seat === null || seat === "" ? undefined : Number(seat),
      sentSeed: recalled(shown),
      shownCommitment: shown,
    });
    show(box, result.ok ? "ok" : "failed", result.steps);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest('[data-action="check-deal"]');
    if (!button) return;
    event.preventDefault();
    button.disabled = true;
    check(button).finally(function () {
      button.disabled = false;
    });
  });
})();
