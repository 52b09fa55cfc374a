//! The Python package (`crates/ddf-py`): its tests (`test`, called by
//! `cargo xtask test`) and the interpreter `cargo xtask bench-python` runs.
//!
//! Both work in one virtual environment, `target/py-venv`, made with the
//! machine's `python3 -m venv` (or `$PYTHON`): nothing is installed into
//! the system Python. The wheel is built by maturin in release mode and
//! installed into it.

use ddf_verify::paths::{output_dir, workspace_root};
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `cmd`, failing with its name when it cannot start or exits non-zero.
fn run(cmd: &mut Command, what: &str) -> Result<(), String> {
    let status = cmd
        .status()
        .map_err(|e| format!("{what}: cannot start: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

/// `target/`, where the virtual environment and the wheels live.
fn target_dir() -> Result<PathBuf, String> {
    output_dir()
        .map_err(|e| e.to_string())?
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| "no target directory".into())
}

/// The interpreter of `target/NAME`, a virtual environment made with
/// `python3 -m venv` (or `$PYTHON`) when it is not there yet.
pub(crate) fn venv(name: &str) -> Result<PathBuf, String> {
    let venv = target_dir()?.join(name);
    let python = venv.join("bin").join("python");
    if !python.exists() {
        let base = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
        run(
            Command::new(&base).args(["-m", "venv"]).arg(&venv),
            &format!("{base} -m venv {}", venv.display()),
        )?;
    }
    Ok(python)
}

/// `pip install --quiet ARGS…` into the environment of `python`.
pub(crate) fn pip_install(python: &Path, args: &[&OsStr], what: &str) -> Result<(), String> {
    run(
        Command::new(python)
            .args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(args),
        what,
    )
}

/// The virtual environment's interpreter, after installing `requirements`
/// (files under `crates/ddf-py`) and the freshly built wheel.
pub(crate) fn prepare(requirements: &[&str]) -> Result<PathBuf, String> {
    let root = workspace_root();
    let target = target_dir()?;
    let python = venv("py-venv")?;
    let crate_dir = root.join("crates/ddf-py");
    for req in requirements {
        let file = crate_dir.join(req);
        pip_install(
            &python,
            &["-r".as_ref(), file.as_os_str()],
            &format!("pip install -r {req}"),
        )?;
    }
    let wheels = target.join("py-wheels");
    let _ = fs::remove_dir_all(&wheels);
    run(
        Command::new(python.with_file_name("maturin"))
            .args(["build", "--release", "--quiet", "-m"])
            .arg(crate_dir.join("Cargo.toml"))
            .arg("--out")
            .arg(&wheels)
            .arg("-i")
            .arg(&python),
        "maturin build",
    )?;
    let wheel = fs::read_dir(&wheels)
        .map_err(|e| format!("{}: {e}", wheels.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or("maturin built no wheel")?;
    pip_install(
        &python,
        &[
            "--force-reinstall".as_ref(),
            "--no-deps".as_ref(),
            wheel.as_os_str(),
        ],
        "pip install the wheel",
    )?;
    Ok(python)
}

/// Builds the package, installs it in `target/py-venv` and runs pytest on
/// `crates/ddf-py/tests` (with the `ddf` binary and the Redis module built
/// from this workspace for the cross-front-end tests). `Ok(false)` when a test fails or none ran.
pub(crate) fn test() -> Result<bool, String> {
    let root = workspace_root();
    let python = prepare(&["requirements-dev.txt"])?;
    run(
        Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
            .args(["build", "--quiet", "-p", "ddf-cli", "-p", "ddf-redis"])
            .current_dir(&root),
        "cargo build -p ddf-cli -p ddf-redis",
    )?;
    let target = target_dir()?;
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-p", "no:cacheprovider"])
        .arg(root.join("crates/ddf-py/tests"))
        .env("DDF_BIN", target.join("debug").join("ddf"))
        .env(
            "DDF_REDIS_MODULE",
            target.join("debug").join("libddf_redis.so"),
        )
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .current_dir(&root)
        .status()
        .map_err(|e| format!("pytest: cannot start: {e}"))?;
    match status.code() {
        Some(0) => Ok(true),
        Some(5) => {
            eprintln!("python: pytest collected no tests");
            Ok(false)
        }
        _ => Ok(false),
    }
}
