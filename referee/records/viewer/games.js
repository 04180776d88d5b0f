/* Bluff Arena replay viewer: one renderer per game.
 *
 * Every renderer draws ONE seat's observation (protobuf JSON of the game's
 * observation message) as that seat sees the table. It never looks at another
 * seat's observation, so a seat's view cannot show what that seat does not know:
 * the seat's own hidden dice or cards are drawn face up inside a
 * `.hand[data-private-of=S]` element, other seats' hidden dice or cards face down.
 * Public reveals (after a challenge) are drawn in `.reveal` boxes.
 *
 * Inlined by referee/records/html_replay.py before viewer.js; exposes window.ArenaGames.
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
    if (s === ctx.me) { add(head, el("span", "badge", "you")); }
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

  /* --- Liar's Dice ------------------------------------------------------- */
  function diceBid(b) {
    if (b.sum_bid) { return ["total \u2265 " + b.sum_bid.total]; }
    var f = b.face_bid || {};
    return [f.quantity + " \u00d7 ", die(f.face, "small")];
  }
  function liarsDice(obs, ctx) {
    var n = obs.num_seats, rules = obs.rules || {};
    var wild = rules.wild_face || 0;
    var out = el("div", "game liars-dice");
    var facts = el("div", "facts");
    add(facts, el("span", null, obs.round_number ? "round " + obs.round_number : "roll-off"),
      el("span", null, pretty(obs.phase)),
      wild ? add(el("span", "wild"), "wild face ", die(wild, "small"),
        obs.wilds_active ? " (counts)" : " (cancelled this round)")
        : el("span", "wild", "no wild face"),
      obs.sum_round ? el("span", "badge", "sum round") : null);
    add(out, facts);
    var counts = obs.dice_counts || [];
    var bid = last(obs.bids);
    /* Which faces count for the bid to beat and for the last challenged bid: computed
       by the engine (step.facts), so this page never restates the wild rule. */
    var facts = ctx.facts || {};
    var bidCounts = facts.bid_counts || [], revealCounts = facts.reveal_counts || null;
    var felt = el("div", "felt-main");
    if (bid) {
      add(felt, el("span", "muted", "bid to beat: "), add(el("span", "big"), ...diceBid(bid)),
        el("span", "muted", " by seat " + bid.seat));
    } else {
      add(felt, el("span", "muted", obs.phase && /BID/.test(obs.phase) ? "no bid yet" :
        pretty(obs.phase)));
    }
    var withBody = function (s) {
      var c = counts[s] || 0;
      var box = seatBox(ctx, s, {
        toAct: obs.to_act === s, out: (obs.eliminated || []).indexOf(s) >= 0 && !c,
        badges: obs.opener === s ? ["opener"] : []
      });
      if (s === ctx.me && (obs.own_dice || []).length) {
        add(box, privateHand(s, obs.own_dice, diceRow(obs.own_dice, {
          mark: function (v) { return bidCounts.indexOf(v) >= 0 ? "counts" : ""; }
        })));
      } else if (c) {
        add(box, hiddenDice(c, s === ctx.me ? "not rolled yet" : null));
      }
      add(box, el("div", "muted small", c + " di" + (c === 1 ? "e" : "ce")));
      return box;
    };
    add(out, table(ctx, n, withBody, felt));
    var bids = section("Bids this round");
    add(bids, timeline((obs.bids || []).map(function (b, i, all) {
      return {seat: b.seat, what: diceBid(b), cls: i === all.length - 1 ? "latest" : null,
        note: i === all.length - 1 ? "to beat" : null};
    })));
    add(out, bids);
    var hist = obs.history || [];
    if (hist.length) {
      var r = last(hist);
      var isFresh = fresh(ctx, /: challenge$/) && !(obs.bids || []).length;
      var rev = section("Round " + r.round_number + ": challenge and reveal",
        "reveal" + (isFresh ? " fresh" : ""));
      add(rev, timeline((r.bids || []).map(function (b, i, all) {
        var ch = i === all.length - 1;
        return {seat: b.seat, what: diceBid(b), cls: ch ? "challenged" : null,
          note: ch ? "challenged by seat " + r.challenger : null};
      })));
      var shown = el("div", "revealed");
      (r.dice || []).forEach(function (hand, s) {
        if (!(hand.dice || []).length) { return; }
        add(shown, add(el("div", "revealed-seat"), el("span", "who", "seat " + s),
          diceRow(hand.dice, {
            mark: function (v) {
              if (!revealCounts) { return ""; }
              return revealCounts.indexOf(v) >= 0 ? "counts" : "dim";
            }
          })));
      });
      add(rev, shown, el("div", "verdict " + (r.bid_true ? "true" : "false"),
        (r.sum_round ? "sum " : "counted ") + r.actual + ": the bid was " +
        (r.bid_true ? "TRUE" : "a LIE") + " \u2014 seat " + r.loser + " loses a die" +
        (r.eliminated ? " and is out" : "")));
      add(out, rev);
      if (hist.length > 1) {
        var older = add(el("details", "older"), el("summary", null, "earlier rounds"));
        add(older, timeline(hist.slice(0, -1).map(function (h) {
          var b = last(h.bids || []);
          return {what: ["round " + h.round_number + ": "].concat(b ? diceBid(b) : [])
            .concat([" challenged by seat " + h.challenger + ", " + (h.bid_true ? "true" : "lie") +
              ", seat " + h.loser + " lost a die"])};
        })));
        add(out, older);
      }
    }
    var ro = obs.roll_offs || [];
    if (ro.length) {
      var rs = add(el("details", "older"), el("summary", null, "roll-off for the first opener"));
      ro.forEach(function (o) {
        var line = el("div", "revealed");
        (o.rolls || []).forEach(function (roll) {
          add(line, add(el("span", "revealed-seat"), el("span", "who", "seat " + roll.seat),
            diceRow(roll.dice || [])));
        });
        add(rs, line);
      });
      add(out, rs);
    }
    return out;
  }

  /* --- Liar's Poker Dice -------------------------------------------------- */
  function pdHand(h) {
    h = h || {};
    return [el("b", null, pretty(h.category)), " "].concat(
      (h.faces || []).map(function (f) { return die(f, "small"); }));
  }
  function lpdStep(st) {
    var kind = pretty(st.kind);
    if (kind === "declare") { return ["declares "].concat(pdHand(st.hand)); }
    if (kind === "accept") { return ["accepts and takes the dice"]; }
    if (kind === "reroll") { return ["re-rolls " + st.count + " di" + (st.count === 1 ? "e" : "ce")]; }
    return [kind];
  }
  function liarsPokerDice(obs, ctx) {
    var out = el("div", "game liars-poker-dice");
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      el("span", null, "pot " + (obs.pot || 0)), el("span", null,
        "round " + ((obs.rounds || []).length + 1)),
      obs.winner !== undefined ? el("span", "badge", "seat " + obs.winner + " wins") : null));
    var steps = obs.steps || [];
    var decl = null;
    steps.forEach(function (st) { if (pretty(st.kind) === "declare") { decl = st; } });
    var felt = el("div", "felt-main");
    if (decl) {
      add(felt, el("span", "muted", "declared: "), add(el("span", "big"), ...pdHand(decl.hand)),
        el("span", "muted", " by seat " + decl.seat));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var boxFor = function (s) {
      var box = seatBox(ctx, s, {toAct: obs.actor === s,
        badges: obs.holder === s ? ["holds the dice"] : []});
      var chips = el("div", "chips-row");
      for (var i = 0; i < (obs.chips || [])[s]; i++) { add(chips, el("span", "token")); }
      add(chips, el("span", "muted small", ((obs.chips || [])[s] || 0) + " chips"));
      add(box, chips);
      if (obs.holder === s) {
        if (s === ctx.me && (obs.dice || []).length) {
          var rr = obs.reroll_positions || [];
          add(box, privateHand(s, obs.dice, diceRow(obs.dice, {
            mark: function (v, i) { return rr.indexOf(i) >= 0 ? "rerolling" : ""; }
          })));
        } else {
          add(box, hiddenDice(5, s === ctx.me ? "not rolled yet" : "under the cup"));
        }
      }
      return box;
    };
    add(out, table(ctx, 2, boxFor, felt));
    add(out, add(section("This round"), timeline(steps.map(function (st, i) {
      return {seat: st.seat, what: lpdStep(st), cls: i === steps.length - 1 ? "latest" : null};
    }))));
    var rounds = obs.rounds || [];
    if (rounds.length) {
      var r = last(rounds);
      var isFresh = fresh(ctx, /: challenge$/) && !steps.length;
      var rev = section("Round " + rounds.length + ": challenge and reveal",
        "reveal" + (isFresh ? " fresh" : ""));
      var rsteps = r.steps || [];
      var lastDecl = -1;
      rsteps.forEach(function (st, i) { if (pretty(st.kind) === "declare") { lastDecl = i; } });
      add(rev, timeline(rsteps.map(function (st, i) {
        return {seat: st.seat, what: lpdStep(st), cls: i === lastDecl ? "challenged" :
          pretty(st.kind) === "challenge" ? "latest" : null,
          note: i === lastDecl ? "challenged" : null};
      })));
      add(rev, add(el("div", "revealed"), el("span", "who", "dice shown"), diceRow(r.dice || [])),
        el("div", "verdict", "seat " + r.loser + " pays a chip"));
      add(out, rev);
    }
    return out;
  }

  /* --- Dice Poker --------------------------------------------------------- */
  var DP_LINES = ["ACES", "TWOS", "THREES", "FOURS", "FIVES", "SIXES", "PAIR", "TWO_PAIR",
    "THREE_OF_A_KIND", "FOUR_OF_A_KIND", "FULL_HOUSE", "SMALL_STRAIGHT", "LARGE_STRAIGHT",
    "POKER", "CHANCE"];
  function scoreMap(card) {
    var m = {};
    ((card || {}).entries || []).forEach(function (e) {
      m[String(e.line).replace("DICE_POKER_LINE_", "")] = e.points || 0;
    });
    return m;
  }
  function dicePoker(obs, ctx) {
    var out = el("div", "game dice-poker");
    var n = obs.num_seats;
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      el("span", null, "turn " + (obs.turn || 0)),
      obs.current !== undefined ? el("span", null, "roll " + (obs.rolls || 0) + " of 3") : null));
    var cards = obs.scorecards || [];
    var prev = ctx.prevObs ? ctx.prevObs.scorecards || [] : [];
    var total = function (s) {
      var m = scoreMap(cards[s]), t = 0;
      Object.keys(m).forEach(function (k) { t += m[k]; });
      return t;
    };
    var felt = el("div", "felt-main");
    if (obs.current !== undefined && (obs.dice || []).length) {
      var rr = obs.reroll_positions || [];
      add(felt, el("span", "muted", "seat " + obs.current + " rolled "), diceRow(obs.dice, {
        mark: function (v, i) { return rr.indexOf(i) >= 0 ? "rerolling" : ""; }
      }));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var boxFor = function (s) {
      return add(seatBox(ctx, s, {toAct: obs.current === s && !/OVER/.test(obs.phase || "")}),
        el("div", "score-total", total(s) + " points"));
    };
    add(out, table(ctx, n, boxFor, felt));
    var t = el("table", "scorecard");
    var head = el("tr");
    add(head, el("th", null, "line"));
    for (var s = 0; s < n; s++) { add(head, el("th", "num", "seat " + s)); }
    add(t, add(el("thead"), head));
    var body = el("tbody");
    DP_LINES.forEach(function (line) {
      var tr = el("tr");
      add(tr, el("td", null, pretty("X_LINE_" + line)));
      for (var s2 = 0; s2 < n; s2++) {
        var m = scoreMap(cards[s2]);
        var had = line in scoreMap(prev[s2]);
        var td = el("td", "num" + (line in m && !had && ctx.prevObs ? " just-scored" : ""),
          line in m ? m[line] : "");
        add(tr, td);
      }
      add(body, tr);
    });
    var extra = el("tr");
    add(extra, el("td", null, "extra pokers"));
    for (var s3 = 0; s3 < n; s3++) { add(extra, el("td", "num", (cards[s3] || {}).extra_pokers || 0)); }
    var tot = el("tr", "total");
    add(tot, el("td", null, "total"));
    for (var s4 = 0; s4 < n; s4++) { add(tot, el("td", "num", total(s4))); }
    add(body, extra, tot);
    add(t, body);
    add(out, add(section("Scorecards"), t));
    return out;
  }

  /* --- Cockroach Poker ---------------------------------------------------- */
  function kindIndex(k) {
    var names = ["UNSPECIFIED", "COCKROACH", "SCORPION", "TOAD", "SPIDER", "RAT", "BAT",
      "CENTIPEDE", "FLY"];
    return Math.max(0, names.indexOf(String(k).replace("COCKROACH_POKER_KIND_", "")));
  }
  function critter(i, count, extra) {
    var labels = ["?", "cockroach", "scorpion", "toad", "spider", "rat", "bat", "centipede", "fly"];
    var node = el("span", "ccard k" + i + (extra ? " " + extra : ""));
    node.setAttribute("data-v", labels[i]);
    add(node, el("span", "label", labels[i]));
    if (count !== undefined) { add(node, el("span", "count", "\u00d7" + count)); }
    return node;
  }
  function kindWord(k) { return pretty(k); }
  function cockroachPoker(obs, ctx) {
    var out = el("div", "game cockroach-poker");
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      el("span", null, "set aside unseen: " + (obs.set_aside || 0))));
    var p = obs.pending;
    var felt = el("div", "felt-main");
    if (p && /RESPOND/.test(obs.phase || "")) {
      var known = p.card && !/UNSPECIFIED/.test(p.card);
      add(felt, el("span", "muted", "seat " + p.announcer + " \u2192 seat " + p.target + ": "),
        el("span", "big", "\u201cit is a " + kindWord(p.claim) + "\u201d "),
        known ? privateHand(p.announcer, [kindWord(p.card)], critter(kindIndex(p.card), undefined,
          "small")) : cardBack("small"));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var boxFor = function (s) {
      var st = (obs.seats || [])[s] || {};
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, out: st.eliminated});
      if (s === ctx.me) {
        var hand = obs.hand || [];
        var row = el("span", "cards");
        hand.forEach(function (c, i) { if (c) { add(row, critter(i + 1, c)); } });
        add(box, privateHand(s, hand, row),
          el("div", "muted small", (st.hand_size || 0) + " cards in hand"));
      } else {
        add(box, add(el("div", "hand-back"), backs(st.hand_size || 0, (st.hand_size || 0) +
          " cards in hand")));
      }
      var pile = el("div", "pile");
      add(pile, el("span", "muted small", "face up: "));
      var any = false;
      (st.face_up || []).forEach(function (c, i) {
        if (c) { any = true; add(pile, critter(i + 1, c, c >= 3 ? "danger" : "")); }
      });
      if (!any) { add(pile, el("span", "muted small", "none")); }
      if (st.face_down) { add(pile, " ", backs(st.face_down, st.face_down + " face down")); }
      add(box, pile);
      return box;
    };
    add(out, table(ctx, obs.num_seats, boxFor, felt));
    var hist = obs.history || [];
    var isFresh = fresh(ctx, /: (believe|disbelieve)$/);
    /* call_rule=published: the answer is a call "true" (believe) or "false". */
    var answers = (obs.rules || {}).call_rule_published ? ["called true", "called false"]
      : ["believed", "disbelieved"];
    add(out, add(section("Passes"), timeline(hist.map(function (h, i) {
      var known = h.card && !/UNSPECIFIED/.test(h.card);
      var what = ["\u2192 seat " + h.target + ": \u201c" + kindWord(h.claim) + "\u201d, " +
        (h.believed ? answers[0] : answers[1]) + "; seat " + h.taker + " takes it "];
      what.push(known ? critter(kindIndex(h.card), undefined, "small") : cardBack("small"));
      var note = known ? (h.card === h.claim ? "truth" : "bluff") : "unseen";
      if (h.eliminated) { note += ", seat " + h.taker + " is out"; }
      return {seat: h.announcer, what: what, note: note,
        cls: i === hist.length - 1 ? "latest" + (isFresh ? " reveal fresh" : "") : null};
    }))));
    return out;
  }

  /* --- Liar's Poker ------------------------------------------------------- */
  function announcement(a) {
    a = a || {};
    return [el("b", null, pretty(a.category)), " " + (a.ranks || []).map(rankText).join(" ")];
  }
  function claimItem(c) {
    var what = [];
    if (c.exchanged !== undefined) { what.push("exchanged " + c.exchanged + ", "); }
    return what.concat(["announces "], announcement(c.announcement));
  }
  function liarsPoker(obs, ctx) {
    var out = el("div", "game liars-poker");
    var rules = obs.rules || {};
    add(out, add(el("div", "facts"), el("span", null, "deal " + obs.deal),
      el("span", null, pretty(obs.phase)), el("span", null, "stock " + obs.stock_size),
      el("span", null, "penalty limit " + rules.penalty_limit)));
    var claims = obs.claims || [];
    var top = last(claims);
    var felt = el("div", "felt-main");
    if (top) {
      add(felt, el("span", "muted", "to beat: "), add(el("span", "big"),
        ...announcement(top.announcement)), el("span", "muted", " by seat " + top.seat));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var live = /ANNOUNCE|RESPOND|EXCHANGE|DRAW/.test(obs.phase || "");
    var boxFor = function (s) {
      var badges = [];
      if (obs.dealer === s) { badges.push("dealer"); }
      if (obs.holder === s && live) { badges.push("holds the cards"); }
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, badges: badges});
      add(box, el("div", "small", "penalties " + ((obs.penalties || [])[s] || 0) + " / " +
        rules.penalty_limit + (rules.chips_variant ? " \u00b7 chips " +
        ((obs.chips || [])[s] || 0) : "")));
      if (s === ctx.me && obs.has_hand) {
        var row = el("span", "cards");
        (obs.hand || []).forEach(function (c) { add(row, playingCard(c)); });
        add(box, privateHand(s, (obs.hand || []).map(cardCode), row));
      } else if (obs.holder === s && live) {
        add(box, backs(5, "5 cards, face down"));
      }
      return box;
    };
    add(out, table(ctx, obs.num_seats, boxFor, felt));
    add(out, add(section("Claims this deal"), timeline(claims.map(function (c, i) {
      return {seat: c.seat, what: claimItem(c), cls: i === claims.length - 1 ? "latest" : null,
        note: i === claims.length - 1 ? "to beat" : null};
    }))));
    var results = obs.results || [];
    if (results.length) {
      var r = last(results);
      var isFresh = fresh(ctx, /: challenge$/) && !claims.length;
      var rev = section("Deal " + r.deal + ": challenge and reveal",
        "reveal" + (isFresh ? " fresh" : ""));
      var rc = r.claims || [];
      add(rev, timeline(rc.map(function (c, i) {
        var ch = i === rc.length - 1;
        return {seat: c.seat, what: claimItem(c), cls: ch ? "challenged" : null,
          note: ch ? "challenged by seat " + r.challenger : null};
      })));
      var shown = el("span", "cards");
      (r.cards || []).forEach(function (c) { add(shown, playingCard(c)); });
      add(rev, add(el("div", "revealed"), el("span", "who", "cards shown"), shown),
        el("div", "verdict " + (r.truthful ? "true" : "false"), "the announcement was " +
          (r.truthful ? "TRUE" : "a LIE") + " \u2014 seat " + r.penalised + " gets a penalty"));
      add(out, rev);
    }
    return out;
  }

  window.ArenaGames = {
    liars_dice: liarsDice,
    liars_poker_dice: liarsPokerDice,
    dice_poker: dicePoker,
    cockroach_poker: cockroachPoker,
    liars_poker: liarsPoker
  };
})();
