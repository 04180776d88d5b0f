// A spectator's view of a game a person plays against a bot: the server's public,
// delayed table (drawn by the game's replay renderer as seen from no seat) and its
// lines, polled until the game is over.
"use strict";

(function () {
  const body = document.body;
  const feedUrl = body.dataset.feedUrl;
  const status = document.getElementById("watch-status");
  const feed = document.getElementById("feed");
  const board = document.getElementById("watch-board");
  const replay = document.getElementById("watch-replay");
  let drawn = "";

  /* The public table: no seat's cup or hand (the server sends none), nobody is "you". */
  function drawBoard(spec) {
    const key = JSON.stringify(spec);
    if (key === drawn) return;
    drawn = key;
    board.textContent = "";
    const draw = spec && window.ArenaGames && window.ArenaGames[spec.renderer];
    if (!draw) return;
    const ctx = {
      me: 0, spectator: true, seats: spec.seats, prevObs: spec.prev, facts: spec.facts,
      step: { index: 1, event_public: "" },
    };
    board.appendChild(draw(spec.obs, ctx));
  }

  function poll() {
    fetch(feedUrl, { cache: "no-store" })
      .then(function (reply) { return reply.json(); })
      .then(function (data) {
        const text = data.lines.join("\n");
        if (feed.textContent !== text) {
          feed.textContent = text;
          feed.scrollTop = feed.scrollHeight;
        }
        body.dataset.lines = String(data.lines.length);
        drawBoard(data.board);
        if (data.state === "over") {
          status.textContent = "the game is over";
          body.dataset.state = "over";
          if (data.replay) {
            replay.href = data.replay;
            replay.hidden = false;
          }
          return;
        }
        body.dataset.state = "running";
        status.textContent = "live: the round in play and the last finished one are held back";
        setTimeout(poll, 1000);
      })
      .catch(function () { setTimeout(poll, 3000); });
  }

  if (feedUrl) poll();
})();
