// SPDX-License-Identifier: LGPL-2.1-or-later
//! HIP source text through the library's source-text API: the same cache
//! tiers, keys, validation and cross-process dedupe as the families.
//! Without the `srcapi` feature (a library older than that API) every call
//! here is `ENOSYS`, saying so.
#[cfg(not(feature = "srcapi"))]
use crate::Error;
use crate::{Device, Kernel, Result};

#[cfg(feature = "srcapi")]
mod imp {
    use crate::{check, cstring, sys, Device, Error, Kernel, Result};
    use std::ffi::CStr;
    use std::os::raw::{c_char, c_void};
    use std::ptr;

    extern "C" {
        fn free(p: *mut c_void);
    }

    /// Takes a malloc'd diagnostics string.
    unsafe fn take(d: *mut c_char) -> Option<String> {
        if d.is_null() {
            return None;
        }
        let s = CStr::from_ptr(d).to_string_lossy().into_owned();
        free(d as *mut c_void);
        Some(s)
    }

    pub struct Handle(pub *mut sys::hanzo_rocm_module);
    // SAFETY: modules are owned and cached by the thread-safe context.
    unsafe impl Send for Handle {}
    unsafe impl Sync for Handle {}

    pub fn module(dev: &Device, name: &str, code: &str) -> Result<Handle> {
        let n = cstring(name, "name")?;
        let (mut m, mut diag) = (ptr::null_mut(), ptr::null_mut());
        // SAFETY: the source is passed with its length; out-parameters.
        let rc = unsafe {
            sys::hanzo_rocm_module_get(
                dev.context().as_ptr(),
                dev.index() as u32,
                n.as_ptr(),
                code.as_ptr() as *const c_char,
                code.len(),
                ptr::null(),
                &mut m,
                &mut diag,
            )
        };
        let d = unsafe { take(diag) };
        check(rc, || format!("module_get({})", name)).map_err(|e| e.with_diagnostics(d))?;
        Ok(Handle(m))
    }

    pub fn kernel(dev: &Device, h: &Handle, kernel: &str) -> Result<Kernel> {
        let k = cstring(kernel, "kernel")?;
        let mut p = ptr::null_mut();
        // SAFETY: valid module, out-parameter.
        check(unsafe { sys::hanzo_rocm_module_kernel(h.0, k.as_ptr(), &mut p) }, || format!("module_kernel({})", kernel))?;
        Ok(Kernel { ptr: p, _ctx: dev.context().clone(), name: kernel.to_string() })
    }

    pub fn code_object(dev: &Device, target: &str, name: &str, code: &str) -> Result<Vec<u8>> {
        let (t, n) = (cstring(target, "target")?, cstring(name, "name")?);
        let (mut data, mut size, mut diag) = (ptr::null_mut(), 0usize, ptr::null_mut());
        // SAFETY: as above; data is malloc'd, copied then freed.
        let rc = unsafe {
            sys::hanzo_rocm_source_code_object(
                dev.context().as_ptr(),
                t.as_ptr(),
                n.as_ptr(),
                code.as_ptr() as *const c_char,
                code.len(),
                ptr::null(),
                &mut data,
                &mut size,
                &mut diag,
            )
        };
        let d = unsafe { take(diag) };
        if let Err(e) = check(rc, || format!("source_code_object({}, {})", name, target)) {
            return Err(e.with_diagnostics(d));
        }
        if data.is_null() {
            return Err(Error::from_code(-71, format!("source_code_object({}, {}): no bytes", name, target)));
        }
        let v = unsafe { std::slice::from_raw_parts(data as *const u8, size) }.to_vec();
        unsafe { free(data) };
        Ok(v)
    }
}

/// HIP source text compiled (or found in a cache tier) for one device.
pub struct SourceModule {
    device: Device,
    name: String,
    #[cfg(feature = "srcapi")]
    handle: imp::Handle,
}

#[cfg(not(feature = "srcapi"))]
fn enosys(what: &str) -> Error {
    Error::from_code(
        -38,
        format!("{}: this hanzo-rocm crate was built without the source-text API (cargo feature `srcapi`, a libhanzo-rocm with hanzo_rocm_module_get)", what),
    )
}

impl Device {
    /// Compiles HIP `code` for this device, or finds it in a cache tier (key:
    /// source, flags, target, compiler).  A rejected source is an error whose
    /// [`Error::diagnostics`] hold the compiler's output.
    pub fn compile(&self, name: &str, code: &str) -> Result<SourceModule> {
        #[cfg(feature = "srcapi")]
        {
            let handle = imp::module(self, name, code)?;
            Ok(SourceModule { device: self.clone(), name: name.to_string(), handle })
        }
        #[cfg(not(feature = "srcapi"))]
        {
            let _ = code;
            Err(enosys(&format!("compile({})", name)))
        }
    }

    /// The code object of HIP `code` for `target` (this device's context's
    /// cache rules), as bytes.
    pub fn source_code_object(&self, target: &str, name: &str, code: &str) -> Result<Vec<u8>> {
        #[cfg(feature = "srcapi")]
        {
            imp::code_object(self, target, name, code)
        }
        #[cfg(not(feature = "srcapi"))]
        {
            let _ = (target, code);
            Err(enosys(&format!("source_code_object({})", name)))
        }
    }
}

impl SourceModule {
    /// The name it was compiled under.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// Its device.
    pub fn device(&self) -> &Device {
        &self.device
    }
    /// A `__global__` function of the source (`extern "C"` names).
    pub fn kernel(&self, kernel: &str) -> Result<Kernel> {
        #[cfg(feature = "srcapi")]
        {
            imp::kernel(&self.device, &self.handle, kernel)
        }
        #[cfg(not(feature = "srcapi"))]
        {
            Err(enosys(&format!("module_kernel({})", kernel)))
        }
    }
}
