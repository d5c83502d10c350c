// SPDX-License-Identifier: LGPL-2.1-or-later
//! Raw declarations of `<hanzo-rocm.h>`, written by hand in the spelling
//! `bindgen` uses, so that `tests/header.rs` can regenerate them from the
//! installed header with Debian's `/usr/bin/bindgen` and fail on any drift
//! (a function, argument type, struct field or constant that differs or is
//! missing on either side).  The safe API is the `hanzo-rocm` crate.
//!
//! Every `int` function returns 0 (or a count) on success and a negative
//! errno on failure; `hanzo_rocm_strerror` turns it into text.
#![allow(non_camel_case_types, non_upper_case_globals)]

use std::os::raw::{c_char, c_int, c_uint, c_void};

pub const HANZO_ROCM_MAX_DIMS: u32 = 8;
pub const HANZO_ROCM_MAX_OPERANDS: u32 = 3;
pub const HANZO_ROCM_STAT_NAME_MAX: u32 = 64;
pub const HANZO_ROCM_KERNEL_ABI: u32 = 2;

#[repr(C)]
pub struct hanzo_rocm {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct hanzo_rocm_kernel {
    _unused: [u8; 0],
}
#[repr(C)]
pub struct hanzo_rocm_catalogue {
    _unused: [u8; 0],
}

/// `va_list` as the C ABI passes it on x86-64 and aarch64 Linux: a pointer.
#[repr(C)]
pub struct __va_list_tag {
    _unused: [u8; 0],
}

pub type hanzo_rocm_log_fn = Option<
    unsafe extern "C" fn(
        data: *mut c_void,
        priority: c_int,
        file: *const c_char,
        line: c_int,
        fn_: *const c_char,
        format: *const c_char,
        args: *mut __va_list_tag,
    ),
>;

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_options {
    pub size: usize,
    pub root: *const c_char,
    pub config: *const c_char,
    pub log_fn: hanzo_rocm_log_fn,
    pub log_data: *mut c_void,
    pub log_priority: c_int,
    pub host: *const c_char,
    pub plugin_path: *const c_char,
}

pub type hanzo_rocm_platform = c_uint;
pub const HANZO_ROCM_PLATFORM_AMD: hanzo_rocm_platform = 1;
pub const HANZO_ROCM_PLATFORM_NVIDIA: hanzo_rocm_platform = 2;
pub const HANZO_ROCM_PLATFORM_HOST: hanzo_rocm_platform = 3;

#[repr(C)]
#[derive(Debug, Copy, Clone, Default, PartialEq, Eq)]
pub struct hanzo_rocm_geometry {
    pub grid: [c_uint; 3],
    pub block: [c_uint; 3],
    pub shared: c_uint,
    pub splits: c_uint,
}

#[repr(C)]
#[derive(Debug, Copy, Clone, PartialEq, Eq)]
pub struct hanzo_rocm_layout {
    pub v: [u64; 32],
}

pub type hanzo_rocm_f16 = u16;
pub type hanzo_rocm_bf16 = u16;

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_kernel_desc {
    pub size: usize,
    pub family: *const c_char,
    pub name: *const c_char,
    pub signature: *const c_char,
    pub n_args: usize,
    pub launch: *const c_char,
    pub rows: *const c_char,
    pub cols: *const c_char,
    pub form: *const c_char,
    pub op: *const c_char,
    pub split: *const c_char,
    pub second: *const c_char,
    pub ws_per_partial: usize,
    pub notes: *const c_char,
    pub wide: *const c_char,
    pub ws_per_col: usize,
    pub abi: c_uint,
}

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_arg_desc {
    pub size: usize,
    pub type_: *const c_char,
    pub name: *const c_char,
    pub bytes: usize,
    pub doc: *const c_char,
    pub may_be_null: c_int,
    pub bind: *const c_char,
}

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_op_args {
    pub size: usize,
    pub src: *const c_void,
    pub dst: *mut c_void,
    pub alpha: *const c_void,
    pub beta: *const c_void,
    pub residual: *const c_void,
    pub residual_out: *mut c_void,
    pub eps: f32,
    pub workspace: *mut c_void,
    pub workspace_size: usize,
    pub stream: *mut c_void,
    pub named: *const hanzo_rocm_op_arg,
    pub n_named: usize,
    pub batch: usize,
}

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_op_arg {
    pub name: *const c_char,
    pub value: *const c_void,
    pub bytes: usize,
}

#[repr(C)]
#[derive(Debug, Copy, Clone)]
pub struct hanzo_rocm_geometry_ex {
    pub size: usize,
    pub geometry: hanzo_rocm_geometry,
    pub workspace: usize,
    pub op_workspace: usize,
    pub op_form: *const c_char,
    pub op_passes: c_uint,
}

extern "C" {
    pub fn hanzo_rocm_new(ret: *mut *mut hanzo_rocm) -> c_int;
    pub fn hanzo_rocm_new_with_options(opts: *const hanzo_rocm_options, ret: *mut *mut hanzo_rocm) -> c_int;
    pub fn hanzo_rocm_ref(ctx: *mut hanzo_rocm) -> *mut hanzo_rocm;
    pub fn hanzo_rocm_unref(ctx: *mut hanzo_rocm) -> *mut hanzo_rocm;
    pub fn hanzo_rocm_set_log_fn(ctx: *mut hanzo_rocm, fn_: hanzo_rocm_log_fn, data: *mut c_void);
    pub fn hanzo_rocm_get_log_priority(ctx: *const hanzo_rocm) -> c_int;
    pub fn hanzo_rocm_set_log_priority(ctx: *mut hanzo_rocm, priority: c_int);
    pub fn hanzo_rocm_strerror(err: c_int) -> *const c_char;
    pub fn hanzo_rocm_cache_stat(
        ctx: *mut hanzo_rocm,
        index: c_uint,
        name: *mut c_char,
        name_size: usize,
        value: *mut u64,
    ) -> c_int;

    pub fn hanzo_rocm_device_count(ctx: *mut hanzo_rocm) -> c_int;
    pub fn hanzo_rocm_device_target(ctx: *mut hanzo_rocm, device: c_uint, target: *mut *const c_char) -> c_int;
    pub fn hanzo_rocm_device_platform(ctx: *mut hanzo_rocm, device: c_uint) -> c_int;

    pub fn hanzo_rocm_code_object(
        ctx: *mut hanzo_rocm,
        family: *const c_char,
        target: *const c_char,
        data: *mut *const c_void,
        size: *mut usize,
    ) -> c_int;
    pub fn hanzo_rocm_kernel_get(
        ctx: *mut hanzo_rocm,
        device: c_uint,
        family: *const c_char,
        kernel: *const c_char,
        ret: *mut *mut hanzo_rocm_kernel,
    ) -> c_int;
    pub fn hanzo_rocm_kernel_launch(
        kernel: *mut hanzo_rocm_kernel,
        grid: *const c_uint,
        block: *const c_uint,
        shared_mem_bytes: c_uint,
        stream: *mut c_void,
        args: *mut *mut c_void,
    ) -> c_int;
    pub fn hanzo_rocm_kernel_launch_work(
        kernel: *mut hanzo_rocm_kernel,
        rows: u64,
        cols: u64,
        stream: *mut c_void,
        args: *mut *mut c_void,
    ) -> c_int;
    pub fn hanzo_rocm_kernel_geometry(
        kernel: *mut hanzo_rocm_kernel,
        rows: u64,
        cols: u64,
        geometry: *mut hanzo_rocm_geometry,
    ) -> c_int;

    pub fn hanzo_rocm_kernel_geometry_ex(
        kernel: *mut hanzo_rocm_kernel,
        rows: u64,
        cols: u64,
        geometry: *mut hanzo_rocm_geometry_ex,
    ) -> c_int;
    pub fn hanzo_rocm_layout_packed(
        layout: *mut hanzo_rocm_layout,
        num_dims: usize,
        n_tensors: usize,
        dims: *const *const usize,
        strides: *const *const usize,
    ) -> c_int;

    pub fn hanzo_rocm_layout_init(
        layout: *mut hanzo_rocm_layout,
        num_dims: usize,
        dims: *const usize,
        n_operands: usize,
        strides: *const *const usize,
    ) -> c_int;
    pub fn hanzo_rocm_layout_from_candle(
        layout: *mut hanzo_rocm_layout,
        num_dims: usize,
        n_operands: usize,
        dims_and_strides: *const usize,
    ) -> c_int;
    pub fn hanzo_rocm_layout_to_candle(
        layout: *const hanzo_rocm_layout,
        num_dims: usize,
        n_operands: usize,
        dims_and_strides: *mut usize,
    ) -> c_int;

    pub fn hanzo_rocm_catalogue_new(
        ctx: *mut hanzo_rocm,
        family: *const c_char,
        ret: *mut *mut hanzo_rocm_catalogue,
    ) -> c_int;
    pub fn hanzo_rocm_catalogue_ref(cat: *mut hanzo_rocm_catalogue) -> *mut hanzo_rocm_catalogue;
    pub fn hanzo_rocm_catalogue_unref(cat: *mut hanzo_rocm_catalogue) -> *mut hanzo_rocm_catalogue;
    pub fn hanzo_rocm_catalogue_count(cat: *const hanzo_rocm_catalogue) -> usize;
    pub fn hanzo_rocm_catalogue_kernel(
        cat: *const hanzo_rocm_catalogue,
        index: usize,
        desc: *mut hanzo_rocm_kernel_desc,
    ) -> c_int;
    pub fn hanzo_rocm_catalogue_arg(
        cat: *const hanzo_rocm_catalogue,
        index: usize,
        arg: usize,
        desc: *mut hanzo_rocm_arg_desc,
    ) -> c_int;

    pub fn hanzo_rocm_op_workspace(kernel: *mut hanzo_rocm_kernel, rows: u64, cols: u64, bytes: *mut usize) -> c_int;
    pub fn hanzo_rocm_op_run(kernel: *mut hanzo_rocm_kernel, rows: u64, cols: u64, args: *const hanzo_rocm_op_args)
        -> c_int;
}

// The source-text API (hanzo_rocm_module_get, release 4 of the ABI): the
// `hanzo-rocm` crate turns it on by default; off for an older library.
#[cfg(feature = "srcapi")]
mod srcapi;
#[cfg(feature = "srcapi")]
pub use srcapi::*;
