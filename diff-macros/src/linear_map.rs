//! Linear map info: what each region's pullback (or differential) struct holds, and the
//! predecessor enums at joins (docs/ARCHITECTURE.md, "Activity, linear maps and
//! emission"). Fields are generic type parameters, so rustc infers their types.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Mode};
use crate::ir::{BinOp, Function, Inst, RegionId, Value};
use crate::linearization::rule;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashMap;

/// One field of a region's struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Saved {
    /// A primal value the derivative rules read.
    Value(Value),
    /// The callee pullback/differential of the call defining this value.
    Callee(Value),
    /// The predecessor enum value of the `if` whose then-region this is.
    Pred(RegionId),
    /// The tape of the loop whose body this is; for a loop nested in another, the number
    /// of iterations this run left on its [`Saved::Stack`].
    Tape(RegionId),
    /// The tapes of all runs of a nested loop (whose body this is), one after another:
    /// held by the entry's struct, so that a run of the loop does not allocate its own.
    Stack(RegionId),
    /// The shape of a value (a collection's length), enough to build its zero tangent.
    Shape(Value),
    /// A zero-sized marker of a value's tangent type.
    Marker(Value),
    /// Where a copy of a vector starts in its [`Saved::Copies`]: the copy is taken where
    /// the vector is made, and the linear maps of loops nested two deep below read its
    /// elements instead of saving each read.
    Copy(Value),
    /// The copies of a vector (every version of it, one after another), held by the
    /// entry's struct.
    Copies(Value),
}

impl Saved {
    /// The field's (and the local's) name.
    pub fn ident(self, func: &Function, mode: Mode) -> Ident {
        match self {
            Saved::Value(v) => names::value(func, v),
            Saved::Callee(v) => names::handle(func, v, mode),
            Saved::Pred(r) => names::pred(r),
            Saved::Tape(r) => names::tape(r),
            Saved::Stack(r) => names::stack(r),
            Saved::Shape(v) => names::shape(func, v),
            Saved::Marker(v) => names::marker(func, v),
            Saved::Copy(v) => names::copy(func, v),
            Saved::Copies(v) => names::copies(func, v),
        }
    }
}

/// A value a linear map reads that is computed again from other saved values instead of
/// being saved itself: nothing is saved twice, and what one cheap operation rebuilds
/// is not saved at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Derived {
    /// The same place read again (`x[i]` read twice): the saved copy of the first read.
    Alias(Value),
    /// `a op b` of saved values or constants.
    Binary(BinOp, Value, Value),
    /// `-a` of a saved value or constant.
    Neg(Value),
    /// The variable of a loop over a range `start..end`: `start` plus the iteration's
    /// position on the tape.
    LoopIndex(Value),
    /// An element of an array parameter that is never updated, saved whole on entry.
    Index(Value, Value),
    /// An element of a vector's [`Saved::Copy`].
    IndexCopy(Value, Value),
}

/// What every region's linear map holds, computed once per function from the rules'
/// reads (`linearization.rs`). The emitters only read it.
#[derive(Clone, Debug, Default)]
pub struct LinearMaps {
    /// Per region (indexed by id): the fields of its struct.
    saved: Vec<Vec<Saved>>,
    /// Per region: the constants its rules read, evaluated again instead of saved.
    constants: Vec<Vec<(Value, TokenStream)>>,
    /// Per region, in order of definition: the values its rules read that are computed
    /// again from saved values and constants (after the constants).
    derived: Vec<Vec<(Value, Derived)>>,
    /// Every shape, marker and value saved anywhere.
    parts: Vec<Saved>,
    /// The bodies of the loops nested in other loops, whose tapes are on a stack.
    stacked: Vec<RegionId>,
    /// The vectors whose copies the linear maps read ([`Saved::Copies`]).
    copies: Vec<Value>,
}

impl LinearMaps {
    /// Collects every active statement's reads into the region defining what is read: a
    /// value is saved once, where it is defined, so a loop-invariant value is not copied
    /// onto the tape at every iteration.
    pub fn analyze(func: &Function, act: &Activity) -> LinearMaps {
        let n = func.regions.len();
        let mut defined_in = HashMap::new();
        for (i, region) in func.regions.iter().enumerate() {
            let r = RegionId(i as u32);
            let defined = region
                .params
                .iter()
                .chain(region.stmts.iter().flat_map(|s| s.results.iter()));
            for v in defined {
                defined_in.insert(*v, r);
            }
        }
        let mut needed: Vec<Vec<Saved>> = vec![Vec::new(); n];
        for q in all_regions(func) {
            for stmt in &func.region(q).stmts {
                if !stmt.results.iter().any(|v| act.is_active(*v)) {
                    continue;
                }
                let Some(rule) = rule(stmt) else { continue };
                for read in rule.reads(func, stmt, act) {
                    let home = match read {
                        Saved::Value(v)
                        | Saved::Callee(v)
                        | Saved::Shape(v)
                        | Saved::Marker(v)
                        | Saved::Copy(v)
                        | Saved::Copies(v) => defined_in.get(&v).copied(),
                        Saved::Pred(_) | Saved::Tape(_) | Saved::Stack(_) => Some(q),
                    };
                    if let Some(home) = home {
                        let list = &mut needed[home.0 as usize];
                        if !list.contains(&read) {
                            list.push(read);
                        }
                    }
                }
            }
        }
        let mut maps = LinearMaps {
            saved: vec![Vec::new(); n],
            constants: vec![Vec::new(); n],
            derived: vec![Vec::new(); n],
            parts: Vec::new(),
            stacked: Vec::new(),
            copies: Vec::new(),
        };
        // The variable of a loop over a range is not saved: it is the range's start plus
        // the position on the tape, and the start is saved (or recomputed) once instead.
        // So is a counter the loop carries and adds one to at every iteration (`li += 1`):
        // its value on entry plus the position.
        // (value, start, whether the rules read the value itself) per loop body.
        let mut loop_index: Vec<Vec<(Value, Value, bool)>> = vec![Vec::new(); n];
        for q in all_regions(func) {
            for stmt in &func.region(q).stmts {
                let Inst::For {
                    iter, init, body, ..
                } = &stmt.inst
                else {
                    continue;
                };
                let region = func.region(*body);
                let mut counted: Vec<(Value, Value)> = (0..init.len())
                    .filter(|i| counts_up(func, region.params[*i], region.yields[*i]))
                    .map(|i| (region.params[i], init[i]))
                    .collect();
                if let Some(start) = range_start(func, *iter) {
                    counted.push((region.params[init.len()], start));
                }
                let b = body.0 as usize;
                for (item, start) in counted {
                    let read = needed[b].iter().position(|s| *s == Saved::Value(item));
                    if let Some(pos) = read {
                        needed[b].remove(pos);
                    } else if constant(func, start).is_none() {
                        // Only read through other values: not worth saving the start for.
                        continue;
                    }
                    loop_index[b].push((item, start, read.is_some()));
                    if let Some(home) = defined_in.get(&start) {
                        let list = &mut needed[home.0 as usize];
                        if !list.contains(&Saved::Value(start)) {
                            list.push(Saved::Value(start));
                        }
                    }
                }
            }
        }
        // An element of an array parameter that is never updated, read inside a loop or
        // a branch, is read from the array saved once on entry instead.
        let entry = func.entry().0 as usize;
        let arrays = constant_arrays(func);
        for r in 0..n {
            if r == entry {
                continue;
            }
            for read in needed[r].clone() {
                let Saved::Value(v) = read else { continue };
                if let Some(Inst::Index(b, _)) = func.def_inst(v) {
                    if arrays.contains(b) && !needed[entry].contains(&Saved::Value(*b)) {
                        needed[entry].push(Saved::Value(*b));
                    }
                }
            }
        }
        // Which regions run once per iteration of some loop: only there is a value saved
        // on a tape, and worth an operation to rebuild.
        let mut in_loop = vec![false; n];
        for q in all_regions(func) {
            for stmt in &func.region(q).stmts {
                let looped = in_loop[q.0 as usize] || matches!(stmt.inst, Inst::For { .. });
                for sub in stmt.inst.regions() {
                    in_loop[sub.0 as usize] = looped;
                }
            }
        }
        // Integer parameters (`n: usize`) are saved once on entry when a loop's linear map
        // rebuilds an index from them (`i * n + j`) rather than saving it per iteration.
        // A collection passed by shared reference (`a: &[f64]`) and read in a loop nested
        // in another is copied once on entry, and the reads rebuilt from the copy, rather
        // than saved one per iteration of the innermost loop.
        let mut depth = vec![0usize; n];
        for q in all_regions(func) {
            for stmt in &func.region(q).stmts {
                let d = depth[q.0 as usize] + usize::from(matches!(stmt.inst, Inst::For { .. }));
                for sub in stmt.inst.regions() {
                    depth[sub.0 as usize] = d;
                }
            }
        }
        // The values of the parameters `keep` chooses.
        let params = |keep: &dyn Fn(&usize) -> bool| -> Vec<Value> {
            func.regions[entry]
                .stmts
                .iter()
                .filter(|s| matches!(&s.inst, Inst::Param(i) if keep(i)))
                .map(|s| s.results[0])
                .collect()
        };
        let shared = params(&|i| func.by_ref.contains(i) && !func.mutated.contains(i));
        let integers = params(&|i| func.integers.contains(i));
        let mut pulled: Vec<Value> = Vec::new();
        let mut copied: Vec<Value> = Vec::new();
        // Parents before children, so that what an enclosing region saves is known.
        let mut available_outside: Vec<Vec<Value>> = vec![Vec::new(); n];
        for q in all_regions(func) {
            let r = q.0 as usize;
            let mut list = std::mem::take(&mut needed[r]);
            // In order of definition (all are defined in `q`), parameters and what is not
            // a value first.
            list.sort_by_key(|s| match s {
                Saved::Value(v) => func.position(*v),
                _ => (q.0, 0),
            });
            let mut cx = Rebuild {
                func,
                arrays: &arrays,
                integers: &integers,
                shared: if depth[r] >= 2 { &shared } else { &[] },
                pulled: Vec::new(),
                depth: &depth,
                defined_in: &defined_in,
                here: depth[r],
                copied: Vec::new(),
                arithmetic: in_loop[r],
                available: available_outside[r].clone(),
                constants: std::mem::take(&mut maps.constants[r]),
                derived: Vec::new(),
            };
            for &(item, start, read) in &loop_index[r] {
                if cx.derivable(start, 0) {
                    cx.derived.push((item, Derived::LoopIndex(start)));
                    cx.available.push(item);
                } else if read {
                    list.insert(0, Saved::Value(item));
                }
            }
            for read in list {
                if let Saved::Value(v) = read {
                    let rebuilt = cx.derivable_read(v, &maps.saved[r]) || cx.derivable(v, 3);
                    cx.available.push(v);
                    if rebuilt {
                        continue;
                    }
                }
                if matches!(read, Saved::Shape(_) | Saved::Marker(_) | Saved::Value(_))
                    && !maps.parts.contains(&read)
                {
                    maps.parts.push(read);
                }
                maps.saved[r].push(read);
            }
            // A loop variable made available only for values that did not need it.
            for &(item, _, read) in &loop_index[r] {
                if !read && !cx.derived.iter().any(|(_, d)| d.operands().contains(&item)) {
                    cx.derived.retain(|(v, _)| *v != item);
                    cx.available.retain(|v| *v != item);
                }
            }
            maps.constants[r] = cx.constants;
            maps.derived[r] = cx.derived;
            pulled.extend(cx.pulled);
            copied.extend(cx.copied);
            for stmt in &func.region(q).stmts {
                for sub in stmt.inst.regions() {
                    available_outside[sub.0 as usize] = cx.available.clone();
                }
            }
        }
        // A loop run once per iteration of another pushes its iterations on a stack that
        // the entry's struct holds, and saves only their number. (A body whose linear
        // map holds nothing has a tape of empty structs, which allocates nothing.)
        for q in all_regions(func) {
            if !in_loop[q.0 as usize] {
                continue;
            }
            for stmt in &func.region(q).stmts {
                if let Inst::For { body, .. } = &stmt.inst {
                    if !maps.saved[body.0 as usize].is_empty()
                        && maps.saved[q.0 as usize].contains(&Saved::Tape(*body))
                    {
                        maps.stacked.push(*body);
                        maps.saved[entry].push(Saved::Stack(*body));
                    }
                }
            }
        }
        for v in copied {
            let (home, copy) = (defined_in[&v].0 as usize, Saved::Copy(v));
            if !maps.saved[home].contains(&copy) {
                maps.saved[home].push(copy);
                maps.parts.push(copy);
                maps.saved[entry].push(Saved::Copies(v));
                maps.copies.push(v);
            }
        }
        for v in pulled {
            let read = Saved::Value(v);
            if !maps.saved[entry].contains(&read) {
                maps.saved[entry].push(read);
            }
            if !maps.parts.contains(&read) {
                maps.parts.push(read);
            }
        }
        maps
    }

    /// The values region `r`'s linear map computes again from saved values and
    /// constants, in order (see [`Derived`]).
    ///
    /// A loop body whose variable is a [`Derived::LoopIndex`] is walked with the
    /// iteration's position (see [`position_name`]).
    pub fn derived(&self, r: RegionId) -> &[(Value, Derived)] {
        &self.derived[r.0 as usize]
    }

    /// What region `r`'s struct holds: everything the rules in `r` and in the regions
    /// nested in it read that is defined in `r` itself, constants excepted.
    pub fn saved(&self, r: RegionId) -> &[Saved] {
        &self.saved[r.0 as usize]
    }

    /// The constants (literals, paths to consts) the rules in `r` and below read, defined
    /// in `r`: they are not saved but evaluated again where the linear map starts `r`.
    pub fn rematerialized(&self, r: RegionId) -> &[(Value, TokenStream)] {
        &self.constants[r.0 as usize]
    }

    /// Whether the tapes of the loop whose body is `r` are on a stack ([`Saved::Stack`]).
    pub fn stacked(&self, r: RegionId) -> bool {
        self.stacked.contains(&r)
    }

    /// The bodies of the loops whose tapes are on a stack.
    pub fn stacks(&self) -> &[RegionId] {
        &self.stacked
    }

    /// The vectors whose copies the linear maps read ([`Saved::Copies`]).
    pub fn copies(&self) -> &[Value] {
        &self.copies
    }

    /// Whether some linear map reads `part` (a shape, a marker or a value).
    pub fn reads(&self, part: Saved) -> bool {
        self.parts.contains(&part)
    }

    /// Every shape, marker and saved value any linear map reads.
    pub fn parts(&self) -> &[Saved] {
        &self.parts
    }
}

impl Derived {
    /// The values it is computed from.
    pub fn operands(self) -> Vec<Value> {
        match self {
            Derived::Alias(a) | Derived::Neg(a) | Derived::LoopIndex(a) => vec![a],
            Derived::Binary(_, a, b) | Derived::Index(a, b) | Derived::IndexCopy(a, b) => {
                vec![a, b]
            }
        }
    }
}

/// What one region's linear map rebuilds instead of saving, as it is decided.
struct Rebuild<'a> {
    func: &'a Function,
    /// The array parameters only indexed ([`constant_arrays`]), saved whole on entry.
    arrays: &'a [Value],
    /// The integer parameters, which a loop's linear map may have saved on entry.
    integers: &'a [Value],
    /// The collections passed by shared reference whose elements it may read from a
    /// copy saved on entry (in a loop nested in another).
    shared: &'a [Value],
    /// The parameters it uses, to be saved on entry.
    pulled: Vec<Value>,
    /// The loop depth of each region, and of this one.
    depth: &'a [usize],
    here: usize,
    /// The region defining each value.
    defined_in: &'a HashMap<Value, RegionId>,
    /// The vectors it reads from copies.
    copied: Vec<Value>,
    /// Whether arithmetic is rebuilt (in a loop, where saving means a tape entry; outside
    /// one a saved value costs no more than the operation).
    arithmetic: bool,
    /// Values the linear map has here: saved (here or in an enclosing region),
    /// constant, or rebuilt.
    available: Vec<Value>,
    /// The constants evaluated again here.
    constants: Vec<(Value, TokenStream)>,
    /// The values rebuilt here, in order.
    derived: Vec<(Value, Derived)>,
}

impl Rebuild<'_> {
    /// Whether `v` is a place read (`x[i]`, `s.f`) whose first read is saved here: the
    /// second is an alias of it.
    fn derivable_read(&mut self, v: Value, saved_here: &[Saved]) -> bool {
        let Some(inst) = self.func.def_inst(v) else {
            return false;
        };
        let same = |u: &Value| match (self.func.def_inst(*u), inst) {
            (Some(Inst::Index(b, i)), Inst::Index(b2, i2)) => b == b2 && i == i2,
            (Some(Inst::Field(b, m)), Inst::Field(b2, m2)) => b == b2 && m == m2,
            _ => false,
        };
        let first = saved_here.iter().find_map(|s| match s {
            Saved::Value(u) if same(u) => Some(*u),
            _ => None,
        });
        if let Some(u) = first {
            self.derived.push((v, Derived::Alias(u)));
        }
        first.is_some()
    }

    /// Whether `v` is available, a constant, or (within `depth` operations) one
    /// arithmetic operation on such values; what it takes is recorded.
    fn derivable(&mut self, v: Value, depth: usize) -> bool {
        if self.available.contains(&v) || self.derived.iter().any(|(w, _)| *w == v) {
            return true;
        }
        if let Some(t) = constant(self.func, v) {
            if !self.constants.iter().any(|(c, _)| *c == v) {
                self.constants.push((v, t));
            }
            return true;
        }
        if self.arithmetic && self.integers.contains(&v) {
            self.pulled.push(v);
            self.available.push(v);
            return true;
        }
        if depth == 0 || !self.arithmetic {
            return false;
        }
        // An element of a collection read from a copy: a vector made two loops out or
        // more (copied where it is made), or a collection passed by shared reference
        // (copied on entry).
        if let Some(Inst::Index(b, i)) = self.func.def_inst(v) {
            let (b, i) = (*b, *i);
            let far = self.made_two_loops_out(b);
            if far || self.shared.contains(&b) {
                let mark = self.mark();
                if !self.derivable(i, depth - 1) {
                    self.undo(mark);
                    return false;
                }
                if far {
                    self.copied.push(b);
                    self.derived.push((v, Derived::IndexCopy(b, i)));
                } else {
                    self.pulled.push(b);
                    self.available.push(b);
                    self.derived.push((v, Derived::Index(b, i)));
                }
                return true;
            }
        }
        let d = match self.func.def_inst(v) {
            Some(Inst::Index(b, i)) if self.arrays.contains(b) => Derived::Index(*b, *i),
            // Division is slower than a load.
            Some(Inst::Binary(op, a, b)) if !matches!(op, BinOp::Div | BinOp::Rem) => {
                Derived::Binary(*op, *a, *b)
            }
            Some(Inst::Neg(a)) => Derived::Neg(*a),
            _ => return false,
        };
        // A reference is saved as a copy of its referent: `&a * &b` is not rebuilt from
        // the copies.
        let by_ref = |a: &Value| {
            matches!(self.func.def_inst(*a), Some(Inst::Ref(..)))
                || matches!(self.func.def_inst(*a), Some(Inst::Param(i)) if self.func.by_ref.contains(i))
        };
        if d.operands().iter().any(by_ref) {
            return false;
        }
        let mark = self.mark();
        if d.operands().iter().all(|a| self.derivable(*a, depth - 1)) {
            self.derived.push((v, d));
            true
        } else {
            self.undo(mark);
            false
        }
    }

    /// Whether `b` is a vector (made by `vec![x; n]` or `vec![..]`, maybe written
    /// element by element since) defined two loops or more outside this region.
    fn made_two_loops_out(&self, b: Value) -> bool {
        let far =
            (self.defined_in.get(&b)).is_some_and(|h| self.depth[h.0 as usize] + 2 <= self.here);
        far && match self.func.def_inst(shape_source(self.func, b)) {
            Some(Inst::Array(_, crate::ir::Sequence::Vec)) => true,
            Some(Inst::Call(crate::ir::Callee::Path(p), _)) => {
                crate::ir::is_library_fn(p, "vec_repeat")
            }
            _ => false,
        }
    }

    /// How much has been decided, to [`undo`](Self::undo) a failed attempt back to.
    fn mark(&self) -> [usize; 5] {
        [
            self.constants.len(),
            self.derived.len(),
            self.pulled.len(),
            self.available.len(),
            self.copied.len(),
        ]
    }

    fn undo(&mut self, [nc, nd, np, na, ncopied]: [usize; 5]) {
        self.copied.truncate(ncopied);
        self.constants.truncate(nc);
        self.derived.truncate(nd);
        self.pulled.truncate(np);
        self.available.truncate(na);
    }
}

/// The value whose shape (a collection's length) `v` has, taken once where that value
/// is made: an element write keeps its base's shape, and a collection a loop carries
/// and only writes elements of keeps its initial value's, so the versions of a vector
/// updated in loops share one shape instead of saving one per iteration.
pub fn shape_source(func: &Function, v: Value) -> Value {
    let mut v = written_from(func, v);
    // Each step goes to a value defined before the loop; the bound guards a cycle.
    for _ in 0..func.regions.len() {
        match carried(func, v) {
            Some((param, yielded, init)) if param == v && written_from(func, yielded) == v => {
                v = written_from(func, init);
            }
            _ => break,
        }
    }
    v
}

/// What `v` is made from by element writes (`v = base` with `[i]` set), through loops
/// that carry it with only element writes, back to where that stops.
fn written_from(func: &Function, v: Value) -> Value {
    let mut v = v;
    loop {
        // Any result of a loop (`def_inst` gives only a statement's first).
        let inst = func.def(v).map(|s| &s.inst);
        match inst {
            Some(Inst::SetIndex(base, _, _)) => v = *base,
            Some(Inst::For { .. }) => match carried(func, v) {
                Some((param, yielded, init)) if written_from(func, yielded) == param => v = init,
                _ => return v,
            },
            _ => return v,
        }
    }
}

/// For a value a loop carries (its parameter in the body, or the loop's result): the
/// body's parameter, what the body yields for it, and its initial value.
fn carried(func: &Function, v: Value) -> Option<(Value, Value, Value)> {
    for region in &func.regions {
        for stmt in &region.stmts {
            let Inst::For { init, body, .. } = &stmt.inst else {
                continue;
            };
            let b = func.region(*body);
            let Some(i) = (b.params.iter().position(|p| *p == v))
                .or_else(|| stmt.results.iter().position(|r| *r == v))
            else {
                continue;
            };
            return (i < init.len()).then(|| (b.params[i], b.yields[i], init[i]));
        }
    }
    None
}

/// The array parameters taken by value that the body only indexes and asks the length
/// of (so never updates): the linear map takes them whole, and reads their elements
/// again instead of saving each. (A `Vec` read again this way made long loops slower
/// than their tapes: Rosenbrock n = 1000 1.1x to 2.1x the hand-written gradient.)
fn constant_arrays(func: &Function) -> Vec<Value> {
    let params: Vec<Value> = func.regions[func.entry().0 as usize]
        .stmts
        .iter()
        .filter(|s| {
            matches!(&s.inst, Inst::Param(i) if func.arrays_by_value.contains(i) && !func.by_ref.contains(i))
        })
        .map(|s| s.results[0])
        .collect();
    let mut other_uses = Vec::new();
    for region in &func.regions {
        for stmt in &region.stmts {
            match &stmt.inst {
                Inst::Index(_, i) => other_uses.push(*i),
                Inst::Call(crate::ir::Callee::Method { method, .. }, args)
                    if args.len() == 1 && (method == "len" || method == "is_empty") => {}
                inst => other_uses.extend(inst.operands()),
            }
        }
        other_uses.extend(&region.yields);
    }
    params
        .into_iter()
        .filter(|p| !other_uses.contains(p))
        .collect()
}

/// The start of `iter` when it is a range `start..end` or `start..=end` (whose k-th item
/// is `start + k`).
fn range_start(func: &Function, iter: Value) -> Option<Value> {
    match func.def_inst(iter) {
        Some(Inst::Opaque(o)) if o.what == "range" => {
            // `(start .. end)`: the first token inside the parentheses is the start.
            let inner = o.tokens.clone().into_iter().next()?;
            let proc_macro2::TokenTree::Group(g) = inner else {
                return None;
            };
            let first = g.stream().into_iter().next()?;
            matches!(first, proc_macro2::TokenTree::Group(_)).then(|| o.uses[0])
        }
        _ => None,
    }
}

/// Whether a loop's carried value `param` is a counter: every iteration yields
/// `param + 1` (an integer: a float literal is written `1.0`).
fn counts_up(func: &Function, param: Value, yielded: Value) -> bool {
    matches!(func.def_inst(yielded), Some(Inst::Binary(BinOp::Add, a, one))
        if *a == param && constant(func, *one).is_some_and(|t| t.to_string() == "1"))
}

/// The local holding the position on the tape of the iteration of loop body `r` being
/// walked. It ends in `_`, which no value's name does (`emit/names.rs`).
pub fn position_name(r: RegionId) -> Ident {
    format_ident!("position_{}_", r.0)
}

/// How a loop's tape is walked: `pat` over `tape.into_iter()`, or `(k, pat)` over
/// `.enumerate()` where the body reads its position.
pub fn walk(maps: &LinearMaps, r: RegionId, pat: TokenStream) -> (TokenStream, TokenStream) {
    if reads_position(maps, r) {
        let k = position_name(r);
        (quote! { (#k, #pat) }, quote! { .enumerate() })
    } else {
        (pat, TokenStream::new())
    }
}

/// Whether loop body `r`'s linear map reads the iteration's position.
pub fn reads_position(maps: &LinearMaps, r: RegionId) -> bool {
    maps.derived(r)
        .iter()
        .any(|(_, d)| matches!(d, Derived::LoopIndex(_)))
}

/// The tokens of `v` when it is a constant.
fn constant(func: &Function, v: Value) -> Option<TokenStream> {
    match func.def_inst(v) {
        Some(Inst::Const(t)) => Some(t.clone()),
        _ => None,
    }
}

/// Every region of the function that gets a struct, in order.
pub fn all_regions(func: &Function) -> Vec<RegionId> {
    regions_within(func, func.entry())
}

/// Region `r` and every region nested in it, in order.
pub fn regions_within(func: &Function, r: RegionId) -> Vec<RegionId> {
    let mut out = vec![r];
    let mut i = 0;
    while i < out.len() {
        for stmt in &func.region(out[i]).stmts {
            out.extend(stmt.inst.regions());
        }
        i += 1;
    }
    out
}

/// The struct definitions of all regions and the predecessor enums of all `if`s.
pub fn definitions(func: &Function, maps: &LinearMaps, mode: Mode) -> TokenStream {
    let mut out = TokenStream::new();
    for r in all_regions(func) {
        let name = names::region_struct(r, mode);
        let fields: Vec<Ident> = maps.saved(r).iter().map(|s| s.ident(func, mode)).collect();
        let params: Vec<Ident> = (0..fields.len()).map(|i| format_ident!("T{}", i)).collect();
        out.extend(quote! {
            struct #name<#(#params),*> { #(#fields: #params),* }
        });
        for stmt in &func.region(r).stmts {
            if let Some(branches) = stmt.inst.branches() {
                let e = names::pred_enum(branches[0]);
                let vs: Vec<Ident> = (0..branches.len())
                    .map(|i| names::variant(&stmt.inst, i))
                    .collect();
                out.extend(quote! { enum #e<#(#vs),*> { #(#vs(#vs)),* } });
            }
        }
    }
    out
}

/// `Name { field, ... }`: the pattern that takes region `r`'s struct apart into locals
/// named like its fields.
pub fn pattern(func: &Function, maps: &LinearMaps, r: RegionId, mode: Mode) -> TokenStream {
    let name = names::region_struct(r, mode);
    let fields = maps.saved(r).iter().map(|s| s.ident(func, mode));
    quote! { #name { #(#fields),* } }
}

/// `Name { field: expr, ... }`: builds region `r`'s struct; `value(v, saved)` gives the
/// expression of a primal value, as saved (`true`) or as read in place.
pub fn construct(
    func: &Function,
    maps: &LinearMaps,
    r: RegionId,
    mode: Mode,
    value: impl Fn(Value, bool) -> TokenStream,
) -> TokenStream {
    let name = names::region_struct(r, mode);
    // Fields are evaluated in order: the ones read through a place (`p[i]`, `s.f`) and
    // the handles first, then the owned values that may move (`p` itself).
    let mut fields: Vec<(bool, TokenStream)> = maps
        .saved(r)
        .iter()
        .map(|s| {
            let field = s.ident(func, mode);
            match *s {
                Saved::Value(v) => {
                    let e = value(v, true);
                    let owned = field == e.to_string();
                    (owned, quote! { #field: #e })
                }
                // Taken where the value is defined (see `Emitter::eager_parts`).
                Saved::Shape(_) | Saved::Marker(_) => (false, quote! { #field }),
                _ => (false, quote! { #field }),
            }
        })
        .collect();
    fields.sort_by_key(|(owned, _)| *owned);
    let fields = fields.into_iter().map(|(_, f)| f);
    quote! { #name { #(#fields),* } }
}
