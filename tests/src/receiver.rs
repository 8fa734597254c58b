//! A real HTTP receiver for webhook tests, on a loopback port: it records every request and
//! answers with the statuses it is told to (then 200), optionally after a delay.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Received {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

#[derive(Default)]
struct Script {
    received: Vec<Received>,
    /// Statuses to answer before answering 200.
    statuses: VecDeque<u16>,
    /// Delays before answering, one per request, before answering at once.
    delays: VecDeque<Duration>,
    /// Requests being answered now, and the most there ever were at once.
    in_flight: usize,
    max_in_flight: usize,
}

pub struct Receiver {
    pub addr: SocketAddr,
    script: Arc<Mutex<Script>>,
    server: actix_web::dev::ServerHandle,
}

fn lock(script: &Mutex<Script>) -> std::sync::MutexGuard<'_, Script> {
    script.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

async fn receive(request: HttpRequest, body: web::Bytes, script: web::Data<Arc<Mutex<Script>>>) -> HttpResponse {
    let (status, delay) = {
        let mut script = lock(&script);
        script.received.push(Received {
            path: request.path().to_owned(),
            headers: request
                .headers()
                .iter()
                .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
                .collect(),
            body: body.to_vec(),
        });
        script.in_flight += 1;
        script.max_in_flight = script.max_in_flight.max(script.in_flight);
        (script.statuses.pop_front().unwrap_or(200), script.delays.pop_front())
    };
    if let Some(delay) = delay {
        tokio::time::sleep(delay).await;
    }
    lock(&script).in_flight -= 1;
    let status = actix_web::http::StatusCode::from_u16(status).unwrap_or(actix_web::http::StatusCode::OK);
    HttpResponse::build(status).body(format!("answered {}", status.as_u16()))
}

impl Receiver {
    pub async fn start() -> Self {
        let script: Arc<Mutex<Script>> = Arc::default();
        let data = web::Data::new(script.clone());
        let server = HttpServer::new(move || App::new().app_data(data.clone()).default_service(web::to(receive)))
            .workers(1)
            .disable_signals()
            .bind(("127.0.0.1", 0))
            .expect("the receiver binds a loopback port");
        let addr = server.addrs()[0];
        let server = server.run();
        let handle = server.handle();
        actix_web::rt::spawn(server);
        Self { addr, script, server: handle }
    }

    /// `http://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Answers the next requests with these statuses, then 200.
    pub fn answer(&self, statuses: &[u16]) {
        lock(&self.script).statuses.extend(statuses.iter().copied());
    }

    /// Holds the next requests' answers this long each.
    pub fn delay(&self, delays: &[Duration]) {
        lock(&self.script).delays.extend(delays.iter().copied());
    }

    pub fn received(&self) -> Vec<Received> {
        lock(&self.script).received.clone()
    }

    /// The most requests this receiver was answering at once.
    pub fn max_in_flight(&self) -> usize {
        lock(&self.script).max_in_flight
    }

    pub fn received_at(&self, path: &str) -> Vec<Received> {
        self.received().into_iter().filter(|r| r.path == path).collect()
    }

    pub async fn stop(self) {
        self.server.stop(false).await;
    }
}
