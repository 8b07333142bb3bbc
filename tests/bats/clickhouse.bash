# Real ClickHouse servers for push.bats: each runs as nobody (setpriv),
# listens on 127.0.0.1 on free ports, and keeps everything (data, tmp,
# logs, user files, format schemas) in its own mktemp directory, which
# ch_stop removes: under $KT_CH_TMPDIR, default /tmp.  Debian 12's
# clickhouse-server 18.16.

# ch_port: a free loopback TCP port (the kernel picks it).
ch_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# ch_start VAR HTTP_PORT TCP_PORT [REMOTE_SERVERS_XML]: start a server;
# VAR is set to its directory (its HTTP port in DIR/http_port).  Users:
# default (no password) and kt (password "kt-secret"), ro (read only).
ch_start() {
	local var=$1 http=$2 tcp=$3 remote=${4:-} d i
	d=$(mktemp -d "${KT_CH_TMPDIR:-/tmp}/kt-ch.XXXXXX")
	chmod 755 "$d"
	mkdir -p "$d/data" "$d/tmp" "$d/log" "$d/user_files" "$d/format_schemas"
	cat >"$d/config.xml" <<XML
<yandex>
  <logger><level>warning</level><log>$d/log/server.log</log><errorlog>$d/log/err.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>$http</http_port>
  <tcp_port>$tcp</tcp_port>
  <path>$d/data/</path>
  <tmp_path>$d/tmp/</tmp_path>
  <user_files_path>$d/user_files/</user_files_path>
  <format_schema_path>$d/format_schemas/</format_schema_path>
  <mark_cache_size>5368709</mark_cache_size>
  <users_config>$d/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <remote_servers>$remote</remote_servers>
</yandex>
XML
	cat >"$d/users.xml" <<XML
<yandex>
  <profiles><default></default><ro><readonly>1</readonly></ro></profiles>
  <users>
    <default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default>
    <kt><password>kt-secret</password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></kt>
    <ro><password></password><networks><ip>127.0.0.1</ip></networks><profile>ro</profile><quota>default</quota></ro>
  </users>
  <quotas><default></default></quotas>
</yandex>
XML
	echo "$http" >"$d/http_port"
	chown -R nobody:nogroup "$d"
	setpriv --reuid=nobody --regid=nogroup --clear-groups \
		clickhouse-server --config-file="$d/config.xml" >"$d/log/out" 2>&1 &
	echo $! >"$d/pid"
	printf -v "$var" %s "$d"
	for i in $(seq 300); do
		[ "$(curl -s "http://127.0.0.1:$http/ping")" = "Ok." ] && return 0
		kill -0 "$(cat "$d/pid")" 2>/dev/null || break
		sleep 0.1
	done
	echo "clickhouse-server in $d did not answer:" >&2
	cat "$d/log/out" "$d/log/err.log" >&2 2>/dev/null
	return 1
}

# ch_stop DIR: stop its server and remove the directory.
ch_stop() {
	local d=$1 pid i
	[ -n "$d" ] && [ -d "$d" ] || return 0
	pid=$(cat "$d/pid" 2>/dev/null || true)
	if [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null; then
		for i in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$pid" 2>/dev/null || true
	fi
	rm -rf "$d"
}

# chq DIR SQL: the server's answer as TSV.
chq() {
	curl -sS --fail-with-body "http://127.0.0.1:$(cat "$1/http_port")/" --data-binary "$2 FORMAT TSV"
}

# chx DIR SQL: run a statement that returns nothing.
chx() {
	curl -sS --fail-with-body "http://127.0.0.1:$(cat "$1/http_port")/" --data-binary "$2"
}
