"""remote bot credentials: token source and TLS CA (names and paths, never secrets)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = (("token_env", 100), ("token_file", 1000), ("tls_ca", 1000))


def upgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        for name, length in COLUMNS:
            batch_op.add_column(
                sa.Column(
                    name, sqltypes.AutoString(length=length), nullable=False, server_default=""
                )
            )


def downgrade() -> None:
    with op.batch_alter_table("bot", schema=None) as batch_op:
        for name, _ in reversed(COLUMNS):
            batch_op.drop_column(name)
