"""bot sandbox settings per league; captured bot output per match and seat

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "sandbox", sqltypes.AutoString(length=4000), nullable=False, server_default="{}"
            )
        )
    op.create_table(
        "match_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id", "seat", name="uq_log_match_seat"),
    )
    with op.batch_alter_table("match_log", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_log_match_id"), ["match_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("match_log", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_log_match_id"))
    op.drop_table("match_log")
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("sandbox")
