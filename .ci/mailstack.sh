#!/usr/bin/env bash
# A loopback mail stack for Stationmaster's transport and end-to-end tests:
#
#   lettre --SMTP:2525--> OpenSMTPD --LMTP:2424--> Dovecot --Maildir--> IMAP:1143 (and IMAPS:1993)
#   lettre --SMTP AUTH:1587--> Dovecot submission --relay--> OpenSMTPD:2525 --> the same
#
# usage (as root; Debian 12 packages, Dovecot 2.3 and OpenSMTPD 6.8):
#   .ci/mailstack.sh install          install the packages and the vmail user (skipped if done)
#   .ci/mailstack.sh start DIR        start the stack with its config, state, logs and mail in DIR;
#                                     prints the env exports for the tests on stdout:
#                                       eval "$(.ci/mailstack.sh start "$D")"
#   .ci/mailstack.sh stop DIR         stop it (safe when it is not running)
#   .ci/mailstack.sh env DIR          print the exports of a running stack again
#
# The exports (what tests/all/transport.rs and the end-to-end tests read):
#   SM_IMAP_PORT SM_SMTP_PORT SM_SUBMISSION_PORT SM_LMTP_PORT SM_MAILDIR_ROOT=DIR/mail
#   and with TLS=1 also SM_IMAPS_PORT SM_CA=DIR/ca.pem
#
# In CI:
#   .ci/mailstack.sh install
#   D=$(mktemp -d); trap '.ci/mailstack.sh stop "$D"' EXIT
#   eval "$(TLS=1 .ci/mailstack.sh start "$D")"
#   cargo test
#
# Environment:
#   TLS=1         also make a throwaway CA and a leaf certificate (openssl) for mail.example.test,
#                 localhost and 127.0.0.1, enable STARTTLS on IMAP and submission and implicit-TLS
#                 IMAP on IMAPS_PORT, and write the CA to DIR/ca.pem (exported as SM_CA).
#   IMAP_PORT=1143 IMAPS_PORT=1993 LMTP_PORT=2424 SMTP_PORT=2525 SUBM_PORT=1587
#
# Users (IMAP login and SMTP AUTH; password = name + "pw"): gm (Stationmaster's own mailbox;
# stationmaster@example.test is delivered there too), alice, bob, cecil, dave. Any other
# recipient is accepted and delivered to DIR/mail/<local part>/Maildir, so nothing bounces;
# plus-addresses (gm+game.token@example.test) land in the base user's INBOX.
#
# `start` on a DIR whose stack is already up only prints the exports again; on a DIR with a
# half-dead stack it stops the rest first. OpenSMTPD's queue (/var/spool/smtpd) is compiled
# in and shared by the machine, so only one stack can run at a time: `start` refuses if its
# ports are taken by someone else. Logs: DIR/dovecot.log, DIR/smtpd.log.
set -euo pipefail

IMAP_PORT=${IMAP_PORT:-1143}
IMAPS_PORT=${IMAPS_PORT:-1993}
LMTP_PORT=${LMTP_PORT:-2424}
SMTP_PORT=${SMTP_PORT:-2525}
SUBM_PORT=${SUBM_PORT:-1587}
USERS="gm alice bob cecil dave"
PACKAGES="dovecot-imapd dovecot-lmtpd dovecot-submissiond opensmtpd openssl"

die() { echo "mailstack: $*" >&2; exit 1; }
say() { echo "mailstack: $*" >&2; }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root (Dovecot and OpenSMTPD drop privileges themselves)"; }

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
waitport() {
  local p=$1 pid=$2
  for _ in $(seq 1 200); do
    port_open "$p" && return 0
    pid_alive "$pid" || return 1
    sleep 0.05
  done
  return 1
}
# A process that runs (a zombie, not yet reaped by init, does not count).
pid_alive() {
  local st
  st=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "${st#Z}" = "$st" ]
}
# DIR/NAME.pid names a running NAME (not a reused PID of something else).
alive() {
  local f=$1 name pid
  name=$(basename "$f" .pid)
  [ -f "$f" ] && pid=$(cat "$f") && pid_alive "$pid" \
    && [ "$(ps -o comm= -p "$pid" 2>/dev/null)" = "$name" ]
}

ports() {
  local p="$IMAP_PORT $LMTP_PORT $SMTP_PORT $SUBM_PORT"
  if [ "${TLS:-0}" = 1 ]; then p="$p $IMAPS_PORT"; fi
  echo "$p"
}

# The exports for the tests, from DIR/env.
print_env() { cat "$1/env"; }

stop_dir() {
  local D=$1 pids=() f pid
  for f in smtpd dovecot; do
    if alive "$D/$f.pid"; then pids+=("$(cat "$D/$f.pid")"); fi
  done
  # Both at once: Dovecot takes 2-3 s after SIGTERM, OpenSMTPD 1.5-2 s.
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do
    for _ in $(seq 1 100); do pid_alive "$pid" || break; sleep 0.05; done
    if pid_alive "$pid"; then
      say "pid $pid still up after 5 s, killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  rm -f "$D/smtpd.pid" "$D/dovecot.pid"
}

make_certs() {
  local T=$1/tls
  if [ -s "$T/leaf.pem" ] && [ -s "$T/leaf.key" ] && [ -s "$1/ca.pem" ] \
    && openssl x509 -checkend 86400 -noout -in "$T/leaf.pem" >/dev/null 2>&1; then
    return 0
  fi
  mkdir -p "$T"; chmod 700 "$T"
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj "/CN=Stationmaster test CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$T/ca.key" -out "$T/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj "/CN=mail.example.test" \
    -keyout "$T/leaf.key" -out "$T/leaf.csr" 2>/dev/null
  cat > "$T/leaf.ext" <<'EOF'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:mail.example.test,DNS:localhost,IP:127.0.0.1
EOF
  openssl x509 -req -in "$T/leaf.csr" -CA "$T/ca.pem" -CAkey "$T/ca.key" -CAcreateserial \
    -days 30 -extfile "$T/leaf.ext" -out "$T/leaf.pem" 2>/dev/null
  cp "$T/ca.pem" "$1/ca.pem"; chmod 644 "$1/ca.pem"
}

case "${1:-}" in
install)
  need_root
  missing=""
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
  id vmail >/dev/null 2>&1 \
    || useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin vmail
  say "installed: $(dovecot --version | cut -d' ' -f1) (dovecot), opensmtpd $(dpkg-query -W -f='${Version}' opensmtpd)"
  ;;

start)
  need_root
  [ -n "${2:-}" ] || die "usage: $0 start DIR"
  command -v dovecot >/dev/null && command -v smtpd >/dev/null || die "not installed: run $0 install"
  id vmail >/dev/null 2>&1 || die "no vmail user: run $0 install"
  D=$(realpath -m "$2")
  want_tls=no; [ "${TLS:-0}" = 1 ] && want_tls=yes
  has_tls=no; [ -f "$D/env" ] && grep -q SM_IMAPS_PORT "$D/env" && has_tls=yes
  if alive "$D/dovecot.pid" && alive "$D/smtpd.pid" && [ -f "$D/env" ] && [ "$want_tls" = "$has_tls" ] \
    && port_open "$IMAP_PORT" && port_open "$SMTP_PORT"; then
    say "already running in $D"
    print_env "$D"
    exit 0
  fi
  stop_dir "$D"   # a half-started or half-dead stack
  for p in $(ports); do
    if port_open "$p"; then die "port $p is already in use (another stack? stop it with: $0 stop ITS_DIR)"; fi
  done

  mkdir -p "$D"/{run,state,mail}
  chown vmail:vmail "$D/mail"
  chmod 755 "$D"   # dovecot, dovenull and vmail must traverse it (mktemp -d gives 700)
  : > "$D/passwd.new"
  for u in $USERS; do echo "$u:{PLAIN}${u}pw::::::" >> "$D/passwd.new"; done
  mv "$D/passwd.new" "$D/passwd"; chmod 644 "$D/passwd"

  if [ "${TLS:-0}" = 1 ]; then
    make_certs "$D"
    SSL="ssl = yes
ssl_cert = <$D/tls/leaf.pem
ssl_key = <$D/tls/leaf.key"
    IMAPS=$IMAPS_PORT
  else
    SSL="ssl = no"
    IMAPS=0
  fi
  cat > "$D/dovecot.conf" <<EOF
instance_name = stationmaster-mailstack
base_dir = $D/run
state_dir = $D/state
protocols = imap lmtp submission
listen = 127.0.0.1
log_path = /dev/stderr
$SSL
disable_plaintext_auth = no
auth_mechanisms = plain login
auth_username_format = %Ln
# Tests log in wrongly on purpose, all from 127.0.0.1: no failure delay, and no per-IP
# penalty (it would slow every later login of every test, up to 15 s each).
auth_failure_delay = 0
recipient_delimiter = +
mail_location = maildir:~/Maildir
hostname = mail.example.test
submission_relay_host = 127.0.0.1
submission_relay_port = $SMTP_PORT
passdb {
  driver = passwd-file
  args = $D/passwd
}
userdb {
  driver = static
  args = uid=vmail gid=vmail home=$D/mail/%n allow_all_users=yes
}
service imap-login {
  inet_listener imap {
    port = $IMAP_PORT
  }
  inet_listener imaps {
    port = $IMAPS
  }
}
service submission-login {
  inet_listener submission {
    port = $SUBM_PORT
  }
}
service anvil {
  unix_listener anvil-auth-penalty {
    mode = 0
  }
}
service lmtp {
  inet_listener lmtp {
    address = 127.0.0.1
    port = $LMTP_PORT
  }
}
protocol lmtp {
  postmaster_address = postmaster@example.test
}
EOF
  cat > "$D/smtpd.conf" <<EOF
table vusers { "stationmaster@example.test" = "gm@example.test", "@" = "vmail" }
listen on 127.0.0.1 port $SMTP_PORT hostname mail.example.test
action "to_dovecot" lmtp "127.0.0.1:$LMTP_PORT" rcpt-to virtual <vusers>
match from any for any action "to_dovecot"
EOF
  chmod 644 "$D/smtpd.conf"
  smtpd -n -f "$D/smtpd.conf" >/dev/null 2>&1 || die "bad $D/smtpd.conf: $(smtpd -n -f "$D/smtpd.conf" 2>&1)"

  # OpenSMTPD's spool is shared by the machine: drop a queue left by an earlier run, or it
  # would be re-delivered now. smtpd recreates the directory.
  rm -rf /var/spool/smtpd

  setsid dovecot -F -c "$D/dovecot.conf" > "$D/dovecot.log" 2>&1 < /dev/null &
  echo $! > "$D/dovecot.pid"
  for p in "$IMAP_PORT" "$LMTP_PORT" "$SUBM_PORT"; do
    waitport "$p" "$(cat "$D/dovecot.pid")" \
      || { stop_dir "$D"; die "dovecot did not open port $p; $D/dovecot.log says: $(tail -5 "$D/dovecot.log")"; }
  done
  if [ "$IMAPS" != 0 ]; then
    waitport "$IMAPS" "$(cat "$D/dovecot.pid")" \
      || { stop_dir "$D"; die "dovecot did not open port $IMAPS: $(tail -5 "$D/dovecot.log")"; }
  fi
  setsid smtpd -d -f "$D/smtpd.conf" > "$D/smtpd.log" 2>&1 < /dev/null &
  echo $! > "$D/smtpd.pid"
  waitport "$SMTP_PORT" "$(cat "$D/smtpd.pid")" \
    || { stop_dir "$D"; die "smtpd did not open port $SMTP_PORT; $D/smtpd.log says: $(tail -5 "$D/smtpd.log")"; }

  {
    echo "export SM_IMAP_PORT=$IMAP_PORT SM_SMTP_PORT=$SMTP_PORT SM_SUBMISSION_PORT=$SUBM_PORT SM_LMTP_PORT=$LMTP_PORT SM_MAILDIR_ROOT=$D/mail"
    if [ "$IMAPS" != 0 ]; then echo "export SM_IMAPS_PORT=$IMAPS SM_CA=$D/ca.pem"; fi
  } > "$D/env"
  say "up in $D: imap=$IMAP_PORT smtp=$SMTP_PORT submission=$SUBM_PORT lmtp=$LMTP_PORT$([ "$IMAPS" != 0 ] && echo " imaps=$IMAPS ca=$D/ca.pem")"
  print_env "$D"
  ;;

env)
  [ -n "${2:-}" ] || die "usage: $0 env DIR"
  D=$(realpath -m "$2")
  alive "$D/dovecot.pid" && alive "$D/smtpd.pid" && [ -f "$D/env" ] || die "no stack running in $D"
  print_env "$D"
  ;;

stop)
  [ -n "${2:-}" ] || die "usage: $0 stop DIR"
  D=$(realpath -m "$2")
  [ -d "$D" ] || exit 0
  need_root
  stop_dir "$D"
  rm -f "$D/env"
  ;;

*)
  echo "usage: $0 install | start DIR | stop DIR | env DIR   (TLS=1 start DIR: with a test CA)" >&2
  exit 2
  ;;
esac
