"""learners: every session belongs to one (the issuer and subject of a signed-in identity, or
the local learner of a single-learner install); the sessions that exist are the local learner's

Revision ID: 0007_learner
Revises: 0006_turn_version
"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0007_learner"
down_revision = "0006_turn_version"

LOCAL = "local"


def upgrade() -> None:
    learner = op.create_table(
        "learner",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("issuer", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("issuer", "subject", name="uq_learner_identity"),
    )
    op.bulk_insert(learner, [{"id": LOCAL, "issuer": "", "subject": LOCAL, "email": None,
                              "name": "this machine's learner", "created_at": datetime.now(UTC)}])
    with op.batch_alter_table("practice_session") as batch:
        batch.add_column(sa.Column("learner_id", sa.String(32), nullable=False, server_default=LOCAL))
        batch.create_foreign_key("fk_practice_session_learner", "learner", ["learner_id"], ["id"])
        batch.create_index("ix_practice_session_learner_id", ["learner_id"])


def downgrade() -> None:
    with op.batch_alter_table("practice_session") as batch:
        batch.drop_index("ix_practice_session_learner_id")
        batch.drop_constraint("fk_practice_session_learner", type_="foreignkey")
        batch.drop_column("learner_id")
    op.drop_table("learner")
