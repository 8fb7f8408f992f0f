//! Typed errors of the CUDA layer (`GpuError`, `CompileError`), with no cudarc types in them.

use cudarc::driver::{DriverError, sys::CUresult};

/// An error from the driver, a launch, or the session around them.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// A CUDA library could not be loaded (checked before any call, which would otherwise panic).
    #[error("{lib} not found: {hint}")]
    LibraryMissing { lib: String, hint: String },
    /// The driver loaded but sees no GPU.
    #[error(
        "no CUDA device is visible (is the GPU exposed to this process? check CUDA_VISIBLE_DEVICES)"
    )]
    NoDevice,
    #[error("CUDA device {ordinal} does not exist ({count} visible)")]
    BadOrdinal { ordinal: usize, count: usize },
    /// A driver call failed. `fatal`: the error is sticky and the context is unusable.
    #[error("{op} failed: {name}: {message}")]
    Driver {
        op: String,
        name: String,
        message: String,
        fatal: bool,
    },
    /// A kernel launch failed, immediately or (for asynchronous faults) at the next synchronisation.
    #[error("kernel launch failed: {message}")]
    Launch { message: String, fatal: bool },
    /// A launch configuration rejected before it reached the driver.
    #[error("invalid launch configuration: {0}")]
    InvalidConfig(String),
    #[error("out of device memory allocating {bytes} bytes ({free} of {total} bytes free)")]
    OutOfMemory {
        bytes: usize,
        free: usize,
        total: usize,
    },
    #[error("loading the compiled module failed: {0}")]
    ModuleLoad(String),
    #[error("kernel `{name}` not found in the module{}", kernels_hint(.available))]
    KernelNotFound {
        name: String,
        available: Vec<String>,
    },
    #[error("`__constant__` symbol `{name}` not found in the module")]
    SymbolNotFound { name: String },
    #[error("`__constant__` symbol `{name}` holds {capacity} bytes, but {got} bytes were given")]
    SymbolSize {
        name: String,
        capacity: usize,
        got: usize,
    },
    /// A host/device buffer pair that does not fit (type or length).
    #[error("buffer mismatch: {0}")]
    BufferMismatch(String),
    #[error("cuBLAS {op} failed: {message}")]
    Cublas { op: String, message: String },
    /// The CUDA library panicked during initialisation (caught).
    #[error("CUDA initialisation panicked in {op}: {message}")]
    InitPanic { op: String, message: String },
    /// An earlier fatal error poisoned the context; the process must exit to recover.
    #[error(
        "the CUDA context is unusable after an earlier fatal error ({first}); restart the process"
    )]
    ContextLost { first: String },
}

fn kernels_hint(available: &[String]) -> String {
    if available.is_empty() {
        return String::new();
    }
    let mangled = available.iter().any(|n| n.starts_with("_Z"));
    let extern_c = if mangled {
        " (names starting with `_Z` are C++-mangled: declare kernels `extern \"C\"`)"
    } else {
        ""
    };
    format!("; it defines: {}{extern_c}", available.join(", "))
}

impl GpuError {
    /// Whether the CUDA context is poisoned: the caller (a worker subprocess) must exit and restart.
    pub fn is_fatal(&self) -> bool {
        match self {
            GpuError::Driver { fatal, .. } | GpuError::Launch { fatal, .. } => *fatal,
            GpuError::ContextLost { .. } | GpuError::InitPanic { .. } => true,
            _ => false,
        }
    }
}

/// Whether a driver error is sticky (the context cannot be used again).
pub(crate) fn is_sticky(code: CUresult) -> bool {
    use CUresult::*;
    matches!(
        code,
        CUDA_ERROR_ILLEGAL_ADDRESS
            | CUDA_ERROR_LAUNCH_FAILED
            | CUDA_ERROR_ILLEGAL_INSTRUCTION
            | CUDA_ERROR_MISALIGNED_ADDRESS
            | CUDA_ERROR_INVALID_ADDRESS_SPACE
            | CUDA_ERROR_INVALID_PC
            | CUDA_ERROR_HARDWARE_STACK_ERROR
            | CUDA_ERROR_ASSERT
            | CUDA_ERROR_LAUNCH_TIMEOUT
            | CUDA_ERROR_ECC_UNCORRECTABLE
            | CUDA_ERROR_CONTEXT_IS_DESTROYED
            | CUDA_ERROR_UNKNOWN
    )
}

/// `CUDA_ERROR_…` name and the driver's description of an error.
pub(crate) fn describe(e: &DriverError) -> (String, String) {
    let name = e
        .error_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", e.0));
    let message = e
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "no description".to_string());
    (name, message)
}

/// A `GpuError::Driver` for a failed call `op`.
pub(crate) fn driver(op: &str, e: DriverError) -> GpuError {
    let (name, message) = describe(&e);
    GpuError::Driver {
        op: op.to_string(),
        name,
        message,
        fatal: is_sticky(e.0),
    }
}

/// A `GpuError::Launch` for a failed launch (or a fault found at synchronisation), with a hint.
pub(crate) fn launch(e: DriverError, hint: Option<String>) -> GpuError {
    let (name, message) = describe(&e);
    let fatal = is_sticky(e.0);
    let mut text = format!("{name}: {message}");
    if let Some(hint) = hint {
        text.push_str(&format!(" ({hint})"));
    }
    if fatal {
        text.push_str("; the CUDA context is now unusable");
    }
    GpuError::Launch {
        message: text,
        fatal,
    }
}

/// Why NVRTC could not compile a kernel.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CompileError {
    #[error("{lib} not found: {hint}")]
    LibraryMissing { lib: String, hint: String },
    /// The source had errors: NVRTC's log (paths are the `.cu` file's) and its parsed diagnostics.
    #[error("{} failed to compile:\n{log}", .source_name)]
    Failed {
        source_name: String,
        log: String,
        diagnostics: Vec<Diagnostic>,
        options: Vec<String>,
        /// The PTX, when only the step after it (ptxas) failed.
        ptx: Option<String>,
    },
    #[error("NVRTC cannot compile for sm_{}{} (it supports: {})", .arch.0, .arch.1, format_archs(.supported))]
    UnsupportedArch {
        arch: (u32, u32),
        supported: Vec<(u32, u32)>,
    },
    #[error("invalid compiler input: {0}")]
    InvalidInput(String),
    #[error("NVRTC {op} failed: {message}")]
    Nvrtc { op: String, message: String },
    #[error("NVRTC panicked in {op}: {message}")]
    Panic { op: String, message: String },
}

fn format_archs(archs: &[(u32, u32)]) -> String {
    archs
        .iter()
        .map(|(a, b)| format!("sm_{a}{b}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl CompileError {
    /// Parsed diagnostics, if the source itself failed to compile.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            CompileError::Failed { diagnostics, .. } => diagnostics,
            _ => &[],
        }
    }

    /// The PTX NVRTC wrote before the failure, if any.
    pub fn ptx(&self) -> Option<&str> {
        match self {
            CompileError::Failed { ptx, .. } => ptx.as_deref(),
            _ => None,
        }
    }
}

/// Severity of one compiler message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
    Remark,
}

/// One `file(line): error: message` item of an NVRTC log.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: u32,
    pub severity: Severity,
    pub message: String,
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
