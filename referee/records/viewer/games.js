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
    add(row, el("span", "muted small", label || (count + " card" + (count === 1 ? "" : "s"))));
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
    if (s === ctx.me && !ctx.omniscient) { add(head, el("span", "badge", "you")); }
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
    fresh: fresh
  };
  window.ArenaGames = window.ArenaGames || {};
})();
