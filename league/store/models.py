"""Database tables (SQLModel). All models live here to avoid circular imports.

Match rows are the source of truth: every rating is recomputed from them. The
schema is managed by Alembic migrations in ``league/store/migrations`` — change a
model, then add a migration (``tests/league/test_db.py`` checks they agree).
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import BigInteger, Column, LargeBinary, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    return datetime.now(UTC)


class BotRow(SQLModel, table=True):
    """One version of one bot. Results of different versions are never mixed."""

    __tablename__ = "bot"
    __table_args__ = (UniqueConstraint("name", "version", name="uq_bot_name_version"),)

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, max_length=100)
    version: str = Field(max_length=100)
    """Content hash of the bot's files, or a label the user gave."""
    games: str = Field(default="", max_length=500)
    """Comma-separated game names the bot plays."""
    command: str = Field(default="", max_length=2000)
    """Shell-style command line that starts the bot, if the referee starts it."""
    address: str = Field(default="", max_length=500)
    """Address of an already running bot service, otherwise."""
    token_env: str = Field(default="", max_length=100)
    """For an address: the environment variable the referee reads the bot's token
    from when a match starts. The token itself is never stored."""
    token_file: str = Field(default="", max_length=1000)
    """For an address: or the file the referee reads the token from."""
    tls_ca: str = Field(default="", max_length=1000)
    """For an address: PEM file of the CA the bot's TLS certificate must chain to
    (set: the connection is TLS)."""
    retired: bool = Field(default=False)
    """Removed from the registry; kept because matches refer to it."""
    author_id: int | None = Field(default=None, foreign_key="author.id", index=True)
    """The author who submitted this version (``arena submit``), or None for a bot
    the operator registered (``arena bot add``). Its logs are shown only to them."""
    suspended_at: datetime | None = None
    """When the version was suspended (:mod:`league.store.suspension`): it faulted in each
    of its first real matches, so rolling ladders schedule it no more."""
    suspension: str = Field(default="", max_length=1000)
    """Why, as its author is told."""
    created_at: datetime = Field(default_factory=utcnow)


class AuthorRow(SQLModel, table=True):
    """Someone who may submit bots. Their token is never stored: only a salted
    hash of its secret part (:mod:`league.store.authors`), found through the
    non-secret ``token_id``."""

    __tablename__ = "author"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=64)
    token_id: str = Field(unique=True, max_length=32)
    """The public part of the token (``arena_<token_id>_<secret>``): finds the row
    without trying every hash."""
    token_hash: str = Field(max_length=128)
    """SHA-256(salt + secret) in hex (older rows: scrypt(secret, salt))."""
    token_salt: str = Field(max_length=64)
    """Random salt, hex."""
    token_params: str = Field(max_length=100)
    """How the hash was made: ``sha256``, or ``scrypt:n=...,r=...,p=...`` (older rows,
    upgraded at their first successful check)."""
    disabled: bool = Field(default=False)
    """Revoked: the token no longer authenticates; the author's bots stay."""
    created_at: datetime = Field(default_factory=utcnow)


class SubmissionRow(SQLModel, table=True):
    """One upload by one author, accepted or refused (with the reasons). Rate
    limits count these rows, so they hold across server restarts."""

    __tablename__ = "submission"

    id: int | None = Field(default=None, primary_key=True)
    author_id: int = Field(foreign_key="author.id", index=True)
    name: str = Field(max_length=64)
    """The bot name asked for."""
    game: str = Field(max_length=50)
    upload_sha256: str = Field(default="", max_length=64)
    """SHA-256 of the raw upload (``store/uploads/<sha256>``), empty if not stored."""
    size: int = 0
    """Bytes uploaded."""
    status: str = Field(default="checking", max_length=20)
    """checking (being unpacked and checked) | accepted | refused."""
    reasons: str = Field(default="[]", max_length=20000)
    """Why it was refused: JSON list of strings."""
    bot_id: int | None = Field(default=None, foreign_key="bot.id")
    """The registered version, if accepted."""
    created_at: datetime = Field(default_factory=utcnow, index=True)


class LeagueRow(SQLModel, table=True):
    __tablename__ = "league"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, max_length=100)
    game: str = Field(max_length=50)
    rules: str = Field(default="{}", max_length=4000)
    """Every rule option as canonical text, JSON object."""
    table_size: int = 2
    rounds: int = 1
    seed: int | None = Field(default=None, sa_type=BigInteger, nullable=True)
    """The ``--reproducible-seed`` the secret was derived from (guessable deals), or
    None for a secret drawn from the operating system (the default)."""
    secret: bytes = Field(sa_column=Column(LargeBinary, nullable=False))
    """256-bit secret: the deal of duplicate group G is ``deal_key(secret, G)``.
    Revealed (``arena league show``) only once no match is pending."""
    commitment: str = Field(max_length=64)
    """SHA-256 of ``secret`` (hex), published from creation on."""
    decision_s: float = 2.0
    startup_s: float = 15.0
    k_factor: float = 16.0
    sandbox: str = Field(default="{}", max_length=4000)
    """Bot sandbox settings, JSON object (``referee.runtime.sandbox.SandboxConfig``)."""
    mode: str = Field(default="fixed", max_length=20)
    """``fixed``: the whole schedule is written at creation; ``rolling``: a ladder that
    never ends, its schedule extended batch by batch (:mod:`league.store.rolling_ladders`)."""
    rolling: str = Field(default="{}", max_length=1000)
    """Rolling ladder settings, JSON object (``league.store.rolling_ladders.RollingSettings``)."""
    created_at: datetime = Field(default_factory=utcnow)


class EntryRow(SQLModel, table=True):
    """A bot (version) entered in a league, with its incremental Elo."""

    __tablename__ = "league_entry"
    __table_args__ = (UniqueConstraint("league_id", "bot_id", name="uq_entry_league_bot"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True, ondelete="CASCADE")
    bot_id: int = Field(foreign_key="bot.id", index=True)
    elo: float = 1500.0
    """Incremental (order-dependent) Elo after the matches played so far."""
    retired: bool = Field(default=False)
    """A rolling ladder's older version of a bot, replaced by a newer one: it gets no
    new matches, its results stay (and count in everybody's ratings)."""


class MatchRow(SQLModel, table=True):
    """One scheduled match; ``status`` becomes 'done' together with its result, or
    'aborted' when the referee failed (no result; played again by the next run)."""

    __tablename__ = "match"
    __table_args__ = (UniqueConstraint("league_id", "position", name="uq_match_league_position"),)

    id: int | None = Field(default=None, primary_key=True)
    league_id: int = Field(foreign_key="league.id", index=True, ondelete="CASCADE")
    position: int
    """Position in the schedule, 0-based."""
    round: int
    table: int
    rotation: int
    group_key: str = Field(max_length=50)
    """Duplicate group: the rotations of one table in one round share its deal,
    drawn from ``deal_key(league secret, group_key)``."""
    status: str = Field(default="pending", max_length=20, index=True)
    reason: str = Field(default="", max_length=20)
    """completed | forfeit (when done) | aborted (status aborted: a referee error)."""
    duration_ms: float = 0.0
    finished_at: datetime | None = None
    record: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    """The match record: zlib-compressed JSON."""
    holder: str | None = Field(default=None, max_length=100, unique=True, index=True)
    """A humans-league match while it is ``playing``: the person it is reserved for
    (``human:NAME``). Unique, so a person plays one game at a time whichever process
    reserves it (:mod:`league.store.human_games`); None for every other match."""
    owner: str = Field(default="", max_length=400)
    """A humans-league match while it is ``playing``: the process playing it
    (``HOST/BOOT/PID.START``, :func:`league.store.human_games.process_owner`), so a
    reservation whose process is gone is released at once."""


class SeatRow(SQLModel, table=True):
    """One seat of one match: who sat there and how it ended for them."""

    __tablename__ = "match_seat"
    __table_args__ = (UniqueConstraint("match_id", "seat", name="uq_seat_match_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True, ondelete="CASCADE")
    seat: int
    bot_id: int = Field(foreign_key="bot.id", index=True)
    place: int | None = None
    score: float | None = None
    fault: str = Field(default="", max_length=30)
    elo_after: float | None = None
    """Incremental Elo of this bot right after this match (rating history)."""
    luck: float | None = None
    """This seat's luck in a two-seat match (:func:`referee.analysis.luck.luck`, action
    terms from the seats' mixed moves included), computed once when the result is
    stored (:mod:`league.store.match_luck`). None: not computed — another seat count,
    a match stored before migration 0011 (computed on first read), or one whose luck
    cannot be computed (:attr:`luck_error` says why)."""
    luck_error: str = Field(default="", max_length=500)
    """Why this match's luck cannot be computed (its events do not replay, no record),
    so that it is not tried again; empty otherwise."""


class MatchLogRow(SQLModel, table=True):
    """What one seat's bot process wrote during one match (for its author only;
    never part of the public record). zlib-compressed, capped."""

    __tablename__ = "match_log"
    __table_args__ = (UniqueConstraint("match_id", "seat", name="uq_log_match_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True, ondelete="CASCADE")
    seat: int
    size: int = 0
    """Bytes captured (before compression)."""
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class MatchMixedRow(SQLModel, table=True):
    """One seat's mixed moves in one match: the probabilities it stated and the salt of
    each public commitment (for its author only, like its output; never part of the
    public record). zlib-compressed JSON (:mod:`referee.records.mixed_answers`)."""

    __tablename__ = "match_mixed"
    __table_args__ = (UniqueConstraint("match_id", "seat", name="uq_mixed_match_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: int = Field(foreign_key="match.id", index=True, ondelete="CASCADE")
    seat: int
    moves: int = 0
    """Mixed moves kept (one per turn the seat answered with probabilities)."""
    data: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


class ExploitRow(SQLModel, table=True):
    """One ``arena exploit`` measurement of a registered bot version, for one variant.

    Shown on the bot's page and in the standings of a league whose game and
    canonical rules are the measured ones (:mod:`league.store.exploits`)."""

    __tablename__ = "exploit_result"

    id: int | None = Field(default=None, primary_key=True)
    bot_id: int = Field(foreign_key="bot.id", index=True)
    game: str = Field(max_length=50)
    rules_digest: str = Field(max_length=64, index=True)
    """SHA-256 (hex) of :attr:`rules`: what a league's rules are matched on."""
    rules: str = Field(max_length=4000)
    """Every rule option as canonical text, JSON object with sorted keys."""
    value: float
    """The exploitability (mean over seats; +1 win, -1 loss): exact, the plug-in
    estimate of a sampled measurement, or a lower bound (``method``)."""
    low: float | None = None
    """The interval's lower end (95%, from sampling); ``None`` if not measured."""
    high: float | None = None
    """The interval's upper end; ``None`` for a lower bound or an exact value."""
    method: str = Field(max_length=20)
    """``exact``, ``sampled`` (split-sample / plug-in bracket) or ``lower-bound``."""
    samples: int = 1
    """Answers asked per information set (0 for the bot's own ``policy()``)."""
    self_reported: bool = False
    """The policy is what the bot said it plays (``policy()``), not what it was seen
    to play: it may play otherwise."""
    seconds: float = 0.0
    """How long the measurement took."""
    created_at: datetime = Field(default_factory=utcnow, index=True)
