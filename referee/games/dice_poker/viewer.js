/* Dice Poker in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message).
 * Every number it draws (points per line, the upper sum and bonus, extra-Poker
 * bonuses, totals, what each open line would score) is the engine's, from ctx.facts
 * (referee/games/dice_poker/viewer.py): it sums nothing (a total it once summed
 * itself left the upper bonus out).
 *
 * In a browser game (ctx.play, the person's turn) the dice are what the person
 * clicks to choose the ones to re-roll, and each open line of their scorecard is a
 * button showing the points it would give.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, diceRow = K.diceRow, num = K.num,
      seatBox = K.seatBox, table = K.table, section = K.section;

  var UPPER = ["ACES", "TWOS", "THREES", "FOURS", "FIVES", "SIXES"];
  var LOWER = ["PAIR", "TWO_PAIR", "THREE_OF_A_KIND", "FOUR_OF_A_KIND", "FULL_HOUSE",
    "SMALL_STRAIGHT", "LARGE_STRAIGHT", "POKER", "CHANCE"];
  var LINES = UPPER.concat(LOWER);  /* card order: the engine's Line, facts' `lines` */
  function lineName(line) { return pretty("X_LINE_" + line); }
  function points(card, line) { return ((card || {}).lines || [])[LINES.indexOf(line)]; }
  function scored(card, line) {
    var v = points(card, line);
    return v !== null && v !== undefined;
  }
  /* Whether a scorecard of the observation (protobuf JSON) holds `line` yet. */
  function written(card, line) {
    return ((card || {}).entries || []).some(function (e) {
      return String(e.line).replace("DICE_POKER_LINE_", "") === line;
    });
  }

  /* The person's re-roll: click dice, then the button names how many. */
  function rerollControls(ctx, dice) {
    var rerolls = K.moves(ctx, "reroll");
    var box = K.controls(null);
    if (!rerolls.length) {
      add(box, el("span", "muted small", "no re-roll left: score a line"));
      return box;
    }
    var button = K.moveButton(ctx, "Re-roll", null, "reroll", "primary");
    var hint = el("span", "muted small", "click the dice to re-roll");
    add(box, hint, button);
    K.pickable([].slice.call(dice.querySelectorAll(".die")), function (picked) {
      var found = rerolls.filter(function (m) { return K.sameList(m.body.positions, picked); })[0];
      var fresh = K.moveButton(ctx, picked.length ? "Re-roll " + picked.length + " di" +
        (picked.length === 1 ? "e" : "ce") : "Re-roll", found ? found.index : null, "reroll",
        "primary");
      box.replaceChild(fresh, button);
      button = fresh;
    });
    return box;
  }

  function dicePoker(obs, ctx) {
    var out = el("div", "game dice-poker");
    var f = ctx.facts || {};
    var cards = f.cards || [];
    var choices = f.choices || {};
    var n = obs.num_seats;
    var over = /OVER/.test(obs.phase || "");
    var choosing = obs.current !== undefined && /CHOOSE/.test(obs.phase || "");
    var playing = !!ctx.play && choosing && obs.current === ctx.me;
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      add(el("span"), "round ", num(f.turn, "turn"), " of ", num(f.turns, "turns")),
      obs.current !== undefined ? add(el("span"), "roll ", num(f.rolls, "rolls"), " of ",
        num(f.max_rolls, "max_rolls")) : null));
    var felt = el("div", "felt-main");
    if (obs.current !== undefined && (obs.dice || []).length) {
      var rr = obs.reroll_positions || [];
      var dice = diceRow(obs.dice, {
        mark: function (v, i) { return rr.indexOf(i) >= 0 ? "rerolling" : ""; }
      });
      dice.setAttribute("data-dice", "table");
      add(felt, el("span", "muted", (K.isMe(ctx, obs.current) ? "you" : "seat " + obs.current) +
        " rolled "), dice);
      if (playing) { add(felt, rerollControls(ctx, dice)); }
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var boxFor = function (s) {
      var c = cards[s] || {};
      return add(seatBox(ctx, s, {toAct: obs.current === s && !over}),
        add(el("div", "score-total"), num(c.total, "total", s), " points"));
    };
    add(out, table(ctx, n, boxFor, felt));

    var t = el("table", "scorecard");
    var head = el("tr");
    add(head, el("th", null, "line"));
    for (var s = 0; s < n; s++) {
      add(head, el("th", "num", K.isMe(ctx, s) ? "you (seat " + s + ")" : "seat " + s));
    }
    add(t, add(el("thead"), head));
    var body = el("tbody");
    var prev = ctx.prevObs ? ctx.prevObs.scorecards || [] : null;
    var lineRow = function (line) {
      var tr = el("tr");
      tr.setAttribute("data-line", line);
      add(tr, el("td", null, lineName(line)));
      for (var s2 = 0; s2 < n; s2++) {
        var card = cards[s2] || {};
        var td = el("td", "num");
        if (scored(card, line)) {
          if (prev && !written(prev[s2], line)) { td.className += " just-scored"; }
          add(td, num(points(card, line), "line:" + line, s2));
        } else if (s2 === obs.current && choosing && choices[line]) {
          td.className += " open-choice";
          add(td, choiceCell(ctx, line, choices[line], playing, s2));
        }
        add(tr, td);
      }
      return tr;
    };
    var sumRow = function (label, key, cls) {
      var tr = el("tr", cls);
      add(tr, el("td", null, label));
      for (var s3 = 0; s3 < n; s3++) { add(tr, add(el("td", "num"), num((cards[s3] || {})[key], key, s3))); }
      return tr;
    };
    UPPER.forEach(function (line) { add(body, lineRow(line)); });
    add(body, sumRow("upper lines", "upper", "subtotal"),
      sumRow("upper bonus (" + (f.upper_inclusive ? "at least " : "more than ") +
        f.upper_threshold + ")", "upper_bonus", "subtotal"));
    LOWER.forEach(function (line) { add(body, lineRow(line)); });
    add(body, sumRow("extra Pokers", "extra_pokers", "subtotal"),
      sumRow("extra-Poker bonus", "extra_bonus", "subtotal"), sumRow("total", "total", "total"));
    add(t, body);
    var title = section("Scorecards");
    if (playing) {
      add(title, el("div", "muted small", "click a line of your card to score it: each shows the" +
        " points it would give" + (f.joker ? " (five of a kind again: an extra Poker, +100)" : "")));
    }
    add(out, add(title, t));
    return out;
  }

  /* An open line the dice may go into now: what it would score (the engine's points,
     and the total's gain when a bonus comes with it); in a browser game, the button. */
  function choiceCell(ctx, line, choice, playing, seat) {
    var label = el("span", "choice-points");
    add(label, playing ? "+" : "", num(choice.points, "choice:" + line, seat));
    if (choice.gain !== choice.points) {
      add(label, el("span", "small", " (total +"), num(choice.gain, "gain:" + line, seat),
        el("span", "small", ")"));
    }
    if (!playing) {
      label.className += " muted";
      return label;
    }
    var move = K.moves(ctx, "score").filter(function (m) {
      return String(m.body.line).replace("DICE_POKER_LINE_", "") === line;
    })[0];
    var b = K.moveButton(ctx, label, move ? move.index : null, "score");
    b.setAttribute("data-line", line);
    b.title = "score " + lineName(line) + ": " + choice.points + " points, total " + choice.total;
    return b;
  }

  dicePoker.omniscient = true;  /* nothing is hidden: every view draws the same table */
  dicePoker.playable = true;    /* a browser game is played on the board */
  window.ArenaGames.dice_poker = dicePoker;
})();
