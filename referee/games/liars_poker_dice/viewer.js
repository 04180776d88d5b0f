/* Liar's Poker Dice in the replay viewer: its renderer, registered in window.ArenaGames.
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
      /* Face up: the dice under the holder's cup in its own view, and in the
         omniscient view (the engine's state). */
      var hidden = ctx.hidden || {};
      var held = ctx.omniscient ? (hidden.dice || [])[s] || [] :
        s === ctx.me && obs.holder === s ? obs.dice || [] : [];
      if (held.length) {
        var rr = (ctx.omniscient ? hidden.reroll_positions : obs.reroll_positions) || [];
        add(box, privateHand(s, held, diceRow(held, {
          mark: function (v, i) { return rr.indexOf(i) >= 0 ? "rerolling" : ""; }
        })));
      } else if (obs.holder === s) {
        add(box, hiddenDice(5, s === ctx.me || ctx.omniscient ? "not rolled yet" :
          "under the cup"));
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

  liarsPokerDice.omniscient = true;
  window.ArenaGames.liars_poker_dice = liarsPokerDice;
})();
