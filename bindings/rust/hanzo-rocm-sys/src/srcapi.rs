// SPDX-License-Identifier: LGPL-2.1-or-later
//! The source-text API of <hanzo-rocm.h> (feature `srcapi`: a library with
//! `hanzo_rocm_module_get`).  Checked against the header like lib.rs when
//! the feature is on.
use super::{hanzo_rocm, hanzo_rocm_kernel};
use std::os::raw::{c_char, c_int, c_uint, c_void};

/// The errno of a source the compiler rejected (EILSEQ on Linux).
pub const HANZO_ROCM_ECOMPILE: u32 = 84;

#[repr(C)]
pub struct hanzo_rocm_module {
    _unused: [u8; 0],
}

extern "C" {
    pub fn hanzo_rocm_module_get(
        ctx: *mut hanzo_rocm,
        device: c_uint,
        name: *const c_char,
        source: *const c_char,
        source_len: usize,
        flags: *const *const c_char,
        ret: *mut *mut hanzo_rocm_module,
        diagnostics: *mut *mut c_char,
    ) -> c_int;
    pub fn hanzo_rocm_module_kernel(
        module: *mut hanzo_rocm_module,
        kernel: *const c_char,
        ret: *mut *mut hanzo_rocm_kernel,
    ) -> c_int;
    pub fn hanzo_rocm_source_code_object(
        ctx: *mut hanzo_rocm,
        target: *const c_char,
        name: *const c_char,
        source: *const c_char,
        source_len: usize,
        flags: *const *const c_char,
        data: *mut *mut c_void,
        size: *mut usize,
        diagnostics: *mut *mut c_char,
    ) -> c_int;
}
