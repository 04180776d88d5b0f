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

  window.ArenaGames.cockroach_poker = cockroachPoker;
})();
