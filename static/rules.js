/* Domino online: the rules card on the home page (templates/partials/rules_card.html).
   A preset fills the fields in place; tile counts that do not fit the seats and game chosen
   are not offered, and a change of table that leaves the hand size too big lowers it to the
   most that fit, saying so (and gives the size chosen back once it fits again); a target of
   another number shows its box; a combination the server would refuse is explained at once.
   The presets' values, the most tiles of each table (data-most-tiles, from the core's own
   checks) and the messages come from the page (the server's), never from here. Without this
   script the card still works: a preset reloads the page filled in, and the server refuses
   what does not fit. */
(function () {
  "use strict";

  var form = document.querySelector("[data-rules-form]");
  if (!form) return;
  var presets = JSON.parse(form.getAttribute("data-presets") || "{}");
  var messages = JSON.parse(form.getAttribute("data-messages") || "{}");
  var card = form.querySelector("details");
  var error = form.querySelector("#rules-error");
  var size = form.elements.hand_size;
  var mostBy = JSON.parse(size.getAttribute("data-most-tiles") || "{}");
  var sizeNote = form.querySelector("[data-size-note]");
  var wanted = size.value; // the hand size last chosen, by hand or with a preset
  var target = form.elements.target;
  var points = form.elements.target_points;
  var pointsBox = form.querySelector("[data-target-points]");
  var ERROR_ID = "rules-error";

  function value(name) {
    var field = form.elements[name];
    return field ? field.value : "";
  }

  /* The fields that make the rules, as the server writes a preset's. */
  function current() {
    var values = {};
    Object.keys(presets.classic || {}).forEach(function (name) {
      values[name] = value(name);
    });
    if (values.target !== "other") values.target_points = "";
    return values;
  }

  function matching() {
    var now = current();
    return Object.keys(presets).filter(function (name) {
      return Object.keys(presets[name]).every(function (key) {
        return presets[name][key] === now[key];
      });
    })[0];
  }

  /* The table chosen, as the page names it: "3 draw". */
  function setup() {
    return value("seats") + " " + value("boneyard");
  }

  function mostTiles() {
    return Number(mostBy[setup()]);
  }

  function say(text) {
    if (sizeNote && sizeNote.textContent !== text) sizeNote.textContent = text;
  }

  /* After a change of seats or game: the size chosen if it fits, else the most that do. */
  function fit() {
    var most = mostTiles();
    var lowered = Number(wanted) > most;
    var chosen = lowered ? String(most) : wanted;
    if (size.value !== chosen) size.value = chosen;
    say(lowered ? messages.adjusted[setup()] : "");
  }

  /* The first problem the server would refuse, as [controls to mark, message], or null;
     an empty box for another number counts only when the card is sent (`sending`). */
  function problem(sending) {
    if (Number(size.value) > mostTiles()) return [[size], messages.hand_size[setup()]];
    if (target.value === "other") {
      var typed = points.value.trim();
      if (typed === "" && !sending) return null;
      var n = Number(typed);
      if (!/^[0-9]{1,4}$/.test(typed) || n < 1 || n > Number(points.max)) {
        return [[points], messages.target];
      }
    }
    return null;
  }

  function describedBy(control, on) {
    var ids = (control.getAttribute("aria-describedby") || "").split(/\s+/).filter(function (id) {
      return id && id !== ERROR_ID;
    });
    if (on) ids.push(ERROR_ID);
    if (ids.length) control.setAttribute("aria-describedby", ids.join(" "));
    else control.removeAttribute("aria-describedby");
  }

  function mark(found) {
    var marked = found ? found[0] : [];
    form.querySelectorAll("input, select, fieldset").forEach(function (control) {
      var on = marked.indexOf(control) >= 0;
      if (on) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
      describedBy(control, on);
    });
    var text = found ? found[1] : "";
    if (error.textContent !== text) error.textContent = text;
  }

  function update() {
    var most = mostTiles();
    Array.prototype.forEach.call(size.options, function (option) {
      option.disabled = Number(option.value) > most && !option.selected;
    });
    pointsBox.hidden = target.value !== "other";
    var name = matching();
    form.querySelectorAll("[data-preset]").forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-preset") === name));
    });
    if (name) form.elements.preset.value = name;
  }

  function fill(name) {
    var values = presets[name];
    if (!values) return;
    Object.keys(values).forEach(function (key) {
      var field = form.elements[key];
      if (field) field.value = values[key];
    });
    form.elements.preset.value = name;
    wanted = size.value;
    say("");
    update();
    mark(problem());
  }

  form.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-preset]");
    if (!button) return;
    event.preventDefault(); // without this script, it reloads the page with the preset
    fill(button.getAttribute("data-preset"));
  });

  form.addEventListener("change", function (event) {
    var name = event.target && event.target.name;
    if (name === "hand_size") {
      wanted = size.value;
      say("");
    } else if (name === "seats" || name === "boneyard") {
      fit();
    }
    update();
    mark(problem());
  });

  points.addEventListener("input", function () {
    if (error.textContent) mark(problem());
  });

  form.addEventListener("submit", function (event) {
    var found = problem(true);
    if (!found) return;
    event.preventDefault();
    card.open = true;
    mark(found);
    found[0][0].focus();
  });

  update();
  var refused = form.querySelector("[aria-invalid='true']");
  if (refused && error.textContent) refused.focus(); // the server refused the card as posted
})();
