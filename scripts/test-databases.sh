#!/usr/bin/env bash
# Says which databases and brokers the test run covers (scripts/test.sh prints it before and
# after the run), so a run that skipped PostgreSQL never looks like a run that covered it.
# PostgreSQL is probed at PGHOST:PGPORT (default 127.0.0.1:5432) when TEST_DATABASE_URL is unset.
set -uo pipefail

open_port() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }
redact() { printf '%s' "$1" | sed -E 's#(://[^:/@]*):[^@]*@#\1:***@#'; }

echo "SQLite suites: included"
if [ -n "${TEST_DATABASE_URL:-}" ]; then
  echo "PostgreSQL suites: included ($(redact "$TEST_DATABASE_URL"))"
else
  host="${PGHOST:-127.0.0.1}"
  port="${PGPORT:-5432}"
  case "$host" in /*) host=127.0.0.1 ;; esac # a socket folder: probe TCP on this machine
  if open_port "$host" "$port"; then
    echo "PostgreSQL suites: skipped (TEST_DATABASE_URL unset; PostgreSQL seems to be running on $host:$port — set TEST_DATABASE_URL=postgres://postgres@$host:$port/<database> to include it)"
  else
    echo "PostgreSQL suites: skipped (TEST_DATABASE_URL unset)"
  fi
fi
if open_port 127.0.0.1 1883; then
  echo "External-broker suite: included (an MQTT broker answers on 127.0.0.1:1883)"
else
  echo "External-broker suite: skipped (no MQTT broker on 127.0.0.1:1883)"
fi
if command -v mosquitto >/dev/null && command -v mosquitto_passwd >/dev/null; then
  echo "Mosquitto ACL suite: included (mosquitto is installed)"
else
  echo "Mosquitto ACL suite: skipped (mosquitto and mosquitto_passwd are not installed)"
fi
