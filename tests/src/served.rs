//! The real app behind a real socket, for what only a socket shows: bodies that never arrive, clients
//! that leave, many connections at once. Requests are written as raw HTTP/1.1, so a test can send a
//! head without its body or a body a byte at a time.

use std::net::SocketAddr;
use std::time::Duration;

use actix_web::dev::ServerHandle;
use actix_web::{web, HttpServer};
use api::AppState;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A server on a loopback port, answering with the test app's state.
pub struct Served {
    pub addr: SocketAddr,
    handle: ServerHandle,
}

impl Served {
    /// Serves `state` on one worker, with `serve`'s request timeout.
    pub fn start(state: web::Data<AppState>) -> Self {
        let timeout = state.settings.request_timeout;
        let server = HttpServer::new(move || api::build_app(state.clone()))
            .workers(1)
            .disable_signals()
            .client_request_timeout(timeout)
            .h1_allow_half_closed(false)
            .bind(("127.0.0.1", 0))
            .expect("a loopback port");
        let addr = server.addrs()[0];
        let server = server.run();
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Self { addr, handle }
    }

    /// Opens a connection and sends `head` (request line and headers, without the blank line) and
    /// then `body`, as written: `Content-Length` is the caller's to say.
    pub async fn open(&self, head: &str, body: &[u8]) -> TcpStream {
        let mut stream = TcpStream::connect(self.addr).await.expect("connect");
        stream.write_all(format!("{head}\r\n\r\n").as_bytes()).await.expect("send the head");
        stream.write_all(body).await.expect("send the body");
        stream
    }

    /// A whole request on a connection of its own (closed after the answer): status and body.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> (u16, serde_json::Value) {
        let mut head =
            format!("{method} {path} HTTP/1.1\r\nHost: tally\r\nConnection: close\r\nContent-Length: {}", body.len());
        for (name, value) in headers {
            head.push_str(&format!("\r\n{name}: {value}"));
        }
        if !body.is_empty() {
            head.push_str("\r\nContent-Type: application/json");
        }
        let stream = self.open(&head, body.as_bytes()).await;
        read_answer(stream).await
    }

    pub async fn stop(self) {
        self.handle.stop(false).await;
    }
}

/// Reads an answer to its end (the server closes the connection): status and JSON body (`Null` when
/// there is none).
pub async fn read_answer(mut stream: TcpStream) -> (u16, serde_json::Value) {
    let mut raw = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut raw)).await;
    let text = String::from_utf8_lossy(&raw);
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |(_, body)| body);
    // A chunked body: the JSON lies between the first chunk's size line and its end.
    let json = body.find('{').and_then(|start| body.rfind('}').map(|end| &body[start..=end])).unwrap_or("");
    (status, serde_json::from_str(json).unwrap_or(serde_json::Value::Null))
}
