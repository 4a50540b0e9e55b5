//! What a nested operator's closure reads of its caller's environment.
//!
//! In `jacobian!(at: x, of: |p| gradient!(at: &p, of: |q| model.f(q)))` the inner closure
//! reads `model`, a variable of the caller, not of the differentiated body. The
//! derivative code runs that closure again on dual numbers inside a `move` closure (the
//! pullback or the differential), which would move `model` into it: out of the
//! operator's own closure, which is called once per row or column. So the primal lends
//! each such variable, `let __diff_env_model = &model;` beside the nested operator, and
//! the derivative code reads it through that reference, `(*__diff_env_model).f(q)`.
//!
//! Only for a nested operator at the body's top level: elsewhere (in a loop, a branch)
//! the lending `let` is not in scope where the derivative closure is made, and the
//! closure reads the variable as before.
use crate::emit::names;
use crate::ir::{Function, Nested, Value};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::quote;
use syn::visit::Visit;

/// The caller's variables the closure of `n` reads: the names of one segment it reads
/// as values (not calls) that nothing in it binds, of a variable's case (not constants
/// or types), and not the body's own values (`__diff_use_N`).
fn names(n: &Nested) -> Vec<Ident> {
    #[derive(Default)]
    struct Reads {
        read: Vec<Ident>,
        bound: Vec<Ident>,
        callees: Vec<Ident>,
    }
    impl<'a> Visit<'a> for Reads {
        fn visit_expr_path(&mut self, p: &'a syn::ExprPath) {
            if let (None, Some(id)) = (&p.qself, p.path.get_ident()) {
                self.read.push(id.clone());
            }
        }
        fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                if let Some(id) = p.path.get_ident() {
                    self.callees.push(id.clone());
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.bound.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
        // (A macro's tokens are not read: what it names stays as it is.)
        fn visit_macro(&mut self, _: &'a syn::Macro) {}
    }
    let syn::Expr::Closure(c) = &n.of else {
        return Vec::new();
    };
    let mut reads = Reads::default();
    reads.visit_expr_closure(c);
    let mut out: Vec<Ident> = Vec::new();
    for id in reads.read {
        let name = id.to_string();
        let variable = name.starts_with(|c: char| c.is_lowercase() || c == '_')
            && !name.starts_with("__diff")
            && name != "self";
        if variable
            && !reads.bound.contains(&id)
            && !reads.callees.contains(&id)
            && !out.contains(&id)
        {
            out.push(id);
        }
    }
    out
}

/// The caller's variables the nested operator `n` (whose result is `res`) lends to the
/// derivative code ([`names`]): none unless it is at the top level of the body, where
/// its lending `let`s are in scope for the derivative closures.
pub fn lent(func: &Function, res: Value, n: &Nested) -> Vec<Ident> {
    let top = func
        .region(func.entry())
        .stmts
        .iter()
        .any(|s| s.results.contains(&res));
    if top {
        names(n)
    } else {
        Vec::new()
    }
}

/// The name lending `name`.
fn lender(name: &Ident) -> Ident {
    names::ident(&format!("__diff_env_{name}"))
}

/// `let __diff_env_x = &x;` for each of `names`.
pub fn lets(names: &[Ident]) -> TokenStream {
    let lenders = names.iter().map(lender);
    quote! { #(let #lenders = &#names;)* }
}

/// `tokens` reading each of `names` through its lender, where it stands as a value: not
/// after a `.` (a field or method), not before `::` or `!` or a single `:` (a path, a
/// macro, a struct literal's field).
pub fn through_lenders(tokens: TokenStream, names: &[Ident]) -> TokenStream {
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let punct =
        |t: Option<&TokenTree>, c: char| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c);
    let mut out = Vec::with_capacity(tts.len());
    for (i, t) in tts.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let mut ng = Group::new(g.delimiter(), through_lenders(g.stream(), names));
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            TokenTree::Ident(id) if names.contains(id) => {
                let after_dot = i > 0 && punct(tts.get(i - 1), '.');
                let before = tts.get(i + 1);
                if after_dot || punct(before, ':') || punct(before, '!') {
                    out.push(t.clone());
                } else {
                    let l = lender(id);
                    out.push(TokenTree::Group(Group::new(
                        proc_macro2::Delimiter::Parenthesis,
                        quote!(*#l),
                    )));
                }
            }
            _ => out.push(t.clone()),
        }
    }
    out.into_iter().collect()
}
