"""league chance secret: per-league secret and commitment; deals no longer seeded

Every league gets a 256-bit secret and its published SHA-256 commitment; the deal
of a duplicate group is drawn from HMAC(secret, group), so the per-match ``seed``
column goes. ``league.seed`` becomes the optional ``--reproducible-seed``.

Leagues created before this migration get a fresh secret here: their pending
matches are dealt from it, and their finished matches (dealt from the old public
seeds) cannot be checked by ``arena league verify``.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import hashlib
import secrets

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.add_column(sa.Column("secret", sa.LargeBinary(), nullable=True))
        batch_op.add_column(sa.Column("commitment", sqltypes.AutoString(length=64), nullable=True))
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), nullable=True)
    league = sa.table(
        "league",
        sa.column("id", sa.Integer()),
        sa.column("seed", sa.BigInteger()),
        sa.column("secret", sa.LargeBinary()),
        sa.column("commitment", sa.String()),
    )
    connection = op.get_bind()
    for (league_id,) in connection.execute(sa.select(league.c.id)).all():
        secret = secrets.token_bytes(32)
        connection.execute(
            league.update()
            .where(league.c.id == league_id)
            .values(seed=None, secret=secret, commitment=hashlib.sha256(secret).hexdigest())
        )
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.alter_column("secret", existing_type=sa.LargeBinary(), nullable=False)
        batch_op.alter_column(
            "commitment", existing_type=sqltypes.AutoString(length=64), nullable=False
        )
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_column("seed")


def downgrade() -> None:
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("seed", sa.BigInteger(), nullable=False, server_default="0"))
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("commitment")
        batch_op.drop_column("secret")
    op.execute("UPDATE league SET seed = 0 WHERE seed IS NULL")
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.BigInteger(), nullable=False)
