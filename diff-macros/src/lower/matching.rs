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
        let scrutinee = self.in_expression(|cx| cx.lower_expr(&m.expr))?;
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
        let tokens = self.substitute(quote::ToTokens::to_token_stream(g), &mut uses);
        self.pop_scope();
        Opaque {
            tokens,
            uses,
            what: "guard".into(),
            inactive: true,
        }
    }
}
