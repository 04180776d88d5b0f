"""rolling ladders: league mode and settings, retired entries

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "mode", sqltypes.AutoString(length=20), nullable=False, server_default="fixed"
            )
        )
        batch_op.add_column(
            sa.Column(
                "rolling", sqltypes.AutoString(length=1000), nullable=False, server_default="{}"
            )
        )
    with op.batch_alter_table("league_entry", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("retired", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("league_entry", schema=None) as batch_op:
        batch_op.drop_column("retired")
    with op.batch_alter_table("league", schema=None) as batch_op:
        batch_op.drop_column("rolling")
        batch_op.drop_column("mode")
