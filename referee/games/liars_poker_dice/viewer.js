/* Liar's Poker Dice in the replay viewer: its renderer, registered in window.ArenaGames.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after the shared kit (referee/records/viewer/games.js, window.ArenaKit).
 * It draws ONE seat's observation (protobuf JSON of the game's observation message):
 * the seat's own hidden dice or cards face up inside `.hand[data-private-of=S]`, other
 * seats' face down; public reveals in `.reveal` boxes. Every number of the table
 * (chips, the pot, the round, the dice under the cup, the declaration to beat) is the
 * engine's (ctx.facts, referee/games/liars_poker_dice/viewer.py).
 *
 * In a browser game (ctx.play, the person's turn) the holder clicks the dice to
 * re-roll, and declares a hand by its category, then its faces.
 */
(function () {
  "use strict";
  var K = window.ArenaKit;
  var el = K.el, add = K.add, pretty = K.pretty, last = K.last, die = K.die, num = K.num,
      diceRow = K.diceRow, hiddenDice = K.hiddenDice, privateHand = K.privateHand,
      seatBox = K.seatBox, table = K.table, section = K.section, timeline = K.timeline,
      fresh = K.fresh;

  function category(name) { return pretty("X_CATEGORY_" + String(name).replace(/^.*_CATEGORY_/, "")); }
  function pdHand(h) {
    h = h || {};
    return [el("b", null, pretty(h.category)), " "].concat(
      (h.faces || []).map(function (f) { return die(f, "small"); }));
  }
  /* The declaration to beat, from the engine's facts. */
  function declared(h) {
    var name = el("b", null, category(h.category));
    name.setAttribute("data-num", "declaration_category");
    name.setAttribute("data-value", h.category);
    var faces = h.faces.map(function (v) {
      var d = die(v, "small");
      d.setAttribute("data-num", "declaration_face");
      return d;
    });
    return [name, " "].concat(faces);
  }
  function lpdStep(st) {
    var kind = pretty(st.kind);
    if (kind === "declare") { return ["declares "].concat(pdHand(st.hand)); }
    if (kind === "accept") { return ["accepts and takes the dice"]; }
    if (kind === "reroll") { return ["re-rolls " + st.count + " di" + (st.count === 1 ? "e" : "ce")]; }
    return [kind];
  }

  /* The person's turn: re-roll (click the dice), declare (category, then faces), or
     answer a declaration. */
  function playControls(ctx, obs, dice) {
    var phase = obs.phase || "";
    var box = K.controls(null);
    if (/REROLL/.test(phase)) {
      var rerolls = K.moves(ctx, "reroll");
      var button = null;
      var redraw = function (picked) {
        var found = rerolls.filter(function (m) { return K.sameList(m.body.positions, picked); })[0];
        var fresh = K.moveButton(ctx, picked.length ? "Re-roll " + picked.length + " di" +
          (picked.length === 1 ? "e" : "ce") : "Keep all five", found ? found.index : null,
          "reroll", "primary");
        if (button) { box.replaceChild(fresh, button); } else { add(box, fresh); }
        button = fresh;
      };
      add(box, el("span", "muted small", "click the dice to re-roll"));
      if (dice) { K.pickable([].slice.call(dice.querySelectorAll(".die")), redraw); } else { redraw([]); }
    } else if (/DECLARE/.test(phase)) {
      var candidates = K.moves(ctx, "declare").map(function (m) {
        var h = m.body.hand || {};
        return {index: m.index, group: String(h.category), values: h.faces || []};
      });
      add(box, K.picker(ctx, candidates, {
        act: "declare", groupTitle: "declare", valuesTitle: "you declare",
        groupLabel: function (g) { return category(g); },
        valueLabel: function (v) { return die(v, "small"); },
        sendLabel: "Declare"
      }));
    } else {
      K.moves(ctx).forEach(function (m) {
        if (m.kind === "accept") {
          add(box, K.moveButton(ctx, "Accept: take the dice", m.index, "accept", "primary"));
        } else if (m.kind === "challenge") {
          add(box, K.moveButton(ctx, "Challenge: lift the cup", m.index, "challenge", "danger"));
        }
      });
    }
    return box;
  }

  function liarsPokerDice(obs, ctx) {
    var out = el("div", "game liars-poker-dice");
    var f = ctx.facts || {};
    add(out, add(el("div", "facts"), el("span", null, pretty(obs.phase)),
      add(el("span"), "pot ", num(f.pot, "pot")),
      add(el("span"), "round ", num(f.round, "round")),
      obs.winner !== undefined ? el("span", "badge", "seat " + obs.winner + " wins") : null));
    var steps = obs.steps || [];
    var playing = !!ctx.play && obs.actor === ctx.me;
    var felt = el("div", "felt-main");
    if (f.declaration) {
      var by = null;
      steps.forEach(function (st) { if (pretty(st.kind) === "declare") { by = st.seat; } });
      add(felt, el("span", "muted", "declared: "), add(el("span", "big"), ...declared(f.declaration)),
        el("span", "muted", " by seat " + by));
    } else {
      add(felt, el("span", "muted", pretty(obs.phase)));
    }
    var myDice = null;
    var hidden = ctx.hidden || {};
    var boxFor = function (s) {
      var box = seatBox(ctx, s, {toAct: obs.actor === s,
        badges: obs.holder === s ? ["holds the dice"] : []});
      var chips = el("div", "chips-row");
      var count = (f.chips || [])[s] || 0;
      for (var i = 0; i < count; i++) { add(chips, el("span", "token")); }
      add(chips, add(el("span", "muted small"), num(count, "chips", s), " chips"));
      add(box, chips);
      /* Face up: the dice under the holder's cup in its own view, and in the
         omniscient view (the engine's state). */
      var held = ctx.omniscient ? (hidden.dice || [])[s] || [] :
        K.isMe(ctx, s) && obs.holder === s ? obs.dice || [] : [];
      if (held.length) {
        var rr = (ctx.omniscient ? hidden.reroll_positions : obs.reroll_positions) || [];
        var row = diceRow(held, {
          mark: function (v, i) { return rr.indexOf(i) >= 0 ? "rerolling" : ""; }
        });
        if (K.isMe(ctx, s)) { myDice = row; }
        add(box, privateHand(s, held, row));
      } else if (obs.holder === s && f.cup_dice) {
        var cup = hiddenDice(f.cup_dice, K.isMe(ctx, s) || ctx.omniscient ? "not rolled yet" :
          "under the cup");
        cup.setAttribute("data-num-dice", String(f.cup_dice));
        add(box, cup);
      }
      return box;
    };
    var drawn = table(ctx, 2, boxFor, felt);
    if (playing) { add(felt, playControls(ctx, obs, myDice)); }
    add(out, drawn);
    add(out, add(section("This round"), timeline(steps.map(function (st, i) {
      return {seat: st.seat, what: lpdStep(st), cls: i === steps.length - 1 ? "latest" : null};
    }))));
    var rounds = obs.rounds || [];
    if (rounds.length && f.reveal) {
      var r = last(rounds);
      var isFresh = fresh(ctx, /: challenge$/) && !steps.length;
      var rev = section("Round " + f.reveal.round + ": challenge and reveal",
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
        add(el("div", "verdict"), "seat ", num(f.reveal.loser, "reveal_loser"), " pays a chip"));
      add(out, rev);
    }
    return out;
  }

  liarsPokerDice.omniscient = true;
  liarsPokerDice.playable = true;
  window.ArenaGames.liars_poker_dice = liarsPokerDice;
})();
