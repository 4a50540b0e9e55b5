//! Expressions kept verbatim: their local variables become placeholders for IR values.
use super::Lowerer;
use crate::ir::placeholder;
use crate::ir::{Inst, Opaque, Value};
use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;

impl Lowerer {
    /// Keeps `e` verbatim as an opaque instruction reading the locals it names.
    pub(crate) fn opaque(&mut self, e: &syn::Expr) -> Value {
        self.opaque_inactive(e, false)
    }

    /// [`Self::opaque`], known to carry no derivative when `inactive` (or when its
    /// syntax says so).
    pub(crate) fn opaque_inactive(&mut self, e: &syn::Expr, inactive: bool) -> Value {
        let mut uses = Vec::new();
        let mut tokens = self.substitute_expr(e, &mut uses);
        if let syn::Expr::Macro(m) = e {
            tokens = self.bind_format_captures(&m.mac.tokens, tokens, &mut uses);
        }
        let what = super::iterators::undifferentiated_chain(e).unwrap_or_else(|| what(e).into());
        self.emit(
            Inst::Opaque(Opaque {
                tokens,
                uses,
                what,
                macro_name: match e {
                    syn::Expr::Macro(m) => m.mac.path.segments.last().map(|s| s.ident.to_string()),
                    _ => None,
                },
                inactive: inactive || never_active(e),
            }),
            e.span(),
            None,
        )
    }

    /// A format string naming locals inline (`"{y}"`, `"{y:.3}"`) reads them by name:
    /// bind those names (by reference) around the macro call.
    fn bind_format_captures(
        &self,
        mac: &TokenStream,
        tokens: TokenStream,
        uses: &mut Vec<Value>,
    ) -> TokenStream {
        let mut names: Vec<String> = Vec::new();
        for tt in mac.clone() {
            if let TokenTree::Literal(l) = tt {
                let text = l.to_string();
                if text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#") {
                    names.extend(format_captures(&text));
                }
            }
        }
        let mut lets = TokenStream::new();
        for name in names {
            let Some(v) = self.lookup(&name) else {
                continue;
            };
            let n = uses.iter().position(|u| *u == v).unwrap_or_else(|| {
                uses.push(v);
                uses.len() - 1
            });
            let (id, ph) = (
                Ident::new(&name, proc_macro2::Span::call_site()),
                Ident::new(&placeholder(n), proc_macro2::Span::call_site()),
            );
            lets.extend(quote::quote!(let #id = &#ph;));
        }
        if lets.is_empty() {
            tokens
        } else {
            quote::quote!({ #lets #tokens })
        }
    }

    /// [`Self::substitute`] in `e`, whose struct literals name their fields as raw
    /// identifiers (`V { r#x: x }`, also for the shorthand `V { x }`), which name no
    /// local: the field's name stays, the local it reads becomes a placeholder.
    pub(crate) fn substitute_expr(&self, e: &syn::Expr, uses: &mut Vec<Value>) -> TokenStream {
        struct Expand;
        impl syn::visit_mut::VisitMut for Expand {
            fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
                if let syn::Member::Named(name) = &mut f.member {
                    f.colon_token.get_or_insert_with(Default::default);
                    let text = name.to_string();
                    if !text.starts_with("r#") {
                        *name = Ident::new_raw(&text, name.span());
                    }
                }
                syn::visit_mut::visit_field_value_mut(self, f);
            }
        }
        let mut e = e.clone();
        syn::visit_mut::VisitMut::visit_expr_mut(&mut Expand, &mut e);
        self.substitute(e.to_token_stream(), uses)
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
                    let name = id.to_string();
                    // A `&mut` parameter reads its pointee's current value (`*p`, and `p`
                    // auto-dereferenced in `p.x` or `p.is_nan()`), not the pointee as it
                    // was on entry.
                    let v = match self.pointee(&name) {
                        Some(pointee) => {
                            if ends_with_deref(&out) {
                                out.pop();
                            }
                            self.lookup(&pointee)
                        }
                        None => self.lookup(&name),
                    }
                    .expect("checked by is_local_use");
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
        let punct_before =
            |c: char| i >= 1 && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == c);
        let after_path_sep = i >= 2
            && punct_before(':')
            && matches!(&tokens[i - 2], TokenTree::Punct(p) if p.as_char() == ':');
        let before_path_sep = matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
            && matches!(tokens.get(i + 2), Some(TokenTree::Punct(p)) if p.as_char() == ':');
        let is_macro_name = matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!')
            && matches!(tokens.get(i + 2), Some(TokenTree::Group(_)));
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

/// The names a format string captures: `{name}` and `{name:spec}` (not `{{`, `{0}`, `{}`).
fn format_captures(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '{' {
            if chars.get(i + 1) == Some(&'{') {
                i += 2;
                continue;
            }
            let start = i + 1;
            let mut j = start;
            while j < chars.len() && (chars[j].is_alphanumeric() || chars[j] == '_') {
                j += 1;
            }
            let name: String = chars[start..j].iter().collect();
            if j > start
                && matches!(chars.get(j), Some('}') | Some(':'))
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && !out.contains(&name)
            {
                out.push(name);
            }
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Expressions whose value can never carry a derivative: casts to integers, comparisons
/// and logical operators (booleans), `!`.
fn never_active(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Cast(c) => {
            matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|i| {
                let s = i.to_string();
                crate::ir::INTEGER_TYPES.contains(&s.as_str()) || s == "bool" || s == "char"
            }))
        }
        syn::Expr::Binary(b) => matches!(
            b.op,
            syn::BinOp::Eq(_)
                | syn::BinOp::Ne(_)
                | syn::BinOp::Lt(_)
                | syn::BinOp::Le(_)
                | syn::BinOp::Gt(_)
                | syn::BinOp::Ge(_)
                | syn::BinOp::And(_)
                | syn::BinOp::Or(_)
        ),
        syn::Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        syn::Expr::MethodCall(m) => crate::ir::is_inactive_method(&m.method),
        _ => false,
    }
}

/// Whether `tokens` end with a unary `*` (a dereference, not a multiplication): a `*`
/// that follows no operand.
fn ends_with_deref(tokens: &[TokenTree]) -> bool {
    let n = tokens.len();
    if !matches!(tokens.last(), Some(TokenTree::Punct(p)) if p.as_char() == '*') {
        return false;
    }
    match n.checked_sub(2).map(|i| &tokens[i]) {
        None | Some(TokenTree::Punct(_)) => true,
        Some(TokenTree::Ident(id)) => matches!(
            id.to_string().as_str(),
            "if" | "while" | "match" | "return" | "in" | "let" | "else" | "break" | "for"
        ),
        Some(TokenTree::Group(_) | TokenTree::Literal(_)) => false,
    }
}
