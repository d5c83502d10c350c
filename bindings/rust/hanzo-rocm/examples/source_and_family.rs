// SPDX-License-Identifier: LGPL-2.1-or-later
//! The crate end to end, written against its documentation (README.md,
//! `cargo doc`): HIP source text compiled and cached through the replaced
//! crate's `CacheManager::get_or_compile`, the same text as a module of
//! `KernelManager::get_or_compile_module(Source::Text ..)` launched by
//! amount of work, and a family kernel (`Source::Binary`, badd_f32).
//!
//!   cargo run --example source_and_family [DEVICE] [N]
//!
//! Without a GPU, HANZO_ROCM_HOST=host-w64 adds the CPU as a device.  The
//! application owns its memory: host memory on the host backend, else the
//! HIP runtime or the CUDA driver, opened with dlopen (no SDK needed to
//! build this).  Exit 0: every result right; 1: a wrong result or an error;
//! 2: no device; 3: this crate was built without the source-text API.
use hanzo_rocm::{Args, Context, Device, KernelManager, Layout, Platform, Source};
use hanzo_rocm::{CacheManager, Error};
use std::ffi::CString;
use std::os::raw::{c_char, c_int, c_void};
use std::process::exit;

const SAXPY: &str = r#"
#include <hip/hip_runtime.h>
// #@launch saxpy_f32 elementwise vec=1
extern "C" __global__ void saxpy_f32(size_t n, float a, const float *x, const float *y, float *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)blockDim.x * gridDim.x)
        out[i] = a * x[i] + y[i];
}
"#;

extern "C" {
    fn dlopen(file: *const c_char, mode: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
}

/// Device memory: the few calls the application makes itself.
enum Mem {
    Host,
    Hip { malloc: extern "C" fn(*mut *mut c_void, usize) -> c_int, memcpy: extern "C" fn(*mut c_void, *const c_void, usize, c_int) -> c_int },
    Cuda {
        malloc: extern "C" fn(*mut u64, usize) -> c_int,
        htod: extern "C" fn(u64, *const c_void, usize) -> c_int,
        dtoh: extern "C" fn(*mut c_void, u64, usize) -> c_int,
    },
}

unsafe fn sym(lib: *mut c_void, name: &str) -> *mut c_void {
    let n = CString::new(name).unwrap();
    let p = dlsym(lib, n.as_ptr());
    assert!(!p.is_null(), "{} not found", name);
    p
}

unsafe fn open(names: &[&str]) -> *mut c_void {
    for n in names {
        let c = CString::new(*n).unwrap();
        let h = dlopen(c.as_ptr(), 2 /* RTLD_NOW */);
        if !h.is_null() {
            return h;
        }
    }
    panic!("cannot dlopen {:?}", names)
}

impl Mem {
    /// Memory of `dev`: devices are AMD first (HIP ordinals), then NVIDIA
    /// (CUDA ordinals), then the host.
    fn new(ctx: &Context, dev: &Device) -> Mem {
        let before = |p: Platform| ctx.devices().unwrap()[..dev.index()].iter().filter(|d| d.platform().unwrap() == p).count();
        unsafe {
            match dev.platform().unwrap() {
                Platform::Host => Mem::Host,
                Platform::Amd => {
                    let l = open(&["libamdhip64.so.6", "libamdhip64.so.5"]);
                    let set: extern "C" fn(c_int) -> c_int = std::mem::transmute(sym(l, "hipSetDevice"));
                    assert_eq!(set(before(Platform::Amd) as c_int), 0, "hipSetDevice");
                    Mem::Hip { malloc: std::mem::transmute(sym(l, "hipMalloc")), memcpy: std::mem::transmute(sym(l, "hipMemcpy")) }
                }
                Platform::Nvidia => {
                    let l = open(&["libcuda.so.1"]);
                    let retain: extern "C" fn(*mut *mut c_void, c_int) -> c_int = std::mem::transmute(sym(l, "cuDevicePrimaryCtxRetain"));
                    let set: extern "C" fn(*mut c_void) -> c_int = std::mem::transmute(sym(l, "cuCtxSetCurrent"));
                    let mut pctx = std::ptr::null_mut();
                    // cuInit was called by the library when it found the device.
                    assert_eq!(retain(&mut pctx, before(Platform::Nvidia) as c_int), 0, "cuDevicePrimaryCtxRetain");
                    assert_eq!(set(pctx), 0, "cuCtxSetCurrent");
                    Mem::Cuda {
                        malloc: std::mem::transmute(sym(l, "cuMemAlloc_v2")),
                        htod: std::mem::transmute(sym(l, "cuMemcpyHtoD_v2")),
                        dtoh: std::mem::transmute(sym(l, "cuMemcpyDtoH_v2")),
                    }
                }
            }
        }
    }
    /// A device copy of `v` (leaked: the example exits).
    fn upload(&self, v: &[f32]) -> *mut f32 {
        let bytes = v.len() * 4;
        match self {
            Mem::Host => Box::leak(v.to_vec().into_boxed_slice()).as_mut_ptr(),
            Mem::Hip { malloc, memcpy } => {
                let mut p = std::ptr::null_mut();
                assert_eq!(malloc(&mut p, bytes), 0, "hipMalloc");
                assert_eq!(memcpy(p, v.as_ptr() as *const c_void, bytes, 1), 0, "hipMemcpy");
                p as *mut f32
            }
            Mem::Cuda { malloc, htod, .. } => {
                let mut p = 0u64;
                assert_eq!(malloc(&mut p, bytes), 0, "cuMemAlloc");
                assert_eq!(htod(p, v.as_ptr() as *const c_void, bytes), 0, "cuMemcpyHtoD");
                p as usize as *mut f32
            }
        }
    }
    fn download(&self, p: *const f32, n: usize) -> Vec<f32> {
        let mut v = vec![0f32; n];
        match self {
            Mem::Host => v.copy_from_slice(unsafe { std::slice::from_raw_parts(p, n) }),
            Mem::Hip { memcpy, .. } => assert_eq!(memcpy(v.as_mut_ptr() as *mut c_void, p as *const c_void, n * 4, 2), 0),
            Mem::Cuda { dtoh, .. } => assert_eq!(dtoh(v.as_mut_ptr() as *mut c_void, p as usize as u64, n * 4), 0),
        }
        v
    }
}

fn fail(e: Error) -> ! {
    eprintln!("source_and_family: {}", e);
    exit(if e.errno() == 38 { 3 } else { 1 })
}

fn verify(what: &str, got: &[f32], want: impl Fn(usize) -> f32) -> bool {
    let bad = (0..got.len()).find(|&i| (got[i] - want(i)).abs() > 1e-5 * want(i).abs().max(1.0));
    match bad {
        None => println!("{}: {} floats right", what, got.len()),
        Some(i) => println!("{}: WRONG at {}: {} != {}", what, i, got[i], want(i)),
    }
    bad.is_none()
}

fn main() {
    let mut argv = std::env::args().skip(1);
    let index: usize = argv.next().map_or(0, |s| s.parse().expect("DEVICE"));
    let n: usize = argv.next().map_or(100_003, |s| s.parse().expect("N"));
    let ctx = Context::new().unwrap_or_else(|e| fail(e));
    if ctx.device_count().unwrap_or(0) <= index {
        eprintln!("source_and_family: no device {} (HANZO_ROCM_HOST=host-w64 adds the CPU)", index);
        exit(2);
    }
    let dev = ctx.device(index).unwrap_or_else(|e| fail(e));
    println!("device {}: {:?} {}", index, dev.platform().unwrap(), dev.target().unwrap());

    // 1. The replaced crate's call: the code object of the source, cached.
    let cache = CacheManager::new(&dev).unwrap_or_else(|e| fail(e));
    let co = cache.get_or_compile("example.saxpy", SAXPY).unwrap_or_else(|e| fail(e));
    let again = cache.get_or_compile("example.saxpy", SAXPY).unwrap_or_else(|e| fail(e));
    println!("code object for {}: {} bytes, ELF {}, same bytes the second time: {}", cache.arch(), co.len(), co.starts_with(b"\x7fELF"), co == again);

    // 2. The same text as a module, its kernel launched by amount of work.
    let mem = Mem::new(&ctx, &dev);
    let x: Vec<f32> = (0..n).map(|i| (i % 100) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - (i % 7) as f32).collect();
    let (dx, dy, dout) = (mem.upload(&x), mem.upload(&y), mem.upload(&vec![0f32; n]));
    let km = KernelManager::new(&dev).unwrap_or_else(|e| fail(e));
    let text = km
        .get_or_compile_module(Source::Text { name: "example.saxpy".into(), code: SAXPY.into() })
        .unwrap_or_else(|e| fail(e));
    let saxpy = text.get_function("saxpy_f32").unwrap_or_else(|e| fail(e));
    let mut args = Args::new();
    args.push(n).push(2.5f32).push(dx as *const f32).push(dy as *const f32).push(dout);
    unsafe { saxpy.launch_work(n as u64, 1, std::ptr::null_mut(), &mut args) }.unwrap_or_else(|e| fail(e));
    let ok1 = verify("saxpy_f32 (source text)", &mem.download(dout, n), |i| 2.5 * x[i] + y[i]);

    // 3. A family kernel: the binary family's badd_f32 (candle's name).
    let binary = km.get_or_compile_module(Source::Binary).unwrap_or_else(|e| fail(e));
    let add = binary.get_function("badd_f32").unwrap_or_else(|e| fail(e));
    let mut args = Args::new();
    args.push(n).push(0usize).push(Layout::zeroed()).push(dx as *const f32).push(dy as *const f32).push(dout);
    unsafe { add.launch_work(n as u64, 1, std::ptr::null_mut(), &mut args) }.unwrap_or_else(|e| fail(e));
    let ok2 = verify("badd_f32 (family binary)", &mem.download(dout, n), |i| x[i] + y[i]);
    if ok1 && ok2 {
        println!("OK");
    } else {
        exit(1);
    }
}
