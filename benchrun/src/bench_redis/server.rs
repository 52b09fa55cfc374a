//! One `redis-server` with the module on a free loopback port, stopped when dropped.

use super::*;

/// One `redis-server` with the module, stopped when dropped.
pub(super) struct Server {
    port: u16,
    dir: PathBuf,
    child: Child,
}

impl Server {
    /// Starts a server on a free loopback port, without persistence.
    pub(super) fn start(module: &Path, dir: &Path) -> Result<Server, String> {
        let version = Command::new("redis-server")
            .arg("--version")
            .output()
            .map_err(|e| {
                format!(
                    "cannot run redis-server ({e}): install Debian's `redis-server` \
                     package (apt-get install -y redis-server)"
                )
            })?;
        eprintln!(
            "bench-redis: {}",
            String::from_utf8_lossy(&version.stdout).trim()
        );
        fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free loopback port: {e}"))?
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--protected-mode", "no", "--save", "", "--appendonly", "no"])
            .args(["--logfile", "redis.log", "--dir"])
            .arg(dir)
            .arg("--loadmodule")
            .arg(module)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawn redis-server: {e}"))?;
        let mut server = Server {
            port,
            dir: dir.to_path_buf(),
            child,
        };
        let deadline = Instant::now() + START_TIMEOUT;
        loop {
            if let Ok(mut c) = server.connect()
                && redis::cmd("PING").query::<String>(&mut c).is_ok()
            {
                return Ok(server);
            }
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!(
                    "redis-server exited ({status}) at start; see {}",
                    server.dir.join("redis.log").display()
                ));
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "redis-server on port {port} did not answer PING in {START_TIMEOUT:?}"
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub(super) fn connect(&self) -> Result<redis::Connection, String> {
        let client = redis::Client::open(format!("redis://127.0.0.1:{}/", self.port))
            .map_err(|e| e.to_string())?;
        client
            .get_connection_with_timeout(Duration::from_secs(5))
            .map_err(|e| format!("connect to redis-server: {e}"))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // Nothing to save (no persistence): stop it at once.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
