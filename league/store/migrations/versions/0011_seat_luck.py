"""luck per seat: computed once when a two-seat match's result is stored

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match_seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("luck", sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "luck_error", sqltypes.AutoString(length=500), nullable=False, server_default=""
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("match_seat", schema=None) as batch_op:
        batch_op.drop_column("luck_error")
        batch_op.drop_column("luck")
