/* Liar's Dice in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message):
 * the seat's own hidden dice or cards face up inside `.hand[data-private-of=S]`, other
 * seats' face down; public reveals in `.reveal` boxes. Every number of the table
 * (dice per seat and in all, the round, the bid to beat, a challenge's count) and
 * which faces count are the engine's (ctx.facts, referee/games/liars_dice/viewer.py).
 *
 * In a browser game (ctx.play, the person's turn) a bid is made on the board: click a
 * face, set the quantity with - and +, then "Bid"; or challenge.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, last = K.last, die = K.die, num = K.num,
      diceRow = K.diceRow, hiddenDice = K.hiddenDice, privateHand = K.privateHand,
      seatBox = K.seatBox, table = K.table, section = K.section, timeline = K.timeline,
      fresh = K.fresh;

  function diceBid(b) {
    if (b.sum_bid) { return ["total \u2265 " + b.sum_bid.total]; }
    var f = b.face_bid || {};
    return [f.quantity + " \u00d7 ", die(f.face, "small")];
  }
  /* The bid to beat, its numbers from the engine (facts.bid). */
  function standingBid(bid) {
    if (bid.total !== undefined) {
      return ["total \u2265 ", num(bid.total, "bid_total")];
    }
    var face = die(bid.face, "small");
    face.setAttribute("data-num", "bid_face");
    return [num(bid.quantity, "bid_quantity"), " \u00d7 ", face];
  }

  /* The person's bid: a face (six dice to click) and a quantity (- and +), or a
     challenge; only legal bids can be sent. */
  function bidControls(ctx) {
    var bids = K.moves(ctx, "bid"), sums = K.moves(ctx, "sum_bid");
    var challenge = K.moves(ctx, "challenge")[0];
    var box = K.controls("Your bid");
    box.setAttribute("data-controls", "bid");
    if (sums.length) {
      var row = el("div", "pick-row");
      add(row, el("span", "muted small", "the two dice total at least"));
      sums.forEach(function (m) {
        var b = K.moveButton(ctx, String(m.body.total), m.index, "sum");
        b.setAttribute("data-total", String(m.body.total));
        add(row, b);
      });
      add(box, row);
    } else if (bids.length) {
      var state = {face: null, quantity: null};
      var faces = el("div", "pick-row faces");
      var qty = el("div", "pick-row quantity");
      var send = el("span");
      var lowest = function (face) {
        var q = null;
        bids.forEach(function (m) {
          if (m.body.face === face && (q === null || m.body.quantity < q)) { q = m.body.quantity; }
        });
        return q;
      };
      var step = function (direction) {
        var next = null;
        if (state.quantity === null) { return null; }
        bids.forEach(function (m) {
          var q = m.body.quantity;
          if (m.body.face !== state.face || (q - state.quantity) * direction <= 0) { return; }
          if (next === null || (q - next) * direction < 0) { next = q; }
        });
        return next;
      };
      var find = function () {
        return bids.filter(function (m) {
          return m.body.face === state.face && m.body.quantity === state.quantity;
        })[0];
      };
      var redraw = function () {
        faces.textContent = "";
        add(faces, el("span", "muted small", "face"));
        for (var v = 1; v <= 6; v++) {
          var d = die(v, state.face === v ? "picked pickable" : "pickable");
          d.setAttribute("data-face", String(v));
          d.setAttribute("role", "button");
          d.setAttribute("tabindex", "0");
          if (lowest(v) === null) { d.className += " dim"; } else {
            d.addEventListener("click", pickFace.bind(null, v));
            d.addEventListener("keydown", keyed(pickFace.bind(null, v)));
          }
          add(faces, d);
        }
        qty.textContent = "";
        add(qty, el("span", "muted small", "how many"));
        var minus = el("button", "pick", "\u2212");
        minus.type = "button";
        minus.setAttribute("data-act", "fewer");
        var plus = el("button", "pick", "+");
        plus.type = "button";
        plus.setAttribute("data-act", "more");
        var shown = el("b", "quantity-value", state.quantity === null ? "\u2013" :
          String(state.quantity));
        shown.setAttribute("data-quantity", state.quantity === null ? "" : String(state.quantity));
        /* - and + step to the next legal quantity of the face (a raise rule may skip some) */
        var fewer = step(-1), more = step(1);
        minus.disabled = fewer === null;
        plus.disabled = more === null;
        minus.addEventListener("click", function () { state.quantity = fewer; redraw(); });
        plus.addEventListener("click", function () { state.quantity = more; redraw(); });
        add(qty, minus, shown, plus);
        send.textContent = "";
        var m = find();
        var label = state.face === null ? "Bid" : ["Bid " + state.quantity + " \u00d7 ",
          die(state.face, "small")];
        add(send, K.moveButton(ctx, label, m ? m.index : null, "bid", "primary"));
      };
      var pickFace = function (v) { state.face = v; state.quantity = lowest(v); redraw(); };
      redraw();
      add(box, faces, qty, send);
    }
    if (challenge) {
      add(box, K.moveButton(ctx, "Challenge: call it a lie", challenge.index, "challenge",
        "danger"));
    }
    return box;
  }
  function keyed(fn) {
    return function (e) { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); fn(); } };
  }

  function liarsDice(obs, ctx) {
    var n = obs.num_seats, rules = obs.rules || {};
    var f = ctx.facts || {};
    var wild = rules.wild_face || 0;
    var out = el("div", "game liars-dice");
    var head = el("div", "facts");
    add(head, f.round ? add(el("span"), "round ", num(f.round, "round")) : el("span", null,
      "roll-off"),
      el("span", null, pretty(obs.phase)),
      add(el("span"), num(f.total_dice, "total_dice"), " dice on the table"),
      wild ? add(el("span", "wild"), "wild face ", die(wild, "small"),
        obs.wilds_active ? " (counts)" : " (cancelled this round)")
        : el("span", "wild", "no wild face"),
      obs.sum_round ? el("span", "badge", "sum round") : null);
    add(out, head);
    var counts = f.dice_counts || [];
    var hidden = ctx.hidden || {};
    /* Which faces count for the bid to beat and for the last challenged bid: computed
       by the engine (step.facts), so this page never restates the wild rule. */
    var bidCounts = f.bid_counts || [], revealCounts = f.reveal_counts || null;
    var felt = el("div", "felt-main");
    if (f.bid) {
      add(felt, el("span", "muted", "bid to beat: "), add(el("span", "big"),
        ...standingBid(f.bid)), el("span", "muted", " by seat " + last(obs.bids).seat));
    } else {
      add(felt, el("span", "muted", obs.phase && /BID/.test(obs.phase) ? "no bid yet" :
        pretty(obs.phase)));
    }
    if (ctx.play && obs.to_act === ctx.me && /BID/.test(obs.phase || "")) {
      add(felt, bidControls(ctx));
    }
    var withBody = function (s) {
      var c = counts[s] || 0;
      var box = seatBox(ctx, s, {
        toAct: obs.to_act === s, out: (obs.eliminated || []).indexOf(s) >= 0 && !c,
        badges: obs.opener === s ? ["opener"] : []
      });
      /* Face up: the seat's own cup in its view; every cup in the omniscient view. */
      var held = ctx.omniscient ? (hidden.dice || [])[s] || [] :
        K.isMe(ctx, s) ? obs.own_dice || [] : [];
      if (held.length) {
        add(box, privateHand(s, held, diceRow(held, {
          mark: function (v) { return bidCounts.indexOf(v) >= 0 ? "counts" : ""; }
        })));
      } else if (c) {
        add(box, hiddenDice(c, K.isMe(ctx, s) || ctx.omniscient ? "not rolled yet" : null));
      }
      add(box, add(el("div", "muted small"), num(c, "dice", s), c === 1 ? " die" : " dice"));
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
    if (hist.length && f.reveal) {
      var r = last(hist);
      var isFresh = fresh(ctx, /: challenge$/) && !(obs.bids || []).length;
      var rev = section("Round " + f.reveal.round + ": challenge and reveal",
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
      add(rev, shown, add(el("div", "verdict " + (r.bid_true ? "true" : "false")),
        (r.sum_round ? "sum " : "counted "), num(f.reveal.actual, "reveal_actual"),
        ": the bid was " + (r.bid_true ? "TRUE" : "a LIE") + " \u2014 seat ",
        num(f.reveal.loser, "reveal_loser"), " loses a die" + (r.eliminated ? " and is out" : "")));
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

  liarsDice.omniscient = true;
  liarsDice.playable = true;
  window.ArenaGames.liars_dice = liarsDice;
})();
