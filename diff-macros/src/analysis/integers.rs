//! Which values are surely integers: an integer literal, an integer parameter taken by
//! value (or one holding only integers and booleans, `idx: &mut Vec<usize>`, and a
//! parameter's integer field), arithmetic on integers, collections of them and their
//! elements, a local integer a call updates through `&mut`, and the joins and
//! loop-carried values of those. An integer carries no derivative, whatever it
//! depends on (`let mut n = 0; step(x, &mut n); y * n as f64`), so activity analysis
//! never makes one active.
use crate::ir::{Function, Inst, RegionId, Value};
use std::collections::BTreeSet;

/// The values of `func` that are surely integers.
pub fn integers(func: &Function) -> BTreeSet<Value> {
    // Loop-carried values are taken for integers until their loop's body yields one that
    // is not: start from every value and drop, until nothing changes (the greatest
    // fixed point).
    let mut assumed: BTreeSet<Value> = (0..func.values.len() as u32).map(Value).collect();
    loop {
        let mut known = BTreeSet::new();
        region(func, func.entry(), &assumed, &mut known);
        if known == assumed {
            return known;
        }
        assumed = known;
    }
}

/// Adds the integers `r` defines to `known`; `assumed` answers for values a loop carries
/// back (its body's yields, not yet known where the loop starts).
fn region(func: &Function, r: RegionId, assumed: &BTreeSet<Value>, known: &mut BTreeSet<Value>) {
    for stmt in &func.region(r).stmts {
        let results: Vec<Value> = match &stmt.inst {
            Inst::Const(t) if integer_literal(t) => stmt.results.clone(),
            Inst::Param(i) if func.integers.contains(i) || func.discrete.contains(i) => {
                stmt.results.clone()
            }
            Inst::Binary(_, a, b) if known.contains(a) && known.contains(b) => stmt.results.clone(),
            // A parameter's field of integers (`self.n`).
            Inst::Field(base, syn::Member::Named(m))
                if func
                    .discrete_fields
                    .iter()
                    .any(|(i, f)| func.is_param(*base, *i) && m == f) =>
            {
                stmt.results.clone()
            }
            // A collection or tuple of integers (`vec![0, 1, 2]`).
            Inst::Array(elems, _) | Inst::Tuple(elems)
                if !elems.is_empty() && elems.iter().all(|e| known.contains(e)) =>
            {
                stmt.results.clone()
            }
            // An element of a collection of integers, and the collection with one written;
            // what a reference to integers points to, and a reference to them.
            Inst::Index(base, _) | Inst::Load(base) | Inst::Ref(base, _)
                if known.contains(base) =>
            {
                stmt.results.clone()
            }
            Inst::SetIndex(base, _, v) if known.contains(base) && known.contains(v) => {
                stmt.results.clone()
            }
            // The call's value, then each local it updates, of the type it had.
            Inst::CallMut(_, args, mutated) => mutated
                .iter()
                .zip(stmt.results.iter().skip(1))
                .filter(|(i, _)| args.get(**i).is_some_and(|a| known.contains(a)))
                .map(|(_, r)| *r)
                .collect(),
            Inst::If { .. } | Inst::Match { .. } => {
                let branches = stmt.inst.branches().unwrap_or_default();
                for b in &branches {
                    region(func, *b, assumed, known);
                }
                stmt.results
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| {
                        branches.iter().all(|b| {
                            func.region(*b)
                                .yields
                                .get(*k)
                                .is_some_and(|y| known.contains(y))
                        })
                    })
                    .map(|(_, v)| *v)
                    .collect()
            }
            Inst::For { init, body, .. } => {
                let body_region = func.region(*body);
                let carried: Vec<(usize, Value)> = body_region
                    .params
                    .iter()
                    .take(init.len())
                    .enumerate()
                    .filter(|(k, p)| {
                        known.contains(&init[*k])
                            && assumed.contains(p)
                            && body_region
                                .yields
                                .get(*k)
                                .is_some_and(|y| assumed.contains(y))
                    })
                    .map(|(k, p)| (k, *p))
                    .collect();
                known.extend(carried.iter().map(|(_, p)| *p));
                region(func, *body, assumed, known);
                carried
                    .iter()
                    .filter_map(|(k, _)| stmt.results.get(*k).copied())
                    .collect()
            }
            _ => Vec::new(),
        };
        known.extend(results);
    }
}

/// Whether constant tokens are an integer literal (`0`, `1usize`; not `1f64`).
pub(crate) fn integer_literal(t: &proc_macro2::TokenStream) -> bool {
    syn::parse2::<syn::LitInt>(t.clone()).is_ok_and(|l| !l.suffix().starts_with('f'))
}
