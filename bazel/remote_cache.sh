#!/usr/bin/env bash
# A shared Bazel cache a team starts in one command: Debian's nginx with WebDAV, serving
# Bazel's HTTP cache protocol (GET/PUT /ac/<sha256> and /cas/<sha256>).
#
#   bazel/remote_cache.sh start [ADDRESS] [DIR]   start it (ADDRESS default 127.0.0.1:8780;
#                                                 DIR default ~/.cache/tcts-remote-cache)
#   bazel/remote_cache.sh stop [ADDRESS] [DIR]    stop the one started with DIR (ADDRESS is ignored)
#   bazel/remote_cache.sh status [ADDRESS] [DIR]  whether it runs, and the cache's size
#
# Then: bazel --bazelrc=DIR/bazelrc test //...          reads and writes (CI's)
#       bazel --bazelrc=DIR/reader.bazelrc test //...   reads only (a developer's)
#
# Everything it writes is under DIR, private to the user who starts it (mode 0700; files 0600):
# nginx.conf, nginx.pid, error.log, access.log, tmp/, the cache itself (data/ac, data/cas), and
# the credentials: every request needs HTTP basic authentication, `writer` (GET and PUT; its
# token in DIR/writer.token and DIR/bazelrc) or `reader` (GET only, refused any other method by
# `limit_except`; DIR/reader.token, DIR/reader.bazelrc). Bazel does not verify action-cache
# entries, so whoever can PUT can substitute a test's verdict: only the writer can, and another
# user of the machine can neither read the tokens nor the cache's files. The tokens go to Bazel
# in a bazelrc file (--remote_header), never on a command line (which `ps` shows to everyone).
# No system nginx configuration is read or touched (nginx runs with -c DIR/nginx.conf -p DIR
# -e DIR/error.log), and the Debian service stays as it was.
#
# What it does not have: TLS, a size limit, eviction. A team on a real server would put it
# behind TLS (the tokens cross the network in each request), and bound its size: a cron job
# that deletes the least recently used files of data/cas and data/ac past a limit (find -atime,
# or by size), or a cache made for it (bazel-remote). Anything but a loopback ADDRESS prints a
# warning saying so.
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

cmd="${1:-}"
[[ -n "$cmd" ]] || usage
shift
address="127.0.0.1:8780"
dir="${HOME:-/tmp}/.cache/tcts-remote-cache"
case "$#" in
  0) ;;
  1) if [[ "$1" == */* || "$1" == .* ]]; then dir="$1"; else address="$1"; fi ;;
  2) address="$1"; dir="$2" ;;
  *) usage ;;
esac
umask 077  # everything below DIR is the starting user's alone
mkdir -p "$dir"
chmod 700 "$dir"
dir="$(cd "$dir" && pwd)"
conf="$dir/nginx.conf"
pidfile="$dir/nginx.pid"

running_pid() {
  local pid
  [[ -s "$pidfile" ]] || return 1
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  # The pid is nginx's master with this configuration, not a process that reused the number.
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$conf" || return 1
  echo "$pid"
}

start() {
  if ! command -v nginx >/dev/null 2>&1; then
    echo "remote_cache: nginx not found: apt-get install -y nginx (.ci/setup installs it)" >&2
    exit 1
  fi
  if ! nginx -V 2>&1 | grep -q -- --with-http_dav_module; then
    echo "remote_cache: this nginx has no WebDAV module (nginx -V lacks --with-http_dav_module)" >&2
    exit 1
  fi
  if pid="$(running_pid)"; then
    echo "remote_cache: already running (pid $pid, $(listen_address)); stop it first" >&2
    exit 1
  fi
  case "$address" in
    127.*|localhost:*|\[::1\]:*) ;;
    *) echo "remote_cache: WARNING: $address is not a loopback address: its tokens cross the network in" \
            "clear (no TLS; see this script's header)" >&2 ;;
  esac
  mkdir -p "$dir/data/ac" "$dir/data/cas" "$dir/tmp"
  # The credentials: a token per role, kept across restarts (a team's bazelrc files stay valid).
  local role token
  for role in writer reader; do
    [[ -s "$dir/$role.token" ]] || od -An -N16 -tx1 /dev/urandom | tr -d ' \n' >"$dir/$role.token"
    token="$(cat "$dir/$role.token")"
    printf '%s:{PLAIN}%s\n' "$role" "$token" >"$dir/$role.htpasswd"
    {
      echo "# Written by bazel/remote_cache.sh: the $role's credentials for http://$address (keep private)"
      echo "build --remote_cache=http://$address"
      # Quoted: a bazelrc line is split at spaces, and the header's value has one.
      echo "build \"--remote_header=Authorization=Basic $(printf '%s:%s' "$role" "$token" | base64 -w0)\""
      [[ "$role" == reader ]] && echo "build --remote_upload_local_results=false"
    } >"$dir/$([[ "$role" == writer ]] && echo bazelrc || echo reader.bazelrc)"
  done
  cat "$dir/writer.htpasswd" "$dir/reader.htpasswd" >"$dir/users.htpasswd"
  local user=""
  # A root master hands requests to workers running as `user`: this one, so that they can write DIR.
  [[ $(id -u) -eq 0 ]] && user="user $(id -un) $(id -gn);"
  cat >"$conf" <<EOF
# Written by bazel/remote_cache.sh: a Bazel HTTP cache (WebDAV PUT, GET) on $address.
$user
daemon on;
worker_processes 2;
pid $pidfile;
error_log $dir/error.log warn;
events { worker_connections 512; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp/client_body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  default_type application/octet-stream;
  sendfile on;
  client_max_body_size 0;  # any size: a linked binary is one blob
  server {
    listen $address;
    root $dir/data;
    location / {
      auth_basic "tensor-cts cache";
      auth_basic_user_file $dir/users.htpasswd;  # reader and writer may GET
      limit_except GET {  # GET (and HEAD); anything else, PUT included, is the writer's alone
        auth_basic "tensor-cts cache: writes";
        auth_basic_user_file $dir/writer.htpasswd;
      }
      dav_methods PUT;
      create_full_put_path on;
      dav_access user:rw;
      log_not_found off;  # a miss is a 404, not an error
    }
  }
}
EOF
  nginx -t -q -c "$conf" -p "$dir" -e "$dir/error.log"
  nginx -c "$conf" -p "$dir" -e "$dir/error.log"
  local i
  for i in $(seq 50); do
    if pid="$(running_pid)"; then
      echo "remote_cache: serving http://$address from $dir/data (nginx pid $pid)"
      echo "remote_cache: bazel --bazelrc=$dir/bazelrc test //...   (reads only: $dir/reader.bazelrc)   stop: $0 stop $dir"
      return 0
    fi
    sleep 0.1
  done
  echo "remote_cache: nginx did not start; $dir/error.log says:" >&2
  tail -5 "$dir/error.log" >&2 || true
  exit 1
}

listen_address() {
  sed -n 's/^ *listen \(.*\);$/\1/p' "$conf" 2>/dev/null | head -1
}

stop() {
  local pid i
  if ! pid="$(running_pid)"; then
    echo "remote_cache: not running (no live nginx for $conf)"
    rm -f "$pidfile"
    return 0
  fi
  kill -QUIT "$pid"  # graceful: requests in flight finish
  for i in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || { echo "remote_cache: stopped (pid $pid)"; return 0; }
    sleep 0.1
  done
  kill -TERM "$pid" 2>/dev/null || true
  sleep 0.5
  echo "remote_cache: stopped (pid $pid, after SIGTERM)"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    echo "remote_cache: running (pid $pid) on $(listen_address), $(du -sh "$dir/data" | cut -f1) in $dir/data," \
         "$(find "$dir/data/ac" -type f | wc -l) action results"
  else
    echo "remote_cache: not running ($dir)"
    return 1
  fi
}

case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
