//! Invisible groups: a `macro_rules!` expansion hands each `$e:expr` fragment to a
//! procedural macro inside a group without delimiters, which keeps its grouping
//! (`$x * $sum` with `$sum` as `x + 1.0` is `x * (x + 1.0)`). Code that rebuilds an
//! expression, and rustc reading a procedural macro's output, may not keep it (rustc
//! reads `x * x + 1.0` back), and the lowering matches expressions by their shape, which
//! a group hides. So every function the macros read is first rewritten without them:
//! a group that is an operand (of an operator, a method call's receiver, a cast, a
//! call's callee, ..) and holds more than one operand's worth becomes parentheses; any
//! other group is replaced by what it holds.
use syn::visit_mut::VisitMut;
use syn::Expr;

/// Rewrites the expressions it visits without invisible groups (see the module docs):
/// `syn::visit_mut::VisitMut::visit_item_fn_mut(&mut Ungroup, &mut f)`, ...
pub struct Ungroup;

impl VisitMut for Ungroup {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Binary(b) => {
                operand(&mut b.left);
                operand(&mut b.right);
            }
            Expr::Unary(u) => operand(&mut u.expr),
            Expr::MethodCall(m) => operand(&mut m.receiver),
            Expr::Field(f) => operand(&mut f.base),
            Expr::Index(i) => operand(&mut i.expr),
            Expr::Call(c) => operand(&mut c.func),
            Expr::Cast(c) => operand(&mut c.expr),
            Expr::Reference(r) => operand(&mut r.expr),
            Expr::Try(t) => operand(&mut t.expr),
            Expr::Await(a) => operand(&mut a.base),
            Expr::Range(r) => {
                for side in [&mut r.start, &mut r.end].into_iter().flatten() {
                    operand(side);
                }
            }
            _ => {}
        }
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::Group(g) = e {
            *e = take(&mut g.expr);
        }
        // (The other rewrite every function gets before it is read.)
        if let Expr::Closure(c) = e {
            super::closure_returns::structure(c);
        }
    }
}

/// An operand that is a group holding more than an operand's worth (`x + 1.0`, a
/// closure) as parentheses; what is an operand as it is (`x`, `f(x)`, `v[i]`) is left
/// for the visit to unwrap.
fn operand(e: &mut Expr) {
    let Expr::Group(g) = e else {
        return;
    };
    let mut inner = &*g.expr;
    while let Expr::Group(h) = inner {
        inner = &h.expr;
    }
    let atomic = matches!(
        inner,
        Expr::Lit(_)
            | Expr::Path(_)
            | Expr::Call(_)
            | Expr::MethodCall(_)
            | Expr::Field(_)
            | Expr::Index(_)
            | Expr::Paren(_)
            | Expr::Tuple(_)
            | Expr::Array(_)
            | Expr::Macro(_)
            | Expr::Struct(_)
            | Expr::Block(_)
    );
    if !atomic {
        let span = g.group_token.span;
        *e = Expr::Paren(syn::ExprParen {
            attrs: Vec::new(),
            paren_token: syn::token::Paren(span),
            expr: Box::new(take(&mut g.expr)),
        });
    }
}

fn take(e: &mut Expr) -> Expr {
    std::mem::replace(e, Expr::Verbatim(proc_macro2::TokenStream::new()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
    use quote::quote;

    /// `tokens` with `inner` in an invisible group where `$` stands.
    fn with_group(before: TokenStream, inner: TokenStream, after: TokenStream) -> TokenStream {
        let mut out = before;
        out.extend([TokenTree::Group(Group::new(Delimiter::None, inner))]);
        out.extend(after);
        out
    }

    fn ungrouped(tokens: TokenStream) -> String {
        let mut e: Expr = syn::parse2(tokens).unwrap();
        Ungroup.visit_expr_mut(&mut e);
        quote!(#e).to_string()
    }

    #[test]
    fn groups_become_parentheses_only_where_they_group() {
        let e = with_group(quote!(x *), quote!(x + 1.0), quote!(*2.0));
        assert_eq!(ungrouped(e), "x * (x + 1.0) * 2.0");
        let e = with_group(quote!(x *), quote!(y), quote!(*2.0));
        assert_eq!(ungrouped(e), "x * y * 2.0");
        let e = with_group(quote!(), quote!(|t: f64| t.sin()), quote!((x)));
        assert_eq!(ungrouped(e), "(| t : f64 | t . sin ()) (x)");
        let args = with_group(quote!(), quote!(a + b), quote!());
        let mut e = quote!(f);
        e.extend([TokenTree::Group(Group::new(Delimiter::Parenthesis, args))]);
        assert_eq!(ungrouped(e), "f (a + b)");
    }
}
