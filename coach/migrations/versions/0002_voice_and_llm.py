"""voice and LLM: the practice mode, raw audio, transcripts and LLM provenance per turn

Revision ID: 0002_voice_and_llm
Revises: 0001_initial
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_voice_and_llm"
down_revision = "0001_initial"


def upgrade() -> None:
    with op.batch_alter_table("practice_session") as batch:
        batch.add_column(sa.Column("mode", sa.String(10), nullable=False, server_default="text"))
    with op.batch_alter_table("turn") as batch:
        batch.add_column(sa.Column("audio_path", sa.Text, nullable=True))
        batch.add_column(sa.Column("transcript_json", sa.Text, nullable=True))
        batch.add_column(sa.Column("llm_json", sa.Text, nullable=True))
