"""turn version: every write bumps it, so two writers answering one prompt cannot both win;
answer revisions get a reason ("corrected", or "concurrent" for an answer refused that way)

Revision ID: 0004_turn_version
Revises: 0003_answer_revisions
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_turn_version"
down_revision = "0003_answer_revisions"


def upgrade() -> None:
    with op.batch_alter_table("turn") as batch:
        batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    with op.batch_alter_table("answer_revision") as batch:
        batch.add_column(sa.Column("reason", sa.String(20), nullable=False, server_default="corrected"))
