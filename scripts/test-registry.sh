#!/usr/bin/env bash
# Throwaway OCI registries for the plugin distribution tests:
# Debian's `docker-registry` (CNCF Distribution 2.8), each on a free
# loopback port with its storage in a temp directory — one open, one
# behind htpasswd basic auth.
#
#   eval "$(scripts/test-registry.sh start)"     # prints the exports to use
#   cargo test --test integration plugin_registry::
#   scripts/test-registry.sh stop "$AGENTS_TEST_REGISTRY_DIR"
#
# Installs Debian's `docker-registry` (and `apache2-utils` for htpasswd,
# `skopeo` for the image-layout test) when missing (as root, or through
# sudo).
set -euo pipefail

free_port() {
    local port=$1
    while (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}

install_missing() {
    local missing=()
    command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)
    command -v htpasswd >/dev/null 2>&1 || missing+=(apache2-utils)
    command -v skopeo >/dev/null 2>&1 || missing+=(skopeo)
    [ ${#missing[@]} -eq 0 ] && return
    echo "test-registry: installing Debian's ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

# serve NAME PORT [AUTH-YAML]: one registry under $dir/NAME.
serve() {
    local name=$1 port=$2 auth=${3:-}
    mkdir -p "$dir/$name/storage"
    cat >"$dir/$name/config.yml" <<YAML
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $dir/$name/storage
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$port
$auth
YAML
    docker-registry serve "$dir/$name/config.yml" >"$dir/$name/server.log" 2>&1 &
    echo $! >"$dir/$name/pid"
    local i
    for i in $(seq 100); do
        if (echo >"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return; fi
        sleep 0.1
    done
    cat "$dir/$name/server.log" >&2
    echo "test-registry: $name did not start on port $port" >&2
    exit 1
}

start() {
    install_missing
    dir=$(mktemp -d /tmp/agents-test-registry.XXXXXX)
    local port auth_port
    port=$(free_port 55000)
    serve open "$port"
    auth_port=$(free_port $((port + 1)))
    htpasswd -Bbn agents-test s3cret-pass >"$dir/htpasswd" 2>/dev/null
    serve auth "$auth_port" "auth:
  htpasswd:
    realm: agents-test
    path: $dir/htpasswd"
    echo "export AGENTS_TEST_REGISTRY=127.0.0.1:$port"
    echo "export AGENTS_TEST_REGISTRY_STORAGE=$dir/open/storage"
    echo "export AGENTS_TEST_REGISTRY_AUTH=127.0.0.1:$auth_port"
    echo "export AGENTS_TEST_REGISTRY_USER=agents-test"
    echo "export AGENTS_TEST_REGISTRY_PASSWORD=s3cret-pass"
    echo "export AGENTS_TEST_REGISTRY_DIR=$dir"
}

stop() {
    local dir=${1:?usage: test-registry.sh stop DIR}
    local pid
    for pid in "$dir"/*/pid; do
        [ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null || true
    done
    rm -rf "$dir"
}

case "${1:-}" in
    start) start ;;
    stop) stop "${2:-}" ;;
    *) echo "usage: $0 start | stop DIR" >&2; exit 2 ;;
esac
