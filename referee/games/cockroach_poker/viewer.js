/* Cockroach Poker in the replay viewer: its renderer, registered in window.ArenaGames.
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
  var el = K.el, add = K.add, pretty = K.pretty, privateHand = K.privateHand,
      cardBack = K.cardBack, backs = K.backs, seatBox = K.seatBox, table = K.table,
      section = K.section, timeline = K.timeline, fresh = K.fresh;

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
  /* A row of critters from counts per kind (in kind order). */
  function critters(counts, extra) {
    var row = el("span", "cards");
    (counts || []).forEach(function (c, i) { if (c) { add(row, critter(i + 1, c, extra)); } });
    return row;
  }
  function known(card) { return !!card && !/UNSPECIFIED/.test(card); }
  function cockroachPoker(obs, ctx) {
    var out = el("div", "game cockroach-poker");
    /* The omniscient view reads every hidden card from the engine's state (ctx.hidden). */
    var hidden = ctx.omniscient ? ctx.hidden || {} : null;
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      el("span", null, "set aside unseen: " + (obs.set_aside || 0))));
    var p = obs.pending;
    var felt = el("div", "felt-main");
    if (p && /RESPOND/.test(obs.phase || "")) {
      var card = hidden ? hidden.pending : p.card;
      add(felt, el("span", "muted", "seat " + p.announcer + " \u2192 seat " + p.target + ": "),
        el("span", "big", "\u201cit is a " + kindWord(p.claim) + "\u201d "),
        known(card) ? privateHand(p.announcer, [kindWord(card)], critter(kindIndex(card),
          undefined, "small")) : cardBack("small"));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var boxFor = function (s) {
      var st = (obs.seats || [])[s] || {};
      var box = seatBox(ctx, s, {toAct: obs.to_act === s, out: st.eliminated});
      var hand = hidden ? (hidden.hands || [])[s] : s === ctx.me ? obs.hand || [] : null;
      if (hand) {
        add(box, privateHand(s, hand, critters(hand)),
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
      if (st.face_down && hidden) {
        var down = add(el("span", "face-down-shown"), el("span", "muted small", " face down: "),
          critters((hidden.face_down || [])[s]));
        down.setAttribute("data-values", ((hidden.face_down || [])[s] || []).join(" "));
        add(pile, down);
      } else if (st.face_down) {
        add(pile, " ", backs(st.face_down, st.face_down + " face down"));
      }
      add(box, pile);
      return box;
    };
    add(out, table(ctx, obs.num_seats, boxFor, felt));
    if (hidden && (obs.set_aside || 0)) {
      add(out, add(section("Set aside, unseen by every seat", "set-aside"),
        critters(hidden.set_aside)));
    }
    var hist = obs.history || [];
    var isFresh = fresh(ctx, /: (believe|disbelieve)$/);
    /* call_rule=published: the answer is a call "true" (believe) or "false". */
    var answers = (obs.rules || {}).call_rule_published ? ["called true", "called false"]
      : ["believed", "disbelieved"];
    add(out, add(section("Passes"), timeline(hist.map(function (h, i) {
      var card = hidden ? (hidden.passes || [])[i] : h.card;
      var what = ["\u2192 seat " + h.target + ": \u201c" + kindWord(h.claim) + "\u201d, " +
        (h.believed ? answers[0] : answers[1]) + "; seat " + h.taker + " takes it "];
      what.push(known(card) ? critter(kindIndex(card), undefined, "small") : cardBack("small"));
      var note = known(card) ? (kindIndex(card) === kindIndex(h.claim) ? "truth" : "bluff") :
        "unseen";
      if (h.eliminated) { note += ", seat " + h.taker + " is out"; }
      return {seat: h.announcer, what: what, note: note,
        cls: i === hist.length - 1 ? "latest" + (isFresh ? " reveal fresh" : "") : null};
    }))));
    return out;
  }

  cockroachPoker.omniscient = true;
  window.ArenaGames.cockroach_poker = cockroachPoker;
})();
