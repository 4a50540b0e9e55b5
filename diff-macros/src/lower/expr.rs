//! Lowering of expressions and statements.
use super::iterators::SELECTIONS;
use super::place::Place;
use super::Lowerer;
use crate::ir::{BinOp, Borrow, Callee, Inst, Sequence, Value};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Stmt};

/// Lowered call arguments, and the positions and places of the `&mut` borrows among them.
type LoweredArgs = (Vec<Value>, Vec<(usize, Place)>);

impl Lowerer {
    /// Whether `name` names a scalar type, whose associated functions are methods of
    /// the scalar (`f64::sin(x)`, `T::max(a, b)`, `Float::powi(x, 2)`).
    fn is_scalar_type_name(&self, name: &str) -> bool {
        matches!(name, "f32" | "f64" | "Float" | "Real")
            || self.scalar_params.iter().any(|p| p == name)
    }
}

impl Lowerer {
    /// Whether `name` stands for a parameter taken by reference (not for a local that
    /// shadows it: `let xs = xs.to_vec();`).
    pub(crate) fn is_ref_param(&self, name: &str) -> bool {
        self.ref_params.iter().any(|p| p == name)
            && self
                .lookup(name)
                .is_some_and(|v| matches!(self.func.def_inst(v), Some(Inst::Param(_))))
    }

    /// Whether the variable `name` holds a reference (`is_reference`, a parameter taken
    /// by reference among them): iterating one yields references, as in Rust.
    pub(crate) fn holds_reference(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|v| self.is_reference(v))
    }

    /// `e` as an iterator chain over collections ([`super::iterators::parse_chain`]), with
    /// the references it iterates marked as such.
    pub(crate) fn chain(&self, e: &Expr) -> Option<super::iterators::Chain> {
        let mut chain = super::iterators::parse_chain(e)?;
        chain.mark_references(|name| self.holds_reference(name));
        Some(chain)
    }

    /// For `e` an `Option` of an item of an iterator chain written in place that holds
    /// references (`&xs[i]`, `(i, &xs[i])`): `xs.iter().find(p)`, `.last()`, `.nth(k)`,
    /// `.next()`, and `.max_by(cmp)` and the other selections over references, the item
    /// (for [`referenced_like`](super::iterators::referenced_like)). Such an `Option`
    /// carries no derivative: it is searched copied (`.copied()`, which for a tuple drops
    /// its references) and given to the user's pattern through a reference to the copy.
    pub(crate) fn option_of_reference(&self, e: &Expr) -> Option<Expr> {
        let Expr::MethodCall(m) = peel(e) else {
            return None;
        };
        let name = m.method.to_string();
        let searches = ["find", "last", "nth", "next"].contains(&name.as_str())
            && matches!(peel(&m.receiver), Expr::MethodCall(_));
        let item = self.chain(&m.receiver)?.item_with_references()?;
        // (A selection keeps an index, not a tuple: over references only.)
        let selects = SELECTIONS.contains(&name.as_str()) && matches!(item, Expr::Reference(_));
        (searches || selects).then_some(item)
    }
}

impl Lowerer {
    /// Lowers a block and returns its value (`()` when it has no tail expression).
    pub(crate) fn lower_block_value(&mut self, block: &syn::Block) -> syn::Result<Value> {
        self.push_scope();
        let v = self.lower_seq(&block.stmts);
        self.pop_scope();
        v
    }

    pub(crate) fn lower_stmt(&mut self, stmt: &Stmt) -> syn::Result<()> {
        match stmt {
            Stmt::Local(local) => {
                let Some(init) = &local.init else {
                    return Err(syn::Error::new_spanned(local,
                        "`let` without an initializer is not supported in a #[differentiable] body; give the variable a value",
                    ));
                };
                // (Any other `let ... else` is a `match`, `diverge.rs`.)
                if init.diverge.is_some() {
                    return Err(syn::Error::new_spanned(&local.pat, "`let ... else` binding by `ref` is not supported in a #[differentiable] body; bind by value (`let Some(y) = o else { .. };`)"));
                }
                // `let (a, b) = (x, y);` is one `let` per element: a tuple built only to
                // be taken apart would move its elements (a `Vec`, a struct) away.
                if let Some(lets) = elementwise(&local.pat, &init.expr) {
                    for stmt in &lets {
                        self.lower_stmt(stmt)?;
                    }
                    return Ok(());
                }
                if matches!(peel(&init.expr), Expr::Reference(r) if r.mutability.is_some()) {
                    return Err(syn::Error::new_spanned(&init.expr,
                        "binding a `&mut` borrow to a name is not supported in a #[differentiable] body: the derivatives follow writes made through the variable itself; write `m[i][j] = ..`, `y.reverse()`, or give `&mut y` to the function where it is called",
                    ));
                }
                if let Expr::Path(p) = peel(&init.expr) {
                    if p.path
                        .get_ident()
                        .is_some_and(|i| self.pointee(&i.to_string()).is_some())
                    {
                        return Err(syn::Error::new_spanned(&init.expr,
                            "binding a `&mut` parameter to another name is not supported in a #[differentiable] body; read and write through the parameter itself (`p.x = ..`, `*p = ..`)",
                        ));
                    }
                }
                if let Some(stmts) = array_from_fn(local, &init.expr) {
                    for stmt in &stmts {
                        self.lower_stmt(stmt)?;
                    }
                    return Ok(());
                }
                // `let y: f64 = x.into();` is `f64::from(x)`, whose target type the
                // derivative rule needs (the method's is only inferred).
                let converted = float_conversion(local, &init.expr);
                let declared = match &local.pat {
                    syn::Pat::Type(t) => Some(&*t.ty),
                    _ => None,
                };
                // `let g: f64 = 0.0;` keeps its type, which later method calls on `g`
                // may need (`{float}` has none); so do the literals inside a tuple or
                // array (`let t: (f64, f64) = (0.5, x);`).
                let typed = declared.and_then(|ty| typed_literals(ty, &init.expr));
                let v = match typed_literal(local, &init.expr) {
                    Some(tokens) => self.emit(Inst::Const(tokens), init.expr.span(), None),
                    None => self
                        .lower_expr(converted.as_ref().or(typed.as_ref()).unwrap_or(&init.expr))?,
                };
                // A closure bound to a name is also remembered, so that calling it is
                // differentiated by inlining its body.
                if let (Expr::Closure(c), syn::Pat::Ident(p)) = (peel(&init.expr), &local.pat) {
                    self.record_closure(p.ident.to_string(), v, c);
                }
                let holds_struct = self
                    .struct_type_of(&init.expr)
                    .or_else(|| declared.and_then(|ty| self.struct_type_name(ty)));
                let holds_structs = self.element_struct_of(&init.expr).or_else(|| {
                    let element = crate::parse::types::element_type(declared?)?;
                    self.struct_type_name(element)
                });
                self.bind_pattern(&local.pat, v)?;
                if let syn::Pat::Type(t) = &local.pat {
                    if let syn::Pat::Ident(p) = &*t.pat {
                        if let Some(var) = self.binding(&p.ident.to_string()) {
                            self.declared.insert(var, (*t.ty).clone());
                        }
                    }
                }
                if let (Some(ty), Some(name)) = (holds_struct, super::pat_name(&local.pat)) {
                    if let Some(var) = self.binding(&name.to_string()) {
                        self.note_operator_struct(&ty);
                        self.struct_vars.insert(var, ty);
                    }
                }
                if let (Some(ty), Some(name)) = (holds_structs, super::pat_name(&local.pat)) {
                    if let Some(var) = self.binding(&name.to_string()) {
                        self.struct_collections.insert(var, ty);
                    }
                }
                Ok(())
            }
            Stmt::Item(item) => {
                // (In the companions a call may name the function another way than the
                // `use` brought it: through its key, `names::companion_expr`.)
                let mut item = item.clone();
                if let syn::Item::Use(u) = &mut item {
                    u.attrs.push(syn::parse_quote!(#[allow(unused_imports)]));
                }
                self.items.push(item);
                Ok(())
            }
            Stmt::Expr(Expr::Macro(m), _) => {
                self.refuse_unknown_statement_macro(&m.mac);
                self.lower_expr(&Expr::Macro(m.clone())).map(|_| ())
            }
            Stmt::Expr(e, _) => self.lower_expr(e).map(|_| ()),
            Stmt::Macro(m) => {
                self.refuse_unknown_statement_macro(&m.mac);
                let e = Expr::Macro(syn::ExprMacro {
                    attrs: m.attrs.clone(),
                    mac: m.mac.clone(),
                });
                self.lower_expr(&e).map(|_| ())
            }
        }
    }

    /// Lowers an expression to the value it computes.
    pub(crate) fn lower_expr(&mut self, e: &Expr) -> syn::Result<Value> {
        if self.depth >= super::MAX_DEPTH {
            return Err(syn::Error::new_spanned(
                e,
                "this expression is nested too deeply to differentiate; split it into several `let` statements",
            ));
        }
        // (A method call's lowering takes about twice the stack of other expressions'.)
        let weight = if matches!(e, Expr::MethodCall(_)) {
            2
        } else {
            1
        };
        self.depth += weight;
        let v = self.lower_expr_nested(e);
        self.depth -= weight;
        v
    }

    fn lower_expr_nested(&mut self, e: &Expr) -> syn::Result<Value> {
        let span = e.span();
        match e {
            Expr::Lit(_) => Ok(self.emit(Inst::Const(e.to_token_stream()), span, None)),
            Expr::Paren(p) => self.lower_expr(&p.expr),
            Expr::Group(g) => self.lower_expr(&g.expr),
            Expr::Path(p) => Ok(self.lower_path(p)),
            Expr::Binary(b) => self.lower_binary(b),
            Expr::Unary(u) => self.lower_unary(u),
            Expr::Reference(r) if r.mutability.is_none() && sub_slice(&r.expr).is_some() => {
                let call = sub_slice(&r.expr).expect("checked");
                self.lower_expr(&call)
            }
            Expr::Reference(r) => {
                // A shared borrow of what a closure captured is lent, not copied: its
                // type need not be `Clone`.
                if let (None, Expr::Path(p)) = (r.mutability, peel(&r.expr)) {
                    if self.is_captured(p) {
                        return Ok(self.emit(Inst::Const(quote::quote!(&#p)), span, None));
                    }
                    // A borrow of a constant (named in capitals, not a variable of the
                    // body: `p = &PR8;`, libm's j0) stays one expression, which Rust
                    // promotes to a `'static` borrow: a copy in a local would be dropped
                    // at the end of its branch.
                    let local = p.qself.is_none()
                        && p.path
                            .get_ident()
                            .is_some_and(|id| self.lookup(&id.to_string()).is_some());
                    let table = p.path.segments.last().is_some_and(|s| {
                        let name = s.ident.to_string();
                        name.len() > 1
                            && name
                                .chars()
                                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
                    });
                    if !local && table {
                        return Ok(self.emit(Inst::Const(quote::quote!(&#p)), span, None));
                    }
                }
                let v = self.lower_expr(&r.expr)?;
                Ok(self.emit(
                    Inst::Ref(
                        v,
                        if r.mutability.is_some() {
                            Borrow::Mut
                        } else {
                            Borrow::Shared
                        },
                    ),
                    span,
                    None,
                ))
            }
            Expr::Call(c) => self.lower_call(c),
            // `v.pop()`, `v.remove(i)`, .. update `v` and return a value; so does a
            // method of the crate taking `&mut self` (`let r = s.grow(k);`).
            Expr::MethodCall(m)
                if UPDATING_WITH_RESULT
                    .iter()
                    .any(|(name, arity)| m.method == name && m.args.len() == *arity)
                    || crate::source::updates_receiver(
                        m.method.span(),
                        || self.struct_type_of(&m.receiver),
                        &m.method.to_string(),
                    ) =>
            {
                self.lower_updating_call(m)
            }
            Expr::MethodCall(m) => match super::iterators::hoisted_root(e, false) {
                Some((root, chain)) => self.lower_expr(&syn::parse_quote!({
                    let __diff_collection = #root;
                    #chain
                })),
                None => self.lower_method_call(m),
            },
            Expr::Tuple(t) => {
                let vs = self.lower_elements(t.elems.iter())?;
                Ok(self.emit(Inst::Tuple(vs), span, None))
            }
            Expr::Field(f) => {
                if let Some(ty) = self.struct_type_of(&f.base) {
                    self.note_operator_struct(&ty);
                }
                let base = self.lower_expr(&f.base)?;
                Ok(self.field(base, &f.member, span))
            }
            Expr::Index(i) => {
                let base = self.lower_expr(&i.expr)?;
                let index = self.lower_expr(&i.index)?;
                if let Some((whole, start)) = self.window_element(base, index) {
                    let at = self.emit(Inst::Binary(BinOp::Add, start, index), span, None);
                    return Ok(self.emit(Inst::Index(whole, at), span, None));
                }
                Ok(self.emit(Inst::Index(base, index), span, None))
            }
            Expr::Block(b) if b.label.is_none() => self.lower_block_value(&b.block),
            Expr::Assign(a) => self.lower_assign(a),
            Expr::If(i) => match desugar_if_let(i) {
                Some(m) => self.lower_expr(&m),
                None => self.lower_if(i),
            },
            Expr::ForLoop(f) => self.lower_for(f),
            Expr::While(w) => self.lower_while(w),
            Expr::Match(m) => self.lower_match(m),
            Expr::Loop(l) => self.lower_loop(l),
            Expr::Range(r) => self.lower_range(r),
            Expr::Cast(c) if is_float_type(&c.ty) => {
                let v = self.lower_expr(&c.expr)?;
                Ok(self.emit(Inst::Cast(v, (*c.ty).clone()), span, None))
            }
            Expr::Array(a) => {
                let vs = self.lower_elements(a.elems.iter())?;
                Ok(self.emit(Inst::Array(vs, Sequence::Array), span, None))
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match m.mac.parse_body_with(
                syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated,
            ) {
                Ok(elems) => {
                    let vs = self.lower_elements(elems.iter())?;
                    Ok(self.emit(Inst::Array(vs, Sequence::Vec), span, None))
                }
                Err(_) => self
                    .lower_vec_repeat(m)
                    .map_or_else(|| Ok(self.opaque(e)), Ok),
            },
            Expr::Macro(m) if crate::operators::parse_nested(&m.mac).is_some() => {
                self.lower_nested(m)
            }
            Expr::Macro(m) => match crate::operators::nested_value_with(&m.mac) {
                Some(pair) => self.lower_expr(&pair?),
                None => Ok(self.opaque(e)),
            },
            Expr::Repeat(r) if !is_literal(&r.expr) => {
                // `[x; N]` is the call `array_repeat::<_, N>(x)`, whose derivative is
                // registered (`[0.0; N]` stays as it is).
                let (x, n) = (&r.expr, &r.len);
                let n = const_argument(n);
                let call: Expr = syn::parse_quote_spanned!(r.span()=>
                    ::diff::__private::array_repeat::<_, #n>(#x));
                self.lower_expr(&call)
            }
            Expr::Cast(_) | Expr::Repeat(_) => Ok(self.opaque(e)),
            Expr::Struct(s) if s.qself.is_none() => self.lower_struct(s),
            Expr::Struct(_) | Expr::Closure(_) => Ok(self.opaque(e)),
            Expr::Break(b) => self.lower_break(b),
            Expr::Continue(c) => self.lower_continue(c),
            Expr::Return(r) => Err(syn::Error::new_spanned(
                r,
                "`return` inside an expression is not supported here yet; restructure with if/else",
            )),
            other => Err(unsupported(other, describe(other))),
        }
    }

    /// The elements of a tuple, array or `vec![..]`, each a value of its own (a place
    /// copied now, [`Lowerer::copied_now`]).
    fn lower_elements<'e>(
        &mut self,
        elems: impl Iterator<Item = &'e Expr>,
    ) -> syn::Result<Vec<Value>> {
        elems
            .map(|e| {
                let v = self.lower_expr(e)?;
                Ok(self.copied_now(v, e.span()))
            })
            .collect()
    }

    /// `S { a: x, b }`, or `S { a: x, ..rest }` as `rest` with fields replaced.
    fn lower_struct(&mut self, s: &syn::ExprStruct) -> syn::Result<Value> {
        let mut fields = Vec::new();
        for f in &s.fields {
            let v = self.lower_expr(&f.expr)?;
            fields.push((f.member.clone(), self.copied_now(v, f.span())));
        }
        match &s.rest {
            Some(rest) => {
                // `..Default::default()` is the struct's default, as Rust infers it
                // from the literal (the lowered value stands alone).
                let mut cur = match is_default_call(rest) {
                    true => {
                        let path = &s.path;
                        self.lower_expr(&syn::parse_quote_spanned!(rest.span()=>
                            <#path as ::core::default::Default>::default()))?
                    }
                    false => self.lower_expr(rest)?,
                };
                for (m, v) in fields {
                    cur = self.emit(Inst::SetField(cur, m, v), s.span(), None);
                }
                Ok(cur)
            }
            None => Ok(self.emit(Inst::Struct(s.path.clone(), fields), s.span(), None)),
        }
    }

    /// `vec![e; n]`: the call `vec_repeat(e, n)` of diff-core, with its derivative rules
    /// (`vec![0.0; p.len()]` depends on no active value and is plain primal code).
    fn lower_vec_repeat(&mut self, m: &syn::ExprMacro) -> Option<Value> {
        // `vec![x; n]` is the call `vec_repeat(x, n)`, whose derivative is registered.
        let tokens = &m.mac.tokens;
        let r: syn::ExprRepeat = syn::parse2(quote::quote!([#tokens])).ok()?;
        let (x, n) = (&r.expr, &r.len);
        let call: Expr =
            syn::parse_quote_spanned!(m.span()=> ::diff::__private::vec_repeat(#x, #n));
        self.lower_expr(&call).ok()
    }

    /// `a..b`: the bounds are lowered (so `0..xs.len()` depends on no active value),
    /// the range itself is an opaque, inactive value.
    fn lower_range(&mut self, r: &syn::ExprRange) -> syn::Result<Value> {
        let mut uses = Vec::new();
        let mut part = |cx: &mut Self,
                        e: &Option<Box<Expr>>|
         -> syn::Result<proc_macro2::TokenStream> {
            Ok(match e {
                Some(e) => {
                    let v = cx.lower_expr(e)?;
                    uses.push(v);
                    let id = proc_macro2::Ident::new(&super::placeholder(uses.len() - 1), e.span());
                    quote::quote!((#id))
                }
                None => proc_macro2::TokenStream::new(),
            })
        };
        let start = part(self, &r.start)?;
        let end = part(self, &r.end)?;
        let limits = &r.limits;
        let tokens = quote::quote!((#start #limits #end));
        let o = crate::ir::Opaque {
            tokens,
            uses,
            what: "range".into(),
            macro_name: None,
            // (One of floats made of values carrying a derivative, given to a function,
            // is refused: a `Range<f64>` has no tangent to carry it, `check.rs`.)
            inactive: true,
            discrete: false,
        };
        Ok(self.emit(Inst::Opaque(o), r.span(), None))
    }

    fn lower_path(&mut self, p: &syn::ExprPath) -> Value {
        if p.qself.is_none() {
            if let Some(id) = p.path.get_ident() {
                // A `&mut` parameter (`self` of a `&mut self` method too) reads the
                // current value of its pointee.
                if let Some(v) = self.pointee(&id.to_string()).and_then(|n| self.lookup(&n)) {
                    return v;
                }
                if let Some(v) = self.lookup(&id.to_string()) {
                    return v;
                }
            }
        }
        // A constant, a static or a unit struct: no data dependence on the body. A
        // lowercase name is a variable a closure captures: copied, not moved, so the
        // operator does not consume it (borrowed when its type is not `Clone`).
        let tokens = if self.is_captured(p) {
            quote::quote!({
                #[allow(unused_imports)]
                use ::diff::__private::{CaptureByClone as _, CaptureByRef as _};
                (&::diff::__private::Captured(&#p)).capture()
            })
        } else {
            p.to_token_stream()
        };
        self.emit(Inst::Const(tokens), p.span(), None)
    }

    /// Whether `p` names a variable from outside the body (what a closure literal given
    /// to an operator captures): a lowercase name the body does not bind.
    fn is_captured(&self, p: &syn::ExprPath) -> bool {
        p.qself.is_none()
            && p.path.get_ident().is_some_and(|i| {
                let name = i.to_string();
                self.pointee(&name).is_none()
                    && self.lookup(&name).is_none()
                    && name.starts_with(|c: char| c.is_lowercase())
            })
    }

    fn lower_binary(&mut self, b: &syn::ExprBinary) -> syn::Result<Value> {
        let compound = is_compound_assignment(&b.op);
        let Some(op) = arithmetic(&b.op) else {
            if compound {
                return self.lower_opaque_compound(b);
            }
            if self.changes_variables(&Expr::Binary(b.clone())) {
                return self.lower_changing_condition(b);
            }
            // Comparisons, logic and bit operations: no derivative, kept verbatim.
            return Ok(self.opaque(&Expr::Binary(b.clone())));
        };
        // An operand known to be a struct with operators: the left one's method, or,
        // with a float on the left, the right one's (`impl Mul<V> for f64`).
        let dispatch = self.operator_of(op, &b.left, &b.right);
        if let Some((ty, _)) = &dispatch {
            self.note_operator_struct(ty);
        }
        if let Some((ty, method)) = &dispatch {
            if let Some(e) = self.unmarked_operator(ty, method, &b.op) {
                return Err(e);
            }
        }
        let dispatch = dispatch.filter(|_| self.underived == 0);
        let dispatched = |args: Vec<Value>| match &dispatch {
            Some((ty, method)) if crate::operator_impls::split_on_right(method).is_some() => {
                let ty = syn::Ident::new(ty, b.op.span());
                let method = syn::Ident::new(method, b.op.span());
                Some(Inst::Call(
                    Callee::Path(syn::parse_quote!(#ty::#method)),
                    args,
                ))
            }
            Some((_, method)) => Some(operator_call(method, b.op.span(), args)),
            None => None,
        };
        if compound {
            // For primitive operands Rust evaluates the right side first, then the place
            // (`g += { g += x; x * x }` adds to the updated `g`).
            let rhs = self.lower_expr(&b.right)?;
            let place = self.assigned_place(&b.left)?;
            let cur = self.read_place(&place);
            let inst = dispatched(vec![cur, rhs]).unwrap_or(Inst::Binary(op, cur, rhs));
            let v = self.emit(inst, b.span(), Some(place.display_name()));
            self.write_place(&place, v);
            return Ok(self.unit(b.span()));
        }
        let l = self.lower_expr(&b.left)?;
        let r = self.lower_expr(&b.right)?;
        let inst = dispatched(vec![l, r]).unwrap_or(Inst::Binary(op, l, r));
        let v = self.emit(inst, b.span(), None);
        if let Some((ty, _)) = dispatch {
            self.func.method_receivers.push((v, ty));
        }
        Ok(v)
    }

    /// The name of the crate's struct type `e` is known to be a value of: a variable
    /// holding one, a struct literal, or arithmetic on one (`(p + q) * 0.5`, taken to
    /// give its left struct operand's type).
    fn struct_type_of(&self, e: &Expr) -> Option<String> {
        let depth = self.typing_depth.get();
        if depth >= super::MAX_DEPTH {
            return None;
        }
        self.typing_depth.set(depth + 1);
        let ty = self.struct_type_at(e);
        self.typing_depth.set(depth);
        ty
    }

    fn struct_type_at(&self, e: &Expr) -> Option<String> {
        match e {
            // An associated constant (`Vec2::ZERO`) the source shows of a struct type.
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() >= 2 => {
                let mut segments = p.path.segments.iter().rev();
                let c = segments.next()?.ident.to_string();
                let owner = segments.next()?.ident.to_string();
                self.returned(&owner, &c)
            }
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.binding(&i.to_string()))
                .and_then(|var| self.struct_vars.get(&var).cloned()),
            Expr::Struct(s) => s.path.segments.last().map(|s| s.ident.to_string()),
            Expr::Index(ix) => match &*ix.expr {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .and_then(|i| self.binding(&i.to_string()))
                    .and_then(|var| self.struct_collections.get(&var).cloned()),
                _ => None,
            },
            Expr::Field(f) => {
                let base = self.struct_type_of(&f.base)?;
                let syn::Member::Named(field) = &f.member else {
                    return None;
                };
                self.struct_fields
                    .iter()
                    .find(|(t, name, _)| *t == base && field == name)
                    .map(|(_, _, ty)| ty.clone())
            }
            // A call of a function the source shows returning such a struct
            // (`V2::new(..)`, `make(k)`, `p.scaled(k)`).
            Expr::Call(c) => {
                let Expr::Path(p) = &*c.func else {
                    return None;
                };
                let mut segments = p.path.segments.iter().rev();
                let f = segments.next()?.ident.to_string();
                let owner = segments.next().map(|s| s.ident.to_string());
                self.returned(&owner.unwrap_or_default(), &f)
            }
            // `p.clone()` is `p`'s type.
            Expr::MethodCall(m) if m.method == "clone" && m.args.is_empty() => {
                self.struct_type_of(&m.receiver)
            }
            Expr::MethodCall(m) => {
                let owner = self.struct_type_of(&m.receiver)?;
                self.returned(&owner, &m.method.to_string())
            }
            // A block's or a branch's value (`if c { V2::new(..) } else { .. }`).
            Expr::If(i) => self.block_struct_type(&i.then_branch),
            Expr::Block(b) => self.block_struct_type(&b.block),
            Expr::Match(m) => m.arms.iter().find_map(|a| self.struct_type_of(&a.body)),
            Expr::Paren(p) => self.struct_type_of(&p.expr),
            Expr::Group(g) => self.struct_type_of(&g.expr),
            Expr::Reference(r) => self.struct_type_of(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_) | syn::UnOp::Deref(_)) => {
                self.struct_type_of(&u.expr)
            }
            // Arithmetic: the operator's `Output` when the `impl` names one (a dot
            // product may give an `f64`), else the struct operand's type.
            Expr::Binary(b) => {
                let op = arithmetic(&b.op).filter(|_| !is_compound_assignment(&b.op))?;
                let (ty, method) = self.operator_of(op, &b.left, &b.right)?;
                let output = self
                    .operators
                    .iter()
                    .find(|o| o.ty == ty && o.method == method)
                    .and_then(|o| o.output.clone());
                match output {
                    Some(out)
                        if out == ty
                            || self.has_operators(&out)
                            || self.struct_types.contains(&out) =>
                    {
                        Some(out)
                    }
                    Some(_) => None,
                    None => Some(ty),
                }
            }
            _ => None,
        }
    }

    /// [`Self::struct_type_of`] the value of a block (its final expression). A name the
    /// block binds itself shadows the variable outside (`{ let p = p.x; p }` is a float):
    /// the final expression naming it is typed by that `let`, or not known.
    fn block_struct_type(&self, b: &syn::Block) -> Option<String> {
        let Some(Stmt::Expr(tail, None)) = b.stmts.last() else {
            return None;
        };
        // Each `let` of the block, with the names it binds.
        let lets: Vec<(&syn::Local, Vec<String>)> = b
            .stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Local(l) => Some(l),
                _ => None,
            })
            .map(|l| {
                let names = super::matching::bindings(&l.pat);
                (l, names.iter().map(|i| i.to_string()).collect())
            })
            .collect();
        // What the `let`s before the `k`-th bind.
        let bound_before =
            |k: usize| -> Vec<String> { lets[..k].iter().flat_map(|(_, n)| n.clone()).collect() };
        if !names_any(tail.to_token_stream(), &bound_before(lets.len())) {
            return self.struct_type_of(tail);
        }
        // `{ let q = ..; q }`: the last `let` binding the name alone.
        let Expr::Path(p) = tail else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let k = lets.iter().rposition(|(_, names)| names.contains(&name))?;
        match &lets[k].0.pat {
            syn::Pat::Type(t) => crate::differentiable::type_name(&t.ty)
                .filter(|n| self.has_operators(n) || self.struct_types.contains(n)),
            syn::Pat::Ident(_) => {
                // Its value, unless it names what an earlier `let` of the block binds.
                let init = &lets[k].0.init.as_ref()?.expr;
                (!names_any(init.to_token_stream(), &bound_before(k)))
                    .then(|| self.struct_type_of(init))
                    .flatten()
            }
            _ => None,
        }
    }

    /// The struct a collection built in place holds (`vec![p; n]`, `vec![p, q]`,
    /// `[p, q]`, `[p; 3]` with `p` such a struct).
    fn element_struct_of(&self, e: &Expr) -> Option<String> {
        match e {
            Expr::Array(a) => self.struct_type_of(a.elems.first()?),
            Expr::Repeat(r) => self.struct_type_of(&r.expr),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => {
                let tokens = &m.mac.tokens;
                let parsed: Expr = syn::parse2(quote::quote!([#tokens])).ok()?;
                self.element_struct_of(&parsed)
            }
            Expr::Paren(p) => self.element_struct_of(&p.expr),
            _ => None,
        }
    }

    /// The struct the function `f` (of `owner`'s inherent `impl`, or free when `owner` is
    /// empty) returns, when it is one of the body's ([`super::Structs::returns`]).
    fn returned(&self, owner: &str, f: &str) -> Option<String> {
        self.returns
            .iter()
            .find(|(o, g, _)| o == owner && g == f)
            .map(|(_, _, r)| r.clone())
    }

    /// Whether the source shows operators implemented for `ty`.
    fn has_operators(&self, ty: &str) -> bool {
        self.operators.iter().any(|o| o.ty == ty)
    }

    /// The struct and the function (`operator_impls.rs`) arithmetic `op` on `left` and
    /// `right` calls, when an operand is known to be a struct with operators: the left
    /// one's method, or, with a float on the left, the right one's (`impl Mul<V> for
    /// f64`). `None` for arithmetic that follows the rules of floats.
    fn operator_of(&self, op: BinOp, left: &Expr, right: &Expr) -> Option<(String, String)> {
        let left = self.struct_type_of(left);
        let right = self.struct_type_of(right);
        let rhs_method = crate::operator_impls::on_right(op.method());
        match (left, right) {
            (Some(t), r) => {
                let method = self
                    .operator_by_rhs(&t, op, r.as_deref())
                    .unwrap_or_else(|| op.method().to_string());
                Some((t, method))
            }
            (None, Some(t)) if self.has_operator(&t, &rhs_method) => Some((t, rhs_method)),
            (None, Some(t)) => Some((t, op.method().to_string())),
            (None, None) => None,
        }
        .filter(|(t, _)| self.has_operators(t))
    }

    /// The copy of `ty`'s implementation of `op` (`operator_impls.rs`): the only one, or
    /// the one taking the struct `rhs` on the right (`__mul_by_v`), or, with `rhs` not
    /// known to be a struct, the one taking a type that is not one of the crate's
    /// structs (`__mul_by_f64`).
    fn operator_by_rhs(&self, ty: &str, op: BinOp, rhs: Option<&str>) -> Option<String> {
        let is_struct = |key: &str| {
            key.starts_with("ref_")
                || self
                    .operators
                    .iter()
                    .map(|o| &o.ty)
                    .chain(&self.struct_types)
                    .any(|t| t.to_lowercase() == key)
        };
        let candidates: Vec<(&String, &str)> = self
            .operators
            .iter()
            .filter(|o| o.ty == ty)
            .filter_map(|o| match crate::operator_impls::split_by_rhs(&o.method) {
                Some((method, key)) if method == op.method() => Some((&o.method, key)),
                _ => None,
            })
            .collect();
        match candidates.as_slice() {
            [(only, _)] => Some(*only),
            _ => candidates
                .iter()
                .find(|(_, key)| match rhs {
                    Some(r) => *key == r.to_lowercase(),
                    None => !is_struct(key),
                })
                .map(|(m, _)| *m),
        }
        .cloned()
    }

    /// Whether the source shows the operator method `method` implemented for `ty`.
    fn has_operator(&self, ty: &str, method: &str) -> bool {
        self.operators
            .iter()
            .any(|o| o.ty == ty && o.method == method)
    }

    /// The refusal of an operator on the struct `ty` whose method `method` (`neg`,
    /// `__sub_by_v`, or `__rhs_mul` for `impl Mul<V> for f64`) is implemented without
    /// #[differentiable];
    /// `None` when it is marked or not seen.
    fn unmarked_operator(&self, ty: &str, method: &str, op: &dyn ToTokens) -> Option<syn::Error> {
        // Whether each implementation seen is marked. (Two types of one name, in
        // different modules: one marked is taken to be the one meant, and a wrong guess
        // does not compile.)
        let marks: Vec<bool> = self
            .operators
            .iter()
            .filter(|o| o.ty == ty && o.method == method)
            .map(|o| o.marked)
            .collect();
        let unmarked = self.underived == 0 && !marks.is_empty() && !marks.contains(&true);
        // The right operand's type in the `impl` (`V` in `impl Mul<V> for ..`), and
        // whether the struct is on the right.
        let (method, rhs, on_right) = match crate::operator_impls::split_on_right(method) {
            Some(m) => (m, Some(ty.to_string()), true),
            None => match crate::operator_impls::split_by_rhs(method) {
                Some((m, key)) if key != ty.to_lowercase() => (m, Some(key.to_string()), false),
                Some((m, _)) => (m, None, false),
                None => (method, None, false),
            },
        };
        let trait_name = format!("{}{}", method[..1].to_uppercase(), &method[1..]);
        let trait_name = match rhs {
            Some(r) => format!("{trait_name}<{r}>"),
            None => trait_name,
        };
        let (what, block) = match on_right {
            true => (
                format!("with `{ty}` on the right"),
                format!("impl {trait_name} for .."),
            ),
            false => (format!("on `{ty}`"), format!("impl {trait_name} for {ty}")),
        };
        unmarked.then(|| {
            syn::Error::new_spanned(
                op,
                format!(
                    "`{}` {what} has no derivative: `fn {method}` in `{block}` is not #[differentiable]; mark it #[differentiable], or wrap the value in `no_derivative(..)` to drop its derivative",
                    op.to_token_stream()
                ),
            )
        })
    }

    /// The name of `ty` when it is one of the crate's struct types the parameters have.
    fn struct_type_name(&self, ty: &syn::Type) -> Option<String> {
        match ty {
            syn::Type::Path(p) if p.qself.is_none() => p
                .path
                .segments
                .last()
                .map(|s| s.ident.to_string())
                .filter(|n| self.struct_types.contains(n)),
            _ => None,
        }
    }

    /// `x %= e` and bit-operation assignments: an opaque computation rebinding `x`.
    fn lower_opaque_compound(&mut self, b: &syn::ExprBinary) -> syn::Result<Value> {
        let text = b.op.to_token_stream().to_string();
        let op: proc_macro2::TokenStream = text.trim_end_matches('=').parse().unwrap_or_default();
        // The right side first, as Rust evaluates it for primitive operands.
        let rhs = self.lower_expr(&b.right)?;
        let place = self.assigned_place(&b.left)?;
        let cur = self.read_place(&place);
        let (l, r) = (
            proc_macro2::Ident::new(&super::placeholder(0), b.left.span()),
            proc_macro2::Ident::new(&super::placeholder(1), b.right.span()),
        );
        let o = crate::ir::Opaque {
            tokens: quote::quote!((#l #op #r)),
            uses: vec![cur, rhs],
            what: "compound assignment".into(),
            macro_name: None,
            inactive: false,
            discrete: false,
        };
        let v = self.emit(Inst::Opaque(o), b.span(), Some(place.display_name()));
        self.write_place(&place, v);
        Ok(self.unit(b.span()))
    }

    fn lower_unary(&mut self, u: &syn::ExprUnary) -> syn::Result<Value> {
        match u.op {
            syn::UnOp::Neg(_) => {
                let on_struct = self
                    .struct_type_of(&u.expr)
                    .filter(|t| self.has_operators(t));
                if let Some(ty) = &on_struct {
                    if let Some(e) = self.unmarked_operator(ty, "neg", &u.op) {
                        return Err(e);
                    }
                }
                let on_struct = on_struct.filter(|_| self.underived == 0);
                let v = self.lower_expr(&u.expr)?;
                let inst = match on_struct {
                    Some(_) => operator_call("neg", u.op.span(), vec![v]),
                    None => Inst::Neg(v),
                };
                let v = self.emit(inst, u.span(), None);
                if let Some(ty) = on_struct {
                    self.func.method_receivers.push((v, ty));
                }
                Ok(v)
            }
            syn::UnOp::Deref(_) => {
                if let Expr::Path(p) = &*u.expr {
                    let pointee = p
                        .path
                        .get_ident()
                        .and_then(|i| self.pointee(&i.to_string()));
                    if let Some(v) = pointee.and_then(|n| self.lookup(&n)) {
                        return Ok(v);
                    }
                }
                let v = self.lower_expr(&u.expr)?;
                Ok(self.emit(Inst::Deref(v), u.span(), None))
            }
            syn::UnOp::Not(_) if self.changes_variables(&u.expr) => {
                // (`while step(&mut x) > tol`: `!(..)` of the loop's exit.)
                let v = self.lower_expr(&u.expr)?;
                Ok(self.kept_operator(quote::quote!(!), None, v, None, u.span()))
            }
            _ => Ok(self.opaque(&Expr::Unary(u.clone()))),
        }
    }

    /// Whether `e` changes a variable of the function (`f(&mut x)`, `v.push(..)`).
    fn changes_variables(&self, e: &Expr) -> bool {
        self.outer_change(e).is_some()
    }

    /// A comparison or logical operator whose operands change variables
    /// (`step(&mut x) > tol`): the operands lowered in Rust's order (the right side of
    /// `&&` and `||` only where Rust evaluates it: `a && b` is `if a { b } else { false
    /// }`), the operator kept as written on their values.
    fn lower_changing_condition(&mut self, b: &syn::ExprBinary) -> syn::Result<Value> {
        let (left, right) = (&b.left, &b.right);
        match b.op {
            syn::BinOp::And(_) => self.lower_expr(
                &syn::parse_quote_spanned!(b.span()=> if #left { #right } else { false }),
            ),
            syn::BinOp::Or(_) => self.lower_expr(
                &syn::parse_quote_spanned!(b.span()=> if #left { true } else { #right }),
            ),
            _ => {
                let l = self.lower_expr(left)?;
                let r = self.lower_expr(right)?;
                let op = &b.op;
                Ok(self.kept_operator(quote::quote!(#op), Some(l), r, Some(left.span()), b.span()))
            }
        }
    }

    /// `l op r` (or `op r`) of lowered values, kept as written: a comparison or `!`,
    /// whose result carries no derivative.
    fn kept_operator(
        &mut self,
        op: proc_macro2::TokenStream,
        l: Option<Value>,
        r: Value,
        left_span: Option<proc_macro2::Span>,
        span: proc_macro2::Span,
    ) -> Value {
        let ph =
            |i: usize, at: proc_macro2::Span| proc_macro2::Ident::new(&super::placeholder(i), at);
        let (tokens, uses) = match (l, left_span) {
            (Some(l), Some(at)) => {
                let (a, b) = (ph(0, at), ph(1, span));
                (quote::quote!((#a #op #b)), vec![l, r])
            }
            _ => {
                let a = ph(0, span);
                (quote::quote!((#op #a)), vec![r])
            }
        };
        let o = crate::ir::Opaque {
            tokens,
            uses,
            what: "comparison or logical operator".into(),
            macro_name: None,
            inactive: true,
            discrete: true,
        };
        self.emit(Inst::Opaque(o), span, None)
    }

    fn lower_assign(&mut self, a: &syn::ExprAssign) -> syn::Result<Value> {
        // The assigned value first, then the place (Rust's order). Literals assigned to
        // a variable declared with a type take it (`a = [1.0; 3];` after
        // `let mut a: [f64; 3] = ..`).
        let declared = match peel(&a.left) {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.binding(&i.to_string()))
                .and_then(|var| self.declared.get(&var)),
            _ => None,
        };
        let typed = declared.and_then(|ty| typed_literals(ty, &a.right));
        let v = self.lower_expr(typed.as_ref().unwrap_or(&a.right))?;
        self.assign_to(&a.left, v, a.right.span())?;
        Ok(self.unit(a.span()))
    }

    /// Writes `v` to the place `left`; a tuple or array of places (`(a, b) = (b, a)`,
    /// `[x, _] = p`) takes `v`'s parts in order, all read before any is written.
    fn assign_to(&mut self, left: &Expr, v: Value, span: proc_macro2::Span) -> syn::Result<()> {
        let elems = match peel(left) {
            Expr::Tuple(t) => Some((&t.elems, false)),
            Expr::Array(a) => Some((&a.elems, true)),
            _ => None,
        };
        let Some((elems, array)) = elems else {
            // `y = arr[0];` copies the element now, as `let` does.
            let v = self.copied_now(v, span);
            let place = self.assigned_place(left)?;
            self.write_place(&place, v);
            return Ok(());
        };
        let known = self
            .tuple_parts(v)
            .filter(|p| p.len() == elems.len() && !array);
        let mut parts = Vec::new();
        for (i, elem) in elems.iter().enumerate() {
            if matches!(elem, Expr::Range(r) if r.start.is_none() && r.end.is_none()) {
                return Err(syn::Error::new_spanned(elem, "`..` in a destructuring assignment is not supported in a #[differentiable] body; name every element"));
            }
            let part = match &known {
                Some(p) => p[i],
                None => self.part_at(v, i, array, elem.span()),
            };
            // Every part is read before the first write.
            parts.push(self.copied_now(part, elem.span()));
        }
        for (elem, part) in elems.iter().zip(parts) {
            if !matches!(elem, Expr::Infer(_)) {
                self.assign_to(elem, part, elem.span())?;
            }
        }
        Ok(())
    }

    fn lower_call(&mut self, c: &syn::ExprCall) -> syn::Result<Value> {
        if let Expr::Closure(closure) = peel(&c.func) {
            let here = self.closure_here(String::new(), None, closure);
            if let Some(v) = self.inline_closure_call(c, &here)? {
                return Ok(v);
            }
        }
        let Expr::Path(func) = &*c.func else {
            return Ok(self.opaque(&Expr::Call(c.clone())));
        };
        if let Some(e) = sub_slice_argument(c) {
            return self.lower_expr(&e);
        }
        // `sub_slice(&xs, ..)` of an array parameter taken by shared reference (`xs: &[f64;
        // 3]`, whose `&xs` does not coerce to `&[T]`): `sub_slice(xs, ..)`, the same
        // elements.
        if let (true, Some(Expr::Reference(r))) = (
            crate::ir::is_library_fn(func, "sub_slice"),
            c.args.first().map(peel),
        ) {
            let whole = peel(&r.expr);
            let array_reference = |id: &syn::Ident| {
                let name = id.to_string();
                self.lookup(&name)
                    .is_some_and(|v| match self.func.def_inst(v) {
                        Some(Inst::Param(i)) => {
                            self.func.arrays.contains(i)
                                && self.func.by_ref.contains(i)
                                && self.pointee(&name).is_none()
                        }
                        _ => false,
                    })
            };
            let held =
                matches!(whole, Expr::Path(p) if p.path.get_ident().is_some_and(array_reference));
            if held && r.mutability.is_none() {
                let mut call = c.clone();
                call.args[0] = whole.clone();
                return self.lower_call(&call);
            }
        }
        // `T::from(x)` (and `from_f64`, `from_f32`) for a generic float `T`: the
        // conversion `num_cast`, whose derivative converts the tangent.
        if let [ty, method] = func.path.segments.iter().collect::<Vec<_>>()[..] {
            let (ty, method) = (ty.ident.to_string(), method.ident.to_string());
            if func.qself.is_none()
                && c.args.len() == 1
                && self.scalar_params.contains(&ty)
                && matches!(method.as_str(), "from" | "from_f64" | "from_f32")
            {
                let (arg, ty) = (&c.args[0], &func.path.segments[0].ident);
                let call: Expr = syn::parse_quote_spanned!(c.span()=> ::diff::__private::num_cast::<#ty, _>(#arg));
                return self.lower_expr(&call);
            }
        }
        // `Some(x)`: the variant has no derivative of its own; `some(x)` has.
        if func.qself.is_none() && is_some_variant(&func.path) && c.args.len() == 1 {
            let arg = &c.args[0];
            let call: Expr = syn::parse_quote_spanned!(c.span()=> ::diff::__private::some(#arg));
            return self.lower_expr(&call);
        }
        if let Some(e) = mem_swap_or_replace(c, func) {
            return self.lower_expr(&e);
        }
        // A function of the crate returning an integer, a `bool` or a `String`: primal
        // code (unless it updates a `&mut` argument, whose derivative it may carry).
        if let Some(id) = func.path.segments.last().map(|s| &s.ident) {
            let updates = c
                .args
                .iter()
                .any(|a| matches!(a, Expr::Reference(r) if r.mutability.is_some()));
            if func.qself.is_none()
                && !updates
                && self.lookup(&id.to_string()).is_none()
                && crate::source::returns_no_derivative(id.span(), &id.to_string())
            {
                return Ok(self.opaque_inactive(&Expr::Call(c.clone()), true));
            }
        }
        if let Some(id) = func.path.get_ident() {
            if self.lookup(&id.to_string()).is_some() {
                // Calling a closure bound in the body: inline its body.
                if let Some(closure) = self.local_closure(&id.to_string()) {
                    if let Some(v) = self.inline_closure_call(c, &closure)? {
                        return Ok(v);
                    }
                }
                return Ok(self.opaque(&Expr::Call(c.clone())));
            }
        }
        let underived = func
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "no_derivative")
            && c.args.len() == 1;
        // Inside `no_derivative(..)` an operator on a struct is the operator itself.
        self.underived += usize::from(underived);
        // (A free function's parameters are read from its source; `Type::f(..)` may
        // pass a receiver, and is left as it is.)
        let name = func.path.get_ident().map(|id| (id, false));
        let lowered = self.lower_args(name, c.args.iter());
        self.underived -= usize::from(underived);
        let (args, muts) = lowered?;
        let segs = &func.path.segments;
        let last = segs.last().expect("a path has a segment");
        if underived {
            return Ok(self.emit(Inst::NoDerivative(args[0]), c.span(), None));
        }
        let type_prefix = func.qself.is_none()
            && segs.len() >= 2
            && self.is_scalar_type_name(&segs[segs.len() - 2].ident.to_string())
            && !args.is_empty()
            && !is_constructor(&last.ident.to_string());
        // `T::zero()` / `T::one()` of a scalar: num-traits', named fully (a companion's `T`
        // is also a `VectorSpace`, whose `zero` would make the call ambiguous).
        let prefix_is_scalar = func.qself.is_none()
            && segs.len() == 2
            && self.is_scalar_type_name(&segs[0].ident.to_string());
        if prefix_is_scalar && args.is_empty() && (last.ident == "zero" || last.ident == "one") {
            let ty = &segs[0].ident;
            let (tr, m) = if last.ident == "zero" {
                (quote::quote!(Zero), quote::quote!(zero))
            } else {
                (quote::quote!(One), quote::quote!(one))
            };
            let tokens = quote::quote!(<#ty as ::diff::__private::num_traits::#tr>::#m());
            return Ok(self.emit(Inst::Const(tokens), c.span(), None));
        }
        let mut args = args;
        if type_prefix {
            // `f64::powi(10.0, e)` is `10.0f64.powi(e)`: a literal receiver keeps the
            // type the path gives it (another trait's `powi` may be in scope).
            let ty = segs[segs.len() - 2].ident.to_string();
            if let Some(typed) = self.literal_typed(args[0], &ty) {
                args[0] = self.emit(Inst::Const(typed), c.span(), None);
            }
        }
        let callee = if type_prefix {
            let turbofish = match &last.arguments {
                syn::PathArguments::AngleBracketed(a) => Some(a.clone()),
                _ => None,
            };
            Callee::Method {
                method: last.ident.clone(),
                turbofish,
                of_trait: false,
                user: false,
            }
        } else {
            Callee::Path(func.clone())
        };
        Ok(self.emit_call(callee, args, muts, c.span()))
    }

    /// The float literal `v` is, without a suffix, suffixed with the float type `ty`
    /// (`10.0` as `10.0f64`).
    fn literal_typed(&self, v: Value, ty: &str) -> Option<proc_macro2::TokenStream> {
        if ty != "f64" && ty != "f32" {
            return None;
        }
        let Some(Inst::Const(t)) = self.func.def_inst(v) else {
            return None;
        };
        let lit = syn::parse2::<syn::LitFloat>(t.clone()).ok()?;
        lit.suffix().is_empty().then(|| {
            syn::LitFloat::new(&format!("{}{ty}", lit.base10_digits()), lit.span())
                .into_token_stream()
        })
    }

    /// Lowers call arguments. A `&mut` borrow of a place of the body (`&mut x`, `&mut t.0`,
    /// `&mut w[i]`, `&mut *p`), or a `&mut` parameter passed on (`g(p)`), passes the
    /// place's current value and is recorded as mutated, unless the crate's source shows
    /// that the `callee`'s parameter there is a shared reference (`&T`: Rust reborrows
    /// the `&mut` parameter as shared).
    fn lower_args<'e>(
        &mut self,
        callee: Option<(&syn::Ident, bool)>,
        args: impl ExactSizeIterator<Item = &'e Expr>,
    ) -> syn::Result<LoweredArgs> {
        let mut vs = Vec::new();
        let mut muts = Vec::new();
        let count = args.len();
        let read_only = |i: usize| {
            callee.is_some_and(|(f, method)| {
                crate::source::takes_shared_ref(f.span(), &f.to_string(), method, count, i)
            })
        };
        for (i, a) in args.enumerate() {
            // `y.as_mut_slice()`, `&mut *y`: a borrow of `y`.
            let viewed = viewed_place(a).map(|p| -> Expr { syn::parse_quote!(&mut #p) });
            let a = viewed.as_ref().unwrap_or(a);
            let borrowed = match a {
                // `&mut y` passed where `&T` is taken: `&y`.
                Expr::Reference(r) if r.mutability.is_some() && read_only(i) => {
                    let inner = &r.expr;
                    let shared: Expr = syn::parse_quote_spanned!(a.span()=> &#inner);
                    vs.push(self.lower_expr(&shared)?);
                    continue;
                }
                // `&mut *y` of a local `y` (`*y` no place of its own): a borrow of `y`.
                Expr::Reference(r) if r.mutability.is_some() => match self.lower_place(&r.expr)? {
                    None => match peel(&r.expr) {
                        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                            self.lower_place(&u.expr)?
                        }
                        _ => None,
                    },
                    place => place,
                },
                Expr::Path(p)
                    if p.path
                        .get_ident()
                        .is_some_and(|id| self.pointee(&id.to_string()).is_some()) =>
                {
                    if read_only(i) {
                        let shared: Expr = syn::parse_quote_spanned!(a.span()=> &*#a);
                        vs.push(self.lower_expr(&shared)?);
                        continue;
                    }
                    self.lower_place(a)?
                }
                _ => None,
            };
            match borrowed {
                Some(place) => {
                    vs.push(self.read_place(&place));
                    muts.push((i, place));
                }
                None => vs.push(self.lower_expr(a)?),
            }
        }
        Ok((vs, muts))
    }

    /// A call statement; with mutated locals, they are rebound to the call's results.
    fn emit_call(
        &mut self,
        callee: Callee,
        args: Vec<Value>,
        muts: Vec<(usize, Place)>,
        span: proc_macro2::Span,
    ) -> Value {
        if muts.is_empty() {
            return self.emit(Inst::Call(callee, args), span, None);
        }
        let result = self.func.new_value(None, span);
        let mut results = vec![result];
        for (_, place) in &muts {
            results.push(self.func.new_value(Some(place.display_name()), span));
        }
        let positions = muts.iter().map(|(i, _)| *i).collect();
        self.push(crate::ir::Stmt {
            results: results.clone(),
            inst: Inst::CallMut(callee, args, positions),
            span,
        });
        // Written back in argument order: two borrows of parts of one variable
        // (`swap(&mut t.0, &mut t.1)`) update exactly those parts.
        for ((_, place), v) in muts.iter().zip(&results[1..]) {
            self.write_place(place, *v);
        }
        result
    }

    /// `x.m(..);` as a statement, on a place of the body (`x`, `s.state`, `w[i]`, a
    /// `&mut` parameter): its value is discarded, so the call is made for its effect,
    /// which may be a `&mut self` update of the place — lowered as a call mutating it. (A
    /// `&self` method with a derivative then fails to compile, rather than an update
    /// going unseen.)
    pub(crate) fn lower_method_call_stmt(&mut self, m: &syn::ExprMethodCall) -> syn::Result<()> {
        // `y.as_mut_slice().reverse()`, `(&mut y[..]).fill(x)`: the method of the place
        // itself (`y.reverse()`, `y[..].fill(x)`).
        if let Some(place) = viewed_place(&m.receiver) {
            let mut direct = m.clone();
            *direct.receiver = place;
            return self.lower_method_call_stmt(&direct);
        }
        // `v.extend(chain)`: a loop pushing the items.
        if m.method == "extend" && m.args.len() == 1 {
            if let Some(chain) = self.chain(&m.args[0]) {
                return self.lower_expr(&chain.extend_into(&m.receiver)).map(|_| ());
            }
        }
        // (`retain` through a `&mut` parameter is left to its rule.)
        let local = |e: &Expr| {
            matches!(peel(e), Expr::Path(p)
                if p.path.get_ident().is_some_and(|i| !self.is_ref_param(&i.to_string())))
        };
        if let Some(e) = sorted(m).or_else(|| retained(m).filter(|_| local(&m.receiver))) {
            return self.lower_expr(&e).map(|_| ());
        }
        if let Some(e) = sub_slice_update(m) {
            return self.lower_expr(&e).map(|_| ());
        }
        self.lower_updating_call(m).map(|_| ())
    }

    /// `x.m(..)` as a call that may update its receiver, when that is a place of the body
    /// that can be updated (not through a shared reference); an ordinary call otherwise.
    fn lower_updating_call(&mut self, m: &syn::ExprMethodCall) -> syn::Result<Value> {
        let inactive = crate::ir::is_inactive_method(&m.method, m.args.len());
        let place = if inactive {
            None
        } else {
            self.lower_place(&m.receiver)?
        };
        // A shared reference cannot be updated through.
        let Some(place) = place.filter(|p| p.root != "self" && !self.is_ref_param(&p.root)) else {
            return self.lower_method_call(m);
        };
        let recv = self.read_place(&place);
        let (rest, muts) = self.lower_args(Some((&m.method, true)), m.args.iter())?;
        let mut args = vec![recv];
        args.extend(rest);
        let mut muts: Vec<(usize, Place)> = muts.into_iter().map(|(i, p)| (i + 1, p)).collect();
        muts.insert(0, (0, place));
        // (A receiver updated in place is differentiated.)
        let callee = Callee::Method {
            method: m.method.clone(),
            turbofish: m.turbofish.clone(),
            of_trait: false,
            user: false,
        };
        let v = self.emit_call(callee, args, muts, m.span());
        self.note_receiver(m, v);
        Ok(v)
    }

    /// Notes that the body holds a value of the struct `ty` (`Function::operator_structs`),
    /// when it has operators of its own.
    pub(super) fn note_operator_struct(&mut self, ty: &str) {
        if self.has_operators(ty) && !self.func.operator_structs.iter().any(|t| t == ty) {
            self.func.operator_structs.push(ty.to_string());
        }
    }

    /// Records the struct a method call's receiver is known to be (`method_receivers`).
    fn note_receiver(&mut self, m: &syn::ExprMethodCall, v: Value) {
        if let Some(ty) = self.struct_type_of(&m.receiver) {
            self.note_operator_struct(&ty);
            self.func.method_receivers.push((v, ty));
        }
    }

    /// `gradient!(at: x, of: f)` / `first_derivative!(at: x, of: f)` in the body.
    fn lower_nested(&mut self, m: &syn::ExprMacro) -> syn::Result<Value> {
        let Some(parsed) = crate::operators::parse_nested(&m.mac) else {
            return Ok(self.opaque(&Expr::Macro(m.clone())));
        };
        let (op, at, of) = parsed?;
        let at = crate::operators::typed_point(&at, &of);
        let (of, captures) = self.nested_captures(&op, of, m.span())?;
        // Several inputs, by value: the point is their tuple.
        let inputs = Some(crate::operators::inputs(&at, &of).len()).filter(|n| *n >= 2);
        let borrowed = |e: &Expr| match e {
            Expr::Reference(_) => true,
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.is_ref_param(&i.to_string())),
            _ => false,
        };
        if let (Some(_), Expr::Tuple(t)) = (inputs, &at) {
            if let Some(e) = t.elems.iter().find(|e| borrowed(e)) {
                return Err(syn::Error::new_spanned(
                    e,
                    format!("{op}! inside a differentiable body takes several inputs by value only; give this one as an owned value (`v.to_vec()`), or pack the inputs into one Vec"),
                ));
            }
        }
        // A point given by reference is copied (`to_owned`), for the derivative to read.
        let by_ref = borrowed(&at);
        let at = if by_ref {
            let owned: Expr =
                syn::parse_quote_spanned!(at.span()=> ::diff::__private::to_owned_point(#at));
            self.lower_expr(&owned)?
        } else {
            self.lower_expr(&at)?
        };
        let nested = crate::ir::Nested {
            op,
            of,
            at,
            by_ref,
            inputs,
            captures,
        };
        Ok(self.emit(Inst::Nested(nested), m.span(), None))
    }

    /// The function of a nested operator, with the body's variables a closure reads
    /// (not the names it binds itself) replaced by placeholders, and those captures: the
    /// derivatives differentiate the closure in them too. A reference is copied for the
    /// derivatives to keep. A closure changing a variable of the body is refused, as is a
    /// variable holding a function.
    fn nested_captures(
        &mut self,
        op: &syn::Ident,
        of: Expr,
        span: proc_macro2::Span,
    ) -> syn::Result<(Expr, Vec<crate::ir::Capture>)> {
        self.refuse_changes_inside(&of, &format!("function given to {op}!"));
        // An inner closure's parameter named like a variable of the body (`.map(|x| ..)`
        // beside a variable `x`) is renamed in that closure, its whole scope.
        let mut of = of;
        if let Expr::Closure(c) = &mut of {
            let mut inner = InnerClosures {
                outer: &|name: &str| self.lookup(name).is_some(),
                renamed: 0,
            };
            syn::visit_mut::VisitMut::visit_expr_mut(&mut inner, &mut c.body);
        }
        let of = of;
        let mut own = super::opaque::Changes::default();
        syn::visit::Visit::visit_expr(&mut own, &of);
        // The closure's parameters hide the body's variables of their names everywhere
        // in it; a name bound further in (a `let`, a pattern) hides one only in its
        // scope, which reading the closure's tokens cannot tell: refused where it is a
        // variable of the body.
        let parameters: Vec<String> = match &of {
            Expr::Closure(c) => {
                let mut bound = super::opaque::Changes::default();
                for p in &c.inputs {
                    syn::visit::Visit::visit_pat(&mut bound, p);
                }
                bound.own
            }
            _ => Vec::new(),
        };
        if let Some(name) = own
            .own
            .iter()
            .find(|n| !parameters.contains(n) && self.lookup(n).is_some())
        {
            return Err(syn::Error::new_spanned(
                &of,
                format!("this function given to {op}! binds `{name}` inside, a name of the body's variables: give it another name"),
            ));
        }
        // Fields read (`m.w`, `p.0.x`) are captured rather than their struct, whose
        // scalars the derivatives could not lift.
        let mut fields = FieldPlaces {
            outer: &|name: &str| !own.own.iter().any(|o| o == name) && self.lookup(name).is_some(),
            found: Vec::new(),
        };
        let mut read = of.clone();
        syn::visit_mut::VisitMut::visit_expr_mut(&mut fields, &mut read);
        let found = fields.found;
        let mut places = Vec::new();
        for place in &found {
            places.push(self.lower_expr(place)?);
        }
        self.push_scope();
        for (k, v) in places.into_iter().enumerate() {
            self.bind(format!("__diff_place_{k}"), v);
        }
        for name in &own.own {
            self.hide(name);
        }
        let mut uses = Vec::new();
        let tokens = self.substitute_expr(&read, &mut uses);
        self.pop_scope();
        if uses.is_empty() {
            return Ok((of, Vec::new()));
        }
        if !matches!(of, Expr::Closure(_)) {
            return Err(syn::Error::new_spanned(
                &of,
                format!("the function given to {op}! inside a differentiable body is a variable; write the closure here, or call a function"),
            ));
        }
        let of: Expr = syn::parse2(tokens)?;
        let copy: syn::ExprPath = syn::parse_quote!(::diff::__private::to_owned_point);
        let captures = uses
            .into_iter()
            .map(|read| {
                let by_ref = self.is_reference(read);
                let kept = if by_ref {
                    self.emit_call(Callee::Path(copy.clone()), vec![read], Vec::new(), span)
                } else {
                    read
                };
                crate::ir::Capture { read, kept, by_ref }
            })
            .collect();
        Ok((of, captures))
    }

    fn lower_method_call(&mut self, m: &syn::ExprMethodCall) -> syn::Result<Value> {
        if VIEW_METHODS.iter().any(|v| m.method == v) {
            return Err(syn::Error::new_spanned(
                &m.method,
                format!(
                    "a `&mut` view (`.{}(..)`) kept or written through is not supported in a #[differentiable] body: the derivatives follow writes made through the variable itself; write the element by index (`v[i] = ..`, `v[v.len() - 1] = ..`), or give `&mut v` to the function",
                    m.method
                ),
            ));
        }
        // An unmarked method of a struct of the crate returning an index or a `bool`
        // (`self.interval(t)`), and taking no `&mut` parameter: primal code, whatever its
        // arguments.
        if let Some(ty) = self.struct_type_of(&m.receiver) {
            let method = m.method.to_string();
            if crate::source::method_returns_no_derivative(m.method.span(), &ty, &method) {
                return Ok(self.opaque_inactive(&Expr::MethodCall(m.clone()), true));
            }
        }
        // `rows.iter().flatten()..`: the rows concatenated first (`concat`), then iterated.
        if let Some(e) = super::iterators::flattened(m) {
            return self.lower_expr(&e);
        }
        // `x.to_f64()` / `x.to_f32()` (`num_traits::ToPrimitive`): the conversion
        // `num_cast`, whose derivative converts the tangent.
        if m.args.is_empty() && (m.method == "to_f64" || m.method == "to_f32") {
            let (x, to) = (
                &m.receiver,
                syn::Ident::new(&m.method.to_string()[3..], m.method.span()),
            );
            let call: Expr =
                syn::parse_quote_spanned!(m.span()=> ::diff::__private::num_cast::<#to, _>(#x));
            return self.lower_expr(&call);
        }
        if let Some(e) = super::iterators::fold_by_loop(m, |name| self.is_iterable(name)) {
            return self.lower_expr(&e);
        }
        if matches!(
            m.method.to_string().as_str(),
            "sum" | "product" | "fold" | "collect"
        ) {
            if let Some(chain) = self.chain(&m.receiver) {
                if let Some(e) = chain.reduce(m) {
                    return self.lower_expr(&e);
                }
            }
        }
        // `v.as_slice()`: the whole sub-slice `&v[..]`.
        if m.method == "as_slice" && m.args.is_empty() {
            let recv = &m.receiver;
            let whole: Expr = syn::parse_quote_spanned!(m.span()=> &(#recv)[..]);
            return self.lower_expr(&whole);
        }
        // `[a, &b[..k], v.as_slice()].concat()` of pieces that are not all `Vec`s by value:
        // each piece owned (`to_vec`), as an array of `Vec`s concatenates.
        if let Some(e) = concat_of_slices(m) {
            return self.lower_expr(&e);
        }
        // `xs.map(f)` on an array: a loop writing the elements.
        if let Some(e) = super::iterators::array_map(m) {
            return self.lower_expr(&e);
        }
        if let Some(e) = rem_euclid(m) {
            return self.lower_expr(&e);
        }
        if let Some(e) = bool_then(m) {
            return self.lower_expr(&e);
        }
        // `xs.iter().find(p).unwrap()` (also `last`, `nth`, `next`, or `expect`) of a chain
        // of references: a reference to a copy of the item, as an `Option` of a reference
        // carries no derivative.
        if (m.method == "unwrap" && m.args.is_empty())
            || (m.method == "expect" && m.args.len() == 1)
        {
            let searched = matches!(peel(&m.receiver), Expr::MethodCall(s)
                if !SELECTIONS.contains(&s.method.to_string().as_str()));
            if let Some(item) = self.option_of_reference(&m.receiver).filter(|_| searched) {
                let (o, check, args) = (&m.receiver, &m.method, &m.args);
                let given =
                    super::iterators::referenced_like(&item, syn::parse_quote!(__diff_item));
                let e: Expr = syn::parse_quote_spanned!(m.span()=> {
                    let __diff_item = (#o).copied().#check(#args);
                    #given
                });
                return self.lower_expr(&e);
            }
        }
        // `chain.find(p)` (or `chain.find(p).copied()`): a loop stopping at the item found.
        if m.method == "find" {
            if let Some(e) = self
                .chain(&m.receiver)
                .and_then(|chain| chain.find(m, false))
            {
                return self.lower_expr(&e);
            }
        }
        if let Some(find) = copy_of(m).filter(|f| f.method == "find") {
            if let Some(e) = self.chain(&find.receiver).and_then(|c| c.find(find, true)) {
                return self.lower_expr(&e);
            }
        }
        // `chain.last()`, `chain.nth(k)`, `chain.next()` (or with `.copied()`): a loop
        // keeping that item. (`next` of a chain written in place only: of an iterator held
        // in a variable, it takes the item out of it.)
        let (at, copied) = copy_of(m).map_or((m, false), |inner| (inner, true));
        let written_here = at.method != "next" || matches!(&*at.receiver, Expr::MethodCall(_));
        if ["last", "nth", "next"].iter().any(|n| at.method == n) && written_here {
            if let Some(chain) = self.chain(&at.receiver) {
                match chain.at(at, copied) {
                    Some(e) => return self.lower_expr(&e),
                    // Of references: refused as a whole, saying so (an `Option` of a
                    // reference from `nth` or `next` may still be mapped where it is
                    // made, below).
                    None if at.method == "last" => {
                        return Ok(self.opaque(&Expr::MethodCall(m.clone())))
                    }
                    None => {}
                }
            }
        }
        // `chain.min_by(cmp).unwrap()` and its relatives (also with `.copied()` or
        // `.cloned()` before the unwrap): a loop selecting an index.
        if m.method == "unwrap" || m.method == "expect" {
            if let Expr::MethodCall(c) = &*m.receiver {
                let (select, copied) = copy_of(c).map_or((c, false), |inner| (inner, true));
                if let Some(e) = self
                    .chain(&select.receiver)
                    .and_then(|chain| chain.select(select, Some(m), copied))
                {
                    return self.lower_expr(&e);
                }
            }
        }
        // `chain.max_by(cmp)` (and its relatives, or copied), not unwrapped where it is
        // made: an `Option` of the selected item.
        let (select, copied) = copy_of(m).map_or((m, false), |inner| (inner, true));
        if SELECTIONS.iter().any(|s| select.method == s) {
            if let Some(e) = self
                .chain(&select.receiver)
                .and_then(|chain| chain.select(select, None, copied))
            {
                return self.lower_expr(&e);
            }
        }
        // `chain.reduce(f)`, not unwrapped where it is made: an `Option` of the fold.
        if m.method == "reduce" {
            if let Some(e) = self
                .chain(&m.receiver)
                .and_then(|chain| chain.reduce_option(m))
            {
                return self.lower_expr(&e);
            }
        }
        // `xs.first().unwrap()` / `xs.get(i).copied().unwrap_or(0.0)` (also `last`,
        // through `.cloned()`, or `expect`, `unwrap_or_default`): the element, by index.
        if let Some(e) = end_element(m) {
            return self.lower_expr(&e);
        }
        // `xs.iter().position(p).map(|i| xs[i]).unwrap_or(0.0)`, `opt.map_or(d, f)`: a
        // `match` on the `Option`, the closure's body in its `Some` arm.
        let references = |selection: &syn::ExprMethodCall| {
            self.chain(&selection.receiver)
                .is_some_and(|c| c.yields_references())
        };
        if let Some(e) = option_mapped(m, references) {
            return self.lower_expr(&e);
        }
        // `v.sort_by(cmp)` (or `sort_unstable_by`) of a local: the order the comparison
        // puts the elements in, which carries no derivative, then the elements moved
        // there (`permuted`, whose derivative moves the adjoints back).
        if let Some(e) = sorted(m) {
            return self.lower_expr(&e);
        }
        // `xs.split_at(k)`: the pair of sub-slices.
        if m.method == "split_at" && m.args.len() == 1 {
            let (xs, k) = (&m.receiver, &m.args[0]);
            let pair: Expr = syn::parse_quote_spanned!(m.method.span()=> {
                let __diff_k = #k;
                (
                    ::diff::__private::sub_slice(&#xs, ..__diff_k),
                    ::diff::__private::sub_slice(&#xs, __diff_k..),
                )
            });
            return self.lower_expr(&pair);
        }
        // `x.sin_cos()`: the pair of the two rules.
        if m.method == "sin_cos" && m.args.is_empty() {
            let x = &m.receiver;
            let pair: Expr = syn::parse_quote_spanned!(m.method.span()=> {
                let __diff_angle = #x;
                (__diff_angle.sin(), __diff_angle.cos())
            });
            return self.lower_expr(&pair);
        }
        // A closure argument stays written in the call (`xs.iter().any(|v| v.is_nan())`):
        // rustc infers its parameter's type there only. Such a call is kept as written
        // (refused if a derivative would flow through it).
        if m.args.iter().any(|a| matches!(peel(a), Expr::Closure(_))) {
            return Ok(self.opaque(&Expr::MethodCall(m.clone())));
        }
        // So does a call whose result carries no derivative consuming an iterator chain
        // (`[a, b].iter().filter(..).count()`), which may borrow a temporary of the chain.
        if crate::ir::is_inactive_method(&m.method, m.args.len())
            && matches!(&*m.receiver, Expr::MethodCall(r) if super::iterators::is_chain_method(&r.method))
        {
            return Ok(self.opaque(&Expr::MethodCall(m.clone())));
        }
        // `xs[a..].iter()`: the receiver is the sub-slice.
        let recv = match sub_slice(&m.receiver) {
            Some(call) => self.lower_expr(&call)?,
            None => self.lower_expr(&m.receiver)?,
        };
        let (rest, muts) = self.lower_args(Some((&m.method, true)), m.args.iter())?;
        let mut args = vec![recv];
        args.extend(rest);
        let muts = muts.into_iter().map(|(i, n)| (i + 1, n)).collect();
        let receiver_struct = self.struct_type_of(&m.receiver).is_some();
        let callee = self.method_callee(
            m.method.clone(),
            m.turbofish.clone(),
            receiver_struct,
            m.args.len(),
        );
        let v = self.emit_call(callee, args, muts, m.span());
        self.note_receiver(m, v);
        Ok(v)
    }
}

/// `v.sort_by(cmp)` / `v.sort_unstable_by(cmp)` of a local `v` as
/// `{ let order = no_derivative(v.__diff_sort_order(cmp)); v = permuted(v, &order); }`
/// (stable either way, which an unstable sort may also be). A comparator named by path
/// (`f64::total_cmp`) is called as a method, which dual numbers have too.
fn sorted(m: &syn::ExprMethodCall) -> Option<Expr> {
    if !(m.method == "sort_by" || m.method == "sort_unstable_by") || m.args.len() != 1 {
        return None;
    }
    let Expr::Path(v) = peel(&m.receiver) else {
        return None;
    };
    let v = v.path.get_ident()?;
    let cmp: Expr = match peel(&m.args[0]) {
        Expr::Path(p) if p.path.segments.len() == 2 => {
            let method = &p.path.segments[1].ident;
            syn::parse_quote!(|__diff_a, __diff_b| __diff_a.#method(__diff_b))
        }
        c => c.clone(),
    };
    Some(syn::parse_quote_spanned!(m.span()=> {
        let __diff_order = ::diff::no_derivative(#v.__diff_sort_order(#cmp));
        #v = ::diff::__private::permuted(#v, &__diff_order);
    }))
}

/// `v.retain(p)` of a local `Vec` as a loop pushing the elements `p` keeps into a new
/// `Vec`, which becomes `v`: each kept element's derivative moves with it.
fn retained(m: &syn::ExprMethodCall) -> Option<Expr> {
    if m.method != "retain" || m.args.len() != 1 {
        return None;
    }
    let Expr::Path(v) = peel(&m.receiver) else {
        return None;
    };
    let v = v.path.get_ident()?;
    let Expr::Closure(c) = peel(&m.args[0]) else {
        return None;
    };
    if c.inputs.len() != 1 {
        return None;
    }
    let (pat, body) = (&c.inputs[0], &c.body);
    Some(syn::parse_quote_spanned!(m.span()=> {
        let mut __diff_kept = ::std::vec::Vec::with_capacity(#v.len());
        for __diff_i in 0..#v.len() {
            let __diff_x = #v[__diff_i].clone();
            let __diff_keep = {
                let #pat = &__diff_x;
                #body
            };
            if __diff_keep {
                __diff_kept.push(__diff_x);
            }
        }
        #v = __diff_kept;
    }))
}

/// `let (p0, p1, ..) = (e0, e1, ..);` as `let p0 = e0; let p1 = e1; ..`, or, where an
/// element names what the pattern binds (`let (a, b) = (b, a)`), through temporaries
/// holding every element first. `None` for other `let`s (a pattern with a type or `..`).
fn elementwise(pat: &syn::Pat, init: &Expr) -> Option<Vec<Stmt>> {
    let (syn::Pat::Tuple(p), Expr::Tuple(e)) = (pat, peel(init)) else {
        return None;
    };
    if p.elems.len() != e.elems.len() || p.elems.iter().any(|q| matches!(q, syn::Pat::Rest(_))) {
        return None;
    }
    let bound: Vec<String> = super::matching::bindings(pat)
        .iter()
        .map(|i| i.to_string())
        .collect();
    let crossed = e
        .elems
        .iter()
        .any(|x| names_any(x.to_token_stream(), &bound));
    let mut stmts: Vec<Stmt> = Vec::new();
    if crossed {
        let temps: Vec<syn::Ident> = (0..e.elems.len())
            .map(|k| quote::format_ident!("__diff_element_{}", k))
            .collect();
        for (t, x) in temps.iter().zip(&e.elems) {
            stmts.push(syn::parse_quote_spanned!(x.span()=> let #t = #x;));
        }
        for (q, t) in p.elems.iter().zip(&temps) {
            stmts.push(let_stmt(q, syn::parse_quote!(#t)));
        }
    } else {
        for (q, x) in p.elems.iter().zip(&e.elems) {
            stmts.push(let_stmt(q, x.clone()));
        }
    }
    Some(stmts)
}

/// `let pat = e;`, built rather than parsed (a pattern that is not one a `let` takes,
/// `|p`, is then refused where it is lowered, not a panic here).
fn let_stmt(pat: &syn::Pat, e: Expr) -> Stmt {
    let span = e.span();
    Stmt::Local(syn::Local {
        attrs: Vec::new(),
        let_token: syn::Token![let](span),
        pat: pat.clone(),
        init: Some(syn::LocalInit {
            eq_token: syn::Token![=](span),
            expr: Box::new(e),
            diverge: None,
        }),
        semi_token: syn::Token![;](span),
    })
}

/// Methods of a slice that update its elements in place, without changing its length.
const SLICE_UPDATES: &[&str] = &[
    "fill",
    "reverse",
    "swap",
    "rotate_left",
    "rotate_right",
    "copy_from_slice",
    "clone_from_slice",
    "sort_by",
    "sort_unstable_by",
    "sort_by_key",
    "sort_unstable_by_key",
];

/// `xs[lo..hi].m(args);` for a method updating a slice in place (`fill`, `reverse`,
/// `copy_from_slice`, ..) of a sub-slice of a variable or a field: the method updates a
/// copy of the sub-slice (the collection's rules) ([`through_copy`]). `None` for other
/// calls.
fn sub_slice_update(m: &syn::ExprMethodCall) -> Option<Expr> {
    if !SLICE_UPDATES.iter().any(|u| m.method == u) {
        return None;
    }
    let (method, turbofish, args) = (&m.method, &m.turbofish, &m.args);
    // (A statement: `x.m(..);` is lowered as updating `x`.)
    through_copy(&m.receiver, quote::quote!(), m.span(), |part| {
        (
            quote::quote!(#part.#method #turbofish(#args);),
            quote::quote!(()),
        )
    })
}

/// `f(.., &mut xs[lo..hi], ..)`, a sub-slice of a variable or a field lent to a
/// function (also a chunk of a `chunks_mut` loop, which is one): the function updates a
/// copy of the sub-slice ([`through_copy`]). The arguments before it are evaluated first,
/// in order, as the call would. `None` for other calls, and where an argument before it
/// lends something too.
fn sub_slice_argument(c: &syn::ExprCall) -> Option<Expr> {
    let lends = |a: &Expr| matches!(peel(a), Expr::Reference(r) if r.mutability.is_some());
    let (at, sub_slice) = c.args.iter().enumerate().find_map(|(k, a)| match peel(a) {
        Expr::Reference(r)
            if lends(a) && super::iterators::written_sub_slice(&r.expr).is_some() =>
        {
            Some((k, &*r.expr))
        }
        _ => None,
    })?;
    let before = c.args.iter().take(at);
    if before.clone().any(lends) {
        return None;
    }
    let names: Vec<syn::Ident> = (0..at)
        .map(|k| quote::format_ident!("__diff_arg{}", k))
        .collect();
    let first = quote::quote!(#(let #names = #before;)*);
    through_copy(sub_slice, first, c.span(), |part| {
        let mut call = c.clone();
        for (k, name) in names.iter().enumerate() {
            call.args[k] = syn::parse_quote!(#name);
        }
        call.args[at] = syn::parse_quote!(&mut #part);
        let value = quote::format_ident!("__diff_value");
        (quote::quote!(let #value = #call;), quote::quote!(#value))
    })
}

/// The sub-slice `xs[lo..hi]` of a variable or a field updated by `update` (given the
/// name of a copy of it: statements updating the copy, and the block's value): after
/// `first`, the copy is made, updated, and its elements written back one by one. `None`
/// when `sub_slice` is not such a sub-slice.
fn through_copy(
    sub_slice: &Expr,
    first: proc_macro2::TokenStream,
    span: proc_macro2::Span,
    update: impl FnOnce(&syn::Ident) -> (proc_macro2::TokenStream, proc_macro2::TokenStream),
) -> Option<Expr> {
    let (xs, lo, hi) = super::iterators::written_sub_slice(sub_slice)?;
    let (lets, xs) = super::iterators::frozen_place(&xs, &quote::format_ident!("part"), &[])?;
    let (update, value) = update(&quote::format_ident!("__diff_part"));
    Some(syn::parse_quote_spanned!(span=> {
        #first
        #(#lets)*
        let __diff_lo: usize = #lo;
        let __diff_hi: usize = #hi;
        let mut __diff_part = #xs[__diff_lo..__diff_hi].to_vec();
        #update
        for __diff_k in 0..__diff_part.len() {
            #xs[__diff_lo + __diff_k] = __diff_part[__diff_k].clone();
        }
        #value
    }))
}

/// `xs.first()` / `xs.last()` / `xs.get(i)`, optionally followed by `.copied()` or
/// `.cloned()`, then unwrapped (`m`): `&xs[0]` / `&xs[xs.len() - 1]` / `&xs[i]` (without
/// the `&` when copied), after checking, as `unwrap`/`expect` would, that the element is
/// there; with `unwrap_or(d)` or `unwrap_or_default()`, `d` (or the default) when not.
fn end_element(m: &syn::ExprMethodCall) -> Option<Expr> {
    let unwrap = matches!(m.method.to_string().as_str(), "unwrap" | "expect");
    let fallback: Option<Expr> = match (m.method.to_string().as_str(), m.args.len()) {
        ("unwrap_or", 1) => Some(m.args[0].clone()),
        ("unwrap_or_default", 0) => Some(syn::parse_quote!(::core::default::Default::default())),
        _ => None,
    };
    if !unwrap && fallback.is_none() {
        return None;
    }
    let Lookup {
        prelude,
        present,
        element,
    } = Lookup::of(&m.receiver)?;
    if let Some(d) = fallback {
        return Some(syn::parse_quote_spanned!(m.span()=> {
            #(#prelude)*
            if #present { #element } else { #d }
        }));
    }
    let (check, args) = (&m.method, &m.args);
    Some(syn::parse_quote_spanned!(m.span()=> {
        #(#prelude)*
        let __diff_end = if !(#present) {
            ::core::option::Option::None
        } else {
            ::core::option::Option::Some(())
        };
        __diff_end.#check(#args);
        #element
    }))
}

/// Methods of `Vec` that update it and return a value (what they took out), with their
/// number of arguments: as an expression, they are calls updating the receiver
/// (`diff-core`'s `VecRules`).
const UPDATING_WITH_RESULT: &[(&str, usize)] = &[
    ("pop", 0),
    ("remove", 1),
    ("swap_remove", 1),
    ("split_off", 1),
    ("drain_to_vec", 1),
];

/// Methods whose result is an `Option` ([`option_mapped`]), besides the selections
/// (`iterators::SELECTIONS`).
const OPTION_RESULTS: &[&str] = &[
    "position",
    "rposition",
    "find",
    "get",
    "first",
    "last",
    "pop",
    "reduce",
    "checked_div",
    "checked_sub",
    "checked_add",
    "checked_mul",
];

/// `opt.map(|p| body).unwrap_or(d)` (or `unwrap_or_else(|| d)`, `unwrap_or_default()`),
/// `opt.map_or(d, |p| body)` and `opt.map_or_else(|| d, |p| body)`, for an `opt` from a
/// method giving an `Option` ([`OPTION_RESULTS`]), as `match opt { Some(p) => body, None
/// => d }`, and `opt.map(|p| body).unwrap()` (or `expect(msg)`) of any `opt` as `{ let p =
/// opt.unwrap(); body }`: the body's derivative is visible there. `None` for other
/// expressions, and for a closure whose body returns or uses `?` (which would leave the
/// function, not the closure).
///
/// A selection over references mapped (`xs.iter().max_by(cmp).map(|m| m * 2.0)`, where
/// `references` tells) selects a copy and gives the closure a reference to it.
fn option_mapped(
    m: &syn::ExprMethodCall,
    references: impl Fn(&syn::ExprMethodCall) -> bool,
) -> Option<Expr> {
    // A closure, or a function's path taken as one (`f64::exp` as `|p| f64::exp(p)`).
    let closure = |e: &Expr, inputs: usize| match peel(e) {
        Expr::Closure(c) if c.inputs.len() == inputs && !exits(&c.body.to_token_stream()) => {
            Some(c.clone())
        }
        Expr::Path(f) if inputs == 1 => Some(syn::parse_quote!(|__diff_p| #f(__diff_p))),
        Expr::Path(f) if inputs == 0 => Some(syn::parse_quote!(|| #f())),
        _ => None,
    };
    let (opt, f, none): (&Expr, syn::ExprClosure, Expr) =
        match (m.method.to_string().as_str(), m.args.len()) {
            ("map_or", 2) => (&m.receiver, closure(&m.args[1], 1)?, m.args[0].clone()),
            ("map_or_else", 2) => {
                let d = closure(&m.args[0], 0)?;
                (&m.receiver, closure(&m.args[1], 1)?, (*d.body).clone())
            }
            (method, n) => {
                let Expr::MethodCall(map) = &*m.receiver else {
                    return None;
                };
                if map.method != "map" || map.args.len() != 1 {
                    return None;
                }
                if matches!((method, n), ("unwrap", 0) | ("expect", 1)) {
                    // `{ let p = opt.unwrap(); body }`, where `opt.unwrap()` may have a
                    // rewrite of its own (`xs.iter().copied().max_by(cmp).unwrap()`).
                    let f = closure(&map.args[0], 1)?;
                    let pat = closure_pattern(&f);
                    let (opt, check, args, body) = (&map.receiver, &m.method, &m.args, &f.body);
                    return Some(syn::parse_quote_spanned!(m.span()=> {
                        let #pat = #opt.#check(#args);
                        #body
                    }));
                }
                let none: Expr = match (method, n) {
                    ("unwrap_or", 1) => m.args[0].clone(),
                    ("unwrap_or_else", 1) => (*closure(&m.args[0], 0)?.body).clone(),
                    ("unwrap_or_default", 0) => {
                        syn::parse_quote!(::core::default::Default::default())
                    }
                    _ => return None,
                };
                (&map.receiver, closure(&map.args[0], 1)?, none)
            }
        };
    let source = match peel(opt) {
        Expr::MethodCall(outer) => outer,
        // A variable holding the `Option` (`let m = xs.iter().copied().max_by(..);`).
        Expr::Path(p) if p.path.get_ident().is_some() => {
            return Some(matched(m.span(), opt, &f, &none));
        }
        _ => return None,
    };
    // (Through a copy of an `Option` of a reference: `xs.iter().max_by(..).copied()`.)
    if let Some(copied) = copy_of(source) {
        return SELECTIONS
            .iter()
            .chain(OPTION_RESULTS)
            .any(|n| copied.method == n)
            .then(|| matched(m.span(), opt, &f, &none));
    }
    if SELECTIONS.iter().any(|n| source.method == n) && references(source) {
        let (pat, body) = (closure_pattern(&f), &f.body);
        let by_ref: syn::ExprClosure = syn::parse_quote!(|__diff_selected| {
            let #pat = &__diff_selected;
            #body
        });
        let copied: Expr = syn::parse_quote!(#opt.copied());
        return Some(matched(m.span(), &copied, &by_ref, &none));
    }
    if !OPTION_RESULTS
        .iter()
        .chain(SELECTIONS)
        .any(|n| source.method == n)
    {
        return None;
    }
    Some(matched(m.span(), opt, &f, &none))
}

/// The call `o` of a copy of an `Option`, `o.copied()` or `o.cloned()`.
fn copy_of(m: &syn::ExprMethodCall) -> Option<&syn::ExprMethodCall> {
    let copy = m.args.is_empty() && (m.method == "copied" || m.method == "cloned");
    match peel(&m.receiver) {
        Expr::MethodCall(inner) if copy => Some(inner),
        _ => None,
    }
}

/// `match opt { Some(p) => body, None => none }` for the closure `|p| body`.
fn matched(span: proc_macro2::Span, opt: &Expr, f: &syn::ExprClosure, none: &Expr) -> Expr {
    let pat = closure_pattern(f);
    let body = &f.body;
    syn::parse_quote_spanned!(span=>
        match #opt {
            Some(#pat) => #body,
            None => #none,
        }
    )
}

/// The pattern of a closure's one parameter, without its type (`|i: usize|`).
fn closure_pattern(f: &syn::ExprClosure) -> syn::Pat {
    match &f.inputs[0] {
        syn::Pat::Type(t) => (*t.pat).clone(),
        p => p.clone(),
    }
}

/// Whether `ts` holds a `return` or a `?` (an exit of the function it is written in).
fn exits(ts: &proc_macro2::TokenStream) -> bool {
    ts.clone().into_iter().any(|t| match t {
        proc_macro2::TokenTree::Ident(i) => i == "return",
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => exits(&g.stream()),
        proc_macro2::TokenTree::Literal(_) => false,
    })
}

/// An element looked up in a slice, an `Option` of it: `xs.first()`, `xs.last()`,
/// `xs.get(i)`, optionally followed by `.copied()` or `.cloned()`. Unwrapped
/// ([`end_element`]) or matched (`Some(p) => ..`, `lower/matching.rs`), it is the element
/// by index where it is present.
pub(crate) struct Lookup {
    /// `let __diff_xs = &xs;` (and the index `__diff_i`), each evaluated once.
    pub prelude: Vec<syn::Stmt>,
    /// Whether the element is there.
    pub present: Expr,
    /// The element: `&__diff_xs[..]`, or a copy.
    pub element: Expr,
}

impl Lookup {
    pub(crate) fn of(e: &Expr) -> Option<Lookup> {
        let Expr::MethodCall(mut inner) = peel(e).clone() else {
            return None;
        };
        let copy = copy_of(&inner).cloned();
        let copied = copy.is_some();
        if let Some(end) = copy {
            inner = end;
        }
        // `xs.iter().map(f).last()` is an iterator's last item, not a slice's
        // (`Chain::last`).
        if matches!(peel(&inner.receiver), Expr::MethodCall(r)
            if super::iterators::CHAIN_METHODS.iter().any(|c| r.method == c))
        {
            return None;
        }
        // The index, and whether the element is there.
        let (index, present): (Expr, Expr) = match (inner.method.to_string().as_str(), &inner.args)
        {
            ("first", a) if a.is_empty() => (
                syn::parse_quote!(0),
                syn::parse_quote!(!__diff_xs.is_empty()),
            ),
            ("last", a) if a.is_empty() => (
                syn::parse_quote!(__diff_xs.len() - 1),
                syn::parse_quote!(!__diff_xs.is_empty()),
            ),
            // `xs.get(i)` of one element (not of a range: a sub-slice; not a map's
            // `get(&key)` or `get("key")`, which no slice takes).
            ("get", a)
                if a.len() == 1
                    && !matches!(
                        peel(&a[0]),
                        Expr::Range(_)
                            | Expr::Reference(_)
                            | Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(_),
                                ..
                            })
                    ) =>
            {
                (
                    syn::parse_quote!(__diff_i),
                    syn::parse_quote!(__diff_i < __diff_xs.len()),
                )
            }
            _ => return None,
        };
        let xs = &inner.receiver;
        let mut prelude: Vec<syn::Stmt> = vec![syn::parse_quote!(let __diff_xs = &#xs;)];
        if let Some(i) = inner.args.first() {
            prelude.push(syn::parse_quote!(let __diff_i: usize = #i;));
        }
        let element: Expr = if copied {
            syn::parse_quote!(__diff_xs[#index])
        } else {
            syn::parse_quote!(&__diff_xs[#index])
        };
        Some(Lookup {
            prelude,
            present,
            element,
        })
    }
}

pub(crate) fn unsupported(node: &impl ToTokens, what: &str) -> syn::Error {
    syn::Error::new_spanned(node,
        format!("{what} is not supported in a #[differentiable] body; rewrite it with the supported syntax (see the README), or move it into a helper function with a registered derivative (#[derivative(of = ...)])"),
    )
}

/// A name for an expression kind, for error messages.
pub(crate) fn describe(e: &Expr) -> &'static str {
    match e {
        Expr::Async(_) => "`async` block",
        Expr::Await(_) => "`.await`",
        Expr::Break(_) => "`break`",
        Expr::Continue(_) => "`continue`",
        Expr::Loop(_) => "`loop`",
        Expr::While(_) => "`while` loop",
        Expr::Match(_) => "`match`",
        Expr::Let(_) => "`let` in a condition",
        Expr::Try(_) => "the `?` operator",
        Expr::TryBlock(_) => "a `try` block",
        Expr::Unsafe(_) => "an `unsafe` block",
        Expr::Yield(_) => "`yield`",
        Expr::Block(_) => "a labelled block",
        Expr::Const(_) => "a `const` block",
        Expr::Infer(_) => "`_`",
        _ => "this expression",
    }
}

fn is_float_type(t: &syn::Type) -> bool {
    matches!(t, syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"))
}

/// Associated functions of scalar types that take no receiver (`T::from_f64(2.0)`,
/// `T::from(3).unwrap()`, `f64::max_value()`): path calls, not methods of their argument.
fn is_constructor(name: &str) -> bool {
    name.starts_with("from")
        || matches!(
            name,
            "zero"
                | "one"
                | "nan"
                | "infinity"
                | "neg_infinity"
                | "epsilon"
                | "max_value"
                | "min_value"
                | "min_positive_value"
                | "neg_zero"
                | "new"
        )
}

/// `if let P = e { a } else { b }` is `match e { P => { a } _ => { b } }`; a chain of
/// conditions with `let`s among them (`if let Some(v) = o && v > 0.0 { a } else { b }`,
/// edition 2024) is one `match` or `if` per condition, each with the `else`.
pub(crate) fn desugar_if_let(i: &syn::ExprIf) -> Option<Expr> {
    let mut conditions = Vec::new();
    chained(&i.cond, &mut conditions);
    if !conditions.iter().any(|c| matches!(c, Expr::Let(_))) {
        return None;
    }
    let els: Expr = match &i.else_branch {
        Some((_, e)) => (**e).clone(),
        None => syn::parse_quote!({}),
    };
    let then = &i.then_branch;
    let mut out: Expr = syn::parse_quote!(#then);
    for c in conditions.into_iter().rev() {
        out = match c {
            Expr::Let(l) => {
                let (pat, scrutinee) = (&l.pat, &l.expr);
                syn::parse_quote!(match #scrutinee { #pat => #out, _ => #els })
            }
            c => syn::parse_quote!(if #c { #out } else { #els }),
        };
    }
    Some(out)
}

/// Whether the condition `e` is a chain with a `let` in it (`let Some(v) = o && v > 0.0`).
pub(crate) fn has_let_chain(e: &Expr) -> bool {
    let mut conditions = Vec::new();
    chained(e, &mut conditions);
    conditions.len() > 1 && conditions.iter().any(|c| matches!(c, Expr::Let(_)))
}

/// The conditions of `a && b && ..`, in order (a `let` chain's).
fn chained<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    match e {
        Expr::Binary(b) if matches!(b.op, syn::BinOp::And(_)) => {
            chained(&b.left, out);
            chained(&b.right, out);
        }
        Expr::Paren(p) if matches!(&*p.expr, Expr::Let(_)) => out.push(&p.expr),
        _ => out.push(e),
    }
}

impl Lowerer {
    /// For `w[c]` with `w = sub_slice(&xs, i..i + k)` (a `.windows(k)` item) and literals
    /// `c < k`: `&xs` and `i`, so that `w[c]` reads `xs[i + c]`, the same element, without
    /// the sub-slice's adjoint (a collection per item) in the derivative. Where `c < k`
    /// cannot be seen, `w[c]` stays, with its bounds check.
    fn window_element(&self, base: Value, index: Value) -> Option<(Value, Value)> {
        let literal = |v: Value| crate::ir::integer_literal(&self.func, v);
        let Some(Inst::Call(crate::ir::Callee::Path(p), args)) = self.func.def_inst(base) else {
            return None;
        };
        let library_sub_slice = crate::ir::is_library_fn(p, "sub_slice");
        let [whole, range] = args[..] else {
            return None;
        };
        let Some(Inst::Opaque(o)) = self.func.def_inst(range) else {
            return None;
        };
        let [start, end] = o.uses[..] else {
            return None;
        };
        let inside = match self.func.def_inst(end) {
            Some(Inst::Binary(BinOp::Add, a, k)) if *a == start => literal(index)? < literal(*k)?,
            _ => false,
        };
        // Its bounds are placeholders: a `=` is the inclusive range's.
        let exclusive = !o.tokens.to_string().contains('=');
        // `&xs` is borrowed afresh in each iteration; `xs` is indexed the same.
        let whole = match self.func.def_inst(whole) {
            Some(Inst::Ref(xs, Borrow::Shared)) => *xs,
            _ => whole,
        };
        (library_sub_slice && o.what == "range" && inside && exclusive).then_some((whole, start))
    }
}

/// Methods giving a `&mut` view into their receiver (`v.last_mut()`), which the
/// derivatives cannot follow when the view is kept or written through later: refused,
/// but where a view of a whole place is given to a call or has a method called on it
/// ([`viewed_place`]).
pub(crate) const VIEW_METHODS: &[&str] = &[
    "as_mut_slice",
    "as_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "split_first_mut",
    "split_last_mut",
    "split_at_mut",
    "get_unchecked_mut",
    "as_mut_ptr",
];

/// The place a `&mut` view of a whole place stands for: `y` of `y.as_mut_slice()`,
/// `y.as_mut()` and `&mut y[..]`, `y[a..]` of `&mut y[a..]` as a receiver (`(&mut
/// y[1..]).fill(x)`).
fn viewed_place(e: &Expr) -> Option<Expr> {
    match peel(e) {
        Expr::MethodCall(m)
            if m.args.is_empty() && (m.method == "as_mut_slice" || m.method == "as_mut") =>
        {
            Some((*m.receiver).clone())
        }
        Expr::Reference(r) if r.mutability.is_some() => match peel(&r.expr) {
            // (`&mut y[..]` is `y` whole.)
            Expr::Index(ix) if matches!(peel(&ix.index), Expr::Range(rg) if rg.start.is_none() && rg.end.is_none()) => {
                Some((*ix.expr).clone())
            }
            Expr::Index(_) => Some((*r.expr).clone()),
            _ => None,
        },
        _ => None,
    }
}

/// `xs[a..b]` (any range): the call `sub_slice(&xs, a..b)`, whose derivative rules
/// are diff-core's.
pub(crate) fn sub_slice(e: &Expr) -> Option<Expr> {
    match peel(e) {
        Expr::Index(ix) if matches!(peel(&ix.index), Expr::Range(_)) => {
            let (xs, range) = (&ix.expr, &ix.index);
            Some(syn::parse_quote_spanned!(ix.bracket_token.span.join()=>
                ::diff::__private::sub_slice(&#xs, #range)))
        }
        _ => None,
    }
}

/// A literal (or a negated one) bound by a `let` with a type: the literal as a value of
/// that type, `{ let v: f64 = 0.0; v }`.
fn typed_literal(local: &syn::Local, init: &Expr) -> Option<proc_macro2::TokenStream> {
    let syn::Pat::Type(t) = &local.pat else {
        return None;
    };
    let ty = &t.ty;
    // (Also `None`: `let mut prev: Option<f64> = None;`, whose payload a method is later
    // called on.)
    let none = matches!(peel(init), Expr::Path(p) if p.path.is_ident("None"));
    (is_literal(init) || none)
        .then(|| quote::quote!({ let __diff_typed: #ty = #init; __diff_typed }))
}

/// A literal, or a negated one.
fn is_literal(e: &Expr) -> bool {
    match peel(e) {
        Expr::Lit(_) => true,
        Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_)) && matches!(peel(&u.expr), Expr::Lit(_))
        }
        _ => false,
    }
}

/// `e` with the literals in it given their part of the type `ty`: a literal becomes
/// `{ let v: T = 1.0; v }`, a tuple or array (also `[x; n]`) is given its elements' types.
/// `None` when no literal gets a type.
fn typed_literals(ty: &syn::Type, e: &Expr) -> Option<Expr> {
    let ty = match ty {
        syn::Type::Paren(p) => &*p.elem,
        other => other,
    };
    if is_literal(e) {
        return Some(syn::parse_quote!({ let __diff_typed: #ty = #e; __diff_typed }));
    }
    // The elements with their types; `None` when none of them is given one.
    let typed_elems = |pairs: Vec<(&syn::Type, &Expr)>| -> Option<Vec<Expr>> {
        let typed: Vec<Option<Expr>> = pairs.iter().map(|(t, e)| typed_literals(t, e)).collect();
        typed.iter().any(Option::is_some).then(|| {
            typed
                .into_iter()
                .zip(&pairs)
                .map(|(n, (_, e))| n.unwrap_or_else(|| (*e).clone()))
                .collect()
        })
    };
    match (peel(e), ty) {
        (Expr::Tuple(t), syn::Type::Tuple(tt)) if t.elems.len() == tt.elems.len() => {
            let elems = typed_elems(tt.elems.iter().zip(&t.elems).collect())?;
            Some(syn::parse_quote!((#(#elems,)*)))
        }
        (Expr::Array(a), syn::Type::Array(ta)) => {
            let elems = typed_elems(a.elems.iter().map(|e| (&*ta.elem, e)).collect())?;
            Some(syn::parse_quote!([#(#elems),*]))
        }
        (Expr::Repeat(r), syn::Type::Array(ta)) => {
            let elem = typed_literals(&ta.elem, &r.expr)?;
            let len = &r.len;
            Some(syn::parse_quote!([#elem; #len]))
        }
        _ => None,
    }
}

/// An array's length as a const generic argument: a literal or a constant's name as it
/// is, any other expression in braces.
fn const_argument(len: &Expr) -> proc_macro2::TokenStream {
    match peel(len) {
        bare @ (Expr::Lit(_) | Expr::Path(_)) => quote::quote!(#bare),
        other => quote::quote!({ #other }),
    }
}

/// `let v: [T; N] = std::array::from_fn(|i| e);` as an array written element by
/// element, `let mut v = array_seeded::<T, N>(Some(e at 0)); for i in 0..N { v[i] = e;
/// }`, so that `e` may read the body's values (a closure that does is not differentiated
/// through). `None` for other `let`s.
fn array_from_fn(local: &syn::Local, init: &Expr) -> Option<Vec<Stmt>> {
    let syn::Pat::Type(t) = &local.pat else {
        return None;
    };
    let syn::Type::Array(array) = &*t.ty else {
        return None;
    };
    let syn::Pat::Ident(name) = &*t.pat else {
        return None;
    };
    let Expr::Call(call) = peel(init) else {
        return None;
    };
    let Expr::Path(f) = &*call.func else {
        return None;
    };
    let names = crate::ir::segment_names(&f.path);
    let from_fn = names.last().is_some_and(|n| n == "from_fn")
        && (names.len() == 1 || names.iter().rev().nth(1).is_some_and(|n| n == "array"));
    let [Expr::Closure(c)] = &call.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if !from_fn || c.inputs.len() != 1 || name.by_ref.is_some() || name.subpat.is_some() {
        return None;
    }
    let (elem, ident) = (&array.elem, &name.ident);
    let len = const_argument(&array.len);
    let (index, body) = (&c.inputs[0], &c.body);
    // Seeded with the first element, computed once more (`array_seeded`): `T: Float`
    // has no `Default`.
    let stmts: syn::Block = syn::parse_quote_spanned!(init.span()=> {
        let mut #ident: [#elem; #len] = ::diff::no_derivative(::diff::__private::array_seeded::<_, #len>(
            if #len == 0 { None } else { let #index = 0usize; Some(#body) },
        ));
        for __diff_index in 0..#len {
            let #index = __diff_index;
            #ident[__diff_index] = #body;
        }
    });
    Some(stmts.stmts)
}

/// `a.rem_euclid(b)` as the float methods define it, `{ let r = a % b; if r < 0 { r +
/// b.abs() } else { r } }` (written `r < -r`, which needs no literal of the float type):
/// the rule table holds the methods of `num_traits::Float` only. (`div_euclid`, piecewise
/// constant, is among the methods whose result carries no derivative.)
fn rem_euclid(m: &syn::ExprMethodCall) -> Option<Expr> {
    if m.method != "rem_euclid" || m.args.len() != 1 {
        return None;
    }
    let (a, b) = (&m.receiver, &m.args[0]);
    Some(syn::parse_quote_spanned!(m.method.span()=> {
        let __diff_b = #b;
        let __diff_r = #a % __diff_b;
        if __diff_r < -__diff_r { __diff_r + __diff_b.abs() } else { __diff_r }
    }))
}

/// `c.then(|| e)` as `if c { Some(e) } else { None }`, and `c.then_some(e)` likewise with
/// `e` computed first (it is an argument): an `Option` built where the payload's
/// derivative can be followed. (A receiver that is not a `bool` is rustc's error.)
fn bool_then(m: &syn::ExprMethodCall) -> Option<Expr> {
    let c = &m.receiver;
    match (m.method.to_string().as_str(), m.args.first()) {
        ("then", Some(Expr::Closure(f))) if m.args.len() == 1 && f.inputs.is_empty() => {
            let e = &f.body;
            Some(syn::parse_quote_spanned!(m.method.span()=> if #c { Some(#e) } else { None }))
        }
        ("then_some", Some(e)) if m.args.len() == 1 => {
            Some(syn::parse_quote_spanned!(m.method.span()=> {
                let __diff_payload = #e;
                if #c { Some(__diff_payload) } else { None }
            }))
        }
        _ => None,
    }
}

/// `e.into()` bound by `let p: f64` (or `f32`): the call `f64::from(e)`.
fn float_conversion(local: &syn::Local, init: &Expr) -> Option<Expr> {
    let syn::Pat::Type(t) = &local.pat else {
        return None;
    };
    let syn::Type::Path(ty) = &*t.ty else {
        return None;
    };
    let float = ty.qself.is_none() && (ty.path.is_ident("f64") || ty.path.is_ident("f32"));
    match peel(init) {
        Expr::MethodCall(m) if float && m.method == "into" && m.args.is_empty() => {
            let x = &m.receiver;
            Some(syn::parse_quote_spanned!(m.method.span()=> #ty::from(#x)))
        }
        _ => None,
    }
}

/// `std::mem::swap(&mut a, &mut b)`, `std::mem::replace(&mut a, v)` and
/// `std::mem::take(&mut a)` (also through `core::mem` or an imported `mem`) on places of
/// the body or the referents of `&mut` variables (`swap(a, b)`), as the reads and writes
/// they are: `{ let t = a; a = b; b = t; }`, `{ let new = v; let old = a; a = new; old }`,
/// `{ let old = a; a = default; old }`.
/// `None` for other calls, and for places whose index is computed by a call (it would be
/// evaluated twice).
fn mem_swap_or_replace(c: &syn::ExprCall, func: &syn::ExprPath) -> Option<Expr> {
    let segs = crate::ir::segment_names(&func.path);
    let op = match segs.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        [.., "mem", op] if func.qself.is_none() => op.to_owned(),
        _ => return None,
    };
    // (A variable given as it is holds a `&mut`, which `mem`'s functions take: a
    // `&mut` parameter, `swap(a, b)`; its place is `*a`.)
    let place = |e: &Expr| match peel(e) {
        Expr::Reference(r) if r.mutability.is_some() && simple_place(&r.expr) => {
            Some((*r.expr).clone())
        }
        Expr::Path(p) if p.path.get_ident().is_some() => Some(syn::parse_quote!(*#p)),
        _ => None,
    };
    let args: Vec<&Expr> = c.args.iter().collect();
    match (op.as_str(), &args[..]) {
        ("swap", [a, b]) => {
            let (a, b) = (place(a)?, place(b)?);
            Some(syn::parse_quote_spanned!(c.span()=> {
                let __diff_swapped = #a;
                #a = #b;
                #b = __diff_swapped;
            }))
        }
        ("replace", [a, v]) => {
            let a = place(a)?;
            Some(syn::parse_quote_spanned!(c.span()=> {
                let __diff_new = #v;
                let __diff_old = #a;
                #a = __diff_new;
                __diff_old
            }))
        }
        // `take` leaves the default (`0.0`, an empty `Vec`): a constant.
        ("take", [a]) => {
            let a = place(a)?;
            Some(syn::parse_quote_spanned!(c.span()=> {
                let __diff_old = #a;
                #a = ::diff::no_derivative(::diff::__private::default_like(&__diff_old));
                __diff_old
            }))
        }
        _ => None,
    }
}

/// A place that reads the same when evaluated twice: variables, fields, `*p`, and
/// indices that are variables, literals or arithmetic on them.
fn simple_place(e: &Expr) -> bool {
    fn pure_index(e: &Expr) -> bool {
        match peel(e) {
            Expr::Path(_) | Expr::Lit(_) => true,
            Expr::Binary(b) => pure_index(&b.left) && pure_index(&b.right),
            Expr::Field(f) => pure_index(&f.base),
            _ => false,
        }
    }
    match peel(e) {
        Expr::Path(p) => p.path.get_ident().is_some(),
        Expr::Field(f) => simple_place(&f.base),
        Expr::Index(ix) => simple_place(&ix.expr) && pure_index(&ix.index),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => simple_place(&u.expr),
        _ => false,
    }
}

pub(crate) fn peel(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => peel(&p.expr),
        Expr::Group(g) => peel(&g.expr),
        other => other,
    }
}

/// `+=`, `-=`, ..., `>>=`: an operator that assigns its left operand.
pub(crate) fn is_compound_assignment(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::BitXorAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// Whether `e` is `Default::default()` (by any path ending so).
fn is_default_call(e: &Expr) -> bool {
    let Expr::Call(c) = e else {
        return false;
    };
    let Expr::Path(p) = &*c.func else {
        return false;
    };
    let mut names = p.path.segments.iter().rev().map(|s| s.ident.to_string());
    c.args.is_empty()
        && p.qself.is_none()
        && names.next().as_deref() == Some("default")
        && names.next().as_deref() == Some("Default")
}

/// The arithmetic operator of `op`, or of its compound assignment (`+` of `+=`).
fn arithmetic(op: &syn::BinOp) -> Option<BinOp> {
    use syn::BinOp as B;
    match op {
        B::Add(_) | B::AddAssign(_) => Some(BinOp::Add),
        B::Sub(_) | B::SubAssign(_) => Some(BinOp::Sub),
        B::Mul(_) | B::MulAssign(_) => Some(BinOp::Mul),
        B::Div(_) | B::DivAssign(_) => Some(BinOp::Div),
        B::Rem(_) | B::RemAssign(_) => Some(BinOp::Rem),
        _ => None,
    }
}

/// An operator on a struct of the crate as the call of its method (`p + q` is
/// `p.__add_by_v(q)`, `-p` is `p.neg()`), whose derivatives are the operator's
/// implementation's (`operator_impls.rs`).
fn operator_call(method: &str, span: proc_macro2::Span, args: Vec<Value>) -> Inst {
    Inst::Call(
        Callee::Method {
            method: syn::Ident::new(method, span),
            turbofish: None,
            of_trait: false,
            user: false,
        },
        args,
    )
}

/// `[a, b].concat()` (or `vec![a, b].concat()`) whose pieces are not all owned `Vec`s
/// written in place (`&v[..k]`, `v.as_slice()`, `&[x, y]`): each piece taken `to_vec()`, so
/// that the pieces are `Vec`s, whose concatenation the library differentiates. `None`
/// otherwise.
fn concat_of_slices(m: &syn::ExprMethodCall) -> Option<Expr> {
    if m.method != "concat" || !m.args.is_empty() {
        return None;
    }
    let Expr::Array(a) = peel(&m.receiver) else {
        return None;
    };
    let owned = |e: &Expr| match peel(e) {
        Expr::Macro(v) => v.mac.path.is_ident("vec"),
        Expr::MethodCall(c) => c.method == "to_vec" && c.args.is_empty(),
        _ => false,
    };
    if a.elems.iter().all(owned) {
        return None;
    }
    let pieces = a.elems.iter().map(|e| -> Expr {
        if owned(e) {
            e.clone()
        } else {
            syn::parse_quote_spanned!(e.span()=> (#e).to_vec())
        }
    });
    Some(syn::parse_quote_spanned!(m.span()=> [#(#pieces),*].concat()))
}

/// Whether tokens name any of `bound` (an identifier, at any depth).
fn names_any(ts: proc_macro2::TokenStream, bound: &[String]) -> bool {
    ts.into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => bound.contains(&i.to_string()),
        proc_macro2::TokenTree::Group(g) => names_any(g.stream(), bound),
        _ => false,
    })
}

/// Whether `p` names `Option::Some`: `Some`, `Option::Some`, `std::option::Option::Some`
/// (or `core::`, with a leading `::`).
fn is_some_variant(p: &syn::Path) -> bool {
    let names: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    p.segments.iter().all(|s| s.arguments.is_none())
        && matches!(
            names.as_slice(),
            ["Some"] | ["Option", "Some"] | ["std" | "core", "option", "Option", "Some"]
        )
}

/// The field places (`m.w`, `p.0.x`) of variables `outer` accepts in an expression,
/// each replaced by `__diff_place_k` (the same place by the same name), found in order.
struct FieldPlaces<'a> {
    outer: &'a dyn Fn(&str) -> bool,
    found: Vec<Expr>,
}

impl syn::visit_mut::VisitMut for FieldPlaces<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Field(f) = e {
            let mut base = &*f.base;
            while let Expr::Field(inner) = base {
                base = &inner.base;
            }
            let root = match base {
                Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                _ => None,
            };
            if root.is_some_and(|r| (self.outer)(&r)) {
                let text = e.to_token_stream().to_string();
                let k = match self
                    .found
                    .iter()
                    .position(|p| p.to_token_stream().to_string() == text)
                {
                    Some(k) => k,
                    None => {
                        self.found.push(e.clone());
                        self.found.len() - 1
                    }
                };
                let name = quote::format_ident!("__diff_place_{k}", span = e.span());
                *e = syn::parse_quote!(#name);
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// Inner closures of a nested operator's closure: a parameter named like a variable of
/// the body (`outer`) is renamed (`__diff_inner_k_x`) in that closure, which is its
/// whole scope, unless a macro inside names it (whose tokens are not renamed): the
/// binding is then left, and refused as shadowing.
struct InnerClosures<'a> {
    outer: &'a dyn Fn(&str) -> bool,
    renamed: usize,
}

impl syn::visit_mut::VisitMut for InnerClosures<'_> {
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        let mut bound = super::opaque::Changes::default();
        for p in &c.inputs {
            syn::visit::Visit::visit_pat(&mut bound, p);
        }
        for name in bound.own.iter().filter(|n| (self.outer)(n)) {
            let mut names = NamesInMacros { name, found: false };
            syn::visit::Visit::visit_expr_closure(&mut names, c);
            if names.found {
                continue;
            }
            let to = quote::format_ident!("__diff_inner_{}_{}", self.renamed, name);
            self.renamed += 1;
            let mut rename = Rename {
                from: name,
                to: &to,
            };
            syn::visit_mut::VisitMut::visit_expr_closure_mut(&mut rename, c);
        }
        syn::visit_mut::visit_expr_closure_mut(self, c);
    }
}

/// Whether a macro's tokens name `name`.
struct NamesInMacros<'a> {
    name: &'a str,
    found: bool,
}

impl<'ast> syn::visit::Visit<'ast> for NamesInMacros<'_> {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        fn names(ts: proc_macro2::TokenStream, name: &str) -> bool {
            ts.into_iter().any(|t| match t {
                proc_macro2::TokenTree::Ident(i) => i == name,
                proc_macro2::TokenTree::Group(g) => names(g.stream(), name),
                proc_macro2::TokenTree::Literal(l) => l.to_string().contains(name),
                _ => false,
            })
        }
        self.found |= names(m.tokens.clone(), self.name);
    }
}

/// Renames the variable `from` (its bindings, its reads, a struct literal's shorthand
/// field `S { from }`) to `to`.
struct Rename<'a> {
    from: &'a str,
    to: &'a syn::Ident,
}

impl syn::visit_mut::VisitMut for Rename<'_> {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if p.ident == self.from {
            p.ident = syn::Ident::new(&self.to.to_string(), p.ident.span());
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }
    fn visit_expr_path_mut(&mut self, e: &mut syn::ExprPath) {
        if e.qself.is_none() && e.path.is_ident(self.from) {
            let span = e.path.segments[0].ident.span();
            e.path.segments[0].ident = syn::Ident::new(&self.to.to_string(), span);
        }
    }
    fn visit_field_pat_mut(&mut self, f: &mut syn::FieldPat) {
        if f.colon_token.is_none() && matches!(&f.member, syn::Member::Named(n) if n == self.from) {
            f.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_pat_mut(self, f);
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        if f.colon_token.is_none() && matches!(&f.member, syn::Member::Named(n) if n == self.from) {
            f.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, f);
    }
}
