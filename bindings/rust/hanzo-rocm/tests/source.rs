// SPDX-License-Identifier: LGPL-2.1-or-later
//! The source-text calls (feature `srcapi`) on the host backend: the
//! replaced crate's binary ops - candle's kernels and signature, the layout
//! as a pointer to dims_and_strides - compiled from source text, cached,
//! launched and checked; compile errors with diagnostics; threads.
#![cfg(feature = "srcapi")]
use hanzo_rocm::{Args, CacheManager, Context, Device, KernelManager, Options, Platform, Source};
use std::ptr;
use std::sync::Arc;

/// candle-kernels' binary.cu in miniature: same names, same arguments.
const BINARY_CU: &str = r#"
#include <hip/hip_runtime.h>
#include <stdint.h>
// #@launch b*_f32 elementwise vec=1

__device__ bool is_contiguous(const size_t num_dims, const size_t *dims, const size_t *strides)
{
    size_t acc = 1;
    for (unsigned int d = 0; d < num_dims; d++) {
        unsigned int dim_idx = num_dims - 1 - d;
        if (dims[dim_idx] > 1 && acc != strides[dim_idx])
            return false;
        acc *= dims[dim_idx];
    }
    return true;
}

__device__ unsigned int get_strided_index(unsigned int idx, const size_t num_dims, const size_t *dims, const size_t *strides)
{
    unsigned int strided_i = 0;
    for (unsigned int d = 0; d < num_dims; d++) {
        unsigned int dim_idx = num_dims - 1 - d;
        strided_i += (idx % dims[dim_idx]) * strides[dim_idx];
        idx /= dims[dim_idx];
    }
    return strided_i;
}

#define BINARY_OP(TYPENAME, FN_NAME, FUNC)                                                   \
extern "C" __global__ void FN_NAME(const size_t numel, const size_t num_dims,               \
    const size_t *dims_and_strides, const TYPENAME *lhs, const TYPENAME *rhs, TYPENAME *out) \
{                                                                                            \
    const size_t *dims = dims_and_strides;                                                   \
    const size_t *lhs_strides = dims_and_strides + 1 * num_dims;                             \
    const size_t *rhs_strides = dims_and_strides + 2 * num_dims;                             \
    bool lhs_cont = dims_and_strides == nullptr || is_contiguous(num_dims, dims, lhs_strides); \
    bool rhs_cont = dims_and_strides == nullptr || is_contiguous(num_dims, dims, rhs_strides); \
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < numel; i += blockDim.x * gridDim.x) { \
        unsigned int li = lhs_cont ? i : get_strided_index(i, num_dims, dims, lhs_strides);  \
        unsigned int ri = rhs_cont ? i : get_strided_index(i, num_dims, dims, rhs_strides);  \
        TYPENAME x = lhs[li];                                                                \
        TYPENAME y = rhs[ri];                                                                \
        out[i] = FUNC;                                                                       \
    }                                                                                        \
}

BINARY_OP(float, badd_f32, x + y)
BINARY_OP(float, bdiv_f32, x / y)
BINARY_OP(float, bmul_f32, x * y)
BINARY_OP(float, bsub_f32, x - y)
BINARY_OP(float, bminimum_f32, fminf(x, y))
BINARY_OP(float, bmaximum_f32, fmaxf(x, y))
"#;

const OPS: [(&str, fn(f32, f32) -> f32); 6] = [
    ("add", |a, b| a + b),
    ("sub", |a, b| a - b),
    ("mul", |a, b| a * b),
    ("div", |a, b| a / b),
    ("minimum", |a, b| a.min(b)),
    ("maximum", |a, b| a.max(b)),
];

fn host() -> Device {
    let ctx = Context::with_options(&Options { host: Some("host-w64".into()), ..Default::default() }).unwrap();
    let d = ctx.devices().unwrap().into_iter().find(|d| d.platform().unwrap() == Platform::Host).unwrap();
    d
}

fn check(name: &str, out: &[f32], want: impl Fn(usize) -> f32) {
    for (i, &o) in out.iter().enumerate() {
        let w = want(i);
        assert!((o - w).abs() <= 1e-6 * w.abs().max(1.0), "{}[{}] = {}, want {}", name, i, o, w);
    }
}

fn launch(k: &hanzo_rocm::Kernel, a: &[f32], b: &[f32], info: Option<&[usize]>, num_dims: usize) -> Vec<f32> {
    let mut out = vec![f32::NAN; a.len().max(b.len())];
    let n = out.len();
    let mut args = Args::new();
    args.push(n).push(num_dims).push(info.map_or(ptr::null(), |i| i.as_ptr()));
    args.push(a.as_ptr()).push(b.as_ptr()).push(out.as_mut_ptr());
    unsafe { k.launch_work(n as u64, 1, ptr::null_mut(), &mut args) }.unwrap();
    out
}

#[test]
fn binary_ops_from_source_text() {
    let dev = host();
    let km = KernelManager::new(&dev).unwrap();
    let src = Source::Text { name: "candle.binary".into(), code: BINARY_CU.into() };
    let m = km.get_or_compile_module(src.clone()).unwrap();
    assert!(Arc::ptr_eq(&m, &km.get_or_compile_module(src).unwrap()));
    let n = 1001;
    let a: Vec<f32> = (0..n).map(|i| (i % 17) as f32 - 8.25).collect();
    let b: Vec<f32> = (0..n).map(|i| (i % 13) as f32 * 0.5 + 0.5).collect();
    for (op, f) in OPS {
        let name = format!("b{}_f32", op);
        let k = m.get_function(&name).unwrap();
        check(&name, &launch(&k, &a, &b, None, 0), |i| f(a[i], b[i]));
        // The same op through the family: same name, same results.
        let fam = km.get_or_compile_module(Source::Binary).unwrap().get_function(&name).unwrap();
        let mut out = vec![f32::NAN; n];
        let mut args = Args::new();
        args.push(n).push(0usize).push(hanzo_rocm::Layout::zeroed()).push(a.as_ptr()).push(b.as_ptr()).push(out.as_mut_ptr());
        unsafe { fam.launch_work(n as u64, 1, ptr::null_mut(), &mut args) }.unwrap();
        check(&format!("family {}", name), &out, |i| f(a[i], b[i]));
    }
    // candle's strided path: [3, 4] - [4] (rhs broadcast, stride 0).
    let k = m.get_function("bsub_f32").unwrap();
    let (a, b): (Vec<f32>, Vec<f32>) = ((0..12).map(|i| i as f32).collect(), vec![1.0, 2.0, 3.0, 4.0]);
    let info = [3usize, 4, 4, 1, 0, 1];
    let mut out = vec![f32::NAN; 12];
    let mut args = Args::new();
    args.push(12usize).push(2usize).push(info.as_ptr()).push(a.as_ptr()).push(b.as_ptr()).push(out.as_mut_ptr());
    unsafe { k.launch_work(12, 1, ptr::null_mut(), &mut args) }.unwrap();
    check("bsub broadcast", &out, |i| a[i] - b[i % 4]);
    assert_eq!(m.get_function("no_such_kernel").unwrap_err().errno(), 2);
}

#[test]
fn cache_manager_get_or_compile() {
    let dev = host();
    let cache = CacheManager::new(&dev).unwrap();
    assert_eq!(cache.arch(), "host-w64");
    let co = cache.get_or_compile("candle.binary", BINARY_CU).unwrap();
    assert_eq!(&co[..4], b"\x7fELF");
    assert_eq!(co, cache.get_or_compile("candle.binary", BINARY_CU).unwrap());
    // Another source under the same name is another entry.
    let other = BINARY_CU.replace("x + y", "x + y + 0.0f");
    assert_ne!(co, cache.get_or_compile("candle.binary", &other).unwrap());
}

#[test]
fn compile_error_has_diagnostics() {
    let dev = host();
    let bad = "extern \"C\" __global__ void k(float *o) { o[0] = undeclared_thing; }\n";
    let e = dev.compile("bad.source", bad).err().expect("a compile error");
    assert!(e.is_compile_error(), "{}", e);
    let d = e.diagnostics().expect("diagnostics");
    assert!(d.contains("undeclared_thing"), "{}", d);
    assert!(e.to_string().contains("undeclared_thing"));
    let e = CacheManager::new(&dev).unwrap().get_or_compile("bad.source", bad).unwrap_err();
    assert!(e.is_compile_error() && e.diagnostics().is_some(), "{}", e);
}

#[test]
fn source_shared_by_threads() {
    let dev = host();
    let km = Arc::new(KernelManager::new(&dev).unwrap());
    let code = BINARY_CU.replace("x * y", "y * x"); // a key no other test compiles
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (km, code) = (km.clone(), code.clone());
            std::thread::spawn(move || {
                let m = km.get_or_compile_module(Source::Text { name: "candle.binary2".into(), code }).unwrap();
                let n = 300 + t;
                let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
                let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
                check("bmul", &launch(&m.get_function("bmul_f32").unwrap(), &a, &b, None, 0), |i| a[i] * b[i]);
                m
            })
        })
        .collect();
    let mods: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    // One shared module, whoever compiled it.
    assert!(mods.iter().all(|m| Arc::ptr_eq(m, &mods[0])));
}
