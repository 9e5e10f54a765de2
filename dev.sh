#!/usr/bin/env bash
# Set up and run the workbench from a fresh clone (needs only Python >= 3.11 and pip).
#
#   bash dev.sh demo    install what the README's tour uses (the `tour` extra: the lab,
#                       the contract server and MCP, probing, pytest), ingest the bundled
#                       example incident, show its timeline, judge it, then open the
#                       triage notebook in JupyterLab (`workbench lab`; extra arguments
#                       go to it, e.g. `bash dev.sh demo --no-browser`)
#   bash dev.sh test    lint, type-check and run the whole test suite (the notebook tests
#                       included; the browser test needs Debian's chromium, see .ci/run;
#                       deselect it with `bash dev.sh test -m 'not browser'`)
set -euo pipefail
cd "$(dirname "$0")"
VENV="${WORKBENCH_VENV:-.venv}"
PY="${PYTHON:-python3}"

setup() {
    local extras="$1"
    if [ ! -x "$VENV/bin/python" ]; then
        "$PY" -m venv "$VENV"
    fi
    local stamp="$VENV/.workbench-$extras-$(sha256sum pyproject.toml | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[$extras]"
        touch "$stamp"
    fi
}

case "${1:-}" in
    demo)
        shift
        setup tour
        export WORKBENCH_STORE="${WORKBENCH_STORE:-traces/store}"
        "$VENV/bin/workbench" ingest traces/examples/archive-incident.otlp.json
        "$VENV/bin/workbench" show 4bf92f3577b34da6a3ce929d0e0e4736
        echo
        # exit 1 is the expected outcome here: the incident breaks the rules
        "$VENV/bin/workbench" check traces/examples/archive-incident.rules.yaml || [ $? -eq 1 ]
        echo
        exec "$VENV/bin/workbench" lab --notebook 01_triage.ipynb "$@"
        ;;
    test)
        shift
        setup "test,lab,lab-test"
        "$VENV/bin/ruff" check workbench tests bench scripts
        "$VENV/bin/mypy" workbench
        "$VENV/bin/python" -m pytest -q "$@"
        ;;
    *)
        echo "usage: bash dev.sh demo [workbench lab options] | test [pytest options]" >&2
        exit 2
        ;;
esac
