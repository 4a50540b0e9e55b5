//! Which values are surely integers: an integer literal, an integer parameter taken by
//! value (or one holding only integers and booleans, `idx: &mut Vec<usize>`, and a
//! parameter's integer field), arithmetic on integers, collections of them and their
//! elements, a local integer a call updates through `&mut`, comparisons and integer
//! casts, booleans and `None`, ranges of integers and what iterators over them yield
//! (`enumerate`, `zip`, `next`, `unwrap`, a `match` arm's bindings, a loop's items), the
//! integer elements of a tuple (a fold's `(acc, n)`), and the joins and loop-carried
//! values of those. An integer carries no derivative, whatever it
//! depends on (`let mut n = 0; step(x, &mut n); y * n as f64`), so activity analysis
//! never makes one active.
use crate::ir::{Callee, Function, Inst, RegionId, Value};
use std::collections::BTreeSet;

/// The values of `func` that are surely integers.
pub fn integers(func: &Function) -> BTreeSet<Value> {
    // Loop-carried values are taken for integers until their loop's body yields one that
    // is not: start from every value and drop, until nothing changes (the greatest
    // fixed point).
    let mut assumed = Known {
        whole: (0..func.values.len() as u32).map(Value).collect(),
        elements: BTreeSet::new(),
    };
    loop {
        let mut known = Known::default();
        region(func, func.entry(), &assumed, &mut known);
        if known == assumed {
            return known.whole;
        }
        assumed = known;
    }
}

/// What is known to be integers: whole values, and elements of tuples (`(acc, n)`, a
/// fold's accumulator of a float and a count).
#[derive(Default, PartialEq)]
struct Known {
    whole: BTreeSet<Value>,
    elements: BTreeSet<(Value, usize)>,
}

impl Known {
    fn contains(&self, v: &Value) -> bool {
        self.whole.contains(v)
    }

    /// Whether element `k` of the tuple `v` is an integer.
    fn element(&self, v: Value, k: usize) -> bool {
        self.whole.contains(&v) || self.elements.contains(&(v, k))
    }

    /// The elements of `v` known to be integers (not those of a whole).
    fn elements_of(&self, v: Value) -> Vec<usize> {
        self.elements
            .range((v, 0)..=(v, usize::MAX))
            .map(|(_, k)| *k)
            .collect()
    }

    fn extend(&mut self, vs: impl IntoIterator<Item = Value>) {
        self.whole.extend(vs);
    }
}

/// Adds the integers `r` defines to `known`; `assumed` answers for values a loop carries
/// back (its body's yields, not yet known where the loop starts).
fn region(func: &Function, r: RegionId, assumed: &Known, known: &mut Known) {
    for stmt in &func.region(r).stmts {
        let results: Vec<Value> = match &stmt.inst {
            Inst::Const(t) if integer_literal(t) || holds_no_float(t) => stmt.results.clone(),
            // A comparison, an integer cast, a range of integers.
            Inst::Opaque(o)
                if o.discrete
                    || (o.what == "range" && o.uses.iter().all(|u| known.contains(u))) =>
            {
                stmt.results.clone()
            }
            // What an iterator of integers yields, an integer method's result; the length of
            // any collection.
            Inst::Call(callee, args)
                if keeps_integers(callee) && args.iter().all(|a| known.contains(a)) =>
            {
                stmt.results.clone()
            }
            Inst::Call(Callee::Method { method, .. }, args)
                if method != "div_euclid"
                    && crate::ir::is_inactive_method(method, args.len().saturating_sub(1)) =>
            {
                stmt.results.clone()
            }
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
            // A tuple with integers among its elements (`(acc + v, n + 1)`).
            Inst::Tuple(elems) => {
                for (k, e) in elems.iter().enumerate() {
                    if known.contains(e) {
                        known.elements.insert((stmt.results[0], k));
                    }
                }
                Vec::new()
            }
            // A field of integers, or an integer element of a tuple.
            Inst::Field(base, member)
                if known.contains(base)
                    || matches!(member, syn::Member::Unnamed(k) if known.element(*base, k.index as usize)) =>
            {
                stmt.results.clone()
            }
            // A reference to a tuple, and what it points to, have its integers.
            Inst::Load(base) | Inst::Ref(base, _) if !known.contains(base) => {
                for k in known.elements_of(*base) {
                    known.elements.insert((stmt.results[0], k));
                }
                Vec::new()
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
            // The call's value (an iterator of integers' next item), then each local it
            // updates, of the type it had.
            Inst::CallMut(callee, args, mutated) => {
                let next = keeps_integers(callee) && args.iter().all(|a| known.contains(a));
                let value = stmt.results.first().filter(|_| next).copied();
                let locals = mutated
                    .iter()
                    .zip(stmt.results.iter().skip(1))
                    .filter(|(i, _)| args.get(**i).is_some_and(|a| known.contains(a)))
                    .map(|(_, r)| *r);
                value.into_iter().chain(locals).collect()
            }
            Inst::If { .. } | Inst::Match { .. } => {
                let branches = stmt.inst.branches().unwrap_or_default();
                // The bindings of a pattern matched against integers.
                if let Inst::Match { scrutinee, arms } = &stmt.inst {
                    if known.contains(scrutinee) {
                        for arm in arms {
                            known.extend(func.region(arm.region).params.iter().copied());
                        }
                    }
                }
                for b in &branches {
                    region(func, *b, assumed, known);
                }
                let yields = |k: usize| branches.iter().map(move |b| func.region(*b).yields.get(k));
                for (k, res) in stmt.results.iter().enumerate() {
                    let Some(Some(first)) = yields(k).next() else {
                        continue;
                    };
                    for e in known.elements_of(*first) {
                        if yields(k).all(|y| y.is_some_and(|y| known.element(*y, e))) {
                            known.elements.insert((*res, e));
                        }
                    }
                }
                stmt.results
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| yields(*k).all(|y| y.is_some_and(|y| known.contains(y))))
                    .map(|(_, v)| *v)
                    .collect()
            }
            Inst::For {
                iter, init, body, ..
            } => {
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
                // The integer elements of a carried tuple (a fold's `(acc, n)`).
                let mut elements = Vec::new();
                for (k, p) in body_region.params.iter().take(init.len()).enumerate() {
                    let Some(y) = body_region.yields.get(k) else {
                        continue;
                    };
                    for e in known.elements_of(init[k]) {
                        if assumed.element(*p, e) && assumed.element(*y, e) {
                            elements.push((k, e));
                            known.elements.insert((*p, e));
                        }
                    }
                }
                // The items of an iterator of integers.
                if known.contains(iter) {
                    known.extend(body_region.params.iter().skip(init.len()).copied());
                }
                region(func, *body, assumed, known);
                for (k, e) in elements {
                    if let Some(r) = stmt.results.get(k) {
                        known.elements.insert((*r, e));
                    }
                }
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

/// Whether constant tokens hold no float: `true`, `false`, `None`.
fn holds_no_float(t: &proc_macro2::TokenStream) -> bool {
    let Ok(e) = syn::parse2::<syn::Expr>(t.clone()) else {
        return false;
    };
    match e {
        syn::Expr::Lit(l) => matches!(l.lit, syn::Lit::Bool(_)),
        syn::Expr::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "None")
        }
        _ => false,
    }
}

/// Whether a call given only integers returns only integers: an iterator adapter or
/// the next item of an iterator, a method of integers, an `Option`'s payload, the
/// library's `some`.
fn keeps_integers(callee: &Callee) -> bool {
    const KEEPING: &[&str] = &[
        "enumerate",
        "rev",
        "skip",
        "take",
        "step_by",
        "zip",
        "chain",
        "iter",
        "into_iter",
        "copied",
        "cloned",
        "clone",
        "next",
        "next_back",
        "nth",
        "last",
        "unwrap",
        "expect",
        "unwrap_or",
        "min",
        "max",
        "pow",
        "abs",
        "rem_euclid",
        "saturating_sub",
        "saturating_add",
        "wrapping_add",
        "wrapping_sub",
        "wrapping_mul",
        "signum",
        "some",
    ];
    let name = match callee {
        // (Of the standard library's, the iterator traits', an integer type's, or the
        // library's own: a function of the crate may be named `max`.)
        Callee::Path(p) => p
            .path
            .segments
            .last()
            .filter(|_| {
                p.path.segments.len() > 1
                    && p.path.segments.first().is_some_and(|s| {
                        ["core", "std", "diff", "Iterator", "IntoIterator", "Option"]
                            .iter()
                            .chain(crate::ir::INTEGER_TYPES)
                            .any(|k| s.ident == k)
                    })
            })
            .map(|s| &s.ident),
        Callee::Method { method, user, .. } => (!*user).then_some(method),
        Callee::OnTwin { .. } => None,
    };
    name.is_some_and(|n| KEEPING.iter().any(|k| n == k))
}
