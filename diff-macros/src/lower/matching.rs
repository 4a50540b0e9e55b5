//! `match`: one region per arm; the pattern's bindings are the region's parameters.
use super::control::Branch;
use super::Lowerer;
use crate::ir::{Inst, MatchArm, Opaque, Value};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The names a pattern binds: lowercase identifiers (an uppercase one is a constant or
/// a unit variant such as `None`).
pub(crate) fn bindings(pat: &syn::Pat) -> Vec<syn::Ident> {
    binding_patterns(pat).into_iter().map(|p| p.ident).collect()
}

/// [`bindings`] with how each is bound (`mut`, `ref`).
pub(crate) fn binding_patterns(pat: &syn::Pat) -> Vec<syn::PatIdent> {
    struct Names(Vec<syn::PatIdent>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            let s = p.ident.to_string();
            if s.starts_with(|c: char| c.is_lowercase() || c == '_') && s != "_" {
                self.0.push(p.clone());
            }
            if let Some((_, sub)) = &p.subpat {
                self.visit_pat(sub);
            }
        }
        fn visit_expr(&mut self, _: &'a syn::Expr) {}
        fn visit_path(&mut self, _: &'a syn::Path) {}
    }
    let mut n = Names(Vec::new());
    n.visit_pat(pat);
    n.0
}

/// The local an `Option` being matched is bound to.
const OPTION: &str = "__diff_option";

/// An arm of a `match` of an `Option` (told by its patterns).
enum OptionArm<'a> {
    /// `Some(p)`, `p` irrefutable, with its guard.
    Some(&'a syn::Pat, Option<&'a syn::Expr>),
    /// `None`, with its guard.
    None(Option<&'a syn::Expr>),
    /// `_` or a name (bound to the whole `Option`), with its guard.
    Any(Option<&'a syn::Ident>, Option<&'a syn::Expr>),
}

/// The arms of `m` when it matches an `Option`: each `Some(p)` with `p` irrefutable,
/// `None`, `_` or a name, with or without a guard, and at least one `Some(p)`.
fn option_arms(m: &syn::ExprMatch) -> Option<Vec<OptionArm<'_>>> {
    let mut out = Vec::new();
    for arm in &m.arms {
        let guard = arm.guard.as_ref().map(|(_, g)| &**g);
        out.push(match &arm.pat {
            syn::Pat::TupleStruct(t)
                if t.qself.is_none() && t.path.is_ident("Some") && t.elems.len() == 1 =>
            {
                OptionArm::Some(t.elems.first().filter(|p| irrefutable(p))?, guard)
            }
            syn::Pat::Path(p) if p.qself.is_none() && p.path.is_ident("None") => {
                OptionArm::None(guard)
            }
            syn::Pat::Ident(i) if i.ident == "None" && i.subpat.is_none() => OptionArm::None(guard),
            syn::Pat::Ident(i)
                if i.subpat.is_none() && i.by_ref.is_none() && irrefutable(&arm.pat) =>
            {
                OptionArm::Any(Some(&i.ident), guard)
            }
            syn::Pat::Wild(_) => OptionArm::Any(None, guard),
            _ => return None,
        });
    }
    out.iter()
        .any(|a| matches!(a, OptionArm::Some(..)))
        .then_some(out)
}

/// The local a value whose parts a `match` binds is bound to.
const MATCHED: &str = "__diff_matched";

/// The arms of `m` as tests when a pattern binds parts of the matched value (a tuple's
/// `(v, 1)`, a slice's `[first, .., last]`; [`destructuring`](super::destructuring)) and
/// every other arm is a name, `_`, or a pattern binding nothing; the matched value is
/// bound to `s`, its parts read as references when `by_ref` (`elements`: see
/// [`parts`](super::destructuring::parts)).
fn destructuring_arms<'a>(
    m: &'a syn::ExprMatch,
    s: &syn::Ident,
    by_ref: bool,
    elements: &[bool],
) -> Option<Vec<Tested<'a>>> {
    use super::destructuring;
    if !m.arms.iter().any(|a| destructuring::binds_parts(&a.pat)) {
        return None;
    }
    let place = quote::quote!(#s);
    m.arms
        .iter()
        .map(|arm| {
            let guard = arm.guard.as_ref().map(|(_, g)| &**g);
            let parts = destructuring::parts(&arm.pat, &place, by_ref, elements)?;
            Some(Tested {
                test: parts.test,
                binds: parts.binds,
                guard_binds: parts.guard_binds,
                guard,
            })
        })
        .collect()
}

/// An arm of a `match` rewritten as a test: `test` (`None`: every value passes), then
/// `binds` (the statements binding the pattern's names), then the guard (after
/// `guard_binds`, the bindings it sees).
struct Tested<'a> {
    test: Option<syn::Expr>,
    binds: proc_macro2::TokenStream,
    guard_binds: proc_macro2::TokenStream,
    guard: Option<&'a syn::Expr>,
}

impl<'a> Tested<'a> {
    /// An arm whose guard sees the bindings the arm makes.
    fn new(
        test: Option<syn::Expr>,
        binds: proc_macro2::TokenStream,
        guard: Option<&'a syn::Expr>,
    ) -> Self {
        Tested {
            test,
            guard_binds: binds.clone(),
            binds,
            guard,
        }
    }
}

/// The `match` `m` of an `Option` (its arms `arms`, [`option_arms`]) as tests of
/// `present` ([`as_tests`]): `Some(p)` binds `p` to `payload`, so that the payload's
/// derivative flows through `payload`'s; `whole` is the `Option` itself, for an arm
/// binding it by name (`None` when there is none to name: the rewrite is refused).
fn on_presence(
    m: &syn::ExprMatch,
    present: &syn::Expr,
    payload: &syn::Expr,
    whole: Option<&syn::Expr>,
    arms: &[OptionArm<'_>],
) -> Option<syn::ExprMatch> {
    let span = m.span();
    let tested = arms
        .iter()
        .map(|arm| {
            Some(match arm {
                OptionArm::Some(p, g) => Tested::new(
                    Some(present.clone()),
                    quote::quote_spanned!(span=> let #p = #payload;),
                    *g,
                ),
                OptionArm::None(g) => Tested::new(
                    Some(expr(quote::quote_spanned!(span=> !(#present)))?),
                    proc_macro2::TokenStream::new(),
                    *g,
                ),
                OptionArm::Any(name, g) => {
                    let binds = match name {
                        Some(n) => {
                            let whole = whole?;
                            quote::quote_spanned!(span=> let #n = #whole;)
                        }
                        None => proc_macro2::TokenStream::new(),
                    };
                    Tested::new(None, binds, *g)
                }
            })
        })
        .collect::<Option<Vec<_>>>()?;
    as_tests(m, &tested)
}

/// The `match` `m` as its arms' tests (`arms`, one per arm of `m`) one after another:
/// `p if g => a, q => b` is `match (if test_p { binds_p; g } else { false }) { true => {
/// binds_p; a } false => match test_q { true => { binds_q; b } .. } }`. The last arm is
/// taken without its test where it has no guard (rustc checks the original `match`
/// covers every case).
fn as_tests(m: &syn::ExprMatch, arms: &[Tested<'_>]) -> Option<syn::ExprMatch> {
    let span = m.span();
    let unreachable: syn::Expr = expr(quote::quote_spanned!(span=> ::core::unreachable!()))?;
    let mut rest: Option<syn::Expr> = None;
    for (arm, syn_arm) in arms.iter().zip(&m.arms).rev() {
        let (body, binds, guard_binds) = (&syn_arm.body, &arm.binds, &arm.guard_binds);
        let taken: syn::Expr = if binds.is_empty() {
            (**body).clone()
        } else {
            expr(quote::quote_spanned!(span=> { #binds #body }))?
        };
        let test = match &arm.test {
            Some(t) => t.clone(),
            None => expr(quote::quote_spanned!(span=> true))?,
        };
        let tested: syn::Expr = match arm.guard {
            None => test,
            Some(g) if guard_binds.is_empty() => {
                expr(quote::quote_spanned!(span=> (#test) && (#g)))?
            }
            Some(g) if arm.test.is_none() => {
                expr(quote::quote_spanned!(span=> { #guard_binds #g }))?
            }
            Some(g) => {
                expr(quote::quote_spanned!(span=> if #test { #guard_binds #g } else { false }))?
            }
        };
        rest = Some(match rest {
            // The last arm without a guard: taken whenever reached.
            None if arm.guard.is_none() => taken,
            None => expr(
                quote::quote_spanned!(span=> match #tested { true => #taken, false => #unreachable }),
            )?,
            Some(r) => {
                expr(quote::quote_spanned!(span=> match #tested { true => #taken, false => #r }))?
            }
        });
    }
    match rest? {
        syn::Expr::Match(m) => Some(m),
        // One arm taking every value.
        taken => match expr(
            quote::quote_spanned!(span=> match true { true => #taken, false => #unreachable }),
        )? {
            syn::Expr::Match(m) => Some(m),
            _ => None,
        },
    }
}

/// Whether `e` is `&place` (through parentheses): what a `match` on it binds are
/// references.
fn by_shared_reference(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Paren(p) => by_shared_reference(&p.expr),
        syn::Expr::Reference(r) => r.mutability.is_none(),
        _ => false,
    }
}

/// `ts` as an expression (`None` if it is not one: the caller declines the rewrite).
fn expr(ts: proc_macro2::TokenStream) -> Option<syn::Expr> {
    syn::parse2(ts).ok()
}

/// Whether a pattern matches every value of its type: bindings, `_`, and tuples and
/// references of those.
pub(super) fn irrefutable(p: &syn::Pat) -> bool {
    match p {
        syn::Pat::Ident(i) => {
            i.subpat.is_none()
                && i.ident
                    .to_string()
                    .starts_with(|c: char| c.is_lowercase() || c == '_')
        }
        syn::Pat::Wild(_) => true,
        syn::Pat::Tuple(t) => t.elems.iter().all(irrefutable),
        syn::Pat::Reference(r) => irrefutable(&r.pat),
        syn::Pat::Type(t) => irrefutable(&t.pat),
        syn::Pat::Paren(p) => irrefutable(&p.pat),
        _ => false,
    }
}

impl Lowerer {
    /// `match e { pat if guard => body, ... }`.
    pub(crate) fn lower_match(&mut self, m: &syn::ExprMatch) -> syn::Result<Value> {
        self.lower_match_with(m, &[])
    }

    /// A `match` followed by `rest` (statements lowered at the end of every arm: an arm
    /// may exit early, see `diverge`).
    pub(crate) fn lower_match_with(
        &mut self,
        m: &syn::ExprMatch,
        rest: &[syn::Stmt],
    ) -> syn::Result<Value> {
        self.lower_match_binding(m, None, rest)
    }

    /// [`lower_match_with`](Self::lower_match_with) for `let p = match ..; rest`: each
    /// arm binds `p` to its value, then runs `rest`.
    pub(crate) fn lower_match_binding(
        &mut self,
        m: &syn::ExprMatch,
        binder: Option<&syn::Local>,
        rest: &[syn::Stmt],
    ) -> syn::Result<Value> {
        // `match xs.get(i) { Some(p) => a, None => b }` (also `first`, `last`, from `if
        // let`): `match i < xs.len() { true => { let p = &xs[i]; a } false => b }`.
        if let (Some(arms), Some(lookup)) = (option_arms(m), super::expr::Lookup::of(&m.expr)) {
            if let Some(rewritten) = on_presence(m, &lookup.present, &lookup.element, None, &arms) {
                for stmt in &lookup.prelude {
                    self.lower_stmt(stmt)?;
                }
                return self.lower_match_binding(&rewritten, binder, rest);
            }
        }
        // `match xs.iter().find(p) { Some(v) => .. }` (also `last`, `nth`, `next` and the
        // selections of a chain of references): an `Option` of a reference carries no
        // derivative, so the item is copied and `v` bound to a reference to the copy.
        // (Not where an arm names the whole `Option`, which the copy is not.)
        let item = option_arms(m)
            .filter(|arms| !arms.iter().any(|a| matches!(a, OptionArm::Any(Some(_), _))))
            .and_then(|_| self.option_of_reference(&m.expr));
        let of_reference = item.is_some();
        let scrutinee = if of_reference {
            let e = &m.expr;
            let copied: syn::Expr = syn::parse_quote_spanned!(e.span()=> (#e).copied());
            self.in_expression(|cx| cx.lower_expr(&copied))?
        } else {
            self.in_expression(|cx| cx.lower_expr(&m.expr))?
        };
        // `match o { Some(p) => a, None => b }` (also from `if let` and `while let`):
        // `match o.is_some() { true => { let p = o.unwrap(); a } false => b }`, so that
        // the payload's derivative flows through `unwrap`'s.
        if let Some(arms) = option_arms(m) {
            let o = syn::Ident::new(OPTION, m.match_token.span);
            // `match &o { Some(p) => .. }` binds `p` to a reference to the payload: a
            // reference to a copy of it, as `o` stays where it is.
            // (So does `match z` with `z` a reference, an item of `for z in zs`.)
            let deref =
                matches!(&*m.expr, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)));
            let payload: syn::Expr = if by_shared_reference(&m.expr)
                || (!deref && !of_reference && self.is_reference(scrutinee))
            {
                syn::parse_quote!(&#o.clone().unwrap())
            } else if let Some(item) = &item {
                let given = super::iterators::referenced_like(item, syn::parse_quote!(__diff_item));
                syn::parse_quote!({
                    let __diff_item = #o.unwrap();
                    #given
                })
            } else {
                syn::parse_quote!(#o.unwrap())
            };
            let (present, whole) = (syn::parse_quote!(#o.is_some()), syn::parse_quote!(#o));
            if let Some(rewritten) = on_presence(m, &present, &payload, Some(&whole), &arms) {
                self.bind(OPTION.to_string(), scrutinee);
                return self.lower_match_binding(&rewritten, binder, rest);
            }
        }
        // `match xs { [a, b] => .., [first, .., last] => .., _ => .. }` (also from `if
        // let`): `match xs.len() == 2 { true => { let a = &xs[0]; .. } .. }`, so that
        // the parts' derivatives flow through indexing.
        let s = syn::Ident::new(MATCHED, m.match_token.span);
        // `match *xs { [a, b] => .. }` binds copies of the elements.
        let by_ref = !matches!(&*m.expr, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)))
            && (self.is_reference(scrutinee)
                || by_shared_reference(&m.expr)
                || super::destructuring::of_a_slice(m.arms.iter().map(|a| &a.pat)));
        // `match (p, k)` with `p` a reference: a pattern binds `p`'s parts as references.
        let elements: Vec<bool> = self
            .tuple_parts(scrutinee)
            .unwrap_or_default()
            .into_iter()
            .map(|v| self.is_reference(v))
            .collect();
        if let Some(arms) = destructuring_arms(m, &s, by_ref, &elements) {
            let rewritten = as_tests(m, &arms).ok_or_else(|| {
                syn::Error::new_spanned(m, "this `match` could not be rewritten as tests")
            })?;
            self.bind(MATCHED.to_string(), scrutinee);
            return self.lower_match_binding(&rewritten, binder, rest);
        }
        let before = self.env.clone();
        let outer = self.diverged;
        let mut arms = Vec::new();
        let mut branches: Vec<Branch> = Vec::new();
        for arm in &m.arms {
            // `v => ..` / `v if .. => ..` binds the scrutinee itself: no region parameter.
            let whole = match &arm.pat {
                syn::Pat::Ident(p)
                    if p.subpat.is_none()
                        && p.by_ref.is_none()
                        && bindings(&arm.pat).len() == 1 =>
                {
                    Some(p.ident.clone())
                }
                _ => None,
            };
            let names = if whole.is_some() {
                Vec::new()
            } else {
                bindings(&arm.pat)
            };
            let hidden: Vec<syn::Ident> = names.iter().chain(whole.iter()).cloned().collect();
            let guard = arm.guard.as_ref().map(|(_, g)| self.guard(g, &hidden));
            let region = self.func.new_region();
            let params: Vec<Value> = names
                .iter()
                .map(|n| self.func.new_value(Some(n.to_string()), n.span()))
                .collect();
            self.func.region_mut(region).params = params.clone();
            let b = self.branch(region, &before, outer, |cx| {
                cx.in_block_scope(|cx| {
                    for (n, v) in names.iter().zip(&params) {
                        cx.bind(n.to_string(), *v);
                    }
                    if let Some(w) = &whole {
                        cx.bind(w.to_string(), scrutinee);
                    }
                    // As a sequence, so that an arm may `return`, `break` or `continue`;
                    // the pattern's bindings end before `rest`.
                    let body = syn::Stmt::Expr((*arm.body).clone(), None);
                    let seq = super::diverge::spliced(vec![body], binder, rest);
                    cx.lower_seq(&seq)
                })
            })?;
            branches.push(b);
            arms.push(MatchArm {
                pat: arm.pat.clone(),
                bindings: names,
                guard,
                region,
            });
        }
        if arms.is_empty() {
            return Err(syn::Error::new_spanned(
                m,
                "a `match` without arms is not supported in a #[differentiable] body",
            ));
        }
        let inst = Inst::Match { scrutinee, arms };
        self.join(&before, outer, branches, inst, m.span())
    }

    /// A guard reads the outer locals (substituted) and the pattern's bindings (kept).
    fn guard(&mut self, g: &syn::Expr, bound: &[syn::Ident]) -> Opaque {
        self.refuse_changes_inside(g, "guard");
        self.push_scope();
        // Names the pattern binds shadow outer locals inside the guard: hide them.
        let hidden: Vec<(String, Option<Value>)> = bound
            .iter()
            .map(|b| (b.to_string(), self.lookup(&b.to_string())))
            .collect();
        for (name, _) in &hidden {
            self.hide(name);
        }
        let mut uses = Vec::new();
        let tokens = self.substitute_expr(g, &mut uses);
        self.pop_scope();
        Opaque {
            tokens,
            uses,
            what: "guard".into(),
            macro_name: None,
            inactive: true,
            discrete: false,
        }
    }
}
