// A browser game against a bot: draw the seat's view with the game's replay renderer,
// let the person play on the board (the dice, cards and bids it draws; the legal moves
// as a list too), send the move clicked. Everything shown is text from the server
// (textContent, never markup); the server checks every move again, the referee once
// more.
"use strict";

(function () {
  const body = document.body;
  const stateUrl = body.dataset.stateUrl;
  const moveUrl = body.dataset.moveUrl;
  const csrf = body.dataset.csrf;
  const status = document.getElementById("status");
  const view = document.getElementById("view");
  const choices = document.getElementById("choices");
  const moveList = document.getElementById("move-list");
  const news = document.getElementById("news");
  const moveError = document.getElementById("move-error");
  const result = document.getElementById("result");
  const ending = document.getElementById("ending");
  const replay = document.getElementById("replay-link");
  let shownDecision = -1;
  let told = 0;
  let sending = false;
  let finished = false;
  let timer = null;

  /* One poll at a time: a move's answer asks for the next state sooner, never a
     second polling loop (each move used to add one). */
  function schedule(ms) {
    clearTimeout(timer);
    if (!finished) timer = setTimeout(poll, ms);
  }

  /* "What happened": every event as the engine tells it to this seat (both seats'
     moves, the dice rolled as this seat may see them, what each move settled). The
     server sends only the lines after the ones the page has. */
  function tell(data) {
    if (typeof data.told !== "number") return;
    const lines = data.story || [];
    if (data.told - lines.length !== told) return; /* not the lines after ours: next poll */
    for (const line of lines) {
      const li = document.createElement("li");
      li.textContent = line.text;
      li.className = line.settles ? "settles" : line.mine ? "mine" : line.seat === null ? "chance" : "theirs";
      if (line.seat !== null && line.seat !== undefined) li.dataset.seat = String(line.seat);
      news.appendChild(li);
    }
    told = data.told;
    if (lines.length) news.scrollTop = news.scrollHeight;
  }

  const board = document.getElementById("board");
  const fields = document.getElementById("view-fields");

  /* The table drawn by the game's replay renderer (the same one a replay's seat view
     uses), from the seat's own observation and the engine's numbers for it; on the
     person's turn, with the legal moves to compose one on the board. */
  function drawBoard(data, seatView) {
    const spec = data.board;
    const draw = spec && window.ArenaGames && window.ArenaGames[spec.renderer];
    board.textContent = "";
    if (!draw) {
      fields.open = true;
      return false;
    }
    const count = seatView ? seatView.choice_count || (seatView.choices || []).length : 0;
    const playable = !!(draw.playable && count && spec.moves && spec.moves.length === count);
    const ctx = {
      me: spec.me, seats: spec.seats, prevObs: spec.prev, facts: spec.facts,
      step: { index: 1, event_public: "" },
    };
    if (playable) {
      ctx.play = {
        moves: spec.moves,
        choose: function (index) { send(seatView.decision, index); },
      };
    }
    board.appendChild(draw(spec.obs, ctx));
    return playable;
  }

  function showView(seatView, data) {
    view.textContent = (seatView.lines || []).join("\n");
    return drawBoard(data, seatView);
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

  /* The legal moves as a list: folded away when the board takes the moves. The server
     lists at most its first few hundred (the board has every one). */
  function offer(seatView, onBoard) {
    choices.textContent = "";
    moveList.hidden = false;
    moveList.open = !onBoard;
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
    const more = (seatView.choice_count || 0) - seatView.choices.length;
    if (more > 0) {
      const note = document.createElement("p");
      note.className = "muted";
      note.textContent = more + " more moves: make them on the board";
      choices.appendChild(note);
    }
  }

  function disable() {
    for (const button of document.querySelectorAll("#choices button, #board button.move")) {
      button.disabled = true;
    }
  }

  function send(decision, choice) {
    if (sending) return;
    sending = true;
    disable();
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
          shownDecision = -1; /* draw the question again, buttons enabled */
        } else {
          moveError.hidden = true;
          choices.textContent = "";
          moveList.hidden = true;
          body.dataset.state = "sent";
          status.textContent = "move sent: waiting for the bot";
        }
      });
    }).catch(function () {
      moveError.hidden = false;
      moveError.textContent = "could not reach the server: try again";
      shownDecision = -1; /* draw the question again, buttons enabled */
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
    moveList.hidden = true;
    if (data.view) {
      showView(data.view, data);
    } else { /* no final view (a clock run out, a resignation): no move is left to make */
      for (const node of board.querySelectorAll("[data-controls]")) node.remove();
      disable();
    }
    status.textContent = "game over";
    document.getElementById("resign-box").hidden = true;
    body.dataset.state = "over";
    result.hidden = false;
    ending.textContent = data.ending || "the game ended";
    document.getElementById("placed").textContent = data.view ? data.view.result : "";
    if (data.replay) {
      replay.href = data.replay;
      replay.hidden = false;
    }
  }

  function poll() {
    const url = stateUrl + "?told=" + told + (shownDecision >= 0 ? "&seen=" + shownDecision : "");
    fetch(url, { credentials: "same-origin", cache: "no-store" })
      .then(function (reply) { return reply.json(); })
      .then(function (data) {
        tell(data);
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
          status.textContent = "your move: " + Math.ceil(data.seconds_left) + " s left";
          const seatView = data.view;
          if (seatView && seatView.decision !== shownDecision && !sending) {
            shownDecision = seatView.decision;
            const onBoard = showView(seatView, data);
            offer(seatView, onBoard);
            body.dataset.state = "your-move";
            body.dataset.decision = String(seatView.decision);
          }
        } else if (data.state === "waiting") {
          status.textContent = "waiting for the bot";
          body.dataset.state = "waiting";
        }
        schedule(data.state === "your-move" ? 500 : 200);
      })
      .catch(function () { schedule(2000); });
  }

  /* Resigning takes two clicks; the record then says "resigned". */
  const resign = document.getElementById("resign");
  const confirmResign = document.getElementById("resign-confirm");
  resign.addEventListener("click", function () { confirmResign.hidden = false; });
  confirmResign.addEventListener("click", function () {
    confirmResign.disabled = true;
    fetch(body.dataset.resignUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "x-csrf-token": csrf },
    }).then(function (reply) {
      if (reply.ok) {
        status.textContent = "you resigned: the game ends at once";
        document.getElementById("resign-box").hidden = true;
        disable();
      }
    }).finally(function () { schedule(100); });
  });

  if (stateUrl && moveUrl) poll();
})();
