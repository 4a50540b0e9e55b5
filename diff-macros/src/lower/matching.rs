//! `match`: one region per arm; the pattern's bindings are the region's parameters.
use super::control::Branch;
use super::Lowerer;
use crate::ir::{Inst, MatchArm, Opaque, Value};
use syn::spanned::Spanned;
use syn::visit::Visit;

/// The names a pattern binds: lowercase identifiers (an uppercase one is a constant or
/// a unit variant such as `None`).
pub(crate) fn bindings(pat: &syn::Pat) -> Vec<syn::Ident> {
    struct Names(Vec<syn::Ident>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            let s = p.ident.to_string();
            if s.starts_with(|c: char| c.is_lowercase() || c == '_') && s != "_" {
                self.0.push(p.ident.clone());
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

/// For a `match` of two arms without guards, `Some(p)` with `p` irrefutable and `None` or
/// `_`: the payload pattern and the two bodies.
fn option_arms(m: &syn::ExprMatch) -> Option<(&syn::Pat, &syn::Expr, &syn::Expr)> {
    let [a, b] = m.arms.as_slice() else {
        return None;
    };
    if a.guard.is_some() || b.guard.is_some() {
        return None;
    }
    fn payload(arm: &syn::Arm) -> Option<&syn::Pat> {
        match &arm.pat {
            syn::Pat::TupleStruct(t)
                if t.qself.is_none() && t.path.is_ident("Some") && t.elems.len() == 1 =>
            {
                t.elems.first().filter(|p| irrefutable(p))
            }
            _ => None,
        }
    }
    let is_none = |arm: &syn::Arm| match &arm.pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(i) => i.ident == "None" && i.subpat.is_none(),
        syn::Pat::Path(p) => p.qself.is_none() && p.path.is_ident("None"),
        _ => false,
    };
    match (payload(a), payload(b)) {
        (Some(p), None) if is_none(b) => Some((p, &*a.body, &*b.body)),
        (None, Some(p)) if is_none(a) => Some((p, &*b.body, &*a.body)),
        _ => None,
    }
}

/// The `match` `m` of an `Option` (its arms `arms`, [`option_arms`]) as `match present {
/// true => { let p = payload; a } false => b }`.
fn on_presence(
    m: &syn::ExprMatch,
    present: &syn::Expr,
    payload: &syn::Expr,
    (pat, some_body, none_body): (&syn::Pat, &syn::Expr, &syn::Expr),
) -> syn::ExprMatch {
    syn::parse_quote_spanned! {m.span()=>
        match #present {
            true => { let #pat = #payload; #some_body }
            false => #none_body,
        }
    }
}

/// Whether a pattern matches every value of its type: bindings, `_`, and tuples and
/// references of those.
fn irrefutable(p: &syn::Pat) -> bool {
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
            for stmt in &lookup.prelude {
                self.lower_stmt(stmt)?;
            }
            let rewritten = on_presence(m, &lookup.present, &lookup.element, arms);
            return self.lower_match_binding(&rewritten, binder, rest);
        }
        let scrutinee = self.in_expression(|cx| cx.lower_expr(&m.expr))?;
        // `match o { Some(p) => a, None => b }` (also from `if let` and `while let`):
        // `match o.is_some() { true => { let p = o.unwrap(); a } false => b }`, so that
        // the payload's derivative flows through `unwrap`'s.
        if let Some(arms) = option_arms(m) {
            self.bind(OPTION.to_string(), scrutinee);
            let o = syn::Ident::new(OPTION, m.match_token.span);
            let (present, payload) = (
                syn::parse_quote!(#o.is_some()),
                syn::parse_quote!(#o.unwrap()),
            );
            let rewritten = on_presence(m, &present, &payload, arms);
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
        }
    }
}
