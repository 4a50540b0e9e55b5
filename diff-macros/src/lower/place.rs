//! Places: what an assignment writes and a `&mut` borrow lends.
//!
//! A place is a variable of the body (a local, or the pointee `*p` of a `&mut`
//! parameter, `*self` of a `&mut self` method) and a path of fields and indices into it:
//! `t.0`, `s.a`, `w[i]`, `self.state.x`, `(*p).b`. Its indices are evaluated once, in
//! order, when the place is resolved. Reading a place projects the variable's current
//! value; writing it rebinds the variable to a copy with that part replaced, so every
//! write, whatever the path, is an assignment of the variable itself, which is what
//! branches and loops carry.
use super::Lowerer;
use crate::ir::{Inst, Value};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::Expr;

/// A resolved place.
#[derive(Clone)]
pub(crate) struct Place {
    /// The variable: a local's name, or `*p` for the pointee of a `&mut` parameter.
    pub(crate) root: String,
    /// Fields and indices from the variable to the place, outermost first.
    projections: Vec<Projection>,
    span: Span,
}

#[derive(Clone)]
enum Projection {
    Field(syn::Member),
    Index(Value),
}

impl Place {
    /// The name the value written to the place is shown with.
    pub(crate) fn display_name(&self) -> String {
        self.root.trim_start_matches('*').to_string()
    }
}

impl Lowerer {
    /// The variable `*name` of the pointee when `name` is a `&mut` parameter (or `self`
    /// of a `&mut self` method) not shadowed by a local.
    pub(crate) fn pointee(&self, name: &str) -> Option<String> {
        let v = self.lookup(name)?;
        self.mut_params.contains(&v).then(|| format!("*{name}"))
    }

    /// The variable a name stands for as the root of a place: the pointee of a `&mut`
    /// parameter (`p.x` of `p: &mut S` is `(*p).x`), else the local.
    fn place_root(&self, name: &str) -> Option<String> {
        self.pointee(name)
            .or_else(|| self.lookup(name).map(|_| name.to_string()))
    }

    /// Resolves `e` as a place of the body, evaluating its indices. `None` when `e` is not
    /// a place rooted at a variable of the body (a temporary, a call's result, a constant).
    pub(crate) fn lower_place(&mut self, e: &Expr) -> syn::Result<Option<Place>> {
        let span = e.span();
        match e {
            Expr::Paren(p) => self.lower_place(&p.expr),
            Expr::Group(g) => self.lower_place(&g.expr),
            Expr::Path(p) if p.qself.is_none() => Ok(p.path.get_ident().and_then(|id| {
                self.place_root(&id.to_string()).map(|root| Place {
                    root,
                    projections: Vec::new(),
                    span,
                })
            })),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => match &*u.expr {
                Expr::Path(p) => Ok(p
                    .path
                    .get_ident()
                    .and_then(|id| self.pointee(&id.to_string()))
                    .map(|root| Place {
                        root,
                        projections: Vec::new(),
                        span,
                    })),
                _ => Ok(None),
            },
            Expr::Field(f) => {
                let Some(mut place) = self.lower_place(&f.base)? else {
                    return Ok(None);
                };
                place.projections.push(Projection::Field(f.member.clone()));
                place.span = span;
                Ok(Some(place))
            }
            Expr::Index(i) => {
                let Some(mut place) = self.lower_place(&i.expr)? else {
                    return Ok(None);
                };
                let index = self.lower_expr(&i.index)?;
                place.projections.push(Projection::Index(index));
                place.span = span;
                Ok(Some(place))
            }
            _ => Ok(None),
        }
    }

    /// The current value of a place.
    pub(crate) fn read_place(&mut self, place: &Place) -> Value {
        let root = self.lookup(&place.root).expect("resolved in scope");
        self.project(root, &place.projections, place.span)
    }

    fn project(&mut self, mut v: Value, projections: &[Projection], span: Span) -> Value {
        for p in projections {
            v = match p {
                Projection::Field(m) => self.field(v, m, span),
                Projection::Index(i) => self.emit(Inst::Index(v, *i), span, None),
            };
        }
        v
    }

    /// `base.member`, or the element itself when `base` is a tuple built in the body.
    pub(crate) fn field(&mut self, base: Value, member: &syn::Member, span: Span) -> Value {
        if let (syn::Member::Unnamed(i), Some(parts)) = (member, self.tuple_parts(base)) {
            if let Some(v) = parts.get(i.index as usize) {
                return *v;
            }
        }
        self.emit(Inst::Field(base, member.clone()), span, None)
    }

    /// Stores `v` into a place: the variable is rebound to its current value with the
    /// place's part replaced.
    pub(crate) fn write_place(&mut self, place: &Place, v: Value) {
        let root = self.lookup(&place.root).expect("resolved in scope");
        // The values along the path, from the variable to the place's owner.
        let mut owners = vec![root];
        for (k, p) in place.projections.iter().enumerate() {
            if k + 1 < place.projections.len() {
                let cur = *owners.last().expect("non-empty");
                let next = self.project(cur, std::slice::from_ref(p), place.span);
                owners.push(next);
            }
        }
        let mut new = v;
        for (p, owner) in place.projections.iter().zip(owners).rev() {
            new = match p {
                Projection::Field(m) => {
                    self.emit(Inst::SetField(owner, m.clone(), new), place.span, None)
                }
                Projection::Index(i) => self.emit(Inst::SetIndex(owner, *i, new), place.span, None),
            };
        }
        self.assign(&place.root, new);
    }

    /// Resolves the place an assignment writes, or an error for one the IR does not model.
    pub(crate) fn assigned_place(&mut self, e: &Expr) -> syn::Result<Place> {
        let bare = matches!(super::expr::peel(e), Expr::Path(_));
        match self.lower_place(e)? {
            Some(p) if bare && p.root.starts_with('*') => Err(syn::Error::new_spanned(e,
                "assigning a new reference to a `&mut` parameter is not supported in a #[differentiable] body; assign through it (`*p = ..`)",
            )),
            Some(p) => Ok(p),
            None => Err(syn::Error::new_spanned(e,
                "assignment to this place is not supported in a #[differentiable] body; assign to a local variable (`let mut`), a field or an element of one, or through a `&mut` parameter",
            )),
        }
    }
}
