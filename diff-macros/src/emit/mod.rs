//! Emission: Rust tokens for the companions of a differentiable function.
pub mod companion;
pub mod differential;
pub mod dual;
pub mod fields;
pub mod names;
pub mod primal;
pub mod pullback;

/// Which captures of a nested operator's closure carry derivatives (`Capture::kept`
/// active): the derivatives take the closure's gradient in those too.
pub fn active_captures(
    act: &crate::analysis::activity::Activity,
    n: &crate::ir::Nested,
) -> Vec<bool> {
    n.captures.iter().map(|c| act.is_active(c.kept)).collect()
}
