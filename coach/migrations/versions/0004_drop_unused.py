"""drop what nothing uses: the profile table, practice_session.profile_id and practice_session.mode

Revision ID: 0004_drop_unused
Revises: 0003_answer_revisions
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_drop_unused"
down_revision = "0003_answer_revisions"


def upgrade() -> None:
    bind = op.get_bind()
    inspector = sa.inspect(bind)
    foreign_keys = [fk for fk in inspector.get_foreign_keys("practice_session") if fk["referred_table"] == "profile"]
    # SQLite rebuilds the table in batch mode (Store.migrate turns its foreign keys off for
    # that); the unnamed foreign key to profile goes with the column
    naming = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}
    with op.batch_alter_table("practice_session", naming_convention=naming) as batch:
        for fk in foreign_keys:
            batch.drop_constraint(fk["name"] or "fk_practice_session_profile_id_profile", type_="foreignkey")
        batch.drop_column("profile_id")
        batch.drop_column("mode")
    op.drop_table("profile")


def downgrade() -> None:
    op.create_table(
        "profile",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("practice_session") as batch:
        batch.add_column(sa.Column("profile_id", sa.Integer, sa.ForeignKey("profile.id"), nullable=True))
        batch.add_column(sa.Column("mode", sa.String(10), nullable=False, server_default="text"))
