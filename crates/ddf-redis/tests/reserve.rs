//! `DDF.RESERVE` plans on a thread of its own: a slow reservation blocks
//! only its caller, racing reservations create a key once, and the key
//! reaches a replica and the AOF as the primary made it.

mod common;
use common::{Server, TEST_HASHKEY, ask};
use std::time::{Duration, Instant};

/// A reservation whose planning is slow: a queued candidate for a count
/// window of 2^20 sums its theory over every insertion of a subfilter
/// (about 0.6 s in a release build, several times that in a debug one).
const SLOW: &[&str] = &["WINDOW", "1048576", "MAXMEMORY", "524288", "MISSES-OK"];

/// `DDF.RESERVE key SLOW… extra…`, its reply as text (an error as its message).
fn reserve(port: u16, key: &str, extra: &[&str]) -> Result<String, String> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("client");
    let mut c = client.get_connection().expect("connect");
    c.set_read_timeout(Some(Duration::from_secs(600)))
        .expect("timeout");
    redis::cmd("DDF.RESERVE")
        .arg(key)
        .arg(SLOW)
        .arg(extra)
        .query::<String>(&mut c)
        .map_err(|e| e.to_string())
}

#[test]
fn a_slow_reservation_blocks_only_its_caller() {
    let server = Server::start(&[]);
    let port = server.port;
    let started = Instant::now();
    let slow = std::thread::spawn(move || {
        let r = reserve(port, "big", &[]);
        (r, started.elapsed())
    });
    // Another client pings until the reservation answers.
    let mut other = server.conn();
    let mut worst = Duration::ZERO;
    let mut pings = 0u32;
    while !slow.is_finished() {
        let t = Instant::now();
        let pong: String = redis::cmd("PING").query(&mut other).expect("ping");
        assert_eq!(pong, "PONG");
        worst = worst.max(t.elapsed());
        pings += 1;
        std::thread::sleep(Duration::from_millis(5));
    }
    let (reply, took) = slow.join().expect("reserving thread");
    assert_eq!(reply.as_deref(), Ok("OK"));
    // The reservation took long enough for the pings to mean something,
    // and none of them waited for it: a server blocked by planning would
    // answer the first ping only when the reservation ends. 100 ms leaves
    // room for a loaded machine's scheduling; it is far below `took`.
    assert!(pings >= 10, "{pings} pings in {took:?}");
    assert!(
        worst < Duration::from_millis(100) && worst * 5 < took,
        "worst PING {worst:?} while a reservation of {took:?} planned"
    );
    // The key works.
    let mut c = server.conn();
    assert_eq!(
        ask(&mut c, "DDF.OBSERVE", "big", &["a", "b", "a"]),
        [0, 0, 1]
    );
    assert_eq!(ask(&mut c, "DDF.EXISTS", "big", &["a", "z"]), [1, 0]);
}

#[test]
fn racing_reservations_create_the_key_once() {
    let server = Server::start(&[]);
    let port = server.port;
    let racers: Vec<_> = (0..3)
        .map(|_| std::thread::spawn(move || reserve(port, "raced", &[])))
        .collect();
    let replies: Vec<Result<String, String>> = racers
        .into_iter()
        .map(|t| t.join().expect("racer"))
        .collect();
    let won = replies.iter().filter(|r| r.as_deref() == Ok("OK")).count();
    assert_eq!(won, 1, "{replies:?}");
    for r in &replies {
        if let Err(e) = r {
            assert!(e.contains("item exists"), "{e}");
        }
    }
    let mut c = server.conn();
    assert_eq!(ask(&mut c, "DDF.OBSERVE", "raced", &["x", "x"]), [0, 1]);
}

#[test]
fn a_reservation_planned_on_a_thread_reaches_the_replica_and_the_aof() {
    let mut primary = Server::start(&["--appendonly", "yes"]);
    let port = primary.port.to_string();
    let replica = Server::start(&["--replicaof", "127.0.0.1", &port]);
    let mut r = replica.conn();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let info: String = redis::cmd("INFO")
            .arg("replication")
            .query(&mut r)
            .expect("info");
        if info.contains("master_link_status:up") {
            break;
        }
        assert!(Instant::now() < deadline, "replica never linked");
        std::thread::sleep(Duration::from_millis(50));
    }
    // One key with the server's own hash key (replicated as HASHKEY), one
    // with the caller's, in a database other than 0.
    assert_eq!(reserve(primary.port, "drawn", &[]).as_deref(), Ok("OK"));
    let mut p = primary.conn();
    let _: () = redis::cmd("SELECT").arg(3).query(&mut p).expect("select");
    let ok: String = redis::cmd("DDF.RESERVE")
        .arg("given")
        .arg(SLOW)
        .arg(&["HASHKEY", TEST_HASHKEY][..])
        .query(&mut p)
        .expect("reserve in db 3");
    assert_eq!(ok, "OK");
    let items: Vec<String> = (0..2000).map(|i| format!("item-{i}")).collect();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let seen_given = ask(&mut p, "DDF.OBSERVE", "given", &items);
    let _: () = redis::cmd("SELECT").arg(0).query(&mut p).expect("select");
    let seen_drawn = ask(&mut p, "DDF.OBSERVE", "drawn", &items);
    let acked: i64 = redis::cmd("WAIT")
        .arg(1)
        .arg(10_000)
        .query(&mut p)
        .expect("wait");
    assert_eq!(acked, 1);
    let probe: Vec<String> = (1000..3000).map(|i| format!("item-{i}")).collect();
    let probe: Vec<&str> = probe.iter().map(String::as_str).collect();
    let answers = |c: &mut redis::Connection| {
        let _: () = redis::cmd("SELECT").arg(0).query(c).expect("select");
        let drawn = ask(c, "DDF.EXISTS", "drawn", &probe);
        let _: () = redis::cmd("SELECT").arg(3).query(c).expect("select");
        let given = ask(c, "DDF.EXISTS", "given", &probe);
        (drawn, given)
    };
    let on_primary = answers(&mut p);
    assert_eq!(
        answers(&mut r),
        on_primary,
        "the replica answers as its primary"
    );
    // The AOF replays the reservation and the observations.
    drop(p);
    primary.restart();
    let mut p = primary.conn();
    assert_eq!(answers(&mut p), on_primary, "the AOF restores both keys");
    assert!(
        seen_given
            .iter()
            .chain(&seen_drawn)
            .all(|&v| v == 0 || v == 1)
    );
}

#[test]
fn a_reservation_in_a_transaction_plans_in_place() {
    let server = Server::start(&[]);
    let mut c = server.conn();
    let (ok, seen): (String, Vec<i64>) = redis::pipe()
        .atomic()
        .cmd("DDF.RESERVE")
        .arg("tx")
        .arg(&["WINDOW", "1000", "ERROR", "0.01"][..])
        .cmd("DDF.OBSERVE")
        .arg("tx")
        .arg(&["a", "a"][..])
        .query(&mut c)
        .expect("MULTI … EXEC");
    assert_eq!((ok.as_str(), seen), ("OK", vec![0, 1]));
}
