/* Bluff Arena replay viewer: the kit every game's renderer draws with.
 *
 * Every renderer draws ONE seat's observation (protobuf JSON of the game's
 * observation message) as that seat sees the table. It never looks at another
 * seat's observation, so a seat's view cannot show what that seat does not know:
 * the seat's own hidden dice or cards are drawn face up inside a
 * `.hand[data-private-of=S]` element, other seats' hidden dice or cards face down.
 * Public reveals (after a challenge) are drawn in `.reveal` boxes.
 *
 * A renderer marked `omniscient = true` also draws the omniscient view ("all seats"):
 * then `ctx.omniscient` is true, `ctx.me` only places seat 0 at the bottom, and
 * `ctx.hidden` is `step.hidden`, every die and card the engine's full state hides
 * (the game's ViewerSpec.hidden, computed in Python): the renderer draws each seat's
 * hidden holdings face up in `.hand[data-private-of=S]` in that seat's box, and reads
 * no seat's private observation fields. An unmarked renderer's "all" view shows every
 * seat's own view side by side.
 *
 * Every number a renderer draws (a score, a total, a count, the bid to beat) is the
 * engine's: `ctx.facts` (the game's ViewerSpec.facts, computed in Python from the
 * seat's observation) or a field of the observation itself, drawn with `num`, which
 * marks it for the browser tests; a renderer never sums or counts.
 *
 * `ctx.spectator` (the server's /watch page): the public table, drawn from the
 * game's ViewerSpec.public view; no seat is "you" and nothing is face up.
 * `ctx.play` (a browser game, the person's turn): the legal moves and `choose`; the
 * renderer lets the person make a move on the board (click dice or cards, a bid).
 *
 * Each game's renderer is its own file (referee/games/<game>/viewer.js, named by its
 * registration's ViewerSpec.script). html_replay.py inlines this kit, then the game's
 * renderer, then viewer.js. Exposes window.ArenaKit and an empty window.ArenaGames.
 */
(function () {
  "use strict";
  var SVG = "http://www.w3.org/2000/svg";
  var PIPS = {
    1: [[12, 12]],
    2: [[6, 6], [18, 18]],
    3: [[6, 6], [12, 12], [18, 18]],
    4: [[6, 6], [18, 6], [6, 18], [18, 18]],
    5: [[6, 6], [18, 6], [12, 12], [6, 18], [18, 18]],
    6: [[6, 6], [18, 6], [6, 12], [18, 12], [6, 18], [18, 18]]
  };
  var RANKS = {0: "Jk", 11: "J", 12: "Q", 13: "K", 14: "A"};
  var SUITS = {CLUBS: "\u2663", DIAMONDS: "\u2666", HEARTS: "\u2665", SPADES: "\u2660"};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function add(parent) {
    for (var i = 1; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) { continue; }
      parent.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return parent;
  }
  function pretty(v) {
    return String(v || "").replace(/^[A-Z]+(_[A-Z]+)*?_(PHASE|KIND|CATEGORY|LINE|SUIT|STEP_KIND)_/, "")
      .toLowerCase().replace(/_/g, " ");
  }
  function last(list) { return list && list.length ? list[list.length - 1] : null; }

  /* --- dice ------------------------------------------------------------- */
  function die(v, extra) {
    var box = el("span", "die" + (extra ? " " + extra : ""));
    box.setAttribute("data-v", String(v));
    box.title = "die showing " + v;
    var svg = document.createElementNS(SVG, "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    (PIPS[v] || []).forEach(function (p) {
      var c = document.createElementNS(SVG, "circle");
      c.setAttribute("cx", String(p[0]));
      c.setAttribute("cy", String(p[1]));
      c.setAttribute("r", "2.3");
      svg.appendChild(c);
    });
    box.appendChild(svg);
    add(box, el("span", "sr", String(v)));
    return box;
  }
  function dieDown() {
    var box = el("span", "die down", "?");
    box.title = "hidden die";
    return box;
  }
  function diceRow(values, opts) {
    opts = opts || {};
    var row = el("span", "dice");
    values.forEach(function (v, i) {
      var cls = opts.mark ? opts.mark(v, i) : "";
      row.appendChild(die(v, cls));
    });
    return row;
  }
  function hiddenDice(count, label) {
    var row = el("span", "dice hidden-dice");
    row.setAttribute("data-hidden-count", String(count));
    for (var i = 0; i < count; i++) { row.appendChild(dieDown()); }
    if (label) { add(row, el("span", "muted small", label)); }
    return row;
  }
  function privateHand(seat, values, child) {
    var hand = el("div", "hand");
    hand.setAttribute("data-private-of", String(seat));
    hand.setAttribute("data-values", values.join(" "));
    return add(hand, child);
  }

  /* --- cards ------------------------------------------------------------ */
  function suitName(s) { return String(s || "").replace(/^.*_SUIT_/, ""); }
  function cardCode(c) {
    return c.rank === 0 ? "Jk" : (RANKS[c.rank] || String(c.rank)) + suitName(c.suit).charAt(0);
  }
  function playingCard(c, extra) {
    var suit = suitName(c.suit);
    var joker = c.rank === 0;
    var red = suit === "HEARTS" || suit === "DIAMONDS";
    var node = el("span", "pcard" + (joker ? " joker" : red ? " red" : "") +
      (extra ? " " + extra : ""));
    node.setAttribute("data-v", cardCode(c));
    add(node, el("span", "rank", joker ? "\u2605" : RANKS[c.rank] || String(c.rank)),
      el("span", "suit", joker ? "joker" : SUITS[suit] || "?"));
    node.title = joker ? "joker" : (RANKS[c.rank] || c.rank) + " of " + suit.toLowerCase();
    return node;
  }
  function cardBack(extra) {
    var node = el("span", "pcard back" + (extra ? " " + extra : ""));
    node.title = "face-down card";
    return node;
  }
  function backs(count, label) {
    var row = el("span", "cards hidden-cards");
    row.setAttribute("data-hidden-count", String(count));
    for (var i = 0; i < Math.min(count, 8); i++) { row.appendChild(cardBack("small")); }
    var text = label === undefined || label === null ?
      count + " card" + (count === 1 ? "" : "s") : label;
    if (text) { add(row, el("span", "muted small", text)); }
    return row;
  }
  function rankText(r) { return RANKS[r] && r !== 0 ? RANKS[r] : String(r); }

  /* --- the table --------------------------------------------------------- */
  function seatBox(ctx, s, parts) {
    var info = ctx.seats[s] || {bot: "?"};
    var box = el("div", "seat-box");
    box.setAttribute("data-seat-box", String(s));
    var head = el("div", "seat-name");
    add(head, el("b", null, "Seat " + s), " " + info.bot);
    if (isMe(ctx, s)) { add(head, el("span", "badge", "you")); }
    if (parts.toAct) { box.className += " to-act"; add(head, el("span", "badge next", "to act")); }
    if (parts.out) { box.className += " out"; add(head, el("span", "badge bad", "out")); }
    (parts.badges || []).forEach(function (b) { add(head, el("span", "badge", b)); });
    add(box, head);
    (parts.body || []).forEach(function (b) { add(box, b); });
    return box;
  }
  function table(ctx, n, boxFor, felt) {
    var wrap = el("div", "table");
    var others = el("div", "table-row others");
    for (var k = 1; k < n; k++) { others.appendChild(boxFor((ctx.me + k) % n)); }
    add(wrap, others, add(el("div", "felt"), felt), add(el("div", "table-row me"), boxFor(ctx.me)));
    return wrap;
  }
  function section(title, cls) {
    var box = el("div", "section" + (cls ? " " + cls : ""));
    add(box, el("div", "section-title", title));
    return box;
  }
  function timeline(items) {
    var list = el("ol", "timeline");
    if (!items.length) { add(list, el("li", "empty", "nothing yet")); }
    items.forEach(function (it) {
      var li = el("li", it.cls || null);
      add(li, el("span", "who", it.seat === undefined ? "" : "seat " + it.seat));
      var what = el("span", "what");
      (Array.isArray(it.what) ? it.what : [it.what]).forEach(function (w) { add(what, w); });
      add(li, what);
      if (it.note) { add(li, el("span", "note", it.note)); }
      list.appendChild(li);
    });
    return list;
  }
  function fresh(ctx, pattern) { return pattern.test(ctx.step.event_public || ""); }

  /* --- numbers ----------------------------------------------------------- */
  /* Every number a renderer draws comes from the engine (`ctx.facts`, the game's
     ViewerSpec.facts, or the observation itself) and is drawn by `num`, which marks
     it `data-num=KEY` (and `data-seat`): the browser tests compare each one with the
     engine's own number at that state. A renderer never adds, counts or sums. */
  function num(value, key, seat, cls) {
    var node = el("span", "num" + (cls ? " " + cls : ""),
      value === null || value === undefined ? "" : String(value));
    node.setAttribute("data-num", key);
    if (seat !== undefined && seat !== null) { node.setAttribute("data-seat", String(seat)); }
    return node;
  }
  /* Whether seat `s` is the viewing seat, drawn face up as "you": never in the
     omniscient view or a spectator's (ctx.spectator: the public table, no seat). */
  function isMe(ctx, s) { return !ctx.omniscient && !ctx.spectator && s === ctx.me; }

  /* --- moves: a browser game lets the person play on the board ----------- */
  /* `ctx.play` (a browser game, the person's turn): {moves, choose(index)}; `moves`
     are the legal actions in the order of the move list (protobuf JSON without the
     game's name: {"bid": {"quantity": 3, "face": 4}}), `choose` sends one. */
  function moves(ctx, kind) {
    var out = [];
    ((ctx.play || {}).moves || []).forEach(function (m, i) {
      var k = Object.keys(m)[0];
      if (kind === undefined || k === kind) { out.push({index: i, kind: k, body: m[k] || {}}); }
    });
    return out;
  }
  function moveButton(ctx, label, index, act, cls) {
    var b = el("button", "move" + (cls ? " " + cls : ""));
    b.type = "button";
    (Array.isArray(label) ? label : [label]).forEach(function (part) { add(b, part); });
    b.setAttribute("data-act", act);
    if (index === null || index === undefined) {
      b.disabled = true;
    } else {
      b.setAttribute("data-move", String(index));
      b.addEventListener("click", function () { ctx.play.choose(index); });
    }
    return b;
  }
  function sameList(a, b) {
    a = a || []; b = b || [];
    return a.length === b.length && a.every(function (v, i) { return v === b[i]; });
  }
  /* Clickable items (dice, cards) that toggle "picked"; `changed(picked)` is called with
     the picked positions, increasing. */
  function pickable(nodes, changed) {
    var picked = [];
    nodes.forEach(function (node, i) {
      node.classList.add("pickable");
      node.setAttribute("role", "button");
      node.setAttribute("tabindex", "0");
      node.setAttribute("aria-pressed", "false");
      node.setAttribute("data-pos", String(i));
      var toggle = function () {
        var at = picked.indexOf(i);
        if (at >= 0) { picked.splice(at, 1); } else { picked.push(i); }
        picked.sort(function (a, b) { return a - b; });
        node.classList.toggle("picked", at < 0);
        node.setAttribute("aria-pressed", at < 0 ? "true" : "false");
        changed(picked.slice());
      };
      node.addEventListener("click", toggle);
      node.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); toggle(); }
      });
    });
    changed([]);
  }
  /* A step-by-step choice among candidates [{index, name, values}] (a declaration's
     category, then its faces or ranks one at a time): `group` names the candidates'
     first choice (drawn by `groupLabel`), then `valueLabel(v)` draws each next value.
     The button `act` sends the candidate whose values are exactly those picked. */
  function picker(ctx, candidates, opts) {
    var box = el("div", "picker");
    box.setAttribute("data-picker", opts.act);
    var state = {group: null, values: []};
    function redraw() {
      box.textContent = "";
      var groups = [];
      candidates.forEach(function (c) { if (groups.indexOf(c.group) < 0) { groups.push(c.group); } });
      var row = el("div", "pick-row");
      add(row, el("span", "muted small", opts.groupTitle));
      groups.forEach(function (g) {
        var b = el("button", "pick" + (state.group === g ? " picked" : ""), opts.groupLabel(g));
        b.type = "button";
        b.setAttribute("data-group", String(g));
        b.addEventListener("click", function () { state.group = g; state.values = []; redraw(); });
        add(row, b);
      });
      add(box, row);
      if (state.group === null) { return; }
      var inGroup = candidates.filter(function (c) {
        return c.group === state.group && state.values.every(function (v, i) { return c.values[i] === v; });
      });
      var next = [];
      inGroup.forEach(function (c) {
        if (c.values.length > state.values.length) {
          var v = c.values[state.values.length];
          if (next.indexOf(v) < 0) { next.push(v); }
        }
      });
      var chosen = el("div", "pick-row");
      add(chosen, el("span", "muted small", opts.valuesTitle), opts.groupLabel(state.group));
      state.values.forEach(function (v) { add(chosen, " ", opts.valueLabel(v)); });
      if (state.values.length) {
        var back = el("button", "pick undo", "\u2190 back");
        back.type = "button";
        back.addEventListener("click", function () { state.values.pop(); redraw(); });
        add(chosen, back);
      }
      add(box, chosen);
      if (next.length) {
        var nextRow = el("div", "pick-row");
        add(nextRow, el("span", "muted small", state.values.length ? "then" : "with"));
        next.forEach(function (v) {
          var b = el("button", "pick value");
          b.type = "button";
          b.setAttribute("data-value", String(v));
          add(b, opts.valueLabel(v));
          b.addEventListener("click", function () { state.values.push(v); redraw(); });
          add(nextRow, b);
        });
        add(box, nextRow);
      }
      var exact = inGroup.filter(function (c) { return c.values.length === state.values.length; })[0];
      add(box, moveButton(ctx, opts.sendLabel, exact ? exact.index : null, opts.act, "primary"));
    }
    redraw();
    return box;
  }
  function controls(title) {
    var box = el("div", "play-controls");
    box.setAttribute("data-controls", "");
    if (title) { add(box, el("div", "section-title", title)); }
    return box;
  }

  window.ArenaKit = {
    SVG: SVG,
    PIPS: PIPS,
    RANKS: RANKS,
    SUITS: SUITS,
    el: el,
    add: add,
    pretty: pretty,
    last: last,
    die: die,
    dieDown: dieDown,
    diceRow: diceRow,
    hiddenDice: hiddenDice,
    privateHand: privateHand,
    suitName: suitName,
    cardCode: cardCode,
    playingCard: playingCard,
    cardBack: cardBack,
    backs: backs,
    rankText: rankText,
    seatBox: seatBox,
    table: table,
    section: section,
    timeline: timeline,
    fresh: fresh,
    num: num,
    isMe: isMe,
    moves: moves,
    moveButton: moveButton,
    sameList: sameList,
    pickable: pickable,
    picker: picker,
    controls: controls
  };
  window.ArenaGames = window.ArenaGames || {};
})();
