"""A match record as one self-contained HTML page: a step-by-step replay viewer.

:func:`render_replay_html` re-simulates the record (:func:`referee.replay.replay_steps`)
and writes a single page with inline CSS and JavaScript and the steps embedded as
JSON in a ``<script type="application/json">`` tag. The page makes no network
requests. The header (game, rules, seed, seats, result) is plain HTML; the step
view is drawn by the script:

* ``#first`` ``#prev`` ``#next`` ``#last`` buttons and the keys ArrowLeft,
  ArrowRight, Home and End step through the match; ``#step-counter`` reads
  ``step i / N`` (``N`` = number of events) and ``body[data-step]`` holds ``i``;
* ``#event-text`` is what happened in the current step, ``#to-act`` who acts next;
* ``#seat-select`` chooses the view: ``all`` (omniscient: every seat's
  ``.seat-panel[data-seat=N]``) or a seat number (only that seat's panel is in
  the DOM, and chance events — which show every seat's dice or cards — are
  replaced by a placeholder);
* ``#event-list`` lists every step (``li[data-step=i]``); clicking one jumps to it.

The location hash ``#step=I&seat=S`` selects the initial step and view.
"""

from __future__ import annotations

import functools
import html
import json
import math
import os
from typing import Any

from arena.v1 import bot_pb2
from referee.games import get_game
from referee.games.cards import KINDS
from referee.record import MatchRecord
from referee.replay import ReplayStep, replay_steps

__all__ = ["BASE_CSS", "json_for_script", "render_replay_html"]

COUNT_LABELS: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {
    "cockroach_poker": (frozenset({"hand", "face_up"}), tuple(kind.label for kind in KINDS)),
}
"""Per game: observation keys whose lists are counts per kind, and the kind names."""


def json_for_script(data: Any) -> str:
    """JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` are written as ``\\u003c`` escapes (valid JSON with the
    same value), so no string can close the element (``</script>``) or open a
    comment; U+2028/U+2029 are escaped too.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        text.replace("&", "\\u0026")
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _number(value: float) -> str:
    if not math.isfinite(value):
        return str(value)
    return str(int(value)) if value == int(value) else f"{value:g}"


BASE_CSS = """
:root { --fg: #1d2430; --muted: #5b6577; --line: #d5dae3; --bg: #f6f7fa; --card: #fff;
  --accent: #2357c6; --hl: #fff4c2; --bad: #b3261e; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--fg); background: var(--bg); }
main { max-width: 1200px; margin: 0 auto; padding: 16px 20px 40px; }
h1 { font-size: 22px; margin: 4px 0 8px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
a { color: var(--accent); }
.muted { color: var(--muted); }
.box { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 10px 14px; margin: 10px 0; }
table { border-collapse: collapse; }
th, td { padding: 3px 10px; border-bottom: 1px solid var(--line); text-align: left;
  vertical-align: top; }
th { font-weight: 600; background: #eef1f6; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.fault { color: var(--bad); font-weight: 600; }
dl.info { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
dl.info dt { color: var(--muted); }
dl.info dd { margin: 0; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 12.5px; }
"""

_REPLAY_CSS = """
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 300px; gap: 16px; }
@media (max-width: 900px) { .layout { grid-template-columns: 1fr; } }
#controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center;
  position: sticky; top: 0; z-index: 2; }
#controls button { font: inherit; padding: 4px 12px; border: 1px solid var(--line);
  border-radius: 6px; background: #fff; cursor: pointer; }
#controls button:disabled { opacity: .45; cursor: default; }
#controls select { font: inherit; padding: 3px 6px; }
#step-counter { font-variant-numeric: tabular-nums; font-weight: 600; min-width: 9em; }
#event-text { font-size: 17px; font-weight: 600; margin: 2px 0 4px; white-space: pre-wrap;
  overflow-wrap: anywhere; }
#panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr));
  gap: 12px; }
.seat-panel { background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  padding: 8px 12px; min-width: 0; overflow-x: auto; }
.seat-panel.acting { border-color: var(--accent); box-shadow: 0 0 0 2px #2357c633; }
.seat-panel h3 { font-size: 15px; margin: 0 0 6px; display: flex; gap: 6px;
  align-items: center; flex-wrap: wrap; }
.badge { font-size: 11px; font-weight: 600; padding: 1px 7px; border-radius: 10px;
  background: #e6ecfa; color: var(--accent); }
.badge.next { background: #fff0c2; color: #7a5a00; }
.badge.bad { background: #fbe3e1; color: var(--bad); }
.tree { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: 2px 10px;
  margin: 0; }
.tree > dt { color: var(--muted); }
.tree > dd { margin: 0; min-width: 0; overflow-wrap: break-word; }
.obj { display: inline-flex; flex-wrap: wrap; gap: 2px 12px; }
.obj .k { color: var(--muted); }
.tree .tree { border-left: 2px solid var(--line); padding-left: 8px; }
ol.items { margin: 0; padding-left: 20px; }
.empty { color: var(--muted); }
.chips { display: inline-flex; flex-wrap: wrap; gap: 4px; vertical-align: middle; }
.chip { display: inline-block; padding: 0 6px; border: 1px solid var(--line);
  border-radius: 4px; background: #f3f5f9; font-variant-numeric: tabular-nums; }
.die { display: inline-flex; width: 24px; height: 24px; align-items: center;
  justify-content: center; border: 1.5px solid #333; border-radius: 5px; background: #fff;
  font-weight: 700; }
.card { display: inline-block; min-width: 30px; padding: 2px 5px; text-align: center;
  border: 1px solid #888; border-radius: 4px; background: #fff; font-weight: 700; }
.card.red { color: #c0392b; }
.card.joker { color: #6a1b9a; }
#event-list { list-style: none; margin: 0; padding: 0; max-height: 70vh; overflow: auto; }
#event-list li { padding: 3px 8px; border-bottom: 1px solid var(--line); cursor: pointer;
  overflow-wrap: anywhere; }
#event-list li:hover { background: #eef3ff; }
#event-list li.current { background: var(--hl); font-weight: 600; }
#event-list .n { display: inline-block; min-width: 2.6em; color: var(--muted);
  font-variant-numeric: tabular-nums; }
.hidden-event { color: var(--muted); font-style: italic; }
"""

_REPLAY_JS = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("replay-data").textContent);
  var steps = data.steps;
  var last = steps.length - 1;
  var current = 0;
  var view = "all";
  var RANKS = {0: "Jk", 11: "J", 12: "Q", 13: "K", 14: "A"};
  var SUITS = {CLUBS: "\u2663", DIAMONDS: "\u2666", HEARTS: "\u2665", SPADES: "\u2660"};

  function byId(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }
  function isScalar(v) { return v === null || typeof v !== "object"; }
  function prettyEnum(v) {
    if (typeof v !== "string" || !/^[A-Z0-9_]+$/.test(v)) { return null; }
    for (var i = 0; i < data.enumPrefixes.length; i++) {
      var prefix = data.enumPrefixes[i];
      if (v.indexOf(prefix) === 0 && v.length > prefix.length) {
        return v.slice(prefix.length).toLowerCase().replace(/_/g, " ");
      }
    }
    return null;
  }
  function scalar(v) {
    var pretty = prettyEnum(v);
    if (pretty !== null) {
      var span = el("span", "enum", pretty);
      span.title = v;
      return span;
    }
    if (v === null) { return el("span", "empty", "null"); }
    return el("span", "value", typeof v === "string" ? v : JSON.stringify(v));
  }
  function chips(values, make) {
    var box = el("span", "chips");
    box.setAttribute("data-values", values.map(String).join(" "));
    values.forEach(function (v, i) {
      if (i) { box.appendChild(document.createTextNode(" ")); }
      box.appendChild(make(v, i));
    });
    return box;
  }
  function isCard(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v) &&
      Object.keys(v).length === 2 && "rank" in v && "suit" in v;
  }
  function card(v) {
    var suit = String(v.suit).replace(/^.*_SUIT_/, "");
    var joker = v.rank === 0;
    var text = joker ? "Jk" : (RANKS[v.rank] || String(v.rank)) + (SUITS[suit] || "?");
    var red = suit === "HEARTS" || suit === "DIAMONDS";
    var cls = "card" + (joker ? " joker" : (red ? " red" : ""));
    var node = el("span", cls, text);
    node.title = joker ? "joker" : String(v.rank) + " " + suit.toLowerCase();
    return node;
  }
  function render(value, key) {
    if (isScalar(value)) { return scalar(value); }
    if (Array.isArray(value)) {
      if (value.length === 0) { return el("span", "empty", "none"); }
      if (value.every(isScalar)) {
        var labels = data.countKeys.indexOf(key) >= 0 ? data.countLabels : null;
        if (labels && value.length === labels.length) {
          var shown = [];
          value.forEach(function (n, i) { if (n) { shown.push([labels[i], n]); } });
          if (shown.length === 0) { return el("span", "empty", "none"); }
          return chips(shown.map(function (p) { return p[0] + "\u00d7" + p[1]; }),
            function (t) { return el("span", "chip", t); });
        }
        var dice = /(^|_)dice$/.test(key) && value.every(function (v) {
          return typeof v === "number" && v >= 1 && v <= 6;
        });
        return chips(value, function (v) {
          if (dice) { return el("span", "die", v); }
          if (prettyEnum(v) !== null) { return scalar(v); }
          return el("span", "chip", typeof v === "string" ? v : JSON.stringify(v));
        });
      }
      if (value.every(isCard)) {
        var texts = value.map(function (c) { return card(c).textContent; });
        return chips(texts, function (t, i) { return card(value[i]); });
      }
      var list = el("ol", "items");
      list.start = 0;
      value.forEach(function (item) {
        var li = el("li");
        li.appendChild(render(item, key));
        list.appendChild(li);
      });
      return list;
    }
    var keys = Object.keys(value);
    if (keys.length === 0) { return el("span", "empty", "none"); }
    var flat = keys.every(function (k) {
      var v = value[k];
      return isScalar(v) || (Array.isArray(v) && v.every(isScalar));
    });
    if (flat) {
      var line = el("span", "obj");
      keys.forEach(function (k) {
        var pair = el("span", "pair");
        pair.setAttribute("data-key", k);
        pair.appendChild(el("span", "k", k.replace(/_/g, " ")));
        pair.appendChild(document.createTextNode(" "));
        pair.appendChild(render(value[k], k));
        line.appendChild(pair);
        line.appendChild(document.createTextNode(" "));
      });
      return line;
    }
    var dl = el("dl", "tree");
    keys.forEach(function (k) {
      var dt = el("dt", null, k.replace(/_/g, " "));
      var dd = el("dd");
      dd.setAttribute("data-key", k);
      dd.appendChild(render(value[k], k));
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    return dl;
  }
  function hidden(step) { return step.actor === null && step.index > 0 && view !== "all"; }
  function eventText(step) {
    if (step.index === 0) { return "start of the match"; }
    if (hidden(step)) { return "chance (hidden in seat " + view + "'s view)"; }
    return step.event;
  }
  function panel(seat, step) {
    var info = data.seats[seat];
    var box = el("section", "seat-panel");
    box.setAttribute("data-seat", String(seat));
    var head = el("h3", null, "Seat " + seat + "'s view \u2014 " + info.bot);
    if (step.actor === seat) {
      box.className += " acting";
      head.appendChild(el("span", "badge", "acted"));
    }
    if (step.to_act === "seat " + seat) {
      head.appendChild(el("span", "badge next", "to act"));
    }
    if (info.fault && step.index === last) {
      head.appendChild(el("span", "badge bad", info.fault));
    }
    box.appendChild(head);
    box.appendChild(render(step.observations[seat], ""));
    return box;
  }
  function drawList() {
    var list = byId("event-list");
    list.textContent = "";
    steps.forEach(function (step) {
      var li = el("li");
      li.setAttribute("data-step", String(step.index));
      li.appendChild(el("span", "n", step.index));
      li.appendChild(el("span", hidden(step) ? "hidden-event" : null, eventText(step)));
      li.addEventListener("click", function () { show(step.index); });
      list.appendChild(li);
    });
  }
  function show(index) {
    current = Math.max(0, Math.min(last, index));
    var step = steps[current];
    document.body.setAttribute("data-step", String(current));
    byId("step-counter").textContent = "step " + current + " / " + last;
    var text = byId("event-text");
    text.textContent = eventText(step);
    text.className = hidden(step) ? "hidden-event" : "";
    byId("to-act").textContent = step.to_act === "over" ? "the match is over" : step.to_act;
    byId("first").disabled = byId("prev").disabled = current === 0;
    byId("next").disabled = byId("last").disabled = current === last;
    var panels = byId("panels");
    panels.textContent = "";
    data.seats.forEach(function (_, seat) {
      if (view === "all" || String(seat) === view) { panels.appendChild(panel(seat, step)); }
    });
    var items = byId("event-list").children;
    for (var i = 0; i < items.length; i++) {
      var on = i === current;
      items[i].className = on ? "current" : "";
      if (on) {
        items[i].setAttribute("aria-current", "step");
        var box = byId("event-list");
        var top = items[i].offsetTop - box.offsetTop;
        if (top < box.scrollTop || top + items[i].offsetHeight > box.scrollTop + box.clientHeight) {
          box.scrollTop = Math.max(0, top - box.clientHeight / 2);
        }
      } else {
        items[i].removeAttribute("aria-current");
      }
    }
  }
  function setView(value) {
    view = value;
    byId("seat-select").value = value;
    document.body.setAttribute("data-view", value);
    drawList();
    show(current);
  }
  byId("first").addEventListener("click", function () { show(0); });
  byId("prev").addEventListener("click", function () { show(current - 1); });
  byId("next").addEventListener("click", function () { show(current + 1); });
  byId("last").addEventListener("click", function () { show(last); });
  byId("seat-select").addEventListener("change", function (e) { setView(e.target.value); });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") { return; }
    if (e.altKey || e.ctrlKey || e.metaKey) { return; }
    var target = {ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: last}[e.key];
    if (target !== undefined) { e.preventDefault(); show(target); }
  });
  var params = {};
  location.hash.replace(/^#/, "").split("&").forEach(function (part) {
    var kv = part.split("=");
    if (kv.length === 2) { params[kv[0]] = decodeURIComponent(kv[1]); }
  });
  var start = parseInt(params.step || "0", 10);
  current = isNaN(start) ? 0 : Math.max(0, Math.min(last, start));
  var seatParam = params.seat;
  var okSeat = seatParam !== undefined && /^[0-9]+$/.test(seatParam) &&
    Number(seatParam) < data.seats.length;
  setView(okSeat ? String(Number(seatParam)) : "all");
  document.body.setAttribute("data-ready", "true");
})();
"""


@functools.cache
def _enum_prefixes() -> tuple[str, ...]:
    """The value-name prefix of every protobuf enum (``LIARS_DICE_PHASE_``), longest first.

    The viewer strips them, so ``LIARS_DICE_PHASE_BID`` reads ``bid``.
    """
    prefixes = set()
    files = [bot_pb2.DESCRIPTOR, *bot_pb2.DESCRIPTOR.dependencies]
    for file in files:
        for enum in file.enum_types_by_name.values():
            names = [value.name for value in enum.values]
            common = os.path.commonprefix(names)  # noqa: RUF071 - strings, not paths
            if len(names) > 1 and "_" in common:
                prefixes.add(common[: common.rindex("_") + 1])
    return tuple(sorted(prefixes, key=lambda p: (-len(p), p)))


def _step_json(step: ReplayStep) -> dict[str, Any]:
    return {
        "index": step.index,
        "event": step.event,
        "actor": step.actor,
        "to_act": step.to_act,
        "observations": list(step.observations),
    }


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def replay_data(record: MatchRecord) -> dict[str, Any]:
    """What the page embeds: header, seats with results, and every step."""
    count_keys, count_labels = COUNT_LABELS.get(record.game, (frozenset(), ()))
    faults = {fault.seat: fault for fault in record.faults}
    return {
        "match_id": record.match_id,
        "game": record.game,
        "rules": record.rules,
        "seed": record.seed,
        "reason": record.reason,
        "seats": [
            {
                "seat": info.seat,
                "bot": info.bot,
                "version": info.version,
                "place": record.places[info.seat] if info.seat < len(record.places) else None,
                "score": _finite(record.scores[info.seat])
                if info.seat < len(record.scores)
                else None,
                "fault": faults[info.seat].kind.value if info.seat in faults else "",
            }
            for info in record.seats
        ],
        "enumPrefixes": list(_enum_prefixes()),
        "countKeys": sorted(count_keys),
        "countLabels": list(count_labels),
        "steps": [_step_json(step) for step in replay_steps(record)],
    }


def _header_html(record: MatchRecord, title: str, back: tuple[str, str] | None) -> str:
    game = get_game(record.game)
    faults = {fault.seat: fault for fault in record.faults}
    parts = []
    if back is not None:
        parts.append(f'<p><a id="back-link" href="{_esc(back[0])}">&larr; {_esc(back[1])}</a></p>')
    parts.append(f'<h1 id="title">{_esc(title)}</h1>')
    info = [
        ("game", f"{_esc(game.title)} <code>{_esc(record.game)}</code>"),
        ("match id", f'<code id="match-id">{_esc(record.match_id)}</code>'),
        ("chance", f'<code id="seed">{_esc(record.chance_label)}</code>'),
        ("result", f'<span id="reason">{_esc(record.reason)}</span>'),
        ("events", _esc(len(record.events))),
    ]
    if record.reason == "aborted":
        error = record.meta.get("error", "no error recorded")
        info.append(("referee error", f'<code id="aborted-error">{_esc(error)}</code>'))
    if record.started_at:
        info.append(("started", _esc(record.started_at)))
    if record.duration_ms:
        info.append(("duration", f"{record.duration_ms / 1000:.2f} s"))
    if record.time_limit_ms:
        info.append(("time limit", f"{record.time_limit_ms} ms per decision"))
    rules = ", ".join(
        f"<code>{_esc(key)}={_esc(value)}</code>" for key, value in sorted(record.rules.items())
    )
    info.append(("rules", f'<span id="rules">{rules or "defaults"}</span>'))
    parts.append(
        '<dl class="info box" id="match-info">'
        + "".join(f"<dt>{label}</dt><dd>{value}</dd>" for label, value in info)
        + "</dl>"
    )
    order = sorted(
        record.seats,
        key=lambda s: (record.places[s.seat] if s.seat < len(record.places) else 0, s.seat),
    )
    rows = []
    for info_row in order:
        seat = info_row.seat
        fault = faults.get(seat)
        place = record.places[seat] if seat < len(record.places) else ""
        score = _number(record.scores[seat]) if seat < len(record.scores) else ""
        fault_cell = (
            f'<span class="fault" title="{_esc(fault.message)}">{_esc(fault.kind.value)}</span>'
            if fault
            else "-"
        )
        rows.append(
            f'<tr data-seat="{seat}"><td class="num">{_esc(place)}</td><td class="num">{seat}</td>'
            f'<td class="bot">{_esc(info_row.bot)}</td><td class="num">{_esc(score)}</td>'
            f"<td>{fault_cell}</td></tr>"
        )
    parts.append(
        '<h2>Result</h2><table id="result-table" class="box"><thead><tr>'
        '<th class="num">place</th><th class="num">seat</th><th>bot</th>'
        '<th class="num">score</th><th>fault</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>"
    )
    seat_rows = []
    for info_row in record.seats:
        how = " ".join(info_row.command) or info_row.address
        seat_rows.append(
            f'<tr data-seat="{info_row.seat}"><td class="num">{info_row.seat}</td>'
            f'<td class="bot">{_esc(info_row.bot)}</td><td><code>{_esc(info_row.version)}</code>'
            f"</td><td><code>{_esc(how)}</code></td></tr>"
        )
    parts.append(
        '<details><summary>Seats</summary><table id="seats-table" class="box"><thead><tr>'
        '<th class="num">seat</th><th>bot</th><th>version</th><th>started by / address</th>'
        "</tr></thead><tbody>" + "".join(seat_rows) + "</tbody></table></details>"
    )
    if record.faults:
        items = "".join(
            f"<li>seat {f.seat} ({_esc(record.seats[f.seat].bot)}): <b>{_esc(f.kind.value)}</b>"
            f" after event {f.at_event}: {_esc(f.message)}</li>"
            for f in record.faults
            if f.seat < len(record.seats)
        )
        parts.append(f'<h2>Faults</h2><ul id="faults" class="box">{items}</ul>')
    return "\n".join(parts)


def render_replay_html(
    record: MatchRecord, *, title: str | None = None, back: tuple[str, str] | None = None
) -> str:
    """The replay viewer page of ``record`` (see the module docstring).

    ``back`` is an optional ``(href, text)`` link shown above the title (the
    league report links each replay back to the league page).
    """
    page_title = title or f"{get_game(record.game).title} — match {record.match_id}"
    options = ['<option value="all">all seats (omniscient)</option>'] + [
        f'<option value="{seat.seat}">seat {seat.seat} ({_esc(seat.bot)}) only</option>'
        for seat in record.seats
    ]
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{_esc(page_title)}</title>
<style>{BASE_CSS}{_REPLAY_CSS}</style>
</head>
<body data-step="0" data-view="all">
<main>
{_header_html(record, page_title, back)}
<h2>Replay</h2>
<div id="controls" class="box">
<button type="button" id="first" title="first step (Home)">&laquo; First</button>
<button type="button" id="prev" title="previous step (ArrowLeft)">&lsaquo; Prev</button>
<span id="step-counter" aria-live="polite">step 0 / {len(record.events)}</span>
<button type="button" id="next" title="next step (ArrowRight)">Next &rsaquo;</button>
<button type="button" id="last" title="last step (End)">Last &raquo;</button>
<label>view <select id="seat-select">{"".join(options)}</select></label>
</div>
<div class="layout">
<div>
<div class="box" id="current">
<div id="event-text"></div>
<div class="muted">next to act: <span id="to-act"></span></div>
</div>
<div id="panels"></div>
</div>
<aside class="box"><h2>Events</h2><ol id="event-list"></ol></aside>
</div>
<noscript><p>This replay viewer needs JavaScript.</p></noscript>
</main>
<script type="application/json" id="replay-data">{json_for_script(replay_data(record))}</script>
<script>{_REPLAY_JS}</script>
</body>
</html>
"""
