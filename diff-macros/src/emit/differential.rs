//! Forward mode: the differential runs each region's statements forwards on tangents
//! (`Option`, None is zero), reading the same structs as the pullback.
//!
//! Each rule documents its `Original:` and `Tangent:` forms.
use super::primal::Emitter;
use crate::emit::names;
use crate::ir::{BinOp, Inst, RegionId, Stmt, Value};
use crate::linear_map;
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
        let res = stmt.results[0];
        let d = self.dname(res);
        let e = match &stmt.inst {
            // Original: p = param i. Tangent: the input tangent i.
            Inst::Param(i) => {
                let input = names::ident(&format!("d_in{i}"));
                quote!(#input)
            }
            // Original: y = a + b. Tangent: da + db.
            Inst::Binary(BinOp::Add, a, b) => {
                self.sum(*a, ("tid", quote!()), *b, ("tid", quote!()))
            }
            // Original: y = a - b. Tangent: da - db.
            Inst::Binary(BinOp::Sub, a, b) => {
                self.sum(*a, ("tid", quote!()), *b, ("tneg", quote!()))
            }
            // Original: y = a * b. Tangent: da * b + a * db.
            Inst::Binary(BinOp::Mul, a, b) => {
                let (na, nb) = (self.name(*a), self.name(*b));
                self.sum(*a, ("tmul_r", quote!(#nb)), *b, ("tmul_l", quote!(#na)))
            }
            // Original: y = a / b. Tangent: da / b - y * db / b.
            Inst::Binary(BinOp::Div, a, b) => {
                let (nb, ny) = (self.name(*b), self.name(res));
                self.sum(
                    *a,
                    ("tdiv", quote!(#nb)),
                    *b,
                    ("tdiv_den", quote!(#ny, #nb)),
                )
            }
            // Original: y = a % b. Tangent: da - db * trunc(a / b).
            Inst::Binary(BinOp::Rem, a, b) => {
                let (na, nb) = (self.name(*a), self.name(*b));
                self.sum(*a, ("tid", quote!()), *b, ("trem_den", quote!(#na, #nb)))
            }
            // Original: y = -a. Tangent: -da.
            Inst::Neg(a) => {
                let t = self.tan(*a);
                quote! { ::diff::__private::tangent::tneg(#t) }
            }
            // Original: y = a as F. Tangent: da as F.
            Inst::Cast(a, ty) => {
                let t = self.tan(*a);
                quote! { ::diff::__private::tangent::tcast::<_, #ty>(#t) }
            }
            // Original: y = S { m: v, .. }. Tangent: zero with .m = dv for active fields.
            Inst::Struct(_, fields) => {
                let m = names::marker(self.func, res);
                let sets =
                    fields
                        .iter()
                        .filter(|(_, v)| self.act.is_active(*v))
                        .map(|(member, v)| {
                            let t = self.tan(*v);
                            quote! { d.#member = #t.unwrap_or_else(::diff::VectorSpace::zero); }
                        });
                quote! { { let mut d = ::diff::__private::zero_marked(#m); #(#sets)* ::core::option::Option::Some(d) } }
            }
            // Original: y = b with y.m = v. Tangent: db with .m = dv.
            Inst::SetField(b, m, v) => {
                let (tb, tv, mk) = (self.tan(*b), self.tan(*v), names::marker(self.func, res));
                quote! { {
                    let mut d = ::diff::__private::same_as(#mk, #tb.unwrap_or_else(::diff::VectorSpace::zero));
                    d.#m = #tv.unwrap_or_else(::diff::VectorSpace::zero);
                    ::core::option::Option::Some(d)
                } }
            }
            // Original: y = b with y[i] = v. Tangent: db with [i] = dv.
            Inst::SetIndex(b, i, v) => {
                let (tb, tv, ni, shape) = (
                    self.tan(*b),
                    self.tan(*v),
                    self.name(*i),
                    names::shape(self.func, res),
                );
                quote! { ::core::option::Option::Some(::diff::__private::set_at(#tb, #shape, #ni, #tv)) }
            }
            // Original: y = &a, *a, a copy of *a. Tangent: da.
            Inst::Load(a) => self.tan(*a),
            // Original: (y, df) = f_jvp(.., &mut m, ..). Tangent: (dy, dm..) = df((dargs..)).
            Inst::CallMut(_, args, _) => {
                let df = names::handle(self.func, res, self.mode);
                let ts = args.iter().map(|a| {
                    if self.act.is_active(*a) {
                        self.tan(*a)
                    } else {
                        quote!(::core::default::Default::default())
                    }
                });
                let outs = stmt.results.iter().map(|r| {
                    if self.act.is_active(*r) {
                        let d = self.dname(*r);
                        quote!(#d)
                    } else {
                        quote!(_)
                    }
                });
                return quote! { let (#(#outs,)*) = #df((#(#ts,)*)); };
            }
            // Original: y = &a, *a. Tangent: da.
            Inst::Ref(a, _) | Inst::Deref(a) => self.tan(*a),
            // Original: (y, df) = f_jvp(args). Tangent: df((dargs..)).
            Inst::Call(_, args) => {
                let df = names::handle(self.func, res, self.mode);
                let ts = args.iter().map(|a| {
                    if self.act.is_active(*a) {
                        self.tan(*a)
                    } else {
                        quote!(::core::default::Default::default())
                    }
                });
                quote! { #df((#(#ts,)*)) }
            }
            // Original: y = (a, b). Tangent: (da, db), with zeros for inactive parts.
            Inst::Tuple(vs) => {
                // From a zero of the tuple's tangent type, so inactive parts are typed.
                let m = names::marker(self.func, res);
                let sets = vs
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| self.act.is_active(**v))
                    .map(|(i, v)| {
                        let (t, i) = (self.tan(*v), syn::Index::from(i));
                        quote! { d.#i = #t.unwrap_or_else(::diff::VectorSpace::zero); }
                    });
                quote! { { let mut d = ::diff::__private::zero_marked(#m); #(#sets)* ::core::option::Option::Some(d) } }
            }
            // Original: y = [a, b] / vec![a, b]. Tangent: [da, db], zeros for inactive parts.
            Inst::Array(vs, is_vec) => {
                let ts = vs.iter().map(|v| {
                    let t = self.tan(*v);
                    quote! { #t.unwrap_or_else(::diff::VectorSpace::zero) }
                });
                if *is_vec {
                    quote! { ::core::option::Option::Some(::std::vec![#(#ts),*]) }
                } else {
                    quote! { ::core::option::Option::Some([#(#ts),*]) }
                }
            }
            // Original: y = a.m / a[i]. Tangent: da.m / da[i].
            Inst::Field(a, member) => {
                let t = names::tangent(self.func, *a);
                quote! { #t.as_ref().map(|x| ::core::clone::Clone::clone(&x.#member)) }
            }
            Inst::Index(a, i) => {
                let (t, ni) = (names::tangent(self.func, *a), self.name(*i));
                quote! { ::diff::__private::index_tangent(&#t, #ni) }
            }
            Inst::If { .. } | Inst::Match { .. } => return self.tangent_branches(stmt),
            Inst::For { init, body, .. } => return self.tangent_for(stmt, init, *body),
            Inst::Opaque(_) | Inst::Const(_) | Inst::NoDerivative(_) => return TokenStream::new(),
        };
        quote! { let #d = #e; }
    }

    /// `f(da) + g(db)` over optional tangents, for whichever operands are active.
    ///
    /// `fa`/`fb` name a helper of `diff_core::__private::tangent` and its extra arguments:
    /// `("tmul_r", b)` is `da.map(|x| x * b)`, a generic function so that rustc need not
    /// know the tangent's type where it is called.
    fn sum(
        &self,
        a: Value,
        fa: (&str, TokenStream),
        b: Value,
        fb: (&str, TokenStream),
    ) -> TokenStream {
        let call = |v: Value, (name, args): (&str, TokenStream)| {
            let (t, f) = (self.tan(v), names::ident(name));
            quote! { ::diff::__private::tangent::#f(#t, #args) }
        };
        match (self.act.is_active(a), self.act.is_active(b)) {
            (true, true) => {
                let (x, y) = (call(a, fa), call(b, fb));
                quote! { ::diff::__private::tadd(#x, #y) }
            }
            (true, false) => call(a, fa),
            _ => call(b, fb),
        }
    }

    /// Original: `(r.., pred) = if ..` or `match ..`. Tangent: match the predecessor and
    /// run the taken region's tangent code; its yields' tangents are the results'.
    fn tangent_branches(&self, stmt: &Stmt) -> TokenStream {
        let branches = stmt.inst.branches().expect("a branching instruction");
        let (pe, pred) = (names::pred_enum(branches[0]), names::pred(branches[0]));
        let active: Vec<usize> = (0..stmt.results.len())
            .filter(|i| self.act.is_active(stmt.results[*i]))
            .collect();
        let ds = active.iter().map(|i| self.dname(stmt.results[*i]));
        let arms = branches.iter().enumerate().map(|(k, r)| {
            let pat = linear_map::pattern(self.func, self.act, *r, self.mode);
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
        let pat = linear_map::pattern(self.func, self.act, body, self.mode);
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
        quote! {
            #(let mut #cur = #inits;)*
            for #pat in #tape.into_iter() {
                #(let #params = #cur;)*
                #code
                #(#cur = #ys;)*
            }
            #(#outs)*
        }
    }
}
