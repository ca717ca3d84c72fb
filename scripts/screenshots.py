"""Screenshots of the learner pages at desktop and phone sizes, in Debian chromium.

    PYTHONPATH=$PWD .venv/bin/python scripts/screenshots.py /work/screens/loop

Seeds a fresh data dir with a few sessions (two finished interviews with different results,
one unfinished, one meeting drill), serves the app and saves <page>-<size>.png."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZES = {"desktop": (1400, 1000), "phone": (390, 844)}


def seed(data_dir: str) -> str:
    os.environ["COACH_DATA_DIR"] = data_dir
    sys.path.insert(0, str(ROOT))
    from coach.config import load_settings
    from coach.library import default_library
    from coach.session import PracticeEngine
    from coach.store import Store

    engine = PracticeEngine(default_library(), Store(load_settings().database_url))
    meeting = engine.start("status-update")
    engine.submit(meeting.id, "I'm working on the billing migration. I've finished the schema.")
    engine.finish(meeting.id)
    card = engine.library.card("gpu-cluster-optimization")
    weak = engine.start(card.id)  # a weak first answer, met after the follow-ups
    engine.submit(weak.id, "I rewrote the jit boundaries myself on the TPU pod after profiling the step.")
    engine.submit(weak.id, "Utilization went from 40% to 83%.")
    engine.finish(weak.id)
    full = engine.start(card.id)  # next time, a strong first answer, then the retell
    for text in ["I owned the JAX training loop on a TPU pod. I profiled the steps and found recompiles from dynamic "
                 "shapes, so I rewrote the jit boundaries. We considered rewriting the input pipeline but rejected "
                 "it. I did the profiling while my teammate Jisoo handled the data loader. Utilization went from "
                 "40% to 83%. If I did it again, I would add a recompilation check to CI from day one.",
                 "I would add a recompile check to CI from day one.",
                 "I cut the step time on the TPU pod by removing recompiles; utilization went from 40% to 83%."]:
        engine.submit(full.id, text)
    call = engine.start("video-call-essentials")
    engine.submit(call.id, "Hi Ravi, sorry about that. Can you hear me okay now?")
    engine.submit(call.id, "What? Say it again.")
    active = engine.start("nccl-communication-tuning")
    engine.submit(active.id, "I tuned NCCL on our A100 cluster. the job fail every night before, and we discuss about "
                             "it with two GPU vendor. We tested thoroughly the new driver, and the bandwidth is "
                             "higher 30 percent than before.")
    return {"finished": full.id, "call": call.id, "active": active.id}


def main(out: str) -> None:
    data_dir = tempfile.mkdtemp(prefix="rehearse-screens-")
    sessions = seed(data_dir)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "COACH_DATA_DIR": data_dir, "PYTHONPATH": str(ROOT)}
    server = subprocess.Popen([str(ROOT / ".venv/bin/streamlit"), "run", "app.py", "--server.port", str(port),
                               "--server.address", "127.0.0.1"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):
            try:
                urllib.request.urlopen(f"{url}/_stcore/health", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        from playwright.sync_api import sync_playwright

        Path(out).mkdir(parents=True, exist_ok=True)
        pages = {"history": "/history", "summary": f"/interview?session={sessions['finished']}",
                 "meeting": "/practice", "video-call": f"/practice?session={sessions['call']}",
                 "english": f"/interview?session={sessions['active']}", "library-card": "/",
                 "live-meeting": "/meeting?scene=plan-review-disagree", "read-aloud": "/read-aloud?card=status-update"}
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            for size, (w, h) in SIZES.items():
                page = browser.new_page(viewport={"width": w, "height": h})
                for name, path in pages.items():
                    page.goto(url + path)
                    page.wait_for_timeout(3500)
                    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
                                           " && document.querySelectorAll('[data-testid=\"stMarkdownContainer\"]')"
                                           ".length > 3", timeout=60_000)
                    page.wait_for_timeout(1000)
                    if name == "library-card":
                        page.get_by_text("Optimizing training on a large GPU/TPU cluster").nth(1).click()
                        page.wait_for_timeout(800)
                        page.get_by_text("Interview questions").scroll_into_view_if_needed()
                        page.wait_for_timeout(500)
                    page.screenshot(path=f"{out}/{name}-{size}.png")
                    if name in ("summary", "history", "video-call", "english"):  # the whole page: Streamlit scrolls
                        page.set_viewport_size({"width": w, "height": 3200 if size == "desktop" else 5200})
                        page.wait_for_timeout(1500)
                        page.screenshot(path=f"{out}/{name}-{size}-full.png")
                        page.set_viewport_size({"width": w, "height": h})
                page.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(20)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "screens")
