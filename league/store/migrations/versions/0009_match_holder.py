"""humans-league reservations: who a playing match is held for (unique), and by which process

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.add_column(sa.Column("holder", sqltypes.AutoString(length=100), nullable=True))
        batch_op.add_column(
            sa.Column("owner", sqltypes.AutoString(length=400), nullable=False, server_default="")
        )
        batch_op.create_index(batch_op.f("ix_match_holder"), ["holder"], unique=True)


def downgrade() -> None:
    with op.batch_alter_table("match", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_holder"))
        batch_op.drop_column("owner")
        batch_op.drop_column("holder")
