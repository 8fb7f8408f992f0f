//! What a kernel's PTX says about its signature, without a GPU: each `.entry` with its parameter
//! types, its `__launch_bounds__` (`.maxntid`) and the static shared memory it declares. `check`
//! compares these with a spec's variants (a misspelled kernel, a missing argument, an `int` passed
//! to a `float`, a block too large for the target).

/// The kind of one `.param` of an entry, as PTX spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PtxParam {
    /// `.u8/.s8/.b8 … .u64`: an integer (or, at 64 bits, a pointer: PTX does not tell them apart).
    Int { bits: u32 },
    /// `.f16 .f32 .f64`.
    Float { bits: u32 },
    /// `.align A .b8 name[N]`: a struct passed by value, `N` bytes.
    Bytes { len: u32 },
}

impl PtxParam {
    /// `u32`, `f32`, `64-bit integer or pointer`, `16-byte struct`.
    pub fn describe(self) -> String {
        match self {
            PtxParam::Int { bits: 64 } => "a pointer or 64-bit integer".into(),
            PtxParam::Int { bits } => format!("a {bits}-bit integer"),
            PtxParam::Float { bits } => format!("a {bits}-bit float"),
            PtxParam::Bytes { len } => format!("a {len}-byte struct"),
        }
    }
}

/// One kernel (`.entry`) of a PTX module.
#[derive(Debug, Clone, PartialEq)]
pub struct PtxEntry {
    pub name: String,
    pub params: Vec<PtxParam>,
    /// `.maxntid x, y, z` from `__launch_bounds__`: the most threads per block it may launch with.
    pub max_threads: Option<u64>,
    /// Bytes of `.shared` variables the kernel declares (module-scope ones named after it, as NVRTC
    /// writes a `__shared__` array declared inside a kernel: `_ZZ<len><kernel>E<name>`).
    pub static_shared: u64,
}

/// Every `.entry` of `ptx`, in order.
pub fn entries(ptx: &str) -> Vec<PtxEntry> {
    let shared = shared_declarations(ptx);
    let mut out = Vec::new();
    let mut rest = ptx;
    while let Some(at) = rest.find(".entry ") {
        let after = &rest[at + ".entry ".len()..];
        let name_end = after
            .find(|c: char| c == '(' || c.is_whitespace())
            .unwrap_or(after.len());
        let name = after[..name_end].to_string();
        // The parameter list runs to the `)` before the body's `{`.
        let body_at = after.find('{').unwrap_or(after.len());
        let head = &after[..body_at];
        let params = head
            .split(".param")
            .skip(1)
            .filter_map(param_kind)
            .collect();
        let max_threads = head.find(".maxntid").map(|m| {
            head[m + ".maxntid".len()..]
                .split(|c: char| c == '\n' || c == '.')
                .next()
                .unwrap_or_default()
                .split(',')
                .filter_map(|n| n.trim().parse::<u64>().ok())
                .product()
        });
        // Shared variables inside the body, and the module-scope ones NVRTC names after the kernel.
        let body_end = after[body_at..].find("\n}").map_or(after.len(), |e| body_at + e);
        let body_shared: u64 = shared_declarations(&after[body_at..body_end])
            .iter()
            .map(|(_, b)| b)
            .sum();
        let mangled = format!("_ZZ{}{}E", name.len(), name);
        let module_shared: u64 = shared
            .iter()
            .filter(|(n, _)| n.starts_with(&mangled))
            .map(|(_, b)| b)
            .sum();
        out.push(PtxEntry {
            name,
            params,
            max_threads,
            static_shared: body_shared + module_shared,
        });
        rest = &after[body_end.min(after.len())..];
    }
    out
}

/// `.param .u32 name` → Int 32; `.param .align 8 .b8 name[16]` → Bytes 16.
fn param_kind(text: &str) -> Option<PtxParam> {
    let decl = text.split([',', ')']).next()?.trim();
    if let Some(open) = decl.find('[') {
        let len = decl[open + 1..].split(']').next()?.trim().parse().ok()?;
        return Some(PtxParam::Bytes { len });
    }
    let ty = decl.split_whitespace().find(|w| w.starts_with('.'))?;
    let bits: u32 = ty[2..].parse().ok()?;
    match &ty[1..2] {
        "f" => Some(PtxParam::Float { bits }),
        "u" | "s" | "b" => Some(PtxParam::Int { bits }),
        _ => None,
    }
}

/// (name, bytes) of each `.shared` declaration in `text`: `.shared .align 4 .b8 tile[4096];`.
fn shared_declarations(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            let decl = line.strip_prefix(".shared")?.trim_end_matches(';');
            if line.starts_with(".shared .") && decl.contains("extern") {
                return None;
            }
            let words: Vec<&str> = decl.split_whitespace().collect();
            let ty = words.iter().find(|w| {
                w.starts_with(".b") || w.starts_with(".u") || w.starts_with(".s") || w.starts_with(".f")
            })?;
            let elem: u64 = ty[2..].parse::<u64>().ok()? / 8;
            let last = words.last()?;
            let (name, count) = match last.find('[') {
                Some(open) => (
                    &last[..open],
                    last[open + 1..].trim_end_matches(']').parse::<u64>().unwrap_or(0),
                ),
                None => (*last, 1),
            };
            Some((name.to_string(), elem * count))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shaped like NVRTC 13's output for sm_90 (trimmed).
    const PTX: &str = r#"
.version 9.0
.target sm_90
.address_size 64

	// .globl	scale
// _ZZ9transposeE4tile has been demoted
.shared .align 4 .b8 _ZZ9transposeE4tile[4224];

.visible .entry scale(
	.param .u64 scale_param_0,
	.param .u64 scale_param_1,
	.param .f32 scale_param_2,
	.param .u32 scale_param_3
)
{
	.reg .b32 	%r<5>;
	ret;
}

.visible .entry transpose(
	.param .u64 transpose_param_0,
	.param .align 8 .b8 transpose_param_1[16]
)
.maxntid 32, 8, 1
{
	.reg .b32 	%r<5>;
	ret;
}
"#;

    #[test]
    fn reads_each_entry_with_params_launch_bounds_and_shared_memory() {
        let e = entries(PTX);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].name, "scale");
        assert_eq!(
            e[0].params,
            [
                PtxParam::Int { bits: 64 },
                PtxParam::Int { bits: 64 },
                PtxParam::Float { bits: 32 },
                PtxParam::Int { bits: 32 }
            ]
        );
        assert_eq!(e[0].max_threads, None);
        assert_eq!(e[0].static_shared, 0);
        assert_eq!(e[1].name, "transpose");
        assert_eq!(e[1].params[1], PtxParam::Bytes { len: 16 });
        assert_eq!(e[1].max_threads, Some(256));
        assert_eq!(e[1].static_shared, 4224);
    }
}
