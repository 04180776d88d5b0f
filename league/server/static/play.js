// A browser game against a bot: show the seat's view, offer the legal moves as buttons,
// send the one clicked. Everything shown is text from the server (textContent, never
// markup); the server checks every move again, the referee once more.
"use strict";

(function () {
  const body = document.body;
  const stateUrl = body.dataset.stateUrl;
  const moveUrl = body.dataset.moveUrl;
  const csrf = body.dataset.csrf;
  const status = document.getElementById("status");
  const view = document.getElementById("view");
  const choices = document.getElementById("choices");
  const news = document.getElementById("news");
  const moveError = document.getElementById("move-error");
  const result = document.getElementById("result");
  const replay = document.getElementById("replay-link");
  let shownDecision = -1;
  let sending = false;
  let finished = false;
  let timer = null;

  /* One poll at a time: a move's answer asks for the next state sooner, never a
     second polling loop (each move used to add one). */
  function schedule(ms) {
    clearTimeout(timer);
    if (!finished) timer = setTimeout(poll, ms);
  }

  function addNews(lines) {
    for (const line of lines || []) {
      const li = document.createElement("li");
      li.textContent = line;
      news.appendChild(li);
    }
  }

  const board = document.getElementById("board");
  const fields = document.getElementById("view-fields");

  /* The table drawn by the game's replay renderer (the same one a replay's seat view
     uses), from the seat's own observation only; without one, the text stays open. */
  function drawBoard(data) {
    const spec = data.board;
    const draw = spec && window.ArenaGames && window.ArenaGames[spec.renderer];
    board.textContent = "";
    if (!draw) {
      fields.open = true;
      return;
    }
    const ctx = {
      me: spec.me, seats: spec.seats, prevObs: spec.prev, facts: spec.facts,
      step: { index: 1, event_public: "" },
    };
    board.appendChild(draw(spec.obs, ctx));
  }

  function showView(seatView, data) {
    view.textContent = (seatView.lines || []).join("\n");
    drawBoard(data);
  }

  const filter = document.getElementById("choice-filter");
  const FILTER_FROM = 12;

  /* Many moves (Liar's Dice offers up to 60 bids): a box narrows the buttons to the
     ones whose text holds what is typed ("6s", "challenge"). */
  function narrow() {
    const wanted = filter.value.trim().toLowerCase();
    for (const button of choices.querySelectorAll("button.choice")) {
      button.hidden = wanted !== "" && !button.textContent.toLowerCase().includes(wanted);
    }
  }
  if (filter) filter.addEventListener("input", narrow);

  function offer(seatView) {
    choices.textContent = "";
    if (filter) {
      filter.hidden = seatView.choices.length < FILTER_FROM;
      filter.value = "";
    }
    seatView.choices.forEach(function (label, index) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.dataset.choice = String(index);
      button.textContent = label;
      button.addEventListener("click", function () { send(seatView.decision, index); });
      choices.appendChild(button);
    });
  }

  function send(decision, choice) {
    if (sending) return;
    sending = true;
    for (const button of choices.querySelectorAll("button")) button.disabled = true;
    fetch(moveUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ decision: decision, choice: choice }),
    }).then(function (reply) {
      return reply.json().then(function (data) {
        if (!reply.ok) {
          moveError.hidden = false;
          moveError.textContent = "move refused: " + (data.error || reply.status);
        } else {
          moveError.hidden = true;
          choices.textContent = "";
          status.textContent = "move sent: waiting for the bot";
        }
      });
    }).catch(function () {
      moveError.hidden = false;
      moveError.textContent = "could not reach the server: try again";
      for (const button of choices.querySelectorAll("button")) button.disabled = false;
    }).finally(function () {
      sending = false;
      schedule(100);
    });
  }

  function finish(data) {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    choices.textContent = "";
    if (filter) filter.hidden = true;
    if (data.view) {
      addNews(data.view.news);
      showView(data.view, data);
    }
    status.textContent = "game over";
    body.dataset.state = "over";
    result.hidden = false;
    result.textContent = data.view ? data.view.result : "the game ended";
    if (data.replay) {
      replay.href = data.replay;
      replay.hidden = false;
    }
  }

  function poll() {
    fetch(stateUrl, { credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.json(); })
      .then(function (data) {
        if (data.state === "error") {
          status.textContent = data.error;
          body.dataset.state = "error";
          return;
        }
        if (data.state === "over" && data.replay) {
          finish(data);
          return;
        }
        if (data.state === "your-move") {
          const seatView = data.view;
          status.textContent = "your move: " + Math.ceil(data.seconds_left) + " s left";
          if (seatView.decision !== shownDecision && !sending) {
            shownDecision = seatView.decision;
            addNews(seatView.news);
            showView(seatView, data);
            offer(seatView);
            body.dataset.state = "your-move";
            body.dataset.decision = String(seatView.decision);
          }
        } else if (data.state === "waiting") {
          status.textContent = "waiting for the bot";
          body.dataset.state = "waiting";
        }
        schedule(400);
      })
      .catch(function () { schedule(2000); });
  }

  if (stateUrl && moveUrl) poll();
})();
