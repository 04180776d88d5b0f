/* Dice Poker in the replay viewer: its renderer, registered in window.ArenaGames.
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
  var el = K.el, add = K.add, pretty = K.pretty, diceRow = K.diceRow,
      seatBox = K.seatBox, table = K.table, section = K.section;

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

  dicePoker.omniscient = true;  /* nothing is hidden: every view draws the same table */
  window.ArenaGames.dice_poker = dicePoker;
})();
