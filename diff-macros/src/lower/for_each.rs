//! `iter.for_each(|p| body)` as a statement is the loop `for p in iter { body; }`,
//! rewritten before lowering so that the loop's lowering differentiates it (a closure
//! given to a method is otherwise kept as written, and a captured variable it changes,
//! `s += x`, would be refused).
//!
//! Left as written: a closure whose body returns (`return` in the closure is `continue`
//! in the loop) or uses `?`, a `move` closure, one with more than one parameter, and a
//! `for_each` given anything but a closure literal.
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Stmt};

/// `body` with each `for_each` statement a `for` loop, or `None` when it has none.
pub(crate) fn rewrite(body: &Block) -> Option<Block> {
    let mut out = body.clone();
    let mut rewriter = Rewriter(false);
    rewriter.visit_block_mut(&mut out);
    rewriter.0.then_some(out)
}

/// The loop a `for_each` call stands for, if it is one this rewrite takes.
fn as_loop(e: &Expr) -> Option<Expr> {
    let Expr::MethodCall(m) = e else { return None };
    if m.method != "for_each" || m.args.len() != 1 || m.turbofish.is_some() {
        return None;
    }
    let Some(Expr::Closure(c)) = m.args.first() else {
        return None;
    };
    // (A `move` closure changes its own copies of what it captures, a loop the
    // variables themselves.)
    if c.inputs.len() != 1 || c.capture.is_some() || exits_closure(&c.body) {
        return None;
    }
    // A `for` pattern takes no type: `|x: &f64|` binds as `x`.
    let pat = match c.inputs.first()? {
        syn::Pat::Type(t) => (*t.pat).clone(),
        p => p.clone(),
    };
    let iter = &m.receiver;
    let span = m.method.span();
    let body = match &*c.body {
        Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.to_token_stream(),
        other => quote::quote_spanned! {span=> { #other; } },
    };
    // (Parsed, not `parse_quote`: a receiver such as a struct literal would not parse
    // there, and the call is then left as it is.)
    syn::parse2(quote::quote_spanned! {span=> for #pat in #iter #body }).ok()
}

/// Whether a closure body leaves the closure early (`return`, `?`), outside closures
/// and items nested in it.
fn exits_closure(body: &Expr) -> bool {
    struct Exits(bool);
    impl<'a> Visit<'a> for Exits {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_try(&mut self, _: &'a syn::ExprTry) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
        fn visit_expr_async(&mut self, _: &'a syn::ExprAsync) {}
        fn visit_item(&mut self, _: &'a syn::Item) {}
    }
    let mut v = Exits(false);
    v.visit_expr(body);
    v.0
}

/// Rewrites the `for_each` statements it visits; records whether it did.
struct Rewriter(bool);

impl VisitMut for Rewriter {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        // Inner ones first: the closure's body may hold another `for_each`.
        syn::visit_mut::visit_stmt_mut(self, s);
        // (A loop is a statement with or without its `;`; as a block's tail it is `()`,
        // as the call was.)
        if let Stmt::Expr(e, _) = s {
            if let Some(looped) = as_loop(e) {
                *e = looped;
                self.0 = true;
            }
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
