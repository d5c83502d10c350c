// SPDX-License-Identifier: LGPL-2.1-or-later
//! Links libhanzo-rocm as pkg-config describes it: `pkg-config --libs
//! hanzo-rocm`, honouring PKG_CONFIG_PATH (a build tree's
//! `hanzo-rocm-uninstalled.pc` is preferred by pkg-config itself when its
//! directory is on that path) and $PKG_CONFIG (default "pkg-config").
//! No pkg-config crate: Debian 12 does not package one we want to require.
use std::env;
use std::process::Command;

fn main() {
    for v in ["PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={}", v);
    }
    println!("cargo:rerun-if-changed=build.rs");
    let pc = env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let out = match Command::new(&pc).args(["--libs", "hanzo-rocm"]).output() {
        Ok(o) => o,
        Err(e) => panic!("hanzo-rocm-sys: cannot run {}: {} (install pkg-config, or set PKG_CONFIG)", pc, e),
    };
    if !out.status.success() {
        panic!(
            "hanzo-rocm-sys: `{} --libs hanzo-rocm` failed: {}\n\
             Install libhanzo-rocm-dev, or point PKG_CONFIG_PATH at a build tree \
             (the directory holding hanzo-rocm-uninstalled.pc).",
            pc,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let libs = String::from_utf8(out.stdout).expect("pkg-config output is not UTF-8");
    let mut linked = false;
    for flag in libs.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
            // For dependents' build scripts (DEP_HANZO_ROCM_LIBDIR).
            println!("cargo:libdir={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib=dylib={}", lib);
            linked |= lib == "hanzo-rocm";
        }
        // Other flags (an rpath, the sanitized build's runtimes) are left
        // out: run with LD_LIBRARY_PATH against an uninstalled library.
    }
    if !linked {
        panic!("hanzo-rocm-sys: `{} --libs hanzo-rocm` names no -lhanzo-rocm: {}", pc, libs.trim());
    }
}
