"""A league as static HTML: one league page plus a replay page per finished match.

:func:`write_league_report` writes ``path`` and, in the sibling directory
``<path.stem>_matches/``, ``match-NNNN.html`` (NNNN = the match's schedule
position) for every finished match, linked relatively, so the directory can be
copied or served anywhere. Every page is self-contained (inline CSS, inline SVG,
no network requests). The league page has, with stable ids:

* ``#league-info`` — game, rules, schedule, progress;
* ``#standings`` — the bot with its version under it, Elo (the Bradley–Terry fit
  with its weak prior) with its 95 % interval (also drawn as a bar per row, one
  scale for all rows), the Elo history's last value (incremental, order-dependent),
  matches, wins, mean place, mean score, faults (``tr[data-bot]``), and for a
  game with claims the four bluff analytics (``td.bluff[data-stat]``, definitions
  in ``docs/bots.md``); it fits a 1280 px wide screen with the bluff columns;
* ``#crosstable`` — per pair W-D-L, Elo difference ± 95 % margin
  (:func:`~league.domain.ratings.pair_elo`: finite) and LOS (cutechess-cli),
  ``td[data-row][data-col]``;
* ``#population`` — Nash averaging (:mod:`league.domain.population`): each bot's mass
  in the maximum-entropy Nash mixture of the payoff matrix and its value against that
  mixture (``tr[data-bot]``, ``td[data-stat="mass"|"value"]``);
* ``#elo-chart`` — the Elo history: incremental Elo after each finished match (``elo_history``),
  an SVG polyline per bot (``polyline[data-bot]``);
* ``#matches`` — every scheduled match (``tr[data-position]``), finished ones
  linking to their replay (``a.replay-link``).

The crosstable, the population view and the chart come from :func:`rating_figures`'
code, which the server's league page (``arena serve``) shows too.
"""

# long module: one self-contained HTML report, its sections built from one pass over the
# league's data

from __future__ import annotations

import html
import json
import math
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import quote

from sqlmodel import Session, col, select

from league.domain.population import Population
from league.domain.ratings import PRIOR_DRAWS, HeadToHead, elo_history, pair_elo
from league.store.leagues import (
    bot_labels,
    decompress_record,
    finished_results,
    league_status,
)
from league.store.models import BotRow, LeagueRow, MatchRow, SeatRow
from league.store.sprt_tests import MODE as SPRT_MODE
from league.store.sprt_tests import llr_path
from league.store.standings import Standing, crosstable, league_population, standings
from referee.core.catalogue import get_game
from referee.gamekit.base import GameError
from referee.records.analytics import BluffStats, format_ratio
from referee.records.files import write_atomic
from referee.records.html_replay import BASE_CSS, render_replay_html
from referee.records.record import RecordError

__all__ = [
    "REPORT_CSS",
    "RatingFigures",
    "match_file_name",
    "population_html",
    "rating_figures",
    "write_league_report",
]

PALETTE = (
    "#2357c6",
    "#d9480f",
    "#2b8a3e",
    "#ae3ec9",
    "#e8590c",
    "#0c8599",
    "#c2255c",
    "#5c940d",
    "#1864ab",
    "#862e9c",
    "#495057",
    "#f08c00",
)


def match_file_name(position: int) -> str:
    """The replay page of the match at schedule ``position``: ``match-0007.html``."""
    return f"match-{position:04d}.html"


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _fmt(value: float | None, digits: int = 0, *, sign: bool = False) -> str:
    if value is None or math.isnan(value):
        return "–"
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    if round(value, digits) == 0:
        value = 0.0
    text = f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"
    return text.replace("-", "−")


def _score(value: float) -> str:
    if not math.isfinite(value):
        return _fmt(value)
    return str(int(value)) if value == int(value) else f"{value:g}"


BAR_WIDTH: Final = 140
"""Pixels of the interval bar in a standings row: with the bluff analytics' four
columns the table still fits a 1280 px wide screen (``tests/browser/test_pages.py``)."""

REPORT_CSS: Final = """
.bar-cell { width: 150px; }
#standings th, #standings td { padding: 3px 6px; }
#standings .version { font-size: 11px; color: var(--muted); }
#elo-chart { max-width: 820px; display: block; }
.legend-item { display: inline-flex; align-items: center; gap: 5px; }
svg text { font: 11px system-ui, sans-serif; fill: var(--muted); }
#crosstable td { text-align: center; font-variant-numeric: tabular-nums; white-space: nowrap; }
#crosstable td.self { background: #eef1f6; color: var(--muted); }
#crosstable .wdl { font-weight: 600; }
#crosstable .diff, #crosstable .los { font-size: 12px; color: var(--muted); }
#crosstable th.row { text-align: left; }
#population td.num { font-variant-numeric: tabular-nums; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 16px; margin-top: 6px; }
#matches td { white-space: nowrap; }
#matches .seats { white-space: normal; }
.place-1 { font-weight: 700; }
.scroll { overflow-x: auto; }
"""


def _order(ranked: Sequence[str], names: Sequence[str]) -> list[str]:
    """The ranked bots, then every other bot of the league: the rows and columns of
    the crosstable and the order of the chart's colours."""
    return [*ranked, *(n for n in names if n not in set(ranked))]


def _colors(order: Sequence[str]) -> dict[str, str]:
    return {bot: PALETTE[i % len(PALETTE)] for i, bot in enumerate(order)}


@dataclass(frozen=True, slots=True)
class RatingFigures:
    """A league's rating chart and crosstable as HTML fragments (every name escaped,
    no script, no style attribute): what the static report shows, for the server's
    league page to show too. Style them with :data:`BASE_CSS` or the server's style
    sheet plus :data:`REPORT_CSS`."""

    chart: str
    crosstable: str
    population: str
    llr: str = ""
    """An SPRT's LLR over pairs (:func:`llr_chart_html`); empty for other leagues."""


def rating_figures(*, session: Session, league: LeagueRow, ranked: Sequence[str]) -> RatingFigures:
    """The chart and crosstable of ``league``, bots in the order ``ranked`` (the
    standings' order; the league's other bots after them) — drawn by the same code
    as :func:`write_league_report`'s page."""
    order = _order(ranked, list(bot_labels(session=session, league=league).values()))
    results = finished_results(session=session, league=league)
    history = elo_history(results, k=league.k_factor)
    cross = crosstable(session=session, league=league)
    return RatingFigures(
        chart=_chart_html(history, order, _colors(order), league.k_factor),
        crosstable=_crosstable_html(order, cross),
        population=population_html(league_population(results)),
        llr=sprt_chart(session=session, league=league),
    )


def sprt_chart(*, session: Session, league: LeagueRow) -> str:
    """The LLR-over-pairs chart of an SPRT league; empty for any other league."""
    if league.mode != SPRT_MODE:
        return ""
    path, lower, upper = llr_path(session=session, league=league)
    return llr_chart_html(path, lower, upper)


def llr_chart_html(path: Sequence[float], lower: float, upper: float) -> str:
    """``#llr-chart``: the pentanomial LLR after each finished pair (a line from 0),
    with the test's bounds: H1 is accepted when the line reaches the upper one, H0
    at the lower one."""
    if not path:
        return '<p id="llr-chart" class="box muted">No finished pair yet.</p>'
    width, height = 820, 280
    left, right, top, bottom = 52, 16, 12, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    count = len(path)
    low = min(lower, *path) - 0.2
    high = max(upper, *path) + 0.2

    def px(index: float) -> float:
        return round(left + index / count * plot_w, 1)

    def py(value: float) -> float:
        return round(top + (high - value) / (high - low) * plot_h, 1)

    parts = [
        f'<svg id="llr-chart" class="box" width="100%" viewBox="0 0 {width} {height}" '
        'preserveAspectRatio="xMinYMin meet" role="img" '
        'aria-label="log-likelihood ratio after each pair">'
    ]
    for value, label, color in (
        (upper, f"H1 at {upper:.2f}", "#2e7d32"),
        (0.0, "0", "#9aa3b2"),
        (lower, f"H0 at {lower:.2f}", "#c62828"),
    ):
        y = py(value)
        parts.append(
            f'<line class="bound" x1="{left}" y1="{y}" x2="{width - right}" y2="{y}"'
            f' stroke="{color}" stroke-dasharray="6 4"/>'
            f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{_esc(label)}</text>'
        )
    parts += _x_axis(count, px, (left, top, plot_w, plot_h, height), "pairs finished")
    coords = " ".join(f"{px(i)},{py(v)}" for i, v in enumerate([0.0, *path]))
    parts.append(
        f'<polyline data-pairs="{count}" points="{coords}" fill="none" stroke="#1f5fbf"'
        f' stroke-width="2" stroke-linejoin="round"><title>LLR {path[-1]:.2f} after'
        f" {count} pairs</title></polyline></svg>"
    )
    return "".join(parts) + (
        "<p class=\"muted\">The pentanomial LLR (Fishtest's and OpenBench's exact statistic,"
        " docs/sprt.md) after each pair of matches, both of whose matches are done.</p>"
    )


def write_league_report(
    *,
    session: Session,
    league: LeagueRow,
    path: Path,
    samples: int = 1000,
    on_progress: Callable[[str], None] | None = None,
) -> list[Path]:
    """Write the league page at ``path`` and a replay page per finished match.

    Returns the files written, the league page first. A stored record that
    cannot be replayed gets a page saying why instead of a replay. ``on_progress``
    hears what is being done (the ratings, then the replays about every tenth).
    """
    tell = on_progress or (lambda _line: None)
    path = Path(path)
    match_dir = path.parent / f"{path.stem}_matches"
    match_dir.mkdir(parents=True, exist_ok=True)
    tell(f"standings and ratings ({samples} bootstrap samples) ...")
    table = standings(session=session, league=league, samples=samples, include_retired=True)
    cross = crosstable(session=session, league=league)
    results = finished_results(session=session, league=league)
    history = elo_history(results, k=league.k_factor)
    population = league_population(results)
    matches = list(
        session.exec(
            select(MatchRow).where(MatchRow.league_id == league.id).order_by(col(MatchRow.position))
        )
    )
    seats: dict[int, list[tuple[SeatRow, BotRow]]] = {}
    for seat, bot in session.exec(
        select(SeatRow, BotRow)
        .join(MatchRow, col(MatchRow.id) == SeatRow.match_id)
        .join(BotRow, col(BotRow.id) == SeatRow.bot_id)
        .where(MatchRow.league_id == league.id)
    ):
        seats.setdefault(seat.match_id, []).append((seat, bot))
    for rows in seats.values():
        rows.sort(key=lambda pair: pair[0].seat)

    written: list[Path] = []
    links: dict[int, str] = {}
    back = (quote(f"../{path.name}"), f"league {league.name}")
    replays = [m for m in matches if m.status in ("done", "aborted") and m.record is not None]
    step = max(1, len(replays) // 10)
    for match in matches:
        if match.status not in ("done", "aborted") or match.record is None:
            continue  # an aborted match keeps its record: its page shows the error
        if len(written) % step == 0:
            tell(f"match replays {len(written)}/{len(replays)} ...")
        file = match_dir / match_file_name(match.position)
        title = f"{league.name} · match {match.position}"
        try:
            record = decompress_record(match.record)
            page = render_replay_html(record, title=title, back=back)
        except (RecordError, GameError, zlib.error, UnicodeDecodeError) as error:
            page = _error_page(title, back, error)
        write_atomic(file, page.encode("utf-8"))
        written.append(file)
        links[match.position] = f"{quote(match_dir.name)}/{match_file_name(match.position)}"

    names = list(bot_labels(session=session, league=league).values())
    page = _league_page(
        session=session,
        league=league,
        table=table,
        cross=cross,
        population=population,
        history=history,
        names=names,
        matches=matches,
        seats=seats,
        links=links,
        samples=samples,
    )
    write_atomic(path, page.encode("utf-8"))
    return [path, *written]


def _page(title: str, body: str, extra_css: str = "") -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; \
style-src 'unsafe-inline'; img-src data:">
<title>{_esc(title)}</title>
<style>{BASE_CSS}{extra_css}</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""


def _error_page(title: str, back: tuple[str, str], error: Exception) -> str:
    body = (
        f'<p><a id="back-link" href="{_esc(back[0])}">&larr; {_esc(back[1])}</a></p>'
        f'<h1 id="title">{_esc(title)}</h1>'
        f'<p id="replay-error" class="box fault">This match record cannot be replayed:'
        f" {_esc(error)}</p>"
    )
    return _page(title, body)


def _league_page(
    *,
    session: Session,
    league: LeagueRow,
    table: Sequence[Standing],
    cross: dict[str, dict[str, HeadToHead]],
    population: Population | None,
    history: list[dict[str, float]],
    names: list[str],
    matches: Sequence[MatchRow],
    seats: dict[int, list[tuple[SeatRow, BotRow]]],
    links: dict[int, str],
    samples: int,
) -> str:
    try:
        game_title = get_game(league.game).title
    except GameError:
        game_title = league.game
    status = league_status(session=session, league=league)
    order = _order([row.bot for row in table], names)
    colors = _colors(order)
    try:
        rules = json.loads(league.rules)
    except ValueError:
        rules = {}
    rules_text = ", ".join(
        f"<code>{_esc(k)}={_esc(v)}</code>" for k, v in sorted(dict(rules).items())
    )
    info = [
        ("game", f"{_esc(game_title)} <code>{_esc(league.game)}</code>"),
        ("rules", rules_text or "defaults"),
        ("schedule", f"{league.table_size} seats per match, {league.rounds} round(s)"),
        (
            "deals",
            "commitment (sha256 of the league secret)"
            f' <code id="commitment">{_esc(league.commitment)}</code>'
            + (
                f", reproducible seed <code>{league.seed}</code> (guessable)"
                if league.seed is not None
                else ""
            ),
        ),
        (
            "time limits",
            f"{league.decision_s:g} s per decision, {league.startup_s:g} s to start",
        ),
        (
            "progress",
            f'<span id="progress">{status.done} / {status.total} matches played</span>'
            f"{f', {status.forfeits} forfeit(s)' if status.forfeits else ''}"
            f"{f', {status.aborted} aborted by a referee error' if status.aborted else ''}",
        ),
    ]
    body = [
        f'<h1 id="title">League {_esc(league.name)}</h1>',
        '<dl class="info box" id="league-info">'
        + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in info)
        + "</dl>",
        "<h2>Standings</h2>",
        _standings_html(table, history, colors, samples),
        "<h2>Crosstable</h2>",
        _crosstable_html(order, cross),
        "<h2>Population: Nash averaging</h2>",
        population_html(population),
        "<h2>Elo history over matches</h2>",
        _chart_html(history, order, colors, league.k_factor),
        *(
            ["<h2>SPRT: log-likelihood ratio over pairs</h2>", chart]
            if (chart := sprt_chart(session=session, league=league))
            else []
        ),
        "<h2>Matches</h2>",
        _matches_html(matches, seats, links),
    ]
    return _page(f"League {league.name} — {game_title}", "\n".join(body), REPORT_CSS)


def _standings_html(
    table: Sequence[Standing],
    history: list[dict[str, float]],
    colors: dict[str, str],
    samples: int,
) -> str:
    finite = [
        v for row in table for v in (row.elo, row.lo, row.hi) if v is not None and math.isfinite(v)
    ]
    low = min(finite, default=1400.0)
    high = max(finite, default=1600.0)
    if high - low < 50:
        low, high = (low + high) / 2 - 25, (low + high) / 2 + 25
    pad = (high - low) * 0.05
    low, high = low - pad, high + pad
    width, height = BAR_WIDTH, 18

    def x(value: float) -> float:
        value = min(max(value, low), high)
        return round(4 + (value - low) / (high - low) * (width - 8), 1)

    final = history[-1] if history else {}
    claims = any(row.bluff is not None for row in table)
    rows = []
    for row in table:
        bar = ""
        if row.elo is not None and math.isfinite(row.elo):
            lo = row.lo if row.lo is not None else row.elo
            hi = row.hi if row.hi is not None else row.elo
            color = colors.get(row.bot, PALETTE[0])
            open_lo = '<path d="M{0} 5 L{1} 9 L{0} 13" fill="none" stroke="{2}"/>'
            bar = (
                f'<svg class="interval" width="{width}" height="{height}" '
                f'viewBox="0 0 {width} {height}" role="img" '
                f'aria-label="95% interval {_fmt(lo)} to {_fmt(hi)}">'
                f'<line x1="{x(1500)}" y1="1" x2="{x(1500)}" y2="{height - 1}" '
                'stroke="#c9ced8" stroke-dasharray="2 2"/>'
                f'<line class="interval-bar" x1="{x(lo)}" y1="9" x2="{x(hi)}" y2="9" '
                f'stroke="{color}" stroke-width="4" stroke-linecap="round" opacity="0.45"/>'
                f'<circle cx="{x(row.elo)}" cy="9" r="4" fill="{color}"/>'
                + (open_lo.format(x(lo) + 5, x(lo), color) if not math.isfinite(lo) else "")
                + (open_lo.format(x(hi) - 5, x(hi), color) if not math.isfinite(hi) else "")
                + "</svg>"
            )
        faults = ", ".join(f"{_esc(kind)}×{n}" for kind, n in sorted(row.faults.items()))
        incremental = final.get(row.bot, row.incremental_elo)
        rows.append(
            f'<tr data-bot="{_esc(row.bot)}">'
            f'<td class="num">{row.rank if row.rank is not None else "–"}</td>'
            f'<td class="bot">{_esc(row.bot)}<div class="version"><code>{_esc(row.version)}</code>'
            "</div></td>"
            f'<td class="num elo">{_fmt(row.elo)}</td>'
            f'<td class="num interval-text">{_fmt(row.lo)} .. {_fmt(row.hi)}</td>'
            f'<td class="bar-cell">{bar}</td>'
            f'<td class="num">{_fmt(incremental)}</td>'
            f'<td class="num">{row.matches}</td><td class="num">{row.wins}</td>'
            f'<td class="num">{_fmt(row.mean_place, 2)}</td>'
            f'<td class="num">{_fmt(row.mean_score, 2)}</td>'
            f'<td class="{"fault" if faults else ""}">{faults or "-"}</td>'
            + (_bluff_cells(row.bluff) if claims else "")
            + "</tr>"
        )
    return (
        '<div class="scroll"><table id="standings" class="box"><thead><tr>'
        '<th class="num">rank</th><th>bot, version</th><th class="num">Elo</th>'
        f'<th class="num">95% interval</th><th>interval ({_fmt(low)} … {_fmt(high)})</th>'
        '<th class="num" title="incremental, order-dependent Elo after the last match">'
        "Elo history</th>"
        '<th class="num">matches</th><th class="num">wins</th>'
        '<th class="num">mean place</th><th class="num">mean score</th><th>faults</th>'
        + (BLUFF_HEADERS if claims else "")
        + "</tr></thead><tbody>"
        + "".join(rows)
        + "</tbody></table></div>"
        + _standings_note(samples)
        + (BLUFF_NOTE if claims else "")
    )


def _standings_note(samples: int) -> str:
    """What the standings' Elo, interval and Elo history are (docs/ratings.md)."""
    return (
        '<p class="muted">Elo: Bradley–Terry fit over all finished matches (mean 1500,'
        f" order-independent) with a prior of {PRIOR_DRAWS:g} virtual draws per bot against"
        f" 1500; interval: 95% bootstrap over duplicate deals ({samples} samples), at least"
        " the fit's own ± 1.96 sd; the dashed line marks 1500. Elo history: the"
        " incremental, order-dependent rating after the last match, as in the chart"
        " below — not the table's Elo.</p>"
    )


BLUFF_HEADERS: Final = (
    '<th class="num" title="false claims / claims">bluff rate</th>'
    '<th class="num" title="challenges / decisions where a challenge was legal">'
    "challenge rate</th>"
    '<th class="num" title="challenges of false claims / challenges">challenge accuracy</th>'
    '<th class="num" title="own true claims challenged / own true claims">'
    "wrongly challenged</th>"
)
BLUFF_NOTE: Final = (
    '<p class="muted">Bluff analytics, judged from every finished match record by'
    " replaying it with the full hidden state: a claim is false when the game's own"
    " challenge rule, applied right then, would find it false. Percentages with"
    " counts; – where nothing was counted.</p>"
)


def _bluff_cells(stats: BluffStats | None) -> str:
    """The four bluff-analytics cells of one standings row."""
    ratios = (stats or BluffStats()).ratios()
    cells = []
    for name, (part, whole) in ratios.items():
        text = format_ratio(part, whole) if whole else "–"
        cells.append(f'<td class="num bluff" data-stat="{name}">{_esc(text)}</td>')
    return "".join(cells)


def _crosstable_html(order: list[str], cross: dict[str, dict[str, HeadToHead]]) -> str:
    head = "".join(f'<th data-col="{_esc(b)}">{_esc(b)}</th>' for b in order)
    rows = []
    for a in order:
        cells = []
        for b in order:
            if a == b:
                cells.append(f'<td class="self" data-row="{_esc(a)}" data-col="{_esc(b)}">—</td>')
                continue
            h2h = cross.get(a, {}).get(b)
            if h2h is None or h2h.games == 0:
                cells.append(
                    f'<td data-row="{_esc(a)}" data-col="{_esc(b)}" class="muted">no games</td>'
                )
                continue
            diff = pair_elo(h2h)
            margin = "" if diff is None else f" ± {_fmt(diff.margin)}"
            cells.append(
                f'<td data-row="{_esc(a)}" data-col="{_esc(b)}">'
                f'<div class="wdl" title="wins-draws-losses of {_esc(a)} against {_esc(b)}">'
                f"{h2h.wins}-{h2h.draws}-{h2h.losses}</div>"
                f'<div class="diff" title="Elo difference ± 95% margin">'
                f"{_fmt(None if diff is None else diff.elo, sign=True)}{margin}</div>"
                f'<div class="los" title="likelihood of superiority">LOS {h2h.los:.0%}</div>'
                "</td>"
            )
        rows.append(f'<tr><th class="row">{_esc(a)}</th>{"".join(cells)}</tr>')
    return (
        f'<div class="scroll"><table id="crosstable" class="box"><thead><tr><th>row vs column'
        f"</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<p class="muted">Each cell: the row bot\'s wins-draws-losses against the column bot'
        " (every pair of their seats in a match compared by place), the Elo difference it"
        f" implies with {PRIOR_DRAWS:g} virtual draws added (finite for a clean sweep) ± its"
        " 95% margin, and the likelihood of superiority (cutechess-cli's formula).</p>"
    )


def population_html(population: Population | None) -> str:
    """The population view's table (``#population``): one implementation for the static
    report and the server's league page."""
    if population is None:
        return '<p id="population" class="muted">No finished match yet.</p>'
    rows = "".join(
        f'<tr data-bot="{_esc(row.bot)}"><td>{_esc(row.bot)}</td>'
        f'<td class="num" data-stat="mass">{row.mass:.1%}</td>'
        f'<td class="num" data-stat="value">'
        f"{_fmt(row.value, sign=True) if round(row.value) else '0'}</td></tr>"
        for row in population.rows
    )
    return (
        '<div class="scroll"><table id="population" class="box"><thead><tr><th>bot</th>'
        '<th class="num" title="weight in the maximum-entropy Nash mixture">Nash mass</th>'
        '<th class="num" title="expected Elo difference against the Nash mixture">'
        f"value vs Nash</th></tr></thead><tbody>{rows}</tbody></table></div>"
        '<p class="muted">Nash averaging (Balduzzi et al. 2018): the league as a game of'
        " picking a bot against an opponent's pick, each pair's payoff its crosstable Elo"
        " difference (0 if they never met). Nash mass: the bot's weight in the game's"
        " maximum-entropy equilibrium — a bot that beats a strong bot nobody else beats"
        " gets mass even with a low Elo, and bots in a rock-paper-scissors cycle share it."
        " Value: its Elo difference against that mixture, 0 with mass, negative without"
        " (docs/ratings.md).</p>"
    )


def _nice_step(span: float, target: int) -> float:
    raw = span / max(1, target)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 2.5, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude


def _elo_series(history: list[dict[str, float]], bot: str) -> list[tuple[int, float]]:
    """``(matches finished, Elo)`` points of ``bot``, from 1500 just before its first match."""
    points: list[tuple[int, float]] = []
    for index, snapshot in enumerate(history, start=1):
        if bot in snapshot:
            if not points:
                points.append((index - 1, 1500.0))
            points.append((index, snapshot[bot]))
    return points


def _x_axis(
    count: int,
    px: Callable[[float], float],
    frame: tuple[float, float, float, float, float],
    label: str,
) -> list[str]:
    """A chart's x axis over ``0..count``: ticks at a round step, and its label.
    ``frame``: left, top, plot width, plot height, height of the SVG."""
    left, top, plot_w, plot_h, height = frame
    parts = []
    for index in range(0, count + 1, max(1, int(_nice_step(count, 10)))):
        x = px(index)
        parts.append(
            f'<line x1="{x}" y1="{top + plot_h}" x2="{x}" y2="{top + plot_h + 4}" '
            'stroke="#9aa3b2"/>'
            f'<text x="{x}" y="{top + plot_h + 16}" text-anchor="middle">{index}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2}" y="{height - 3}" text-anchor="middle">{label}</text>'
    )
    return parts


def _chart_html(
    history: list[dict[str, float]], order: list[str], colors: dict[str, str], k: float
) -> str:
    if not history:
        return '<p id="elo-chart" class="box muted">No finished matches yet.</p>'
    width, height = 820, 320
    left, right, top, bottom = 52, 16, 12, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    count = len(history)
    bots = [b for b in order if any(b in snapshot for snapshot in history)]
    series = {bot: _elo_series(history, bot) for bot in bots}
    values = [v for points in series.values() for _, v in points] + [1500.0]
    low, high = min(values), max(values)
    if high - low < 20:
        low, high = low - 10, high + 10
    step = _nice_step(high - low, 5)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step

    def px(index: float) -> float:
        return round(left + index / count * plot_w, 1)

    def py(value: float) -> float:
        return round(top + (high - value) / (high - low) * plot_h, 1)

    parts = [
        f'<svg id="elo-chart" class="box" width="100%" viewBox="0 0 {width} {height}" '
        f'preserveAspectRatio="xMinYMin meet" role="img" '
        'aria-label="incremental Elo after each match">'
    ]
    tick = low
    while tick <= high + 1e-9:
        y = py(tick)
        parts.append(
            f'<line x1="{left}" y1="{y}" x2="{width - right}" y2="{y}" '
            f'stroke="{"#9aa3b2" if abs(tick - 1500) < 1e-9 else "#e3e7ee"}"/>'
            f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{_fmt(tick)}</text>'
        )
        tick += step
    parts += _x_axis(count, px, (left, top, plot_w, plot_h, height), "matches finished")
    for bot in bots:
        points = series[bot]
        coords = " ".join(f"{px(i)},{py(v)}" for i, v in points)
        parts.append(
            f'<polyline data-bot="{_esc(bot)}" points="{coords}" fill="none" '
            f'stroke="{colors[bot]}" stroke-width="2" stroke-linejoin="round">'
            f"<title>{_esc(bot)}: {_fmt(points[-1][1])}</title></polyline>"
        )
        if len(points) <= 60:
            parts.extend(
                f'<circle cx="{px(i)}" cy="{py(v)}" r="2.5" fill="{colors[bot]}">'
                f"<title>{_esc(bot)} after match {i}: {_fmt(v, 1)}</title></circle>"
                for i, v in points[1:]
            )
    parts.append("</svg>")
    legend = "".join(
        # A swatch drawn in SVG, not a style attribute: the server's pages forbid inline style.
        f'<span class="legend-item"><svg width="14" height="4" aria-hidden="true">'
        f'<rect width="14" height="4" fill="{colors[bot]}"/></svg>'
        f"{_esc(bot)} ({_fmt(series[bot][-1][1])})</span>"
        for bot in bots
    )
    return (
        "".join(parts)
        + f'<div class="legend">{legend}</div>'
        + f'<p class="muted">Elo history: incremental Elo (K = {k:g}, start 1500) after each'
        " match, in the order the matches finished. Order-dependent, so not the table's"
        " Elo, which is the fit of all matches.</p>"
    )


def _matches_html(
    matches: Sequence[MatchRow],
    seats: dict[int, list[tuple[SeatRow, BotRow]]],
    links: dict[int, str],
) -> str:
    rows = []
    for match in matches:
        seat_texts = []
        faults = []
        for seat, bot in seats.get(match.id or -1, []):
            place = f"{seat.place}." if seat.place is not None else ""
            score = f" ({_score(seat.score)})" if seat.score is not None else ""
            cls = " place-1" if seat.place == 1 else ""
            seat_texts.append(
                f'<span class="seat{cls}" data-seat="{seat.seat}">'
                f"{_esc(place)} seat {seat.seat}: {_esc(bot.name)}{_esc(score)}</span>"
            )
            if seat.fault:
                faults.append(f"seat {seat.seat}: {_esc(seat.fault)}")
        link = links.get(match.position)
        replay = (
            f'<a class="replay-link" href="{_esc(link)}">replay</a>'
            if link
            else '<span class="muted">–</span>'
        )
        reason = match.reason if match.status == "done" else match.status
        duration = f"{match.duration_ms / 1000:.2f} s" if match.status == "done" else ""
        rows.append(
            f'<tr data-position="{match.position}" data-status="{_esc(match.status)}">'
            f'<td class="num">{match.position}</td><td class="num">{match.round}</td>'
            f'<td class="num">{match.table}</td>'
            f'<td class="seats">{"<br>".join(seat_texts)}</td>'
            f"<td>{_esc(reason)}</td>"
            f'<td class="{"fault" if faults else ""}">{"<br>".join(faults) or "-"}</td>'
            f'<td class="num">{duration}</td><td>{replay}</td></tr>'
        )
    return (
        '<div class="scroll"><table id="matches" class="box"><thead><tr>'
        '<th class="num">#</th><th class="num">round</th><th class="num">table</th>'
        "<th>seats (place. seat: bot (score))</th><th>reason</th><th>faults</th>"
        '<th class="num">duration</th><th>replay</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table></div>"
    )
