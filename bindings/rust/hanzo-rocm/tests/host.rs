// SPDX-License-Identifier: LGPL-2.1-or-later
//! The crate on the host backend (`host-w64`: the CPU runs the same HIP
//! kernels; its device memory is host memory).  Run by t/rust/rust.sh, which
//! points the library at the build tree's plugins and a scratch cache.
use hanzo_rocm::{Args, Context, Error, KernelManager, Layout, OpArgs, Options, Platform, Source};
use std::ptr;
use std::sync::Arc;

fn ctx() -> Context {
    Context::with_options(&Options { host: Some("host-w64".into()), ..Default::default() }).expect("context")
}

/// The host device (after any GPU).
fn host(ctx: &Context) -> hanzo_rocm::Device {
    ctx.devices()
        .expect("devices")
        .into_iter()
        .find(|d| d.platform().unwrap() == Platform::Host)
        .expect("a host device")
}

const OPS: [(&str, fn(f32, f32) -> f32); 6] = [
    ("add", |a, b| a + b),
    ("sub", |a, b| a - b),
    ("mul", |a, b| a * b),
    ("div", |a, b| a / b),
    ("minimum", |a, b| a.min(b)),
    ("maximum", |a, b| a.max(b)),
];

fn inputs(n: usize) -> (Vec<f32>, Vec<f32>) {
    let a = (0..n).map(|i| (i % 17) as f32 - 8.25).collect();
    let b = (0..n).map(|i| (i % 13) as f32 * 0.5 + 0.5).collect();
    (a, b)
}

fn check(name: &str, out: &[f32], want: impl Fn(usize) -> f32) {
    for (i, &o) in out.iter().enumerate() {
        let w = want(i);
        assert!((o - w).abs() <= 1e-6 * w.abs().max(1.0), "{}[{}] = {}, want {}", name, i, o, w);
    }
}

/// One launch of a binary-family kernel over contiguous f32 by work.
fn run_binary(k: &hanzo_rocm::Kernel, a: &[f32], b: &[f32]) -> Vec<f32> {
    let n = a.len();
    let mut out = vec![f32::NAN; n];
    let mut args = Args::new();
    args.push(n).push(0usize).push(Layout::zeroed()).push(a.as_ptr()).push(b.as_ptr()).push(out.as_mut_ptr());
    unsafe { k.launch_work(n as u64, 1, ptr::null_mut(), &mut args) }.expect("launch_work");
    out
}

#[test]
fn binary_family_through_kernel_manager() {
    let ctx = ctx();
    let dev = host(&ctx);
    let km = KernelManager::new(&dev).unwrap();
    assert_eq!(km.arch(), "host-w64");
    let m = km.get_or_compile_module(Source::Binary).unwrap();
    // The module is made once and shared.
    assert!(Arc::ptr_eq(&m, &km.get_or_compile_module(Source::Binary).unwrap()));
    let n = 1001;
    let (a, b) = inputs(n);
    for (op, f) in OPS {
        let name = format!("b{}_f32", op);
        let out = run_binary(&m.get_function(&name).unwrap(), &a, &b);
        check(&name, &out, |i| f(a[i], b[i]));
    }
}

#[test]
fn broadcast_layout_and_raw_launch() {
    let ctx = ctx();
    let dev = host(&ctx);
    let k = dev.kernel("binary", "bmul_f32").unwrap();
    // [3, 4] * [4] (rhs broadcast over rows, stride 0).
    let (a, b): (Vec<f32>, Vec<f32>) = ((0..12).map(|i| i as f32).collect(), vec![1.0, 10.0, 100.0, 1000.0]);
    let l = Layout::new(&[3, 4], &[None, Some(&[0, 1])]).unwrap();
    assert_eq!(&l.v()[0..2], &[3, 4]);
    assert_eq!(&l.v()[8..10], &[4, 1]);
    assert_eq!(&l.v()[16..18], &[0, 1]);
    let mut out = vec![0f32; 12];
    let mut args = Args::new();
    args.push(12usize).push(2usize).push(l).push(a.as_ptr()).push(b.as_ptr()).push(out.as_mut_ptr());
    let g = k.geometry(12, 1).unwrap();
    assert!(g.grid[0] >= 1 && g.block[0] >= 1, "{:?}", g);
    unsafe { k.launch(g.grid, g.block, g.shared, ptr::null_mut(), &mut args) }.unwrap();
    check("bmul broadcast", &out, |i| a[i] * b[i % 4]);
}

#[test]
fn context_shared_by_threads() {
    let ctx = ctx();
    let dev = host(&ctx);
    let shared = dev.kernel("binary", "badd_f32").unwrap();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (ctx, shared) = (ctx.clone(), shared.clone());
            std::thread::spawn(move || {
                let dev = host(&ctx);
                for round in 0..3 {
                    let n = 257 + 100 * t + round;
                    let (a, b) = inputs(n);
                    let (op, f) = OPS[(t + round) % OPS.len()];
                    let own = dev.kernel("binary", &format!("b{}_f32", op)).unwrap();
                    check(op, &run_binary(&own, &a, &b), |i| f(a[i], b[i]));
                    check("add", &run_binary(&shared, &a, &b), |i| a[i] + b[i]);
                }
            })
        })
        .collect();
    drop(ctx); // the threads' clones keep it alive
    for t in threads {
        t.join().expect("thread");
    }
}

#[test]
fn operation_call() {
    let ctx = ctx();
    let k = host(&ctx).kernel("norm", "softmax_f32").unwrap();
    let (rows, cols) = (3usize, 70usize);
    let src: Vec<f32> = (0..rows * cols).map(|i| ((i * 7) % 11) as f32 * 0.1).collect();
    let mut dst = vec![0f32; rows * cols];
    let ws = k.op_workspace(rows as u64, cols as u64).unwrap();
    let mut w = vec![0u8; ws.max(1)];
    let a = OpArgs {
        src: src.as_ptr() as *const _,
        dst: dst.as_mut_ptr() as *mut _,
        workspace: w.as_mut_ptr() as *mut _,
        workspace_size: ws,
        ..Default::default()
    };
    unsafe { k.op_run(rows as u64, cols as u64, &a) }.unwrap();
    for r in 0..rows {
        let row = &src[r * cols..(r + 1) * cols];
        let m = row.iter().cloned().fold(f32::MIN, f32::max);
        let s: f64 = row.iter().map(|&x| ((x - m) as f64).exp()).sum();
        check("softmax", &dst[r * cols..(r + 1) * cols], |i| (((row[i] - m) as f64).exp() / s) as f32);
    }
    // A missing destination is the library's EINVAL, before any launch.
    let bad = OpArgs { src: src.as_ptr() as *const _, ..Default::default() };
    assert_eq!(unsafe { k.op_run(rows as u64, cols as u64, &bad) }.unwrap_err().errno(), 22);
}

#[test]
fn errors_carry_errno_and_text() {
    let ctx = ctx();
    let dev = host(&ctx);
    let e: Error = dev.kernel("binary", "no_such_kernel").unwrap_err();
    assert!(e.errno() > 0 && e.code() == -e.errno());
    assert!(!e.text().is_empty());
    let s = e.to_string();
    assert!(s.contains("kernel_get(binary, no_such_kernel)") && s.contains(&e.text()), "{}", s);
    let km = KernelManager::new(&dev).unwrap();
    let e = km.get_or_compile_module(Source::Family("no-such-family".into())).err().unwrap();
    assert_eq!(e.errno(), 2, "{}", e); // ENOENT
    assert!(ctx.device(ctx.device_count().unwrap()).is_err());
    let e = dev.kernel("bin\0ary", "x").unwrap_err();
    assert_eq!(e.errno(), 22);
}

#[test]
fn catalogue_and_code_object() {
    let ctx = ctx();
    let cat = ctx.catalogue(Some("binary")).unwrap();
    let k = cat.kernels().unwrap();
    let add = k.iter().find(|d| d.name == "badd_f32").expect("badd_f32 in the catalogue");
    assert_eq!(add.family, "binary");
    assert_eq!(add.launch.as_deref(), Some("elementwise"));
    let names: Vec<&str> = add.args.iter().map(|a| a.1.as_str()).collect();
    assert_eq!(names, ["numel", "num_dims", "info", "lhs", "rhs", "out"]);
    assert_eq!(add.args[2].2, std::mem::size_of::<Layout>());
    let co = ctx.code_object("binary", "host-w64").unwrap();
    assert_eq!(&co[..4], b"\x7fELF");
}

#[test]
fn candle_layout_round_trip() {
    // candle's dims_and_strides for a binary op: dims, lhs strides, rhs strides.
    let ds = [2usize, 3, 3, 1, 0, 1];
    let l = Layout::from_candle(2, 2, &ds).unwrap();
    assert_eq!(&l.v()[0..2], &[2, 3]);
    assert_eq!(&l.v()[16..18], &[0, 1]);
    assert!(Layout::from_candle(2, 2, &ds[..5]).is_err());
}
