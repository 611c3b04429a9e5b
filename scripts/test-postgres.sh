#!/usr/bin/env bash
# A throwaway PostgreSQL server for the registry's tests on the shared
# backend: `initdb` into a temp directory, listening on a loopback port only.
#
#   eval "$(scripts/test-postgres.sh start)"   # prints the exports to use
#   cargo test                                  # store tests on both backends
#   AGENTS_TEST_BACKEND=postgres cargo test --test integration
#   scripts/test-postgres.sh stop "$AGENTS_TEST_PG_DIR"
#
# Installs Debian's `postgresql` package when no `initdb` is found (as root,
# or through sudo). Run as root, the server runs as the `postgres` user
# (PostgreSQL refuses to run as root).
set -euo pipefail

find_bin() {
    if command -v initdb >/dev/null 2>&1; then
        dirname "$(readlink -f "$(command -v initdb)")"
        return
    fi
    local found
    found=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
    [ -n "$found" ] && [ -x "$found/initdb" ] && echo "$found"
}

as_server_user() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

start() {
    local bin
    bin=$(find_bin || true)
    if [ -z "$bin" ]; then
        echo "test-postgres: no initdb; installing Debian's postgresql" >&2
        local sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        $sudo apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql >&2
        bin=$(find_bin)
    fi
    local dir port
    dir=$(mktemp -d /tmp/agents-test-pg.XXXXXX)
    [ "$(id -u)" = 0 ] && chown postgres "$dir"
    # A free loopback port: the first in 55432.. that nothing listens on.
    port=55432
    while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    as_server_user "$bin/initdb" -D "$dir/data" -U agents --auth=trust -E UTF8 --locale=C \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
    # fsync off: a test server's data is thrown away.
    as_server_user "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
        "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off" \
        start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    echo "export AGENTS_TEST_POSTGRES=postgres://agents@127.0.0.1:$port/postgres"
    echo "export AGENTS_TEST_PG_DIR=$dir"
}

stop() {
    local dir=${1:?usage: test-postgres.sh stop DIR}
    local bin
    bin=$(find_bin)
    as_server_user "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
