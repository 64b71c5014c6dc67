#!/usr/bin/env bash
# Prints the path of a Python with botocore (PyPI, pinned below) installed: a venv made once under
# .cache/python-botocore-<version> (scripts/python-venv.sh). Used by the Bedrock Guardrails stand-in of
# test/proxy/llm/llm-cloud-guards.test.ts, which checks the proxy's SigV4 signatures with botocore's SigV4Auth.
set -euo pipefail
version=${BOTOCORE_VERSION:-1.44.5}
exec "$(dirname "$0")/python-venv.sh" "python-botocore-$version" "botocore==$version"
