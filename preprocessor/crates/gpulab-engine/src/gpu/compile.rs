//! NVRTC: compile a `.cu` source to a cubin (or PTX when NVRTC lacks the exact `sm_XY`); works without a GPU.

use super::error::{CompileError, Diagnostic, Severity};
use super::probe::{ensure_nvrtc, guard_nvrtc};
use crate::ptx::FIXED_COMPILE_OPTIONS;
use cudarc::nvrtc::sys::{self, nvrtcProgram, nvrtcResult};
use std::ffi::{CStr, CString, c_char, c_int};
use std::path::Path;

/// What NVRTC produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    /// SASS for exactly the requested `sm_XY`: loads without JIT.
    Cubin,
    /// PTX for `compute_XY` (the newest NVRTC supports at or below the device), JIT-compiled at load.
    Ptx,
}

/// A compiled module image, ready for `Gpu::load`.
#[derive(Debug, Clone)]
pub struct Image {
    kind: ImageKind,
    bytes: Vec<u8>,
    arch: (u32, u32),
    /// The PTX NVRTC wrote on the way to a cubin (or the image itself), for `check`'s signature checks.
    ptx: Option<String>,
}

impl Image {
    /// An image read back from the on-disk compile cache, with a cubin's PTX.
    pub(crate) fn from_cache(
        kind: ImageKind,
        bytes: Vec<u8>,
        ptx: Option<String>,
        arch: (u32, u32),
    ) -> Image {
        Image {
            kind,
            bytes,
            arch,
            ptx,
        }
    }

    pub fn kind(&self) -> ImageKind {
        self.kind
    }
    /// The raw cubin or PTX bytes (PTX without its trailing NUL).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
    /// The architecture compiled for (`(9, 0)` → `sm_90` / `compute_90`).
    pub fn arch(&self) -> (u32, u32) {
        self.arch
    }
    /// The PTX text: the image itself, or the PTX a cubin was made from.
    pub fn ptx(&self) -> Option<&str> {
        match self.kind {
            ImageKind::Ptx => std::str::from_utf8(&self.bytes).ok(),
            ImageKind::Cubin => self.ptx.as_deref(),
        }
    }
}

/// NVRTC's version, `(13, 0)`.
pub fn nvrtc_version() -> Result<(u32, u32), CompileError> {
    ensure_nvrtc()?;
    guard_nvrtc("nvrtcVersion", || {
        let (mut major, mut minor): (c_int, c_int) = (0, 0);
        // SAFETY: writes two ints; the library is present.
        check("nvrtcVersion", unsafe {
            sys::nvrtcVersion(&mut major, &mut minor)
        })?;
        Ok((major.max(0) as u32, minor.max(0) as u32))
    })
}

/// The real architectures NVRTC can emit SASS for, ascending (`[(7,5), (8,0), …]`).
pub fn supported_archs() -> Result<Vec<(u32, u32)>, CompileError> {
    ensure_nvrtc()?;
    guard_nvrtc("nvrtcGetSupportedArchs", || {
        let mut n: c_int = 0;
        // SAFETY: writes one int.
        check("nvrtcGetNumSupportedArchs", unsafe {
            sys::nvrtcGetNumSupportedArchs(&mut n)
        })?;
        let mut archs = vec![0 as c_int; n.max(0) as usize];
        // SAFETY: `archs` holds the number of entries NVRTC just reported.
        check("nvrtcGetSupportedArchs", unsafe {
            sys::nvrtcGetSupportedArchs(archs.as_mut_ptr())
        })?;
        let mut out: Vec<(u32, u32)> = archs
            .into_iter()
            .filter(|&a| a > 0)
            .map(|a| ((a / 10) as u32, (a % 10) as u32))
            .collect();
        out.sort_unstable();
        out.dedup();
        Ok(out)
    })
}

/// Compiles `source` (named `source_name`, the `.cu` path whose folder is included) for `arch`,
/// with `options` after ours (the target, [`FIXED_COMPILE_OPTIONS`], include paths).
pub fn compile(
    source: &str,
    source_name: &str,
    options: &[String],
    arch: (u32, u32),
) -> Result<Image, CompileError> {
    ensure_nvrtc()?;
    let supported = supported_archs()?;
    let (target, kind) = choose_target(arch, &supported)?;
    let mut opts = vec![match kind {
        ImageKind::Cubin => format!("--gpu-architecture=sm_{}{}", target.0, target.1),
        ImageKind::Ptx => format!("--gpu-architecture=compute_{}{}", target.0, target.1),
    }];
    opts.extend(FIXED_COMPILE_OPTIONS.map(String::from));
    if let Some(dir) = Path::new(source_name)
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
    {
        opts.push(format!("--include-path={}", dir.display()));
    }
    // `<cuda_fp16.h>`, `<cuda_bf16.h>`: NVRTC has no default include path (see toolkit_headers).
    if let Some(dir) = super::toolkit_headers::include_dir() {
        opts.push(format!("--include-path={}", dir.display()));
    }
    opts.extend(options.iter().cloned());
    let c_source = CString::new(source)
        .map_err(|_| CompileError::InvalidInput("the source contains a NUL byte".into()))?;
    let c_name = CString::new(source_name)
        .map_err(|_| CompileError::InvalidInput("the source name contains a NUL byte".into()))?;
    let c_opts = opts
        .iter()
        .map(|o| {
            CString::new(o.as_str()).map_err(|_| {
                CompileError::InvalidInput(format!("option {o:?} contains a NUL byte"))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    guard_nvrtc("compile", || {
        let program = Program::create(&c_source, &c_name)?;
        let ptrs: Vec<*const c_char> = c_opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `ptrs` point into `c_opts`, alive for the call.
        let status =
            unsafe { sys::nvrtcCompileProgram(program.0, ptrs.len() as c_int, ptrs.as_ptr()) };
        let log = program.log()?;
        // Written before ptxas runs: present when only ptxas failed (too much shared memory).
        let ptx = program
            .ptx()
            .ok()
            .filter(|p| !p.is_empty())
            .and_then(|p| String::from_utf8(p).ok());
        if status != nvrtcResult::NVRTC_SUCCESS {
            if status == nvrtcResult::NVRTC_ERROR_COMPILATION || !log.trim().is_empty() {
                return Err(CompileError::Failed {
                    source_name: source_name.to_string(),
                    diagnostics: parse_log(&log),
                    log,
                    options: opts.clone(),
                    ptx,
                });
            }
            return Err(nvrtc_error("nvrtcCompileProgram", status));
        }
        let bytes = match kind {
            ImageKind::Cubin => program.cubin()?,
            ImageKind::Ptx => program.ptx()?,
        };
        Ok(Image {
            kind,
            bytes,
            arch: target,
            ptx,
        })
    })
}

/// `sm_XY` itself if NVRTC supports it, else PTX for the newest supported arch below it.
pub(crate) fn choose_target(
    arch: (u32, u32),
    supported: &[(u32, u32)],
) -> Result<((u32, u32), ImageKind), CompileError> {
    if supported.contains(&arch) {
        return Ok((arch, ImageKind::Cubin));
    }
    supported
        .iter()
        .rev()
        .find(|&&a| a <= arch)
        .map(|&a| (a, ImageKind::Ptx))
        .ok_or_else(|| CompileError::UnsupportedArch {
            arch,
            supported: supported.to_vec(),
        })
}

/// Parses `file(line): error: message` lines (also `warning #177-D:`, `catastrophic error:`).
pub fn parse_log(log: &str) -> Vec<Diagnostic> {
    log.lines().filter_map(parse_line).collect()
}

fn parse_line(line: &str) -> Option<Diagnostic> {
    let split = line.find("): ")?;
    let (head, rest) = (&line[..split], &line[split + 3..]);
    let open = head.rfind('(')?;
    let file = &head[..open];
    let line_no: u32 = head[open + 1..].parse().ok()?;
    let (severity, after) = [
        ("catastrophic error", Severity::Error),
        ("error", Severity::Error),
        ("warning", Severity::Warning),
        ("remark", Severity::Remark),
    ]
    .into_iter()
    .find_map(|(word, sev)| rest.strip_prefix(word).map(|after| (sev, after)))?;
    // Optional diagnostic number: ` #177-D`.
    let after = match after.strip_prefix(" #") {
        Some(numbered) => &numbered[numbered.find(':')?..],
        None => after,
    };
    let message = after.strip_prefix(':')?.trim().to_string();
    if file.is_empty() {
        return None;
    }
    Some(Diagnostic {
        file: file.to_string(),
        line: line_no,
        severity,
        message,
    })
}

fn nvrtc_error(op: &str, status: nvrtcResult) -> CompileError {
    // SAFETY: nvrtcGetErrorString returns a static string.
    let text = unsafe {
        let p = sys::nvrtcGetErrorString(status);
        if p.is_null() {
            format!("{status:?}")
        } else {
            CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    };
    let hint = if status == nvrtcResult::NVRTC_ERROR_BUILTIN_OPERATION_FAILURE {
        " (libnvrtc-builtins.so, next to libnvrtc.so, could not be loaded: add its directory to LD_LIBRARY_PATH)"
    } else {
        ""
    };
    CompileError::Nvrtc {
        op: op.to_string(),
        message: format!("{text}{hint}"),
    }
}

fn check(op: &str, status: nvrtcResult) -> Result<(), CompileError> {
    if status == nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(nvrtc_error(op, status))
    }
}

/// An NVRTC program, destroyed on drop.
struct Program(nvrtcProgram);

impl Program {
    fn create(source: &CStr, name: &CStr) -> Result<Self, CompileError> {
        let mut prog: nvrtcProgram = std::ptr::null_mut();
        // SAFETY: both strings outlive the program (NVRTC copies them).
        check("nvrtcCreateProgram", unsafe {
            sys::nvrtcCreateProgram(
                &mut prog,
                source.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        })?;
        Ok(Program(prog))
    }

    fn log(&self) -> Result<String, CompileError> {
        let mut size = 0usize;
        // SAFETY: valid program; buffer sized as reported.
        check("nvrtcGetProgramLogSize", unsafe {
            sys::nvrtcGetProgramLogSize(self.0, &mut size)
        })?;
        let mut buf = vec![0u8; size.max(1)];
        check("nvrtcGetProgramLog", unsafe {
            sys::nvrtcGetProgramLog(self.0, buf.as_mut_ptr().cast())
        })?;
        Ok(String::from_utf8_lossy(&trim_nul(buf)).into_owned())
    }

    fn cubin(&self) -> Result<Vec<u8>, CompileError> {
        let mut size = 0usize;
        // SAFETY: valid program; buffer sized as reported.
        check("nvrtcGetCUBINSize", unsafe {
            sys::nvrtcGetCUBINSize(self.0, &mut size)
        })?;
        let mut buf = vec![0u8; size];
        check("nvrtcGetCUBIN", unsafe {
            sys::nvrtcGetCUBIN(self.0, buf.as_mut_ptr().cast())
        })?;
        Ok(buf)
    }

    fn ptx(&self) -> Result<Vec<u8>, CompileError> {
        let mut size = 0usize;
        // SAFETY: valid program; buffer sized as reported.
        check("nvrtcGetPTXSize", unsafe {
            sys::nvrtcGetPTXSize(self.0, &mut size)
        })?;
        let mut buf = vec![0u8; size];
        check("nvrtcGetPTX", unsafe {
            sys::nvrtcGetPTX(self.0, buf.as_mut_ptr().cast())
        })?;
        Ok(trim_nul(buf))
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, destroyed once.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
    }
}

fn trim_nul(mut buf: Vec<u8>) -> Vec<u8> {
    while buf.last() == Some(&0) {
        buf.pop();
    }
    buf
}

#[cfg(test)]
#[path = "compile_tests.rs"]
mod tests;
