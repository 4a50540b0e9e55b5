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
    let walk = SumWalk {
        func,
        inside: regions_within(func, *body),
        param,
        reached: Vec::new(),
        added: false,
    };
    // The seed scales as a float: a sum of a type of the crate's with operators (`p += q`
    // of a `V`) keeps its tape.
    let float = func.no_arithmetic_of_its_own || evidently_float(func, init[k]);
    let fused = act.is_active(stmt.results[k])
        && float
        && !nested_loop
        && one_element_each(func, act, *body)
        && func.uses(sum) == 1
        && walk.only_adds(sum);
    fused.then_some(k)
}

/// Whether `v` is a float by its definition: a float literal (`0.0`, `-0.0`), a float's
/// zero (`<f64 as Zero>::zero()`, as a chain's `sum` starts), a conversion to a float.
fn evidently_float(func: &Function, v: Value) -> bool {
    match func.def_inst(v) {
        Some(Inst::Const(t)) => syn::parse2::<syn::LitFloat>(t.clone()).is_ok(),
        Some(Inst::Neg(a)) => evidently_float(func, *a),
        Some(Inst::Cast(..)) => true,
        Some(Inst::Call(crate::ir::Callee::Path(p), args)) if args.is_empty() => {
            let path = quote::quote!(#p).to_string();
            (path.contains("f64") || path.contains("f32")) && path.ends_with("zero")
        }
        _ => false,
    }
}

/// The walk from a reduction loop's yielded sum back to its parameter: whether the sum
/// is the parameter plus or minus other terms, through sums defined in the loop's body
/// (`(param + a) - b`) and through the branches of an `if` or `match` each of which
/// yields such a sum (`if c { s += a } else { s -= b }`, or `s` itself where a branch
/// `break`s), so that its adjoint reaches the parameter unchanged.
struct SumWalk<'a> {
    func: &'a Function,
    /// The regions of the loop's body.
    inside: Vec<RegionId>,
    /// The loop's carried parameter.
    param: Value,
    /// The values on the way, once per read (a value two branches yield, twice).
    reached: Vec<Value>,
    /// Whether the way adds or subtracts anything (a value only passed on is no sum).
    added: bool,
}

impl SumWalk<'_> {
    /// Whether `sum` adds to the parameter, and nothing but the way reads the values on
    /// it.
    fn only_adds(mut self, sum: Value) -> bool {
        self.adds(sum)
            && self.added
            && self
                .reached
                .iter()
                .all(|v| self.func.uses(*v) == self.reached.iter().filter(|u| *u == v).count())
    }

    /// Whether `v` adds to the parameter; the values on the way are kept where it does.
    fn adds(&mut self, v: Value) -> bool {
        let before = self.reached.len();
        let sum = self.adds_through(v);
        if !sum {
            self.reached.truncate(before);
        }
        sum
    }

    fn adds_through(&mut self, v: Value) -> bool {
        // A value reached before (yielded by two branches) adds as it did then.
        let again = self.reached.contains(&v);
        self.reached.push(v);
        if v == self.param || again {
            return true;
        }
        let func = self.func;
        if !self.inside.contains(&RegionId(func.position(v).0)) {
            return false;
        }
        let Some(stmt) = func.def(v) else {
            return false;
        };
        match &stmt.inst {
            Inst::Binary(BinOp::Add, a, b) => {
                self.added = true;
                self.adds(*a) || self.adds(*b)
            }
            Inst::Binary(BinOp::Sub, a, _) => {
                self.added = true;
                self.adds(*a)
            }
            inst @ (Inst::If { .. } | Inst::Match { .. }) => {
                let Some(j) = stmt.results.iter().position(|r| *r == v) else {
                    return false;
                };
                inst.regions()
                    .iter()
                    .all(|r| func.region(*r).yields.get(j).is_some_and(|y| self.adds(*y)))
            }
            _ => false,
        }
    }
}

/// Whether each iteration of loop `body` reads, of each collection from outside the loop
/// whose adjoint it adds into, one element (one index value) or a [`Window`] of them.
/// Other neighbouring reads would add into several elements each iteration, the next
/// iteration reading them back from memory: measured three times slower than the tape's
/// reverse loop, so such a loop keeps its tape.
fn one_element_each(func: &Function, act: &Activity, body: RegionId) -> bool {
    let windowed: Vec<Value> = windows(func, act, body).iter().map(|w| w.root).collect();
    outer_reads(func, act, body)
        .iter()
        .all(|(root, reads)| windowed.contains(root) || reads.iter().all(|(_, i)| *i == reads[0].1))
}

/// The elements of active collections from outside loop `body` that it reads (in it or
/// in a region nested in it): per collection (its adjoint root), each read's base and
/// index.
fn outer_reads(
    func: &Function,
    act: &Activity,
    body: RegionId,
) -> Vec<(Value, Vec<(Value, Value)>)> {
    let inside = regions_within(func, body);
    let mut out: Vec<(Value, Vec<(Value, Value)>)> = Vec::new();
    for r in &inside {
        for s in &func.region(*r).stmts {
            if let Inst::Index(base, i) = s.inst {
                let root = names::adjoint_root(func, base);
                let outer = !inside.contains(&RegionId(func.position(root).0));
                if !outer || !act.is_active(root) {
                    continue;
                }
                match out.iter_mut().find(|(r, _)| *r == root) {
                    Some((_, reads)) => reads.push((base, i)),
                    None => out.push((root, vec![(base, i)])),
                }
            }
        }
    }
    out
}

/// The widest window a reduction loop keeps in locals.
const WIDEST_WINDOW: i64 = 8;

/// A collection from outside a reduction loop over a range whose body reads its elements
/// only at the loop's index plus constants (`x[i]`, `x[i + 1]`, `x[i - 1]`: Rosenbrock,
/// differences of neighbours). Their adjoints are summed in locals, one per offset, that
/// slide with the index: at the end of an iteration the lowest is final (no later
/// iteration reads that element) and is added into the collection's adjoint, the others
/// move down one. What the hand-written gradient keeps in registers; added in place at
/// each iteration, every element's sum would go through memory, a store and a load on
/// the loop's critical path.
pub struct Window {
    /// The collection (the value owning the adjoint slot).
    pub root: Value,
    /// Each read: its base (the collection or a borrow of it), its index value, and that
    /// index's offset from the loop's.
    pub reads: Vec<(Value, Value, i64)>,
    /// The lowest and highest offsets.
    pub low: i64,
    /// See `low`.
    pub high: i64,
    /// The loop's index (the body's item parameter).
    pub index: Value,
}

/// The [`Window`]s of loop `body`: collections it reads at two or more offsets of its
/// index, and at nothing else.
pub fn windows(func: &Function, act: &Activity, body: RegionId) -> Vec<Window> {
    let Some(index) = range_index(func, body) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (root, reads) in outer_reads(func, act, body) {
        let offsets: Option<Vec<(Value, Value, i64)>> = reads
            .iter()
            .map(|(b, i)| offset(func, *i, index).map(|o| (*b, *i, o)))
            .collect();
        let Some(reads) = offsets else { continue };
        let low = reads.iter().map(|r| r.2).min().unwrap_or(0);
        let high = reads.iter().map(|r| r.2).max().unwrap_or(0);
        if low < high && high - low < WIDEST_WINDOW {
            out.push(Window {
                root,
                reads,
                low,
                high,
                index,
            });
        }
    }
    out
}

/// The item of loop `body` when the loop runs over a range (`a..b`, `a..=b`): its index,
/// one more at each iteration.
fn range_index(func: &Function, body: RegionId) -> Option<Value> {
    let Inst::For { iter, init, .. } = &func.loop_of(body)?.inst else {
        return None;
    };
    let range = matches!(func.def_inst(*iter), Some(Inst::Opaque(o)) if o.what == "range");
    range.then(|| func.region(body).params.get(init.len()).copied())?
}

/// `idx - index` when `idx` is `index`, `index + c`, `c + index` or `index - c` with `c`
/// an integer literal.
fn offset(func: &Function, idx: Value, index: Value) -> Option<i64> {
    let literal =
        |v: Value| crate::ir::integer_literal(func, v).filter(|c| c.abs() < WIDEST_WINDOW);
    if idx == index {
        return Some(0);
    }
    match func.def_inst(idx)? {
        Inst::Binary(BinOp::Add, a, b) if *a == index => literal(*b),
        Inst::Binary(BinOp::Add, a, b) if *b == index => literal(*a),
        Inst::Binary(BinOp::Sub, a, b) if *a == index => literal(*b).map(|c| -c),
        _ => None,
    }
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
