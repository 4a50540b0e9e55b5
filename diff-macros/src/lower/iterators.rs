//! Iterator chains over collections of active values, rewritten as index loops before
//! lowering: `for x in xs.iter().zip(ys).enumerate()` walks `0..len` and binds the items by
//! indexing, and `chain.map(f).sum()`, `.product()` and `.fold(init, f)` become loops
//! accumulating into a local, and `chain.collect()` a loop pushing into a `Vec`. Indexing
//! keeps every element's derivative visible.
use syn::{parse_quote, Expr};

/// One step of a chain, in application order.
enum Adapter {
    /// An adapter of the index iterator (`rev`, `skip(k)`, `take(k)`, `step_by(k)`).
    Index(syn::Ident, Vec<Expr>),
    Enumerate,
    /// `zip(ys)`, or `zip(ys.iter().zip(zs)..)` with the zips of its argument (whose
    /// items pair `ys[i]` with `zs[i]`, then with the next).
    Zip(Box<Base>, Vec<Base>),
    Copied,
    Map(Func),
    /// `filter(p)`: only the items `p(&item)` keeps.
    Filter(Func),
    /// `take_while(p)`: the items up to the first that `p(&item)` rejects.
    TakeWhile(Func),
    /// `filter_map(f)`: the payloads of the items' `f(item)` that are `Some`.
    FilterMap(Func),
    /// `skip_while(p)`: the items from the first that `p(&item)` rejects on.
    SkipWhile(Func),
}

/// What decides whether the loop of a chain goes on with an item, in the order the
/// chain's adapters apply.
enum Guard {
    /// A `filter`: the item is passed over unless this holds.
    Keep(Expr),
    /// A `take_while`: the loop ends at the first item for which this does not hold.
    While(Expr),
    /// A `filter_map`: the item is passed over unless this is `Some`, whose payload
    /// the name binds (the item from here on).
    Some(syn::Ident, Expr),
    /// A `skip_while`: the item is passed over while the flag (declared `true` before
    /// the loop, [`Chain::prelude`]) is set and this holds; the flag is cleared at the
    /// first item for which it does not.
    Skip(syn::Ident, Expr),
    /// An `enumerate` after items were passed over: the item's position is the count
    /// (declared `0` before the loop) of the items that reached it, bound to the
    /// second name.
    Count(syn::Ident, syn::Ident),
}

impl Guard {
    /// Whether the guard passes items over, so that an `enumerate` after it counts.
    fn drops_items(&self) -> bool {
        matches!(self, Guard::Keep(_) | Guard::Some(..) | Guard::Skip(..))
    }
}

/// A function applied to items: a closure literal or a path (`f64::sin`, `g`).
enum Func {
    Closure(syn::ExprClosure),
    Path(Expr),
}

/// A collection the chain reads: `xs.iter()`, `&xs`, `xs`.
struct Base {
    expr: Expr,
    by_ref: bool,
    /// Elements skipped at the front (`ys.iter().skip(k)` as the argument of `zip`).
    offset: Option<Expr>,
    /// Read from the back (`ys.iter().rev()` as the argument of `zip`): item `i` is
    /// `ys[ys.len() - 1 - i]`.
    reversed: bool,
    /// Repeated (`ys.iter().cycle()` as the argument of `zip`, with an offset after
    /// `.skip(k)`): item `i` is `ys[(i + k) % ys.len()]`, and it never ends the pairs
    /// unless `ys` is empty.
    cycled: bool,
    /// A range of indices (`(0..n).map(|i| xs[i] * w[i])`): the items are the indices.
    range: bool,
    /// `xs.windows(k)` or `xs.chunks(k)`: the items are sub-slices of `xs`.
    window: Option<(syn::Ident, Expr)>,
    /// Its items copied (`ys.iter().copied()` as the argument of `zip`): values, not
    /// references, whatever `by_ref` says.
    copied: bool,
}

/// A parsed chain: the collection and the adapters after it.
pub(crate) struct Chain {
    base: Base,
    adapters: Vec<Adapter>,
}

fn base(e: &Expr) -> Option<Base> {
    match e {
        Expr::MethodCall(m)
            if m.args.is_empty() && (m.method == "iter" || m.method == "into_iter") =>
        {
            let inner = base(&m.receiver)?;
            Some(Base {
                expr: inner.expr,
                by_ref: m.method == "iter" || inner.by_ref,
                offset: None,
                reversed: false,
                cycled: false,
                range: false,
                window: None,
                copied: false,
            })
        }
        // `xs[a..b].iter()`, `&xs[a..]`: the sub-slice, bound once by the loop's caller
        // would be better; indexing it per item is correct.
        Expr::Index(_) => Some(Base {
            expr: match super::expr::sub_slice(e) {
                Some(call) => parse_quote!((#call)),
                // A row (`m[i].iter()`), read at each index where the chain is consumed.
                None => parse_quote!((#e)),
            },
            by_ref: false,
            offset: None,
            reversed: false,
            cycled: false,
            range: false,
            window: None,
            copied: false,
        }),
        Expr::Reference(r) if r.mutability.is_none() && matches!(&*r.expr, Expr::Index(_)) => {
            base(&r.expr).map(|b| Base { by_ref: true, ..b })
        }
        Expr::Reference(r) if r.mutability.is_none() => Some(Base {
            expr: (*r.expr).clone(),
            by_ref: true,
            offset: None,
            reversed: false,
            cycled: false,
            range: false,
            window: None,
            copied: false,
        }),
        // A variable, or a constant or static (`TABLE`, `Self::COEFFS`).
        Expr::Path(p) if p.qself.is_none() && !has_generics(&p.path) => Some(Base {
            expr: e.clone(),
            by_ref: false,
            offset: None,
            reversed: false,
            cycled: false,
            range: false,
            window: None,
            copied: false,
        }),
        Expr::Field(_) => Some(Base {
            expr: e.clone(),
            by_ref: false,
            offset: None,
            reversed: false,
            cycled: false,
            range: false,
            window: None,
            copied: false,
        }),
        Expr::Paren(p) => base(&p.expr),
        // `[a, b, c].iter()`: the literal, read at each index (its elements are pure
        // expressions of the body).
        Expr::Array(_) => Some(Base {
            expr: parse_quote!((#e)),
            by_ref: false,
            offset: None,
            reversed: false,
            cycled: false,
            range: false,
            window: None,
            copied: false,
        }),
        Expr::MethodCall(m)
            if m.args.len() == 1
                && (m.method == "windows"
                    || m.method == "chunks"
                    || m.method == "chunks_exact") =>
        {
            let inner = base(&m.receiver)?;
            if inner.range || inner.window.is_some() {
                return None;
            }
            Some(Base {
                window: Some((m.method.clone(), m.args[0].clone())),
                copied: false,
                by_ref: false,
                ..inner
            })
        }
        Expr::Range(_) => Some(Base {
            expr: e.clone(),
            by_ref: false,
            offset: None,
            reversed: false,
            cycled: false,
            range: true,
            window: None,
            copied: false,
        }),
        _ => None,
    }
}

impl Adapter {
    /// The adapter's function, when it is a closure literal.
    fn closure(&self) -> Option<&syn::ExprClosure> {
        match self {
            Adapter::Map(Func::Closure(c))
            | Adapter::Filter(Func::Closure(c))
            | Adapter::TakeWhile(Func::Closure(c))
            | Adapter::FilterMap(Func::Closure(c))
            | Adapter::SkipWhile(Func::Closure(c)) => Some(c),
            _ => None,
        }
    }

    /// Whether the adapter's function is a `move` closure.
    fn moves(&self) -> bool {
        self.closure().is_some_and(|c| c.capture.is_some())
    }

    /// Whether the adapter's function assigns to something (`k += 1`, `*r = x`) or
    /// lends a `&mut`.
    fn changes_a_variable(&self) -> bool {
        self.closure()
            .is_some_and(|c| super::closure::writes(c, false))
    }
}

/// The argument of `zip`: a collection, or a collection with its first `k` skipped,
/// read backwards or repeated.
fn zipped(e: &Expr) -> Option<Base> {
    if let Expr::MethodCall(m) = e {
        if m.method == "skip" && m.args.len() == 1 {
            let mut b = cycled(&m.receiver).or_else(|| base(&m.receiver))?;
            b.offset = Some(m.args[0].clone());
            return Some(b);
        }
        if let Some(b) = cycled(e) {
            return Some(b);
        }
        if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() {
            let b = zipped(&m.receiver)?;
            if b.range || b.window.is_some() {
                return None;
            }
            return Some(Base { copied: true, ..b });
        }
        if m.method == "rev" && m.args.is_empty() {
            let mut b = base(&m.receiver)?;
            if b.range || b.window.is_some() || b.offset.is_some() {
                return None;
            }
            b.reversed = true;
            return Some(b);
        }
    }
    base(e)
}

/// The argument of a `zip`: a collection, or one zipped with others
/// (`ys.iter().zip(zs)`), none of them a range.
fn zipped_chain(e: &Expr) -> Option<(Base, Vec<Base>)> {
    match e {
        Expr::MethodCall(m) if m.method == "zip" && m.args.len() == 1 => {
            let (b, mut inner) = zipped_chain(&m.receiver)?;
            let z = zipped(&m.args[0])?;
            if b.range || z.range {
                return None;
            }
            inner.push(z);
            Some((b, inner))
        }
        _ => Some((zipped(e)?, Vec::new())),
    }
}

/// The length of the pairs of `len` items with those of the zipped `b`.
fn zipped_len(len: Expr, b: &Base) -> Expr {
    let ys = &b.expr;
    if b.cycled {
        return parse_quote!(if #ys.is_empty() { 0 } else { #len });
    }
    let n = items(b);
    parse_quote!(#len.min(#n))
}

/// The item at `at` of the zipped `b` and the collections zipped with it (`inner`), and
/// the number of pairs, from `len` those of `b`.
fn zipped_item(mut len: Expr, b: &Base, inner: &[Base], at: &syn::Ident) -> (Expr, Expr) {
    let mut item = element(b, at);
    for z in inner {
        len = zipped_len(len, z);
        let next = element(z, at);
        item = parse_quote!((#item, #next));
    }
    (len, item)
}

/// The number of items of a collection that is not a range: its elements after the
/// offset, or its windows or chunks.
fn items(b: &Base) -> Expr {
    let xs = &b.expr;
    match &b.window {
        Some((kind, k)) if kind == "windows" => {
            parse_quote!((#xs.len() + 1).saturating_sub(#k))
        }
        Some((kind, k)) if kind == "chunks_exact" => parse_quote!(#xs.len() / (#k)),
        Some((_, k)) => parse_quote!(#xs.len().div_ceil(#k)),
        None => match &b.offset {
            Some(k) => parse_quote!(#xs.len().saturating_sub(#k)),
            None => parse_quote!(#xs.len()),
        },
    }
}

/// `ys.iter().cycle()`: the collection, repeated.
fn cycled(e: &Expr) -> Option<Base> {
    let Expr::MethodCall(m) = e else {
        return None;
    };
    if m.method != "cycle" || !m.args.is_empty() {
        return None;
    }
    let b = base(&m.receiver)?;
    if b.range || b.window.is_some() {
        return None;
    }
    Some(Base { cycled: true, ..b })
}

/// A closure (not a `move` one that changes what it captures: its own copies, where the
/// loop a chain becomes would change the variables) or a function's path.
fn func(e: &Expr) -> Option<Func> {
    match super::expr::peel(e) {
        Expr::Closure(c)
            if c.inputs.len() <= 2
                && !(c.capture.is_some() && super::closure::writes(c, false)) =>
        {
            Some(Func::Closure(c.clone()))
        }
        Expr::Path(_) => Some(Func::Path(e.clone())),
        _ => None,
    }
}

/// The methods an iterator chain goes through from its collection to its consumer.
pub(crate) const CHAIN_METHODS: &[&str] = &[
    "iter",
    "into_iter",
    "windows",
    "chunks",
    "chunks_exact",
    "rev",
    "skip",
    "take",
    "step_by",
    "enumerate",
    "copied",
    "cloned",
    "zip",
    "map",
    "filter",
    "take_while",
    "filter_map",
    "skip_while",
];

/// Whether a call of `method` with `args` arguments besides the receiver, kept as a call
/// (a closure argument keeps an adapter's call as written), is of the crate's own method
/// named like an adapter (`Biquad::filter(&self, x: &[f64]) -> Vec<f64>`), not of an
/// iterator's: the crate defines such a method, taking arguments, whose result may carry
/// a derivative.
pub(crate) fn is_users_adapter_named(method: &syn::Ident, args: usize) -> bool {
    args > 0 && is_chain_method(method) && crate::source::defines_carrying_method(method, args)
}

/// Whether `m` calls the crate's method named like an adapter
/// ([`is_users_adapter_named`]): `g.filter(x)` of `Biquad::filter(&self, x: &[f64])`, given
/// no closure, on a value no adapter made.
pub(crate) fn is_users_method_call(m: &syn::ExprMethodCall) -> bool {
    is_users_adapter_named(&m.method, m.args.len())
        && !m.args.iter().any(|a| matches!(peeled(a), Expr::Closure(_)))
        && !matches!(peeled(&m.receiver), Expr::MethodCall(_))
}

/// Whether `method` is one of [`CHAIN_METHODS`] (an iterator or an adapter of one).
pub(crate) fn is_chain_method(method: &syn::Ident) -> bool {
    CHAIN_METHODS.iter().any(|m| method == m)
}

/// Iterator methods of the standard library that a chain is not differentiated through.
const NOT_DIFFERENTIATED: &[&str] = &[
    "scan",
    "map_while",
    "flat_map",
    "flatten",
    "chain",
    "inspect",
    "peekable",
    "cycle",
    "reduce",
    "find_map",
    "nth",
    "min_by_key",
    "max_by_key",
    "partition",
    "try_fold",
];

/// Methods of an iterator selecting one of its items ([`Chain::select`]).
pub(crate) const SELECTIONS: &[&str] = &["min_by", "max_by", "min_by_key", "max_by_key"];

/// How [`undifferentiated_chain`] begins what it calls a chain, by which `check.rs`
/// knows it carries its own advice.
pub(crate) const UNDIFFERENTIATED_CHAIN: &str = "iterator chain, through";

/// For an iterator chain going through a method it is not differentiated through
/// (`xs.iter().scan(..)`), what to call it in a diagnostic, with what to write instead.
pub(crate) fn undifferentiated_chain(e: &Expr) -> Option<String> {
    let mut e = e;
    let mut unknown = None;
    // The adapters after the method at hand (outer ones), nearest last.
    let mut after: Vec<String> = Vec::new();
    while let Expr::MethodCall(m) = e {
        let name = m.method.to_string();
        if let Some(message) = numbered_anew(&name, &after) {
            return Some(message);
        }
        if let Some(message) = zip_of_adapted(m) {
            return Some(message);
        }
        after.push(name.clone());
        let selection = SELECTIONS.contains(&name.as_str());
        let found = name == "find" || name == "last";
        if NOT_DIFFERENTIATED.contains(&name.as_str()) || found || selection {
            unknown = Some(name);
        } else if ["iter", "into_iter", "windows", "chunks"].contains(&name.as_str()) {
            let unknown = unknown?;
            if unknown == "find" || unknown == "last" {
                // (Lowered as a loop unless its items are references: `Chain::found`.)
                let call = if unknown == "find" {
                    ".find(..)"
                } else {
                    ".last()"
                };
                return Some(format!(
                    "{UNDIFFERENTIATED_CHAIN} `{call}` of references kept as an `Option`: an `Option` holding a reference (`Option<&T>`, `Option<(usize, &T)>`) carries no derivative; match or unwrap it where it is made (`match xs.iter(){call} {{ Some(v) => .., None => .. }}`, `xs.iter(){call}.unwrap()`) or through a variable read once, or write `{call}.copied()`, or `.copied()` right after `.iter()` so that the items are values"
                ));
            }
            if SELECTIONS.contains(&unknown.as_str()) {
                // (Lowered as a loop unless kept as an `Option` of references.)
                return Some(format!(
                    "{UNDIFFERENTIATED_CHAIN} `.{unknown}(..)` kept as an `Option` of a reference: a selection is differentiated unwrapped (`.{unknown}(..).unwrap()`), mapped where it is made (`.{unknown}(..).map(|m| ..)`) or through a variable read once, or as an `Option` of a value; write `.{unknown}(..).copied()` or `.copied().{unknown}(..)`, or a `for` loop"
                ));
            }
            return Some(format!(
                "{UNDIFFERENTIATED_CHAIN} `.{unknown}(..)`, which is not differentiated (these are: `{}`, and `sum`, `product`, `fold`, `collect`, `min_by`, `max_by`, `find`, `last`); write it as a `for` loop",
                CHAIN_METHODS.join("`, `")
            ));
        }
        e = &m.receiver;
    }
    None
}

/// The diagnostic for `.zip(ys)` where `ys` is an iterator adapted otherwise than by
/// `iter`, `into_iter`, `copied`, `cloned` or `zip` (`x.iter().step_by(2)`,
/// `y.iter().map(f)`), which the lowering does not read element by element.
fn zip_of_adapted(m: &syn::ExprMethodCall) -> Option<String> {
    if m.method != "zip" {
        return None;
    }
    let Some(Expr::MethodCall(arg)) = m.args.first().map(super::expr::peel) else {
        return None;
    };
    let adapter = arg.method.to_string();
    if ["iter", "into_iter", "copied", "cloned", "zip"].contains(&adapter.as_str()) {
        return None;
    }
    Some(format!(
        "{UNDIFFERENTIATED_CHAIN} `.zip(..)` of an iterator adapted by `.{adapter}(..)`, which is not differentiated: zip a collection (`ys`, `&ys[a..b]`, `ys.iter()`) and adapt the pairs after the zip, or write the pairs by index (`(0..n).map(|k| xs[k] * ys[2 * k])`), or a `for` loop"
    ))
}

/// For the adapter `name` of a chain followed by the adapters `after` (nearest last), the
/// diagnostic when one of those counts items that `name` has numbered anew: the index
/// loop a chain becomes numbers the collection's items, not the ones a `filter` kept
/// (`filter(p).enumerate()`), and a `take_while` ends at an item counted before any
/// `skip` or `step_by` after it.
fn numbered_anew(name: &str, after: &[String]) -> Option<String> {
    let (counting, allowed): (&[&str], &str) = match name {
        "filter" | "filter_map" | "skip_while" => (
            &["zip", "rev", "skip", "take", "step_by"],
            "`map`, `filter`, `filter_map`, `skip_while`, `take_while`, `enumerate` and `copied`",
        ),
        "take_while" => (
            &["skip", "step_by"],
            "`map`, `filter`, `filter_map`, `enumerate`, `zip`, `copied` and `take`",
        ),
        _ => return None,
    };
    let counter = after
        .iter()
        .rev()
        .find(|a| counting.contains(&a.as_str()))?;
    Some(format!(
        "{UNDIFFERENTIATED_CHAIN} `.{counter}(..)` after `.{name}(..)`, which is not differentiated (a `{name}` may be followed by {allowed}); write it as a `for` loop, with a counter of the items kept"
    ))
}

/// `e`, an iterator chain consumed here into an owned value (`f(x).iter().map(g).sum()`,
/// or the loop `for .. in f(x).iter()` when `in_loop`), whose collection is the result of
/// a call: that call, and the chain reading `__diff_collection` instead, to bind it to
/// first (`{ let __diff_collection = f(x); __diff_collection.iter().map(g).sum() }`), as
/// a chain reads its collection at each index. `None` for other expressions.
pub(crate) fn hoisted_root(e: &Expr, in_loop: bool) -> Option<(Expr, Expr)> {
    const CONSUMERS: &[&str] = &["sum", "product", "fold", "collect", "count", "any", "all"];
    let Expr::MethodCall(outer) = e else {
        return None;
    };
    let name = outer.method.to_string();
    if !(CONSUMERS.contains(&name.as_str()) || in_loop && CHAIN_METHODS.contains(&name.as_str())) {
        return None;
    }
    let mut chain = e.clone();
    let root = take_root(&mut chain, true)?;
    Some((root, chain))
}

/// The collection of the chain `e` when it is a call's result, replaced in `e` by
/// `__diff_collection`.
fn take_root(e: &mut Expr, outermost: bool) -> Option<Expr> {
    let Expr::MethodCall(m) = e else {
        return None;
    };
    let name = m.method.to_string();
    if !outermost && !CHAIN_METHODS.contains(&name.as_str()) {
        return None;
    }
    let starts = matches!(
        name.as_str(),
        "iter" | "into_iter" | "windows" | "chunks" | "chunks_exact"
    );
    let of_a_call = match &*m.receiver {
        Expr::Call(_) => true,
        Expr::Macro(v) => v.mac.path.is_ident("vec"),
        Expr::MethodCall(r) => !CHAIN_METHODS.contains(&r.method.to_string().as_str()),
        _ => false,
    };
    if starts && of_a_call {
        return Some(std::mem::replace(
            &mut *m.receiver,
            parse_quote!(__diff_collection),
        ));
    }
    take_root(&mut m.receiver, false)
}

/// Whether a segment of `path` has generic arguments (`f::<f64>`).
fn has_generics(path: &syn::Path) -> bool {
    path.segments.iter().any(|s| !s.arguments.is_none())
}

/// Parses `e` as a chain over a collection; `None` when it is not one.
pub(crate) fn parse_chain(e: &Expr) -> Option<Chain> {
    let mut adapters = Vec::new();
    let mut cur = e;
    loop {
        // `(xs.iter().filter(p)).max_by(cmp)`: the parentheses change nothing.
        if let Expr::Paren(p) = cur {
            cur = &p.expr;
            continue;
        }
        if let Expr::MethodCall(m) = cur {
            let args: Vec<Expr> = m.args.iter().cloned().collect();
            let name = m.method.to_string();
            if is_users_method_call(m) {
                break;
            }
            let adapter = match (name.as_str(), args.len()) {
                ("rev", 0) | ("skip", 1) | ("take", 1) | ("step_by", 1) => {
                    Some(Adapter::Index(m.method.clone(), args))
                }
                ("enumerate", 0) => Some(Adapter::Enumerate),
                ("copied", 0) | ("cloned", 0) => Some(Adapter::Copied),
                ("zip", 1) => {
                    let (b, inner) = zipped_chain(&args[0])?;
                    Some(Adapter::Zip(Box::new(b), inner))
                }
                ("map", 1) => Some(Adapter::Map(func(&args[0])?)),
                ("filter", 1) => Some(Adapter::Filter(func(&args[0])?)),
                ("take_while", 1) => Some(Adapter::TakeWhile(func(&args[0])?)),
                ("filter_map", 1) => Some(Adapter::FilterMap(func(&args[0])?)),
                ("skip_while", 1) => Some(Adapter::SkipWhile(func(&args[0])?)),
                _ => None,
            };
            if let Some(a) = adapter {
                adapters.push(a);
                cur = &m.receiver;
                continue;
            }
        }
        break;
    }
    let mut base = base(cur)?;
    // The rewritten loop reads a collection given by an index (`m[i]`, `xs[a..b]`) at
    // each item: a closure changing a variable (`map(|x| { i += 1; x })`) could change
    // what it reads, where the iterator read it once. Not rewritten.
    let indexed = matches!(peeled(cur), Expr::Index(_))
        || matches!(peeled(cur), Expr::MethodCall(m) if matches!(peeled(&m.receiver), Expr::Index(_)))
        || matches!(peeled(cur), Expr::Reference(r) if matches!(peeled(&r.expr), Expr::Index(_)));
    if indexed && adapters.iter().any(Adapter::changes_a_variable) {
        return None;
    }
    // A `move` closure works on its own copies of what it captures, the rewritten loop on
    // the variables: one changing them, or reading what another closure changes, is not
    // rewritten.
    if adapters.iter().any(Adapter::moves) && adapters.iter().any(Adapter::changes_a_variable) {
        return None;
    }
    // A range is a chain to rewrite only when it maps the indices to values, and is
    // zipped with nothing (whose items are indexed from 0).
    if base.range
        && (!adapters.iter().any(|a| matches!(a, Adapter::Map(_)))
            || adapters.iter().any(|a| matches!(a, Adapter::Zip(..))))
    {
        return None;
    }
    // A plain variable with no adapter is not a chain worth rewriting unless iterated.
    adapters.reverse();
    // After a filter (or a `filter_map`, a `skip_while`) the items are renumbered, which
    // the adapters of the index iterator (`skip`, `zip`, ..) would not see: only maps,
    // filters and `enumerate` (which then counts the items kept) may follow.
    let filtered = adapters.iter().position(|a| {
        matches!(
            a,
            Adapter::Filter(_) | Adapter::FilterMap(_) | Adapter::SkipWhile(_)
        )
    });
    if filtered.is_some_and(|k| {
        adapters[k..].iter().any(|a| {
            !matches!(
                a,
                Adapter::Filter(_)
                    | Adapter::FilterMap(_)
                    | Adapter::SkipWhile(_)
                    | Adapter::Map(_)
                    | Adapter::Copied
                    | Adapter::TakeWhile(_)
                    | Adapter::Enumerate
            )
        })
    }) {
        return None;
    }
    // A `take_while` ends the items where its test first fails, counted before any
    // adapter after it: one that drops or reorders indices (`skip`, `step_by`) would move
    // where that is (`take` only shortens).
    let stops = adapters
        .iter()
        .position(|a| matches!(a, Adapter::TakeWhile(_)));
    if stops.is_some_and(|k| {
        adapters[k..]
            .iter()
            .any(|a| matches!(a, Adapter::Index(m, _) if m != "take"))
    }) {
        return None;
    }
    // The index iterator's adapters number the collection's items, and a zipped
    // collection's items from 0: one that renumbers before a `zip` would pair the wrong
    // items. Leading `skip`s become the collection's offset (`t.iter().skip(1).zip(y)`
    // pairs `t[i + 1]` with `y[i]`); `rev`, `step_by` or another `skip` before a zip is
    // not rewritten (`take` only shortens).
    let leading = adapters
        .iter()
        .take_while(|a| matches!(a, Adapter::Index(m, _) if m == "skip"))
        .count();
    if let Some(last_zip) = adapters.iter().rposition(|a| matches!(a, Adapter::Zip(..))) {
        // (After a renumbering, a zipped collection is read at the item's position: not
        // a range of numbers or a cycle, whose items the position does not count.)
        let renumbers = |a: &Adapter| matches!(a, Adapter::Index(m, _) if m != "take");
        if let Some(first) = adapters[leading..].iter().position(renumbers) {
            let later_zips = adapters[leading + first..=last_zip].iter();
            if later_zips
                .into_iter()
                .any(|a| matches!(a, Adapter::Zip(b, _) if b.range || b.cycled))
            {
                return None;
            }
        }
        if leading > 0 {
            if base.offset.is_some() || base.range || base.window.is_some() {
                return None;
            }
            let skips: Vec<Expr> = adapters
                .drain(..leading)
                .map(|a| match a {
                    Adapter::Index(_, mut args) => args.remove(0),
                    _ => unreachable!("taken while skips"),
                })
                .collect();
            base.offset = Some(match &skips[..] {
                [k] => k.clone(),
                _ => parse_quote!(0 #(+ (#skips))*),
            });
        }
    }
    Some(Chain { base, adapters })
}

fn element(b: &Base, i: &syn::Ident) -> Expr {
    if b.range {
        return parse_quote!(#i);
    }
    let xs = &b.expr;
    if let Some((kind, k)) = &b.window {
        let part: Expr = if kind == "windows" {
            parse_quote!(#i..#i + (#k))
        } else {
            parse_quote!(#i * (#k)..((#i + 1) * (#k)).min(#xs.len()))
        };
        return parse_quote!(::diff::__private::sub_slice(&#xs, #part));
    }
    let at: Expr = match &b.offset {
        _ if b.reversed => parse_quote!(#xs.len() - 1 - #i),
        Some(k) if b.cycled => parse_quote!((#i + (#k)) % #xs.len()),
        None if b.cycled => parse_quote!(#i % #xs.len()),
        Some(k) => parse_quote!(#i + (#k)),
        None => parse_quote!(#i),
    };
    if b.by_ref && !b.copied {
        parse_quote!(&#xs[#at])
    } else {
        parse_quote!(#xs[#at])
    }
}

/// The item a search over a chain keeps ([`Chain::found`]).
enum Wanted {
    /// The first the test accepts (`find(p)`).
    First(Func),
    /// The last (`last()`).
    Last,
    /// The one at this position (`nth(k)`, `next()`).
    Nth(Expr),
}

/// An item with the references of its tuples dropped (`(i, &xs[i])` as `(i, xs[i])`).
fn dereferenced(e: &Expr) -> Expr {
    match e {
        Expr::Reference(r) => (*r.expr).clone(),
        Expr::Tuple(t) => {
            let elems = t.elems.iter().map(dereferenced);
            parse_quote!((#(#elems,)*))
        }
        e => e.clone(),
    }
}

/// `base`, a copy of an item shaped like `item` with its references dropped
/// ([`dereferenced`]), as the item: `&base` for a reference, `(base.0, &base.1)` for `(i,
/// &xs[i])`, at any depth.
pub(crate) fn referenced_like(item: &Expr, base: Expr) -> Expr {
    match item {
        Expr::Reference(_) => parse_quote!(&#base),
        Expr::Tuple(t) => {
            let elems = t.elems.iter().enumerate().map(|(k, e)| {
                let k = syn::Index::from(k);
                referenced_like(e, parse_quote!(#base.#k))
            });
            parse_quote!((#(#elems,)*))
        }
        _ => base,
    }
}

/// Whether a tuple item holds a reference, at any depth (`(i, &x[i])`).
fn holds_reference(t: &syn::ExprTuple) -> bool {
    t.elems.iter().any(|e| match e {
        Expr::Reference(_) => true,
        Expr::Tuple(t) => holds_reference(t),
        _ => false,
    })
}

/// `(a..b).fold(init, f)` (also through `.rev()`, `.skip(k)`, `.take(k)`,
/// `.step_by(k)`), or a fold, or a typed sum or product, of a parameter of a generic type
/// iterated as it is, through maps (`coefficients.into_iter().fold(..)`,
/// `ws.into_iter().map(|w| w * x).sum::<f64>()` with `ws: I`, `iterable(name)`): a
/// `for` loop over the items updating the accumulator, which carries the derivative
/// (puruspe's `(k..k + l).fold(1.0, |acc, i| acc * (z + i as f64))`). A range is a chain
/// of its own only when mapped to values ([`parse_chain`]), and such a parameter cannot
/// be indexed as a chain's collection is.
pub(crate) fn fold_by_loop(
    m: &syn::ExprMethodCall,
    iterable: impl Fn(&syn::Ident) -> bool,
) -> Option<Expr> {
    let reduction = match (m.method.to_string().as_str(), m.args.len()) {
        ("fold", 2) | ("sum", 0) | ("product", 0) => m.method.to_string(),
        _ => return None,
    };
    let mut cur = peeled(&m.receiver);
    let mut through_iter = false;
    // The maps of the items (`.map(|w| w * x)`), outermost first.
    let mut maps = Vec::new();
    // Where the loop's iterator ends: inside the maps, which are outermost (an adapter
    // after a map would be left out of the loop).
    let mut items = &*m.receiver;
    let mut adapted = false;
    while let Expr::MethodCall(r) = cur {
        match (r.method.to_string().as_str(), r.args.len()) {
            ("map", 1) if !adapted => {
                maps.push(func(&r.args[0])?);
                items = &r.receiver;
            }
            ("rev", 0) | ("skip", 1) | ("take", 1) | ("step_by", 1) if maps.is_empty() => {
                adapted = true
            }
            ("into_iter", 0) | ("iter", 0) | ("copied", 0) | ("cloned", 0) if maps.is_empty() => {
                adapted = true;
                through_iter = true
            }
            ("into_iter", 0) | ("copied", 0) => {
                adapted = true;
                through_iter = true
            }
            _ => return None,
        }
        cur = peeled(&r.receiver);
    }
    let of_iterable = matches!(cur, Expr::Path(p) if p.path.get_ident().is_some_and(&iterable));
    let of_range = matches!(cur, Expr::Range(_)) && !through_iter && maps.is_empty();
    if !(of_range && reduction == "fold" || of_iterable) {
        return None;
    }
    let acc: syn::Ident = parse_quote!(__diff_acc);
    let index: syn::Ident = parse_quote!(__diff_index);
    let item = maps
        .iter()
        .rev()
        .fold(parse_quote!(#index), |item: Expr, f| apply(f, item));
    let (init, step): (Expr, Expr) = match reduction.as_str() {
        "fold" => (
            m.args[0].clone(),
            fold_step(func(&m.args[1])?, &acc, &item)?,
        ),
        // The sum's type from its turbofish (`.sum::<f64>()`, also given from a typed
        // `let` or the function's result): without it, not rewritten.
        sum => {
            let Some(syn::GenericArgument::Type(t)) = m.turbofish.as_ref()?.args.first() else {
                return None;
            };
            if sum == "sum" {
                let float = matches!(t, syn::Type::Path(p)
                    if p.qself.is_none() && (p.path.is_ident("f64") || p.path.is_ident("f32")));
                let minus = float.then(|| quote::quote!(-));
                (
                    parse_quote!(#minus <#t as ::diff::__private::num_traits::Zero>::zero()),
                    parse_quote!(#acc + #item),
                )
            } else {
                (
                    parse_quote!(<#t as ::diff::__private::num_traits::One>::one()),
                    parse_quote!(#acc * #item),
                )
            }
        }
    };
    Some(parse_quote!({
        let mut #acc = #init;
        for #index in #items {
            #acc = #step;
        }
        #acc
    }))
}

/// `f(acc, item)` for a folding function: a closure of two arguments or a path; `None`
/// for a closure of another arity.
fn fold_step(f: Func, acc: &syn::Ident, item: &Expr) -> Option<Expr> {
    match f {
        Func::Closure(c) if c.inputs.len() == 2 => {
            let (a, x, body) = (&c.inputs[0], &c.inputs[1], tail(&c.body));
            Some(parse_quote!({ let #a = #acc; let #x = #item; #body }))
        }
        Func::Path(p) => Some(parse_quote!(#p(#acc, #item))),
        Func::Closure(_) => None,
    }
}

/// A closure's body as the tail of a block: in parentheses unless it is a block (`{ a }
/// as i64` would end the block's statement at `}`).
fn tail(body: &Expr) -> Expr {
    match body {
        Expr::Block(_) => body.clone(),
        _ => parse_quote!((#body)),
    }
}

fn apply(f: &Func, item: Expr) -> Expr {
    match f {
        Func::Closure(c) if c.inputs.len() == 1 => {
            let pat = &c.inputs[0];
            let body = tail(&c.body);
            if let Some(part) = projection(pat, &item, &body) {
                return part;
            }
            parse_quote!({ let #pat = #item; #body })
        }
        // Not the one parameter an adapter passes: called as written, so that rustc
        // reports the mismatch at the closure.
        Func::Closure(c) => parse_quote!((#c)(#item)),
        Func::Path(p) => parse_quote!(#p(#item)),
    }
}

/// For a closure that gives back a part of its item (`|(p, _)| p` of `(&xs[i], &ys[i])`),
/// that part itself (`&xs[i]`), so that a search over the mapped items sees a reference
/// where Rust has one; the parts left out only read elements (nothing is skipped that
/// would do something). `None` for other closures.
fn projection(pat: &syn::Pat, item: &Expr, body: &Expr) -> Option<Expr> {
    let Expr::Path(name) = peeled(body) else {
        return None;
    };
    let name = name.path.get_ident()?;
    fn pure(e: &Expr) -> bool {
        match e {
            Expr::Path(_) | Expr::Lit(_) => true,
            Expr::Reference(r) => pure(&r.expr),
            Expr::Index(ix) => pure(&ix.expr) && pure(&ix.index),
            Expr::Field(f) => pure(&f.base),
            Expr::Paren(p) => pure(&p.expr),
            Expr::Tuple(t) => t.elems.iter().all(pure),
            Expr::Binary(b) => {
                matches!(b.op, syn::BinOp::Add(_) | syn::BinOp::Sub(_))
                    && pure(&b.left)
                    && pure(&b.right)
            }
            _ => false,
        }
    }
    fn find(pat: &syn::Pat, item: &Expr, name: &syn::Ident) -> Option<Expr> {
        match (pat, peeled(item)) {
            (syn::Pat::Ident(p), _) if p.by_ref.is_none() && p.subpat.is_none() => {
                (p.ident == *name).then(|| item.clone())
            }
            (syn::Pat::Paren(p), _) => find(&p.pat, item, name),
            (syn::Pat::Reference(p), Expr::Reference(r)) if p.mutability.is_none() => {
                find(&p.pat, &r.expr, name)
            }
            (syn::Pat::Tuple(p), Expr::Tuple(t)) if p.elems.len() == t.elems.len() => p
                .elems
                .iter()
                .zip(&t.elems)
                .find_map(|(p, e)| find(p, e, name)),
            _ => None,
        }
    }
    pure(item).then(|| find(pat, item, name)).flatten()
}

/// `p(&item)`, the test of `filter(p)`.
fn test(p: &Func, item: &Expr) -> Expr {
    apply(p, parse_quote!(&#item))
}

impl Chain {
    /// Marks the collections named by a variable holding a reference (`ys` of a parameter
    /// `ys: &[f64]`) as iterated by reference: their items are `&ys[i]`, as `ys.into_iter()`
    /// yields references.
    pub(crate) fn mark_references(&mut self, is_reference: impl Fn(&str) -> bool) {
        let zips = self.adapters.iter_mut().flat_map(|a| match a {
            Adapter::Zip(b, inner) => std::iter::once(&mut **b).chain(inner.iter_mut()).collect(),
            _ => Vec::new(),
        });
        for b in std::iter::once(&mut self.base).chain(zips) {
            if b.by_ref || b.range || b.window.is_some() {
                continue;
            }
            if let Expr::Path(p) = &b.expr {
                if p.path
                    .get_ident()
                    .is_some_and(|i| is_reference(&i.to_string()))
                {
                    b.by_ref = true;
                }
            }
        }
    }

    /// `(index pattern, index iterator, item expression, what decides whether the loop
    /// goes on with the item)`.
    fn parts(&self) -> (syn::Pat, Expr, Expr, Vec<Guard>) {
        self.parts_binding(true)
    }

    /// [`Chain::parts`]; unless `bind`, an item of a `filter_map` is a closed expression
    /// (`f(item).unwrap()`, kept where `f(item).is_some()`) rather than a name bound by
    /// its guard, for code that reads the item at an index again (a selection).
    fn parts_binding(&self, bind: bool) -> (syn::Pat, Expr, Expr, Vec<Guard>) {
        let i: syn::Ident = parse_quote!(__diff_i);
        let p: syn::Ident = parse_quote!(__diff_p);
        // (A range of indices has no length to take: its root is replaced below.)
        let mut len: Expr = if self.base.range {
            parse_quote!(0)
        } else {
            items(&self.base)
        };
        let mut item = element(&self.base, &i);
        let mut index: Expr = parse_quote!((0..#len));
        // The index iterator's items: the index, paired with a position by each
        // `enumerate` (`(p1, (p0, i))` after two).
        let mut pat: syn::Pat = parse_quote!(#i);
        let mut guards = Vec::new();
        // Once an adapter renumbers the items (`rev`, `skip`, `step_by`), a zipped
        // collection is read at the item's position, counted by an `enumerate` of the
        // index iterator shortened to the zipped collection's items.
        let mut renumbered = false;
        for a in &self.adapters {
            match a {
                Adapter::Index(m, args) => {
                    renumbered |= m != "take";
                    index = parse_quote!(#index.#m(#(#args),*));
                }
                Adapter::Zip(b, inner) if renumbered && !b.range && !b.cycled => {
                    let at = quote::format_ident!("{}{}", p, pat_depth(&pat));
                    let (n, e) = zipped_item(items(b), b, inner, &at);
                    index = parse_quote!(#index.take(#n).enumerate());
                    pat = parse_quote!((#at, #pat));
                    item = parse_quote!((#item, #e));
                }
                Adapter::Zip(..) if renumbered => {
                    unreachable!("a renumbered zip of a range or a cycle is not a chain")
                }
                Adapter::Enumerate if guards.iter().any(Guard::drops_items) => {
                    let count = quote::format_ident!("__diff_count{}", guards.len());
                    let at = quote::format_ident!("__diff_at{}", guards.len());
                    guards.push(Guard::Count(count, at.clone()));
                    item = parse_quote!((#at, #item));
                }
                Adapter::Enumerate => {
                    let p = quote::format_ident!("{}{}", p, pat_depth(&pat));
                    index = parse_quote!(#index.enumerate());
                    item = parse_quote!((#p, #item));
                    pat = parse_quote!((#p, #pat));
                }
                Adapter::Zip(b, _) if b.range => {
                    // A range of numbers zipped (`xs.iter().zip(1..)`): its `i`-th item is
                    // `start + i`, and it ends the pairs where it ends.
                    let Expr::Range(r) = peeled(&b.expr) else {
                        unreachable!("a range base is a range")
                    };
                    let start: Expr = match &r.start {
                        Some(a) => (**a).clone(),
                        None => parse_quote!(0),
                    };
                    if let Some(end) = &r.end {
                        let past: Expr = match r.limits {
                            syn::RangeLimits::HalfOpen(_) => (**end).clone(),
                            syn::RangeLimits::Closed(_) => parse_quote!((#end) + 1),
                        };
                        len = parse_quote!(#len.min(((#past) as usize).saturating_sub((#start) as usize)));
                    }
                    item = parse_quote!((#item, (#start) + #i));
                }
                Adapter::Zip(b, inner) => {
                    let (n, e) = zipped_item(zipped_len(len, b), b, inner, &i);
                    len = n;
                    item = parse_quote!((#item, #e));
                }
                Adapter::Copied => {
                    if let Expr::Reference(r) = &item {
                        item = (*r.expr).clone();
                    }
                }
                Adapter::Map(f) => item = apply(f, item),
                Adapter::Filter(p) => guards.push(Guard::Keep(test(p, &item))),
                Adapter::TakeWhile(p) => guards.push(Guard::While(test(p, &item))),
                Adapter::FilterMap(f) if bind => {
                    let k = quote::format_ident!("__diff_some{}", guards.len());
                    guards.push(Guard::Some(k.clone(), apply(f, item)));
                    item = parse_quote!(#k);
                }
                Adapter::FilterMap(f) => {
                    let some = apply(f, item);
                    guards.push(Guard::Keep(parse_quote!((#some).is_some())));
                    item = parse_quote!((#some).unwrap());
                }
                Adapter::SkipWhile(p) => {
                    let flag = quote::format_ident!("__diff_skipping{}", guards.len());
                    guards.push(Guard::Skip(flag, test(p, &item)));
                }
            }
        }
        // The zip length only becomes known at the end: rebuild the range with it (a
        // range of indices is its own).
        let index = if self.base.range {
            let range = &self.base.expr;
            replace_root(index, &parse_quote!((#range)))
        } else {
            replace_len(index, &len)
        };
        (pat, index, item, guards)
    }

    /// Whether the chain filters its items or ends them early (`filter`, `take_while`,
    /// `filter_map`):
    /// its loop does not go on with every item.
    fn filters(&self) -> bool {
        self.adapters.iter().any(|a| {
            matches!(
                a,
                Adapter::Filter(_)
                    | Adapter::TakeWhile(_)
                    | Adapter::FilterMap(_)
                    | Adapter::SkipWhile(_)
            )
        })
    }

    /// What the loop of the chain needs declared before it: the flag of each
    /// `skip_while`.
    fn prelude(guards: &[Guard]) -> proc_macro2::TokenStream {
        let flags = guards.iter().filter_map(|g| match g {
            Guard::Skip(flag, _) => Some(flag),
            _ => None,
        });
        let counts = guards.iter().filter_map(|g| match g {
            Guard::Count(count, _) => Some(count),
            _ => None,
        });
        quote::quote!(#(let mut #flags = true;)* #(let mut #counts = 0usize;)*)
    }

    /// The chain's loop over its indices: its prelude, then `for ipat in index` doing
    /// `each` (what the loop does with an item) behind the guards, in order: inside
    /// `if test { .. }` for a `filter`, after `if !test { break; }` for a `take_while`.
    fn index_loop(
        ipat: &syn::Pat,
        index: &Expr,
        guards: &[Guard],
        each: proc_macro2::TokenStream,
    ) -> proc_macro2::TokenStream {
        let prelude = Self::prelude(guards);
        let body = Self::guarded(guards, each, quote::quote!(break;));
        quote::quote!(#prelude for #ipat in #index { #body })
    }

    /// `each` behind the guards, `stop` where a `take_while` ends the items.
    fn guarded(
        guards: &[Guard],
        each: proc_macro2::TokenStream,
        stop: proc_macro2::TokenStream,
    ) -> proc_macro2::TokenStream {
        guards.iter().rev().fold(each, |inner, g| match g {
            Guard::Keep(t) => quote::quote!(if #t { #inner }),
            Guard::While(t) => quote::quote!(if !(#t) { #stop } else { #inner }),
            // (`Some` as the lowering knows it in a pattern.)
            Guard::Some(k, e) => quote::quote!(if let Some(#k) = #e { #inner }),
            Guard::Skip(flag, t) => quote::quote!(if !(#flag && #t) { #flag = false; #inner }),
            Guard::Count(count, at) => quote::quote!(let #at = #count; #count += 1; #inner),
        })
    }

    /// `for pat in chain { body }` as an index loop (in a block after its prelude, if
    /// any).
    pub(crate) fn for_loop(&self, f: &syn::ExprForLoop) -> Expr {
        let (ipat, index, item, guards) = self.parts();
        let (pat, stmts) = (&f.pat, &f.body.stmts);
        // `for | x in ..` / `for A | B in ..`: a `let` takes an or-pattern in parentheses.
        let pat = match &**pat {
            syn::Pat::Or(_) => quote::quote!((#pat)),
            _ => quote::quote!(#pat),
        };
        let looped = Self::index_loop(
            &ipat,
            &index,
            &guards,
            quote::quote!(let #pat = #item; #(#stmts)*),
        );
        if Self::prelude(&guards).is_empty() {
            parse_quote!(#looped)
        } else {
            parse_quote!({ #looped })
        }
    }

    /// `chain.sum()` / `.product()` / `.fold(init, f)` as a loop, `.collect()` (into a
    /// `Vec`) as a loop pushing the items; `None` for other methods.
    pub(crate) fn reduce(&self, method: &syn::ExprMethodCall) -> Option<Expr> {
        let (ipat, index, item, guards) = self.parts();
        if method.method == "collect" && method.args.is_empty() {
            let into_vec = match &method.turbofish {
                None => true,
                Some(tf) => matches!(
                    tf.args.first(),
                    Some(syn::GenericArgument::Type(syn::Type::Path(p)))
                        if p.path.segments.last().is_some_and(|s| s.ident == "Vec")
                ),
            };
            if !into_vec {
                return None;
            }
            let out: syn::Ident = parse_quote!(__diff_collected);
            let looped = Self::index_loop(&ipat, &index, &guards, quote::quote!(#out.push(#item);));
            return Some(parse_quote!({
                let mut #out = ::std::vec::Vec::new();
                #looped
                #out
            }));
        }
        let xs = &self.base.expr;
        let acc: syn::Ident = parse_quote!(__diff_acc);
        let (init, step): (Expr, Expr) =
            match (method.method.to_string().as_str(), method.args.len()) {
                ("sum", 0) => (
                    self.neutral(method, &parse_quote!(zero), xs),
                    parse_quote!(#acc + #item),
                ),
                ("product", 0) => (
                    self.neutral(method, &parse_quote!(one), xs),
                    parse_quote!(#acc * #item),
                ),
                ("fold", 2) => {
                    // (A `move` closure reads its copies, which adapters changing
                    // variables would not change.)
                    let moves =
                        matches!(peeled(&method.args[1]), Expr::Closure(c) if c.capture.is_some());
                    if moves && self.adapters.iter().any(Adapter::changes_a_variable) {
                        return None;
                    }
                    let init = method.args[0].clone();
                    (init, fold_step(func(&method.args[1])?, &acc, &item)?)
                }
                _ => return None,
            };
        let looped = Self::index_loop(&ipat, &index, &guards, quote::quote!(#acc = #step;));
        Some(parse_quote!({
            let mut #acc = #init;
            #looped
            #acc
        }))
    }

    /// `v.extend(chain)` as a loop pushing the items (by copy where the chain yields
    /// references, as `Extend<&T>` does).
    pub(crate) fn extend_into(&self, v: &Expr) -> Expr {
        let (ipat, index, item, guards) = self.parts();
        let item = match item {
            Expr::Reference(r) => *r.expr,
            item => item,
        };
        let looped = Self::index_loop(&ipat, &index, &guards, quote::quote!(#v.push(#item);));
        parse_quote!({ #looped })
    }

    /// Whether the chain's items are references (`xs.iter()`, not `.copied()`).
    pub(crate) fn yields_references(&self) -> bool {
        matches!(self.parts().2, Expr::Reference(_))
    }

    /// The chain's item when it is a reference or a tuple holding one (`&xs[i]`, `(i,
    /// &xs[i])`): what a search over it keeps copied ([`Chain::found`]) is given back to the
    /// user's pattern through [`referenced_like`].
    pub(crate) fn item_with_references(&self) -> Option<Expr> {
        let item = self.parts().2;
        match &item {
            Expr::Reference(_) => Some(item),
            Expr::Tuple(t) if holds_reference(t) => Some(item),
            _ => None,
        }
    }

    /// `chain.min_by(cmp).unwrap()` (also `max_by`, `min_by_key`, `max_by_key`, and
    /// `.expect(msg)`) as a loop remembering where the selected item is (its index, which
    /// carries no derivative), then the item read there: the derivative flows to the
    /// selected element only. Ties pick as std does: the first minimum, the last maximum;
    /// items a `filter` drops are not candidates.
    /// With `copied`, the `Option` of a reference was copied before the unwrap
    /// (`xs.iter().min_by(..).copied().unwrap()`): the item read is the referent. Without
    /// `unwrap`, the selection is kept as an `Option` (`.max_by(cmp).unwrap_or(0.0)`,
    /// `.min_by(cmp).map(f)..`): `None` for no items, else the item read there (by value:
    /// an `Option` of a reference carries no derivative).
    /// `None` for other methods.
    pub(crate) fn select(
        &self,
        method: &syn::ExprMethodCall,
        unwrap: Option<&syn::ExprMethodCall>,
        copied: bool,
    ) -> Option<Expr> {
        if method.args.len() != 1 {
            return None;
        }
        let name = method.method.to_string();
        if name == "reduce" {
            return self.reduce_with(method, unwrap?);
        }
        let (x, y): (syn::Ident, syn::Ident) = (parse_quote!(__diff_x), parse_quote!(__diff_y));
        let ordering: Expr = match (name.as_str(), func(&method.args[0])?) {
            ("min_by" | "max_by", Func::Closure(c)) if c.inputs.len() == 2 => {
                let (a, b, body) = (&c.inputs[0], &c.inputs[1], tail(&c.body));
                parse_quote!({ let #a = &#x; let #b = &#y; #body })
            }
            ("min_by" | "max_by", Func::Path(p)) => parse_quote!(#p(&#x, &#y)),
            ("min_by_key" | "max_by_key", f) => {
                let (kx, ky) = (apply(&f, parse_quote!(&#x)), apply(&f, parse_quote!(&#y)));
                parse_quote!(::core::cmp::Ord::cmp(&#kx, &#ky))
            }
            _ => return None,
        };
        let better: Expr = if name.starts_with("min") {
            parse_quote!((#ordering) == ::core::cmp::Ordering::Less)
        } else {
            parse_quote!((#ordering) != ::core::cmp::Ordering::Less)
        };
        // (The selected item is read again at its index, outside the guards.)
        let (ipat, index, item, guards) = self.parts_binding(false);
        if guards.iter().any(|g| matches!(g, Guard::Count(..))) {
            // (A position counted in the loop is not known where the item is read again.)
            return None;
        }
        let prelude = Self::prelude(&guards);
        let best: syn::Ident = parse_quote!(__diff_best);
        let selected = match (&item, copied) {
            (Expr::Reference(r), true) => (*r.expr).clone(),
            (_, true) => return None,
            (Expr::Reference(_), false) if unwrap.is_none() => return None,
            (item, false) => item.clone(),
        };
        let at_best = match unwrap {
            Some(unwrap) => {
                let (unwrap_name, unwrap_args) = (&unwrap.method, &unwrap.args);
                quote::quote! { let #ipat = #best.#unwrap_name(#unwrap_args); #selected }
            }
            None => quote::quote! {
                match #best {
                    ::core::option::Option::Some(#ipat) => ::core::option::Option::Some(#selected),
                    ::core::option::Option::None => ::core::option::Option::None,
                }
            },
        };
        // The first index starts as the best (typed by the iterator, so that the
        // comparison's field accesses type-check), found if the filters keep it; each
        // item kept after it is compared with the best found (or is the first found).
        // Outside the loop, a `take_while` rejecting the first item ends the items by
        // skipping the loop.
        let first = Self::guarded(
            &guards,
            quote::quote!(__diff_found = true;),
            quote::quote!(__diff_rest_ends = true;),
        );
        let each = Self::guarded(
            &guards,
            quote::quote! {
                let __diff_better = match (__diff_found, #best) {
                    (true, ::core::option::Option::Some(__diff_at)) => {
                        let #x = #item;
                        let #ipat = __diff_at;
                        let #y = #item;
                        #better
                    }
                    _ => true,
                };
                if __diff_better {
                    #best = ::core::option::Option::Some(#ipat);
                    __diff_found = true;
                }
            },
            quote::quote!(break;),
        );
        Some(parse_quote!({
            let mut __diff_rest = #index;
            let mut #best = ::core::iter::Iterator::next(&mut __diff_rest);
            let mut __diff_found = false;
            let mut __diff_rest_ends = false;
            #prelude
            if let ::core::option::Option::Some(#ipat) = #best {
                #first
            }
            if !__diff_rest_ends {
                for #ipat in ::core::iter::IntoIterator::into_iter(__diff_rest) {
                    #each
                }
            }
            if !__diff_found {
                #best = ::core::option::Option::None;
            }
            #at_best
        }))
    }

    /// `chain.find(p)` as a loop stopping at the first item `p` accepts: `Some(item)`, or
    /// `None` when there is none. The derivative flows to the item found only. Items
    /// that are values only (`xs.iter().copied().find(p)`, or `copied` after the `find`
    /// when `copied`): an `Option` of a reference carries no derivative.
    pub(crate) fn find(&self, method: &syn::ExprMethodCall, copied: bool) -> Option<Expr> {
        if method.args.len() != 1 {
            return None;
        }
        let f = func(&method.args[0])?;
        self.found(Wanted::First(f), copied)
    }

    /// `chain.last()` as a loop over every item, keeping the last; `chain.nth(k)` (and
    /// `chain.next()`, the item at 0) as a loop stopping at the item at `k`: `Some(item)`,
    /// or `None` when there is none. Items that are values only, as for [`Chain::find`].
    pub(crate) fn at(&self, method: &syn::ExprMethodCall, copied: bool) -> Option<Expr> {
        let wanted = match (method.method.to_string().as_str(), method.args.len()) {
            ("last", 0) => Wanted::Last,
            ("next", 0) => Wanted::Nth(parse_quote!(0usize)),
            ("nth", 1) => Wanted::Nth(method.args[0].clone()),
            _ => return None,
        };
        self.found(wanted, copied)
    }

    /// The loop of [`Chain::find`] and [`Chain::at`].
    fn found(&self, wanted: Wanted, copied: bool) -> Option<Expr> {
        let x: syn::Ident = parse_quote!(__diff_x);
        let (ipat, index, item, guards) = self.parts();
        let test = |arg: Expr| match &wanted {
            Wanted::First(f) => Some(apply(f, arg)),
            Wanted::Last => None,
            Wanted::Nth(_) => Some(parse_quote!(__diff_passed == __diff_nth)),
        };
        let (item, test) = match item {
            Expr::Reference(r) if copied => {
                // `p` takes `&&T`, as it would before the `copied`.
                (*r.expr, test(parse_quote!(&&#x)))
            }
            Expr::Reference(_) => return None,
            // An `Option` of a tuple holding a reference (`(usize, &f64)`) carries no
            // derivative either: refused as `.find(..)` of references, unless copied (which
            // only the rewrite of a `match` on it asks for: `Option<(usize, &f64)>` has no
            // `copied`), which keeps `(i, xs[i])`.
            Expr::Tuple(t) if holds_reference(&t) && copied => {
                let item = Expr::Tuple(t);
                let given = referenced_like(&item, parse_quote!(#x));
                (dereferenced(&item), test(parse_quote!(&#given)))
            }
            Expr::Tuple(t) if holds_reference(&t) => return None,
            item => (item, test(parse_quote!(&#x))),
        };
        let found: syn::Ident = parse_quote!(__diff_found);
        let keep = quote::quote! { #found = ::diff::__private::some(#x); };
        let mut each = match test {
            Some(test) => quote::quote! { if #test { #keep break; } },
            None => keep,
        };
        // The items passed over, counted (`nth`).
        let counter = match &wanted {
            Wanted::Nth(k) => {
                each.extend(quote::quote! { __diff_passed += 1; });
                quote::quote! { let __diff_nth: usize = #k; let mut __diff_passed = 0usize; }
            }
            _ => quote::quote! {},
        };
        let looped = Self::index_loop(
            &ipat,
            &index,
            &guards,
            quote::quote! {
                let #x = #item;
                #each
            },
        );
        Some(parse_quote!({
            #counter
            let mut #found = ::core::option::Option::None;
            #looped
            #found
        }))
    }

    /// `chain.reduce(f).unwrap()` (or `.expect(msg)`): the first item, then `f` of the
    /// result so far and each following item, as a loop.
    fn reduce_with(
        &self,
        method: &syn::ExprMethodCall,
        unwrap: &syn::ExprMethodCall,
    ) -> Option<Expr> {
        if self.filters() {
            return None;
        }
        let (ipat, index, fold) = self.fold_of_rest(method)?;
        let (unwrap_name, unwrap_args) = (&unwrap.method, &unwrap.args);
        Some(parse_quote!({
            let mut __diff_rest = #index;
            let #ipat = ::core::iter::Iterator::next(&mut __diff_rest).#unwrap_name(#unwrap_args);
            #fold
        }))
    }

    /// For `chain.reduce(f)`: the index pattern, the index iterator, and the block that,
    /// where the pattern binds the first index, folds the item there with those of the
    /// indices left in `__diff_rest`.
    fn fold_of_rest(&self, method: &syn::ExprMethodCall) -> Option<(syn::Pat, Expr, syn::Block)> {
        let acc: syn::Ident = parse_quote!(__diff_acc);
        let (ipat, index, item, _) = self.parts();
        let step = fold_step(func(&method.args[0])?, &acc, &item)?;
        let fold = parse_quote!({
            let mut #acc = #item;
            for #ipat in ::core::iter::IntoIterator::into_iter(__diff_rest) {
                #acc = #step;
            }
            #acc
        });
        Some((ipat, index, fold))
    }

    /// `chain.reduce(f)` as an `Option` (not unwrapped where it is made, which
    /// [`Chain::select`] does): `None` for no items, else the first item folded with the
    /// others.
    pub(crate) fn reduce_option(&self, method: &syn::ExprMethodCall) -> Option<Expr> {
        if method.method != "reduce" || method.args.len() != 1 || self.filters() {
            return None;
        }
        let (ipat, index, fold) = self.fold_of_rest(method)?;
        Some(parse_quote!({
            let mut __diff_rest = #index;
            match ::core::iter::Iterator::next(&mut __diff_rest) {
                ::core::option::Option::Some(#ipat) => ::core::option::Option::Some(#fold),
                ::core::option::Option::None => ::core::option::Option::None,
            }
        }))
    }

    fn neutral(&self, method: &syn::ExprMethodCall, which: &syn::Ident, xs: &Expr) -> Expr {
        if let Some(tf) = &method.turbofish {
            if let Some(syn::GenericArgument::Type(t)) = tf.args.first() {
                let tr: syn::Path = if which == "zero" {
                    parse_quote!(Zero)
                } else {
                    parse_quote!(One)
                };
                // `-0.0` for a float, where the standard library's `Sum` starts (an
                // empty sum, or one of negative zeros, is `-0.0`).
                let float = matches!(t, syn::Type::Path(p)
                    if p.qself.is_none() && (p.path.is_ident("f64") || p.path.is_ident("f32")));
                let minus = (which == "zero" && float).then(|| quote::quote!(-));
                return parse_quote!(#minus <#t as ::diff::__private::num_traits::#tr>::#which());
            }
        }
        if self.base.range {
            // The items are computed from indices: a float literal takes their type
            // (`f64`, `f32`; a generic `T` needs `.sum::<T>()`); `-0.0`, where the
            // standard library's `Sum` of floats starts.
            return if which == "zero" {
                parse_quote!(-0.0)
            } else {
                parse_quote!(1.0)
            };
        }
        // (A collection's element type is not known here: its sum starts at zero, `0.0`
        // for floats where the standard library starts at `-0.0`; they differ only for
        // an empty sum or one of negative zeros, `-0.0` in std.)
        let f: syn::Ident = syn::Ident::new(&format!("{which}_element"), which.span());
        parse_quote!(::diff::no_derivative(::diff::__private::#f(&#xs)))
    }
}

/// `xs.map(f)` on an array as a loop writing `f(xs[i])` into an array of defaults (so
/// that each element's derivative is visible); `None` when the receiver is an iterator
/// chain (`xs.iter().map(f)`, lazy) or `f` is neither a closure of one argument nor a path.
pub(crate) fn array_map(m: &syn::ExprMethodCall) -> Option<Expr> {
    if m.method != "map" || m.args.len() != 1 || is_users_method_call(m) {
        return None;
    }
    if let Expr::MethodCall(inner) = &*m.receiver {
        // (Or an `Option`: `xs.iter().position(..).map(|i| ..)`.)
        let optional = [
            "position",
            "rposition",
            "find",
            "find_map",
            "get",
            "first",
            "last",
            "pop",
            "nth",
            "next",
            "reduce",
            "max_by",
            "min_by",
            "max_by_key",
            "min_by_key",
            "max",
            "min",
            "ok",
            "err",
            "checked_div",
            "checked_sub",
            "checked_add",
            "checked_mul",
        ];
        if CHAIN_METHODS
            .iter()
            .chain(&optional)
            .any(|name| inner.method == name)
        {
            return None;
        }
    }
    let f = match func(&m.args[0])? {
        Func::Closure(c) if c.inputs.len() != 1 => return None,
        f => f,
    };
    let xs = &m.receiver;
    let item = apply(&f, parse_quote!(__diff_xs[__diff_i].clone()));
    let first = apply(&f, parse_quote!(__diff_xs[0].clone()));
    Some(parse_quote!({
        let __diff_xs = #xs;
        let mut __diff_out = ::diff::no_derivative(::diff::__private::array_like(
            &__diff_xs,
            if __diff_xs.len() == 0 { None } else { Some(#first) },
        ));
        for __diff_i in 0..__diff_xs.len() {
            __diff_out[__diff_i] = #item;
        }
        __diff_out
    }))
}

/// Replaces the `0..len` range at the root of an index iterator by `0..len`.
fn replace_len(e: Expr, len: &Expr) -> Expr {
    replace_root(e, &parse_quote!((0..#len)))
}

/// Replaces the range at the root of an index iterator by `root`.
fn replace_root(e: Expr, root: &Expr) -> Expr {
    match e {
        Expr::MethodCall(mut m) => {
            m.receiver = Box::new(replace_root(*m.receiver, root));
            Expr::MethodCall(m)
        }
        Expr::Paren(_) => root.clone(),
        other => other,
    }
}

/// `rows.iter().flatten()` (or `.into_iter()`) at the root of a method chain `m` or of a
/// `for` loop's iterator, over rows that are `Vec`s or arrays: `{ let flat =
/// rows.to_vec().concat(); <the same with flat.iter()> }`, so the chain runs over one
/// collection (`concat` has a derivative); likewise `a.iter().chain(b.iter())`, over
/// `[&a[..], &b[..]].concat()`. `None` when there is no such root (checked before
/// anything is copied: most chains have none).
pub(crate) fn flattened(m: &syn::ExprMethodCall) -> Option<Expr> {
    if !iterates_a_concatenation(m) {
        return None;
    }
    let mut out = Expr::MethodCall(m.clone());
    let flat = concatenation_at_root(&mut out)?;
    Some(over_concatenation(flat, out))
}

/// [`flattened`] for a `for` loop over such a chain.
pub(crate) fn flattened_loop(f: &syn::ExprForLoop) -> Option<Expr> {
    if !matches!(&*f.expr, Expr::MethodCall(m) if iterates_a_concatenation(m)) {
        return None;
    }
    let mut out = f.clone();
    let flat = concatenation_at_root(&mut out.expr)?;
    Some(over_concatenation(flat, Expr::ForLoop(out)))
}

/// Whether the chain ending in `m` begins with `rows.iter().flatten()` or
/// `a.iter().chain(..)`.
fn iterates_a_concatenation(m: &syn::ExprMethodCall) -> bool {
    rows_flattened_by(m).is_some() || chains_at_root(m)
}

/// Replaces the root of the chain `e` that iterates a concatenation by
/// `__diff_flat.iter()` (or `.into_iter()`), returning the concatenation:
/// `rows.to_vec().concat()`, or `[&a[..], &b[..], ..].concat()`.
fn concatenation_at_root(e: &mut Expr) -> Option<Expr> {
    if rows_flattened(e).is_some() {
        let rows = flatten_at_root(e)?;
        return Some(parse_quote!(#rows.to_vec().concat()));
    }
    let pieces = chain_at_root(e)?;
    Some(parse_quote!([#(&(#pieces)[..]),*].concat()))
}

/// Replaces `a.iter().chain(b.iter())` (any number of `.chain(..)`s, each taking
/// `c.iter()`, `c.into_iter()`, `&c` or `c`) at the root of the chain `e` by
/// `__diff_flat.iter()` (`into_iter()` after `a.into_iter()`), returning the collections
/// `[a, b, ..]`. `None` when there is no such root (a `chain` after other adapters
/// stays as it is, refused where it is lowered).
fn chain_at_root(e: &mut Expr) -> Option<Vec<Expr>> {
    let Expr::MethodCall(m) = e else {
        return None;
    };
    if m.method != "chain" {
        return chain_at_root(&mut m.receiver);
    }
    let (pieces, by_ref) = chained(m)?;
    *e = if by_ref {
        parse_quote!(__diff_flat.iter())
    } else {
        parse_quote!(__diff_flat.into_iter())
    };
    Some(pieces)
}

/// Whether the chain ending in `m` begins with `a.iter().chain(..)` ([`chain_at_root`]).
fn chains_at_root(m: &syn::ExprMethodCall) -> bool {
    if m.method == "chain" {
        return chained(m).is_some();
    }
    matches!(&*m.receiver, Expr::MethodCall(r) if chains_at_root(r))
}

/// The collections `a.iter().chain(b).chain(c)` goes through, and whether its items are
/// references (`a.iter()`).
fn chained(m: &syn::ExprMethodCall) -> Option<(Vec<Expr>, bool)> {
    if m.method != "chain" || m.args.len() != 1 {
        return None;
    }
    let (mut pieces, by_ref) = match &*m.receiver {
        Expr::MethodCall(r) if r.method == "chain" => chained(r)?,
        other => {
            let (collection, by_ref) = iterated(other)?;
            (vec![collection.clone()], by_ref)
        }
    };
    pieces.push(match &m.args[0] {
        Expr::Reference(r) if r.mutability.is_none() => (*r.expr).clone(),
        other => iterated(other).map_or(other, |(c, _)| c).clone(),
    });
    Some((pieces, by_ref))
}

/// The collection `c` of `c.iter()` or `c.into_iter()`, and whether its items are
/// references (`iter`).
fn iterated(e: &Expr) -> Option<(&Expr, bool)> {
    match e {
        Expr::MethodCall(r)
            if (r.method == "iter" || r.method == "into_iter") && r.args.is_empty() =>
        {
            Some((&r.receiver, r.method == "iter"))
        }
        _ => None,
    }
}

/// The rows of `rows.iter().flatten()` at the root of the chain `e`.
fn rows_flattened(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::MethodCall(m) => rows_flattened_by(m),
        _ => None,
    }
}

/// [`rows_flattened`] of the chain ending in the call `m`.
fn rows_flattened_by(m: &syn::ExprMethodCall) -> Option<&Expr> {
    if !flattens(m) {
        return rows_flattened(&m.receiver);
    }
    match &*m.receiver {
        Expr::MethodCall(it)
            if (it.method == "iter" || it.method == "into_iter") && it.args.is_empty() =>
        {
            Some(&it.receiver)
        }
        _ => None,
    }
}

/// Whether the call `m` is `.flatten()`, or a `.flat_map(f)` that is one: `f` gives each
/// row itself as an iterator (`|r| r`, `|r| r.iter()`, `|r| r.into_iter()`).
fn flattens(m: &syn::ExprMethodCall) -> bool {
    if m.method == "flatten" {
        return m.args.is_empty();
    }
    let [Expr::Closure(c)] = &m.args.iter().collect::<Vec<_>>()[..] else {
        return false;
    };
    let (Some(syn::Pat::Ident(p)), 1) = (c.inputs.first(), c.inputs.len()) else {
        return false;
    };
    let is_row =
        |e: &Expr| matches!(super::expr::peel(e), Expr::Path(x) if x.path.is_ident(&p.ident));
    let body = super::expr::peel(&c.body);
    m.method == "flat_map"
        && (is_row(body)
            || matches!(body, Expr::MethodCall(i)
                if (i.method == "iter" || i.method == "into_iter")
                    && i.args.is_empty()
                    && is_row(&i.receiver)))
}

/// Replaces `rows.iter().flatten()` at the root of `e` by `__diff_flat.iter()`,
/// returning `rows`.
fn flatten_at_root(e: &mut Expr) -> Option<Expr> {
    match e {
        Expr::MethodCall(m) if !flattens(m) => flatten_at_root(&mut m.receiver),
        _ => {
            let rows = rows_flattened(e)?.clone();
            *e = parse_quote!(__diff_flat.iter());
            Some(rows)
        }
    }
}

/// `{ let __diff_flat = flat; e }`.
fn over_concatenation(flat: Expr, e: Expr) -> Expr {
    parse_quote!({
        let __diff_flat = #flat;
        #e
    })
}

/// Of `for x in xs.iter_mut()..` ([`iter_mut_loop`]): the positions leading to the
/// element in the items, the part written, and the loop's pattern, whose binding at
/// those positions is a plain name. `None` for other loops.
fn iter_mut_parts(f: &syn::ExprForLoop) -> Option<(Vec<usize>, WrittenPart, syn::Pat)> {
    // From the loop's iterator down to `xs.iter_mut()`: the position of the element in
    // the items (`1` of `enumerate`'s pairs, `0` of `zip`'s), outermost first.
    let mut steps: Vec<usize> = Vec::new();
    let mut e = &*f.expr;
    let written = loop {
        if let Some(written) = iter_mut_receiver(e) {
            break written;
        }
        let Expr::MethodCall(m) = e else {
            return None;
        };
        match (m.method.to_string().as_str(), m.args.len()) {
            ("enumerate", 0) => steps.push(1),
            ("zip", 1) => match iter_mut_receiver(&m.args[0]) {
                // `xs.iter().zip(ys.iter_mut())`: the element is the second of the pairs.
                Some(written) => {
                    steps.push(1);
                    break written;
                }
                None => steps.push(0),
            },
            ("skip" | "take" | "step_by", 1) | ("rev", 0) => {}
            _ => return None,
        }
        e = &m.receiver;
    };
    let mut at = &*f.pat;
    for &i in &steps {
        let syn::Pat::Tuple(t) = at else {
            return None;
        };
        if t.elems.len() != 2 {
            return None;
        }
        at = &t.elems[i];
    }
    match at {
        syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {}
        _ => return None,
    }
    Some((steps, written, (*f.pat).clone()))
}

/// For a loop writing through `iter_mut()` that [`iter_mut_loop`] declines because its
/// body binds the element's name or the written variable again (`let x = ..;`, a closure
/// parameter): that name, for the error saying so.
pub(crate) fn iter_mut_shadowed(f: &syn::ExprForLoop) -> Option<syn::Ident> {
    let (steps, written, pat) = iter_mut_parts(f)?;
    let mut at = &pat;
    for &i in &steps {
        let syn::Pat::Tuple(t) = at else {
            return None;
        };
        at = &t.elems[i];
    }
    let syn::Pat::Ident(p) = at else {
        return None;
    };
    let root = super::opaque::place_root(&written.collection)?;
    let names = [p.ident.clone(), root.clone()];
    names
        .into_iter()
        .find(|n| binds_any(&f.body.stmts, &[n.to_string()], true))
}

/// How many `enumerate` positions an index pattern pairs (`(p1, (p0, i))`: 2).
fn pat_depth(p: &syn::Pat) -> usize {
    match p {
        syn::Pat::Tuple(t) => 1 + t.elems.last().map_or(0, pat_depth),
        _ => 0,
    }
}

/// `for x in xs.iter_mut() { .. }`, also through adaptors (`.enumerate()`,
/// `.zip(ys)`, `.skip(k)`, `.take(k)`, `.rev()`, `.step_by(k)`: `for (o, y) in
/// out.iter_mut().zip(ys)`), given to a `zip` (`ys.iter().zip(out.iter_mut())`) or of a
/// sub-slice (`xs[1..].iter_mut()`), as a loop over the indices through the same
/// adaptors in which `x` is the element at the index itself: `*x` and `x` become `xs[i]`
/// (`xs[lo + i]` for the sub-slice starting at `lo`), so updates through `x` are element
/// writes. `None` for other loops, and when the body binds the name again (a shadowing
/// `let`, a closure parameter).
pub(crate) fn iter_mut_loop(f: &syn::ExprForLoop) -> Option<Expr> {
    let (steps, written, mut pat) = iter_mut_parts(f)?;
    let mut at = &mut pat;
    for &i in &steps {
        let syn::Pat::Tuple(t) = at else {
            return None;
        };
        at = &mut t.elems[i];
    }
    let name = match at {
        syn::Pat::Ident(p) => p.ident.clone(),
        _ => return None,
    };
    if binds_any(&f.body.stmts, &[name.to_string()], true) {
        return None;
    }
    // (Named after the item, which the body does not bind again: [`named_after`].)
    let (i, lo_name) = (named_after("i", &name), named_after("lo", &name));
    // The indices: a range, or, zipped (which a range is not, `parse_chain`), the
    // collection's enumerated items.
    let zipped = steps.contains(&0);
    *at = if zipped {
        parse_quote!((#i, _))
    } else {
        parse_quote!(#i)
    };
    let WrittenPart { collection, range } = written;
    let (lets, collection) = frozen_place(&collection, &name, &f.body.stmts)?;
    let (element, part, lo): (Expr, Expr, Option<Expr>) = match range {
        Some((lo, hi)) => (
            parse_quote!(#collection[#lo_name + #i]),
            parse_quote!(#collection[#lo_name..#hi]),
            Some(lo),
        ),
        None => (parse_quote!(#collection[#i]), collection.clone(), None),
    };
    let mut body = f.body.clone();
    let mut replace = ElementOf {
        name: &name,
        element: &element,
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut replace, &mut body);
    let mut indices = (*f.expr).clone();
    let root: Expr = if zipped {
        parse_quote!(#part.iter().enumerate())
    } else {
        parse_quote!((0..#part.len()))
    };
    replace_iter_mut(&mut indices, root);
    let stmts = &body.stmts;
    // (The sub-slice's start, evaluated once.)
    let lo = lo.map(|lo| quote::quote!(let #lo_name: usize = #lo;));
    Some(if lets.is_empty() && lo.is_none() {
        parse_quote!(for #pat in #indices { #(#stmts)* })
    } else {
        parse_quote!({
            #(#lets)*
            #lo
            for #pat in #indices { #(#stmts)* }
        })
    })
}

/// `for c in xs.chunks_mut(k) { .. }` (also `.chunks_exact_mut(k)`, and either
/// `.enumerate()`d: `for (r, row) in m.chunks_mut(n).enumerate()`), `xs` a variable or a
/// field of one, as a loop over the chunks' numbers in which the chunk is the sub-slice
/// of `xs` it is: `c[e]` becomes `xs[lo + e]` (checked against the chunk's end), a method called on `c` is called on
/// `xs[lo..hi]` (`c.iter_mut()`, `c.fill(x)`, `c.len()`), and `c` given anywhere else is
/// `&mut xs[lo..hi]`. `None` for other loops, and when the body binds the name again.
pub(crate) fn chunks_mut_loop(f: &syn::ExprForLoop) -> Option<Expr> {
    let (chunks, numbered) = match &*f.expr {
        Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => (&*m.receiver, true),
        e => (e, false),
    };
    let Expr::MethodCall(m) = chunks else {
        return None;
    };
    let exact = m.method == "chunks_exact_mut";
    if !(m.method == "chunks_mut" || exact) || m.args.len() != 1 {
        return None;
    }
    if !writable(&m.receiver) {
        return None;
    }
    let k = &m.args[0];
    // The chunk's binding (and the number's, enumerated).
    let (number, chunk): (Option<&syn::Pat>, &syn::Pat) = match (&*f.pat, numbered) {
        (syn::Pat::Tuple(t), true) if t.elems.len() == 2 => (Some(&t.elems[0]), &t.elems[1]),
        (_, true) => return None,
        (p, false) => (None, p),
    };
    let name = match chunk {
        syn::Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => p.ident.clone(),
        _ => return None,
    };
    if binds_any(&f.body.stmts, &[name.to_string()], true) {
        return None;
    }
    let (lets, xs) = frozen_place(&m.receiver, &name, &f.body.stmts)?;
    let xs = &xs;
    // (Named after the chunk: [`named_after`].)
    let [size, c, lo, hi] = ["k", "c", "lo", "hi"].map(|n| named_after(n, &name));
    let mut body = f.body.clone();
    let mut replace = ChunkOf {
        name: &name,
        xs,
        lo: &lo,
        hi: &hi,
    };
    syn::visit_mut::VisitMut::visit_block_mut(&mut replace, &mut body);
    let count: Expr = if exact {
        parse_quote!(#xs.len() / #size)
    } else {
        parse_quote!(#xs.len().div_ceil(#size))
    };
    let number = number.map(|p| quote::quote!(let #p = #c;));
    let stmts = &body.stmts;
    Some(parse_quote!({
        #(#lets)*
        let #size: usize = #k;
        for #c in 0..#count {
            #number
            let #lo: usize = #c * #size;
            let #hi: usize = ::core::cmp::min(#lo + #size, #xs.len());
            #(#stmts)*
        }
    }))
}

/// Replaces a chunk `name` of `xs` by the sub-slice it is ([`chunks_mut_loop`]).
struct ChunkOf<'a> {
    name: &'a syn::Ident,
    xs: &'a Expr,
    /// The chunk's start and end in `xs`.
    lo: &'a syn::Ident,
    hi: &'a syn::Ident,
}

impl syn::visit_mut::VisitMut for ChunkOf<'_> {
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        visit_macro_exprs_mut(self, m);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let is_name = |e: &Expr| is_variable(e, self.name);
        let (xs, lo, hi) = (self.xs, self.lo, self.hi);
        match e {
            Expr::Index(ix) if is_name(&ix.expr) && !matches!(*ix.index, Expr::Range(_)) => {
                syn::visit_mut::visit_expr_mut(self, &mut ix.index);
                let at = &ix.index;
                *e = parse_quote!(#xs[::diff::__private::chunk_index(#lo, #hi, #at)]);
            }
            Expr::MethodCall(m) if is_name(&m.receiver) => {
                for a in m.args.iter_mut() {
                    syn::visit_mut::visit_expr_mut(self, a);
                }
                *m.receiver = parse_quote!(#xs[#lo..#hi]);
            }
            _ if is_name(e) => *e = parse_quote!((&mut #xs[#lo..#hi])),
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// Replaces the `xs.iter_mut()` of a method chain that [`iter_mut_loop`] found (its
/// innermost receiver, as in `xs.iter_mut().zip(ys)`, or the argument of a `zip`, as in
/// `ys.iter().zip(xs.iter_mut())`) by `root`.
fn replace_iter_mut(e: &mut Expr, root: Expr) {
    if iter_mut_receiver(e).is_none() {
        if let Expr::MethodCall(m) = e {
            if m.method == "zip" && m.args.len() == 1 && iter_mut_receiver(&m.args[0]).is_some() {
                m.args[0] = root;
                return;
            }
            return replace_iter_mut(&mut m.receiver, root);
        }
    }
    *e = root;
}

/// The collection a loop writes through `iter_mut()`: `xs` of `xs.iter_mut()`, or of
/// `xs[lo..hi].iter_mut()`.
struct WrittenPart {
    /// `xs` (a variable or a field of one).
    collection: Expr,
    /// When a sub-slice is written, its start and end ([`written_sub_slice`]).
    range: Option<(Expr, Expr)>,
}

/// A variable, or fields and elements of one (`xs`, `self.w`, `layers[l].w`): what a
/// rewritten loop or update writes the elements of.
fn writable(xs: &Expr) -> bool {
    match peeled(xs) {
        Expr::Path(p) => p.qself.is_none(),
        Expr::Field(f) => writable(&f.base),
        Expr::Index(ix) => !matches!(peeled(&ix.index), Expr::Range(_)) && writable(&ix.expr),
        _ => false,
    }
}

/// A [`writable`] place written by a loop, as the loop's rewrite names it in its body:
/// the indices in it fixed before the loop (`layers[l].w`: `let __diff_at0_p = l;` and
/// `layers[__diff_at0_p].w`), as the loop they replace evaluates them once, however the
/// body changes `l`. `None` when the body binds the place's variable again (`let xs =
/// ..;` would be the element written otherwise). `item` names the indices
/// ([`named_after`]).
pub(crate) fn frozen_place(
    xs: &Expr,
    item: &syn::Ident,
    body: &[syn::Stmt],
) -> Option<(Vec<syn::Stmt>, Expr)> {
    let root = super::opaque::place_root(xs)?;
    if binds_any(body, &[root.to_string()], true) {
        return None;
    }
    fn freeze(e: &mut Expr, item: &syn::Ident, lets: &mut Vec<syn::Stmt>) {
        match e {
            Expr::Paren(p) => freeze(&mut p.expr, item, lets),
            Expr::Field(f) => freeze(&mut f.base, item, lets),
            Expr::Index(ix) => {
                freeze(&mut ix.expr, item, lets);
                if !matches!(peeled(&ix.index), Expr::Lit(_)) {
                    let at = named_after(&format!("at{}", lets.len()), item);
                    let index = &ix.index;
                    lets.push(parse_quote!(let #at = #index;));
                    *ix.index = parse_quote!(#at);
                }
            }
            _ => {}
        }
    }
    let (mut lets, mut place) = (Vec::new(), xs.clone());
    freeze(&mut place, item, &mut lets);
    Some((lets, place))
}

/// `xs[a..b]` (any range) of a variable or a field of one, written in place: `xs`, the
/// sub-slice's start (`0` for `xs[..b]`) and end (`b + 1` for `xs[a..=b]`, `xs.len()` for
/// `xs[a..]`).
pub(crate) fn written_sub_slice(e: &Expr) -> Option<(Expr, Expr, Expr)> {
    use super::expr::peel;
    let Expr::Index(ix) = peel(e) else {
        return None;
    };
    let (Expr::Range(r), xs) = (peel(&ix.index), &*ix.expr) else {
        return None;
    };
    if !writable(peel(xs)) {
        return None;
    }
    let lo: Expr = match &r.start {
        Some(lo) => (**lo).clone(),
        None => parse_quote!(0usize),
    };
    let hi: Expr = match (&r.end, &r.limits) {
        (Some(hi), syn::RangeLimits::HalfOpen(_)) => (**hi).clone(),
        (Some(hi), syn::RangeLimits::Closed(_)) => parse_quote!((#hi) + 1),
        (None, _) => parse_quote!(#xs.len()),
    };
    Some((xs.clone(), lo, hi))
}

/// The name of the `what` a loop rewritten for the item `name` introduces
/// (`__diff_i_p`, the index of `for p in a.iter_mut()`): named after the item, which the
/// body does not bind again, so that a loop of the kind nested in the body, or a chain's
/// index loop there, does not hide it from the element read in the body.
fn named_after(what: &str, name: &syn::Ident) -> syn::Ident {
    quote::format_ident!("__diff_{what}_{}", syn::ext::IdentExt::unraw(name))
}

/// The collection written by `xs.iter_mut()` or `&mut xs` (`xs` a variable or a field of
/// one), or `xs[lo..hi].iter_mut()` / `&mut xs[lo..hi]`.
fn iter_mut_receiver(e: &Expr) -> Option<WrittenPart> {
    let written = match peeled(e) {
        Expr::MethodCall(m) if m.method == "iter_mut" && m.args.is_empty() => &*m.receiver,
        // `for p in &mut ps`, the same as `ps.iter_mut()`.
        Expr::Reference(r) if r.mutability.is_some() => &*r.expr,
        _ => return None,
    };
    if writable(written) {
        return Some(WrittenPart {
            collection: written.clone(),
            range: None,
        });
    }
    let (collection, lo, hi) = written_sub_slice(written)?;
    Some(WrittenPart {
        collection,
        range: Some((lo, hi)),
    })
}

/// Whether `stmts` bind any of `names` (a `let`, a pattern; inside closures too, their
/// parameters included, when `in_closures`).
fn binds_any(stmts: &[syn::Stmt], names: &[String], in_closures: bool) -> bool {
    struct Binds<'a> {
        names: &'a [String],
        in_closures: bool,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Binds<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.found |= self.names.iter().any(|n| p.ident == n);
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
            if self.in_closures {
                syn::visit::visit_expr_closure(self, c);
            }
        }
    }
    let mut b = Binds {
        names,
        in_closures,
        found: false,
    };
    for st in stmts {
        syn::visit::Visit::visit_stmt(&mut b, st);
    }
    b.found
}

/// Whether `e` is the variable `name`.
fn is_variable(e: &Expr, name: &syn::Ident) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(name))
}

/// Visits the arguments of a macro call when they are expressions (`vec![*x, y]`,
/// `vec![*x; n]`, `assert!(*x > 0.0, "..")`), written back as they are changed: a name
/// a rewrite replaces is replaced there too.
fn visit_macro_exprs_mut(v: &mut impl syn::visit_mut::VisitMut, m: &mut syn::Macro) {
    use syn::punctuated::Punctuated;
    if let Ok(mut list) = m.parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated) {
        list.iter_mut().for_each(|e| v.visit_expr_mut(e));
        m.tokens = quote::quote!(#list);
        return;
    }
    let tokens = &m.tokens;
    if let Ok(Expr::Repeat(mut r)) = syn::parse2::<Expr>(quote::quote!([#tokens])) {
        v.visit_expr_mut(&mut r.expr);
        v.visit_expr_mut(&mut r.len);
        let (x, n) = (&r.expr, &r.len);
        m.tokens = quote::quote!(#x; #n);
    }
}

/// Replaces `*x` and `x` by the element they stand for.
struct ElementOf<'a> {
    name: &'a syn::Ident,
    element: &'a Expr,
}

impl syn::visit_mut::VisitMut for ElementOf<'_> {
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        visit_macro_exprs_mut(self, m);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let is_name = |e: &Expr| is_variable(e, self.name);
        match e {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && is_name(&u.expr) => {
                let el = self.element;
                *e = parse_quote!(#el);
            }
            _ if is_name(e) => {
                let el = self.element;
                *e = parse_quote!((#el));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The body with `.sum()`, `.product()` and `.collect()` given the type Rust takes from
/// where their value goes (a `let` with a type, the function's result, `return`) as a
/// turbofish, so that the loop they become starts from that type's zero or one whatever
/// the collection holds (`data.iter().map(|(x, y)| ..).sum()` over tuples), and a
/// collection kept as written (`let idx: Vec<usize> = (0..n).collect();`) keeps its
/// type where the generated code names it again. `None` when nothing changes.
pub(crate) fn typed_reductions(
    block: &syn::Block,
    output: Option<&syn::Type>,
) -> Option<syn::Block> {
    let mut t = TypedReductions {
        output: output.filter(|t| concrete(t)),
        closures: 0,
        changed: false,
    };
    let mut block = block.clone();
    if let (Some(syn::Stmt::Expr(e, None)), Some(ty)) = (block.stmts.last_mut(), t.output) {
        t.changed |= give_type(e, ty);
    }
    syn::visit_mut::VisitMut::visit_block_mut(&mut t, &mut block);
    t.changed.then_some(block)
}

/// A type written out (no `_`, no `impl Trait`).
fn concrete(ty: &syn::Type) -> bool {
    let ts = quote::ToTokens::to_token_stream(ty).to_string();
    !ts.contains('_') && !ts.contains("impl")
}

/// Gives `e`, if it is `.sum()` or `.product()` without a turbofish, the type `ty`.
fn give_type(e: &mut Expr, ty: &syn::Type) -> bool {
    match e {
        Expr::Paren(p) => give_type(&mut p.expr, ty),
        Expr::MethodCall(m)
            if (m.method == "sum" || m.method == "product" || m.method == "collect")
                && m.args.is_empty()
                && m.turbofish.is_none() =>
        {
            m.turbofish = Some(parse_quote!(::<#ty>));
            true
        }
        _ => false,
    }
}

struct TypedReductions<'a> {
    output: Option<&'a syn::Type>,
    /// Closures entered: a `return` there is the closure's.
    closures: usize,
    changed: bool,
}

impl syn::visit_mut::VisitMut for TypedReductions<'_> {
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let (syn::Pat::Type(t), Some(init)) = (&l.pat, &mut l.init) {
            if concrete(&t.ty) {
                self.changed |= give_type(&mut init.expr, &t.ty);
            }
        }
        syn::visit_mut::visit_local_mut(self, l);
    }
    fn visit_expr_return_mut(&mut self, r: &mut syn::ExprReturn) {
        if let (Some(e), Some(ty), 0) = (&mut r.expr, self.output, self.closures) {
            self.changed |= give_type(e, ty);
        }
        syn::visit_mut::visit_expr_return_mut(self, r);
    }
    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        self.closures += 1;
        syn::visit_mut::visit_expr_closure_mut(self, c);
        self.closures -= 1;
    }
}

/// The body with each `x.drain(range)` written `x.drain_to_vec(range).into_iter()`
/// (`diff-core`'s `DrainToVec`): the drained items as a `Vec`, taken out by a call that
/// updates `x` and carries their derivatives, which a chain (`.collect()`, `.map(..)`)
/// or a `for` loop then reads like any `Vec`'s. `None` when the body drains nothing.
pub(crate) fn drains_as_vecs(block: &syn::Block) -> Option<syn::Block> {
    struct Drains(bool);
    impl syn::visit::Visit<'_> for Drains {
        fn visit_expr_method_call(&mut self, m: &syn::ExprMethodCall) {
            self.0 |= is_drain(m);
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    impl syn::visit_mut::VisitMut for Drains {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            if let Expr::MethodCall(m) = e {
                if is_drain(m) {
                    let (x, range) = (&m.receiver, &m.args[0]);
                    let method = syn::Ident::new("drain_to_vec", m.method.span());
                    *e = parse_quote!(#x.#method(#range).into_iter());
                }
            }
        }
    }
    fn is_drain(m: &syn::ExprMethodCall) -> bool {
        m.method == "drain" && m.args.len() == 1 && m.turbofish.is_none()
    }
    let mut found = Drains(false);
    syn::visit::Visit::visit_block(&mut found, block);
    if !found.0 {
        return None;
    }
    let mut block = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut Drains(true), &mut block);
    Some(block)
}

/// The body with iterators held in variables written where they are consumed:
/// `let it = xs.iter().map(f); .. it.sum()` becomes `xs.iter().map(f).sum()`, which the
/// chain rewriting then sees whole, and `let mut it = xs.iter(); .. while let Some(x) =
/// it.next() { .. }` becomes `for x in xs.iter() { .. }`; so does a search held in a
/// variable (`let m = xs.iter().find(p); match m { .. }`). Only for a variable used once,
/// in the same block, with no name the chain reads bound again in between (a variable it
/// reads and that is assigned in between is read from a copy made where it was); `None`
/// when nothing changes.
pub(crate) fn inline_iterator_variables(block: &syn::Block) -> Option<syn::Block> {
    let mut inliner = Inliner { changed: false };
    let mut block = block.clone();
    syn::visit_mut::VisitMut::visit_block_mut(&mut inliner, &mut block);
    inliner.changed.then_some(block)
}

struct Inliner {
    changed: bool,
}

impl syn::visit_mut::VisitMut for Inliner {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        let mut k = 0;
        while k < b.stmts.len() {
            if let Some((name, mut chain, mutable)) = iterator_let(&b.stmts[k]) {
                let rest = &b.stmts[k + 1..];
                // What the chain reads and is assigned before the chain is used: the
                // chain holds the values it read when made (`.skip(k)`, a `move`
                // closure's copy of `a`), so it reads copies made there
                // (`let __diff_was_k = k;`).
                let mut names = free_names(&chain);
                let used = rest
                    .iter()
                    .position(|st| uses_of(std::slice::from_ref(st), &name) > 0);
                let changed = used
                    .map(|j| super::opaque::Changes::in_stmts(&rest[..=j]).changed)
                    .unwrap_or_default();
                let assigned: Vec<String> = names
                    .iter()
                    .filter(|n| changed.iter().any(|(id, ..)| id == n))
                    .cloned()
                    .collect();
                if binds_any(&[syn::Stmt::Expr(chain.clone(), None)], &assigned, true) {
                    k += 1;
                    continue;
                }
                let mut frozen: Vec<syn::Stmt> = Vec::new();
                for n in &assigned {
                    let n = quote::format_ident!("{n}");
                    let was = quote::format_ident!("__diff_was_{n}");
                    let by: Expr = parse_quote!(#was);
                    let mut rename = ReplaceName { name: &n, by: &by };
                    syn::visit_mut::VisitMut::visit_expr_mut(&mut rename, &mut chain);
                    frozen.push(parse_quote!(let #was = #n;));
                }
                // Neither the variable nor what the chain reads may be bound again
                // (what a closure binds is its own).
                names.push(name.to_string());
                let once = uses_of(rest, &name) == 1 && !binds_any(rest, &names, false);
                // The statement `while let Some(..) = name.next() { .. }`, as a `for` loop.
                let looped = rest.iter().enumerate().find_map(|(j, st)| {
                    let w = walked_by_next(st, &name)?;
                    Some((j, w.looped(&chain)))
                });
                if let (true, Some((j, Some(looped)))) = (once, looped) {
                    b.stmts[k + 1 + j] = looped;
                    b.stmts.splice(k..=k, frozen);
                    self.changed = true;
                    continue;
                }
                if once && !mutable {
                    let mut replace = ReplaceName {
                        name: &name,
                        by: &chain,
                    };
                    for st in &mut b.stmts[k + 1..] {
                        syn::visit_mut::VisitMut::visit_stmt_mut(&mut replace, st);
                    }
                    b.stmts.splice(k..=k, frozen);
                    self.changed = true;
                    continue;
                }
            }
            k += 1;
        }
        syn::visit_mut::visit_block_mut(self, b);
    }
}

/// `let name = chain;` (or `let mut name`, the last item `true`) where `chain` is an
/// iterator chain over a collection that is not the collection itself
/// (`xs.iter().map(f)`, not `xs`), or a search of one ([`is_search`]).
fn iterator_let(st: &syn::Stmt) -> Option<(syn::Ident, Expr, bool)> {
    let syn::Stmt::Local(l) = st else { return None };
    let syn::Pat::Ident(p) = &l.pat else {
        return None;
    };
    let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
    if p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    // `xs.map(f)` on an array is the mapped array, not an iterator.
    let is_iterator = matches!(&*init.expr, Expr::MethodCall(m) if array_map(m).is_none())
        && parse_chain(&init.expr).is_some();
    let mutable = p.mutability.is_some();
    (is_iterator || is_search(&init.expr)).then(|| (p.ident.clone(), (*init.expr).clone(), mutable))
}

/// A search of an iterator chain (`xs.iter().find(p)`, `.last()`, `.max_by(cmp)`, ..)
/// whose closures change nothing: its `Option` (of a reference, as Rust has it) is
/// differentiated where it is matched or unwrapped, so a variable holding it is written
/// there (as an iterator held in a variable is).
fn is_search(e: &Expr) -> bool {
    const SEARCHES: &[&str] = &[
        "find",
        "last",
        "nth",
        "next",
        "max_by",
        "min_by",
        "max_by_key",
        "min_by_key",
    ];
    let Expr::MethodCall(m) = e else {
        return false;
    };
    let quiet = m.args.iter().all(|a| match peeled(a) {
        Expr::Closure(c) => !super::closure::writes(c, false),
        _ => true,
    });
    SEARCHES.iter().any(|s| m.method == s) && quiet && parse_chain(&m.receiver).is_some()
}

/// `while let Some(pat) = name.next() { .. }` (with its label), a statement.
struct WalkedByNext<'a> {
    whole: &'a syn::ExprWhile,
    pat: &'a syn::Pat,
    semi: Option<syn::Token![;]>,
}

fn walked_by_next<'a>(st: &'a syn::Stmt, name: &syn::Ident) -> Option<WalkedByNext<'a>> {
    let syn::Stmt::Expr(Expr::While(w), semi) = st else {
        return None;
    };
    let Expr::Let(l) = &*w.cond else { return None };
    let syn::Pat::TupleStruct(ts) = &*l.pat else {
        return None;
    };
    let next = matches!(&*l.expr, Expr::MethodCall(m)
        if m.method == "next" && m.args.is_empty()
            && matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident(name)));
    let some = ts.qself.is_none() && ts.path.is_ident("Some") && ts.elems.len() == 1;
    (next && some).then(|| WalkedByNext {
        whole: w,
        pat: &ts.elems[0],
        semi: *semi,
    })
}

impl WalkedByNext<'_> {
    /// The `for` loop over `chain` the `while let` stands for (`None` where it does not
    /// parse: a chain starting with a struct literal).
    fn looped(&self, chain: &Expr) -> Option<syn::Stmt> {
        let w = self.whole;
        let (attrs, label, pat, body) = (&w.attrs, &w.label, self.pat, &w.body);
        let looped: Expr =
            syn::parse2(quote::quote!(#(#attrs)* #label for #pat in #chain #body)).ok()?;
        Some(syn::Stmt::Expr(looped, self.semi))
    }
}

/// The names `e` reads from outside it: every identifier but those a closure inside `e`
/// binds for its own body (`v` in `xs.iter().map(|v| v * k)`), and every identifier of a
/// macro's tokens.
fn free_names(e: &Expr) -> Vec<String> {
    struct Free {
        bound: Vec<String>,
        out: Vec<String>,
    }
    impl<'ast> syn::visit::Visit<'ast> for Free {
        fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
            let before = self.bound.len();
            for input in &c.inputs {
                self.bound.extend(names_in(&parse_quote!(|#input| ())));
            }
            self.visit_expr(&c.body);
            self.bound.truncate(before);
        }
        fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
            let name = i.to_string();
            if !self.bound.contains(&name) {
                self.out.push(name);
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            self.out.extend(names_in(&parse_quote!(#m)));
        }
    }
    let mut free = Free {
        bound: Vec::new(),
        out: Vec::new(),
    };
    syn::visit::Visit::visit_expr(&mut free, e);
    free.out
}

/// The identifiers `e` mentions.
fn names_in(e: &Expr) -> Vec<String> {
    fn walk(ts: proc_macro2::TokenStream, out: &mut Vec<String>) {
        for tt in ts {
            match tt {
                proc_macro2::TokenTree::Ident(i) => out.push(i.to_string()),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(quote::ToTokens::to_token_stream(e), &mut out);
    out
}

/// How many times `stmts` read the variable `name`.
fn uses_of(stmts: &[syn::Stmt], name: &syn::Ident) -> usize {
    struct Count<'a> {
        name: &'a syn::Ident,
        n: usize,
    }
    impl<'ast> syn::visit::Visit<'ast> for Count<'_> {
        fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
            if p.qself.is_none() && p.path.is_ident(self.name) {
                self.n += 1;
            }
        }
        // Nor is one inside a closure (whose parameters could shadow what the chain reads).
        fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
            if names_in(&parse_quote!(#c)).iter().any(|n| self.name == n) {
                self.n += 2;
            }
        }
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            // A name inside a macro's tokens is not replaced: the variable stays.
            if names_in(&parse_quote!(#m)).iter().any(|n| self.name == n) {
                self.n += 2;
            }
        }
    }
    let mut c = Count { name, n: 0 };
    for st in stmts {
        syn::visit::Visit::visit_stmt(&mut c, st);
    }
    c.n
}

/// Replaces the variable `name` by the method chain `by` (which needs no parentheses).
struct ReplaceName<'a> {
    name: &'a syn::Ident,
    by: &'a Expr,
}

impl syn::visit_mut::VisitMut for ReplaceName<'_> {
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        visit_macro_exprs_mut(self, m);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name) => {
                *e = self.by.clone();
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// `e` without parentheses.
fn peeled(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => peeled(&p.expr),
        _ => e,
    }
}
