//! The macros never panic on user input. Their entry points are fed every input the
//! repository's tests and examples give them (each `#[differentiable]` item, registration,
//! derived struct and operator call) and mutations of each: a token deleted, duplicated,
//! swapped with its neighbour or replaced by another of the same kind, a group emptied.
//! Each must return (an expansion or errors at spans) without panicking.
//!
//! `cargo test -p diff-ad-macros --lib never_panics` runs a bounded number of mutations
//! per input (CI); `DIFF_NO_PANIC_MUTATIONS=N` runs `N` per input, and
//! `DIFF_NO_PANIC_SEED` changes the mutations.
use crate::operators::Op;
use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit::Visit;

/// Which entry point an input is for.
#[derive(Clone, Copy, Debug)]
enum Entry {
    Differentiable,
    Derivative,
    Derive,
    Operator(Op),
}

/// One input: the entry point, the attribute's arguments, the item (or the operator's
/// input).
struct Input {
    entry: Entry,
    args: TokenStream,
    item: TokenStream,
}

const OPERATORS: &[(&str, Op)] = &[
    ("gradient", Op::Gradient),
    ("value_with_gradient", Op::ValueWithGradient),
    ("pullback", Op::Pullback),
    ("value_with_pullback", Op::ValueWithPullback),
    ("first_derivative", Op::FirstDerivative),
    ("value_with_derivative", Op::ValueWithDerivative),
    ("differential", Op::Differential),
    ("value_with_differential", Op::ValueWithDifferential),
    ("jacobian", Op::Jacobian),
    ("hessian", Op::Hessian),
    ("second_derivative", Op::SecondDerivative),
    (
        "value_with_second_derivative",
        Op::ValueWithSecondDerivative,
    ),
];

/// Collects the inputs of one file.
#[derive(Default)]
struct Corpus {
    inputs: Vec<Input>,
}

impl Corpus {
    /// Takes the attribute named `name` off `attrs`: its arguments, if it was there.
    fn take(attrs: &mut Vec<syn::Attribute>, name: &str) -> Option<TokenStream> {
        let at = attrs
            .iter()
            .position(|a| crate::parse::attr::ends_with(a.path(), name))?;
        Some(match attrs.remove(at).meta {
            syn::Meta::List(l) => l.tokens,
            _ => TokenStream::new(),
        })
    }

    fn attributed(
        &mut self,
        attrs: &[syn::Attribute],
        item: impl Fn(Vec<syn::Attribute>) -> TokenStream,
    ) {
        for (name, entry) in [
            ("differentiable", Entry::Differentiable),
            ("derivative", Entry::Derivative),
        ] {
            let mut rest = attrs.to_vec();
            if let Some(args) = Self::take(&mut rest, name) {
                self.inputs.push(Input {
                    entry,
                    args,
                    item: item(rest),
                });
            }
        }
    }
}

impl<'a> Visit<'a> for Corpus {
    fn visit_item_fn(&mut self, i: &'a syn::ItemFn) {
        self.attributed(&i.attrs, |attrs| {
            syn::ItemFn { attrs, ..i.clone() }.to_token_stream()
        });
        syn::visit::visit_item_fn(self, i);
    }
    fn visit_impl_item_fn(&mut self, i: &'a syn::ImplItemFn) {
        self.attributed(&i.attrs, |attrs| {
            syn::ImplItemFn { attrs, ..i.clone() }.to_token_stream()
        });
        syn::visit::visit_impl_item_fn(self, i);
    }
    fn visit_trait_item_fn(&mut self, i: &'a syn::TraitItemFn) {
        self.attributed(&i.attrs, |attrs| {
            syn::TraitItemFn { attrs, ..i.clone() }.to_token_stream()
        });
        syn::visit::visit_trait_item_fn(self, i);
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        self.attributed(&i.attrs, |attrs| {
            syn::ItemImpl { attrs, ..i.clone() }.to_token_stream()
        });
        syn::visit::visit_item_impl(self, i);
    }
    fn visit_item_trait(&mut self, i: &'a syn::ItemTrait) {
        self.attributed(&i.attrs, |attrs| {
            syn::ItemTrait { attrs, ..i.clone() }.to_token_stream()
        });
        syn::visit::visit_item_trait(self, i);
    }
    fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
        let derives = i.attrs.iter().any(|a| {
            a.path().is_ident("derive")
                && a.meta
                    .to_token_stream()
                    .to_string()
                    .contains("Differentiable")
        });
        if derives {
            self.inputs.push(Input {
                entry: Entry::Derive,
                args: TokenStream::new(),
                item: i.to_token_stream(),
            });
        }
        syn::visit::visit_item_struct(self, i);
    }
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        if let Some((_, op)) = OPERATORS.iter().find(|(n, _)| Some(*n) == name.as_deref()) {
            self.inputs.push(Input {
                entry: Entry::Operator(*op),
                args: TokenStream::new(),
                item: m.tokens.clone(),
            });
        }
        // Operators nested in an operator's closure are inputs too.
        if let Ok(expr) = syn::parse2::<syn::Expr>(m.tokens.clone()) {
            self.visit_expr(&expr);
        } else if let Ok(args) = syn::parse::Parser::parse2(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            m.tokens.clone(),
        ) {
            for a in &args {
                self.visit_expr(a);
            }
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// How many tokens (leaves and groups) `ts` holds, at every depth.
fn count(ts: &TokenStream) -> usize {
    ts.clone()
        .into_iter()
        .map(|t| match t {
            TokenTree::Group(g) => 1 + count(&g.stream()),
            _ => 1,
        })
        .sum()
}

/// `ts` with its `k`-th token (counting depth first) mutated.
fn mutate_at(ts: TokenStream, k: &mut usize, rng: &mut Rng) -> TokenStream {
    let tokens: Vec<TokenTree> = ts.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].clone();
        if *k == 0 {
            *k = usize::MAX;
            match rng.below(6) {
                // Delete.
                0 => {}
                // Duplicate.
                1 => {
                    out.push(t.clone());
                    out.push(t);
                }
                // Swap with the next.
                2 if i + 1 < tokens.len() => {
                    out.push(tokens[i + 1].clone());
                    out.push(t);
                    i += 1;
                }
                // Empty a group's contents.
                3 if matches!(t, TokenTree::Group(_)) => {
                    let TokenTree::Group(g) = &t else {
                        unreachable!()
                    };
                    out.push(TokenTree::Group(Group::new(
                        g.delimiter(),
                        TokenStream::new(),
                    )));
                }
                // Replace by another token of the same kind.
                _ => out.push(replacement(&t, rng)),
            }
            i += 1;
            continue;
        }
        if *k != usize::MAX {
            *k -= 1;
        }
        match t {
            TokenTree::Group(g) if *k != usize::MAX => {
                let inner = mutate_at(g.stream(), k, rng);
                let mut ng = Group::new(g.delimiter(), inner);
                ng.set_span(g.span());
                out.push(TokenTree::Group(ng));
            }
            other => out.push(other),
        }
        i += 1;
    }
    out.into_iter().collect()
}

/// A token of the same kind as `t`, chosen among those Rust code is made of.
fn replacement(t: &TokenTree, rng: &mut Rng) -> TokenTree {
    const IDENTS: &[&str] = &[
        "x",
        "self",
        "Self",
        "f64",
        "f32",
        "T",
        "Vec",
        "mut",
        "let",
        "for",
        "in",
        "if",
        "else",
        "match",
        "return",
        "break",
        "continue",
        "loop",
        "while",
        "fn",
        "impl",
        "struct",
        "i",
        "len",
        "iter",
        "map",
        "sum",
        "push",
        "clone",
        "sin",
        "powi",
        "no_derivative",
        "wrt",
        "usize",
        "as",
        "ref",
        "move",
        "async",
        "unsafe",
        "dyn",
        "where",
        "Some",
        "None",
        "_",
    ];
    const PUNCTS: &[char] = &[
        '+', '-', '*', '/', '%', '=', '<', '>', '!', '&', '|', '.', ',', ';', ':', '?', '#', '@',
        '^',
    ];
    match t {
        TokenTree::Ident(_) => {
            let name = IDENTS[rng.below(IDENTS.len())];
            TokenTree::Ident(Ident::new(name, Span::call_site()))
        }
        TokenTree::Punct(_) => {
            let spacing = if rng.below(2) == 0 {
                Spacing::Alone
            } else {
                Spacing::Joint
            };
            TokenTree::Punct(Punct::new(PUNCTS[rng.below(PUNCTS.len())], spacing))
        }
        TokenTree::Literal(_) => TokenTree::Literal(match rng.below(5) {
            0 => Literal::f64_unsuffixed(0.0),
            1 => Literal::i32_unsuffixed(-1),
            2 => Literal::usize_suffixed(usize::MAX),
            3 => Literal::string("s"),
            _ => Literal::f64_suffixed(1e308),
        }),
        TokenTree::Group(g) => {
            let delimiter =
                [Delimiter::Parenthesis, Delimiter::Bracket, Delimiter::Brace][rng.below(3)];
            TokenTree::Group(Group::new(delimiter, g.stream()))
        }
    }
}

/// Runs one input through its entry point; `Err` with the panic's message if it panics.
fn run(entry: Entry, args: TokenStream, item: TokenStream) -> Result<(), String> {
    std::panic::catch_unwind(move || match entry {
        Entry::Differentiable => drop(crate::differentiable::expand(args, item)),
        Entry::Derivative => drop(crate::registration::expand(args, item)),
        Entry::Derive => {
            if let Ok(input) = syn::parse2::<syn::DeriveInput>(item) {
                drop(crate::derive::expand(input));
            }
        }
        Entry::Operator(op) => drop(crate::operators::expand(op, item)),
    })
    .map_err(|p| {
        p.downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default()
    })
}

/// The inputs the repository's tests and examples give the macros.
fn corpus() -> Vec<Input> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for dir in ["tests", "tests/edition2024/tests", "examples"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "rs")),
            );
        }
    }
    files.sort();
    let mut corpus = Corpus::default();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        if let Ok(file) = syn::parse_file(&text) {
            corpus.visit_file(&file);
        }
    }
    corpus.inputs
}

#[test]
fn never_panics() {
    let mutations: usize = std::env::var("DIFF_NO_PANIC_MUTATIONS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2);
    let seed: u64 = std::env::var("DIFF_NO_PANIC_SEED")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0x9e37_79b9_7f4a_7c15);
    let inputs = corpus();
    assert!(
        inputs.len() > 500,
        "the corpus is the test suites: {} inputs",
        inputs.len()
    );
    let mut rng = Rng(seed | 1);
    let mut ran = 0;
    let mut changed = 0;
    let mut panics = Vec::new();
    for input in &inputs {
        for m in 0..=mutations {
            let item = if m == 0 {
                input.item.clone()
            } else {
                let mut k = rng.below(count(&input.item));
                mutate_at(input.item.clone(), &mut k, &mut rng)
            };
            // Now and then the arguments instead.
            let args = if m > 0 && !input.args.is_empty() && rng.below(4) == 0 {
                let mut k = rng.below(count(&input.args));
                mutate_at(input.args.clone(), &mut k, &mut rng)
            } else {
                input.args.clone()
            };
            ran += 1;
            if m > 0 && item.to_string() != input.item.to_string() {
                changed += 1;
            }
            if let Err(why) = run(input.entry, args.clone(), item.clone()) {
                panics.push(format!(
                    "{:?}({args}) {item}\n  panicked: {why}",
                    input.entry
                ));
            }
        }
    }
    eprintln!(
        "never_panics: {ran} inputs ({} from the tests, {mutations} mutations each, {changed} of them changed)",
        inputs.len()
    );
    // A mutation that changes nothing (a token swapped with an equal one) is rare.
    assert!(
        changed * 10 >= (ran - inputs.len()) * 8,
        "{changed} of {ran} changed"
    );
    assert!(
        panics.is_empty(),
        "{} of {ran} inputs made a macro panic; the first:\n{}",
        panics.len(),
        panics
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
