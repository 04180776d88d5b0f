/* Liar's Poker in the replay viewer: its renderer, registered in window.ArenaGames.
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
  var el = K.el, add = K.add, pretty = K.pretty, last = K.last,
      privateHand = K.privateHand, cardCode = K.cardCode, playingCard = K.playingCard,
      backs = K.backs, rankText = K.rankText, seatBox = K.seatBox, table = K.table,
      section = K.section, timeline = K.timeline, fresh = K.fresh;

  function announcement(a) {
    a = a || {};
    return [el("b", null, pretty(a.category)), " " + (a.ranks || []).map(rankText).join(" ")];
  }
  function claimItem(c) {
    var what = [];
    if (c.exchanged !== undefined) { what.push("exchanged " + c.exchanged + ", "); }
    return what.concat(["announces "], announcement(c.announcement));
  }
  function cards(list) {
    var row = el("span", "cards");
    list.forEach(function (c) { add(row, playingCard(c)); });
    return row;
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
    var hidden = ctx.hidden || {};
    var boxFor = function (s) {
      var badges = [];
      if (obs.dealer === s) { badges.push("dealer"); }
      if (obs.holder === s && live) { badges.push("holds the cards"); }
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, badges: badges});
      add(box, el("div", "small", "penalties " + ((obs.penalties || [])[s] || 0) + " / " +
        rules.penalty_limit + (rules.chips_variant ? " \u00b7 chips " +
        ((obs.chips || [])[s] || 0) : "")));
      /* Face up: the holder's cards in its own view, and in the omniscient view (the
         engine's state, with the cards it is exchanging). */
      var hand = ctx.omniscient ? (hidden.hands || [])[s] || [] :
        s === ctx.me && obs.has_hand ? obs.hand || [] : [];
      if (hand.length) {
        add(box, privateHand(s, hand.map(cardCode), cards(hand)));
        if (ctx.omniscient && obs.holder === s && (hidden.discards || []).length) {
          add(box, add(el("div", "small discards"), "exchanging ", cards(hidden.discards)));
        }
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

  liarsPoker.omniscient = true;
  window.ArenaGames.liars_poker = liarsPoker;
})();
