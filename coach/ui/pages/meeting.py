"""Meeting: take part in a multi-party scene in the browser (coach.ui.meeting_view)."""

import streamlit as st

from coach.ui import meeting_view, state

korean = state.korean()
coach = state.coach()

st.title("Live meeting")
st.caption("A video call with several people: listen, and speak up in your moments — first when the "
           "chair asks, before a topic closes, when the audio breaks up, or give way."
           + (" 여러 사람과의 화상 회의에서 내 차례에 말해 보세요." if korean else ""))
scenes = {scene.id: scene for scene in coach.meeting_scenes()}
if not scenes:
    st.info("No meeting scenes could be loaded (content/scenes/).")
    st.stop()
wanted = st.query_params.get("scene")
ids = list(scenes)
scene_id = st.selectbox("Scene", ids, index=ids.index(wanted) if wanted in ids else 0,
                        format_func=lambda sid: scenes[sid].title, key="meeting-scene")
if scene_id != wanted:
    st.query_params["scene"] = scene_id
scene = scenes[scene_id]

done = state.meeting().results.get(scene.id)
if done is not None:
    meeting_view.result(done, korean)
    meeting_view.again(scene)
else:
    live = meeting_view.play_live(coach, scene, korean)
    meeting_view.play_in_one_piece(coach, scene, korean, live)
