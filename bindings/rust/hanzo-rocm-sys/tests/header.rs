// SPDX-License-Identifier: LGPL-2.1-or-later
//! The hand-written declarations of src/lib.rs against <hanzo-rocm.h>, so
//! that they cannot drift: the header is run through Debian's bindgen
//! ($HANZO_ROCM_BINDGEN, default /usr/bin/bindgen), both texts are reduced to
//! one normal form (tokens; `std::os::raw::` paths, `size_t` -> `usize` and
//! argument names dropped) and every `hanzo_rocm*` / `HANZO_ROCM_*` item -
//! function signature, struct field list, type alias, constant - must be
//! the same on both sides, none missing and none extra.
//! The header is $HANZO_ROCM_HEADER, else `hanzo-rocm.h` in pkg-config's
//! `includedir` of hanzo-rocm.
use std::collections::BTreeMap;
use std::env;
use std::process::Command;

fn tokenize(src: &str) -> Vec<String> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_whitespace() {
            i += 1;
        } else if src[i..].starts_with("//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if src[i..].starts_with("/*") {
            i += 2;
            while i + 1 < b.len() && !src[i..].starts_with("*/") {
                i += 1;
            }
            i += 2;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let s = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(src[s..i].to_string());
        } else if c == '"' {
            let s = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += 1;
            }
            i += 1;
            out.push(src[s..i].to_string());
        } else if src[i..].starts_with("::") || src[i..].starts_with("->") {
            out.push(src[i..i + 2].to_string());
            i += 2;
        } else {
            out.push(c.to_string());
            i += 1;
        }
    }
    // Attributes (#[...], #![...]) go; paths are reduced to their last name.
    let mut t = Vec::new();
    let mut k = 0;
    while k < out.len() {
        if out[k] == "#" {
            k += 1;
            if k < out.len() && out[k] == "!" {
                k += 1;
            }
            let mut depth = 0;
            loop {
                if out[k] == "[" {
                    depth += 1;
                } else if out[k] == "]" {
                    depth -= 1;
                }
                k += 1;
                if depth == 0 {
                    break;
                }
            }
            continue;
        }
        let w = out[k].as_str();
        let path_part = k + 1 < out.len() && out[k + 1] == "::";
        if w == "::" || (path_part && matches!(w, "std" | "core" | "os" | "raw" | "ffi" | "option")) {
            k += 1;
            continue;
        }
        // A trailing comma is layout, not meaning.
        if w == "," && k + 1 < out.len() && matches!(out[k + 1].as_str(), ")" | ">" | "]" | "}") {
            k += 1;
            continue;
        }
        t.push(match w {
            "size_t" => "usize".to_string(),
            _ => w.strip_suffix("usize").filter(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())).unwrap_or(w).to_string(),
        });
        k += 1;
    }
    t
}

/// Splits the tokens between an opening bracket at `open` and its match at
/// top-level commas; returns the parts and the index after the match.
fn split_group(t: &[String], open: usize) -> (Vec<Vec<String>>, usize) {
    let mut parts = vec![Vec::new()];
    let mut depth = 0;
    let mut k = open;
    loop {
        let w = t[k].as_str();
        match w {
            "(" | "[" | "{" | "<" => depth += 1,
            ")" | "]" | "}" | ">" => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            break;
        }
        if k > open {
            if depth == 1 && w == "," {
                parts.push(Vec::new());
            } else {
                parts.last_mut().unwrap().push(t[k].clone());
            }
        }
        k += 1;
    }
    parts.retain(|p| !p.is_empty());
    (parts, k + 1)
}

fn ours(name: &str) -> bool {
    name.starts_with("hanzo_rocm") || name.starts_with("HANZO_ROCM")
}

/// Normal form: item key ("fn NAME", "struct NAME", ...) -> its text.
fn items(src: &str) -> BTreeMap<String, String> {
    let t = tokenize(src);
    let mut m = BTreeMap::new();
    let mut k = 0;
    while k < t.len() {
        if t[k] != "pub" || k + 2 >= t.len() {
            k += 1;
            continue;
        }
        let kind = t[k + 1].as_str();
        let name = t[k + 2].clone();
        match kind {
            "fn" => {
                let (params, mut e) = split_group(&t, k + 3);
                let types: Vec<String> = params.iter().map(|p| p[2..].join(" ")).collect();
                let mut ret = Vec::new();
                while t[e] != ";" {
                    ret.push(t[e].clone());
                    e += 1;
                }
                if ours(&name) {
                    m.insert(format!("fn {}", name), format!("({}) {}", types.join(", "), ret.join(" ")));
                }
                k = e;
            }
            "struct" => {
                let (fields, e) = split_group(&t, k + 3);
                let f: Vec<String> = fields
                    .iter()
                    .map(|p| if p[0] == "_unused" { "opaque".to_string() } else { p.join(" ") })
                    .collect();
                if ours(&name) {
                    m.insert(format!("struct {}", name), f.join(", "));
                }
                k = e;
            }
            "type" | "const" => {
                let mut e = k + 3;
                let mut v = Vec::new();
                while t[e] != ";" {
                    v.push(t[e].clone());
                    e += 1;
                }
                // bindgen names enum constants ENUM_NAME_CONSTANT.
                let name = name.strip_prefix("hanzo_rocm_platform_").map(str::to_string).unwrap_or(name);
                if ours(&name) {
                    m.insert(format!("{} {}", kind, name), v.join(" "));
                }
                k = e;
            }
            _ => k += 1,
        }
    }
    m
}

/// The differences between the header's items and ours, one line each.
fn drift(header: &BTreeMap<String, String>, sys: &BTreeMap<String, String>) -> Vec<String> {
    let mut d = Vec::new();
    for (k, v) in header {
        match sys.get(k) {
            None => d.push(format!("missing in hanzo-rocm-sys: {} = {}", k, v)),
            Some(s) if s != v => d.push(format!("differs: {}\n  header: {}\n  sys:    {}", k, v, s)),
            _ => {}
        }
    }
    for k in sys.keys() {
        if !header.contains_key(k) {
            d.push(format!("not in the header: {}", k));
        }
    }
    d
}

fn header_path() -> String {
    if let Ok(h) = env::var("HANZO_ROCM_HEADER") {
        return h;
    }
    let out = Command::new(env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".into()))
        .args(["--variable=includedir", "hanzo-rocm"])
        .output()
        .expect("run pkg-config");
    assert!(out.status.success(), "pkg-config --variable=includedir hanzo-rocm failed");
    format!("{}/hanzo-rocm.h", String::from_utf8_lossy(&out.stdout).trim())
}

fn bindgen_items() -> BTreeMap<String, String> {
    let bindgen = env::var("HANZO_ROCM_BINDGEN").unwrap_or_else(|_| "/usr/bin/bindgen".into());
    let header = header_path();
    let out = Command::new(&bindgen)
        .args([
            header.as_str(),
            "--no-rustfmt-bindings",
            "--no-layout-tests",
            "--no-doc-comments",
            "--allowlist-function",
            "hanzo_rocm_.*",
            "--allowlist-type",
            "hanzo_rocm.*",
            "--allowlist-var",
            "HANZO_ROCM_.*",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run {} (Debian's package bindgen): {}", bindgen, e));
    assert!(out.status.success(), "{} {} failed:\n{}", bindgen, header, String::from_utf8_lossy(&out.stderr));
    let m = items(&String::from_utf8(out.stdout).unwrap());
    // A parser that finds nothing would make the comparison vacuous.
    assert!(m.contains_key("fn hanzo_rocm_kernel_launch_work"), "bindgen's output not understood: {:?}", m.keys());
    m
}

const LIB: &str = include_str!("../src/lib.rs");
#[cfg(feature = "srcapi")]
const SRCAPI: &str = include_str!("../src/srcapi.rs");
#[cfg(not(feature = "srcapi"))]
const SRCAPI: &str = "";

/// What the crate declares with the features it was built with.
fn sys_text() -> String {
    format!("{}\n{}", LIB, SRCAPI)
}

#[test]
fn sys_matches_header() {
    let header = bindgen_items();
    let sys = items(&sys_text());
    let d = drift(&header, &sys);
    assert!(d.is_empty(), "hanzo-rocm-sys drifted from <hanzo-rocm.h>:\n{}", d.join("\n"));
    eprintln!("hanzo-rocm-sys: {} items match <hanzo-rocm.h>", header.len());
}

/// The check fails on the kinds of drift it exists for.
#[test]
fn drift_is_caught() {
    let header = bindgen_items();
    let cases = [
        ("rows: u64,\n        cols: u64,\n        stream", "rows: u32,\n        cols: u64,\n        stream"),
        ("    pub shared: c_uint,\n", "    pub shared: c_int,\n"),
        ("    pub eps: f32,\n", ""),
        ("pub const HANZO_ROCM_PLATFORM_HOST: hanzo_rocm_platform = 3;", ""),
        ("    pub fn hanzo_rocm_strerror(err: c_int) -> *const c_char;\n", "    pub fn hanzo_rocm_strerror(err: c_int) -> *mut c_char;\n"),
        ("pub const HANZO_ROCM_MAX_DIMS: u32 = 8;", "pub const HANZO_ROCM_MAX_DIMS: u32 = 9;"),
    ];
    for (from, to) in cases {
        let sys = sys_text();
        assert!(sys.contains(from), "the case no longer applies: {:?}", from);
        let bad = sys.replacen(from, to, 1);
        assert!(!drift(&header, &items(&bad)).is_empty(), "drift not caught: {:?} -> {:?}", from, to);
    }
}
