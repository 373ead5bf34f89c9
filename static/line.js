/* Domino online: lays the line of play as a snake inside the felt. Layout only, no game logic.

   Row 1 runs left to right. Where a row meets the edge, the line turns: one tile stands on end
   (its first half up, beside the row's last tile) and the next row starts under it and runs
   back the other way, its tiles turned half a turn so that touching halves still meet. Doubles
   lie crosswise. The two end buttons (templates/partials/end.html) sit in places kept for them
   at the ends of the path: before the first tile and after the last one, where the tile would
   go. Long lines on narrow screens get smaller tiles, never below MIN_LONG.

   The DOM keeps the line's order (left to right, SPEC §7.3): only CSSOM styles and classes
   move the tiles. The layout runs on load, after every swap of the table (a MutationObserver:
   it runs once htmx has swapped and settled, before the page is painted) and on resize.
   Without this script the line wraps as a row. */
(function () {
  "use strict";

  var GAP = 3; // px between touching tiles
  var MIN_LONG = 44; // px: the long side of a tile (and an end button's height) at the least
  var HEIGHT_SHARE = 0.45; // of the window's height: a longer line shrinks its tiles
  var SLOT_SHARE = 1.5; // an end button is this many tiles' long sides wide...
  var SLOT_MIN = 76; // ...and at least this many px
  var widths = new WeakMap(); // chain -> the width it was laid out for

  document.documentElement.classList.add("snake");

  // How far an item reaches along the line, and across it (a double lies crosswise).
  function along(kind, long, slot) {
    if (kind === "slot") return slot;
    return kind === "double" ? long / 2 : long;
  }

  function across(kind, long) {
    return kind === "tile" ? long / 2 : long;
  }

  function newRow(dir, start, top) {
    return { dir: dir, u: start, top: top, line: top === null ? 0 : null, down: 0, items: [] };
  }

  // Place item `i` next in `row` (u: distance from the row's starting edge).
  function put(row, i, kind, long, slot, width) {
    var size = along(kind, long, slot);
    var cross = across(kind, long);
    if (!row.items.length) {
      row.u = Math.max(0, Math.min(row.u, width - size)); // a row's first item stays inside
      if (row.line === null) row.line = row.top + cross / 2; // a row hangs from its first item
    }
    row.items.push({ i: i, u: row.u, size: size, cross: cross });
    row.down = Math.max(row.down, cross / 2);
    row.u += size + GAP;
  }

  /* The path of `kinds` ("slot", "tile" or "double", in line order) in a box `width` wide:
     one box {x, y, w, h, dir, turn} per item, and the height of the whole. */
  function plan(kinds, width, long, slot) {
    var short = long / 2;
    var boxes = [];
    var rows = [];
    var turns = [];
    var row = newRow(1, 0, null);
    var i = 0;
    rows.push(row);
    while (i < kinds.length) {
      var kind = kinds[i];
      var last = i === kinds.length - 1;
      var room = last ? width : width - short - GAP; // keep room to turn after this item
      if (!row.items.length || row.u + along(kind, long, slot) <= room) {
        put(row, i, kind, long, slot, width);
        i += 1;
        continue;
      }
      if (kind === "double" && row.items.length > 1) {
        // A double never stands on end: the tile before it turns instead.
        var before = row.items[row.items.length - 1];
        if (kinds[before.i] === "tile") {
          row.items.pop();
          row.u = before.u;
          i = before.i;
          kind = "tile";
        }
      }
      var at = Math.min(row.u, width - short); // where the line turns down
      var top = row.line + row.down + GAP; // the last end button: just under the row's end
      if (kind !== "slot") {
        turns.push({ i: i, u: at, row: row });
        top = row.line + 1.5 * short + GAP; // under the tile on end
        i += 1;
      }
      row = newRow(-row.dir, Math.max(0, width - at - short), top);
      rows.push(row);
    }
    rows.forEach(function (r) {
      r.items.forEach(function (item) {
        boxes[item.i] = {
          x: r.dir > 0 ? item.u : width - item.u - item.size,
          y: r.line - item.cross / 2,
          w: item.size,
          h: item.cross,
          dir: r.dir,
          turn: false,
        };
      });
    });
    turns.forEach(function (t) {
      var x = t.row.dir > 0 ? t.u : width - t.u - short;
      var y = t.row.line - short / 2; // the first half beside the row's last tile
      boxes[t.i] = { x: x, y: y, w: short, h: long, dir: t.row.dir, turn: true };
    });
    return finish(boxes, rows, width);
  }

  // Move the boxes to start at the top (a single row also to the middle); measure the height.
  function finish(boxes, rows, width) {
    var top = Infinity;
    var bottom = -Infinity;
    var shift = 0;
    if (rows.length === 1) shift = (width - (rows[0].u - GAP)) / 2;
    boxes.forEach(function (box) {
      top = Math.min(top, box.y);
      bottom = Math.max(bottom, box.y + box.h);
    });
    boxes.forEach(function (box) {
      box.x += shift;
      box.y -= top;
    });
    return { boxes: boxes, height: bottom - top };
  }

  function slotWidth(long) {
    return Math.max(Math.round(SLOT_SHARE * long), SLOT_MIN);
  }

  function place(element, box, left, top) {
    var style = element.style;
    style.left = left + box.x + "px";
    style.top = top + box.y + "px";
    style.width = box.w + "px";
    style.height = box.h + "px";
  }

  // Draw the planned path: the tiles in the chain, the end buttons' slots in the felt.
  function draw(felt, chain, tiles, result, long, first) {
    var boxes = result.boxes;
    chain.style.setProperty("--l", long + "px");
    chain.style.height = result.height + "px";
    tiles.forEach(function (tile, k) {
      var box = boxes[k + first];
      place(tile, box, 0, 0);
      tile.classList.toggle("turn", box.turn);
      tile.classList.toggle("back", !box.turn && box.dir < 0);
    });
    if (!first) return; // no places were kept for end buttons
    felt.querySelectorAll(".end-slot").forEach(function (slot) {
      var box = slot.classList.contains("left") ? boxes[0] : boxes[boxes.length - 1];
      place(slot, box, chain.offsetLeft, chain.offsetTop);
      // The arrow points the way the line would grow there.
      slot.classList.toggle("toward-left", box.dir < 0 || slot.classList.contains("left"));
    });
  }

  function layOut(felt) {
    var chain = felt.querySelector(".chain");
    if (!chain) return;
    var tiles = Array.prototype.slice.call(chain.querySelectorAll(".laid"));
    var width = chain.clientWidth;
    widths.set(chain, width);
    if (!tiles.length || !width) return; // an empty line: the felt shows its message
    // Both ends keep a place for their button while the round is on, so that choosing a
    // tile never moves the line; a finished round gives the places back.
    var open = !felt.closest(".over");
    var kinds = open ? ["slot"] : [];
    tiles.forEach(function (tile) {
      kinds.push(tile.classList.contains("double") ? "double" : "tile");
    });
    if (open) kinds.push("slot");
    var base = parseFloat(getComputedStyle(felt).getPropertyValue("--line-l")) || 52;
    var limit = Math.max(window.innerHeight * HEIGHT_SHARE, 3 * base);
    var long = base;
    var result = plan(kinds, width, long, slotWidth(long));
    while (result.height > limit && long - 2 >= MIN_LONG) {
      long -= 2;
      result = plan(kinds, width, long, slotWidth(long));
    }
    draw(felt, chain, tiles, result, long, open ? 1 : 0);
  }

  // Lay out every felt; again if that showed or hid a scroll bar (the width changed).
  function layOutAll() {
    document.querySelectorAll(".line-area").forEach(function (felt) {
      for (var tries = 0; tries < 3; tries++) {
        var chain = felt.querySelector(".chain");
        if (chain && widths.get(chain) === chain.clientWidth && tries) break;
        layOut(felt);
      }
    });
  }

  // After a swap: lay out the felts that are new (a new table brings a new chain).
  function layOutNew() {
    var fresh = false;
    document.querySelectorAll(".line-area .chain").forEach(function (chain) {
      if (!widths.has(chain)) fresh = true;
    });
    if (fresh) layOutAll();
  }

  new MutationObserver(layOutNew).observe(document.body, { childList: true, subtree: true });
  // Once htmx has settled a reply or a push, again (the same places, unless settling changed
  // a class the layout reads, such as the finished round's `.over`).
  document.addEventListener("htmx:afterSettle", layOutAll);
  document.addEventListener("htmx:wsAfterMessage", layOutAll);
  window.addEventListener("resize", layOutAll);
  layOutAll();
})();
