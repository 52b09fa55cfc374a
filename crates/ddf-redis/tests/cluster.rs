//! A 3-primary cluster on loopback: one logical window split by hash tag
//! over the shards, and a filter key resharded with MIGRATE.

mod common;
use common::{Server, ask};
use ddf_redis::cluster::{ShardedWindow, key_slot};
use std::time::{Duration, Instant};

fn wait_ok(servers: &[Server]) {
    let deadline = Instant::now() + Duration::from_secs(60);
    for s in servers {
        let mut c = s.conn();
        loop {
            let info: String = redis::cmd("CLUSTER")
                .arg("INFO")
                .query(&mut c)
                .expect("info");
            if info.contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "cluster never became ok");
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The server that owns `key`'s slot (the others answer MOVED).
fn owner<'a>(servers: &'a [Server], key: &str) -> &'a Server {
    servers
        .iter()
        .find(|s| {
            redis::cmd("DDF.EXISTS")
                .arg(key)
                .arg("probe")
                .query::<Vec<i64>>(&mut s.conn())
                .is_ok()
        })
        .expect("an owner")
}

#[test]
fn a_window_split_by_hash_tag_and_a_resharded_key_keep_their_answers() {
    let servers: Vec<Server> = (0..3)
        .map(|_| Server::start(&["--cluster-enabled", "yes", "--cluster-node-timeout", "5000"]))
        .collect();
    let addrs: Vec<String> = servers
        .iter()
        .map(|s| format!("127.0.0.1:{}", s.port))
        .collect();
    let status = common::cli()
        .args(["--cluster", "create"])
        .args(&addrs)
        .args(["--cluster-replicas", "0", "--cluster-yes"])
        .stdout(std::process::Stdio::null())
        .status()
        .expect("the server's client (redis-cli comes with Debian's redis-server)");
    assert!(status.success(), "cluster create");
    wait_ok(&servers);

    let split = ShardedWindow::new("events", 3).expect("3 shards");
    let owners: Vec<u16> = split
        .keys()
        .iter()
        .map(|k| owner(&servers, k).port)
        .collect();
    let mut distinct = owners.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "one shard key per primary: {owners:?}");
    for key in split.keys() {
        let _: () = redis::cmd("DDF.RESERVE")
            .arg(key)
            .arg(&["WITHIN", "3600000", "CAPACITY", "10000", "ERROR", "0.001"])
            .arg(&["HASHKEY", common::TEST_HASHKEY])
            .query(&mut owner(&servers, key).conn())
            .expect("reserve");
    }
    let items: Vec<String> = (0..900).map(|i| format!("user-{}", i % 600)).collect();
    let mut answers = vec![0i64; items.len()];
    for (shard, positions) in split.split(&items).iter().enumerate() {
        let key = &split.keys()[shard];
        let batch: Vec<&str> = positions.iter().map(|&i| items[i].as_str()).collect();
        let got = ask(&mut owner(&servers, key).conn(), "DDF.OBSERVE", key, &batch);
        for (&at, a) in positions.iter().zip(got) {
            answers[at] = a;
        }
    }
    assert!(
        answers[600..].iter().all(|&a| a == 1),
        "every repeat is found"
    );
    assert!(
        answers[..600].iter().sum::<i64>() <= 2,
        "few false positives"
    );

    // Reshard the slot of shard 0's key to another primary with MIGRATE.
    let key = &split.keys()[0];
    let slot = key_slot(key.as_bytes());
    let from = owner(&servers, key);
    let to = servers
        .iter()
        .find(|s| s.port != from.port)
        .expect("another");
    let probes: Vec<&str> = items
        .iter()
        .map(String::as_str)
        .filter(|i| split.key_of(*i) == key)
        .collect();
    let before = ask(&mut from.conn(), "DDF.EXISTS", key, &probes);
    let id = |s: &Server| -> String {
        redis::cmd("CLUSTER")
            .arg("MYID")
            .query(&mut s.conn())
            .expect("id")
    };
    let (from_id, to_id) = (id(from), id(to));
    let _: () = redis::cmd("CLUSTER")
        .arg(&["SETSLOT", &slot.to_string(), "IMPORTING", &from_id])
        .query(&mut to.conn())
        .expect("importing");
    let _: () = redis::cmd("CLUSTER")
        .arg(&["SETSLOT", &slot.to_string(), "MIGRATING", &to_id])
        .query(&mut from.conn())
        .expect("migrating");
    let _: String = redis::cmd("MIGRATE")
        .arg(&["127.0.0.1", &to.port.to_string(), key, "0", "10000"])
        .query(&mut from.conn())
        .expect("migrate");
    for s in &servers {
        let _: () = redis::cmd("CLUSTER")
            .arg(&["SETSLOT", &slot.to_string(), "NODE", &to_id])
            .query(&mut s.conn())
            .expect("node");
    }
    assert_eq!(owner(&servers, key).port, to.port);
    assert_eq!(ask(&mut to.conn(), "DDF.EXISTS", key, &probes), before);
}
