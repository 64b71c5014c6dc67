#!/usr/bin/env bash
# Prints the path of a Python with the OpenAI Python SDK (PyPI `openai`, pinned below) installed: a venv made
# once under .cache/python-openai-<version> (scripts/python-venv.sh). Used by test/system/run-llm-openai.test.ts,
# which runs the README's "From clone to an LLM call" snippet with it.
set -euo pipefail
version=${OPENAI_PYTHON_SDK_VERSION:-3.51.0}
exec "$(dirname "$0")/python-venv.sh" "python-openai-$version" "openai==$version"
