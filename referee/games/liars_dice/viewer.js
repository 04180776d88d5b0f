/* Liar's Dice in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message):
 * the seat's own hidden dice or cards face up inside `.hand[data-private-of=S]`, other
 * seats' face down; public reveals in `.reveal` boxes.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, last = K.last, die = K.die,
      diceRow = K.diceRow, hiddenDice = K.hiddenDice, privateHand = K.privateHand,
      seatBox = K.seatBox, table = K.table, section = K.section, timeline = K.timeline,
      fresh = K.fresh;

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
    var hidden = ctx.hidden || {};
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
      /* Face up: the seat's own cup in its view; every cup in the omniscient view. */
      var held = ctx.omniscient ? (hidden.dice || [])[s] || [] :
        s === ctx.me ? obs.own_dice || [] : [];
      if (held.length) {
        add(box, privateHand(s, held, diceRow(held, {
          mark: function (v) { return bidCounts.indexOf(v) >= 0 ? "counts" : ""; }
        })));
      } else if (c) {
        add(box, hiddenDice(c, s === ctx.me || ctx.omniscient ? "not rolled yet" : null));
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

  liarsDice.omniscient = true;
  window.ArenaGames.liars_dice = liarsDice;
})();
