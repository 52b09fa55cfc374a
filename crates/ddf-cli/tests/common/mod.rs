//! What the integration tests share: the real `ddf` binary, run on an input.

// Each test binary compiles this module and uses a part of it.
#![allow(dead_code)]

use assert_cmd::Command;

/// The `ddf` binary cargo built for these tests.
pub(crate) fn ddf() -> Command {
    Command::cargo_bin("ddf").expect("the ddf binary is built")
}

/// Runs `ddf ARGS` on `input`; returns (status, stdout, stderr).
pub(crate) fn run(args: &[&str], input: &[u8]) -> (i32, Vec<u8>, String) {
    let out = ddf()
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
