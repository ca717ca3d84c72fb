"""turn version: every write bumps it, so two writers answering one prompt cannot both win;
answer revisions get a reason ("corrected", or "concurrent" for an answer refused that way)

Revision ID: 0006_turn_version
Revises: 0005_turn_draft

(First written as 0004_turn_version after 0003_answer_revisions; a database upgraded to that
revision is re-chained by Store.migrate, and the columns it already has are not added again.)
"""

import sqlalchemy as sa
from alembic import op

revision = "0006_turn_version"
down_revision = "0005_turn_draft"


def _columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def upgrade() -> None:
    if "version" not in _columns("turn"):
        with op.batch_alter_table("turn") as batch:
            batch.add_column(sa.Column("version", sa.Integer, nullable=False, server_default="0"))
    if "reason" not in _columns("answer_revision"):
        with op.batch_alter_table("answer_revision") as batch:
            batch.add_column(sa.Column("reason", sa.String(20), nullable=False, server_default="corrected"))


def downgrade() -> None:
    with op.batch_alter_table("answer_revision") as batch:
        batch.drop_column("reason")
    with op.batch_alter_table("turn") as batch:
        batch.drop_column("version")
