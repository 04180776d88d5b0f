// A spectator's view of a game a person plays against a bot: the server's public,
// delayed lines (text only), polled until the game is over.
"use strict";

(function () {
  const body = document.body;
  const feedUrl = body.dataset.feedUrl;
  const status = document.getElementById("watch-status");
  const feed = document.getElementById("feed");
  const replay = document.getElementById("watch-replay");

  function poll() {
    fetch(feedUrl, { cache: "no-store" })
      .then(function (reply) { return reply.json(); })
      .then(function (data) {
        feed.textContent = data.lines.join("\n");
        body.dataset.lines = String(data.lines.length);
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
