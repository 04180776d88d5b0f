"""bot suspension: a version that faulted in each of its first ladder matches

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("suspended_at", sqltypes.UTCDateTime(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "suspension", sqltypes.AutoString(length=1000), nullable=False, server_default=""
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_column("suspension")
        batch_op.drop_column("suspended_at")
