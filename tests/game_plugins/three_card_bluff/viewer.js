/* Three-Card Bluff in the replay viewer: the toy plugin game's renderer.
 *
 * Its registration names this file (ViewerSpec.script); referee/records/html_replay.py
 * inlines it after games.js. It draws ONE seat's observation (the protobuf JSON of
 * ThreeCardBluffObservation): the seat's own card face up inside
 * `.hand[data-private-of=S]`, the other seat's face down until a call shows both.
 */
(function () {
  "use strict";
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function card(value) {
    var node = el("span", value ? "card" : "card back", value ? String(value) : "?");
    node.setAttribute("data-v", String(value || 0));
    return node;
  }
  function row(cls, who, child) {
    var box = el("div", cls);
    box.appendChild(el("span", "who", who));
    box.appendChild(document.createTextNode(" "));
    box.appendChild(child);
    return box;
  }
  window.ArenaGames = window.ArenaGames || {};
  window.ArenaGames.three_card_bluff = function (obs) {
    var out = el("div", "game three-card-bluff");
    var seat = Number(obs.seat || 0);
    var mine = row("hand", "seat " + seat + " (own card)",
      obs.card ? card(obs.card) : el("span", "empty", "not dealt"));
    mine.setAttribute("data-private-of", String(seat));
    out.appendChild(mine);
    out.appendChild(row("hand other", "seat " + (1 - seat), card(0)));
    out.appendChild(el("div", "claim", obs.claim ? "seat 0 claims a " + obs.claim : "no claim yet"));
    var answer = String(obs.response || "").replace(/^THREE_CARD_BLUFF_RESPONSE_/, "");
    if (answer && answer !== "UNSPECIFIED") {
      out.appendChild(el("div", "response", "seat 1 answers: " + answer.toLowerCase()));
    }
    var shown = obs.shown || [];
    if (shown.length) {
      var reveal = el("div", "reveal");
      reveal.appendChild(el("span", "who", "called: cards shown"));
      shown.forEach(function (value, index) {
        reveal.appendChild(document.createTextNode(" seat " + index + " "));
        reveal.appendChild(card(value));
      });
      out.appendChild(reveal);
    }
    return out;
  };
})();
