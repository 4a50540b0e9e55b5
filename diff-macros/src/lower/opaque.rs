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
        // (A closure's body runs where it is called: a call of one bound by `let` is
        // inlined, and follows its changes.)
        if !matches!(e, syn::Expr::Closure(_)) {
            self.refuse_changes_inside(e, what(e));
        }
        let mut uses = Vec::new();
        let mut tokens = self.substitute_expr(e, &mut uses);
        if let syn::Expr::Macro(m) = e {
            tokens = self.bind_format_captures(&m.mac.tokens, tokens, &mut uses);
        }
        let what = super::iterators::undifferentiated_chain(e)
            .or_else(|| second_order_operator(e))
            .or_else(|| self.given_closure(e))
            .unwrap_or_else(|| what(e).into());
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
                discrete: discrete(e),
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
        // (Each name spanned as its format string, whose inline arguments resolve there.)
        let mut names: Vec<(String, proc_macro2::Span)> = Vec::new();
        for tt in mac.clone() {
            if let TokenTree::Literal(l) = tt {
                let text = l.to_string();
                if text.starts_with('"') || text.starts_with("r\"") || text.starts_with("r#") {
                    names.extend(format_captures(&text).into_iter().map(|n| (n, l.span())));
                }
            }
        }
        let mut lets = TokenStream::new();
        for (name, span) in names {
            let Some(v) = self.lookup(&name) else {
                continue;
            };
            let n = uses.iter().position(|u| *u == v).unwrap_or_else(|| {
                uses.push(v);
                uses.len() - 1
            });
            let (id, ph) = (
                Ident::new(&name, span),
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

/// Besides printing and assertions (`lifting::PLAIN_MACROS`), macros known to read what
/// they are given and change nothing of the function's (formatting, logging), or that
/// the lowering knows.
const KNOWN_MACROS: &[&str] = &[
    "format_args",
    "write",
    "writeln",
    "todo",
    "unimplemented",
    "vec",
    "info",
    "debug",
    "trace",
    "warn",
    "error",
    "log",
    "assert_relative_eq",
    "assert_abs_diff_eq",
    "assert_ulps_eq",
];

/// Methods that change their receiver in place (`out.push(x)`, `v.sort_by(..)`).
const CHANGING_METHODS: &[&str] = &[
    "push",
    "push_str",
    "insert",
    "extend",
    "extend_from_slice",
    "append",
    "clear",
    "truncate",
    "swap",
    "swap_remove",
    "remove",
    "pop",
    "retain",
    "resize",
    "drain",
    "dedup",
    "reverse",
    "fill",
    "sort",
    "sort_by",
    "sort_by_key",
    "sort_unstable",
    "sort_unstable_by",
    "rotate_left",
    "rotate_right",
    "copy_from_slice",
    "clone_from_slice",
    "iter_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "as_mut_slice",
    "get_or_insert",
    "replace",
];

impl Lowerer {
    /// Refuses a call, as a statement, of a macro the lowering does not know
    /// (`bump!(y, x)`, a `macro_rules!` of the user's) that is given a variable of the
    /// function: what it expands to is not seen (a procedural macro runs first on the
    /// body as written), so a change it makes (`$v += $by`) would escape the derivatives.
    pub(crate) fn refuse_unknown_statement_macro(&mut self, mac: &syn::Macro) {
        let Some(name) = mac.path.segments.last().map(|s| s.ident.to_string()) else {
            return;
        };
        if KNOWN_MACROS
            .iter()
            .chain(crate::lifting::PLAIN_MACROS)
            .any(|m| *m == name)
        {
            return;
        }
        fn named(ts: proc_macro2::TokenStream, out: &mut Vec<Ident>) {
            for tt in ts {
                match tt {
                    TokenTree::Ident(i) => out.push(i),
                    TokenTree::Group(g) => named(g.stream(), out),
                    _ => {}
                }
            }
        }
        let mut names = Vec::new();
        named(mac.tokens.clone(), &mut names);
        if let Some(local) = names.iter().find(|i| self.lookup(&i.to_string()).is_some()) {
            self.errors.push(syn::Error::new_spanned(
                &mac.path,
                format!(
                    "`{name}!` is given `{local}`, a variable of the function, and the macro cannot see what `{name}!` expands to, so the derivatives would not follow what it changes; write its code out in the body, or call a function"
                ),
            ));
        }
    }

    /// Refuses code kept as written (`what`: a closure given to a method the macro does
    /// not differentiate through, a guard, ..) that changes a variable of the function
    /// (`out.push(x)`, `acc += a * w`, `&mut v`): the derivatives would not follow the
    /// change. Names the code binds itself (a closure's parameters, its `let`s) are its
    /// own.
    pub(crate) fn refuse_changes_inside(&mut self, e: &syn::Expr, what: &str) {
        let outer = self.outer_change(e);
        let message = match &outer {
            Some((id, _, true)) => format!(
                "this `move` closure changes its own copy of `{id}`, not the variable, which the macro does not differentiate; remove `move` to change `{id}` itself (or, for a closure given to a method, write a `for` loop)"
            ),
            Some((id, _, false)) => format!(
                "`{id}` is changed inside this {what}, which the macro keeps as written, so the derivatives would not follow the change; change `{id}` outside it (for a closure given to a method, write a `for` loop)"
            ),
            None => return,
        };
        if let Some((_, span, _)) = outer {
            self.errors.push(syn::Error::new(span, message));
        }
    }

    /// The first change `e` makes to a variable of the function (not to a name `e`
    /// binds itself): the variable, where, and whether inside a `move` closure.
    pub(crate) fn outer_change(
        &self,
        e: &syn::Expr,
    ) -> Option<(proc_macro2::Ident, proc_macro2::Span, bool)> {
        let mut found = Changes::default();
        syn::visit::Visit::visit_expr(&mut found, e);
        found.changed.into_iter().find(|(id, ..)| {
            let name = id.to_string();
            !found.own.contains(&name) && self.lookup(&name).is_some()
        })
    }
}

/// What code changes of the variables around it: each assignment (`k = ..`, `a += ..`,
/// `p.x = ..`, `*r = ..`), `&mut` borrow and call of a method that updates its receiver
/// (`out.push(x)`), by the variable of the place changed, where, and whether inside a
/// `move` closure (which changes its own copy); and the names the code binds itself (a
/// closure's parameters, its `let`s). Items inside are not entered.
#[derive(Default)]
pub(crate) struct Changes {
    pub(crate) own: Vec<String>,
    pub(crate) changed: Vec<(syn::Ident, proc_macro2::Span, bool)>,
    moving: usize,
}

impl Changes {
    /// The changes `stmts` make.
    pub(crate) fn in_stmts(stmts: &[syn::Stmt]) -> Changes {
        let mut found = Changes::default();
        for st in stmts {
            syn::visit::Visit::visit_stmt(&mut found, st);
        }
        found
    }
}

impl<'a> syn::visit::Visit<'a> for Changes {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.own.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr(&mut self, e: &'a syn::Expr) {
        let place = match e {
            syn::Expr::Assign(a) => Some(&*a.left),
            syn::Expr::Binary(b) if super::expr::is_compound_assignment(&b.op) => Some(&*b.left),
            syn::Expr::Reference(r) if r.mutability.is_some() => Some(&*r.expr),
            syn::Expr::MethodCall(m) if CHANGING_METHODS.iter().any(|c| m.method == c) => {
                Some(&*m.receiver)
            }
            _ => None,
        };
        if let Some(id) = place.and_then(place_root) {
            self.changed.push((id.clone(), e.span(), self.moving > 0));
        }
        syn::visit::visit_expr(self, e);
    }
    fn visit_expr_closure(&mut self, c: &'a syn::ExprClosure) {
        let moves = usize::from(c.capture.is_some());
        self.moving += moves;
        syn::visit::visit_expr_closure(self, c);
        self.moving -= moves;
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// The variable a place belongs to (`s` of `s.v[i]`, `r` of `*r`).
pub(crate) fn place_root(e: &syn::Expr) -> Option<&syn::Ident> {
    match e {
        syn::Expr::Path(p) => p.path.get_ident(),
        syn::Expr::Field(f) => place_root(&f.base),
        syn::Expr::Index(i) => place_root(&i.expr),
        syn::Expr::Paren(p) => place_root(&p.expr),
        syn::Expr::Group(g) => place_root(&g.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => place_root(&u.expr),
        _ => None,
    }
}

/// How [`Lowerer::given_closure`] begins what it calls the code, by which `check.rs`
/// knows it carries its own advice (and reports it once per closure).
pub(crate) const GIVEN_CLOSURE: &str = "call of a closure this function is given";

impl Lowerer {
    /// For a call of a parameter (`f(x)` with `f: impl Fn(f64) -> f64`), what to call it
    /// in a diagnostic: the macro differentiates the body it is written on, not the
    /// closures a caller passes.
    fn given_closure(&self, e: &syn::Expr) -> Option<String> {
        let syn::Expr::Call(c) = e else {
            return None;
        };
        let syn::Expr::Path(p) = super::expr::peel(&c.func) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let v = self.lookup(&name)?;
        matches!(self.func.def_inst(v), Some(Inst::Param(_))).then(|| {
            format!("{GIVEN_CLOSURE}, `{name}`: #[differentiable] differentiates the body it is written on, not the closures its callers pass; call a #[differentiable] function by name here instead, or wrap the call in no_derivative(..) if its derivative should be zero")
        })
    }
}

/// How [`second_order_operator`] begins what it calls the code, by which `check.rs`
/// knows it carries its own advice (for a closure operator too).
pub(crate) const SECOND_ORDER_OPERATOR: &str = "second-order operator";

/// For a second-order operator (`second_derivative!(at: x, of: f)`), what to call it in a
/// diagnostic: differentiating it would need a third derivative. For an operator whose
/// result is a closure (`differential!`, `pullback!`), what to write instead.
fn second_order_operator(e: &syn::Expr) -> Option<String> {
    let syn::Expr::Macro(m) = e else {
        return None;
    };
    let op = m.mac.path.segments.last()?.ident.to_string();
    if CLOSURE_OPERATORS.contains(&op.as_str()) {
        return Some(format!("{CLOSURE_OPERATOR} `{op}!`, whose result is a closure, which a derivative cannot be taken through; in a #[differentiable] body write the derivative along a direction with `first_derivative!(at: 0.0, of: |t| f(x + t * v))` (or `value_with_derivative!`), or a gradient with `gradient!`"));
    }
    crate::operators::SECOND_ORDER.contains(&op.as_str()).then(|| {
        format!("{SECOND_ORDER_OPERATOR} `{op}!`, whose derivative would be a third derivative, which is not supported; write the derivative of what it computes by hand, or take it by finite differences")
    })
}

/// How [`second_order_operator`] begins what it calls an operator returning a closure.
pub(crate) const CLOSURE_OPERATOR: &str = "operator";

/// The operators returning a closure, which a body cannot be differentiated through.
const CLOSURE_OPERATORS: &[&str] = &[
    "differential",
    "value_with_differential",
    "pullback",
    "value_with_pullback",
];

fn what(e: &syn::Expr) -> &'static str {
    match e {
        syn::Expr::Macro(_) => "macro call",
        syn::Expr::Cast(_) => "`as` cast",
        syn::Expr::Array(_) | syn::Expr::Repeat(_) => "array expression",
        syn::Expr::Range(_) => "range",
        syn::Expr::Struct(_) => "struct literal",
        syn::Expr::Closure(_) => "closure",
        syn::Expr::Call(_) => "call of a closure",
        syn::Expr::Binary(b) if bitwise(&b.op) => "bitwise operator",
        syn::Expr::Binary(_) => "comparison or logical operator",
        syn::Expr::Unary(_) => "`!` operator",
        _ => "expression",
    }
}

/// Whether `op` is a bitwise operator (`&`, `|`, `^`, `<<`, `>>`, and their assignments),
/// on integers.
fn bitwise(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        BitAnd(_)
            | BitOr(_)
            | BitXor(_)
            | Shl(_)
            | Shr(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | BitXorAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
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
        syn::Expr::MethodCall(m) => crate::ir::is_inactive_method(&m.method, m.args.len()),
        _ => discrete(e),
    }
}

/// Expressions whose value holds only integers and booleans: casts to integers,
/// comparisons, `!`.
fn discrete(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Cast(c) => {
            matches!(&*c.ty, syn::Type::Path(p) if p.path.get_ident().is_some_and(|i| {
                let s = i.to_string();
                crate::ir::INTEGER_TYPES.contains(&s.as_str()) || s == "bool" || s == "char"
            }))
        }
        // (A bitwise operator's operands are integers or `bool`s: Rust has none on floats.)
        syn::Expr::Binary(b) if bitwise(&b.op) => true,
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
