//! A stand-in on 127.0.0.1 for a service outside the project (an outgoing webhook's
//! service, an email provider): it records each request and answers as the test says.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{channel, Receiver};

/// One request the double received.
#[derive(Debug, Clone)]
pub struct Received {
    pub content_type: String,
    /// Every header, names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    /// The value of a header (`name` in lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
}

/// What the double answers to a request: a status and body, or `None` to close the
/// connection without answering (a dead service).
pub type Answerer = Box<dyn FnMut(&Received) -> Option<(u16, String)> + Send>;

/// A service on 127.0.0.1 answering each request with `answer`, one at a time; every
/// request it read is sent to the receiver.
pub fn double(mut answer: Answerer) -> (String, Receiver<Received>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://127.0.0.1:{}/hook", listener.local_addr().unwrap().port());
    let (seen, requests) = channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let Some(received) = read_request(&mut stream) else { continue };
            let _ = seen.send(received.clone());
            if let Some((status, body)) = answer(&received) {
                let head = format!(
                    "HTTP/1.1 {status} Answer\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
            }
        }
    });
    (url, requests)
}

fn read_request(stream: &mut TcpStream) -> Option<Received> {
    let mut reader = BufReader::new(stream.try_clone().ok()?);
    let (mut length, mut content_type, mut chunked, mut headers) = (0usize, String::new(), false, Vec::new());
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        headers.push((name.to_ascii_lowercase(), value.trim().to_string()));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().ok()?,
            "content-type" => content_type = value.trim().to_string(),
            "transfer-encoding" => chunked = value.to_ascii_lowercase().contains("chunked"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).ok()?;
            let size = usize::from_str_radix(size.trim(), 16).ok()?;
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).ok()?;
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body).ok()?;
    }
    Some(Received { content_type, headers, body: String::from_utf8(body).ok()? })
}
