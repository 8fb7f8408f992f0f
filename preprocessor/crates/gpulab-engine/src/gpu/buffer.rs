//! Typed device buffers: allocate, upload/download `HostData`, fill (poison), raw pointer for kernel args.

use super::error::GpuError;
use super::session::Gpu;
use super::shared::Shared;
use crate::host_data::{ElemType, HostData, each};
use cudarc::driver::sys::{CUdeviceptr, CUresult};
use cudarc::driver::{CudaSlice, DevicePtrMut, result};
use std::sync::Arc;

/// A device array of one element type.
#[derive(Debug)]
pub struct DeviceBuffer {
    shared: Arc<Shared>,
    ty: ElemType,
    len: usize,
    ptr: CUdeviceptr,
    /// Owns the allocation (freed stream-ordered on drop).
    _mem: CudaSlice<u8>,
}

impl Gpu {
    /// A buffer of `len` uninitialised elements of type `ty`.
    pub fn alloc(&self, ty: ElemType, len: usize) -> Result<DeviceBuffer, GpuError> {
        let shared = self.shared();
        shared.bind()?;
        let bytes = len.checked_mul(ty.size_of()).ok_or_else(|| {
            GpuError::BufferMismatch(format!("{len} elements of {ty} overflow the address space"))
        })?;
        // Zero-length buffers still get a real (tiny) allocation, so their pointer is valid.
        let alloc_bytes = bytes.max(8);
        // SAFETY: uninitialised memory of a plain byte type.
        let mut mem = match unsafe { shared.stream.alloc::<u8>(alloc_bytes) } {
            Ok(mem) => mem,
            Err(e) if e.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY => {
                let (free, total) = result::mem_get_info().unwrap_or((0, 0));
                return Err(GpuError::OutOfMemory { bytes, free, total });
            }
            Err(e) => {
                return Err(shared
                    .call::<()>("allocating device memory", Err(e))
                    .unwrap_err());
            }
        };
        let ptr = {
            let (ptr, _sync) = mem.device_ptr_mut(&shared.stream);
            ptr
        };
        Ok(DeviceBuffer {
            shared: shared.clone(),
            ty,
            len,
            ptr,
            _mem: mem,
        })
    }

    /// A new buffer holding a copy of `data`.
    pub fn upload(&self, data: &HostData) -> Result<DeviceBuffer, GpuError> {
        let mut buf = self.alloc(data.elem_type(), data.len())?;
        buf.upload(data)?;
        Ok(buf)
    }
}

impl DeviceBuffer {
    pub fn elem_type(&self) -> ElemType {
        self.ty
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn size_bytes(&self) -> usize {
        self.len * self.ty.size_of()
    }

    /// The raw device address (for `KernelArg::U64`, or pointer arithmetic in args).
    pub(crate) fn device_ptr(&self) -> u64 {
        self.ptr
    }

    fn check(&self, data: &HostData, what: &str) -> Result<(), GpuError> {
        if data.elem_type() != self.ty || data.len() != self.len {
            return Err(GpuError::BufferMismatch(format!(
                "cannot {what}: device buffer is {} × {}, host data is {} × {}",
                self.len,
                self.ty,
                data.len(),
                data.elem_type()
            )));
        }
        Ok(())
    }

    /// Copies `data` (same type and length) to the device; returns once `data` may be reused.
    pub fn upload(&mut self, data: &HostData) -> Result<(), GpuError> {
        self.check(data, "upload")?;
        self.shared.bind()?;
        if self.len == 0 {
            return Ok(());
        }
        let stream = self.shared.stream.cu_stream();
        // SAFETY: the allocation holds `len` elements; pageable-memory copies are staged before return.
        let r =
            unsafe { each!(data, v => result::memcpy_htod_async(self.ptr, v.as_slice(), stream)) };
        self.shared.call("copying to the device", r)
    }

    /// Waits for queued work, then copies the buffer to a new `HostData`.
    pub fn download(&self) -> Result<HostData, GpuError> {
        let mut out = HostData::zeros(self.ty, self.len);
        self.download_into(&mut out)?;
        Ok(out)
    }

    /// Waits for queued work, then copies the buffer into `out` (same type and length).
    pub(crate) fn download_into(&self, out: &mut HostData) -> Result<(), GpuError> {
        self.check(out, "download")?;
        // Surfaces a kernel fault as a launch error before the copy.
        self.shared.sync()?;
        if self.len == 0 {
            return Ok(());
        }
        let stream = self.shared.stream.cu_stream();
        // SAFETY: `out` has `len` elements and is not touched until the stream is synchronised below.
        let r = unsafe {
            each!(out, v => result::memcpy_dtoh_async(v.as_mut_slice(), self.ptr, stream))
        };
        self.shared.call("copying from the device", r)?;
        self.shared.sync()
    }

    /// Sets every byte to `value` (stream-ordered, asynchronous).
    pub(crate) fn fill_bytes(&mut self, value: u8) -> Result<(), GpuError> {
        self.shared.bind()?;
        if self.len == 0 {
            return Ok(());
        }
        // SAFETY: the allocation holds `size_bytes()` bytes.
        let r = unsafe {
            result::memset_d8_async(
                self.ptr,
                value,
                self.size_bytes(),
                self.shared.stream.cu_stream(),
            )
        };
        self.shared.call("cuMemsetD8Async", r)
    }

    /// Poisons the buffer with 0xFF bytes: NaN for floats, -1 / u32::MAX for integers.
    pub fn poison(&mut self) -> Result<(), GpuError> {
        self.fill_bytes(0xFF)
    }

    /// Sets every element to zero.
    pub fn zero(&mut self) -> Result<(), GpuError> {
        self.fill_bytes(0)
    }

    /// Copies `src` (same type and length) into this buffer on the device.
    pub(crate) fn copy_from(&mut self, src: &DeviceBuffer) -> Result<(), GpuError> {
        if src.ty != self.ty || src.len != self.len {
            return Err(GpuError::BufferMismatch(format!(
                "cannot copy {} × {} into {} × {}",
                src.len, src.ty, self.len, self.ty
            )));
        }
        self.shared.bind()?;
        if self.len == 0 {
            return Ok(());
        }
        // SAFETY: both allocations hold `size_bytes()` bytes.
        let r = unsafe {
            result::memcpy_dtod_async(
                self.ptr,
                src.ptr,
                self.size_bytes(),
                self.shared.stream.cu_stream(),
            )
        };
        self.shared.call("cuMemcpyDtoDAsync", r)
    }
}
