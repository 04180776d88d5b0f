(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = data.steps;
  var last = steps.length - 1;
  var current = 0;
  var view = "all";
  var RANKS = {0: "Jk", 11: "J", 12: "Q", 13: "K", 14: "A"};
  var SUITS = {CLUBS: "\u2663", DIAMONDS: "\u2666", HEARTS: "\u2665", SPADES: "\u2660"};

  function byId(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function isScalar(v) { return v === null || typeof v !== "object"; }
  function prettyEnum(v) {
    if (typeof v !== "string" || !/^[A-Z0-9_]+$/.test(v)) { return null; }
    for (var i = 0; i < data.enumPrefixes.length; i++) {
      var prefix = data.enumPrefixes[i];
      if (v.indexOf(prefix) === 0 && v.length > prefix.length) {
        return v.slice(prefix.length).toLowerCase().replace(/_/g, " ");
      }
    }
    return null;
  }
  function scalar(v) {
    var pretty = prettyEnum(v);
    if (pretty !== null) {
      var span = el("span", "enum", pretty);
      span.title = v;
      return span;
    }
    if (v === null) { return el("span", "empty", "null"); }
    return el("span", "value", typeof v === "string" ? v : JSON.stringify(v));
  }
  function chips(values, make) {
    var box = el("span", "chips");
    box.setAttribute("data-values", values.map(String).join(" "));
    values.forEach(function (v, i) {
      if (i) { box.appendChild(document.createTextNode(" ")); }
      box.appendChild(make(v, i));
    });
    return box;
  }
  function isCard(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v) &&
      Object.keys(v).length === 2 && "rank" in v && "suit" in v;
  }
  function card(v) {
    var suit = String(v.suit).replace(/^.*_SUIT_/, "");
    var joker = v.rank === 0;
    var text = joker ? "Jk" : (RANKS[v.rank] || String(v.rank)) + (SUITS[suit] || "?");
    var red = suit === "HEARTS" || suit === "DIAMONDS";
    var cls = "card" + (joker ? " joker" : (red ? " red" : ""));
    var node = el("span", cls, text);
    node.title = joker ? "joker" : String(v.rank) + " " + suit.toLowerCase();
    return node;
  }
  function render(value, key) {
    if (isScalar(value)) { return scalar(value); }
    if (Array.isArray(value)) {
      if (value.length === 0) { return el("span", "empty", "none"); }
      if (value.every(isScalar)) {
        var labels = data.countKeys.indexOf(key) >= 0 ? data.countLabels : null;
        if (labels && value.length === labels.length) {
          var shown = [];
          value.forEach(function (n, i) { if (n) { shown.push([labels[i], n]); } });
          if (shown.length === 0) { return el("span", "empty", "none"); }
          return chips(shown.map(function (p) { return p[0] + "\u00d7" + p[1]; }),
            function (t) { return el("span", "chip", t); });
        }
        var dice = /(^|_)dice$/.test(key) && value.every(function (v) {
          return typeof v === "number" && v >= 1 && v <= 6;
        });
        return chips(value, function (v) {
          if (dice) { return el("span", "die", v); }
          if (prettyEnum(v) !== null) { return scalar(v); }
          return el("span", "chip", typeof v === "string" ? v : JSON.stringify(v));
        });
      }
      if (value.every(isCard)) {
        var texts = value.map(function (c) { return card(c).textContent; });
        return chips(texts, function (t, i) { return card(value[i]); });
      }
      var list = el("ol", "items");
      list.start = 0;
      value.forEach(function (item) {
        var li = el("li");
        li.appendChild(render(item, key));
        list.appendChild(li);
      });
      return list;
    }
    var keys = Object.keys(value);
    if (keys.length === 0) { return el("span", "empty", "none"); }
    if (key === "rules" && value.wild_face === 0) {
      value = Object.assign({}, value, {wild_face: "no wild face"});
    }
    var flat = keys.every(function (k) {
      var v = value[k];
      return isScalar(v) || (Array.isArray(v) && v.every(isScalar));
    });
    if (flat) {
      var line = el("span", "obj");
      keys.forEach(function (k) {
        var pair = el("span", "pair");
        pair.setAttribute("data-key", k);
        pair.appendChild(el("span", "k", k.replace(/_/g, " ")));
        pair.appendChild(document.createTextNode(" "));
        pair.appendChild(render(value[k], k));
        line.appendChild(pair);
        line.appendChild(document.createTextNode(" "));
      });
      return line;
    }
    var dl = el("dl", "tree");
    keys.forEach(function (k) {
      var dt = el("dt", null, k.replace(/_/g, " "));
      var dd = el("dd");
      dd.setAttribute("data-key", k);
      dd.appendChild(render(value[k], k));
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    return dl;
  }
  /* The step's text as the engine describes it to seat `seat` (null: it sees nothing). */
  function seenBy(step, seat) {
    var text = (step.seen || [])[Number(seat)];
    return text === undefined ? null : text;
  }
  /* The engine's facts and numbers for `seat`'s view of a step (once for every seat
     when they are alike). */
  function factsOf(step, seat) {
    if (step.facts_all !== undefined) { return step.facts_all; }
    return step.facts ? step.facts[seat] : null;
  }
  function hidden(step) { return view !== "all" && step.index > 0 && seenBy(step, view) === null; }
  /* What seat `seat` (or everyone, for "all") may read about a step: the engine's
     text for that seat (no other cup, discarded card or re-rolled position). */
  function textFor(step, seat) {
    if (step.index === 0) { return "start of the match"; }
    var think = step.think_ms === undefined ? "" : " (" + step.think_ms + " ms)";
    if (seat === "all") {
      /* Omniscient: whether the claim made in this step is true. */
      var truth = step.claim === true ? " [true]" : step.claim === false ? " [a bluff]" : "";
      return step.event + truth + think;
    }
    var text = seenBy(step, seat);
    if (text === null) { return "chance (hidden in seat " + seat + "'s view)"; }
    return text + think;
  }
  /* The omniscient view's line on the claim standing after this step. */
  function claimTruth(step) {
    if (view !== "all" || step.standing === null || step.standing === undefined) { return ""; }
    return step.standing ? "the standing claim is TRUE" : "the standing claim is a BLUFF";
  }
  function eventText(step) { return textFor(step, view); }
  /* A whole deal can be hundreds of characters: such a text is shown by its first
     words (up to its first parenthesis, or about 70 characters) and opens on demand. */
  var LONG = 100;
  function clip(text) {
    var paren = text.indexOf(" (");
    var cut = paren >= 10 && paren <= 72 ? paren : text.lastIndexOf(" ", 72);
    return text.slice(0, cut > 10 ? cut : 72) + " \u2026";
  }
  function fillEventText(node, text) {
    node.textContent = "";
    if (text.length <= LONG) { node.textContent = text; return; }
    var box = el("details", "long-event");
    box.appendChild(el("summary", null, clip(text)));
    box.appendChild(el("div", "rest", text));
    node.appendChild(box);
  }
  function renderer() {
    return window.ArenaGames && window.ArenaGames[data.renderer || data.game] || null;
  }
  /* The engine's text of a step as `seat` reads it ("all": the omniscient text), without
     the thinking time, for a renderer's `fresh` test. */
  function engineText(step, seat) {
    if (step.index === 0) { return ""; }
    return (seat === "all" ? step.event : seenBy(step, seat)) || "";
  }
  function board(seat, step) {
    var draw = renderer();
    if (!draw) { return null; }
    var prev = step.index > 0 ? steps[step.index - 1].observations[seat] : null;
    var ctx = {
      me: seat, seats: data.seats, prevObs: prev,
      facts: factsOf(step, seat),
      step: {index: step.index, event_public: engineText(step, String(seat))}
    };
    return draw(step.observations[seat], ctx);
  }
  /* Whether view "all" is one omniscient panel: the game's renderer draws it (marked
     `omniscient`); otherwise every seat's own panel, side by side. */
  function oneOmniscientPanel() { var draw = renderer(); return !!(draw && draw.omniscient); }
  /* View "all": one panel, the table with every seat's hidden dice and cards face up
     (`step.hidden`, read by the engine from its full state), drawn by the game's
     renderer over the public part of seat 0's observation (ctx.omniscient). */
  function omniscientPanel(step) {
    var box = el("section", "seat-panel omniscient");
    box.setAttribute("data-seat", "all");
    var head = el("h3", null, "Every seat's dice and cards (omniscient)");
    if (step.index === last) {
      data.seats.forEach(function (info) {
        if (!info.fault) { return; }
        head.appendChild(el("span", "badge bad", "seat " + info.seat + ": " + info.fault));
      });
    }
    box.appendChild(head);
    var ctx = {
      me: 0, omniscient: true, hidden: step.hidden || {}, seats: data.seats,
      prevObs: step.index > 0 ? steps[step.index - 1].observations[0] : null,
      facts: factsOf(step, 0),
      step: {index: step.index, event_public: engineText(step, "all")}
    };
    box.appendChild(renderer()(step.observations[0], ctx));
    if (step.hidden) {
      var raw = el("details", "raw");
      raw.appendChild(el("summary", null, "hidden holdings (engine state)"));
      raw.appendChild(render(step.hidden, ""));
      box.appendChild(raw);
    }
    return box;
  }
  function panel(seat, step) {
    var info = data.seats[seat];
    var box = el("section", "seat-panel");
    box.setAttribute("data-seat", String(seat));
    var head = el("h3", null, "Seat " + seat + "'s view \u2014 " + info.bot);
    if (step.actor === seat) {
      box.className += " acting";
      head.appendChild(el("span", "badge", "acted"));
    }
    if (step.to_act === "seat " + seat) {
      head.appendChild(el("span", "badge next", "to act"));
    }
    if (info.fault && step.index === last) {
      head.appendChild(el("span", "badge bad", info.fault));
    }
    box.appendChild(head);
    var drawn = board(seat, step);
    if (drawn) {
      box.appendChild(drawn);
      var raw = el("details", "raw");
      raw.appendChild(el("summary", null, "observation fields"));
      raw.appendChild(render(step.observations[seat], ""));
      box.appendChild(raw);
    } else {
      box.appendChild(render(step.observations[seat], ""));
    }
    return box;
  }
  function drawList() {
    var list = byId("event-list");
    list.textContent = "";
    steps.forEach(function (step) {
      var li = el("li");
      li.setAttribute("data-step", String(step.index));
      li.appendChild(el("span", "n", step.index));
      var text = eventText(step);
      var long = text.length > LONG;
      var span = el("span", hidden(step) ? "hidden-event" : (long ? "clipped" : null),
        long ? clip(text) : text);
      if (long) { span.title = text; }
      li.appendChild(span);
      li.addEventListener("click", function () { show(step.index); });
      list.appendChild(li);
    });
  }
  function show(index) {
    current = Math.max(0, Math.min(last, index));
    var step = steps[current];
    document.body.setAttribute("data-step", String(current));
    byId("step-counter").textContent = "step " + current + " / " + last;
    byId("step-slider").value = String(current);
    var text = byId("event-text");
    fillEventText(text, eventText(step));
    text.className = hidden(step) ? "hidden-event" : "";
    byId("to-act").textContent = step.to_act === "over" ? "the match is over" : step.to_act;
    byId("claim-truth").textContent = claimTruth(step);
    byId("first").disabled = byId("prev").disabled = current === 0;
    byId("next").disabled = byId("last").disabled = current === last;
    var panels = byId("panels");
    panels.textContent = "";
    if (view === "all" && oneOmniscientPanel()) {
      panels.appendChild(omniscientPanel(step));
    } else {
      data.seats.forEach(function (_, seat) {
        if (view === "all" || String(seat) === view) { panels.appendChild(panel(seat, step)); }
      });
    }
    var items = byId("event-list").children;
    for (var i = 0; i < items.length; i++) {
      var on = i === current;
      items[i].className = on ? "current" : "";
      if (on) {
        items[i].setAttribute("aria-current", "step");
        var box = byId("event-list");
        var top = items[i].offsetTop - box.offsetTop;
        if (top < box.scrollTop || top + items[i].offsetHeight > box.scrollTop + box.clientHeight) {
          box.scrollTop = Math.max(0, top - box.clientHeight / 2);
        }
      } else {
        items[i].removeAttribute("aria-current");
      }
    }
  }
  function setView(value) {
    view = value;
    byId("seat-select").value = value;
    document.body.setAttribute("data-view", value);
    drawList();
    show(current);
  }
  byId("first").addEventListener("click", function () { show(0); });
  byId("prev").addEventListener("click", function () { show(current - 1); });
  byId("next").addEventListener("click", function () { show(current + 1); });
  byId("last").addEventListener("click", function () { show(last); });
  byId("step-slider").max = String(last);
  byId("step-slider").addEventListener("input", function (e) {
    show(parseInt(e.target.value, 10));
  });
  byId("seat-select").addEventListener("change", function (e) { setView(e.target.value); });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") { return; }
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var target = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last}[e.key];
    if (target !== undefined) { e.preventDefault(); show(target); }
  });
  var params = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv.length === 2) { params[kv[0]] = decodeURIComponent(kv[1]); }
  });
  var start = parseInt(params.step || "0", 10);
  current = isNaN(start) ? 0 : Math.max(0, Math.min(last, start));
  var seatParam = params.seat;
  var okSeat = seatParam !== undefined && /^[0-9]+$/.test(seatParam) &&
    Number(seatParam) < data.seats.length;
  setView(okSeat ? String(Number(seatParam)) : "all");
  document.body.setAttribute("data-ready", "true");
})();
