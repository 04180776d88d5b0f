/* Liar's Poker in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message):
 * the seat's own hidden dice or cards face up inside `.hand[data-private-of=S]`, other
 * seats' face down; public reveals in `.reveal` boxes. Every number of the table
 * (penalties, chips, the limit, the deal, the stock, the cards held, the announcement
 * to beat) is the engine's (ctx.facts, referee/games/liars_poker/viewer.py).
 *
 * In a browser game (ctx.play, the person's turn) the holder clicks the cards to
 * exchange, and announces by category, then ranks.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, last = K.last, num = K.num,
      privateHand = K.privateHand, cardCode = K.cardCode, playingCard = K.playingCard,
      backs = K.backs, rankText = K.rankText, seatBox = K.seatBox, table = K.table,
      section = K.section, timeline = K.timeline, fresh = K.fresh;

  function category(name) { return pretty("X_CATEGORY_" + String(name).replace(/^.*_CATEGORY_/, "")); }
  function announcement(a) {
    a = a || {};
    return [el("b", null, pretty(a.category)), " " + (a.ranks || []).map(rankText).join(" ")];
  }
  /* The announcement to beat, from the engine's facts. */
  function standing(a) {
    var name = el("b", null, category(a.category));
    name.setAttribute("data-num", "announcement_category");
    name.setAttribute("data-value", a.category);
    var ranks = a.ranks.map(function (r) {
      var node = el("span", "rank", rankText(r));
      node.setAttribute("data-num", "announcement_rank");
      node.setAttribute("data-value", String(r));
      return node;
    });
    var out = [name];
    ranks.forEach(function (r) { out.push(" ", r); });
    return out;
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
  function codes(list) { return (list || []).map(cardCode).sort(); }

  /* The person's turn: exchange (click the cards), announce (category, then ranks), or
     answer an announcement. */
  function playControls(ctx, obs, hand) {
    var phase = obs.phase || "";
    var box = K.controls(null);
    if (/EXCHANGE/.test(phase)) {
      var exchanges = K.moves(ctx, "exchange");
      var held = obs.hand || [];
      var button = null;
      var redraw = function (picked) {
        var want = picked.map(function (i) { return cardCode(held[i]); }).sort();
        var found = exchanges.filter(function (m) {
          return K.sameList(codes(m.body.discards), want);
        })[0];
        var fresh = K.moveButton(ctx, picked.length ? "Exchange " + picked.length + " card" +
          (picked.length === 1 ? "" : "s") : "Keep all five", found ? found.index : null,
          "exchange", "primary");
        if (button) { box.replaceChild(fresh, button); } else { add(box, fresh); }
        button = fresh;
      };
      add(box, el("span", "muted small", "click the cards to exchange"));
      if (hand) { K.pickable([].slice.call(hand.querySelectorAll(".pcard")), redraw); } else { redraw([]); }
    } else if (/ANNOUNCE/.test(phase)) {
      var candidates = K.moves(ctx, "announce").map(function (m) {
        var a = m.body.announcement || {};
        return {index: m.index, group: String(a.category), values: a.ranks || []};
      });
      add(box, K.picker(ctx, candidates, {
        act: "announce", groupTitle: "announce", valuesTitle: "you announce",
        groupLabel: function (g) { return category(g); },
        valueLabel: function (v) { return el("b", "rank", rankText(v)); },
        sendLabel: "Announce"
      }));
    } else {
      K.moves(ctx).forEach(function (m) {
        if (m.kind === "accept") {
          add(box, K.moveButton(ctx, "Accept: take the cards", m.index, "accept", "primary"));
        } else if (m.kind === "challenge") {
          add(box, K.moveButton(ctx, "Challenge: show the cards", m.index, "challenge", "danger"));
        }
      });
    }
    return box;
  }

  function liarsPoker(obs, ctx) {
    var out = el("div", "game liars-poker");
    var f = ctx.facts || {};
    add(out, add(el("div", "facts"), add(el("span"), "deal ", num(f.deal, "deal")),
      el("span", null, pretty(obs.phase)), add(el("span"), "stock ", num(f.stock, "stock")),
      f.penalty_limit !== null && f.penalty_limit !== undefined ?
        add(el("span"), "penalty limit ", num(f.penalty_limit, "penalty_limit")) : null));
    var claims = obs.claims || [];
    var top = last(claims);
    var felt = el("div", "felt-main");
    if (f.announcement) {
      add(felt, el("span", "muted", "to beat: "), add(el("span", "big"), ...standing(f.announcement)),
        el("span", "muted", " by seat " + top.seat));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var hidden = ctx.hidden || {};
    var playing = !!ctx.play && obs.to_act === ctx.me;
    var myHand = null;
    var boxFor = function (s) {
      var badges = [];
      if (obs.dealer === s) { badges.push("dealer"); }
      if (obs.holder === s && f.held) { badges.push("holds the cards"); }
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, badges: badges});
      var line = add(el("div", "small"), "penalties ", num((f.penalties || [])[s], "penalties", s));
      if (f.penalty_limit !== null && f.penalty_limit !== undefined) {
        add(line, " / ", num(f.penalty_limit, "penalty_limit", s));
      }
      if (f.chips) { add(line, " \u00b7 chips ", num(f.chips[s], "chips", s)); }
      add(box, line);
      /* Face up: the holder's cards in its own view, and in the omniscient view (the
         engine's state, with the cards it is exchanging). */
      var hand = ctx.omniscient ? (hidden.hands || [])[s] || [] :
        K.isMe(ctx, s) && obs.has_hand ? obs.hand || [] : [];
      if (hand.length) {
        var row = cards(hand);
        if (K.isMe(ctx, s)) { myHand = row; }
        add(box, privateHand(s, hand.map(cardCode), row));
        if (ctx.omniscient && obs.holder === s && (hidden.discards || []).length) {
          add(box, add(el("div", "small discards"), "exchanging ", cards(hidden.discards)));
        }
      } else if (obs.holder === s && f.held) {
        add(box, backs(f.held, ""), add(el("span", "muted small back-label"), num(f.held, "held", s),
          " cards, face down"));
      }
      return box;
    };
    add(out, table(ctx, obs.num_seats, boxFor, felt));
    if (playing) { add(felt, playControls(ctx, obs, myHand)); }
    add(out, add(section("Claims this deal"), timeline(claims.map(function (c, i) {
      return {seat: c.seat, what: claimItem(c), cls: i === claims.length - 1 ? "latest" : null,
        note: i === claims.length - 1 ? "to beat" : null};
    }))));
    var results = obs.results || [];
    if (results.length && f.reveal) {
      var r = last(results);
      var isFresh = fresh(ctx, /: challenge$/) && !claims.length;
      var rev = section("Deal " + f.reveal.deal + ": challenge and reveal",
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
        add(el("div", "verdict " + (r.truthful ? "true" : "false"), "the announcement was " +
          (r.truthful ? "TRUE" : "a LIE") + " \u2014 seat "),
        num(f.reveal.penalised, "reveal_penalised"), " gets a penalty"));
      add(out, rev);
    }
    return out;
  }

  liarsPoker.omniscient = true;
  liarsPoker.playable = true;
  window.ArenaGames.liars_poker = liarsPoker;
})();
