//! RDB, restart, DEBUG RELOAD, DUMP/RESTORE, AOF rewrite, corrupt payloads.

mod common;
use common::{Server, TEST_HASHKEY, ask, error_of};

/// The items of the tests: 300 distinct, then the first 150 again.
fn stream() -> Vec<String> {
    (0..450).map(|i| format!("item-{}", i % 300)).collect()
}

/// Reserves a count key `c` and a time key `t` and feeds them the stream.
fn fill(conn: &mut redis::Connection) {
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&[
            "c",
            "WINDOW",
            "1000",
            "ERROR",
            "0.001",
            "HASHKEY",
            TEST_HASHKEY,
        ])
        .query(conn)
        .expect("reserve c");
    let _: () = redis::cmd("DDF.RESERVE")
        .arg(&[
            "t",
            "WITHIN",
            "3600000",
            "CAPACITY",
            "10000",
            "ERROR",
            "0.001",
            "HASHKEY",
            TEST_HASHKEY,
        ])
        .query(conn)
        .expect("reserve t");
    let items = stream();
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let c = ask(conn, "DDF.OBSERVE", "c", &items);
    assert_eq!(c.iter().sum::<i64>(), 150);
    let _: Vec<i64> = redis::cmd("DDF.OBSERVE")
        .arg("t")
        .arg("AT")
        .arg(1_000_000u64)
        .arg(&items)
        .query(conn)
        .expect("observe t");
}

/// Every answer the two keys give now, on probe items seen and unseen, and
/// the keys' INFO.
fn answers(conn: &mut redis::Connection) -> (Vec<i64>, Vec<i64>, redis::Value, redis::Value) {
    let probes: Vec<String> = (0..600).map(|i| format!("item-{i}")).collect();
    let probes: Vec<&str> = probes.iter().map(String::as_str).collect();
    let c = ask(conn, "DDF.EXISTS", "c", &probes);
    let t: Vec<i64> = redis::cmd("DDF.EXISTS")
        .arg("t")
        .arg("AT")
        .arg(1_000_000u64)
        .arg(&probes)
        .query(conn)
        .expect("exists t");
    assert!(c[..300].iter().all(|&x| x == 1) && t[..300].iter().all(|&x| x == 1));
    let ic = redis::cmd("DDF.INFO").arg("c").query(conn).expect("info c");
    let it = redis::cmd("DDF.INFO").arg("t").query(conn).expect("info t");
    (c, t, ic, it)
}

#[test]
fn debug_reload_and_a_real_restart_keep_the_state_exactly() {
    let mut server = Server::start(&[]);
    let mut conn = server.conn();
    fill(&mut conn);
    let before = answers(&mut conn);
    let _: () = redis::cmd("DEBUG")
        .arg("RELOAD")
        .query(&mut conn)
        .expect("reload");
    assert_eq!(answers(&mut conn), before);
    let _: () = redis::cmd("SAVE").query(&mut conn).expect("save");
    drop(conn);
    server.restart();
    let mut conn = server.conn();
    assert_eq!(answers(&mut conn), before);
    // And the restored filters keep working alike: a duplicate is one.
    assert_eq!(
        ask(&mut conn, "DDF.OBSERVE", "c", &["item-1", "new"]),
        [1, 0]
    );
}

#[test]
fn aof_rewrite_restores_the_exact_state() {
    let mut server = Server::start(&["--appendonly", "yes", "--aof-use-rdb-preamble", "no"]);
    let mut conn = server.conn();
    fill(&mut conn);
    let before = answers(&mut conn);
    let _: String = redis::cmd("BGREWRITEAOF")
        .query(&mut conn)
        .expect("rewrite");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        let info: String = redis::cmd("INFO")
            .arg("persistence")
            .query(&mut conn)
            .expect("info");
        let busy =
            info.contains("aof_rewrite_in_progress:1") || info.contains("aof_rewrite_scheduled:1");
        if !busy && info.contains("aof_last_bgrewrite_status:ok") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "AOF rewrite did not finish"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    drop(conn);
    server.restart();
    let mut conn = server.conn();
    assert_eq!(answers(&mut conn), before);
}

/// Redis's CRC-64 (Jones polynomial, reflected, initial value 0), which
/// seals DUMP payloads.
fn crc64(bytes: &[u8]) -> u64 {
    let mut crc = 0u64;
    for &b in bytes {
        crc ^= u64::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x95ac_9329_ac4b_c9b5
            } else {
                crc >> 1
            };
        }
    }
    crc
}

#[test]
fn dump_restore_copies_exactly_and_a_corrupt_payload_is_refused() {
    // Uncompressed, so every byte of `DUMP` past the header is a byte of
    // the module's payload: a flip inside an LZF back-reference into a run
    // of zeros can decompress to the very same bytes.
    let server = Server::start(&["--rdbcompression", "no"]);
    let mut conn = server.conn();
    fill(&mut conn);
    let payload: Vec<u8> = redis::cmd("DUMP").arg("c").query(&mut conn).expect("dump");
    let _: () = redis::cmd("RESTORE")
        .arg("c2")
        .arg(0)
        .arg(&payload)
        .query(&mut conn)
        .expect("restore");
    let probes: Vec<String> = (0..600).map(|i| format!("item-{i}")).collect();
    let probes: Vec<&str> = probes.iter().map(String::as_str).collect();
    assert_eq!(
        ask(&mut conn, "DDF.EXISTS", "c2", &probes),
        ask(&mut conn, "DDF.EXISTS", "c", &probes)
    );
    // COPY goes through the type's copy callback.
    let copied: i64 = redis::cmd("COPY")
        .arg(&["c", "c3"])
        .query(&mut conn)
        .expect("copy");
    assert_eq!(copied, 1);
    assert_eq!(
        ask(&mut conn, "DDF.EXISTS", "c3", &probes),
        ask(&mut conn, "DDF.EXISTS", "c", &probes)
    );

    // Flip one byte inside the module's bytes and reseal the payload, so
    // Redis's own checksum passes and the module's decoder must refuse it.
    let (body, crc) = payload.split_at(payload.len() - 8);
    assert_eq!(crc64(body).to_le_bytes(), crc, "the CRC-64 of DUMP");
    let ours = body
        .windows(4)
        .position(|w| w == b"DDFR")
        .expect("the module's payload inside DUMP");
    for at in [ours + 100, body.len() - 40, body.len() / 2, 12] {
        let mut bad = body.to_vec();
        bad[at] ^= 0x10;
        bad.extend_from_slice(&crc64(&bad).to_le_bytes());
        let e = match redis::cmd("RESTORE")
            .arg("bad")
            .arg(0)
            .arg(&bad)
            .query::<()>(&mut conn)
        {
            Ok(()) => panic!("a payload flipped at byte {at} was restored"),
            Err(e) => e.to_string(),
        };
        assert!(
            e.to_lowercase().contains("bad data format"),
            "flip at {at}: {e}"
        );
    }
    // A foreign payload is refused by DDF.LOADSTATE too; the server lives.
    assert!(error_of(&mut conn, &["DDF.LOADSTATE", "x", "DDFR garbage"]).contains("refusing"));
    let pong: String = redis::cmd("PING").query(&mut conn).expect("ping");
    assert_eq!(pong, "PONG");
}
