//! Link settings of the `git-identedit` binary on Linux, both for start-up cost.
//!
//! **A fixed address.** The binary is large (grammars, gix) and a position-independent one
//! starts with about 23,000 relative relocations: the loader reads 540 KiB of them and writes
//! 380 KiB of pages that every command then owns (about 95 page faults). A command is
//! short-lived and runs hundreds of times an agent session, so that start-up is paid every
//! time: linked at a fixed address, `--version` takes 0.4–0.6 ms less and 0.7 MiB less
//! resident memory. What is given up is the address randomisation of the program's own code
//! (shared libraries keep theirs); the binary only reads local files and git objects the user
//! already has.
//!
//! **The code commands run, together.** The kernel maps 64 KiB of the binary around every
//! page a command touches, and the functions an edit runs were spread over 10 MB of code:
//! 7.5 MB of it became resident. A release build asks the linker to place the functions
//! `link/order.sh` saw run first, side by side (`link/order.txt`, lld's
//! `--symbol-ordering-file`; a name the build no longer has is skipped). Only where rustc
//! links with its own lld (the default on x86-64 Linux) and no other linker is configured.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=link/order.txt");
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") != "linux" || var("CARGO_CFG_TARGET_ENV") != "gnu" {
        return;
    }
    println!("cargo::rustc-link-arg-bin=git-identedit=-no-pie");
    let own_lld = var("TARGET") == "x86_64-unknown-linux-gnu"
        && std::env::var_os("RUSTC_LINKER").is_none()
        && !var("CARGO_ENCODED_RUSTFLAGS").contains("link");
    if own_lld && var("PROFILE") == "release" {
        let order = std::path::Path::new(&var("CARGO_MANIFEST_DIR")).join("link/order.txt");
        if order.is_file() {
            let order = order.display();
            println!("cargo::rustc-link-arg-bin=git-identedit=-Wl,--symbol-ordering-file={order}");
            println!("cargo::rustc-link-arg-bin=git-identedit=-Wl,--no-warn-symbol-ordering");
        }
    }
}
