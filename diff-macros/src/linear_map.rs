//! Linear map info: what each region's pullback (or differential) struct holds, and the
//! predecessor enums at joins (docs/ARCHITECTURE.md, "Activity, linear maps and
//! emission"). Fields are generic type parameters, so rustc infers their types.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Mode};
use crate::ir::{BinOp, Function, Inst, RegionId, Stmt, Value};
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
    /// The tape of the loop whose body this is.
    Tape(RegionId),
    /// The shape of a value (a collection's length), enough to build its zero tangent.
    Shape(Value),
    /// A zero-sized marker of a value's tangent type.
    Marker(Value),
}

impl Saved {
    /// The field's (and the local's) name.
    pub fn ident(self, func: &Function, mode: Mode) -> Ident {
        match self {
            Saved::Value(v) => names::value(func, v),
            Saved::Callee(v) => names::handle(func, v, mode),
            Saved::Pred(r) => names::pred(r),
            Saved::Tape(r) => names::tape(r),
            Saved::Shape(v) => names::shape(func, v),
            Saved::Marker(v) => names::marker(func, v),
        }
    }
}

/// What the derivative rule of one active statement reads.
fn needs(func: &Function, stmt: &Stmt, act: &Activity) -> Vec<Saved> {
    let res = stmt.results.first().copied();
    match &stmt.inst {
        Inst::Binary(BinOp::Mul, a, b) => {
            let mut out = Vec::new();
            if act.is_active(*a) {
                out.push(Saved::Value(*b));
            }
            if act.is_active(*b) {
                out.push(Saved::Value(*a));
            }
            out
        }
        Inst::Binary(BinOp::Div, _, b) if act.is_active(*b) => {
            vec![
                Saved::Value(*b),
                Saved::Value(res.expect("div has a result")),
            ]
        }
        Inst::Binary(BinOp::Div, _, b) => vec![Saved::Value(*b)],
        Inst::Binary(BinOp::Rem, a, b) if act.is_active(*b) => {
            vec![Saved::Value(*a), Saved::Value(*b)]
        }
        Inst::Call(..) | Inst::CallMut(..) => vec![Saved::Callee(res.expect("call has a result"))],
        Inst::Field(base, _) => vec![Saved::Marker(*base)],
        Inst::Struct(..) | Inst::Tuple(..) | Inst::SetField(..) => {
            vec![Saved::Marker(res.expect("a result"))]
        }
        Inst::Cast(a, _) => vec![Saved::Value(*a)],
        Inst::SetIndex(_, i, _) => vec![Saved::Value(*i), Saved::Shape(res.expect("a result"))],
        Inst::Index(base, index) => vec![Saved::Shape(*base), Saved::Value(*index)],
        Inst::For { init, body, .. } => {
            // A carried value with no tangent before the loop (forward) or no adjoint
            // after it (reverse) starts from an empty slot, typed by its initial value's
            // marker.
            let params = &func.region(*body).params;
            let mut out = vec![Saved::Tape(*body)];
            out.extend(
                (0..init.len())
                    .filter(|i| {
                        let carried = act.is_active(stmt.results[*i]) || act.is_active(params[*i]);
                        carried && !(act.is_active(stmt.results[*i]) && act.is_active(init[*i]))
                    })
                    .map(|i| Saved::Marker(init[i])),
            );
            out
        }
        _ => match stmt.inst.regions().first() {
            Some(r) => vec![Saved::Pred(*r)],
            None => vec![],
        },
    }
}

/// Where each value is defined (a statement's region, or the region it is a parameter of).
fn defining_regions(func: &Function) -> HashMap<Value, RegionId> {
    let mut defs = HashMap::new();
    for (i, region) in func.regions.iter().enumerate() {
        let r = RegionId(i as u32);
        for p in &region.params {
            defs.insert(*p, r);
        }
        for stmt in &region.stmts {
            for v in &stmt.results {
                defs.insert(*v, r);
            }
        }
    }
    defs
}

/// What region `r`'s struct holds: everything the rules in `r` and in the regions nested
/// in it read that is defined in `r` itself. A value is saved once, where it is defined:
/// a loop-invariant value is not copied onto the tape at every iteration.
pub fn saved(func: &Function, act: &Activity, r: RegionId) -> Vec<Saved> {
    needed(func, act, r)
        .into_iter()
        .filter(|s| !matches!(s, Saved::Value(v) if constant(func, *v).is_some()))
        .collect()
}

/// The constants (literals, paths to consts) the rules in `r` and below read, defined in
/// `r`: they are not saved but evaluated again where the linear map starts `r`.
pub fn rematerialized(func: &Function, act: &Activity, r: RegionId) -> Vec<(Value, TokenStream)> {
    needed(func, act, r)
        .into_iter()
        .filter_map(|s| match s {
            Saved::Value(v) => constant(func, v).map(|t| (v, t)),
            _ => None,
        })
        .collect()
}

/// The tokens of `v` when it is a constant.
fn constant(func: &Function, v: Value) -> Option<TokenStream> {
    match func.def_inst(v) {
        Some(Inst::Const(t)) => Some(t.clone()),
        _ => None,
    }
}

fn needed(func: &Function, act: &Activity, r: RegionId) -> Vec<Saved> {
    let defs = defining_regions(func);
    let mut out = Vec::new();
    let mut stack = vec![r];
    while let Some(q) = stack.pop() {
        for stmt in &func.region(q).stmts {
            stack.extend(stmt.inst.regions());
            if !stmt.results.iter().any(|v| act.is_active(*v)) {
                continue;
            }
            for need in needs(func, stmt, act) {
                let here = match need {
                    Saved::Value(v) | Saved::Callee(v) | Saved::Shape(v) | Saved::Marker(v) => {
                        defs.get(&v) == Some(&r)
                    }
                    Saved::Pred(_) | Saved::Tape(_) => q == r,
                };
                if here && !out.contains(&need) {
                    out.push(need);
                }
            }
        }
    }
    out
}

/// Every shape, marker and saved value any linear map reads.
pub fn parts(func: &Function, act: &Activity) -> Vec<Saved> {
    let mut out = Vec::new();
    for r in all_regions(func) {
        for s in needed(func, act, r) {
            if matches!(s, Saved::Shape(_) | Saved::Marker(_) | Saved::Value(_))
                && !out.contains(&s)
            {
                out.push(s);
            }
        }
    }
    out
}

/// Every region of the function that gets a struct, in order.
pub fn all_regions(func: &Function) -> Vec<RegionId> {
    let mut out = vec![func.entry()];
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
pub fn definitions(func: &Function, act: &Activity, mode: Mode) -> TokenStream {
    let mut out = TokenStream::new();
    for r in all_regions(func) {
        let name = names::region_struct(r, mode);
        let fields: Vec<Ident> = saved(func, act, r)
            .iter()
            .map(|s| s.ident(func, mode))
            .collect();
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
pub fn pattern(func: &Function, act: &Activity, r: RegionId, mode: Mode) -> TokenStream {
    let name = names::region_struct(r, mode);
    let fields = saved(func, act, r).into_iter().map(|s| s.ident(func, mode));
    quote! { #name { #(#fields),* } }
}

/// `Name { field: expr, ... }`: builds region `r`'s struct; `value(v, saved)` gives the
/// expression of a primal value, as saved (`true`) or as read in place.
pub fn construct(
    func: &Function,
    act: &Activity,
    r: RegionId,
    mode: Mode,
    value: impl Fn(Value, bool) -> TokenStream,
) -> TokenStream {
    let name = names::region_struct(r, mode);
    // Fields are evaluated in order: the ones read through a place (`p[i]`, `s.f`) and
    // the handles first, then the owned values that may move (`p` itself).
    let mut fields: Vec<(bool, TokenStream)> = saved(func, act, r)
        .into_iter()
        .map(|s| {
            let field = s.ident(func, mode);
            match s {
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
