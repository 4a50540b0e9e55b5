//! Arguments of `#[derivative(of = path)]` / `#[derivative(of = path, jvp)]`.
use darling::ast::NestedMeta;
use darling::FromMeta;
use proc_macro2::TokenStream;

/// Parsed `#[derivative(...)]` arguments.
#[derive(Debug, FromMeta)]
pub struct DerivativeArgs {
    /// The function the derivative is for.
    pub of: syn::Path,
    /// Registers a forward-mode derivative (JVP) instead of a reverse-mode one.
    #[darling(default)]
    pub jvp: bool,
    /// Registers a reverse-mode derivative (VJP); the default.
    #[darling(default)]
    pub vjp: bool,
}

impl DerivativeArgs {
    /// Parses the attribute's argument tokens.
    pub fn parse(args: TokenStream) -> syn::Result<Self> {
        let metas = NestedMeta::parse_meta_list(args)?;
        let a = Self::from_list(&metas).map_err(syn::Error::from)?;
        if a.jvp && a.vjp {
            return Err(syn::Error::new(proc_macro2::Span::call_site(), "a registration is either `vjp` (the default) or `jvp`, not both; register each mode with its own function"));
        }
        Ok(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_paths_and_mode() {
        let a = DerivativeArgs::parse(quote!(of = f64::cbrt)).unwrap();
        assert_eq!(a.of.segments.len(), 2);
        assert!(!a.jvp);
        let a = DerivativeArgs::parse(quote!(of = h, jvp)).unwrap();
        assert!(a.jvp);
        assert!(DerivativeArgs::parse(quote!(jvp)).is_err());
    }
}
