//! The launch sequence of a kernel variant at one point: one launch, several (`[[variant.launch]]`),
//! a host loop of launches, or multi-pass ping-pong passes (reduction).

use super::resolve::{self, Arg, Scalar};
use crate::expr::Num;
use crate::gpu::{DeviceBuffer, Gpu, GpuError, Kernel, KernelArg};
use crate::spec::Variant;
use std::collections::{BTreeMap, HashMap};

/// Errors while resolving or launching a sequence.
#[derive(Debug, thiserror::Error)]
pub enum SequenceError {
    #[error(transparent)]
    Resolve(#[from] resolve::ResolveError),
    #[error(transparent)]
    Gpu(#[from] GpuError),
    #[error("kernel argument names buffer `{0}`, which does not exist")]
    NoBuffer(String),
    #[error("launch {0} names a kernel that was not loaded")]
    NoKernel(usize),
}

/// A launch as scripts see it: kernel, grid, block, dynamic shared bytes, arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchDescription {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared: u32,
    pub args: Vec<Arg>,
}

/// One launch, fully resolved.
struct Resolved {
    /// Its kernel: an index into `Sequence::kernels`.
    kernel: usize,
    grid: [u32; 3],
    block: [u32; 3],
    shared: u32,
    args: Vec<Arg>,
    pass_in: Option<String>,
    pass_out: Option<String>,
}

/// A variant's launches at a point, resolved once and replayed for every sample.
pub struct Sequence {
    /// The kernel of each of the variant's launches, in the spec's order.
    kernels: Vec<String>,
    launches: Vec<Resolved>,
}

impl Sequence {
    /// Resolves every launch of `variant` at `vars`.
    pub fn plan(variant: &Variant, vars: &HashMap<String, Num>) -> Result<Sequence, SequenceError> {
        let mut launches = Vec::new();
        let one = |kernel: usize,
                   vars: &HashMap<String, Num>,
                   pass: Option<(String, String)>|
         -> Result<Resolved, SequenceError> {
            let spec = variant
                .launches
                .get(kernel)
                .ok_or(SequenceError::NoKernel(kernel))?;
            let (grid, block, shared) = resolve::dims(&variant.name, spec, vars)?;
            let args = resolve::args(&variant.name, spec, vars)?;
            let (pass_in, pass_out) = pass
                .map(|(a, b)| (Some(a), Some(b)))
                .unwrap_or((None, None));
            Ok(Resolved {
                kernel,
                grid,
                block,
                shared,
                args,
                pass_in,
                pass_out,
            })
        };
        if let Some(l) = &variant.loop_ {
            let count = l.count.eval(vars).map_err(|e| resolve::ResolveError {
                variant: variant.name.clone(),
                message: format!("loop count: {e}"),
            })?;
            let count = count.as_i64().unwrap_or(0).max(0);
            let mut v = vars.clone();
            for i in 0..count {
                v.insert(l.var.clone(), Num::Int(i));
                launches.push(one(0, &v, None)?);
            }
        } else if let Some(p) = &variant.passes {
            let err = |m: String| resolve::ResolveError {
                variant: variant.name.clone(),
                message: m,
            };
            let mut count = p
                .count
                .eval(vars)
                .map_err(|e| err(format!("passes.count: {e}")))?
                .as_i64()
                .unwrap_or(0);
            let mut v = vars.clone();
            let mut input = p.input.clone();
            let mut k = 0;
            // Each pass reduces `count` elements to `next`, the last straight into `result`.
            loop {
                v.insert("count".into(), Num::Int(count));
                let next = p
                    .next
                    .eval(&v)
                    .map_err(|e| err(format!("passes.next: {e}")))?
                    .as_i64()
                    .unwrap_or(0);
                if next >= count && count > 1 {
                    return Err(
                        err(format!("passes.next({count}) = {next} does not shrink")).into(),
                    );
                }
                let output = if next <= 1 {
                    p.result.clone()
                } else {
                    p.scratch[k % 2].clone()
                };
                launches.push(one(0, &v, Some((input.clone(), output.clone())))?);
                if next <= 1 || launches.len() > 64 {
                    break;
                }
                input = output;
                count = next;
                k += 1;
            }
        } else {
            for kernel in 0..variant.launches.len() {
                launches.push(one(kernel, vars, None)?);
            }
        }
        let kernels = variant.launches.iter().map(|l| l.kernel.clone()).collect();
        Ok(Sequence { kernels, launches })
    }

    /// The kernels to load, in order: `launch` takes them as loaded, in this order.
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    pub fn len(&self) -> usize {
        self.launches.len()
    }

    /// Each launch with its kernel named and its pass buffers named (for scripts).
    pub fn describe(&self) -> Vec<LaunchDescription> {
        self.launches
            .iter()
            .map(|l| LaunchDescription {
                kernel: self.kernels.get(l.kernel).cloned().unwrap_or_default(),
                grid: l.grid,
                block: l.block,
                shared: l.shared,
                args: l
                    .args
                    .iter()
                    .map(|a| match a {
                        Arg::PassIn => Arg::Buffer(l.pass_in.clone().unwrap_or_default()),
                        Arg::PassOut => Arg::Buffer(l.pass_out.clone().unwrap_or_default()),
                        other => other.clone(),
                    })
                    .collect(),
            })
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.launches.is_empty()
    }

    /// The block size and dynamic shared memory of the first launch (for attributes).
    pub(crate) fn first_config(&self) -> ([u32; 3], u32) {
        self.launches
            .first()
            .map(|l| (l.block, l.shared))
            .unwrap_or(([1, 1, 1], 0))
    }

    /// Queues every launch (asynchronous); `kernels` are [`Sequence::kernels`], loaded.
    pub fn launch(
        &self,
        gpu: &Gpu,
        kernels: &[Kernel],
        buffers: &BTreeMap<String, DeviceBuffer>,
    ) -> Result<(), SequenceError> {
        for (i, l) in self.launches.iter().enumerate() {
            let kernel = kernels.get(l.kernel).ok_or(SequenceError::NoKernel(i))?;
            let mut args = Vec::with_capacity(l.args.len());
            for a in &l.args {
                let buf = |name: &str| {
                    buffers
                        .get(name)
                        .ok_or_else(|| SequenceError::NoBuffer(name.to_string()))
                };
                args.push(match a {
                    Arg::Buffer(b) => KernelArg::Buffer(buf(b)?),
                    Arg::PassIn => KernelArg::Buffer(buf(l.pass_in.as_deref().unwrap_or(""))?),
                    Arg::PassOut => KernelArg::Buffer(buf(l.pass_out.as_deref().unwrap_or(""))?),
                    Arg::Scalar(Scalar::I8(v)) => KernelArg::U8(*v as u8),
                    Arg::Scalar(Scalar::U8(v)) => KernelArg::U8(*v),
                    Arg::Scalar(Scalar::I16(v)) => KernelArg::U16(*v as u16),
                    Arg::Scalar(Scalar::U16(v)) => KernelArg::U16(*v),
                    Arg::Scalar(Scalar::I32(v)) => KernelArg::I32(*v),
                    Arg::Scalar(Scalar::U32(v)) => KernelArg::U32(*v),
                    Arg::Scalar(Scalar::I64(v)) => KernelArg::I64(*v),
                    Arg::Scalar(Scalar::U64(v)) => KernelArg::U64(*v),
                    // `__half` / `__nv_bfloat16` are passed as their 16 bits.
                    Arg::Scalar(Scalar::F16(v)) => KernelArg::U16(v.to_bits()),
                    Arg::Scalar(Scalar::BF16(v)) => KernelArg::U16(v.to_bits()),
                    Arg::Scalar(Scalar::F32(v)) => KernelArg::F32(*v),
                    Arg::Scalar(Scalar::F64(v)) => KernelArg::F64(*v),
                });
            }
            gpu.launch(kernel, l.grid, l.block, l.shared, &args)?;
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "sequence_tests.rs"]
mod tests;
