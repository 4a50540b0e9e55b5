//! Attribute arguments, parsed with darling.
use darling::ast::NestedMeta;
use darling::FromMeta;
use proc_macro2::TokenStream;
use syn::spanned::Spanned;

/// Whether `path` ends in `name` (`differentiable`, `diff::differentiable`): how the
/// macros recognize their own attributes and derives, however the user imported them.
pub fn ends_with(path: &syn::Path, name: &str) -> bool {
    path.segments.last().is_some_and(|s| s.ident == name)
}

/// A list of parameter names: `wrt = (x, y)` or `wrt = x`.
#[derive(Clone, Debug, Default)]
pub struct NameList(pub Vec<syn::Ident>);

impl FromMeta for NameList {
    fn from_expr(expr: &syn::Expr) -> darling::Result<Self> {
        let elems: Vec<&syn::Expr> = match expr {
            syn::Expr::Tuple(t) => t.elems.iter().collect(),
            syn::Expr::Paren(p) => vec![&*p.expr],
            other => vec![other],
        };
        let mut names = Vec::new();
        for e in elems {
            match e {
                syn::Expr::Path(p) if p.path.get_ident().is_some() => {
                    names.push(p.path.get_ident().expect("checked").clone())
                }
                syn::Expr::Path(p) if p.path.is_ident("self") => {
                    names.push(syn::Ident::new("self", p.span()))
                }
                other => {
                    return Err(darling::Error::custom("expected a parameter name").with_span(other))
                }
            }
        }
        Ok(NameList(names))
    }
}

/// Arguments of `#[differentiable(...)]`.
#[derive(Debug, Default, FromMeta)]
pub struct DifferentiableArgs {
    /// Parameters to differentiate with respect to; all differentiable ones if absent.
    #[darling(default)]
    pub wrt: Option<NameList>,
}

impl DifferentiableArgs {
    /// Parses the attribute's argument tokens.
    pub fn parse(args: TokenStream) -> syn::Result<Self> {
        let metas = NestedMeta::parse_meta_list(args)?;
        Self::from_list(&metas).map_err(syn::Error::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_wrt_forms() {
        let a = DifferentiableArgs::parse(quote!(wrt = (x, y))).unwrap();
        let names: Vec<String> = a.wrt.unwrap().0.iter().map(|i| i.to_string()).collect();
        assert_eq!(names, ["x", "y"]);
        let a = DifferentiableArgs::parse(quote!(wrt = x)).unwrap();
        assert_eq!(a.wrt.unwrap().0.len(), 1);
        assert!(DifferentiableArgs::parse(quote!()).unwrap().wrt.is_none());
    }

    #[test]
    fn rejects_unknown_keys() {
        let e = DifferentiableArgs::parse(quote!(wtr = x)).unwrap_err();
        assert!(e.to_string().contains("wtr"), "{e}");
    }
}
