"""A match record as one self-contained HTML page: a step-by-step replay viewer.

:func:`render_replay_html` re-simulates the record (:func:`referee.records.replay.replay_steps`)
and writes a single page with inline CSS and JavaScript and the steps embedded as
JSON in a ``<script type="application/json">`` tag. The page makes no network
requests. The header (game, rules, seed, seats, result) is plain HTML; the step
view is drawn by the script:

* ``#first`` ``#prev`` ``#next`` ``#last`` buttons and the keys ArrowLeft,
  ArrowRight, Home and End step through the match; ``#step-counter`` reads
  ``step i / N`` (``N`` = number of events) and ``body[data-step]`` holds ``i``;
* ``#event-text`` is what happened in the current step (an action with the mover's
  thinking time as the referee measured it; in the omniscient view a claim marked
  ``[true]`` or ``[a bluff]`` by the engine), ``#to-act`` who acts next, and in the
  omniscient view ``#claim-truth`` whether the claim standing now is true;
* ``#seat-select`` chooses the view: ``all`` (omniscient: one
  ``.seat-panel[data-seat=all]``, the table with every seat's hidden dice and cards
  face up) or a seat number (only that seat's panel is in the DOM, and every event
  reads as that seat may read it);
* ``#event-list`` lists every step (``li[data-step=i]``); clicking one jumps to it;
* ``#step-slider`` is a range input over the steps.

Each ``.seat-panel`` draws its seat's observation as that seat sees the table
(the game's renderer, ``referee/games/<game>/viewer.js``): its own hidden dice or cards
face up in ``.hand[data-private-of=N]``, other seats' face down, the bid or claim
history, the last challenge and reveal; the raw fields stay under a ``<details>``.
In a seat's view every event reads as the engine describes it to that seat
(``step.seen[seat]``: :meth:`~referee.gamekit.base.Game.describe_action` and
:meth:`~referee.gamekit.base.Game.describe_chance` with ``viewer``), so no other
cup, discarded card or re-rolled position shows; a chance outcome the seat sees
nothing of reads as a placeholder. What a renderer needs computed by the engine
(Liar's Dice: which faces count; every game: every number it draws, scores, totals,
counts, the bid to beat) comes in ``step.facts[seat]`` (the game's
``ViewerSpec.facts``), or once as ``step.facts_all`` when every seat's are alike.

The omniscient panel is drawn by the same renderer (one marked ``omniscient``) from
the public part of seat 0's observation and ``step.hidden``: every die and card the
engine's full state after the step hides (the game's ``ViewerSpec.hidden``, e.g.
:func:`referee.games.liars_dice.viewer.hidden_holdings`), each drawn face up in
``.hand[data-private-of=N]`` in its holder's place. A seat's view never reads it. A
game whose renderer is not marked shows every seat's own panel side by side instead.

The header lists the faults; ``fault_output`` (opt-in, the operator's own page only)
adds under each the last lines the faulted seat's bot wrote, escaped.

The script and style are package files in ``referee/records/viewer/`` inlined at build time.

The location hash ``#step=I&seat=S`` selects the initial step and view.
"""

from __future__ import annotations

import functools
import html
import json
import math
import os
from collections.abc import Mapping
from importlib import resources
from typing import Any

from arena.v1 import bot_pb2
from referee.core.catalogue import get_entry, get_game, load
from referee.core.events import ActionEvent
from referee.gamekit.base import Game
from referee.records.record import MatchRecord
from referee.records.replay import ReplayStep, replay_steps

__all__ = ["BASE_CSS", "enum_prefixes", "json_for_script", "render_replay_html", "replay_data"]


def count_labels(game: str) -> tuple[frozenset[str], tuple[str, ...]]:
    """The game's observation keys whose lists are counts per kind, and the kind names
    (its catalogue registration's :class:`~referee.core.catalogue.ViewerSpec`)."""
    viewer = get_entry(game).viewer
    if viewer.count_labels is None:
        return viewer.count_keys, ()
    kinds = load(viewer.count_labels)
    return viewer.count_keys, tuple(str(getattr(kind, "label", kind)) for kind in kinds)


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


def _asset(name: str, package: str = "referee.records", folder: str = "viewer") -> str:
    """A file of the viewer (``referee/records/viewer/``, or a plugin game's renderer
    script in its own package), shipped as package data."""
    text = resources.files(package).joinpath(folder, name).read_text(encoding="utf-8")
    if "</" in text and name.endswith(".js"):
        raise ValueError(f"{package}/{folder}/{name} must not contain '</' (inlined in <script>)")
    return text


def viewer_asset(name: str) -> str:
    """A file of the shared viewer kit (``games.js``, ``viewer.css``), for pages that
    draw one seat's view with a game's renderer outside a replay (a browser game)."""
    return _asset(name)


def renderer_script(game: str) -> str:
    """The plugin renderer the game's registration names (``ViewerSpec.script``), or ""."""
    reference = get_entry(game).viewer.script
    if reference is None:
        return ""
    package, _, name = reference.partition(":")
    return _asset(name, package, folder="")


BASE_CSS = _asset("base.css")
"""The page style shared by the replay viewer and the league report."""


@functools.cache
def enum_prefixes() -> tuple[str, ...]:
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


def _step_json(game: Game[Any, Any, Any, Any], step: ReplayStep) -> dict[str, Any]:
    data: dict[str, Any] = {
        "index": step.index,
        "event": step.event,
        "seen": list(step.seen),
        "actor": step.actor,
        "to_act": step.to_act,
        "observations": list(step.observations),
    }
    viewer = get_entry(game.name).viewer
    if viewer.facts is not None:
        facts = load(viewer.facts)
        each = [facts(game.observe(step.state, seat)) for seat in range(len(step.observations))]
        if all(seat_facts == each[0] for seat_facts in each[1:]):
            data["facts_all"] = each[0]  # alike for every seat: once (a page half the size)
        else:
            data["facts"] = each
    if viewer.hidden is not None:
        data["hidden"] = load(viewer.hidden)(step.state)
    return data


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def replay_data(record: MatchRecord) -> dict[str, Any]:
    """What the page embeds: header, seats with results, and every step."""
    count_keys, labels = count_labels(record.game)
    faults = {fault.seat: fault for fault in record.faults}
    game = get_game(record.game)
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
        "enumPrefixes": list(enum_prefixes()),
        "countKeys": sorted(count_keys),
        "countLabels": list(labels),
        "renderer": get_entry(record.game).viewer.renderer,
        "steps": _steps_json(game, record),
    }


def _steps_json(game: Game[Any, Any, Any, Any], record: MatchRecord) -> list[dict[str, Any]]:
    """Every step's JSON, with, for an action, the seat's thinking time (the
    referee's measured answer time) and, for the omniscient view, whether the claim
    it made is true (:meth:`~referee.gamekit.base.Game.claim_truth`) and whether the
    claim standing after it is (until a chance event or an action that is no claim)."""
    steps = replay_steps(record)
    actions = record.engine_events()
    out: list[dict[str, Any]] = []
    standing: bool | None = None
    for step in steps:
        data = _step_json(game, step)
        if step.index > 0:
            event = actions[step.index - 1]
            claim = None
            if isinstance(event, ActionEvent):
                claim = game.claim_truth(steps[step.index - 1].state, event.action)
                elapsed = record.events[step.index - 1].elapsed_ms
                if elapsed is not None and math.isfinite(elapsed):
                    data["think_ms"] = round(elapsed, 1)
            standing = claim
            data["claim"] = claim
        data["standing"] = standing
        out.append(data)
    return out


def _header_html(
    record: MatchRecord,
    title: str,
    back: tuple[str, str] | None,
    fault_output: Mapping[int, str],
) -> str:
    game = get_game(record.game)
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
    parts.extend(_seat_tables_html(record, fault_output))
    return "\n".join(parts)


def _seat_tables_html(record: MatchRecord, fault_output: Mapping[int, str]) -> list[str]:
    """The header's result table, seats table and fault list."""
    faults = {fault.seat: fault for fault in record.faults}
    parts = []
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
        parts.append(_faults_html(record, fault_output))
    return parts


def _faults_html(record: MatchRecord, fault_output: Mapping[int, str]) -> str:
    """The fault list; under a fault, the last lines its seat's bot wrote when the
    caller passed them (``fault_output``: never part of the record)."""
    items = []
    for fault in record.faults:
        if fault.seat >= len(record.seats):
            continue
        output = fault_output.get(fault.seat, "")
        tail = (
            f'<details class="fault-output" data-seat="{fault.seat}" open><summary>'
            f"the last lines seat {fault.seat}'s bot wrote (its captured output; not part of"
            f" the record)</summary><pre>{_esc(output)}</pre></details>"
            if output
            else ""
        )
        items.append(
            f'<li data-seat="{fault.seat}">seat {fault.seat}'
            f" ({_esc(record.seats[fault.seat].bot)}): <b>{_esc(fault.kind.value)}</b>"
            f" after event {fault.at_event}: {_esc(fault.message)}{tail}</li>"
        )
    return f'<h2>Faults</h2><ul id="faults" class="box">{"".join(items)}</ul>'


def render_replay_html(
    record: MatchRecord,
    *,
    title: str | None = None,
    back: tuple[str, str] | None = None,
    data: dict[str, Any] | None = None,
    site_nav: str | None = None,
    fault_output: Mapping[int, str] | None = None,
) -> str:
    """The replay viewer page of ``record`` (see the module docstring).

    ``back`` is an optional ``(href, text)`` link shown above the title (the
    league report links each replay back to the league page). ``data`` replaces
    :func:`replay_data` (tests use it to check what a seat's view depends on).
    ``site_nav`` is the menu bar of the site serving the page (``arena serve``
    renders its own ``_nav.html``), trusted HTML placed above ``<main>`` as it is;
    a standalone file has none, only its ``back`` link.

    ``fault_output`` maps a faulted seat to the last lines its bot wrote (the
    traceback of a crash), shown escaped under its fault. Opt-in, for the operator's
    own copy (``arena replay --html`` reads it from the league database): a bot's
    output is for its author, so a public page (``arena serve``, the league report)
    passes none.
    """
    page_title = title or f"{get_game(record.game).title} — match {record.match_id}"
    options = ['<option value="all">all seats (omniscient)</option>'] + [
        f'<option value="{seat.seat}">seat {seat.seat} ({_esc(seat.bot)}) only</option>'
        for seat in record.seats
    ]
    payload = json_for_script(replay_data(record) if data is None else data)
    script = _asset("games.js") + renderer_script(record.game) + _asset("viewer.js")
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{_esc(page_title)}</title>
<style>{BASE_CSS}{_asset("viewer.css")}</style>
</head>
<body data-step="0" data-view="all">
{site_nav or ""}
<main>
{_header_html(record, page_title, back, fault_output or {})}
<h2>Replay</h2>
<div id="controls" class="box">
<button type="button" id="first" title="first step (Home)">&laquo; First</button>
<button type="button" id="prev" title="previous step (ArrowLeft)">&lsaquo; Prev</button>
<span id="step-counter" aria-live="polite">step 0 / {len(record.events)}</span>
<button type="button" id="next" title="next step (ArrowRight)">Next &rsaquo;</button>
<button type="button" id="last" title="last step (End)">Last &raquo;</button>
<input type="range" id="step-slider" min="0" max="{len(record.events)}" value="0" \
aria-label="step">
<label>view <select id="seat-select">{"".join(options)}</select></label>
</div>
<div class="layout">
<div>
<div class="box" id="current">
<div id="event-text"></div>
<div class="muted">next to act: <span id="to-act"></span></div>
<div id="claim-truth" class="muted"></div>
</div>
<div id="panels"></div>
</div>
<aside class="box"><h2>Events</h2><ol id="event-list"></ol></aside>
</div>
<noscript><p>This replay viewer needs JavaScript.</p></noscript>
</main>
<script type="application/json" id="replay-data">{payload}</script>
<script>{script}</script>
</body>
</html>
"""
