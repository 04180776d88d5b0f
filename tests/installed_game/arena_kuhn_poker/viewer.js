/* Kuhn Poker in the replay viewer: draws ONE seat's observation, its own card face up
 * inside `.hand[data-private-of=S]`, the other's face down until a showdown. */
(function () {
  "use strict";
  var K = window.ArenaKit;
  window.ArenaGames.kuhn_poker = function (obs) {
    var out = K.el("div", "game kuhn-poker");
    var seat = obs.seat || 0;
    var mine = K.el("div", "hand");
    mine.setAttribute("data-private-of", String(seat));
    K.add(mine, K.el("span", "card", obs.card ? String(obs.card) : "?"));
    K.add(out, K.add(K.el("div", "facts"), K.el("span", null, "seat " + seat)), mine);
    K.add(out, K.el("div", "moves", (obs.moves || []).map(K.pretty).join(", ") || "no move yet"));
    if (obs.shown && obs.shown.length) {
      K.add(out, K.el("div", "reveal", "shown: " + obs.shown.join(" vs ")));
    }
    return out;
  };
})();
