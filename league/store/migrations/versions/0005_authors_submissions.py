"""authors (hashed tokens), their submissions, and which author owns a bot version

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql import sqltypes

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "author",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sqltypes.AutoString(length=64), nullable=False),
        sa.Column("token_id", sqltypes.AutoString(length=32), nullable=False),
        sa.Column("token_hash", sqltypes.AutoString(length=128), nullable=False),
        sa.Column("token_salt", sqltypes.AutoString(length=64), nullable=False),
        sa.Column("token_params", sqltypes.AutoString(length=100), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sqltypes.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
        sa.UniqueConstraint("token_id"),
    )
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.add_column(sa.Column("author_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_bot_author_id"), ["author_id"], unique=False)
        batch_op.create_foreign_key("fk_bot_author_id_author", "author", ["author_id"], ["id"])
    op.create_table(
        "submission",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("name", sqltypes.AutoString(length=64), nullable=False),
        sa.Column("game", sqltypes.AutoString(length=50), nullable=False),
        sa.Column("upload_sha256", sqltypes.AutoString(length=64), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("status", sqltypes.AutoString(length=20), nullable=False),
        sa.Column("reasons", sqltypes.AutoString(length=20000), nullable=False),
        sa.Column("bot_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["author_id"], ["author.id"]),
        sa.ForeignKeyConstraint(["bot_id"], ["bot.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_submission_author_id"), ["author_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_submission_created_at"), ["created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submission", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_submission_created_at"))
        batch_op.drop_index(batch_op.f("ix_submission_author_id"))
    op.drop_table("submission")
    with op.batch_alter_table("bot", schema=None) as batch_op:
        batch_op.drop_constraint("fk_bot_author_id_author", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_bot_author_id"))
        batch_op.drop_column("author_id")
    op.drop_table("author")
