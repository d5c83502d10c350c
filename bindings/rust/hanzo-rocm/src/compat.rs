// SPDX-License-Identifier: LGPL-2.1-or-later
//! The API of the crate this library replaces (`hanzo-rocm-kernels`), as
//! thin wrappers: `CacheManager::new(&device)`, `cache.get_or_compile(name,
//! source)`, `KernelManager::get_or_compile_module(Source::...)` returning a
//! shared module, `RocmKernelError`.  The cache, its tiers and trust checks,
//! the compiler and the target are the library's: `CANDLE_ROCM_ARCH` and
//! `CANDLE_ROCM_VERSION` are read by the library itself (aliases of
//! `HANZO_ROCM_ARCH`/`HANZO_ROCM_VERSION`), so they keep working.
use crate::source::SourceModule;
use crate::{Device, Error, Kernel, Result};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// The replaced crate's error type.
pub type RocmKernelError = Error;

/// The replaced crate's AOT cache: code objects by (name, source, target).
pub struct CacheManager {
    device: Device,
    arch: String,
    rocm_version: String,
}

impl CacheManager {
    /// For a device of a [`crate::Context`].
    pub fn new(device: &Device) -> Result<CacheManager> {
        let arch = device.target()?;
        // The label the library applies to its toolchain identity, when set.
        let rocm_version = ["HANZO_ROCM_VERSION", "CANDLE_ROCM_VERSION"]
            .iter()
            .find_map(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))
            .unwrap_or_default();
        Ok(CacheManager { device: device.clone(), arch, rocm_version })
    }
    /// The code object of HIP `source` for this device's target, from the
    /// library's cache tiers or compiled (and cached) on a miss.
    pub fn get_or_compile(&self, name: &str, source: &str) -> Result<Vec<u8>> {
        self.device.source_code_object(&self.arch, name, source)
    }
    /// The device's effective target (after `CANDLE_ROCM_ARCH`, for AMD).
    pub fn arch(&self) -> &str {
        &self.arch
    }
    /// `HANZO_ROCM_VERSION`/`CANDLE_ROCM_VERSION` when set, else "" (the
    /// library identifies its compiler itself).
    pub fn rocm_version(&self) -> &str {
        &self.rocm_version
    }
    /// Its device.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

/// What a module is made from: an installed family (the replaced crate's
/// built-in sources, same names), or HIP source text.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Source {
    /// Family `unary`.
    Unary,
    /// Family `affine`.
    Affine,
    /// Family `fill`.
    Fill,
    /// Family `binary` (badd_f32, bmaximum_f16, ...).
    Binary,
    /// Family `cast`.
    Cast,
    /// Family `ternary`.
    Ternary,
    /// Family `reduce`.
    Reduce,
    /// Family `indexing`.
    Indexing,
    /// Family `sort`.
    Sort,
    /// Family `quantized`.
    Quantized,
    /// Family `conv`.
    Conv,
    /// Any installed family by name (third-party families included).
    Family(String),
    /// HIP source text compiled under `name` (the library's source-text API).
    Text {
        /// The module's name (part of nothing but messages and the cache index).
        name: String,
        /// The HIP source.
        code: String,
    },
}

impl Source {
    /// The family's or the text's name.
    pub fn name(&self) -> &str {
        match self {
            Source::Unary => "unary",
            Source::Affine => "affine",
            Source::Fill => "fill",
            Source::Binary => "binary",
            Source::Cast => "cast",
            Source::Ternary => "ternary",
            Source::Reduce => "reduce",
            Source::Indexing => "indexing",
            Source::Sort => "sort",
            Source::Quantized => "quantized",
            Source::Conv => "conv",
            Source::Family(f) => f,
            Source::Text { name, .. } => name,
        }
    }
    /// The source text (None for a family: its plugin carries it).
    pub fn code(&self) -> Option<&str> {
        match self {
            Source::Text { code, .. } => Some(code),
            _ => None,
        }
    }
}

enum ModuleKind {
    Family(String),
    Text(SourceModule),
}

/// A module on a device: get its functions by name.
pub struct Module {
    device: Device,
    kind: ModuleKind,
}

impl Module {
    /// A kernel of the module (the library caches the handle).
    pub fn get_function(&self, name: &str) -> Result<Kernel> {
        match &self.kind {
            ModuleKind::Family(f) => self.device.kernel(f, name),
            ModuleKind::Text(m) => m.kernel(name),
        }
    }
    /// Its device.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

/// The replaced crate's module manager: one shared [`Module`] per source.
pub struct KernelManager {
    cache: CacheManager,
    modules: Mutex<HashMap<Source, Arc<Module>>>,
}

impl KernelManager {
    /// For a device of a [`crate::Context`].
    pub fn new(device: &Device) -> Result<KernelManager> {
        Ok(KernelManager { cache: CacheManager::new(device)?, modules: Mutex::new(HashMap::new()) })
    }
    /// The module of `source`, made once and shared.  A family must be
    /// installed (`ENOENT` otherwise); a text is compiled or found in cache.
    pub fn get_or_compile_module(&self, source: Source) -> Result<Arc<Module>> {
        if let Some(m) = self.modules.lock().unwrap_or_else(|e| e.into_inner()).get(&source) {
            return Ok(m.clone());
        }
        let device = self.cache.device().clone();
        let kind = match &source {
            Source::Text { name, code } => ModuleKind::Text(device.compile(name, code)?),
            family => {
                // ENOENT for a family that is not installed or disabled.
                device.context().catalogue(Some(family.name()))?;
                ModuleKind::Family(family.name().to_string())
            }
        };
        let m = Arc::new(Module { device, kind });
        let mut map = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        Ok(map.entry(source).or_insert(m).clone())
    }
    /// The device's target.
    pub fn arch(&self) -> &str {
        self.cache.arch()
    }
    /// As [`CacheManager::rocm_version`].
    pub fn rocm_version(&self) -> &str {
        self.cache.rocm_version()
    }
    /// Its cache manager.
    pub fn cache(&self) -> &CacheManager {
        &self.cache
    }
}
