// SPDX-License-Identifier: LGPL-2.1-or-later
//! Precompiled, cached GPU kernels through libhanzo-rocm.
//!
//! The library owns the kernels: it finds a family's code object in its
//! cache tiers (memory, system, site, user), compiles it on a miss when the
//! configuration allows, validates it before any driver sees it, loads it
//! once per device and hands out kernel handles.  The application owns the
//! memory and the streams (hipMalloc/cuMemAlloc on a GPU; ordinary host
//! memory on the host backend, `HANZO_ROCM_HOST=host-w64`).
//!
//! ```no_run
//! use hanzo_rocm::{Context, Args, Layout};
//! # fn main() -> Result<(), hanzo_rocm::Error> {
//! let ctx = Context::new()?;              // shared by every thread (Send + Sync)
//! let dev = ctx.device(0)?;
//! let add = dev.kernel("binary", "badd_f32")?;
//! let n = 1000usize;
//! let (a, b, mut c) = (vec![1f32; n], vec![2f32; n], vec![0f32; n]);
//! let mut args = Args::new();
//! args.push(n).push(0usize).push(Layout::zeroed())
//!     .push(a.as_ptr()).push(b.as_ptr()).push(c.as_mut_ptr());
//! // Device pointers: on the host backend host memory is device memory.
//! unsafe { add.launch_work(n as u64, 1, std::ptr::null_mut(), &mut args)? };
//! # Ok(()) }
//! ```
//!
//! Your own HIP source text goes through the same cache:
//! [`Device::compile`] (then [`SourceModule::kernel`]) and
//! [`Device::source_code_object`] (default feature `srcapi`); a source the
//! compiler rejects is an [`Error`] whose [`Error::diagnostics`] hold the
//! compiler's messages.
//!
//! The names of the crate this library replaces (`hanzo-rocm-kernels`) are
//! kept as thin wrappers: [`CacheManager`], [`KernelManager`], [`Source`],
//! [`RocmKernelError`] (README.md, "Migrating").
//!
//! Every error is an [`Error`]: the library's negative errno, its text
//! (`hanzo_rocm_strerror`) and what was being done.
#![deny(missing_docs)]

use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int, c_uint, c_void};
use std::ptr;
use std::sync::Arc;

pub use hanzo_rocm_sys as sys;

mod compat;
mod source;
pub use source::SourceModule;
pub use compat::{CacheManager, KernelManager, Module, RocmKernelError, Source};

/// An error of the library: a negative errno with its text, what was being
/// done, and for a rejected source text the compiler's diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    code: i32,
    what: String,
    diagnostics: Option<String>,
}

impl Error {
    /// From a negative errno returned by the library (or one of ours).
    pub fn from_code(code: i32, what: impl Into<String>) -> Error {
        Error { code: if code > 0 { -code } else { code }, what: what.into(), diagnostics: None }
    }
    #[cfg_attr(not(feature = "srcapi"), allow(dead_code))]
    pub(crate) fn with_diagnostics(mut self, d: Option<String>) -> Error {
        self.diagnostics = d;
        self
    }
    /// The errno, positive (`libc::ENOENT` etc.).
    pub fn errno(&self) -> i32 {
        -self.code
    }
    /// The library's return value (a negative errno).
    pub fn code(&self) -> i32 {
        self.code
    }
    /// The library's text for the errno (`hanzo_rocm_strerror`).
    pub fn text(&self) -> String {
        // SAFETY: strerror returns a static string, never NULL.
        unsafe { CStr::from_ptr(sys::hanzo_rocm_strerror(self.code)) }.to_string_lossy().into_owned()
    }
    /// What the call was doing, e.g. `kernel_get(binary, badd_f32)`.
    pub fn context(&self) -> &str {
        &self.what
    }
    /// The compiler rejected a source text (`HANZO_ROCM_ECOMPILE`, EILSEQ):
    /// [`Error::diagnostics`] hold its messages.
    pub fn is_compile_error(&self) -> bool {
        self.errno() == 84
    }
    /// The compiler's output when a source text was rejected.
    pub fn diagnostics(&self) -> Option<&str> {
        self.diagnostics.as_deref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (errno {})", self.what, self.text(), self.errno())?;
        if let Some(d) = &self.diagnostics {
            write!(f, "\n{}", d.trim_end())?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {}

/// `Result` with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

pub(crate) fn check(rc: c_int, what: impl FnOnce() -> String) -> Result<c_int> {
    if rc < 0 {
        Err(Error::from_code(rc, what()))
    } else {
        Ok(rc)
    }
}

pub(crate) fn cstring(s: &str, what: &str) -> Result<CString> {
    CString::new(s).map_err(|_| Error::from_code(-22, format!("{}: {:?} contains a NUL byte", what, s)))
}

unsafe fn opt_str(p: *const c_char) -> Option<String> {
    if p.is_null() {
        None
    } else {
        Some(CStr::from_ptr(p).to_string_lossy().into_owned())
    }
}

struct Raw(*mut sys::hanzo_rocm);
// SAFETY: the C context is thread-safe (<hanzo-rocm.h>: "one may be shared
// by all threads of a process"); the pointer is only unref-ed in Drop.
unsafe impl Send for Raw {}
unsafe impl Sync for Raw {}
impl Drop for Raw {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::hanzo_rocm_unref(self.0) };
    }
}

/// A library context: configuration, devices, cache, loaded kernels.
/// Cheap to clone (a reference count); `Send + Sync`; the C context is
/// unreferenced when the last clone, device and kernel handle are dropped.
#[derive(Clone)]
pub struct Context(Arc<Raw>);

/// Options of [`Context::with_options`]; `None` keeps the library's
/// default (the environment, then the configuration).
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Prefix for every system path (`HANZO_ROCM_ROOT`).
    pub root: Option<String>,
    /// Main config file (`HANZO_ROCM_CONF`).
    pub config: Option<String>,
    /// Host (CPU) devices to add after the GPUs, e.g. `"host-w64"`.
    pub host: Option<String>,
    /// Log priority (syslog's: 3 error .. 7 debug); messages go to stderr.
    pub log_priority: Option<i32>,
    /// Plugin directories, ':'-separated; a leading '+' keeps the default one.
    pub plugin_path: Option<String>,
}

impl Context {
    /// A context with the configuration of the system and the environment.
    pub fn new() -> Result<Context> {
        let mut p = ptr::null_mut();
        // SAFETY: out-parameter.
        check(unsafe { sys::hanzo_rocm_new(&mut p) }, || "hanzo_rocm_new".into())?;
        Ok(Context(Arc::new(Raw(p))))
    }

    /// A context with explicit options.
    pub fn with_options(o: &Options) -> Result<Context> {
        let root = o.root.as_deref().map(|s| cstring(s, "root")).transpose()?;
        let config = o.config.as_deref().map(|s| cstring(s, "config")).transpose()?;
        let host = o.host.as_deref().map(|s| cstring(s, "host")).transpose()?;
        let plugin_path = o.plugin_path.as_deref().map(|s| cstring(s, "plugin_path")).transpose()?;
        let opts = sys::hanzo_rocm_options {
            size: std::mem::size_of::<sys::hanzo_rocm_options>(),
            root: root.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            config: config.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            log_fn: None,
            log_data: ptr::null_mut(),
            log_priority: o.log_priority.unwrap_or(0),
            host: host.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
            plugin_path: plugin_path.as_ref().map_or(ptr::null(), |s| s.as_ptr()),
        };
        let mut p = ptr::null_mut();
        // SAFETY: the strings outlive the call; the library copies them.
        check(unsafe { sys::hanzo_rocm_new_with_options(&opts, &mut p) }, || "hanzo_rocm_new_with_options".into())?;
        Ok(Context(Arc::new(Raw(p))))
    }

    /// The C context, for calls this crate does not wrap.  It stays valid
    /// while `self` (or a clone) lives.
    pub fn as_ptr(&self) -> *mut sys::hanzo_rocm {
        (self.0).0
    }

    /// The number of devices (GPUs, then the host devices asked for).
    pub fn device_count(&self) -> Result<usize> {
        // SAFETY: valid context.
        let n = check(unsafe { sys::hanzo_rocm_device_count(self.as_ptr()) }, || "device_count".into())?;
        Ok(n as usize)
    }

    /// Device `index`.
    pub fn device(&self, index: usize) -> Result<Device> {
        let n = self.device_count()?;
        if index >= n {
            return Err(Error::from_code(-19, format!("device {}: there are {} devices", index, n)));
        }
        Ok(Device { ctx: self.clone(), index: index as c_uint })
    }

    /// Every device.
    pub fn devices(&self) -> Result<Vec<Device>> {
        Ok((0..self.device_count()?).map(|i| Device { ctx: self.clone(), index: i as c_uint }).collect())
    }

    /// The code object (raw AMDGPU ELF, cubin, or host code object) of a
    /// family for a target, for applications that load modules themselves.
    pub fn code_object(&self, family: &str, target: &str) -> Result<&[u8]> {
        let (f, t) = (cstring(family, "family")?, cstring(target, "target")?);
        let (mut data, mut size) = (ptr::null(), 0usize);
        // SAFETY: the bytes are owned by the context and live until it is
        // freed, which `&self` outlives.
        check(unsafe { sys::hanzo_rocm_code_object(self.as_ptr(), f.as_ptr(), t.as_ptr(), &mut data, &mut size) }, || {
            format!("code_object({}, {})", family, target)
        })?;
        Ok(unsafe { std::slice::from_raw_parts(data as *const u8, size) })
    }

    /// The catalogue of every kernel of `family` (None: every family).
    pub fn catalogue(&self, family: Option<&str>) -> Result<Catalogue> {
        let f = family.map(|s| cstring(s, "family")).transpose()?;
        let mut p = ptr::null_mut();
        // SAFETY: out-parameter; the catalogue holds its own references.
        check(
            unsafe { sys::hanzo_rocm_catalogue_new(self.as_ptr(), f.as_ref().map_or(ptr::null(), |s| s.as_ptr()), &mut p) },
            || format!("catalogue({})", family.unwrap_or("*")),
        )?;
        Ok(Catalogue { ptr: p, _ctx: self.clone() })
    }

    /// The log priority (syslog's numbers).
    pub fn log_priority(&self) -> i32 {
        // SAFETY: valid context.
        unsafe { sys::hanzo_rocm_get_log_priority(self.as_ptr()) }
    }

    /// Sets the log priority; messages go to the library's default logger.
    pub fn set_log_priority(&self, priority: i32) {
        // SAFETY: valid context; thread-safe in the library.
        unsafe { sys::hanzo_rocm_set_log_priority(self.as_ptr(), priority) }
    }
}

/// Where a device's kernels run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Platform {
    /// An AMD GPU (HIP).
    Amd,
    /// An NVIDIA GPU (CUDA driver).
    Nvidia,
    /// The CPU, through the host backend (tests, debugging).
    Host,
}

/// One device of a context.
#[derive(Clone)]
pub struct Device {
    ctx: Context,
    index: c_uint,
}

impl Device {
    /// Its index in the context.
    pub fn index(&self) -> usize {
        self.index as usize
    }
    /// Its context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }
    /// The effective target after overrides (`gfx90a`, `sm_90`, `host-w64`);
    /// `CANDLE_ROCM_ARCH`/`HANZO_ROCM_ARCH` are applied by the library.
    pub fn target(&self) -> Result<String> {
        let mut t = ptr::null();
        // SAFETY: the string is owned by the context.
        check(unsafe { sys::hanzo_rocm_device_target(self.ctx.as_ptr(), self.index, &mut t) }, || {
            format!("device_target({})", self.index)
        })?;
        Ok(unsafe { opt_str(t) }.unwrap_or_default())
    }
    /// Its platform.
    pub fn platform(&self) -> Result<Platform> {
        // SAFETY: valid context.
        let p = check(unsafe { sys::hanzo_rocm_device_platform(self.ctx.as_ptr(), self.index) }, || {
            format!("device_platform({})", self.index)
        })?;
        match p as sys::hanzo_rocm_platform {
            sys::HANZO_ROCM_PLATFORM_AMD => Ok(Platform::Amd),
            sys::HANZO_ROCM_PLATFORM_NVIDIA => Ok(Platform::Nvidia),
            sys::HANZO_ROCM_PLATFORM_HOST => Ok(Platform::Host),
            _ => Err(Error::from_code(-71, format!("device_platform({}): unknown platform {}", self.index, p))),
        }
    }
    /// A kernel of an installed family, loaded on this device (cached by
    /// the library: a second call is a hash lookup).
    pub fn kernel(&self, family: &str, kernel: &str) -> Result<Kernel> {
        let (f, k) = (cstring(family, "family")?, cstring(kernel, "kernel")?);
        let mut p = ptr::null_mut();
        // SAFETY: out-parameter; the handle is owned by the context.
        check(unsafe { sys::hanzo_rocm_kernel_get(self.ctx.as_ptr(), self.index, f.as_ptr(), k.as_ptr(), &mut p) }, || {
            format!("kernel_get({}, {})", family, kernel)
        })?;
        Ok(Kernel { ptr: p, _ctx: self.ctx.clone(), name: kernel.to_string() })
    }
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Device({}, {})", self.index, self.target().unwrap_or_else(|_| "?".into()))
    }
}

/// A loaded kernel function on a device.  The handle is owned by the
/// context, which this keeps alive.
#[derive(Clone)]
pub struct Kernel {
    ptr: *mut sys::hanzo_rocm_kernel,
    _ctx: Context,
    name: String,
}
// SAFETY: handles are owned by the thread-safe context and immutable once
// returned; launches from several threads are the library's contract.
unsafe impl Send for Kernel {}
unsafe impl Sync for Kernel {}

/// Grid, block and dynamic shared memory of a launch by work.
pub type Geometry = sys::hanzo_rocm_geometry;

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The C handle.
    pub fn as_ptr(&self) -> *mut sys::hanzo_rocm_kernel {
        self.ptr
    }

    /// Launches with an explicit geometry.
    ///
    /// # Safety
    /// `args` must match the kernel's signature (the catalogue), its pointers
    /// must be device memory of the right size for the device, and `stream`
    /// a `hipStream_t`/`CUstream` of it or NULL.
    pub unsafe fn launch(&self, grid: [u32; 3], block: [u32; 3], shared: u32, stream: *mut c_void, args: &mut Args) -> Result<()> {
        check(sys::hanzo_rocm_kernel_launch(self.ptr, grid.as_ptr(), block.as_ptr(), shared, stream, args.as_mut_ptr()), || {
            format!("kernel_launch({})", self.name)
        })
        .map(|_| ())
    }

    /// Launches for `rows` x `cols` of work, the library choosing the
    /// geometry (element-wise kernels: rows = n, cols = 1).
    ///
    /// # Safety
    /// As [`Kernel::launch`].
    pub unsafe fn launch_work(&self, rows: u64, cols: u64, stream: *mut c_void, args: &mut Args) -> Result<()> {
        check(sys::hanzo_rocm_kernel_launch_work(self.ptr, rows, cols, stream, args.as_mut_ptr()), || {
            format!("kernel_launch_work({}, {} x {})", self.name, rows, cols)
        })
        .map(|_| ())
    }

    /// What [`Kernel::launch_work`] would launch.
    pub fn geometry(&self, rows: u64, cols: u64) -> Result<Geometry> {
        let mut g = Geometry::default();
        // SAFETY: valid handle, out-parameter.
        check(unsafe { sys::hanzo_rocm_kernel_geometry(self.ptr, rows, cols, &mut g) }, || {
            format!("kernel_geometry({}, {} x {})", self.name, rows, cols)
        })?;
        Ok(g)
    }

    /// Workspace bytes [`Kernel::op_run`] needs for rows x cols.
    pub fn op_workspace(&self, rows: u64, cols: u64) -> Result<usize> {
        let mut b = 0usize;
        // SAFETY: valid handle, out-parameter.
        check(unsafe { sys::hanzo_rocm_op_workspace(self.ptr, rows, cols, &mut b) }, || {
            format!("op_workspace({}, {} x {})", self.name, rows, cols)
        })?;
        Ok(b)
    }

    /// Runs the operation end to end (form, passes and workspace chosen by
    /// the library; arguments bound by name, <hanzo-rocm.h>).
    ///
    /// # Safety
    /// The pointers of `args` must be device memory of the right sizes.
    pub unsafe fn op_run(&self, rows: u64, cols: u64, args: &OpArgs) -> Result<()> {
        let a = sys::hanzo_rocm_op_args {
            size: std::mem::size_of::<sys::hanzo_rocm_op_args>(),
            src: args.src,
            dst: args.dst,
            alpha: args.alpha,
            beta: args.beta,
            residual: args.residual,
            residual_out: args.residual_out,
            eps: args.eps,
            workspace: args.workspace,
            workspace_size: args.workspace_size,
            stream: args.stream,
            named: ptr::null(),
            n_named: 0,
            batch: 0,
        };
        check(sys::hanzo_rocm_op_run(self.ptr, rows, cols, &a), || format!("op_run({}, {} x {})", self.name, rows, cols)).map(|_| ())
    }
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Kernel({})", self.name)
    }
}

/// The arguments of [`Kernel::op_run`] (device pointers; NULL where unused).
#[derive(Debug, Clone, Copy)]
pub struct OpArgs {
    /// Input (`src`, `x`).
    pub src: *const c_void,
    /// Output.
    pub dst: *mut c_void,
    /// Weight (NULL: 1).
    pub alpha: *const c_void,
    /// Bias (NULL: 0).
    pub beta: *const c_void,
    /// Residual input.
    pub residual: *const c_void,
    /// Residual output.
    pub residual_out: *mut c_void,
    /// Epsilon of the norms.
    pub eps: f32,
    /// Workspace of `workspace_size` bytes (see [`Kernel::op_workspace`]).
    pub workspace: *mut c_void,
    /// Its size.
    pub workspace_size: usize,
    /// hipStream_t / CUstream; NULL: the default stream.
    pub stream: *mut c_void,
}

impl Default for OpArgs {
    fn default() -> OpArgs {
        OpArgs {
            src: ptr::null(),
            dst: ptr::null_mut(),
            alpha: ptr::null(),
            beta: ptr::null(),
            residual: ptr::null(),
            residual_out: ptr::null_mut(),
            eps: 0.0,
            workspace: ptr::null_mut(),
            workspace_size: 0,
            stream: ptr::null_mut(),
        }
    }
}

/// A kernel's argument list: each value is copied into storage that stays
/// put, and the launch gets the array of pointers to them.
#[derive(Default)]
pub struct Args {
    store: Vec<Box<[u64]>>,
    ptrs: Vec<*mut c_void>,
}

impl Args {
    /// An empty list.
    pub fn new() -> Args {
        Args::default()
    }
    /// Appends a value (`usize` for `size_t`, `i32` for `int`, `*const T`
    /// for pointers, [`Layout`] for `hr_layout`...).
    pub fn push<T: Copy + 'static>(&mut self, v: T) -> &mut Args {
        assert!(std::mem::align_of::<T>() <= 8, "argument aligned over 8 bytes");
        let words = (std::mem::size_of::<T>() + 7) / 8;
        let mut b = vec![0u64; words.max(1)].into_boxed_slice();
        // SAFETY: the box is at least size_of::<T>() bytes, aligned to 8.
        unsafe { ptr::write(b.as_mut_ptr() as *mut T, v) };
        self.ptrs.push(b.as_mut_ptr() as *mut c_void);
        self.store.push(b);
        self
    }
    /// The number of arguments.
    pub fn len(&self) -> usize {
        self.ptrs.len()
    }
    /// No arguments.
    pub fn is_empty(&self) -> bool {
        self.ptrs.is_empty()
    }
    /// The `void **` of the launch.
    pub fn as_mut_ptr(&mut self) -> *mut *mut c_void {
        self.ptrs.as_mut_ptr()
    }
}

/// The kernels' tensor layout (`hr_layout`), passed by value as an
/// argument: `v[0..8)` dims, then each operand's strides (<hanzo-rocm.h>).
#[repr(transparent)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout(pub sys::hanzo_rocm_layout);

impl Layout {
    /// All zero: with `num_dims` 0, every operand contiguous.
    pub fn zeroed() -> Layout {
        Layout(sys::hanzo_rocm_layout { v: [0; 32] })
    }
    /// Its 32 values.
    pub fn v(&self) -> &[u64; 32] {
        &self.0.v
    }
    /// From dims and each operand's strides (None: contiguous row-major).
    pub fn new(dims: &[usize], strides: &[Option<&[usize]>]) -> Result<Layout> {
        for s in strides.iter().flatten() {
            if s.len() != dims.len() {
                return Err(Error::from_code(-22, format!("layout: {} strides for {} dims", s.len(), dims.len())));
            }
        }
        let sp: Vec<*const usize> = strides.iter().map(|s| s.map_or(ptr::null(), |s| s.as_ptr())).collect();
        let mut l = Layout::zeroed();
        // SAFETY: lengths checked above; the library checks the counts.
        check(unsafe { sys::hanzo_rocm_layout_init(&mut l.0, dims.len(), dims.as_ptr(), sp.len(), sp.as_ptr()) }, || {
            format!("layout_init({} dims, {} operands)", dims.len(), strides.len())
        })?;
        Ok(l)
    }
    /// From candle's packed dims_and_strides array (num_dims dims, then
    /// num_dims strides of each operand).
    pub fn from_candle(num_dims: usize, n_operands: usize, ds: &[usize]) -> Result<Layout> {
        if ds.len() < (1 + n_operands) * num_dims {
            return Err(Error::from_code(-22, format!("layout_from_candle: {} entries for {} dims, {} operands", ds.len(), num_dims, n_operands)));
        }
        let mut l = Layout::zeroed();
        // SAFETY: the array holds (1 + n_operands) * num_dims entries.
        check(unsafe { sys::hanzo_rocm_layout_from_candle(&mut l.0, num_dims, n_operands, ds.as_ptr()) }, || {
            format!("layout_from_candle({} dims, {} operands)", num_dims, n_operands)
        })?;
        Ok(l)
    }
}

/// The kernels of installed families, read from the plugins' metadata.
pub struct Catalogue {
    ptr: *mut sys::hanzo_rocm_catalogue,
    _ctx: Context,
}
// SAFETY: a catalogue is immutable once built; ref/unref are atomic.
unsafe impl Send for Catalogue {}
unsafe impl Sync for Catalogue {}

impl Drop for Catalogue {
    fn drop(&mut self) {
        // SAFETY: we own one reference.
        unsafe { sys::hanzo_rocm_catalogue_unref(self.ptr) };
    }
}

/// One kernel of the catalogue.
#[derive(Debug, Clone, Default)]
pub struct KernelDesc {
    /// Its family.
    pub family: String,
    /// Its name.
    pub name: String,
    /// The argument list, as in the source.
    pub signature: String,
    /// Launch kind ("elementwise", "rows", ...); None: raw launch only.
    pub launch: Option<String>,
    /// What rows mean for launch_work.
    pub rows: Option<String>,
    /// What cols mean.
    pub cols: Option<String>,
    /// Its form ("single", "one-pass", "split", ...).
    pub form: Option<String>,
    /// The arguments: (type, name, bytes).
    pub args: Vec<(String, String, usize)>,
}

impl Catalogue {
    /// The number of kernels.
    pub fn len(&self) -> usize {
        // SAFETY: valid catalogue.
        unsafe { sys::hanzo_rocm_catalogue_count(self.ptr) }
    }
    /// No kernels.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Kernel `index`.
    pub fn kernel(&self, index: usize) -> Result<KernelDesc> {
        // SAFETY: zeroed is a valid value (NULL pointers); .size is set.
        let mut d: sys::hanzo_rocm_kernel_desc = unsafe { std::mem::zeroed() };
        d.size = std::mem::size_of::<sys::hanzo_rocm_kernel_desc>();
        check(unsafe { sys::hanzo_rocm_catalogue_kernel(self.ptr, index, &mut d) }, || format!("catalogue_kernel({})", index))?;
        let mut k = KernelDesc {
            family: unsafe { opt_str(d.family) }.unwrap_or_default(),
            name: unsafe { opt_str(d.name) }.unwrap_or_default(),
            signature: unsafe { opt_str(d.signature) }.unwrap_or_default(),
            launch: unsafe { opt_str(d.launch) },
            rows: unsafe { opt_str(d.rows) },
            cols: unsafe { opt_str(d.cols) },
            form: unsafe { opt_str(d.form) },
            args: Vec::new(),
        };
        for a in 0..d.n_args {
            let mut ad: sys::hanzo_rocm_arg_desc = unsafe { std::mem::zeroed() };
            ad.size = std::mem::size_of::<sys::hanzo_rocm_arg_desc>();
            check(unsafe { sys::hanzo_rocm_catalogue_arg(self.ptr, index, a, &mut ad) }, || format!("catalogue_arg({}, {})", index, a))?;
            k.args.push((unsafe { opt_str(ad.type_) }.unwrap_or_default(), unsafe { opt_str(ad.name) }.unwrap_or_default(), ad.bytes));
        }
        Ok(k)
    }
    /// Every kernel.
    pub fn kernels(&self) -> Result<Vec<KernelDesc>> {
        (0..self.len()).map(|i| self.kernel(i)).collect()
    }
}
