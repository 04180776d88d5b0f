"""A submission: an author's upload becomes a registered bot version, or is refused.

The steps, each of which can refuse (and every refusal is recorded as a
refused :class:`SubmissionRow` with its reasons, so the author can be told and
floods are counted):

1. the name and game are valid, and the name is not another author's (or the
   operator's) bot;
2. the author is within the rate limit (counted from ``SubmissionRow`` rows,
   so a restart does not reset it);
3. the raw upload is within the size cap; it is stored by content;
4. it is unpacked safely (:mod:`league.store.uploads`) and has an entry point;
5. ``arena bot check`` (:func:`league.execution.botcheck.check_bot_matches`) plays it in
   the sandbox against the example bots, with the rules and limits of the game's
   ladder (:func:`ladder_look`), so that to the bot a check match looks like a
   ladder match; a FAIL refuses it with the check's reasons;
6. it is registered as a new version of ``name``, owned by the author.

The web server calls :func:`submit_bot` (a trio coroutine: the slow steps run in
a worker thread) and maps the exceptions to HTTP statuses itself
(:func:`league.server.submit.http_status`): nothing here speaks HTTP.

**Every submission ends in a final state.** Once its row exists (step 2) it ends
``accepted``, ``refused`` (with the reasons: an upload the unpacker rejects is
also answered 400, a failed check 422) or ``failed``: any other error — a bug,
a database or disk error, the request cancelled, the server stopped — marks it
``failed`` with the error's type before the error goes on (HTTP 500). A row still
``checking`` when the server starts belongs to a server that died meanwhile:
:func:`fail_unfinished` marks it ``failed`` too.
"""

from __future__ import annotations

import functools
import json
import logging
import math
import shlex
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import trio
from sqlalchemy import Engine
from sqlmodel import Session, col, func, select

from league.execution.botcheck import CheckReport, check_bot_matches
from league.store.authors import AuthError, check_name
from league.store.db import session_scope
from league.store.models import AuthorRow, BotRow, SubmissionRow
from league.store.registry import AlreadyExistsError, LeagueError, add_bot
from league.store.rolling_ladders import rolling_leagues
from league.store.uploads import (
    UnpackedBot,
    UploadRejected,
    UploadTooLarge,
    find_entry,
    store_upload,
    unpack,
)
from referee.core.catalogue import game_names
from referee.runtime.process import BotSpec
from referee.runtime.sandbox import DEFAULT_SANDBOX, SandboxConfig

log = logging.getLogger("arena.submissions")

CHECK_OUTPUT_WHERE = "run `arena bot check` on your own machine to read it"
"""Where the author of an upload whose check crashed reads the bot's traceback (the
server does not keep the output of a check's bots)."""

CheckSlot = Callable[[int, int], AbstractAsyncContextManager[None]]
"""``slot(author id, submission id)``: an async context held while the check plays."""


class BadSubmission(LeagueError):
    """The request itself is malformed (bad name, unknown game); nothing recorded."""


class RateLimited(LeagueError):
    """The author submitted too often; try again after ``retry_after_s`` seconds."""

    def __init__(self, message: str, retry_after_s: int) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class SubmissionRefused(LeagueError):
    """The upload was judged and refused; ``reasons`` say why (shown to the author)."""

    def __init__(
        self,
        reasons: tuple[str, ...],
        submission_id: int | None = None,
        *,
        malformed: bool = False,
    ) -> None:
        super().__init__("submission refused: " + "; ".join(reasons))
        self.reasons = reasons
        self.submission_id = submission_id
        self.malformed = malformed
        """The upload itself is malformed (an archive or member the unpacker
        rejects), rather than judged and refused by the check."""


@dataclass(frozen=True, slots=True)
class SubmissionLimits:
    """What one author may upload, and how often."""

    max_upload_bytes: int = 4 << 20
    max_unpacked_bytes: int = 32 << 20
    max_files: int = 500
    per_hour: int = 12
    """Submissions (accepted or refused) per author in any hour."""
    min_interval_s: float = 20.0
    """Seconds between two submissions of one author (each costs a check)."""


@dataclass(frozen=True, slots=True)
class SubmissionResult:
    submission_id: int
    bot: str
    version: str
    bot_id: int
    command: str
    check_lines: tuple[str, ...] = field(default=())
    """The check's report, as ``arena bot check`` prints it."""

    def to_json(self) -> dict[str, object]:
        """The server's answer to an accepted submission."""
        return {
            "status": "accepted",
            "bot": self.bot,
            "version": self.version,
            "submission": self.submission_id,
        }


def list_submissions(
    *, session: Session, author_id: int | None = None, limit: int = 100
) -> list[SubmissionRow]:
    """The newest submissions first (of one author, if given)."""
    query = select(SubmissionRow).order_by(
        col(SubmissionRow.created_at).desc(), col(SubmissionRow.id).desc()
    )
    if author_id is not None:
        query = query.where(SubmissionRow.author_id == author_id)
    return list(session.exec(query.limit(limit)))


def _aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _owner_problem(session: Session, author: AuthorRow, name: str) -> str | None:
    """Why ``author`` may not submit under ``name`` (another's bot), or None."""
    owners = set(session.exec(select(BotRow.author_id).where(BotRow.name == name)))
    if not owners or owners == {author.id}:
        return None
    return f"the name {name!r} belongs to another author's bot (or the operator's); pick another"


def _begin(
    engine: Engine, author: AuthorRow, name: str, game: str, size: int, limits: SubmissionLimits
) -> int:
    """Rate limit and ownership; a 'checking' row that counts from now on."""
    now = datetime.now(UTC)
    with session_scope(engine) as session:
        recent = select(SubmissionRow).where(
            SubmissionRow.author_id == author.id,
            col(SubmissionRow.created_at) > now - timedelta(hours=1),
        )
        count = session.exec(select(func.count()).select_from(recent.subquery())).one()
        if count >= limits.per_hour:
            oldest = session.exec(recent.order_by(col(SubmissionRow.created_at))).first()
            assert oldest is not None
            wait = _aware(oldest.created_at) + timedelta(hours=1) - now
            raise RateLimited(
                f"author {author.name!r} made {count} submissions in the last hour"
                f" (limit {limits.per_hour})",
                max(1, math.ceil(wait.total_seconds())),
            )
        last = session.exec(recent.order_by(col(SubmissionRow.created_at).desc())).first()
        if last is not None:
            since = (now - _aware(last.created_at)).total_seconds()
            if since < limits.min_interval_s:
                raise RateLimited(
                    f"author {author.name!r} submitted {since:.0f} s ago; wait"
                    f" {limits.min_interval_s:.0f} s between submissions",
                    max(1, math.ceil(limits.min_interval_s - since)),
                )
        row = SubmissionRow(author_id=author.id or 0, name=name, game=game, size=size)
        reasons = []
        if (problem := _owner_problem(session, author, name)) is not None:
            reasons.append(problem)
        if size > limits.max_upload_bytes:
            reasons.append(f"upload of {size} bytes is over the {limits.max_upload_bytes} limit")
        if reasons:
            row.status, row.reasons = "refused", json.dumps(reasons)
        session.add(row)
        session.flush()
        assert row.id is not None
        submission_id = row.id
    if size > limits.max_upload_bytes:
        raise UploadTooLarge(reasons[-1])
    if reasons:
        raise SubmissionRefused(tuple(reasons), submission_id)
    return submission_id


MAX_REASONS, MAX_REASON_CHARS = 20, 900
"""What of the reasons is kept (they fit the ``reasons`` column and a page)."""


def _refuse(
    engine: Engine, submission_id: int, reasons: tuple[str, ...], malformed: bool = False
) -> SubmissionRefused:
    reasons = tuple(reason[:MAX_REASON_CHARS] for reason in reasons[:MAX_REASONS])
    with session_scope(engine) as session:
        row = session.get(SubmissionRow, submission_id)
        assert row is not None
        row.status, row.reasons = "refused", json.dumps(list(reasons))
        session.add(row)
    return SubmissionRefused(reasons, submission_id, malformed=malformed)


FAIL_WRITE_S = 30.0
"""How long marking a submission ``failed`` may take after an error (a cancelled
request included) before it is given up (then the next server start does it)."""
FINAL_STATES = ("accepted", "refused", "failed")
"""Where every submission ends; ``checking`` only while it is being judged."""


def _fail(engine: Engine, submission_id: int, reason: str) -> None:
    """Mark a submission still ``checking`` as ``failed`` (an accepted or refused one
    stays as it is)."""
    with session_scope(engine) as session:
        row = session.get(SubmissionRow, submission_id)
        if row is not None and row.status == "checking":
            row.status, row.reasons = "failed", json.dumps([reason[:MAX_REASON_CHARS]])
            session.add(row)


def fail_unfinished(engine: Engine) -> int:
    """At server start: every submission still ``checking`` was being judged by a
    server that stopped (killed, crashed) before it ended; mark it ``failed``.
    Returns how many."""
    with session_scope(engine) as session:
        rows = list(session.exec(select(SubmissionRow).where(SubmissionRow.status == "checking")))
        for row in rows:
            row.status = "failed"
            row.reasons = json.dumps(["the server stopped before the check ended: submit again"])
            session.add(row)
        return len(rows)


def _register(
    engine: Engine,
    submission_id: int,
    author: AuthorRow,
    name: str,
    game: str,
    command: str,
    version: str,
) -> int:
    """Register the checked version for ``author``; the ownership test is repeated
    in the same transaction (another author may have taken the name meanwhile)."""
    with session_scope(engine) as session:
        if (problem := _owner_problem(session, author, name)) is not None:
            raise SubmissionRefused((problem,), submission_id)
        try:
            bot = add_bot(
                session=session,
                name=name,
                command=command,
                games=[game],
                version=version,
            )
        except AlreadyExistsError:
            raise SubmissionRefused(
                (f"version {version} of {name!r} (the same files) is already registered",),
                submission_id,
            ) from None
        bot.author_id = author.id
        session.add(bot)
        session.flush()
        assert bot.id is not None
        row = session.get(SubmissionRow, submission_id)
        assert row is not None
        row.status, row.bot_id = "accepted", bot.id
        session.add(row)
        return bot.id


async def submit_bot(
    *,
    engine: Engine,
    store: Path,
    author: AuthorRow,
    name: str,
    game: str,
    filename: str,
    data: bytes,
    limits: SubmissionLimits = SubmissionLimits(),
    check_matches: int = 4,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
    slot: CheckSlot | None = None,
    check_budget_s: float | None = None,
    min_protocol: int = 1,
) -> SubmissionResult:
    """Judge one upload and register it as a new version of ``name`` for ``author``.

    Raises :class:`BadSubmission`, :class:`RateLimited`, :class:`UploadTooLarge`,
    :class:`UploadRejected` or :class:`SubmissionRefused` (the server's
    :func:`league.server.submit.http_status`).
    ``author`` must be authenticated (:func:`league.store.authors.authenticate`) and
    not disabled. ``slot(author id, submission id)``: held while the check plays
    (the server's fair queue, :mod:`league.server.checkqueue`); a
    :class:`RateLimited` from it refuses the submission with its message.
    ``check_budget_s``: the check's time limit. ``min_protocol``: the lowest
    protocol version the bot may announce (the server's ``--min-protocol``).
    Once recorded, the submission ends accepted, refused or failed (see the module
    docstring), whatever is raised.
    """
    _check_request(author, name, game)
    store = store.resolve()  # the registered command must not depend on the server's cwd
    submission_id = await trio.to_thread.run_sync(
        _begin, engine, author, name, game, len(data), limits
    )
    try:
        return await _judge(
            engine=engine,
            store=store,
            author=author,
            name=name,
            game=game,
            filename=filename,
            data=data,
            limits=limits,
            check_matches=check_matches,
            sandbox=sandbox,
            slot=slot,
            check_budget_s=check_budget_s,
            min_protocol=min_protocol,
            submission_id=submission_id,
        )
    except (SubmissionRefused, RateLimited):
        raise  # recorded as refused already
    except BaseException as error:  # recorded as failed, then raised again
        reason = _failure_reason(error)
        # Shielded (the error may be the cancellation itself), but bounded.
        with trio.CancelScope(shield=True, deadline=trio.current_time() + FAIL_WRITE_S):
            try:
                await trio.to_thread.run_sync(_fail, engine, submission_id, reason)
            except Exception:
                log.exception("could not mark submission %d failed", submission_id)
        raise


def _failure_reason(error: BaseException) -> str:
    if isinstance(error, trio.Cancelled | KeyboardInterrupt | SystemExit):
        return "interrupted: the request was cancelled or the server stopped; submit again"
    return (
        f"internal error ({type(error).__name__}) while judging the upload:"
        " the operator can find it in the server's log"
    )


async def _judge(
    *,
    engine: Engine,
    store: Path,
    author: AuthorRow,
    name: str,
    game: str,
    filename: str,
    data: bytes,
    limits: SubmissionLimits,
    check_matches: int,
    sandbox: SandboxConfig,
    slot: CheckSlot | None,
    check_budget_s: float | None,
    min_protocol: int,
    submission_id: int,
) -> SubmissionResult:
    """Steps 3-6 of the module docstring for the recorded ``submission_id``."""
    try:
        tree, entry = await trio.to_thread.run_sync(
            functools.partial(_unpack, store, submission_id, engine, filename, data, name, limits)
        )
    except UploadRejected as error:
        raise await trio.to_thread.run_sync(
            _refuse, engine, submission_id, (str(error),), True
        ) from None
    command = shlex.join([sys.executable, str(entry)])
    version = tree.digest[:16]
    spec = BotSpec(name=name, command=(sys.executable, str(entry)), version=version)
    rules, decision_s, startup_s = await trio.to_thread.run_sync(ladder_look, engine, game)
    check = functools.partial(
        check_bot_matches,
        spec,
        game,
        matches=check_matches,
        sandbox=sandbox,
        rules=rules,
        decision_s=decision_s,
        startup_s=startup_s,
        budget_s=check_budget_s,
        min_protocol=min_protocol,
        output_where=CHECK_OUTPUT_WHERE,
    )
    report = await _run_check(check, engine, author, submission_id, slot)
    if not report.passed:
        raise await trio.to_thread.run_sync(_refuse, engine, submission_id, tuple(report.reasons))
    try:
        bot_id = await trio.to_thread.run_sync(
            _register, engine, submission_id, author, name, game, command, version
        )
    except SubmissionRefused as error:
        raise await trio.to_thread.run_sync(_refuse, engine, submission_id, error.reasons) from None
    return SubmissionResult(
        submission_id=submission_id,
        bot=name,
        version=version,
        bot_id=bot_id,
        command=command,
        check_lines=tuple(report.lines()),
    )


def _check_request(author: AuthorRow, name: str, game: str) -> None:
    """What can be refused before anything is stored: the name, the game, the author."""
    try:
        check_name(name, "bot name")
    except LeagueError as error:
        raise BadSubmission(str(error)) from None
    if game not in game_names():
        known = ", ".join(sorted(game_names()))
        raise BadSubmission(f"unknown game {game[:50]!r} (known: {known})")
    if author.disabled:
        raise AuthError(f"author {author.name!r} is disabled")


async def _run_check(
    check: Callable[[], CheckReport],
    engine: Engine,
    author: AuthorRow,
    submission_id: int,
    slot: CheckSlot | None,
) -> CheckReport:
    """The check's matches, in a worker thread, holding ``slot`` (if any) meanwhile;
    a :class:`RateLimited` from the slot refuses the submission and is raised."""
    if slot is None:
        return await trio.to_thread.run_sync(check)
    assert author.id is not None
    try:
        async with slot(author.id, submission_id):
            return await trio.to_thread.run_sync(check)
    except RateLimited as error:
        await trio.to_thread.run_sync(_refuse, engine, submission_id, (str(error),))
        raise


def ladder_look(engine: Engine, game: str) -> tuple[dict[str, str], float, float]:
    """The rules, decision time and start-up time of the ladder an accepted bot of
    ``game`` will play in (the oldest rolling ladder of the game), for the check to
    send the same; the defaults when there is none. (With several ladders of
    different settings the check looks like the oldest one.)"""
    with session_scope(engine) as session:
        for league in rolling_leagues(session=session):
            if league.game == game:
                rules = {str(k): str(v) for k, v in json.loads(league.rules).items()}
                return rules, league.decision_s, league.startup_s
    return {}, 2.0, 15.0


def _unpack(
    store: Path,
    submission_id: int,
    engine: Engine,
    filename: str,
    data: bytes,
    name: str,
    limits: SubmissionLimits,
) -> tuple[UnpackedBot, Path]:
    digest = store_upload(store, data)
    with session_scope(engine) as session:
        row = session.get(SubmissionRow, submission_id)
        assert row is not None
        row.upload_sha256 = digest
        session.add(row)
    tree = unpack(
        store,
        filename,
        data,
        max_files=limits.max_files,
        max_unpacked_bytes=limits.max_unpacked_bytes,
    )
    return tree, find_entry(tree, name)


def submit_bot_sync(
    *,
    engine: Engine,
    store: Path,
    author: AuthorRow,
    name: str,
    game: str,
    filename: str,
    data: bytes,
    limits: SubmissionLimits = SubmissionLimits(),
    check_matches: int = 4,
    sandbox: SandboxConfig = DEFAULT_SANDBOX,
) -> SubmissionResult:
    """:func:`submit_bot` for synchronous callers (the CLI, tests)."""
    return trio.run(
        functools.partial(
            submit_bot,
            engine=engine,
            store=store,
            author=author,
            name=name,
            game=game,
            filename=filename,
            data=data,
            limits=limits,
            check_matches=check_matches,
            sandbox=sandbox,
        )
    )
