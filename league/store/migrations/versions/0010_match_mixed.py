"""mixed moves per match and seat: the probabilities and salts, for the seat's author

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "match_mixed",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("moves", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("match_id", "seat", name="uq_mixed_match_seat"),
    )
    with op.batch_alter_table("match_mixed", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_match_mixed_match_id"), ["match_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("match_mixed", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_match_mixed_match_id"))
    op.drop_table("match_mixed")
