//! Expressions kept verbatim: their local variables become placeholders for IR values.
use super::Lowerer;
use crate::ir::{Inst, Opaque, Value};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

/// The placeholder identifier for the n-th use of an opaque expression.
pub(crate) fn placeholder(n: usize) -> String {
    format!("__diff_use_{n}")
}

impl Lowerer {
    /// Keeps `e` verbatim as an opaque instruction reading the locals it names.
    pub(crate) fn opaque(&mut self, e: &syn::Expr) -> Value {
        let mut uses = Vec::new();
        let tokens = self.substitute(e.to_token_stream(), &mut uses);
        let what = what(e);
        self.emit(
            Inst::Opaque(Opaque {
                tokens,
                uses,
                what: what.to_string(),
            }),
            e.span(),
            None,
        )
    }

    /// Replaces identifiers naming locals by placeholders (not field or method names,
    /// not path segments after `::`).
    pub(crate) fn substitute(&self, ts: TokenStream, uses: &mut Vec<Value>) -> TokenStream {
        let mut out = Vec::new();
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        for (i, tt) in tokens.iter().enumerate() {
            match tt {
                TokenTree::Group(g) => {
                    let inner = self.substitute(g.stream(), uses);
                    let mut ng = Group::new(g.delimiter(), inner);
                    ng.set_span(g.span());
                    out.push(TokenTree::Group(ng));
                }
                TokenTree::Ident(id) if self.is_local_use(&tokens, i, id) => {
                    let v = self.lookup(&id.to_string()).expect("checked by is_local_use");
                    let n = uses.iter().position(|u| *u == v).unwrap_or_else(|| {
                        uses.push(v);
                        uses.len() - 1
                    });
                    out.push(TokenTree::Ident(Ident::new(&placeholder(n), id.span())));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }

    fn is_local_use(&self, tokens: &[TokenTree], i: usize, id: &Ident) -> bool {
        if self.lookup(&id.to_string()).is_none() {
            return false;
        }
        let punct_before = |c: char| {
            i >= 1 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == c)
        };
        let after_path_sep = i >= 2 && punct_before(':') && matches!(&tokens[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
        let before_path_sep = matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
            && matches!(tokens.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        let is_macro_name = matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        let field_access = punct_before('.')
            && !(i >= 2 && matches!(&tokens[i - 2], TokenTree::Punct(p) if p.as_char() == '.'));
        !field_access && !after_path_sep && !before_path_sep && !is_macro_name
    }
}

fn what(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Macro(_) => "macro call",
        syn::Expr::Cast(_) => "`as` cast",
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => "array expression",
        syn::Expr::Range(_) => "range",
        syn::Expr::Struct(_) => "struct literal",
        syn::Expr::Closure(_) => "closure",
        syn::Expr::Call(_) => "call of a closure",
        syn::Expr::Binary(_) => "comparison or logical operator",
        syn::Expr::Unary(_) => "`!` operator",
        _ => "expression",
    }
}
