//! Test harness: real server processes (`redis-server`, or `valkey-server`
//! with `DDF_REDIS_SERVER`) on free loopback ports with the module loaded,
//! each killed when its handle drops.

#![allow(dead_code, unreachable_pub)]

/// A fixed hash key for `DDF.RESERVE … HASHKEY`, so that tests whose
/// answers depend on false positives are deterministic.
pub const TEST_HASHKEY: &str = "00112233445566778899aabbccddeeff";

use std::ffi::OsString;
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a server may take to answer its first PING.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// The module's shared library, built by cargo before the tests (the crate
/// is a cdylib too).
pub fn module_path() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    // The test binary lives in target/<profile>/deps, where `cargo test`
    // builds the library too (only `cargo build` copies it one up).
    let exe = std::env::current_exe().expect("test binary path");
    let deps = exe.parent().map(PathBuf::from);
    let profile = deps.as_ref().and_then(|d| d.parent()).map(PathBuf::from);
    let candidates = deps
        .into_iter()
        .chain(profile)
        .chain(["debug", "release"].map(|p| target.join(p)));
    for dir in candidates {
        let so = dir.join("libddf_redis.so");
        if so.exists() {
            return so;
        }
    }
    panic!("libddf_redis.so not found under {}", target.display());
}

/// The server every test of this process runs on, and its command-line client.
pub struct Program {
    /// The server binary: a path, or a name looked up on `PATH`.
    pub server: OsString,
    /// The client for `--cluster create`: the server's sibling of the same
    /// make (`valkey-cli` beside `valkey-server`), else one on `PATH`.
    pub cli: OsString,
    /// The first line of `server --version` (`Redis server v=7.0.15 …`).
    pub version: String,
}

/// The servers the tests may run on when `DDF_REDIS_SERVER` is unset, in
/// order of preference.
const DEFAULT_SERVERS: [&str; 2] = ["redis-server", "valkey-server"];

/// The server under test: `DDF_REDIS_SERVER` (a path or a name on `PATH`)
/// when set, which must then run; else the first of `redis-server` and
/// `valkey-server` that runs. Named once per test process on the real
/// stderr (the test harness does not capture it), so every run says what
/// it ran on.
pub fn program() -> &'static Program {
    static PROGRAM: OnceLock<Program> = OnceLock::new();
    PROGRAM.get_or_init(|| {
        let (server, version) = match std::env::var_os("DDF_REDIS_SERVER") {
            Some(server) if !server.is_empty() => {
                let version = version_of(&server).unwrap_or_else(|e| {
                    panic!(
                        "DDF_REDIS_SERVER={}: cannot run it ({e}); `cargo xtask setup` \
                         installs redis-server and Valkey",
                        server.to_string_lossy()
                    )
                });
                (server, version)
            }
            _ => DEFAULT_SERVERS
                .iter()
                .find_map(|name| {
                    let server = OsString::from(name);
                    version_of(&server).ok().map(|version| (server, version))
                })
                .unwrap_or_else(|| {
                    panic!(
                        "neither redis-server nor valkey-server found: install Debian's \
                         `redis-server` package (apt-get install -y redis-server), or run \
                         `cargo xtask setup`, or name a server in DDF_REDIS_SERVER"
                    )
                }),
        };
        let program = Program {
            cli: cli_for(&server),
            server,
            version,
        };
        let _ = writeln!(
            std::io::stderr(),
            "ddf-redis tests on {} ({})",
            program.version,
            program.server.to_string_lossy()
        );
        program
    })
}

/// The first line `server --version` prints, or why it could not run.
fn version_of(server: &OsString) -> Result<String, String> {
    let out = Command::new(server)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("`--version` exited with {}", out.status));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().next().unwrap_or_default().trim().to_string())
}

/// `valkey-cli` beside `…/valkey-server` (`redis-cli` beside
/// `redis-server`; a bare name is looked up on `PATH`), else the first client
/// on `PATH` (either speaks to either server).
fn cli_for(server: &OsString) -> OsString {
    let path = Path::new(server);
    let sibling = path
        .file_name()
        .map(|n| path.with_file_name(n.to_string_lossy().replace("-server", "-cli")));
    sibling
        .into_iter()
        .map(PathBuf::into_os_string)
        .chain(["redis-cli", "valkey-cli"].map(OsString::from))
        .find(|cli| version_of(cli).is_ok())
        .unwrap_or_else(|| "redis-cli".into())
}

/// The command-line client, for what only it does (`--cluster create`).
pub fn cli() -> Command {
    Command::new(&program().cli)
}

/// A free loopback port (bound, read, released).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
    listener.local_addr().expect("local address").port()
}

/// One server with the module, in its own temporary directory.
pub struct Server {
    pub port: u16,
    pub dir: PathBuf,
    child: Option<Child>,
    extra: Vec<String>,
}

impl Server {
    /// A server with the module and the given extra arguments
    /// (`--name value` pairs, e.g. `--appendonly yes`).
    pub fn start(extra: &[&str]) -> Server {
        let dir = std::env::temp_dir().join(format!(
            "ddf-redis-test-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).expect("temporary directory");
        // A port found free may be taken by a server of a test running
        // beside this one before ours binds it: then try another.
        for _ in 0..8 {
            let mut server = Server::unstarted(dir.clone(), free_port(), extra);
            if server.spawn() {
                return server;
            }
        }
        panic!("no free loopback port for the server after 8 tries");
    }

    /// A server on `port` in `dir` (a restart reuses both).
    pub fn start_in(dir: PathBuf, port: u16, extra: &[&str]) -> Server {
        let mut server = Server::unstarted(dir, port, extra);
        assert!(server.spawn(), "port {port} is taken by another server");
        server
    }

    fn unstarted(dir: PathBuf, port: u16, extra: &[&str]) -> Server {
        program();
        Server {
            port,
            dir,
            child: None,
            extra: extra.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Starts the process and waits for it to answer; false when the port
    /// answered with another process (ours could not bind it and exited).
    fn spawn(&mut self) -> bool {
        let module = module_path();
        let mut cmd = Command::new(&program().server);
        cmd.arg("--port")
            .arg(self.port.to_string())
            .args([
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--protected-mode",
                "no",
            ])
            .args(["--enable-debug-command", "yes", "--logfile", "redis.log"])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--loadmodule")
            .arg(&module)
            .args(&self.extra)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = cmd
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", program().server.to_string_lossy()));
        let pid = child.id();
        self.child = Some(child);
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(mut c) = self.try_conn()
                && redis::cmd("PING").query::<String>(&mut c).is_ok()
            {
                let info: String = redis::cmd("INFO")
                    .arg("server")
                    .query(&mut c)
                    .expect("INFO server");
                let theirs = info
                    .lines()
                    .find_map(|l| l.strip_prefix("process_id:"))
                    .and_then(|v| v.trim().parse::<u32>().ok());
                if theirs == Some(pid) {
                    return true;
                }
                if let Some(mut child) = self.child.take() {
                    let _ = child.kill();
                    let _ = child.wait();
                }
                return false;
            }
            assert!(
                Instant::now() < deadline,
                "{} on port {} did not answer PING",
                program().server.to_string_lossy(),
                self.port
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn try_conn(&self) -> redis::RedisResult<redis::Connection> {
        let client = redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))?;
        client.get_connection_with_timeout(Duration::from_secs(5))
    }

    /// A connection with bounded reads and writes.
    pub fn conn(&self) -> redis::Connection {
        let c = self.try_conn().expect("connect");
        c.set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        c.set_write_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        c
    }

    /// Stops the server the hard way (SIGKILL): nothing is saved.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops (SHUTDOWN, saving if persistence is on) and starts again on the
    /// same port and directory.
    pub fn restart(&mut self) {
        if let Ok(mut c) = self.try_conn() {
            let _: redis::RedisResult<()> = redis::cmd("SHUTDOWN").query(&mut c);
        }
        if let Some(mut child) = self.child.take() {
            let deadline = Instant::now() + START_TIMEOUT;
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        assert!(
            self.spawn(),
            "port {} was taken while the server restarted",
            self.port
        );
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        // DDF_REDIS_KEEP=1 keeps the directory (and redis.log) for a look.
        if std::env::var_os("DDF_REDIS_KEEP").is_none() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// `DDF.OBSERVE`/`DDF.EXISTS` answers as a vector of 0/1.
pub fn ask(c: &mut redis::Connection, cmd: &str, key: &str, items: &[&str]) -> Vec<i64> {
    redis::cmd(cmd)
        .arg(key)
        .arg(items)
        .query(c)
        .unwrap_or_else(|e| panic!("{cmd} {key}: {e}"))
}

/// The error message of a command expected to fail.
pub fn error_of(c: &mut redis::Connection, args: &[&str]) -> String {
    match redis::cmd(args[0]).arg(&args[1..]).query::<redis::Value>(c) {
        Ok(v) => panic!("{args:?} succeeded with {v:?}"),
        Err(e) => e.to_string(),
    }
}
