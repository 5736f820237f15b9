#!/usr/bin/env bash
# Refresh the docs' dashboard screenshots (docs/dashboard/*.png and docs/dashboard/pages/*.png).
#
# The browser tests keep their screenshots in pytest's temporary folder, so `make test` never
# rewrites a tracked file; they copy them into the docs only when KAG_DASHBOARD_DOCS names a
# folder, which this script does. Needs the services up (`bash scripts/services.sh up`) and
# Debian's chromium and chromedriver (`make dashboard-browser`); the tests start their own
# `langgraph dev`. Review the new images with `git diff --stat docs/dashboard` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
export KAG_DASHBOARD_DOCS="${KAG_DASHBOARD_DOCS:-$PWD/docs/dashboard}"
exec .venv/bin/pytest -q -p no:cacheprovider \
  tests/integration/dashboard/test_dashboard_browser.py \
  tests/integration/dashboard/test_dashboard_pages.py "$@"
