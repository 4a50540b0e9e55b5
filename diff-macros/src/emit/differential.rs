//! Forward mode: the differential runs each region's statements forwards on tangents
//! (`Option`, None is zero), reading the same structs as the pullback.
//!
//! The rules are `linearization.rs`'s, applied to tangents.
use super::primal::Emitter;
use crate::emit::fields::{self, Access};
use crate::emit::names;
use crate::ir::{Callee, Inst, RegionId, Stmt, Value};
use crate::linear_map;
use crate::linearization::{self, Build, Part, Partial, Rule};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

impl Emitter<'_> {
    /// The tangent of `v` as an expression: `d_v.clone()`, or `None` when inactive.
    pub fn tan(&self, v: Value) -> TokenStream {
        if self.act.is_active(v) {
            let d = names::tangent(self.func, v);
            quote! { ::core::clone::Clone::clone(&#d) }
        } else {
            quote! { ::core::option::Option::None }
        }
    }

    fn dname(&self, v: Value) -> Ident {
        names::tangent(self.func, v)
    }

    /// The tangent code of region `r`, forwards.
    pub fn tangent_region(&self, r: RegionId) -> TokenStream {
        let consts = self.constants(r);
        let code: TokenStream = self
            .func
            .region(r)
            .stmts
            .iter()
            .map(|s| self.tangent_stmt(s))
            .collect();
        quote! { #consts #code }
    }

    fn tangent_stmt(&self, stmt: &Stmt) -> TokenStream {
        if !stmt.results.iter().any(|v| self.act.is_active(*v)) {
            return TokenStream::new();
        }
        let Some(rule) = linearization::rule(stmt) else {
            return TokenStream::new();
        };
        let res = stmt.results[0];
        let d = self.dname(res);
        let e = match rule {
            Rule::Zero => return TokenStream::new(),
            Rule::Branch(branches) => return self.tangent_branches(stmt, &branches),
            Rule::Loop { init, body } => return self.tangent_for(stmt, init, body),
            Rule::CallMut(args) => return self.tangent_call_mut(stmt, args),
            rule => self.apply(rule, res),
        };
        quote! { let #d = #e; }
    }

    /// A rule applied to the operands' tangents: the result's tangent, as an expression.
    fn apply(&self, rule: Rule<'_>, res: Value) -> TokenStream {
        match rule {
            // p = parameter i: the input tangent i.
            Rule::Input(i) => {
                let input = names::ident(&format!("d_in{i}"));
                quote!(#input)
            }
            // dy = Σ ∂y/∂x · dx over the active operands.
            Rule::Scalar(terms) => terms
                .into_iter()
                .filter(|(x, _)| self.act.is_active(*x))
                .map(|(x, p)| {
                    let t = self.tan(x);
                    if p == Partial::One {
                        return t;
                    }
                    let dx = names::ident("dx");
                    let applied = p.apply(quote!(#dx), |v| self.name(v));
                    quote! { ::diff::__private::partial::map(#t, |#dx| #applied) }
                })
                .reduce(|sum, term| quote! { ::diff::__private::tadd(#sum, #term) })
                .unwrap_or_else(|| quote!(::core::option::Option::None)),
            // y = &a, *a, a copy of *a: da.
            Rule::Identity(a) => self.tan(a),
            // y = a as F: da as F.
            Rule::Cast(a, ty) => {
                let (t, na) = (self.tan(a), self.name(a));
                quote! { ::diff::__private::partial::cast_tangent::<#ty, _>(#t, &#na) }
            }
            // y = a.m: da.m.
            Rule::Read(a, Part::Field(member)) => {
                let t = names::tangent(self.func, a);
                let read = fields::access(quote!((*x)), member, Access::Read, quote!());
                quote! { #t.as_ref().and_then(|x| #read) }
            }
            // y = a[i]: da[i].
            Rule::Read(a, Part::Element(i)) => {
                let (t, ni) = (names::tangent(self.func, a), self.name(i));
                quote! { ::diff::__private::index_tangent(&#t, #ni) }
            }
            // y = b with y.m = v: db with .m = dv.
            Rule::Write(b, Part::Field(m), v) => {
                let (tb, tv, mk) = (self.tan(b), self.tan(v), names::marker(self.func, res));
                let set = fields::access(quote!(d), m, Access::Set, tv);
                quote! { {
                    let mut d = ::diff::__private::same_as(#mk, #tb.unwrap_or_else(::diff::VectorSpace::zero_vector));
                    #set;
                    ::core::option::Option::Some(d)
                } }
            }
            // y = b with y[i] = v: db with [i] = dv.
            Rule::Write(b, Part::Element(i), v) => {
                let (tb, tv, ni, shape) = (
                    self.tan(b),
                    self.tan(v),
                    self.name(i),
                    names::shape(self.func, linear_map::shape_source(self.func, res)),
                );
                quote! { ::core::option::Option::Some(::diff::__private::set_at(#tb, #shape, #ni, #tv)) }
            }
            // y = S { m: v, .. }: zero with .m = dv for the active fields.
            Rule::Build(Build::Struct(fields)) => {
                let sets = fields.iter().map(|(member, v)| (member.clone(), *v));
                self.build_from_zero(res, sets)
            }
            // y = (a, b): (da, db), from a zero of the tuple's tangent type, so that the
            // inactive parts are typed.
            Rule::Build(Build::Tuple(vs)) => {
                let sets = vs
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (syn::Member::Unnamed(syn::Index::from(i)), *v));
                self.build_from_zero(res, sets)
            }
            // y = [a, b] / vec![a, b]: [da, db], zeros for inactive parts.
            Rule::Build(Build::Array(vs) | Build::Vec(vs)) => {
                let ts = vs.iter().map(|v| {
                    let t = self.tan(*v);
                    quote! { #t.unwrap_or_else(::diff::VectorSpace::zero_vector) }
                });
                if matches!(rule, Rule::Build(Build::Vec(_))) {
                    quote! { ::core::option::Option::Some(::std::vec![#(#ts),*]) }
                } else {
                    quote! { ::core::option::Option::Some([#(#ts),*]) }
                }
            }
            // y = op(f)(x): dy = eps(op(f)(x + ε·dx)).
            // With captures carrying derivatives, at `(x, c) + ε·(dx, dc)`, the gradient
            // taken in `c` too; its parts for `x` are kept.
            Rule::Nested(n) => {
                let (active, lifted) = self.nested_on_duals(n, res);
                let (t, x) = (self.tan(n.at), self.name(n.at));
                if !active.contains(&true) {
                    return quote! { ::diff::__private::nested_derivative(&#x, #t, |__lifted| #lifted) };
                }
                let at_active = self.act.is_active(n.at);
                let ext = crate::emit::extended_point(n, &x, &active, |v| self.name(v));
                // (Zero for each part of a point that carries no derivative.)
                let mut direction = n.parts_of(&quote!(__direction));
                if !at_active {
                    direction.fill(quote!(::diff::VectorSpace::zero_vector()));
                }
                for (v, _) in &ext.captured {
                    let t = self.tan(*v);
                    direction.push(quote!(#t.unwrap_or_else(::diff::VectorSpace::zero_vector)));
                }
                let first = at_active.then(|| {
                    quote! { let __direction = #t.unwrap_or_else(::diff::VectorSpace::zero_vector); }
                });
                let own = n.own_parts(&quote::format_ident!("__e"));
                let (checks, point) = (&ext.checks, &ext.point);
                quote! {{
                    #checks
                    #first
                    ::diff::__private::nested_derivative(
                        #point,
                        ::core::option::Option::Some((#(#direction,)*)),
                        |__lifted| #lifted,
                    )
                    .map(|__e| #own)
                }}
            }
            // (y, df) = f_jvp(args): df((dargs..)).
            Rule::Call(args) => {
                let df = names::handle(self.func, res, self.mode);
                let mut ts: Vec<TokenStream> = self.arg_tangents(args).collect();
                // The collection of a sub-slice (`arr[1..]` of an array, whatever made
                // it) gives its tangent as the slice's (a `Vec`).
                let sub_slice = matches!(self.def(res), Some(Inst::Call(Callee::Path(p), _))
                    if crate::ir::is_library_fn(p, "sub_slice"));
                if let (true, Some(first), Some(a)) = (sub_slice, ts.first_mut(), args.first()) {
                    if self.act.is_active(*a) && !self.is_array_argument(*a) {
                        *first = quote!(::diff::__private::slot_into(#first));
                    }
                }
                quote! { #df((#(#ts,)*)) }
            }
            Rule::Zero | Rule::CallMut(_) | Rule::Branch(_) | Rule::Loop { .. } => {
                quote!(::core::option::Option::None)
            }
        }
    }

    /// `Some(d)` where `d` is a zero of `res`'s tangent type with the given parts set to
    /// the active values' tangents.
    fn build_from_zero(
        &self,
        res: Value,
        parts: impl Iterator<Item = (syn::Member, Value)>,
    ) -> TokenStream {
        let m = names::marker(self.func, res);
        let sets = parts
            .filter(|(_, v)| self.act.is_active(*v))
            .map(|(member, v)| {
                let set = fields::access(quote!(d), &member, Access::Set, self.tan(v));
                quote! { #set; }
            });
        quote! { { let mut d = ::diff::__private::zero_marked(#m); #(#sets)* ::core::option::Option::Some(d) } }
    }

    /// The arguments' tangents, a default (an empty slot, or `()`) for inactive ones.
    fn arg_tangents<'v>(&'v self, args: &'v [Value]) -> impl Iterator<Item = TokenStream> + 'v {
        args.iter().map(|a| {
            if self.act.is_active(*a) {
                // An array given for a slice parameter (`&arr`): its tangent is converted
                // to the slice's (a `Vec`).
                let t = self.tan(*a);
                if self.is_array_argument(*a) {
                    quote!(::diff::__private::slot_into(#t))
                } else {
                    t
                }
            } else {
                quote!(::core::default::Default::default())
            }
        })
    }

    /// (y, df) = f_jvp(.., &mut m, ..): (dy, dm..) = df((dargs..)).
    fn tangent_call_mut(&self, stmt: &Stmt, args: &[Value]) -> TokenStream {
        let df = names::handle(self.func, stmt.results[0], self.mode);
        let ts = self.arg_tangents(args);
        let updated = self.updated_arrays(stmt, args);
        let outs = stmt.results.iter().map(|r| {
            if self.act.is_active(*r) {
                let d = self.dname(*r);
                quote!(#d)
            } else {
                quote!(_)
            }
        });
        // An array updated through a `&mut [T]` parameter: its tangent after is the
        // slice's (a `Vec`), converted back.
        let converted = updated
            .iter()
            .map(|k| stmt.results[*k])
            .filter(|r| self.act.is_active(*r))
            .map(|r| {
                let (d, m) = (self.dname(r), names::marker(self.func, r));
                quote! { let #d = ::diff::__private::slot_as(#m, #d); }
            });
        quote! { let (#(#outs,)*) = #df((#(#ts,)*)); #(#converted)* }
    }

    /// Original: `(r.., pred) = if ..` or `match ..`. Tangent: match the predecessor and
    /// run the taken region's tangent code; its yields' tangents are the results'.
    fn tangent_branches(&self, stmt: &Stmt, branches: &[RegionId]) -> TokenStream {
        let (pe, pred) = (names::pred_enum(branches[0]), names::pred(branches[0]));
        let active: Vec<usize> = (0..stmt.results.len())
            .filter(|i| self.act.is_active(stmt.results[*i]))
            .collect();
        let ds = active.iter().map(|i| self.dname(stmt.results[*i]));
        let arms = branches.iter().enumerate().map(|(k, r)| {
            let pat = linear_map::pattern(self.func, self.maps, *r, self.mode);
            let code = self.tangent_region(*r);
            let ys = active
                .iter()
                .map(|i| self.tan(self.func.region(*r).yields[*i]));
            let v = names::variant(&stmt.inst, k);
            quote! { #pe::#v(#pat) => { #code (#(#ys,)*) } }
        });
        quote! { let (#(#ds,)*) = match #pred { #(#arms)* }; }
    }

    /// Original: a loop pushing one struct per iteration. Tangent: walk the tape forwards,
    /// carrying the loop variables' tangents.
    fn tangent_for(&self, stmt: &Stmt, init: &[Value], body: RegionId) -> TokenStream {
        let region = self.func.region(body);
        let tape = names::tape(body);
        let pat = linear_map::pattern(self.func, self.maps, body, self.mode);
        let carried = self.carried(stmt, init.len(), body);
        let cur: Vec<Ident> = carried
            .iter()
            .map(|i| names::ident(&format!("d_carry{}_{i}", body.0)))
            .collect();
        let inits = carried.iter().map(|i| {
            if self.act.is_active(init[*i]) {
                self.tan(init[*i])
            } else {
                let m = names::marker(self.func, init[*i]);
                quote! { ::diff::__private::none_marked(#m) }
            }
        });
        let params = carried.iter().map(|i| self.dname(region.params[*i]));
        let ys = carried.iter().map(|i| self.tan(region.yields[*i]));
        let outs = carried
            .iter()
            .zip(&cur)
            .filter(|(i, _)| self.act.is_active(stmt.results[**i]))
            .map(|(i, c)| {
                let d = self.dname(stmt.results[*i]);
                quote! { let #d = #c; }
            });
        let code = self.tangent_region(body);
        let (walk, enumerate) = linear_map::walk(self.maps, body, pat);
        // A nested loop's run is the next `tape` entries of its stack.
        let entries = if self.maps.stacked(body) {
            let stack = names::stack(body);
            quote! { #stack.take_first(#tape) }
        } else {
            quote! { #tape.into_iter() }
        };
        quote! {
            #(let mut #cur = #inits;)*
            for #walk in #entries #enumerate {
                #(let #params = #cur;)*
                #code
                #(#cur = #ys;)*
            }
            #(#outs)*
        }
    }
}
