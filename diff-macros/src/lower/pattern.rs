//! Binding patterns (`let` and parameters) to values.
use super::Lowerer;
use crate::ir::{Borrow, Inst, Value};
use syn::spanned::Spanned;
use syn::Pat;

impl Lowerer {
    /// The elements of `v` when it is a tuple built in the body (`let (a, b) = (x, y)`
    /// binds `a` to `x` itself, not to a projection of a tuple).
    /// Whether `v` is a place (`a.f`, `a[i]`, `*a`), read where it is used.
    fn is_place_value(&self, v: Value) -> bool {
        matches!(
            self.func.def_inst(v),
            Some(Inst::Field(..) | Inst::Index(..) | Inst::Deref(_))
        )
    }

    /// Whether `v` is certainly a reference (`&data[i]`, a parameter taken by reference,
    /// a sub-slice `&xs[a..b]` or an item of `xs.chunks(k)`): a tuple or array pattern
    /// matched against it binds references to the parts, as Rust's default binding mode
    /// does (`for (x, y) in data` gives `x: &Vec<f64>`).
    pub(crate) fn is_reference(&self, v: Value) -> bool {
        match self.func.def_inst(v) {
            Some(Inst::Ref(..)) => true,
            Some(Inst::Call(crate::ir::Callee::Method { method, .. }, _)) => method == "as_slice",
            Some(Inst::Param(i)) => self.func.by_ref.contains(i),
            Some(Inst::Call(crate::ir::Callee::Path(p), _)) => {
                crate::ir::is_library_fn(p, "sub_slice")
            }
            _ => false,
        }
    }

    /// Whether `v` is an iterator (`(0..n).rev()`, `it.skip(1)`, a range): a `for`
    /// over a variable holding one iterates it, rather than the variable as a collection.
    pub(crate) fn is_iterator(&self, v: Value) -> bool {
        // Besides a chain's own methods, the lazy adapters it is not differentiated
        // through.
        const OTHER_ADAPTERS: &[&str] = &[
            "chain",
            "skip_while",
            "take_while",
            "peekable",
            "flat_map",
            "filter_map",
            "cycle",
        ];
        match self.func.def_inst(v) {
            Some(Inst::Call(crate::ir::Callee::Method { method, .. }, args)) => {
                super::iterators::CHAIN_METHODS
                    .iter()
                    .chain(OTHER_ADAPTERS)
                    .any(|a| method == a)
                    && !super::iterators::is_users_adapter_named(method, args.len() - 1)
            }
            Some(Inst::Opaque(o)) => o.what == "range",
            _ => false,
        }
    }

    /// Binds `pat` to the part `part` of `whole`: to a reference to it when `whole` is a
    /// reference.
    fn bind_part(&mut self, pat: &Pat, whole: Value, part: Value) -> syn::Result<()> {
        if self.is_reference(whole) {
            let r = self.emit(Inst::Ref(part, Borrow::Shared), pat.span(), None);
            return self.bind_pattern(pat, r);
        }
        self.bind_pattern(pat, part)
    }

    /// `v`, or for a place (`w[1]`, `p.x`) a copy of it read now: a place is read where it
    /// is used, and the value it is in may be updated or moved before (`let b = w[1];`,
    /// and the elements of tuples, arrays and structs, whose parts later reads fold to).
    pub(crate) fn copied_now(&mut self, v: Value, span: proc_macro2::Span) -> Value {
        if !self.is_place_value(v) {
            return v;
        }
        let r = self.emit(Inst::Ref(v, Borrow::Shared), span, None);
        self.emit(Inst::Load(r), span, None)
    }

    pub(crate) fn tuple_parts(&self, v: Value) -> Option<Vec<Value>> {
        match self.func.def_inst(v) {
            Some(Inst::Tuple(vs)) => Some(vs.clone()),
            _ => None,
        }
    }

    /// The field `.i` of the tuple `v` (the element `[i]` of the array `v`, with `array`).
    pub(crate) fn part_at(
        &mut self,
        v: Value,
        i: usize,
        array: bool,
        span: proc_macro2::Span,
    ) -> Value {
        if array {
            let lit = syn::LitInt::new(&format!("{i}usize"), span);
            let index = self.emit(Inst::Const(quote::quote!(#lit)), span, None);
            self.emit(Inst::Index(v, index), span, None)
        } else {
            let member = syn::Member::Unnamed(syn::Index {
                index: i as u32,
                span,
            });
            self.emit(Inst::Field(v, member), span, None)
        }
    }

    /// Binds each of `elems` to the field of `v` at its position (`.0`, `.1`, ..: a
    /// tuple's or a tuple struct's); `rest` is the error for a `..` among them.
    fn bind_positional(
        &mut self,
        elems: &syn::punctuated::Punctuated<Pat, syn::Token![,]>,
        v: Value,
        rest: &str,
    ) -> syn::Result<()> {
        for (i, elem) in elems.iter().enumerate() {
            if matches!(elem, Pat::Rest(_)) {
                return Err(syn::Error::new_spanned(elem, rest));
            }
            let part = self.part_at(v, i, false, elem.span());
            self.bind_part(elem, v, part)?;
        }
        Ok(())
    }

    /// Binds the names of `pat` to parts of `v`: tuple and array patterns become field and
    /// index projections.
    pub(crate) fn bind_pattern(&mut self, pat: &Pat, v: Value) -> syn::Result<()> {
        match pat {
            Pat::Ident(p) => {
                if let Some((_, sub)) = &p.subpat {
                    return Err(syn::Error::new_spanned(sub, "`name @ pattern` is not supported in a #[differentiable] body"));
                }
                // `let b = w[1];` copies the element now: `w` may be updated or moved later.
                let v = self.copied_now(v, p.ident.span());
                self.bind(p.ident.to_string(), v);
                Ok(())
            }
            Pat::Type(t) => self.bind_pattern(&t.pat, v),
            Pat::Paren(p) => self.bind_pattern(&p.pat, v),
            Pat::Wild(_) => Ok(()),
            Pat::Reference(r) => {
                let inner = self.emit(Inst::Deref(v), r.span(), None);
                self.bind_pattern(&r.pat, inner)
            }
            Pat::Tuple(t) => match self.tuple_parts(v).filter(|p| p.len() == t.elems.len()) {
                Some(parts) => {
                    for (elem, part) in t.elems.iter().zip(parts) {
                        self.bind_pattern(elem, part)?;
                    }
                    Ok(())
                }
                None => self.bind_positional(&t.elems, v, "`..` in a tuple pattern is not supported in a #[differentiable] body; name every element"),
            },
            // `let [a, .., z] = xs;`: bound through indexing a local holding `xs`.
            Pat::Slice(s) if s.elems.iter().any(super::destructuring::is_rest) => {
                let local = syn::Ident::new(&format!("__diff_slice_{}", v.0), s.span());
                let by_ref = self.is_reference(v);
                let Some(parts) = super::destructuring::parts(pat, &quote::quote!(#local), by_ref, &[]) else {
                    return Err(syn::Error::new_spanned(s, "this array pattern is not supported in a #[differentiable] body; bind each element by name, or the rest as a slice of a slice (`[a, rest @ ..]` with a slice on the right)"));
                };
                // A `let` pattern is irrefutable (`let .. else` is a `match`): its
                // length test holds.
                self.bind(local.to_string(), v);
                let binds = parts.binds;
                let block: syn::Block = syn::parse2(quote::quote!({ #binds }))?;
                for stmt in &block.stmts {
                    self.lower_stmt(stmt)?;
                }
                Ok(())
            }
            Pat::Slice(s) => {
                for (i, elem) in s.elems.iter().enumerate() {
                    if matches!(elem, Pat::Rest(_)) {
                        return Err(syn::Error::new_spanned(elem, "`..` in an array pattern is not supported in a #[differentiable] body; name every element"));
                    }
                    let part = self.part_at(v, i, true, elem.span());
                    self.bind_part(elem, v, part)?;
                }
                Ok(())
            }
            // `let Point { x, y: b, .. } = p;`: each named field a projection.
            Pat::Struct(st) if st.qself.is_none() => {
                for f in &st.fields {
                    let part = self.emit(Inst::Field(v, f.member.clone()), f.span(), None);
                    self.bind_part(&f.pat, v, part)?;
                }
                Ok(())
            }
            // `let Meters(m) = d;` (a tuple struct's fields; an enum's variants are
            // refutable, matched by `match`).
            Pat::TupleStruct(ts) if ts.qself.is_none() && !is_variant(&ts.path) => {
                self.bind_positional(&ts.elems, v, "`..` in a tuple struct pattern is not supported in a #[differentiable] body; name every field")
            }
            other => Err(syn::Error::new_spanned(other, "this pattern is not supported in a #[differentiable] body; use a name, a tuple, an array or a struct pattern")),
        }
    }
}

/// Whether `path` names a variant of `Option` or `Result` (refutable in a `let`).
fn is_variant(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| ["Some", "None", "Ok", "Err"].iter().any(|n| s.ident == n))
}
