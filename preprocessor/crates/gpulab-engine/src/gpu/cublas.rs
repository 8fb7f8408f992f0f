//! cuBLAS (dynamically loaded): row-major SGEMM for the `library = "cublas_sgemm"` variants.

use super::buffer::DeviceBuffer;
use super::error::GpuError;
use super::probe::{ensure_cublas, guard};
use super::session::Gpu;
use super::shared::Shared;
use crate::host_data::ElemType;
use cudarc::cublas::result::CublasError;
use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, result, sys};
use std::ffi::c_int;
use std::mem::ManuallyDrop;
use std::sync::Arc;

/// A cuBLAS handle bound to the session's stream.
pub struct Blas {
    shared: Arc<Shared>,
    handle: ManuallyDrop<CudaBlas>,
}

impl std::fmt::Debug for Blas {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Blas").finish_non_exhaustive()
    }
}

impl Drop for Blas {
    fn drop(&mut self) {
        // cudarc unwraps cublasDestroy's status; on a poisoned context leak the handle instead of panicking.
        if !self.shared.is_poisoned() {
            // SAFETY: dropped exactly once, here.
            unsafe { ManuallyDrop::drop(&mut self.handle) };
        }
    }
}

fn cublas_error(op: &str, e: CublasError) -> GpuError {
    GpuError::Cublas {
        op: op.to_string(),
        message: format!("{:?}", e.0),
    }
}

impl Gpu {
    /// A cuBLAS handle (fails clearly if libcublas cannot be loaded).
    pub fn blas(&self) -> Result<Blas, GpuError> {
        ensure_cublas()?;
        let shared = self.shared().clone();
        shared.bind()?;
        let handle = guard("cublasCreate", || {
            CudaBlas::new(shared.stream.clone()).map_err(|e| cublas_error("cublasCreate", e))
        })?;
        let blas = Blas {
            shared,
            handle: ManuallyDrop::new(handle),
        };
        // The math mode is pinned to plain FP32 (no TF32), whatever the environment says.
        // SAFETY: a live handle.
        let r = unsafe {
            sys::cublasSetMathMode(
                *blas.handle.handle(),
                sys::cublasMath_t::CUBLAS_DEFAULT_MATH,
            )
        };
        r.result()
            .map_err(|e| cublas_error("cublasSetMathMode", e))?;
        Ok(blas)
    }
}

impl Blas {
    /// The handle's math mode (`CUBLAS_DEFAULT_MATH` = 0: FP32, no TF32), for checks.
    pub fn math_mode(&self) -> Result<u32, GpuError> {
        let mut mode = sys::cublasMath_t::CUBLAS_DEFAULT_MATH;
        // SAFETY: a live handle; `mode` is written by the call.
        let r = unsafe { sys::cublasGetMathMode(*self.handle.handle(), &mut mode) };
        r.result()
            .map_err(|e| cublas_error("cublasGetMathMode", e))?;
        Ok(mode as u32)
    }

    /// Row-major `C = A·B` for `n×n` f32 matrices (asynchronous): column-major `Cᵀ = Bᵀ·Aᵀ`.
    pub fn sgemm(
        &self,
        n: usize,
        a: &DeviceBuffer,
        b: &DeviceBuffer,
        c: &mut DeviceBuffer,
    ) -> Result<(), GpuError> {
        let nn = n
            .checked_mul(n)
            .ok_or_else(|| GpuError::BufferMismatch(format!("sgemm: n = {n} overflows")))?;
        for (label, buf) in [("A", a), ("B", b), ("C", &*c)] {
            if buf.elem_type() != ElemType::F32 || buf.len() != nn {
                return Err(GpuError::BufferMismatch(format!(
                    "sgemm: {label} must be {nn} × f32 (n = {n}), it is {} × {}",
                    buf.len(),
                    buf.elem_type()
                )));
            }
        }
        let n_int = c_int::try_from(n).map_err(|_| {
            GpuError::BufferMismatch(format!("sgemm: n = {n} exceeds cuBLAS's int range"))
        })?;
        self.shared.bind()?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        let op = cublasOperation_t::CUBLAS_OP_N;
        // SAFETY: the three buffers hold n×n f32s on this context; alpha/beta live for the call.
        let r = unsafe {
            result::sgemm(
                *self.handle.handle(),
                op,
                op,
                n_int,
                n_int,
                n_int,
                &alpha,
                b.device_ptr() as *const f32,
                n_int,
                a.device_ptr() as *const f32,
                n_int,
                &beta,
                c.device_ptr() as *mut f32,
                n_int,
            )
        };
        r.map_err(|e| {
            let err = cublas_error("cublasSgemm", e);
            if e.0 == sys::cublasStatus_t::CUBLAS_STATUS_EXECUTION_FAILED {
                // A failed kernel may have poisoned the context: check it.
                let _ = self.shared.sync();
            }
            err
        })
    }
}
