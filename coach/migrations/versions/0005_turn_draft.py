"""turn draft: what the learner has typed for a pending turn, not sent yet (a reload brings it back)

Revision ID: 0005_turn_draft
Revises: 0004_drop_unused
"""

import sqlalchemy as sa
from alembic import op

revision = "0005_turn_draft"
down_revision = "0004_drop_unused"


def upgrade() -> None:
    with op.batch_alter_table("turn") as batch:
        batch.add_column(sa.Column("draft", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("turn") as batch:
        batch.drop_column("draft")
