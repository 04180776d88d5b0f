// Live standings: redraw the tables when the league's event stream says results changed.
// The server formats every cell (display rows); this only places text, never markup,
// except the crosstable and rating chart: the server's own fragment (/leagues/NAME/figures,
// same origin, no script in it), parsed with DOMParser and swapped in whole.
"use strict";

(function () {
  const body = document.body;
  const standingsUrl = body.dataset.standingsUrl;
  const eventsUrl = body.dataset.eventsUrl;
  const figuresUrl = body.dataset.figuresUrl;
  const status = document.getElementById("live-status");
  if (!standingsUrl || !eventsUrl || typeof EventSource === "undefined") {
    if (status) status.textContent = "live updates: not available in this browser";
    return;
  }

  function cell(tag, text, className) {
    const el = document.createElement(tag);
    el.textContent = text;
    if (className) el.className = className;
    return el;
  }

  function botLink(name, label) {
    const a = document.createElement("a");
    a.href = "/bots/" + encodeURIComponent(name);
    a.textContent = label;
    return a;
  }

  function fillStandings(rows) {
    const tbody = document.querySelector("#standings tbody");
    if (!tbody) return;
    const before = new Map();
    for (const tr of tbody.querySelectorAll("tr")) before.set(tr.dataset.bot, tr.textContent);
    const fresh = [];
    for (const row of rows) {
      const tr = document.createElement("tr");
      tr.dataset.bot = row.bot;
      tr.append(cell("td", row.rank, "num"));
      const name = cell("td", "", "bot");
      name.append(botLink(row.name || row.bot, row.bot));
      tr.append(name);
      tr.append(cell("td", row.elo, "num elo"));
      tr.append(cell("td", row.interval, "interval"));
      tr.append(cell("td", row.matches, "num matches"));
      tr.append(cell("td", row.wins, "num wins"));
      tr.append(cell("td", row.mean_place, "num"));
      tr.append(cell("td", row.mean_score, "num"));
      tr.append(cell("td", row.incremental_elo, "num"));
      tr.append(cell("td", row.faults, "faults"));
      fresh.push(tr);
    }
    tbody.replaceChildren(...fresh);
    for (const tr of fresh) {
      if (before.get(tr.dataset.bot) !== tr.textContent) tr.classList.add("updated");
    }
  }

  function fillLos(los) {
    const table = document.getElementById("los");
    if (!table) return;
    const head = document.createElement("tr");
    head.append(cell("th", ""));
    for (const bot of los.bots) head.append(cell("th", bot));
    table.tHead.replaceChildren(head);
    const rows = los.bots.map((bot, i) => {
      const tr = document.createElement("tr");
      tr.dataset.bot = bot;
      tr.append(cell("th", bot));
      for (const value of los.cells[i]) tr.append(cell("td", value || "-", "num"));
      return tr;
    });
    table.tBodies[0].replaceChildren(...rows);
  }

  function fillBluff(rows, bluff) {
    const table = document.getElementById("bluff");
    if (!table || !bluff) return;
    const keys = Array.from(table.tHead.querySelectorAll("th")).length - 1;
    const stats = ["bluff_rate", "challenge_rate", "challenge_accuracy", "wrongly_challenged"].slice(0, keys);
    const trs = rows.map((row) => {
      const tr = document.createElement("tr");
      tr.dataset.bot = row.bot;
      tr.append(cell("td", row.bot, "bot"));
      for (const key of stats) {
        const td = cell("td", row.bluff ? row.bluff[key] : "-", "num");
        td.dataset.stat = key;
        tr.append(td);
      }
      return tr;
    });
    table.tBodies[0].replaceChildren(...trs);
    const judged = document.getElementById("bluff-matches");
    if (judged) judged.textContent = String(bluff.matches);
  }

  async function refreshFigures() {
    const old = document.getElementById("figures");
    if (!figuresUrl || !old) return;
    const response = await fetch(figuresUrl, { headers: { accept: "text/html" } });
    if (!response.ok) throw new Error("figures: HTTP " + response.status);
    const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = parsed.getElementById("figures");
    if (fresh) old.replaceWith(document.adoptNode(fresh));
  }

  let fetching = false;
  let again = false;
  let announced = -1; // matches done according to the newest event

  async function refresh() {
    if (fetching) {
      again = true;
      return;
    }
    fetching = true;
    try {
      const response = await fetch(standingsUrl, { headers: { accept: "application/json" } });
      if (!response.ok) throw new Error("standings: HTTP " + response.status);
      const data = await response.json();
      fillStandings(data.display.rows);
      fillLos(data.display.los);
      fillBluff(data.display.rows, data.bluff);
      await refreshFigures();
      document.getElementById("done").textContent = String(data.done);
      document.getElementById("total").textContent = String(data.matches);
      body.dataset.done = String(data.done);
      status.textContent = "live updates: on (" + data.done + " matches)";
      if (data.done < announced) {
        // The server was still computing the newest table and sent the previous one.
        setTimeout(refresh, 1000);
      }
    } catch (error) {
      status.textContent = "live updates: " + error.message;
    } finally {
      fetching = false;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  let first = true;
  const source = new EventSource(eventsUrl);
  source.addEventListener("open", () => {
    status.textContent = "live updates: on";
  });
  source.addEventListener("results", (event) => {
    const state = JSON.parse(event.data);
    announced = state.done;
    if (first && String(state.done) === document.getElementById("done").textContent) {
      first = false; // the page was drawn with these results already
      body.dataset.done = String(state.done);
      return;
    }
    first = false;
    refresh();
  });
  source.addEventListener("error", () => {
    status.textContent = "live updates: reconnecting";
  });
  window.addEventListener("pagehide", () => source.close());
})();
