//! The byte stream under IMAP and SMTP: a TCP connection with timeouts,
//! plain or with TLS over it (rustls, verified against `tls::client_config`).

use std::io::{self, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use rustls::pki_types::ServerName;
use rustls::{ClientConfig, ClientConnection, StreamOwned};

use crate::TransportError;

/// Plain TCP or TLS over it.
pub(super) enum Stream {
    Plain(TcpStream),
    Tls(Box<StreamOwned<ClientConnection, TcpStream>>),
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.read(buf),
            Stream::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stream::Plain(s) => s.write(buf),
            Stream::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stream::Plain(s) => s.flush(),
            Stream::Tls(s) => s.flush(),
        }
    }
}

/// Whether an I/O error is a read or write that ran out of its timeout.
pub(super) fn timed_out(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// What an I/O error on a connection says: a read or write that ran out
/// of `timeout` is a server that did not answer, not the system's
/// "Resource temporarily unavailable (os error 11)".
pub(super) fn io_text(e: &io::Error, timeout: Duration) -> String {
    if timed_out(e) {
        silent(timeout)
    } else {
        e.to_string()
    }
}

/// A server that did not answer within `timeout`.
pub(super) fn silent(timeout: Duration) -> String {
    format!("no answer within {} s", timeout.as_secs())
}

/// A connection failure at `server` (`host:port`).
pub(super) fn connect_error(server: &str, message: impl std::fmt::Display) -> TransportError {
    TransportError::Connect {
        server: server.to_string(),
        message: message.to_string(),
    }
}

/// A TCP connection to `host:port`, with `timeout` on connect, read and
/// write, and Nagle off (commands are small and answered one by one).
pub(super) fn tcp(
    host: &str,
    port: u16,
    server: &str,
    timeout: Duration,
) -> Result<TcpStream, TransportError> {
    let addrs = (host, port)
        .to_socket_addrs()
        .map_err(|e| connect_error(server, format!("cannot resolve {host}: {e}")))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, timeout) {
            Ok(tcp) => {
                let timeouts = tcp
                    .set_read_timeout(Some(timeout))
                    .and_then(|()| tcp.set_write_timeout(Some(timeout)));
                timeouts.map_err(|e| connect_error(server, e))?;
                let _ = tcp.set_nodelay(true);
                return Ok(tcp);
            }
            Err(e) => last = Some(e),
        }
    }
    Err(connect_error(
        server,
        match last {
            Some(e) => e.to_string(),
            None => format!("{host} has no address"),
        },
    ))
}

/// TLS over `tcp` for `host`, handshake done (so certificate errors show
/// here). `what` names the configuration section in errors.
pub(super) fn tls_wrap(
    config: &Arc<ClientConfig>,
    host: &str,
    mut tcp: TcpStream,
    server: &str,
    what: &str,
) -> Result<Stream, TransportError> {
    let name = ServerName::try_from(host.to_string())
        .map_err(|e| TransportError::Config(format!("{what}: host {host:?}: {e}")))?;
    let mut conn = ClientConnection::new(Arc::clone(config), name)
        .map_err(|e| connect_error(server, format!("TLS: {e}")))?;
    while conn.is_handshaking() {
        conn.complete_io(&mut tcp)
            .map_err(|e| connect_error(server, format!("TLS handshake: {e}")))?;
    }
    Ok(Stream::Tls(Box::new(StreamOwned::new(conn, tcp))))
}
