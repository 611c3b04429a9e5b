#!/bin/sh
# A stand-in for docker, podman and devcontainer (named by $0), for the
# devcontainer tests. It logs its argv (one line per call: fields split by
# \037, line feeds inside an argument written \036) to ./log beside it and
# answers like the real tool, keeping a tiny state in files beside it:
#   containers      the ids that exist (`run` and the CLI's `up` add
#                   next-id, or 0123abcd; `rm` removes)
#   stopped-ID      ID is stopped (`stop` makes it, `start` removes it)
#   image           what `inspect -f {{.Config.Image}}` says (img:1)
#   stdin-SUB       what a call with `-f -` read on stdin
# Markers the test writes to change answers, SUB being the subcommand
# (`container inspect` is inspect; the CLI's are --version and up):
#   out-NAME-SUB    printed instead of the usual answer
#   fail-NAME-SUB   printed to stderr, then exit 1 (after out-…)
#   hang-NAME-SUB   sleep (in a child) until killed; pids in hang.pid
#                   and sleep.pid
d=${0%/*}
name=${0##*/}
{ printf '%s\037' "$name" "$@" | /usr/bin/tr '\n' '\036'; echo; } >> "$d/log"
sub=$1
[ "$sub" = container ] && sub=$2
# What `build -f -` is handed on stdin.
case " $* " in
  *" -f - "*) /bin/cat > "$d/stdin-$sub" ;;
esac
last=
for a in "$@"; do last=$a; done
known() { [ -e "$d/containers" ] && /bin/grep -qx -- "$1" "$d/containers"; }
missing() { echo "Error response from daemon: No such container: $1" >&2; exit 1; }

if [ -e "$d/hang-$name-$sub" ]; then
  echo $$ > "$d/hang.pid"
  /bin/sleep 600 &
  echo $! > "$d/sleep.pid"
  wait
  exit 0
fi

id=$(/bin/cat "$d/next-id" 2>/dev/null || echo 0123abcd)
case "$name $sub" in
  "devcontainer up")
    case " $* " in
      *" --remove-existing-container "*) : > "$d/containers" ;;
    esac
    echo "[12 ms] @devcontainers/cli 0.80.0. Node.js v20." >&2
    echo "$id" >> "$d/containers" ;;
  "docker run" | "podman run") echo "$id" >> "$d/containers" ;;
esac

[ -e "$d/out-$name-$sub" ] && /bin/cat "$d/out-$name-$sub"
if [ -e "$d/fail-$name-$sub" ]; then
  /bin/cat "$d/fail-$name-$sub" >&2
  exit 1
fi
[ -e "$d/out-$name-$sub" ] && exit 0

case "$name $sub" in
  "devcontainer --version") echo 0.80.0 ;;
  "devcontainer up")
    echo '{"outcome":"success","containerId":"'"$id"'","remoteUser":"vscode","remoteWorkspaceFolder":"/workspaces/ws"}' ;;
  *" version") echo 27.0.3 ;;
  *" run") echo "$id" ;;
  *" ps") [ -e "$d/containers" ] && /bin/cat "$d/containers" ;;
  *" inspect")
    known "$last" || { echo "Error: No such container: $last" >&2; exit 1; }
    case "$*" in
      *State.Running*) if [ -e "$d/stopped-$last" ]; then echo false; else echo true; fi ;;
      *Config.Image*) /bin/cat "$d/image" 2>/dev/null || echo img:1 ;;
    esac ;;
  *" stop") known "$last" || missing "$last"; : > "$d/stopped-$last"; echo "$last" ;;
  *" start") known "$last" || missing "$last"; /bin/rm -f "$d/stopped-$last"; echo "$last" ;;
  *" rm")
    known "$last" || missing "$last"
    /bin/grep -vx -- "$last" "$d/containers" > "$d/containers.new"
    /bin/cat "$d/containers.new" > "$d/containers"
    echo "$last" ;;
esac
exit 0
