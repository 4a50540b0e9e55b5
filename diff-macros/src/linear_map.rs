//! Linear map info: what each region's pullback (or differential) struct holds, and the
//! predecessor enums at joins (reference/000, "linear map structs and branching trace
//! enums"). Fields are generic type parameters, so rustc infers their types.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Mode};
use crate::ir::{BinOp, Function, Inst, RegionId, Value};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

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
}

impl Saved {
    /// The field's (and the local's) name.
    pub fn ident(self, func: &Function, mode: Mode) -> Ident {
        match self {
            Saved::Value(v) => names::value(func, v),
            Saved::Callee(v) => names::handle(func, v, mode),
            Saved::Pred(r) => names::pred(r),
            Saved::Tape(r) => names::tape(r),
        }
    }
}

/// What region `r`'s own statements need saved (nested regions have their own structs).
pub fn saved(func: &Function, act: &Activity, r: RegionId) -> Vec<Saved> {
    let mut out = Vec::new();
    let mut push = |s: Saved| {
        if !out.contains(&s) {
            out.push(s);
        }
    };
    for stmt in &func.region(r).stmts {
        if !stmt.results.iter().any(|v| act.is_active(*v)) {
            continue;
        }
        let res = stmt.results.first().copied();
        match &stmt.inst {
            Inst::Binary(BinOp::Mul, a, b) => {
                if act.is_active(*a) {
                    push(Saved::Value(*b));
                }
                if act.is_active(*b) {
                    push(Saved::Value(*a));
                }
            }
            Inst::Binary(BinOp::Div, a, b) => {
                push(Saved::Value(*b));
                if act.is_active(*b) {
                    let _ = a;
                    push(Saved::Value(res.expect("div has a result")));
                }
            }
            Inst::Call(..) => push(Saved::Callee(res.expect("call has a result"))),
            Inst::Field(base, _) => push(Saved::Value(*base)),
            Inst::Index(base, index) => {
                push(Saved::Value(*base));
                push(Saved::Value(*index));
            }
            Inst::If { then_region, .. } => push(Saved::Pred(*then_region)),
            Inst::Match { arms, .. } => push(Saved::Pred(arms[0].region)),
            Inst::For { body, .. } => push(Saved::Tape(*body)),
            _ => {}
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
                let vs: Vec<Ident> = (0..branches.len()).map(|i| names::variant(&stmt.inst, i)).collect();
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

/// `Name { field: expr, ... }`: builds region `r`'s struct; `value` gives the expression
/// of a primal value.
pub fn construct(
    func: &Function,
    act: &Activity,
    r: RegionId,
    mode: Mode,
    value: impl Fn(Value) -> TokenStream,
) -> TokenStream {
    let name = names::region_struct(r, mode);
    let fields = saved(func, act, r).into_iter().map(|s| {
        let field = s.ident(func, mode);
        match s {
            Saved::Value(v) => {
                let e = value(v);
                quote! { #field: #e }
            }
            _ => quote! { #field },
        }
    });
    quote! { #name { #(#fields),* } }
}
