//! The augmented primal: the original computation, with derivative rules' saved values
//! and callee pullbacks (or differentials) collected into each region's struct.
//! Shared by both modes; only the callee companions differ.
use crate::analysis::activity::Activity;
use crate::emit::names::{self, Mode};
use crate::ir::{BinOp, Borrow, Callee, Function, Inst, MatchArm, RegionId, Sequence, Stmt, Value};
use crate::linear_map::{self, Derived, LinearMaps, Saved};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};

/// Emits code for one companion.
pub struct Emitter<'a> {
    pub func: &'a Function,
    pub act: &'a Activity,
    pub mode: Mode,
    /// The companion's parameter names, in order (`self` for a receiver).
    pub params: Vec<TokenStream>,
    /// For a function's companion: how to recognize and box its recursive calls.
    pub recursion: Option<Recursion>,
    /// What each region's linear map holds.
    pub maps: &'a LinearMaps,
    /// Whether the companion runs on dual numbers (`lifting.rs`): its calls are to the
    /// callees' dual companions.
    pub dual: bool,
    /// Differentiated parameters the body takes as constants (a dual companion's
    /// receiver, `emit/dual.rs`): their slots in the pullback are zero (`None`).
    pub constant_params: Vec<usize>,
    /// While a loop's pullback is emitted: the parts of values defined outside it that
    /// its body reads, each with the local adjoint the loop sums them in
    /// (`emit/pullback.rs`, `Deferred`).
    pub deferred: std::cell::RefCell<Vec<super::pullback::Deferred>>,
}

/// A function calling itself: its companion's opaque return type would contain itself, so
/// the recursive call's pullback (or differential) is boxed, the one allocation per call
/// Rust's types require.
#[derive(Clone)]
pub struct Recursion {
    /// The function's name.
    pub name: String,
    /// Whether it has a receiver (then `x.name(..)` may call it).
    pub method: bool,
    /// Whether the receiver is a float ([`crate::parse::signature::FnSig::float_self`]).
    pub float_self: bool,
    /// `Box<dyn FnOnce(..) -> ..>` of the companion being emitted.
    pub boxed: TokenStream,
    /// Whether a function it calls calls it back: then the linear map it returns is
    /// boxed.
    pub mutual: bool,
}

impl Recursion {
    /// The recursion of the function with signature `sig`, whose companion's linear map
    /// boxed is `boxed`.
    pub fn of(sig: &crate::parse::signature::FnSig, boxed: TokenStream) -> Self {
        Recursion {
            name: sig.ident.to_string(),
            method: sig.has_receiver(),
            float_self: sig.float_self,
            boxed,
            mutual: sig.mutual,
        }
    }
}

impl<'a> Emitter<'a> {
    pub fn new(
        func: &'a Function,
        act: &'a Activity,
        maps: &'a LinearMaps,
        mode: Mode,
        params: Vec<TokenStream>,
    ) -> Self {
        Emitter {
            func,
            act,
            mode,
            params,
            recursion: None,
            maps,
            dual: false,
            constant_params: Vec::new(),
            deferred: Default::default(),
        }
    }

    /// The instruction defining `v` (`None` for a region parameter).
    pub(super) fn def(&self, v: Value) -> Option<&'a Inst> {
        self.func.def(v).map(|s| &s.inst)
    }

    /// Whether argument `a` is an array given where a slice may be expected (`&arr` of an
    /// array literal or parameter, or an array parameter taken by reference): its
    /// derivative slot is converted to the parameter's (`slot_into`), which rustc then
    /// picks by type. (Only there: elsewhere the conversion could leave a slot's type
    /// undetermined.)
    pub(super) fn is_array_argument(&self, a: Value) -> bool {
        let v = match self.def(a) {
            Some(Inst::Ref(r, _)) => *r,
            _ => a,
        };
        self.is_array(v, 0)
    }

    /// Whether `v` is an array: built as one, an array parameter, an element write of
    /// one, or a loop's variable starting as one.
    fn is_array(&self, v: Value, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        let stmt = self.func.def(v);
        let k = stmt.and_then(|s| s.results.iter().position(|r| *r == v));
        match self.def(v) {
            Some(Inst::Array(_, crate::ir::Sequence::Array)) => true,
            Some(Inst::Param(i)) => self.func.arrays.contains(i),
            // An element of a collection of arrays (`xs[i]` of `xs: &[[f64; 2]]`).
            Some(Inst::Index(base, _)) => matches!(self.def(*base),
                Some(Inst::Param(i)) if self.func.array_elements.contains(i)),
            Some(Inst::SetIndex(base, _, _)) => self.is_array(*base, depth + 1),
            // A loop's result: as its variable starts; a branch's: as one branch yields it.
            Some(Inst::For { init, .. }) => k
                .and_then(|k| init.get(k))
                .is_some_and(|i| self.is_array(*i, depth + 1)),
            Some(inst @ (Inst::If { .. } | Inst::Match { .. })) => {
                inst.branches().unwrap_or_default().iter().any(|b| {
                    k.and_then(|k| self.func.region(*b).yields.get(k))
                        .is_some_and(|y| self.is_array(*y, depth + 1))
                })
            }
            Some(_) => false,
            // A loop's carried variable: as it starts.
            None => self
                .func
                .regions
                .iter()
                .flat_map(|r| &r.stmts)
                .any(|s| match &s.inst {
                    Inst::For { init, body, .. } => self
                        .func
                        .region(*body)
                        .params
                        .iter()
                        .position(|p| *p == v)
                        .and_then(|k| init.get(k))
                        .is_some_and(|i| self.is_array(*i, depth + 1)),
                    _ => false,
                }),
        }
    }

    /// The positions among a `CallMut` statement's results (`1..`) of the arrays it updates
    /// through a parameter that may be a slice ([`Self::is_array_argument`]).
    pub(super) fn updated_arrays(&self, stmt: &crate::ir::Stmt, args: &[Value]) -> Vec<usize> {
        let Inst::CallMut(_, _, positions) = &stmt.inst else {
            return Vec::new();
        };
        positions
            .iter()
            .enumerate()
            .filter(|(_, p)| args.get(**p).is_some_and(|a| self.is_array_argument(*a)))
            .map(|(j, _)| j + 1)
            .collect()
    }

    /// Whether `v` is a place (`a.f`, `a[i]`, `*a`) emitted inline rather than bound, so
    /// that borrowing it (`&self.w`) or calling a method on it does not move it.
    pub fn is_place(&self, v: Value) -> bool {
        matches!(
            self.def(v),
            Some(Inst::Field(..) | Inst::Index(..) | Inst::Deref(_))
        )
    }

    /// Whether `v` is `b`, or a place in `b` or a reference to it (`b[i].f`, `&b`).
    fn based_on(&self, v: Value, b: Value) -> bool {
        v == b
            || match self.def(v) {
                Some(Inst::Index(base, _) | Inst::Field(base, _) | Inst::Deref(base))
                | Some(Inst::Ref(base, _)) => self.based_on(*base, b),
                _ => false,
            }
    }

    /// Whether statement `stmt` (or a region nested in it) reads `b`.
    fn reads(&self, stmt: &Stmt, b: Value) -> bool {
        stmt.inst.operands().iter().any(|v| self.based_on(*v, b))
            || stmt.inst.regions().iter().any(|sub| {
                let region = self.func.region(*sub);
                region.stmts.iter().any(|s| self.reads(s, b))
                    || region.yields.iter().any(|y| self.based_on(*y, b))
            })
    }

    /// Whether `stmt` is the last to read the owned value `b`: `b` is defined in the
    /// same region (so not read again by a later iteration), is no place and no borrowed
    /// parameter, no linear map saves it (or a place in it), and no later statement or
    /// yield of the region reads it.
    fn last_read(&self, b: Value, stmt: &Stmt) -> bool {
        let Some(res) = stmt.results.first() else {
            return false;
        };
        let (r, k) = self.func.position(*res);
        if self.func.position(b).0 != r || self.is_place(b) {
            return false;
        }
        if matches!(self.def(b), Some(Inst::Param(i)) if self.func.by_ref.contains(i)) {
            return false;
        }
        if self
            .maps
            .parts()
            .iter()
            .any(|p| matches!(p, Saved::Value(w) if self.based_on(*w, b)))
        {
            return false;
        }
        let region = self.func.region(RegionId(r));
        !region.stmts[k..].iter().any(|s| self.reads(s, b))
            && !region.yields.iter().any(|y| self.based_on(*y, b))
    }

    /// The expressions of `values`, yielded together (one tuple, or assignments in order),
    /// and the bindings to emit before them. Yielding a value moves it, so a place in
    /// another of them (`arr[i]` beside `arr`, as a loop's join may yield) is read first.
    pub fn yielded(&self, values: &[Value]) -> (TokenStream, Vec<TokenStream>) {
        let mut early = TokenStream::new();
        let exprs = values
            .iter()
            .enumerate()
            .map(|(k, &v)| {
                // A value yielded twice (the result of an early `return m;` and the
                // variable `m` after the branch): moved by the last, cloned before.
                if values[k + 1..].contains(&v) {
                    let e = self.expr(v);
                    return quote!(::core::clone::Clone::clone(&#e));
                }
                let moved_base = values
                    .iter()
                    .any(|&w| w != v && !self.is_place(w) && self.based_on(v, w));
                if !(self.is_place(v) && moved_base) {
                    return self.expr(v);
                }
                let (e, name) = (self.expr(v), names::ident(&format!("read_{}", v.0)));
                early.extend(quote! { let #name = #e; });
                quote!(#name)
            })
            .collect();
        (early, exprs)
    }

    /// The local holding `v` (for a place: the name it has in structs).
    pub fn name(&self, v: Value) -> Ident {
        names::value(self.func, v)
    }

    /// An expression for the primal value `v`.
    pub fn expr(&self, v: Value) -> TokenStream {
        match self.def(v) {
            Some(Inst::Field(base, member)) => {
                let b = self.expr(*base);
                quote! { (#b.#member) }
            }
            Some(Inst::Index(base, index)) => {
                let (b, i) = (self.expr(*base), self.expr(*index));
                quote! { (#b[#i]) }
            }
            Some(Inst::Deref(base)) => {
                let b = self.expr(*base);
                quote! { (*#b) }
            }
            _ => self.name(v).into_token_stream(),
        }
    }

    /// How a primal value is saved for the linear map: a reference (an element of a
    /// collection iterated with `.iter()`) is saved as a copy of its referent, so the
    /// linear map does not borrow the function's locals.
    pub fn saved_expr(&self, v: Value) -> TokenStream {
        if self.is_place(v) && self.maps.reads(Saved::Value(v)) {
            return self.name(v).into_token_stream();
        }
        match self.def(v) {
            Some(Inst::Ref(..)) => {
                let n = self.name(v);
                quote! { ::core::clone::Clone::clone(#n) }
            }
            // An owned copy (a `Vec` for a slice), which the linear map may index.
            Some(Inst::Param(i)) if self.func.by_ref.contains(i) => {
                let n = self.name(v);
                quote! { ::std::borrow::ToOwned::to_owned(#n) }
            }
            // An item, a binding or what is read from one, maybe a reference into a
            // local (`for c in TABLE.iter()` iterates a copy of the constant): its
            // referent's copy.
            None if self.func.is_bound_param(v) => self.saved_copy(v),
            Some(Inst::Load(a)) if self.read_from_binding(*a) => self.saved_copy(v),
            _ => self.expr(v),
        }
    }

    /// Whether the place `p` is (a part of) a loop's item or a `match` binding.
    fn read_from_binding(&self, p: Value) -> bool {
        match self.def(p) {
            None => self.func.is_bound_param(p),
            Some(Inst::Ref(a, _) | Inst::Deref(a) | Inst::Field(a, _) | Inst::Index(a, _)) => {
                self.read_from_binding(*a)
            }
            _ => false,
        }
    }

    /// A copy of `v`, or of its referent when it is a reference (`Saving` in diff-core).
    fn saved_copy(&self, v: Value) -> TokenStream {
        let n = self.name(v);
        quote! {{
            #[allow(unused_imports)]
            use ::diff::__private::{SaveReferent as _, SaveValue as _};
            (&::diff::__private::Saving(&#n)).save()
        }}
    }

    /// The loop-carried values (of a `For` statement with `n` of them) that need a
    /// derivative: those active inside the body or after the loop.
    pub fn carried(&self, stmt: &Stmt, n: usize, body: RegionId) -> Vec<usize> {
        let params = &self.func.region(body).params;
        (0..n)
            .filter(|i| self.act.is_active(stmt.results[*i]) || self.act.is_active(params[*i]))
            .collect()
    }

    /// `let c = 0.5;` for the constants the rules of `r` read, then the values computed
    /// again from saved ones (`let t = 100.0 * a;`): evaluated again rather than saved.
    pub fn constants(&self, r: RegionId) -> TokenStream {
        let consts = self.maps.rematerialized(r).iter().map(|(v, t)| {
            let n = self.name(*v);
            quote! { let #n = #t; }
        });
        let copy = |v: Value| {
            let n = self.name(v);
            quote! { ::core::clone::Clone::clone(&#n) }
        };
        let derived = self.maps.derived(r).iter().map(|(v, d)| {
            let n = self.name(*v);
            let e = match *d {
                Derived::Alias(a) => copy(a),
                Derived::Neg(a) => {
                    let a = copy(a);
                    quote! { -#a }
                }
                // An array parameter the function only reads: an index it checked.
                Derived::Index(b, i) if self.is_constant_array(b) => {
                    let (b, i) = (self.name(b), self.name(i));
                    quote! { ::diff::__private::read_again(&#b, #i) }
                }
                Derived::Index(b, i) => {
                    let (b, i) = (self.name(b), self.name(i));
                    quote! { ::core::clone::Clone::clone(&#b[#i]) }
                }
                Derived::IndexCopy(b, i) => {
                    let (all, at) = (names::copies(self.func, b), names::copy(self.func, b));
                    let i = self.name(i);
                    quote! { ::core::clone::Clone::clone(&#all[#at + #i]) }
                }
                Derived::LoopIndex(start) => {
                    let (start, k) = (copy(start), linear_map::position_name(r));
                    quote! { ::diff::__private::nth_from(#start, #k) }
                }
                Derived::Binary(op, a, b) => {
                    let (a, b, op) = (copy(a), copy(b), binop(op, Span::call_site()));
                    quote! { #a #op #b }
                }
            };
            quote! { let #n = #e; }
        });
        consts.chain(derived).collect()
    }

    /// Whether `v` is an array parameter taken by value (which a linear map reads again
    /// only when the body never updates it, `linear_map.rs`).
    fn is_constant_array(&self, v: Value) -> bool {
        matches!(self.def(v), Some(Inst::Param(k))
            if self.func.arrays_by_value.contains(k) && !self.func.by_ref.contains(k))
    }

    fn stmt_active(&self, stmt: &Stmt) -> bool {
        stmt.results.iter().any(|v| self.act.is_active(*v))
    }

    /// The statements of region `r`, without building its struct.
    pub fn primal_region(&self, r: RegionId) -> TokenStream {
        self.func
            .region(r)
            .stmts
            .iter()
            .map(|s| {
                let code = self.primal_stmt(s);
                let parts = self.eager_parts(&s.results);
                quote! { #code #parts }
            })
            .collect()
    }

    /// The shapes and tangent-type markers of `values` that linear maps read, taken as
    /// soon as the values exist (a value may be moved before its region's struct is built).
    pub fn eager_parts(&self, values: &[Value]) -> TokenStream {
        let mut out = TokenStream::new();
        for v in values {
            for part in self.maps.parts() {
                match part {
                    Saved::Copy(w) if w == v => {
                        let (n, e) = (names::copy(self.func, *v), self.expr(*v));
                        let all = names::copies(self.func, *v);
                        out.extend(quote! {
                            let #n = #all.len();
                            #all.extend_from_slice(&#e);
                        });
                    }
                    Saved::Shape(w) if w == v => {
                        let (n, e) = (names::shape(self.func, *v), self.expr(*v));
                        out.extend(quote! { let #n = ::diff::__private::shape_of(&#e); });
                    }
                    Saved::Marker(w) if w == v => {
                        let (n, e) = (names::marker(self.func, *v), self.expr(*v));
                        // A constant, a call's result or a collection literal (`0.0`, a
                        // placeholder `Default::default()`, `vec![]`) may not have its
                        // type inferred yet: a path call defers it, where a method call
                        // would not (and such a value is no reference to see through).
                        let marker = match self.def(*v) {
                            Some(Inst::Const(_) | Inst::Call(..) | Inst::Array(..)) => quote! {
                                ::diff::__private::MarkerOf::__diff_marker(&#e)
                            },
                            _ => quote! { #e.__diff_marker() },
                        };
                        out.extend(quote! { let #n = #marker; });
                    }
                    // A place a rule reads (`p.b * p.b`) is copied where it is read: the
                    // place's owner may be moved before the region's struct is built.
                    Saved::Value(w) if w == v && self.is_place(*v) => {
                        let (n, e) = (self.name(*v), self.expr(*v));
                        out.extend(quote! { let #n = ::core::clone::Clone::clone(&#e); });
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Region `r`'s statements followed by its struct; evaluates to `(yields.., struct)`.
    fn region_block(
        &self,
        r: RegionId,
        active: bool,
        tail: impl FnOnce(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let body = self.primal_region(r);
        let (early, yields) = self.yielded(&self.func.region(r).yields);
        let built = linear_map::construct(self.func, self.maps, r, self.mode, |v, saved| {
            if saved {
                self.saved_expr(v)
            } else {
                self.expr(v)
            }
        });
        if active {
            // The struct first: it reads places of values the yields may then move.
            let t = tail(quote!(linear_map));
            quote! { { #body let linear_map = #built; #early (#(#yields,)* #t) } }
        } else {
            quote! { { #body #early (#(#yields,)*) } }
        }
    }

    /// Where the float rules differentiate active arithmetic in a crate with arithmetic
    /// of its own ([`crate::ir::Function::checks_float_arithmetic`]): a check, at the
    /// user's expression, that its result `res` is a float.
    fn float_arithmetic(&self, res: &Option<Ident>, span: Span, active: bool) -> TokenStream {
        if !(active && self.func.checks_float_arithmetic) || self.dual {
            return TokenStream::new();
        }
        // (The result named at the user's expression, where rustc reports it.)
        let res = res
            .as_ref()
            .map(|r| Ident::new(&r.to_string(), crate::hygiene::own_at(span)));
        quote_spanned! {span=> {
            let __diff_value = &#res;
            ::diff::__private::float_arithmetic(__diff_value);
        } }
    }

    fn primal_stmt(&self, stmt: &Stmt) -> TokenStream {
        let active = self.stmt_active(stmt);
        let span = stmt.span;
        let res = stmt.results.first().map(|v| self.name(*v));
        if stmt.results.len() == 1 && self.is_place(stmt.results[0]) {
            return TokenStream::new();
        }
        // A tuple, array or struct nothing reads (one destructured where it is built,
        // `let (v, g) = value_with_gradient!(..)`) is not built: it would move its parts,
        // which are read by themselves.
        let built = matches!(
            stmt.inst,
            Inst::Tuple(_) | Inst::Array(..) | Inst::Struct(..)
        );
        if built && !active && self.func.uses(stmt.results[0]) == 0 {
            return TokenStream::new();
        }
        match &stmt.inst {
            Inst::Param(i) => {
                let p = &self.params[*i];
                quote! { let mut #res = #p; }
            }
            // The user's span makes rustc's errors point at the expression; `mut` keeps the
            // macro's, so that an unused one is not a warning in the user's code.
            Inst::Const(t) => {
                let m = quote!(mut);
                quote_spanned! {span=> let #m #res = #t; }
            }
            Inst::Opaque(o) => {
                let (t, m) = (self.substitute(o.tokens.clone(), &o.uses), quote!(mut));
                quote_spanned! {span=> let #m #res = #t; }
            }
            Inst::Binary(op, a, b) => {
                let (a, b, op) = (self.expr(*a), self.expr(*b), binop(*op, span));
                let check = self.float_arithmetic(&res, span, active);
                quote! { let mut #res = #a #op #b; #check }
            }
            Inst::Neg(a) => {
                let a = self.expr(*a);
                let check = self.float_arithmetic(&res, span, active);
                quote! { let mut #res = -#a; #check }
            }
            Inst::Call(callee, args) => self.primal_call(stmt, callee, args, active),
            Inst::CallMut(callee, args, mutated) => {
                self.primal_call_mut(stmt, callee, args, mutated, active)
            }
            Inst::Struct(path, fields) => {
                let fs = fields.iter().map(|(m, v)| {
                    let e = self.expr(*v);
                    quote! { #m: #e }
                });
                quote! { let mut #res = #path { #(#fs),* }; }
            }
            Inst::SetField(b, m, v) => {
                let (b, v) = (self.expr(*b), self.expr(*v));
                quote! { let mut #res = ::core::clone::Clone::clone(&#b); #res.#m = #v; }
            }
            Inst::SetIndex(b, i, v) => {
                // The old collection is updated in place when nothing reads it afterwards
                // (a copy per element write would make a loop over `v[i] = ..` quadratic).
                let in_place =
                    self.last_read(*b, stmt) && !self.based_on(*i, *b) && !self.based_on(*v, *b);
                let (b, i, v) = (self.expr(*b), self.expr(*i), self.expr(*v));
                if in_place {
                    quote! { let mut #res = #b; #res[#i] = #v; }
                } else {
                    quote! { let mut #res = ::core::clone::Clone::clone(&#b); #res[#i] = #v; }
                }
            }
            Inst::Load(a) => {
                let a = self.expr(*a);
                quote! { let mut #res = ::diff::__private::Pointee::load(&*#a); }
            }
            Inst::Tuple(vs) => {
                let vs = vs.iter().map(|v| self.expr(*v));
                quote! { let mut #res = (#(#vs,)*); }
            }
            Inst::Array(vs, Sequence::Array) => {
                let vs = vs.iter().map(|v| self.expr(*v));
                quote! { let mut #res = [#(#vs),*]; }
            }
            Inst::Array(vs, Sequence::Vec) => {
                let vs = vs.iter().map(|v| self.expr(*v));
                quote! { let mut #res = ::std::vec![#(#vs),*]; }
            }
            Inst::Ref(a, m) => {
                let a = self.expr(*a);
                let m = (*m == Borrow::Mut).then(|| quote!(mut));
                quote! { let #res = &#m #a; }
            }
            Inst::NoDerivative(a) => {
                let a = self.expr(*a);
                quote! { let mut #res = (#a).__diff_cut(); }
            }
            Inst::Cast(a, ty) => {
                let a = self.expr(*a);
                quote! { let mut #res = #a as #ty; }
            }
            Inst::Nested(n) => {
                // The closure reads the captures as the body has them.
                let reads: Vec<Value> = n.captures.iter().map(|c| c.read).collect();
                let (op, of) = (&n.op, self.substitute(n.of.to_token_stream(), &reads));
                // A copy: the linear map keeps the point.
                let at = n.point(self.expr(n.at), true);
                let lets = super::environment::lets(&super::environment::lent(
                    self.func,
                    stmt.results[0],
                    n,
                ));
                quote! { #lets let mut #res = ::diff::#op!(at: #at, of: #of); }
            }
            Inst::Field(..) | Inst::Index(..) | Inst::Deref(_) => TokenStream::new(),
            Inst::If {
                cond,
                then_region,
                else_region,
            } => self.primal_if(stmt, *cond, *then_region, *else_region, active),
            Inst::Match { scrutinee, arms } => self.primal_match(stmt, *scrutinee, arms, active),
            Inst::For {
                iter,
                init,
                body,
                stop,
            } => self.primal_for(stmt, (*iter, init), *body, *stop, active),
        }
    }

    fn primal_call(
        &self,
        stmt: &Stmt,
        callee: &Callee,
        args: &[Value],
        active: bool,
    ) -> TokenStream {
        self.primal_call_mut(stmt, callee, args, &[], active)
    }

    /// A call; the arguments at `mutated` positions are `&mut` borrows of fresh locals
    /// holding the variables' current values, which the call updates in place (they are
    /// the statement's results after the first).
    fn primal_call_mut(
        &self,
        stmt: &Stmt,
        callee: &Callee,
        args: &[Value],
        mutated: &[usize],
        active: bool,
    ) -> TokenStream {
        let res = self.name(stmt.results[0]);
        // On dual numbers, a call of a function that reads them but whose result carries
        // no derivative still goes to the callee's dual companion (the original takes
        // floats), its linear map dropped.
        let through_dual = self.dual
            && !active
            && (matches!(callee, Callee::Path(p) if !crate::ir::is_library_path(p))
                || matches!(callee, Callee::OnTwin { .. }))
            && stmt.results.iter().any(|r| self.act.varied.contains(r));
        let mut lets = TokenStream::new();
        let mut argv: Vec<TokenStream> = args.iter().map(|v| self.expr(*v)).collect();
        if !mutated.is_empty() {
            // The other arguments are read before the mutated locals are moved into place
            // (`p.scale(p.b)`).
            // (A method's receiver is borrowed, as the call would: a field of a type that
            // is not `Copy`, `self.f.system(..)`, cannot be moved out of `&self`.)
            let method = matches!(callee, Callee::Method { .. });
            for (i, a) in argv.iter_mut().enumerate() {
                if !mutated.contains(&i) && self.is_place(args[i]) {
                    let t = names::ident(&format!("arg_{}_{i}", stmt.results[0].0));
                    match method && i == 0 {
                        true => lets.extend(quote! { let #t = &#a; }),
                        false => lets.extend(quote! { let #t = #a; }),
                    }
                    *a = quote!(#t);
                }
            }
        }
        for (k, i) in mutated.iter().enumerate() {
            let (n, cur) = (self.name(stmt.results[k + 1]), &argv[*i]);
            // A place (`bodies[i].step(dt)`) is updated in a copy, which the lowering
            // writes back into its owner.
            if self.is_place(args[*i]) {
                lets.extend(quote! { let mut #n = ::core::clone::Clone::clone(&#cur); });
            } else {
                lets.extend(quote! { let mut #n = #cur; });
            }
            // A method's receiver is borrowed by the call itself.
            let is_receiver = *i == 0 && matches!(callee, Callee::Method { .. });
            argv[*i] = if is_receiver {
                quote!(#n)
            } else {
                quote!(&mut #n)
            };
        }
        let call = match callee {
            Callee::Path(p) => {
                let mut p = p.clone();
                // The library's own rules (`::diff::__private::vec_repeat`) are generic.
                let library = crate::ir::is_library_path(&p);
                if (active || through_dual) && self.dual && !library {
                    // A dual companion's parameters take what `LiftTo` converts to (and a
                    // parameter of a generic type, `coefficients: I`, is given as it is).
                    let as_they_are = p
                        .path
                        .segments
                        .last()
                        .map(|f| crate::source::iterable_params(stmt.span, &f.ident.to_string()))
                        .unwrap_or_default();
                    let kind = names::Kind::VjpDual;
                    lift_generic_arguments(&mut p.path);
                    p = names::companion_expr(&p, kind);
                    // (`None` is given as it is: of no type of its own, it takes the
                    // parameter's.)
                    let argv = argv.iter().zip(args).enumerate().map(|(k, (a, v))| {
                        if self.is_none_literal(*v) || as_they_are.contains(&k) {
                            a.clone()
                        } else {
                            lift_to(a)
                        }
                    });
                    quote_spanned! {stmt.span=> #p(#(#argv),*) }
                } else {
                    if active {
                        let kind = names::Kind::of(self.mode);
                        p = names::companion_expr(&p, kind);
                    }
                    quote_spanned! {stmt.span=> #p(#(#argv),*) }
                }
            }
            Callee::Method {
                method,
                turbofish,
                of_trait,
                user,
            } => {
                // A method of the user's on dual numbers: its dual companion, which takes
                // what `LiftTo` converts to (the float methods' rules are generic).
                let user_dual = active && self.dual && !crate::lifting::calls_rule(method, *user);
                // A trait's method on a receiver that carries no derivative: the
                // companion taking it as a constant, which needs no `Differentiable`.
                let constant = *of_trait && !self.act.is_active(args[0]);
                let kind = if user_dual {
                    Some(names::Kind::VjpDual)
                } else if active {
                    Some(names::Kind::of(self.mode))
                } else {
                    None
                };
                let m = match kind {
                    Some(k) if constant => k.constant_receiver(method),
                    Some(k) => k.long(method),
                    None => method.clone(),
                };
                if user_dual {
                    for a in argv.iter_mut().skip(1) {
                        *a = lift_to(a);
                    }
                }
                let tf = turbofish.as_ref().map(|t| {
                    let mut t = t.clone();
                    t.colon2_token = Some(Default::default());
                    quote!(#t)
                });
                let recv = &argv[0];
                let rest = &argv[1..];
                quote_spanned! {stmt.span=> #recv.#m #tf(#(#rest),*) }
            }
            // The method's companion for a twin receiver (only in a dual companion).
            Callee::OnTwin { ty, method } => {
                let m = names::twin_receiver(method);
                let recv = &argv[0];
                // Updated in place (`&mut self`), or a copy.
                let recv = if mutated.contains(&0) {
                    quote!(#recv)
                } else {
                    quote!(::core::clone::Clone::clone(&#recv))
                };
                let rest = argv[1..].iter().map(lift_to);
                quote_spanned! {stmt.span=> #ty::#m(#recv, #(#rest),*) }
            }
        };
        if active {
            let h = names::handle(self.func, stmt.results[0], self.mode);
            let boxed = self
                .recursion
                .as_ref()
                .filter(|r| is_call_of(self.func, callee, args, &r.name, r.method, r.float_self))
                .map(|r| {
                    let ty = &r.boxed;
                    quote! { let #h: #ty = ::std::boxed::Box::new(#h); }
                });
            quote! { #lets let (#res, #h) = #call; #boxed }
        } else if through_dual {
            quote! { #lets let (mut #res, _) = #call; }
        } else {
            quote! { #lets let mut #res = #call; }
        }
    }

    fn primal_if(
        &self,
        stmt: &Stmt,
        cond: Value,
        t: RegionId,
        e: RegionId,
        active: bool,
    ) -> TokenStream {
        let c = self.expr(cond);
        let pe = names::pred_enum(t);
        let then_b = self.region_block(t, active, |built| quote! { #pe::Then(#built) });
        let else_b = self.region_block(e, active, |built| quote! { #pe::Else(#built) });
        let mut pat: Vec<TokenStream> = stmt
            .results
            .iter()
            .map(|v| self.name(*v).into_token_stream())
            .collect();
        if active {
            pat.push(names::pred(t).into_token_stream());
        }
        quote! { let (#(#pat,)*) = if #c #then_b else #else_b; }
    }

    fn primal_match(
        &self,
        stmt: &Stmt,
        scrutinee: Value,
        arms: &[MatchArm],
        active: bool,
    ) -> TokenStream {
        let sc = self.expr(scrutinee);
        let pe = names::pred_enum(arms[0].region);
        let arms = arms.iter().enumerate().map(|(i, arm)| {
            let pat = &arm.pat;
            let guard = arm.guard.as_ref().map(|g| {
                let t = self.substitute(g.tokens.clone(), &g.uses);
                quote!(if #t)
            });
            let binds = self
                .func
                .region(arm.region)
                .params
                .iter()
                .zip(&arm.bindings)
                .map(|(v, b)| {
                    let n = self.name(*v);
                    let parts = self.eager_parts(&[*v]);
                    quote! { let #n = #b; #parts }
                });
            let v = names::variant(&stmt.inst, i);
            let block = self.region_block(arm.region, active, |built| quote! { #pe::#v(#built) });
            quote! { #pat #guard => { #(#binds)* #block } }
        });
        let mut pat: Vec<TokenStream> = stmt
            .results
            .iter()
            .map(|v| self.name(*v).into_token_stream())
            .collect();
        if active {
            pat.push(names::pred(self.func_arms_first(stmt)).into_token_stream());
        }
        quote! { let (#(#pat,)*) = match #sc { #(#arms)* }; }
    }

    fn func_arms_first(&self, stmt: &Stmt) -> RegionId {
        stmt.inst.branches().expect("a match")[0]
    }

    fn primal_for(
        &self,
        stmt: &Stmt,
        (iter, init): (Value, &[Value]),
        body: RegionId,
        stop: bool,
        active: bool,
    ) -> TokenStream {
        let region = self.func.region(body);
        let it = self.expr(iter);
        let cursors: Vec<Ident> = stmt.results.iter().map(|v| self.name(*v)).collect();
        let (early_inits, inits) = self.yielded(init);
        let params: Vec<Ident> = region.params[..init.len()]
            .iter()
            .map(|v| self.name(*v))
            .collect();
        let item = self.name(region.params[init.len()]);
        let (early, yields) = self.yielded(&region.yields[..init.len()]);
        let stop = stop.then(|| {
            let flag = self.expr(region.yields[init.len()]);
            quote! { if #flag { break; } }
        });
        let stmts = self.primal_region(body);
        let param_parts = self.eager_parts(&region.params);
        let iter_name = names::ident(&format!("iter_{}", body.0));
        // An active loop pushes its iterations' linear maps on a tape: `open` makes it
        // before the loop, `push` adds one iteration, `close` ends a nested loop's run.
        let fused = if active { self.fused_sum(stmt) } else { None };
        let (open, push, close) = if let Some(k) = fused {
            let f = self.fused_loop(body, k);
            (f.open, f.iteration, f.close)
        } else if active {
            self.loop_tape(body, &iter_name)
        } else {
            Default::default()
        };
        quote! {
            #early_inits
            #(let mut #cursors = #inits;)*
            let #iter_name = ::core::iter::IntoIterator::into_iter(#it);
            #open
            for #item in #iter_name {
                #(let #params = #cursors;)*
                #param_parts
                #stmts
                #push
                #early
                #(#cursors = #yields;)*
                #stop
            }
            #close
        }
    }

    /// Loop `body`'s tape over `iter_name`: the code before the loop (how it pushes and
    /// the tape), the push at the end of an iteration, and the code after the loop.
    fn loop_tape(
        &self,
        body: RegionId,
        iter_name: &Ident,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let tape = names::tape(body);
        let built = linear_map::construct(self.func, self.maps, body, self.mode, |v, saved| {
            if saved {
                self.saved_expr(v)
            } else {
                self.expr(v)
            }
        });
        // The tape is reserved for the whole loop when the iterator's type says its trip
        // count is known (`KnownTrips`), so that the loop calls nothing that returns; else
        // it grows (`UnknownTrips`). See `Trips` in diff-core.
        let trips = names::ident(&format!("trips_{}", body.0));
        let probe = quote! {
            let #trips = {
                #[allow(unused_imports)]
                use ::diff::__private::{ProbeKnownTrips as _, ProbeUnknownTrips as _};
                (&::diff::__private::TripProbe(&#iter_name)).trips()
            };
        };
        let capacity = quote!(::diff::__private::tape_capacity(&#iter_name));
        // A nested loop's iterations go on the function's stack for it, and its tape is
        // their number (see `Saved::Stack`).
        let (on, open, close) = if self.maps.stacked(body) {
            let stack = names::stack(body);
            (
                stack.clone(),
                quote! { #probe #stack.begin_run(#capacity); },
                quote! { let #tape = #stack.end_run(); },
            )
        } else {
            (
                tape.clone(),
                quote! { #probe let mut #tape = ::diff::__private::Tape::with_capacity(#capacity); },
                TokenStream::new(),
            )
        };
        let push = quote! { ::diff::__private::Trips::push(#trips, &mut #on, #built); };
        (open, push, close)
    }

    /// Whether `v` is the constant `None` as written.
    fn is_none_literal(&self, v: Value) -> bool {
        match self.def(v) {
            Some(Inst::Const(t)) => t.to_string() == "None",
            Some(Inst::Opaque(o)) => o.uses.is_empty() && o.tokens.to_string() == "None",
            _ => false,
        }
    }

    /// The nested operator `n` (whose result is `res`) run on dual numbers, in the
    /// derivative code, and which of its captures carry derivatives.
    pub(super) fn nested_on_duals(
        &self,
        n: &crate::ir::Nested,
        res: Value,
    ) -> (Vec<bool>, TokenStream) {
        let active = super::active_captures(self.act, n);
        let lent = super::environment::lent(self.func, res, n);
        let lifted = crate::operators::nested_on_duals(n, &active, &lent, &|v| {
            let v = self.name(v);
            quote!(#v)
        });
        (active, lifted)
    }

    /// Replaces an opaque expression's placeholders by the values' expressions.
    pub fn substitute(&self, ts: TokenStream, uses: &[Value]) -> TokenStream {
        crate::ir::replace_placeholders(ts, uses.len(), &|n| self.expr(uses[n]))
    }
}

/// Whether `callee` calls the function named `name` (`name(..)`, `Self::name(..)`,
/// `self.name(..)`).
pub fn is_call_of(
    func: &Function,
    callee: &Callee,
    args: &[Value],
    name: &str,
    method: bool,
    float_self: bool,
) -> bool {
    match callee {
        Callee::Path(p) => {
            let segs = &p.path.segments;
            let last_is = segs.last().is_some_and(|s| s.ident == name);
            last_is && (segs.len() == 1 || (segs.len() == 2 && segs[0].ident == "Self"))
        }
        // Only a method calls itself by method-call syntax (`v.concat()` in a free `fn
        // concat` is another function), and only on `self`: `self.inner.energy(x)` in
        // `fn energy` is the same method of another type (a wrapper delegating). A
        // method of a float calls itself on any float (`(x + 1.0).digamma()`).
        Callee::Method { method: m, .. } | Callee::OnTwin { method: m, .. } => {
            method
                && m == name
                && (float_self || args.first().is_some_and(|r| func.is_param(*r, 0)))
        }
    }
}

/// In a dual companion, a float type given as a generic argument of a callee
/// (`cube::<f64>(x)`, `Quad::<f64>::scaled(x, k)`) is the dual number's: such a callee
/// is generic over its floats, and its dual companion takes them dual.
fn lift_generic_arguments(path: &mut syn::Path) {
    for seg in path.segments.iter_mut() {
        if let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments {
            for arg in a.args.iter_mut() {
                if let syn::GenericArgument::Type(syn::Type::Path(t)) = arg {
                    if t.qself.is_none() && (t.path.is_ident("f64") || t.path.is_ident("f32")) {
                        let scalar = &t.path;
                        *arg = syn::parse_quote!(::diff::__private::Dual<#scalar>);
                    }
                }
            }
        }
    }
}

/// An argument of a call of a dual companion, converted to the parameter's type.
fn lift_to(a: &TokenStream) -> TokenStream {
    quote!(::diff::__private::LiftTo::lift_to(#a))
}

/// The operator's token.
fn binop(op: BinOp, span: Span) -> TokenStream {
    match op {
        BinOp::Add => quote_spanned!(span=> +),
        BinOp::Sub => quote_spanned!(span=> -),
        BinOp::Mul => quote_spanned!(span=> *),
        BinOp::Div => quote_spanned!(span=> /),
        BinOp::Rem => quote_spanned!(span=> %),
    }
}
