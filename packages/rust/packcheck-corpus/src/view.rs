//! The logical view a reader produces (the contract's section 3): per quantized weight `M`, its codes
//! (U8, one per element, as the format stores them) and its dequantized f32 weights, row-major,
//! `[out, in]` (or `[E, out, in]`).

use std::collections::BTreeMap;

/// One module of the view. Either `codes` or `weight` may be absent, not both.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModuleView {
    pub shape: Vec<u64>,
    pub codes: Option<Vec<u8>>,
    pub weight: Option<Vec<f32>>,
}

/// The view of a checkpoint, by module prefix (`blk.0.attn_q`, `model.layers.0.mlp.down_proj`).
pub type LogicalView = BTreeMap<String, ModuleView>;

/// The bytes the pins hash: the f32s little-endian.
pub(crate) fn weight_bytes(w: &[f32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A shape with leading 1s dropped: `[1, 4, 256]` and `[4, 256]` are the same module.
pub(crate) fn squeeze(shape: &[u64]) -> &[u64] {
    let n = shape.iter().take_while(|&&d| d == 1).count();
    &shape[n.min(shape.len().saturating_sub(1))..]
}
