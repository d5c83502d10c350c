# SPDX-License-Identifier: LGPL-2.1-or-later
# Sourced by the remote tier's tests (after t/tap.sh): Debian's nginx on
# 127.0.0.1, an ephemeral port, as this user, every path in $T; the PIDs
# started are in $pids, stopped by the EXIT trap set here.  NGINX is the
# program (skip_all when missing).
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX" ] || skip_all "no nginx (Debian: nginx-light)"
"$NGINX" -V 2>&1 | grep -q -- --with-http_dav_module || skip_all "nginx without the DAV module"
pids=
cleanup() { for p in $pids; do kill -CONT "$p" 2>/dev/null; kill "$p" 2>/dev/null; done; }
trap 'cleanup; rm -rf "$T"' EXIT

free_port() {
	"$PYTHON3" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# start_nginx NAME DAV(yes|no) [SERVER_LINES] [LISTEN_PARAMS]: $port, $pid;
# the server root is $T/www.  SERVER_LINES go into the server block (auth,
# TLS files), LISTEN_PARAMS after the address ("ssl").
# One process (master_process off): the PID started is the one serving,
# so SIGSTOP stops the service.
start_nginx() {
	d="$T/$1"; mkdir -p "$d" "$T/www"
	for _ in 1 2 3; do
		port=$(free_port)
		[ -n "$port" ] || skip_all "cannot pick a free port ($PYTHON3 did not run)"
		{
			[ "$(id -u)" -eq 0 ] && echo "user $(id -un) $(id -gn);"
			cat <<-CONF
			worker_processes 1;
			daemon off;
			master_process off;
			pid $d/nginx.pid;
			error_log $d/error.log;
			events { worker_connections 64; }
			http {
			  access_log $d/access.log;
			  client_body_temp_path $d/body; proxy_temp_path $d/proxy;
			  fastcgi_temp_path $d/fcgi; uwsgi_temp_path $d/uwsgi; scgi_temp_path $d/scgi;
			  server {
			    listen 127.0.0.1:$port ${4-};
			    root $T/www;
			    ${3-}
			    client_max_body_size 16m;
			    location / {
			CONF
			[ "$2" = yes ] && echo "      dav_methods PUT; create_full_put_path on; dav_access user:rw;"
			echo "    }"
			# A throttled view of the same tree: 1 KiB/s.
			echo "    location /slow/ { alias $T/www/; limit_rate 1024; }"
			echo "  }"; echo "}"
		} >"$d/nginx.conf"
		"$NGINX" -p "$d" -c "$d/nginx.conf" -e "$d/error.log" >"$d/out" 2>&1 &
		pid=$!
		i=0
		while [ $i -lt 50 ]; do
			"$PYTHON3" -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1; i=$((i + 1))
		done
		if kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; then
			pids="$pids $pid"
			return 0
		fi
		kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	done
	sed 's/^/# /' "$d/error.log" "$d/out" 2>/dev/null | head -20
	return 1
}

