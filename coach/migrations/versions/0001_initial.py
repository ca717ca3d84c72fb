"""initial: profiles, practice sessions and their turns

Revision ID: 0001_initial
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_initial"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "profile",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(100), nullable=False, unique=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "practice_session",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("profile_id", sa.Integer, sa.ForeignKey("profile.id"), nullable=True),
        sa.Column("card_id", sa.String(100), nullable=False, index=True),
        sa.Column("persona_id", sa.String(100), nullable=False),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("content_version", sa.String(20), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "turn",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("session_id", sa.String(32), sa.ForeignKey("practice_session.id"), nullable=False, index=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("turn_id", sa.String(100), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("criterion", sa.String(100), nullable=True),
        sa.Column("prompt", sa.Text, nullable=False),
        sa.Column("answer_text", sa.Text, nullable=True),
        sa.Column("scorecard_json", sa.Text, nullable=True),
        sa.Column("scorer_version", sa.String(20), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("session_id", "position", name="uq_turn_session_position"),
    )
