//! Closures bound in the body (`let sq = |t| t * k;`): a call `sq(x)` is inlined, and the
//! inlined body reads what the closure captured where it was defined, as Rust does
//! (`let k = 2.0 * k;` after the closure does not change what `sq` reads, nor does an
//! assignment to `k` after a `move` closure). A closure that updates variables (`FnMut`)
//! updates them where they are; one that would update its own copies (`move`), or whose
//! variables have been shadowed, is refused. A closure called where it is written
//! (`(|t| t * k)(x)`, as a `macro_rules!` expansion may write) is inlined the same way.
use super::Lowerer;
use crate::ir::Value;
use proc_macro2::TokenTree;
use quote::ToTokens;
use syn::visit::Visit;

/// A closure bound to a name in the body.
#[derive(Clone)]
pub(crate) struct LocalClosure {
    /// The name it is bound to.
    name: String,
    /// The value bound to that name (so a shadowing binding is not taken for it); none
    /// for a closure called where it is written (`(|t| t * k)(x)`).
    value: Option<Value>,
    closure: syn::ExprClosure,
    /// The variables of the body the closure may read, where it was defined.
    captured: Vec<Captured>,
}

#[derive(Clone)]
struct Captured {
    name: String,
    value: Value,
    binding: super::env::Var,
}

impl LocalClosure {
    /// The value the closure is bound to (none for one called where it is written).
    pub(crate) fn value(&self) -> Option<Value> {
        self.value
    }
}

impl Lowerer {
    /// Remembers `let name = closure;`, bound to `value`.
    pub(crate) fn record_closure(
        &mut self,
        name: String,
        value: Value,
        closure: &syn::ExprClosure,
    ) {
        let bound = self.closure_here(name, Some(value), closure);
        self.closures.push(bound);
    }

    /// `closure` as written here: what it captures is what its variables hold now.
    pub(crate) fn closure_here(
        &self,
        name: String,
        value: Option<Value>,
        closure: &syn::ExprClosure,
    ) -> LocalClosure {
        let mut captured = Vec::new();
        collect_idents(closure.body.to_token_stream(), &mut |name| {
            if let (Some(value), Some(binding)) = (self.lookup(&name), self.binding(&name)) {
                if !captured.iter().any(|c: &Captured| c.name == name) {
                    captured.push(Captured {
                        name,
                        value,
                        binding,
                    });
                }
            }
        });
        LocalClosure {
            name,
            value,
            closure: closure.clone(),
            captured,
        }
    }

    /// The closure a call `name(..)` calls, when `name` is bound to one in the body.
    pub(crate) fn local_closure(&self, name: &str) -> Option<LocalClosure> {
        let v = self.lookup(name)?;
        self.closures
            .iter()
            .rev()
            .find(|c| c.name == name && c.value == Some(v))
            .cloned()
    }

    /// Inlines a call of a closure bound in the body: its parameters bound to the
    /// arguments, then its body.
    pub(crate) fn inline_closure_call(
        &mut self,
        call: &syn::ExprCall,
        c: &LocalClosure,
    ) -> syn::Result<Option<Value>> {
        if c.closure.inputs.len() != call.args.len() {
            return Ok(None);
        }
        let writes = writes_anything(&c.closure);
        let refuse = |why: String| Err(syn::Error::new_spanned(call, why));
        if writes && c.closure.capture.is_some() {
            return refuse("a `move` closure that updates what it captures is not supported in a #[differentiable] body; write the update in the body, or use a closure without `move`".into());
        }
        let shadowed = c
            .captured
            .iter()
            .find(|cap| self.binding(&cap.name) != Some(cap.binding));
        if let (true, Some(cap)) = (writes, shadowed) {
            return refuse(format!("this closure updates variables and is called where `{}`, which it captures, is shadowed; this is not supported in a #[differentiable] body: rename the shadowing variable", cap.name));
        }
        let args = call
            .args
            .iter()
            .map(|a| self.lower_expr(a))
            .collect::<syn::Result<Vec<_>>>()?;
        self.push_scope();
        if !writes {
            // What the closure reads is what it captured: the values where it was
            // defined, over any binding that shadows or (for `move`) changed them since.
            for cap in &c.captured {
                if self.lookup(&cap.name) != Some(cap.value) {
                    self.bind(cap.name.clone(), cap.value);
                }
            }
        }
        let mut out = Ok(());
        for (pat, a) in c.closure.inputs.iter().zip(args) {
            out = out.and_then(|_| self.bind_pattern(pat, a));
        }
        let v = out.and_then(|_| self.lower_expr(&c.closure.body));
        self.pop_scope();
        v.map(Some)
    }
}

/// Calls `f` with every identifier in `tokens`, macro arguments included.
fn collect_idents(tokens: proc_macro2::TokenStream, f: &mut impl FnMut(String)) {
    for tt in tokens {
        match tt {
            TokenTree::Ident(id) => f(id.to_string()),
            TokenTree::Group(g) => collect_idents(g.stream(), f),
            _ => {}
        }
    }
}

/// Whether a closure's body assigns, updates through a method call or lends `&mut`.
fn writes_anything(c: &syn::ExprClosure) -> bool {
    writes(c, true)
}

/// Whether a closure's body assigns (`k += 1`, `*r = x`) or lends `&mut`; with
/// `methods`, or calls any method (which may update its receiver).
pub(crate) fn writes(c: &syn::ExprClosure, methods: bool) -> bool {
    struct W {
        found: bool,
        methods: bool,
    }
    impl<'a> Visit<'a> for W {
        fn visit_expr_assign(&mut self, _: &'a syn::ExprAssign) {
            self.found = true;
        }
        fn visit_expr_binary(&mut self, b: &'a syn::ExprBinary) {
            self.found |= super::expr::is_compound_assignment(&b.op);
            syn::visit::visit_expr_binary(self, b);
        }
        fn visit_expr_reference(&mut self, r: &'a syn::ExprReference) {
            self.found |= r.mutability.is_some();
            syn::visit::visit_expr_reference(self, r);
        }
        fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
            self.found |= self.methods;
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    let mut w = W {
        found: false,
        methods,
    };
    w.visit_expr(&c.body);
    w.found
}
