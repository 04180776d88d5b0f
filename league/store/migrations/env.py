"""Alembic environment: migrations run on the connection ``league.store.db`` passes in."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import league.store.models  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only when run from the alembic CLI
    from sqlalchemy import create_engine

    engine = create_engine(config.get_main_option("sqlalchemy.url") or "sqlite:///arena.db")
    connection = engine.connect()

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
