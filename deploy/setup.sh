#!/usr/bin/env bash
# Set up Troika on this machine: system libraries (Cairo, fonts; PostgreSQL's server for
# the tests of the PostgreSQL store; Chromium for the web page's tests) and a virtualenv in .venv.
# Safe to run again; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
ldconfig -p 2>/dev/null | grep -q 'libcairo.so.2' || need_apt+=(libcairo2)
[ -e /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || need_apt+=(fonts-dejavu-core)
if [ ${#need_apt[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
    else
        echo "Please install: ${need_apt[*]} (Cairo and the DejaVu fonts)" >&2
        exit 1
    fi
fi

# PostgreSQL is optional for running Troika; without it the tests skip the PostgreSQL store.
if ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        (apt-get update -qq && apt-get install -y -qq --no-install-recommends postgresql >/dev/null) \
            || echo "PostgreSQL could not be installed; its tests will be skipped" >&2
    else
        echo "PostgreSQL is not installed; the tests of the PostgreSQL store will be skipped" >&2
    fi
fi

# Debian's Chromium: the tests of the web page drive it headless (Playwright's own browser
# download is not used). Only the tests need it.
if [ ! -x /usr/bin/chromium ]; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) \
            || echo "Chromium could not be installed; the web page's browser tests will fail" >&2
    else
        echo "Chromium is not installed (apt-get install -y chromium); the web page's browser tests need it" >&2
    fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e '.[test]'
# Compile the package's bytecode now: where PYTHONDONTWRITEBYTECODE is set, Python never
# writes it at import, and every command would compile the whole engine again (90 ms of
# a replay's 350). compileall writes it whatever that variable says.
.venv/bin/python -m compileall -q engine storage render bot >/dev/null
