"""answer revisions: an answer replaced by "correct and re-score" is kept here

Revision ID: 0003_answer_revisions
Revises: 0002_voice_and_llm
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_answer_revisions"
down_revision = "0002_voice_and_llm"


def upgrade() -> None:
    op.create_table(
        "answer_revision",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("turn_id", sa.Integer, sa.ForeignKey("turn.id"), nullable=False, index=True),
        sa.Column("answer_text", sa.Text, nullable=False),
        sa.Column("transcript_json", sa.Text, nullable=True),
        sa.Column("scorecard_json", sa.Text, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
