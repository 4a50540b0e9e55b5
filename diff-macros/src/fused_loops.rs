//! Reduction loops, differentiated in one pass. A loop whose only value carrying a
//! derivative from one iteration to the next is a sum (`s += term`, `s = s + a - b`),
//! read by nothing else in the body, passes the same adjoint to every iteration: the
//! sum's adjoint after the loop. Since a pullback is linear in its seed, the forward pass
//! can run each iteration's pullback at once, for the seed 1, adding into adjoints of the
//! values from outside the loop (the elements of `x` for `x[i]`); the loop's linear map
//! is those adjoints instead of a tape, and its pullback scales them by the seed it gets.
//! No tape is written or read, and the loop is the hand-written gradient's loop, which
//! the compiler can vectorize.
//!
//! Only loops outside every other loop are fused: a fused loop's linear map holds whole
//! adjoints (a `Vec` as long as `x`), which a loop run once per outer iteration would
//! allocate and scale each time. And only in reverse mode at first order, in functions
//! written for `f64` or `f32`: the seed scales as a float, where a function generic over
//! its float runs on dual numbers for second order. See docs/ARCHITECTURE.md, "Reduction
//! loops".
use crate::analysis::activity::Activity;
use crate::emit::names;
use crate::ir::{BinOp, Function, Inst, RegionId, Stmt, Value};
use crate::linear_map::regions_within;
use proc_macro2::{Ident, TokenStream, TokenTree};

/// For a loop statement that is a fused reduction, the index of its sum among the
/// carried values.
pub fn fused_sum(func: &Function, act: &Activity, stmt: &Stmt) -> Option<usize> {
    let Inst::For { init, body, .. } = &stmt.inst else {
        return None;
    };
    if func.generic_scalar {
        return None;
    }
    let (at, _) = func.position(*stmt.results.first()?);
    if in_a_loop(func, RegionId(at)) {
        return None;
    }
    let region = func.region(*body);
    let carried: Vec<usize> = (0..init.len())
        .filter(|i| act.is_active(stmt.results[*i]) || act.is_active(region.params[*i]))
        .collect();
    let [k] = carried[..] else {
        return None;
    };
    let nested_loop = regions_within(func, *body).iter().any(|r| {
        func.region(*r)
            .stmts
            .iter()
            .any(|s| matches!(s.inst, Inst::For { .. }))
    });
    let (param, sum) = (region.params[k], region.yields[k]);
    let fused = act.is_active(stmt.results[k])
        && !nested_loop
        && one_element_each(func, act, *body)
        && func.uses(param) == 1
        && func.uses(sum) == 1
        && adds(func, *body, sum, param);
    fused.then_some(k)
}

/// Whether `v` is `param` plus or minus other terms, through sums defined in `body` and
/// read once (`(param + a) - b`): its adjoint reaches `param` unchanged.
fn adds(func: &Function, body: RegionId, v: Value, param: Value) -> bool {
    if v == param {
        return true;
    }
    if func.position(v).0 != body.0 || func.uses(v) != 1 {
        return false;
    }
    match func.def_inst(v) {
        Some(Inst::Binary(BinOp::Add, a, b)) => {
            adds(func, body, *a, param) || adds(func, body, *b, param)
        }
        Some(Inst::Binary(BinOp::Sub, a, _)) => adds(func, body, *a, param),
        _ => false,
    }
}

/// Whether each iteration of loop `body` reads at most one element (one index value) of
/// each collection from outside the loop whose adjoint it adds into. Rosenbrock's `x[i]`
/// and `x[i + 1]` would add into two neighbouring elements each iteration, the next
/// iteration reading one of them back from memory: measured three times slower than the
/// tape's reverse loop, so such a loop keeps its tape.
fn one_element_each(func: &Function, act: &Activity, body: RegionId) -> bool {
    let inside = regions_within(func, body);
    let mut read: Vec<(Value, Value)> = Vec::new();
    for r in &inside {
        for s in &func.region(*r).stmts {
            if let Inst::Index(base, i) = s.inst {
                let root = names::adjoint_root(func, base);
                let outer = !inside.contains(&RegionId(func.position(root).0));
                if outer && act.is_active(root) && !read.contains(&(root, i)) {
                    if read.iter().any(|(b, _)| *b == root) {
                        return false;
                    }
                    read.push((root, i));
                }
            }
        }
    }
    true
}

/// Whether region `r` is a loop's body or nested in one.
fn in_a_loop(func: &Function, r: RegionId) -> bool {
    func.regions.iter().any(|region| {
        region.stmts.iter().any(|s| match s.inst {
            Inst::For { body, .. } => regions_within(func, body).contains(&r),
            _ => false,
        })
    })
}

/// The values from outside loop `body` whose adjoints its pullback `code` adds into
/// (each by the value that owns the slot, `names::adjoint_root`), in a fixed order.
pub fn outer_adjoints(
    func: &Function,
    act: &Activity,
    body: RegionId,
    code: &TokenStream,
) -> Vec<Value> {
    let inside = regions_within(func, body);
    let outside = |v: &Value| !inside.contains(&RegionId(func.position(*v).0));
    let mut out: Vec<Value> = Vec::new();
    for r in &inside {
        let region = func.region(*r);
        let read = region.stmts.iter().flat_map(|s| s.inst.operands());
        for v in read.chain(region.yields.iter().copied()) {
            let root = names::adjoint_root(func, v);
            if act.is_active(root)
                && outside(&root)
                && !out.contains(&root)
                && mentions(code, &names::adjoint(func, root))
            {
                out.push(root);
            }
        }
    }
    out.sort();
    out
}

/// Whether `code` names `id`.
fn mentions(code: &TokenStream, id: &Ident) -> bool {
    code.clone().into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == *id,
        TokenTree::Group(g) => mentions(&g.stream(), id),
        _ => false,
    })
}
