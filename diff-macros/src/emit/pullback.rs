//! Reverse mode: the pullback walks each region's statements backwards, reading the
//! region's struct and accumulating adjoints into `Option` slots (None is zero).
//!
//! The rules are `linearization.rs`'s, transposed.
use super::primal::Emitter;
use crate::emit::fields::{self, Access};
use crate::emit::names::{self, Mode};
use crate::ir::{BinOp, Inst, RegionId, Stmt, Value};
use crate::linear_map::{self, Saved};
use crate::linearization::{self, Build, Part, Rule};
use proc_macro2::{Ident, TokenStream};
use quote::quote;

const RT: &str = "::diff::__private";

fn rt() -> TokenStream {
    RT.parse().expect("a path")
}

/// A part of a value defined outside a loop (`x[i]` with `x` and `i` both from outside,
/// or `p.w`) that the loop's body reads: its adjoint is summed in a local over the
/// reverse loop and added to the value's adjoint once after it. Added in place at each
/// iteration, the sum would go through memory (the compiler cannot tell the adjoint
/// vector from the others the body writes), a store and a load on every iteration's
/// critical path.
pub struct Deferred {
    base: Value,
    part: PartKey,
    local: Ident,
}

/// The pieces of a reduction loop's forward pass ([`Emitter::fused_loop`]).
pub struct FusedLoop {
    /// Before the loop: the outer values' adjoint slots.
    pub open: TokenStream,
    /// At the end of each iteration: its struct built and taken apart, its pullback.
    pub iteration: TokenStream,
    /// After the loop: the slots' tuple, named like the tape.
    pub close: TokenStream,
    /// The outer values, in the order of that tuple.
    pub outer: Vec<Value>,
}

/// The code of a reduction loop's window sums ([`Emitter::window_sums`]).
#[derive(Default)]
struct WindowSums {
    /// Before the loop: the sums, zero.
    declare: TokenStream,
    /// At the end of an iteration: the lowest sum added to its element, the others moved
    /// down one offset.
    slide: TokenStream,
    /// After the loop: the sums still held added to their elements.
    rest: TokenStream,
}

/// A part, comparable.
#[derive(PartialEq)]
enum PartKey {
    Element(Value),
    Field(syn::Member),
}

impl PartKey {
    fn of(part: &Part<'_>) -> PartKey {
        match part {
            Part::Element(i) => PartKey::Element(*i),
            Part::Field(m) => PartKey::Field((*m).clone()),
        }
    }
}

impl Emitter<'_> {
    fn adj(&self, v: Value) -> Ident {
        names::adjoint(self.func, v)
    }

    /// `accumulate(&mut a_v, e)` when `v` is active.
    fn acc(&self, v: Value, e: TokenStream) -> TokenStream {
        if !self.act.is_active(v) {
            return TokenStream::new();
        }
        let (a, rt) = (self.adj(v), rt());
        quote! { #rt::accumulate(&mut #a, #e); }
    }

    /// `accumulate_opt(&mut a_v, e)` when `v` is active.
    fn acc_opt(&self, v: Value, e: TokenStream) -> TokenStream {
        if !self.act.is_active(v) {
            return TokenStream::new();
        }
        let (a, rt) = (self.adj(v), rt());
        quote! { #rt::accumulate_opt(&mut #a, #e); }
    }

    /// Slots for the active values region `r` defines.
    fn slots(&self, r: RegionId) -> TokenStream {
        let region = self.func.region(r);
        let defined = region
            .params
            .iter()
            .chain(region.stmts.iter().flat_map(|s| s.results.iter()));
        defined
            .filter(|v| self.act.is_active(**v) && names::adjoint_root(self.func, **v) == **v)
            // Not eagerly zero where only reduction loops read the elements: their
            // adjoint moves in whole.
            .map(|v| self.slot(*v, |v| self.elements_read_in_pullback(v)))
            .collect()
    }

    /// `let mut a_v = None;`, or, for a parameter whose elements the body reads (its
    /// shape is saved) and `eager(v)`, its zero now, rather than a check at every
    /// element's adjoint.
    fn slot(&self, v: Value, eager: impl Fn(Value) -> bool) -> TokenStream {
        let a = self.adj(v);
        if matches!(self.def(v), Some(Inst::Param(_)))
            && self.maps.reads(Saved::Shape(v))
            && eager(v)
        {
            let shape = names::shape(self.func, v);
            quote! { let mut #a = ::core::option::Option::Some(::diff::__private::zero_of_shape(#shape)); }
        } else {
            quote! { let mut #a = ::core::option::Option::None; }
        }
    }

    /// Whether the pullback itself adds into elements of `v`'s adjoint: an element of
    /// `v` is read outside the reduction loops, whose pullbacks ran in the forward pass.
    fn elements_read_in_pullback(&self, v: Value) -> bool {
        let fused: Vec<RegionId> = self
            .func
            .region(self.func.entry())
            .stmts
            .iter()
            .filter(|s| self.fused_sum(s).is_some())
            .flat_map(|s| s.inst.regions())
            .flat_map(|body| linear_map::regions_within(self.func, body))
            .collect();
        linear_map::all_regions(self.func)
            .into_iter()
            .filter(|r| !fused.contains(r))
            .flat_map(|r| self.func.region(r).stmts.iter())
            .any(|s| matches!(s.inst, Inst::Index(b, _) if names::adjoint_root(self.func, b) == v))
    }

    /// The adjoint code of region `r`: its slots, then `seed`, then its statements backwards.
    pub fn reverse_region(&self, r: RegionId, seed: TokenStream) -> TokenStream {
        let slots = self.slots(r);
        let consts = self.constants(r);
        let stmts: TokenStream = self
            .func
            .region(r)
            .stmts
            .iter()
            .rev()
            .map(|s| self.reverse_stmt(s))
            .collect();
        quote! { #consts #slots #seed #stmts }
    }

    fn reverse_stmt(&self, stmt: &Stmt) -> TokenStream {
        if !stmt.results.iter().any(|v| self.act.is_active(*v)) {
            return TokenStream::new();
        }
        let Some(rule) = linearization::rule(stmt) else {
            return TokenStream::new();
        };
        let res = stmt.results[0];
        // A shared borrow's adjoint is its referent's slot (`names::adjoint`).
        if names::adjoint_root(self.func, res) != res {
            return TokenStream::new();
        }
        let body = match rule {
            Rule::Branch(branches) => return self.reverse_branches(stmt, &branches),
            Rule::CallMut(args) => return self.reverse_call_mut(stmt, args),
            Rule::Loop { init, body } => return self.reverse_for(stmt, init, body),
            rule => self.transpose(rule, res),
        };
        if body.is_empty() {
            return body;
        }
        let a = self.adj(res);
        quote! { if let ::core::option::Option::Some(s) = #a { #body } }
    }

    /// The transpose of a rule, applied to the result's adjoint `s`: accumulates into the
    /// operands' adjoints.
    fn transpose(&self, rule: Rule<'_>, res: Value) -> TokenStream {
        match rule {
            // Scalar partials are their own transposes: x += ∂y/∂x · s for each operand.
            Rule::Scalar(terms) => {
                let active: Vec<_> = terms
                    .into_iter()
                    .filter(|(x, _)| self.act.is_active(*x))
                    .collect();
                let last = active.len().saturating_sub(1);
                active
                    .iter()
                    .enumerate()
                    .map(|(k, (x, p))| {
                        let s = if k == last {
                            quote!(s)
                        } else {
                            quote!(::core::clone::Clone::clone(&s))
                        };
                        self.acc(*x, p.apply(s, |v| self.name(v)))
                    })
                    .collect()
            }
            // y = a (reference, dereference): the adjoint is the referent's.
            Rule::Identity(a) => self.acc(a, quote!(s)),
            // y = a as F: a += s converted back to a's type.
            Rule::Cast(a, _) => {
                let na = self.name(a);
                self.acc(a, quote!(::diff::__private::partial::cast_back(s, &#na)))
            }
            // A part of a value from outside the loop being emitted: its local += s.
            Rule::Read(a, part) if self.deferred_local(a, &part).is_some() => {
                let local = self.deferred_local(a, &part).expect("deferred");
                quote! { ::diff::__private::accumulate(&mut #local, s); }
            }
            // y = a.m: a.m += s (a's adjoint starts as a zero of a's type).
            Rule::Read(a, Part::Field(member)) => self.acc_field(a, member),
            // y = a[i]: a[i] += s (a's adjoint starts as a zero shaped like a).
            Rule::Read(a, Part::Element(i)) => {
                let ni = self.name(i);
                self.acc_part(a, quote!([#ni]))
            }
            // y = b with y.m = v: v += s.m; b += s with s.m zeroed.
            Rule::Write(b, Part::Field(m), v) => {
                let (x, y) = (self.acc_opt(v, quote!(part)), self.acc(b, quote!(s)));
                let mk = names::marker(self.func, res);
                let take = fields::access(quote!(s), m, Access::Take, quote!());
                quote! {
                    let mut s = ::diff::__private::same_as(#mk, s);
                    let part = #take;
                    #x #y
                }
            }
            Rule::Write(b, Part::Element(i), v) => {
                let ni = self.name(i);
                // y = b with y[i] = b[i] ± e (`b[i] += e`): e += ±s[i]; b += s, whole.
                if let Some((e, subtracted)) = self.bumped(b, i, v) {
                    let mut part = quote!(::diff::__private::get_at(&s, #ni));
                    if subtracted {
                        let neg = quote!(::diff::__private::partial::neg);
                        part = quote!(::core::option::Option::map(#part, #neg));
                    }
                    let (x, y) = (self.acc_opt(e, part), self.acc(b, quote!(s)));
                    return quote! { #x #y };
                }
                // y = b with y[i] = v: v += s[i]; b += s with s[i] zeroed.
                let (x, y) = (self.acc_opt(v, quote!(part)), self.acc(b, quote!(s)));
                quote! { let mut s = s; let part = ::diff::__private::take_at(&mut s, #ni); #x #y }
            }
            // y = S { m: v, .. }: v += s.m for each field.
            Rule::Build(Build::Struct(fields)) => {
                let m = names::marker(self.func, res);
                let accs: TokenStream = fields
                    .iter()
                    .map(|(member, v)| {
                        let take = fields::access(quote!(s), member, Access::Take, quote!());
                        self.acc_opt(*v, take)
                    })
                    .collect();
                quote! { let mut s = ::diff::__private::same_as(#m, s); #accs }
            }
            // y = (a, b, ..): (a, b, ..) += s.
            Rule::Build(Build::Tuple(vs)) => {
                let (ss, accs) = self.parts_adjoint(vs);
                quote! { let (#(#ss,)*) = s; #accs }
            }
            // y = [a, b, ..]: [a, b, ..] += s.
            Rule::Build(Build::Array(vs)) => {
                let (ss, accs) = self.parts_adjoint(vs);
                quote! { let [#(#ss),*] = s; #accs }
            }
            // y = vec![a, b, ..]: a += s[0], ... (an empty `s` is zero).
            Rule::Build(Build::Vec(vs)) => {
                let accs: TokenStream = vs
                    .iter()
                    .map(|v| {
                        let a = self.acc(*v, quote!(x));
                        quote! { if let ::core::option::Option::Some(x) = parts.next() { #a } }
                    })
                    .collect();
                quote! { let mut parts = ::core::iter::IntoIterator::into_iter(s); #accs }
            }
            // y = op(f)(x): x += eps(op(f)(x + ε·s)) (the second derivative is symmetric).
            // With captures carrying derivatives, at `(x, c) + ε·(s, 0)`, the gradient
            // taken in `c` too: its parts for `x` go to `x`, the others to `c`.
            Rule::Nested(n) => {
                let x = self.name(n.at);
                let (active, lifted) = self.nested_on_duals(n, res);
                if active.contains(&true) {
                    let ext = crate::emit::extended_point(n, &x, &active, |v| self.name(v));
                    let mut direction = n.parts_of(&quote!(s));
                    let mut accs = self.acc(n.at, n.own_parts(&quote::format_ident!("__e")));
                    for (v, i) in &ext.captured {
                        direction.push(quote!(::diff::VectorSpace::zero_vector()));
                        accs.extend(self.acc(*v, quote!(__e.#i)));
                    }
                    let (checks, point) = (&ext.checks, &ext.point);
                    return quote! {
                        #checks
                        if let ::core::option::Option::Some(__e) = ::diff::__private::nested_derivative(
                            #point,
                            ::core::option::Option::Some((#(#direction,)*)),
                            |__lifted| #lifted,
                        ) {
                            #accs
                        }
                    };
                }
                let d = quote! {
                    ::diff::__private::nested_derivative(
                        &#x, ::core::option::Option::Some(s), |__lifted| #lifted,
                    )
                };
                self.acc_opt(n.at, d)
            }
            // (y, pb) = f_vjp(args): args += pb(s), slot by slot.
            Rule::Call(args) => {
                let pb = names::handle(self.func, res, self.mode);
                self.call_adjoint(args, quote!(#pb(s)))
            }
            // Parameters' adjoints are the pullback's outputs; control flow and mutating
            // calls are handled by `reverse_stmt`.
            Rule::Zero
            | Rule::Input(_)
            | Rule::CallMut(_)
            | Rule::Branch(_)
            | Rule::Loop { .. } => TokenStream::new(),
        }
    }

    /// For an element write `y = b with y[i] = v` that updates the element, `v = b[i] + e`
    /// or `b[i] - e` (`b[i] += e`), where nothing else reads the old element or the new
    /// one: `e`, and whether it is subtracted. Its transpose passes `b`'s adjoint through
    /// whole and gives `e` its element, instead of taking the element out of the adjoint
    /// and adding it back through the sum and the read (two stores to the adjoint per
    /// update, in the inner loops of matrix code). The sum and the read are then left
    /// with zero adjoints, so their own transposes do nothing.
    fn bumped(&self, b: Value, i: Value, v: Value) -> Option<(Value, bool)> {
        let read = |r: &Value| matches!(self.func.def_inst(*r), Some(Inst::Index(base, j)) if *base == b && *j == i);
        let (r, e, subtracted) = match self.func.def_inst(v)? {
            Inst::Binary(BinOp::Add, r, e) if read(r) => (*r, *e, false),
            Inst::Binary(BinOp::Add, e, r) if read(r) => (*r, *e, false),
            Inst::Binary(BinOp::Sub, r, e) if read(r) => (*r, *e, true),
            _ => return None,
        };
        (self.func.uses(v) == 1 && self.func.uses(r) == 1).then_some((e, subtracted))
    }

    /// The local summing the adjoint of `base`'s `part` over an enclosing loop, if any.
    fn deferred_local(&self, base: Value, part: &Part<'_>) -> Option<Ident> {
        let key = PartKey::of(part);
        self.deferred
            .borrow()
            .iter()
            .find(|d| d.base == base && d.part == key)
            .map(|d| d.local.clone())
    }

    /// The parts of active values defined outside loop `body` that it reads (in it or in
    /// a region nested in it), not already summed for an enclosing loop, each with a new
    /// local; and the code declaring the locals and adding them after the loop.
    fn defer_reads(&self, body: RegionId) -> (TokenStream, TokenStream) {
        let inside = linear_map::regions_within(self.func, body);
        let outside = |v: Value| {
            let (r, _) = self.func.position(v);
            !inside.contains(&RegionId(r))
        };
        let (mut declare, mut add) = (TokenStream::new(), TokenStream::new());
        for r in &inside {
            for stmt in &self.func.region(*r).stmts {
                let Some(Rule::Read(base, part)) = linearization::rule(stmt) else {
                    continue;
                };
                let from_outside = match part {
                    Part::Element(i) => outside(base) && outside(i),
                    Part::Field(_) => outside(base),
                };
                if !from_outside
                    || !self.act.is_active(stmt.results[0])
                    || !self.act.is_active(base)
                    || self.deferred_local(base, &part).is_some()
                {
                    continue;
                }
                let local = names::ident(&format!(
                    "a_part{}_{}",
                    body.0,
                    self.deferred.borrow().len()
                ));
                // An element's sum starts as a zero element, so that it is a number
                // throughout the loop (no flag for "nothing yet").
                let (into, start) = match part {
                    Part::Element(i) => {
                        let ni = self.name(i);
                        let shape =
                            names::shape(self.func, linear_map::shape_source(self.func, base));
                        (
                            self.acc_part(base, quote!([#ni])),
                            quote!(::core::option::Option::Some(
                                ::diff::__private::zero_element_of_shape(#shape)
                            )),
                        )
                    }
                    Part::Field(member) => (
                        self.acc_field(base, member),
                        quote!(::core::option::Option::None),
                    ),
                };
                declare.extend(quote! { let mut #local = #start; });
                add.extend(quote! { if let ::core::option::Option::Some(s) = #local { #into } });
                self.deferred.borrow_mut().push(Deferred {
                    base,
                    part: PartKey::of(&part),
                    local,
                });
            }
        }
        (declare, add)
    }

    /// Accumulates `s` into a part (`.field`, `[index]`) of `base`'s adjoint.
    fn acc_part(&self, base: Value, part: TokenStream) -> TokenStream {
        if !self.act.is_active(base) {
            return TokenStream::new();
        }
        let shape = names::shape(self.func, linear_map::shape_source(self.func, base));
        let (a, rt) = (self.adj(base), rt());
        quote! {
            let whole = #a.get_or_insert_with(|| #rt::zero_of_shape(#shape));
            #rt::accumulate_into(&mut whole #part, s);
        }
    }

    /// Accumulates `s` into field `member` of `base`'s adjoint (the other fields zero:
    /// empty collections, which add as zeros).
    fn acc_field(&self, base: Value, member: &syn::Member) -> TokenStream {
        if !self.act.is_active(base) {
            return TokenStream::new();
        }
        let (a, rt, m) = (self.adj(base), rt(), names::marker(self.func, base));
        let add = fields::access(quote!((*whole)), member, Access::Accumulate, quote!(s));
        quote! {
            let whole = #a.get_or_insert_with(|| #rt::zero_marked(#m));
            #add;
        }
    }

    /// Original: `(r.., pred) = if c { ..; (yields.., Then(struct)) } else { .. }` (or a
    /// `match` with one variant per arm).
    /// Adjoint: match the predecessor and run the taken region's adjoint, seeded with the
    /// results' adjoints.
    fn reverse_branches(&self, stmt: &Stmt, branches: &[RegionId]) -> TokenStream {
        let (pe, pred) = (names::pred_enum(branches[0]), names::pred(branches[0]));
        let arms = branches.iter().enumerate().map(|(i, r)| {
            let yields = &self.func.region(*r).yields;
            let seed: TokenStream = stmt
                .results
                .iter()
                .zip(yields)
                .filter(|(res, _)| self.act.is_active(**res))
                .map(|(res, y)| {
                    let a = self.adj(*res);
                    self.acc_opt(*y, quote!(#a))
                })
                .collect();
            let pat = linear_map::pattern(self.func, self.maps, *r, self.mode);
            let body = self.reverse_region(*r, seed);
            let v = names::variant(&stmt.inst, i);
            quote! { #pe::#v(#pat) => { #body } }
        });
        quote! { match #pred { #(#arms)* } }
    }

    /// The sum of a reduction loop (`fused_loops.rs`) emitted in this companion, if `stmt`
    /// is one.
    pub(super) fn fused_sum(&self, stmt: &Stmt) -> Option<usize> {
        if self.mode != Mode::Vjp || self.dual {
            return None;
        }
        crate::fused_loops::fused_sum(self.func, self.act, stmt)
    }

    /// A reduction loop's pullback, run in its forward pass for the seed 1
    /// (`fused_loops.rs`), in the pieces of [`FusedLoop`].
    pub(super) fn fused_loop(&self, body: RegionId, k: usize) -> FusedLoop {
        let region = self.func.region(body);
        let depth = self.deferred.borrow().len();
        let (declare, add) = self.defer_reads(body);
        let window = self.window_sums(body);
        let sum = self.name(region.yields[k]);
        let unit = quote!(::core::option::Option::Some(::diff::__private::Unit::unit(&#sum)));
        let seed = self.acc_opt(region.yields[k], unit);
        let reverse = self.reverse_region(body, seed);
        self.deferred.borrow_mut().truncate(depth);
        let (slide, rest) = (&window.slide, &window.rest);
        let outer = crate::fused_loops::outer_adjoints(
            self.func,
            self.act,
            body,
            &quote!(#reverse #add #slide #rest),
        );
        let slots: TokenStream = outer.iter().map(|v| self.slot(*v, |_| true)).collect();
        let built = linear_map::construct(self.func, self.maps, body, self.mode, |v, saved| {
            if saved {
                self.saved_expr(v)
            } else {
                self.expr(v)
            }
        });
        let pat = linear_map::pattern(self.func, self.maps, body, self.mode);
        // The iteration's number, where its pullback computes the loop's index again.
        let counter = names::ident(&format!("count_{}", body.0));
        let position = linear_map::reads_position(self.maps, body).then(|| {
            let k = linear_map::position_name(body);
            quote! { let #k = #counter; #counter += 1; }
        });
        let (tape, adjoints) = (names::tape(body), outer.iter().map(|v| self.adj(*v)));
        let wdeclare = &window.declare;
        FusedLoop {
            open: quote! { #slots #declare #wdeclare let mut #counter = 0usize; },
            iteration: quote! {{ let #pat = #built; #position #reverse #slide }},
            close: quote! { #add #rest let #tape = (#(#adjoints,)*); },
            outer,
        }
    }

    /// The sums of reduction loop `body`'s [`Window`](crate::fused_loops::Window)s,
    /// registered as deferred reads: their locals, how they slide at the end of an
    /// iteration, and how what they hold after the loop is added.
    fn window_sums(&self, body: RegionId) -> WindowSums {
        let mut out = WindowSums::default();
        let windows = crate::fused_loops::windows(self.func, self.act, body);
        let Some(first) = windows.first() else {
            return out;
        };
        let next = names::ident(&format!("window_next{}_", body.0));
        let index = self.name(first.index);
        let at = |from: &Ident, offset: i64| {
            let c = offset.unsigned_abs() as usize;
            if offset < 0 {
                quote!(#from.wrapping_sub(#c))
            } else {
                quote!(#from.wrapping_add(#c))
            }
        };
        let inside = linear_map::regions_within(self.func, body);
        for (w, window) in windows.iter().enumerate() {
            let base = window.reads[0].0;
            let source = linear_map::shape_source(self.func, base);
            // A shape saved inside the loop (of a borrow made in each iteration) is not
            // at hand before the loop: the collection's own.
            let shape = if inside.contains(&RegionId(self.func.position(source).0)) {
                let root = self.name(window.root);
                quote!(::diff::__private::shape_of(&#root))
            } else {
                let shape = names::shape(self.func, source);
                quote!(#shape)
            };
            let (a, rt) = (self.adj(base), rt());
            let add_at = |place: TokenStream, local: &Ident| {
                quote! {
                    if let ::core::option::Option::Some(s) = #local {
                        let whole = #a.get_or_insert_with(|| #rt::zero_of_shape(#shape));
                        #rt::accumulate_where_present(whole, #place, s);
                    }
                }
            };
            let zero = quote!(::core::option::Option::Some(#rt::zero_element_of_shape(#shape)));
            let width = (window.high - window.low) as usize + 1;
            let locals: Vec<Ident> = (0..width)
                .map(|j| names::ident(&format!("a_window{}_{w}_{j}_", body.0)))
                .collect();
            for (b, i, offset) in &window.reads {
                self.deferred.borrow_mut().push(Deferred {
                    base: *b,
                    part: PartKey::Element(*i),
                    local: locals[(offset - window.low) as usize].clone(),
                });
            }
            out.declare.extend(quote! { #(let mut #locals = #zero;)* });
            // The lowest is final: no later iteration reads its element.
            out.slide.extend(add_at(at(&index, window.low), &locals[0]));
            let (lower, upper, last) = (&locals[..width - 1], &locals[1..], &locals[width - 1]);
            out.slide
                .extend(quote! { #(#lower = #upper;)* #last = #zero; });
            for (j, local) in lower.iter().enumerate() {
                out.rest
                    .extend(add_at(at(&next, window.low + j as i64), local));
            }
        }
        out.declare.extend(quote! { let mut #next = 0usize; });
        out.slide.extend(quote! { #next = #index.wrapping_add(1); });
        out
    }

    /// Original: a reduction loop (`fused_loops.rs`), whose linear map is the adjoints
    /// its iterations' pullbacks gave the values from outside it, for the seed 1.
    /// Adjoint: those adjoints times the sum's, which the sum's initial value gets too.
    fn reverse_fused(&self, stmt: &Stmt, init: &[Value], body: RegionId, k: usize) -> TokenStream {
        let outer = self.fused_loop(body, k).outer;
        let (tape, a_sum) = (names::tape(body), self.adj(stmt.results[k]));
        let scaled = outer.iter().enumerate().map(|(j, v)| {
            let (a, j) = (self.adj(*v), syn::Index::from(j));
            quote! { ::diff::__private::accumulate_opt(&mut #a, ::diff::__private::scaled_slot(#tape.#j, s)); }
        });
        let to_init = self.acc_opt(init[k], quote!(#a_sum));
        quote! {
            if let ::core::option::Option::Some(s) = &#a_sum { #(#scaled)* }
            #to_init
        }
    }

    /// Original: a loop pushing one struct per iteration on a tape.
    /// Adjoint: walk the tape backwards; the carried values' adjoints flow from each
    /// iteration's yields to its parameters, then to the initial values.
    fn reverse_for(&self, stmt: &Stmt, init: &[Value], body: RegionId) -> TokenStream {
        if let Some(k) = self.fused_sum(stmt) {
            return self.reverse_fused(stmt, init, body, k);
        }
        let region = self.func.region(body);
        let tape = names::tape(body);
        let pat = linear_map::pattern(self.func, self.maps, body, self.mode);
        let carried = self.carried(stmt, init.len(), body);
        let cur: Vec<Ident> = carried
            .iter()
            .map(|i| names::ident(&format!("a_carry{}_{i}", body.0)))
            .collect();
        let start = carried.iter().zip(&cur).map(|(i, c)| {
            if self.act.is_active(stmt.results[*i]) {
                let a = self.adj(stmt.results[*i]);
                quote! { let mut #c = #a; }
            } else {
                let m = names::marker(self.func, init[*i]);
                quote! { let mut #c = ::diff::__private::none_marked(#m); }
            }
        });
        let seed: TokenStream = carried
            .iter()
            .zip(&cur)
            .map(|(i, c)| self.acc_opt(region.yields[*i], quote!(#c.take())))
            .collect();
        let back: TokenStream = carried
            .iter()
            .zip(&cur)
            .map(|(i, c)| {
                let p = region.params[*i];
                if self.act.is_active(p) {
                    let ap = self.adj(p);
                    quote! { #c = #ap; }
                } else {
                    quote! { #c = ::core::option::Option::None; }
                }
            })
            .collect();
        let depth = self.deferred.borrow().len();
        let (declare, add) = self.defer_reads(body);
        let inner = self.reverse_region(body, seed);
        self.deferred.borrow_mut().truncate(depth);
        let (walk, enumerate) = linear_map::walk(self.maps, body, pat);
        // A nested loop's run is the last `tape` entries of its stack.
        let entries = if self.maps.stacked(body) {
            let stack = names::stack(body);
            quote! { #stack.pop_run(#tape) }
        } else {
            quote! { #tape.into_iter() }
        };
        let finish: TokenStream = carried
            .iter()
            .zip(&cur)
            .map(|(i, c)| self.acc_opt(init[*i], quote!(#c)))
            .collect();
        quote! {
            #(#start)*
            #declare
            for #walk in #entries #enumerate.rev() {
                #inner
                #back
            }
            #add
            #finish
        }
    }

    /// Original: `(y, pb) = f_vjp(.., &mut m, ..)`: `m` is updated in place.
    /// Adjoint: `args += pb((y's adjoint, m's new adjoint, ..))`, where the slot of `m`
    /// is the adjoint of its value before the call.
    fn reverse_call_mut(&self, stmt: &Stmt, args: &[Value]) -> TokenStream {
        let pb = names::handle(self.func, stmt.results[0], self.mode);
        let updated = self.updated_arrays(stmt, args);
        let seeds = stmt.results.iter().enumerate().map(|(k, r)| {
            if !self.act.is_active(*r) {
                // No adjoint: `None`, or `()` for a `&mut` parameter the callee does not
                // differentiate (an integer).
                quote!(::core::default::Default::default())
            } else if updated.contains(&k) {
                // An array updated through a `&mut [T]` parameter: its adjoint is the
                // slice's (a `Vec`).
                let a = self.adj(*r);
                quote!(::diff::__private::slot_into(#a))
            } else {
                let a = self.adj(*r);
                quote!(#a)
            }
        });
        self.call_adjoint(args, quote!(#pb((#(#seeds,)*))))
    }

    /// Names `s0, s1, ..` for the parts of an aggregate's adjoint, and their accumulation
    /// into the parts' adjoints.
    fn parts_adjoint(&self, vs: &[Value]) -> (Vec<Ident>, TokenStream) {
        let ss: Vec<Ident> = (0..vs.len())
            .map(|i| names::ident(&format!("s{i}")))
            .collect();
        let accs = vs
            .iter()
            .zip(&ss)
            .map(|(v, s)| self.acc(*v, quote!(#s)))
            .collect();
        (ss, accs)
    }

    /// `let (g0, g1, ..) = call; args += g..`: a callee pullback's slots accumulated into
    /// the arguments' adjoints (inactive arguments' slots ignored).
    fn call_adjoint(&self, args: &[Value], call: TokenStream) -> TokenStream {
        let gs: Vec<Ident> = (0..args.len())
            .map(|i| names::ident(&format!("g{i}")))
            .collect();
        let accs: TokenStream = args
            .iter()
            .zip(&gs)
            .map(|(a, g)| {
                // An array given for a slice parameter (`&arr`): the slice's adjoint (a
                // `Vec`) is converted to the argument's. Any other slot adds itself (the
                // adjoint of a sub-slice, to its part of the whole's).
                if self.is_array_argument(*a) {
                    self.acc_opt(*a, quote!(::diff::__private::slot_into(#g)))
                } else if self.act.is_active(*a) {
                    let (adj, rt) = (self.adj(*a), rt());
                    quote! { #rt::accumulate_slot(&mut #adj, #g); }
                } else {
                    TokenStream::new()
                }
            })
            .collect();
        let pats = args.iter().zip(&gs).map(|(a, g)| {
            if self.act.is_active(*a) {
                quote!(#g)
            } else {
                quote!(_)
            }
        });
        quote! {
            let (#(#pats,)*) = #call;
            #accs
        }
    }
}
