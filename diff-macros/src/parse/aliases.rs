//! Type aliases, read as the types they stand for.
//!
//! The macro decides much from how a type is written (`Vec<Vec<f64>>` is a collection
//! whose tangent is itself, `[f64; 3]` an array); an alias (`type Matrix = Vec<Vec<f64>>;`,
//! `type Vec3 = [f64; 3];`) hides that. Before a function is read, each type in it that
//! names an alias without parameters of the crate ([`crate::source::aliases`]) is
//! replaced by the alias's type, at the alias's span. An alias is the same type for
//! rustc, so the function means the same.
use std::collections::HashSet;
use syn::visit_mut::VisitMut;

/// Replaces the aliases in `item` (a function, an `impl` or a `trait` block).
pub fn expand<T>(item: &mut T, span: proc_macro2::Span, visit: impl Fn(&mut Expand, &mut T)) {
    let aliases = crate::source::aliases(span);
    if aliases.is_empty() {
        return;
    }
    let mut e = Expand {
        aliases,
        generic: HashSet::new(),
    };
    visit(&mut e, item);
}

/// The visitor of [`expand`].
pub struct Expand {
    aliases: Vec<(String, proc_macro2::TokenStream)>,
    /// The type parameters declared so far, which are not aliases whatever their names.
    generic: HashSet<String>,
}

impl VisitMut for Expand {
    fn visit_generics_mut(&mut self, g: &mut syn::Generics) {
        for t in g.type_params() {
            self.generic.insert(t.ident.to_string());
        }
        syn::visit_mut::visit_generics_mut(self, g);
    }

    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        syn::visit_mut::visit_type_mut(self, t);
        // Aliases of aliases, a few levels deep.
        for _ in 0..4 {
            let syn::Type::Path(p) = &*t else { return };
            let [segment] = p.path.segments.iter().collect::<Vec<_>>()[..] else {
                return;
            };
            if p.qself.is_some() || p.path.leading_colon.is_some() || !segment.arguments.is_none() {
                return;
            }
            let name = segment.ident.to_string();
            if self.generic.contains(&name) {
                return;
            }
            let Some((_, ty)) = self.aliases.iter().find(|(n, _)| *n == name) else {
                return;
            };
            let tokens = crate::requirements::respan(ty.clone(), segment.ident.span());
            let Ok(ty) = syn::parse2::<syn::Type>(tokens) else {
                return;
            };
            *t = ty;
        }
    }
}
