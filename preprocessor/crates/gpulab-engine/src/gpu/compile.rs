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
mod tests {
    use super::*;

    const VECTOR_ADD: &str = r#"
extern "C" __global__ void vector_add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i] + SCALE;
}
"#;

    fn nvrtc_or_skip(test: &str) -> bool {
        if crate::gpu::probe::nvrtc_library_present() {
            return true;
        }
        eprintln!(
            "\n*** SKIPPING {test}: libnvrtc is not loadable. {} ***\n",
            crate::gpu::probe::NVRTC_HINT
        );
        false
    }

    #[test]
    fn parses_nvrtc_log_lines() {
        let log = "kernels/mm/matmul.cu(12): error: identifier \"foo\" is undefined\n\
                   \x20     c[i] = foo;\n\
                   \x20            ^\n\n\
                   kernels/mm/matmul.cu(3): warning #177-D: variable \"x\" was declared but never referenced\n\
                   /abs/common.cuh(40): catastrophic error: cannot open source file \"x.h\"\n\
                   1 error detected in the compilation of \"kernels/mm/matmul.cu\".\n";
        let d = parse_log(log);
        assert_eq!(d.len(), 3, "{d:?}");
        assert_eq!(
            d[0],
            Diagnostic {
                file: "kernels/mm/matmul.cu".into(),
                line: 12,
                severity: Severity::Error,
                message: "identifier \"foo\" is undefined".into()
            }
        );
        assert_eq!(d[1].severity, Severity::Warning);
        assert_eq!(d[1].line, 3);
        assert_eq!(
            d[1].message,
            "variable \"x\" was declared but never referenced"
        );
        assert_eq!(d[2].file, "/abs/common.cuh");
        assert_eq!(d[2].severity, Severity::Error);
    }

    #[test]
    fn chooses_cubin_or_older_ptx() {
        let sup = [(7, 5), (8, 0), (8, 6), (9, 0)];
        assert_eq!(
            choose_target((9, 0), &sup).unwrap(),
            ((9, 0), ImageKind::Cubin)
        );
        assert_eq!(
            choose_target((8, 9), &sup).unwrap(),
            ((8, 6), ImageKind::Ptx)
        );
        assert_eq!(
            choose_target((12, 0), &sup).unwrap(),
            ((9, 0), ImageKind::Ptx)
        );
        assert!(matches!(
            choose_target((6, 1), &sup),
            Err(CompileError::UnsupportedArch { .. })
        ));
    }

    #[test]
    fn compiles_a_kernel_to_cubin() {
        if !nvrtc_or_skip("compiles_a_kernel_to_cubin") {
            return;
        }
        let v = nvrtc_version().unwrap();
        assert!(v.0 >= 11, "{v:?}");
        let archs = supported_archs().unwrap();
        assert!(archs.contains(&(9, 0)), "{archs:?}");
        let image = compile(
            VECTOR_ADD,
            "kernels/va/vector_add.cu",
            &["-DSCALE=0.0f".to_string()],
            (9, 0),
        )
        .unwrap();
        assert_eq!(image.kind(), ImageKind::Cubin);
        assert_eq!(&image.bytes()[..4], b"\x7fELF");
        // The PTX the cubin was made from comes with it (for `check`'s signature checks).
        assert!(image.ptx().unwrap().contains(".entry vector_add"));
    }

    #[test]
    fn a_ptxas_failure_keeps_the_ptx() {
        if !nvrtc_or_skip("a_ptxas_failure_keeps_the_ptx") {
            return;
        }
        let src = r#"extern "C" __global__ void big(float* y) {
            __shared__ float s[16384];
            s[threadIdx.x] = 1; __syncthreads(); y[threadIdx.x] = s[threadIdx.x ^ 3]; }"#;
        let err = compile(src, "big.cu", &[], (9, 0)).unwrap_err();
        assert!(err.to_string().contains("too much shared data"), "{err}");
        assert!(err.ptx().unwrap().contains(".entry big"));
    }

    #[test]
    fn falls_back_to_ptx_for_an_unknown_newer_arch() {
        if !nvrtc_or_skip("falls_back_to_ptx_for_an_unknown_newer_arch") {
            return;
        }
        let image = compile(VECTOR_ADD, "va.cu", &["-DSCALE=1.0f".to_string()], (99, 9)).unwrap();
        assert_eq!(image.kind(), ImageKind::Ptx);
        assert!(image.ptx().unwrap().contains(".entry vector_add"));
    }

    #[test]
    fn reports_compile_errors_with_the_file_path() {
        if !nvrtc_or_skip("reports_compile_errors_with_the_file_path") {
            return;
        }
        // SCALE is not defined: an error on line 4.
        let err = compile(VECTOR_ADD, "kernels/va/vector_add.cu", &[], (9, 0)).unwrap_err();
        let CompileError::Failed {
            log,
            diagnostics,
            source_name,
            ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(source_name, "kernels/va/vector_add.cu");
        assert!(log.contains("kernels/va/vector_add.cu(4)"), "{log}");
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        assert_eq!(diagnostics[0].line, 4);
        assert_eq!(diagnostics[0].file, "kernels/va/vector_add.cu");
        assert!(
            diagnostics[0].message.contains("SCALE"),
            "{}",
            diagnostics[0].message
        );
        assert!(err.to_string().contains("failed to compile"));
    }

    #[test]
    fn bad_options_and_nul_bytes_are_errors() {
        if !nvrtc_or_skip("bad_options_and_nul_bytes_are_errors") {
            return;
        }
        assert!(matches!(
            compile("x\0y", "a.cu", &[], (9, 0)),
            Err(CompileError::InvalidInput(_))
        ));
        let err = compile(
            VECTOR_ADD,
            "a.cu",
            &["--no-such-option".to_string()],
            (9, 0),
        )
        .unwrap_err();
        assert!(!matches!(err, CompileError::Panic { .. }), "{err:?}");
    }

    #[test]
    fn missing_nvrtc_is_a_clear_error() {
        if crate::gpu::probe::nvrtc_library_present() {
            return;
        }
        let err = compile(VECTOR_ADD, "a.cu", &[], (9, 0)).unwrap_err();
        assert!(err.to_string().contains("LD_LIBRARY_PATH"), "{err}");
    }
}
