//! Where a function is written: the kind of block around it, read from its source file.
//!
//! An attribute on a function receives the function alone, so `#[differentiable]` cannot
//! tell an associated function without a receiver (`impl A { fn new(x: f64) -> A }`) from
//! a free function, and the two need different companions (associated functions in the
//! `impl`; a carrier struct beside a free function, which an `impl` cannot hold). The
//! compiler tells the macro where the function's name is written (file, line, column);
//! this module reads that file up to there and reports the innermost block open at the
//! name. Only a plain reading is trusted: when the file cannot be read, or the name is
//! not found where the compiler says (a name produced by a `macro_rules!` expansion),
//! or it sits inside parentheses (a macro invocation's arguments), the answer is
//! [`Enclosing::Unknown`] and the caller keeps its default.
use crate::parse::attr::ends_with;
use quote::ToTokens;

/// An arithmetic operator a type implements, as its `impl` shows it.
#[derive(Clone, Debug)]
pub struct OperatorMethod {
    /// The struct whose operator it is (`V`, also for `impl Mul<V> for f64`).
    pub ty: String,
    /// The function the operator is called as (`Seen::operators`).
    pub method: String,
    /// Whether it is marked #[differentiable] (or its block is).
    pub marked: bool,
    /// The name of its `Output` type (`Self` read as the type), when the `impl` says.
    pub output: Option<String>,
    /// Its `Output` type as written (as text: what the source reader keeps outlives
    /// one run of the macro, and tokens must not).
    pub output_type: Option<String>,
}

/// The block a function's name is written in.
pub enum Enclosing {
    /// Directly in an `impl` block (its header, with no items).
    Impl(Box<syn::ItemImpl>),
    /// Directly in a `trait` block (its header, with no items).
    Trait(Box<syn::ItemTrait>),
    /// At the top of a file, in a `mod { .. }` or in a function body.
    Module,
    /// Not known (see the module docs).
    Unknown,
}

impl Enclosing {
    /// The generics a function written here may use without declaring them: its block's,
    /// none at module level, and `None` when not known.
    pub fn outer_generics(&self) -> Option<syn::Generics> {
        match self {
            Enclosing::Impl(block) => Some(block.generics.clone()),
            Enclosing::Trait(block) => Some(block.generics.clone()),
            Enclosing::Module => Some(syn::Generics::default()),
            Enclosing::Unknown => None,
        }
    }
}

/// The block around the function named by `ident`, as written in its source file.
pub fn enclosing(ident: &syn::Ident) -> Enclosing {
    let Some(w) = written_at(ident.span()) else {
        return Enclosing::Unknown;
    };
    enclosing_in(&w.text, w.line, w.column, &ident.to_string())
}

/// Whether the trait named `name` marks its method `method` `#[differentiable]`, when
/// the trait is defined in the file where `span` is, or else in the rest of the crate's
/// sources where every trait of that name with that method says the same (`None`
/// otherwise).
pub fn trait_marks(span: proc_macro2::Span, name: &str, method: &str) -> Option<bool> {
    marks_in(&read(&written_at(span)?), name, method)
}

/// [`trait_marks`] in `all` (the first file's trait first, then the others').
fn marks_in(all: &[std::rc::Rc<Types>], name: &str, method: &str) -> Option<bool> {
    if let Some(here) = all.first()?.marks(name, method) {
        return Some(here);
    }
    agreed_marks(&all[1..], name, method)
}

/// Whether the traits named `name` in `all` mark `method`, where every one with that
/// method says the same (`None` where none has it or they differ).
fn agreed_marks(all: &[std::rc::Rc<Types>], name: &str, method: &str) -> Option<bool> {
    let mut found = all.iter().filter_map(|t| t.marks(name, method));
    let first = found.next()?;
    found.all(|m| m == first).then_some(first)
}

/// Whether a file of `all` defines a type named `name`.
fn defines(all: &[std::rc::Rc<Types>], name: &str) -> bool {
    all.iter().any(|t| t.defined.iter().any(|n| n == name))
}

/// What each path dependency's library defines (the package's own library among them).
fn dependencies_types() -> impl Iterator<Item = Vec<std::rc::Rc<Types>>> {
    crate::dependencies::source_folders()
        .into_iter()
        .filter_map(folder_types)
}

/// Whether the type named `name` (a struct, enum or union of the crate being compiled)
/// is Differentiable, as its definitions say: `Some(true)` when one derives or
/// implements `Differentiable`, `Some(false)` when it is defined (in the file where
/// `span` is, or in the crate's `src/`) and nothing makes it Differentiable, `None` when
/// no definition is found (a type from another crate, an alias).
pub fn differentiable_type(span: proc_macro2::Span, name: &str) -> Option<bool> {
    let found = read(&written_at(span)?);
    if found
        .iter()
        .any(|t| t.differentiable.iter().any(|n| n == name))
    {
        Some(true)
    } else if found.iter().any(|t| t.defined.iter().any(|n| n == name)) {
        Some(false)
    } else {
        None
    }
}

/// What the file where `span` is defines, then what the rest of its crate's sources
/// define ([`crate_files`]).
fn read(w: &Written) -> Vec<std::rc::Rc<Types>> {
    let mut all = vec![types_of(&w.path, &w.text)];
    if let Ok(dir) = std::env::var("CARGO_MANIFEST_DIR") {
        let files = crate_files(std::path::Path::new(&dir), &w.path, &w.text);
        all.extend(
            crate_types(files)
                .into_iter()
                .filter(|(path, _)| *path != w.path)
                .map(|(_, t)| t),
        );
    }
    all
}

/// The other source files of the crate the file at `path` (with text `text`) belongs to,
/// in the package at `manifest`, as far as their places tell: for a library or `main.rs`
/// under `src/`, the `.rs` files there but `src/bin/`; for a target in a folder of its own
/// (`src/bin/app/`, `tests/suite/`, `examples/demo/`), that folder's; for a target in one
/// file (`tests/t.rs`, `src/bin/b.rs`), the files of the modules it declares (`mod m;`:
/// `m.rs` or `m/` beside it, or its `#[path]`). A set a little too large is harmless: a
/// name is looked for in every file of it.
fn crate_files(
    manifest: &std::path::Path,
    path: &std::path::Path,
    text: &str,
) -> Vec<std::path::PathBuf> {
    type Found = std::collections::HashMap<std::path::PathBuf, Vec<std::path::PathBuf>>;
    thread_local! {
        static FOUND: std::cell::RefCell<Found> = Default::default();
    }
    if let Some(files) = FOUND.with(|f| f.borrow().get(path).cloned()) {
        return files;
    }
    // (`tests/../examples/e.rs`, a `#[path]` module, is `examples/e.rs`.)
    let mut plain = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                plain.pop();
            }
            std::path::Component::CurDir => {}
            part => plain.push(part),
        }
    }
    let files = find_crate_files(manifest, &plain, text);
    FOUND.with(|f| f.borrow_mut().insert(path.to_path_buf(), files.clone()));
    files
}

/// [`crate_files`], found.
fn find_crate_files(
    manifest: &std::path::Path,
    path: &std::path::Path,
    text: &str,
) -> Vec<std::path::PathBuf> {
    let src = manifest.join("src");
    let bin = src.join("bin");
    let mut files = Vec::new();
    if path.starts_with(&src) && !path.starts_with(&bin) {
        rust_files(&src, &bin, &mut files);
        return files;
    }
    let targets = [
        bin,
        manifest.join("tests"),
        manifest.join("examples"),
        manifest.join("benches"),
    ];
    let Some(dir) = targets.iter().find(|t| path.starts_with(t)) else {
        return files;
    };
    let Ok(rest) = path.strip_prefix(dir) else {
        return files;
    };
    let mut parts = rest.components();
    match (parts.next(), parts.next()) {
        // In a folder of its own.
        (Some(folder), Some(_)) => rust_files(&dir.join(folder), &dir.join(""), &mut files),
        // One file: the modules it declares.
        _ => {
            let Ok(file) = syn::parse_file(text) else {
                return files;
            };
            for item in &file.items {
                let syn::Item::Mod(m) = item else { continue };
                if m.content.is_some() {
                    continue;
                }
                let given = m.attrs.iter().find_map(|a| match &a.meta {
                    syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                });
                let name = m.ident.to_string();
                let candidates = match given {
                    Some(p) => vec![dir.join(p)],
                    None => vec![
                        dir.join(format!("{name}.rs")),
                        dir.join(&name).join("mod.rs"),
                    ],
                };
                for c in candidates.into_iter().filter(|c| c.is_file()) {
                    files.push(c);
                }
                rust_files(&dir.join(&name), &dir.join(""), &mut files);
            }
            files.dedup();
        }
    }
    files
}

/// What each of `files` defines, read once per run of the compiler for one set (a
/// crate's many functions ask again).
fn crate_types(files: Vec<std::path::PathBuf>) -> Vec<(std::path::PathBuf, std::rc::Rc<Types>)> {
    type Read = std::collections::HashMap<
        Vec<std::path::PathBuf>,
        Vec<(std::path::PathBuf, std::rc::Rc<Types>)>,
    >;
    thread_local! {
        static READ: std::cell::RefCell<Read> = Default::default();
    }
    if let Some(types) = READ.with(|read| read.borrow().get(&files).cloned()) {
        return types;
    }
    let types: Vec<_> = files
        .iter()
        .filter_map(|path| {
            let t = types_of(path, &std::fs::read_to_string(path).ok()?);
            Some((path.clone(), t))
        })
        .collect();
    READ.with(|read| read.borrow_mut().insert(files, types.clone()));
    types
}

/// What the library of the dependency named `krate` defines, when its source is at hand
/// (`dependencies.rs`).
fn dependency_types(krate: &str) -> Option<Vec<std::rc::Rc<Types>>> {
    folder_types(crate::dependencies::source_folder(krate)?)
}

/// What the library whose `src` folder is `src` defines.
fn folder_types(src: std::path::PathBuf) -> Option<Vec<std::rc::Rc<Types>>> {
    // Its files are listed once per run (the types, once per set: `crate_types`).
    type Listed = std::collections::HashMap<std::path::PathBuf, Vec<std::path::PathBuf>>;
    thread_local! {
        static LISTED: std::cell::RefCell<Listed> = Default::default();
    }
    let files = LISTED.with(|listed| {
        listed
            .borrow_mut()
            .entry(src.clone())
            .or_insert_with(|| {
                let mut files = Vec::new();
                rust_files(&src, &src.join("bin"), &mut files);
                files
            })
            .clone()
    });
    (!files.is_empty()).then(|| crate_types(files).into_iter().map(|(_, t)| t).collect())
}

/// The types defined in the file at `path` whose text is `text`, read once per text
/// (the macro runs once per function, often many times over one file).
fn types_of(path: &std::path::Path, text: &str) -> std::rc::Rc<Types> {
    type Cache = std::collections::HashMap<std::path::PathBuf, (String, std::rc::Rc<Types>)>;
    thread_local! {
        static READ: std::cell::RefCell<Cache> = Default::default();
    }
    READ.with(|read| {
        let mut read = read.borrow_mut();
        if let Some((t, types)) = read.get(path) {
            if t == text {
                return types.clone();
            }
        }
        let mut types = Types {
            file_module: file_module(path),
            ..Types::default()
        };
        if let Ok(file) = syn::parse_file(text) {
            syn::visit::Visit::visit_file(&mut types, &file);
        }
        let types = std::rc::Rc::new(types);
        read.insert(path.to_path_buf(), (text.to_string(), types.clone()));
        types
    })
}

/// The module a file is, by its name (`m.rs`, `m/mod.rs`); `None` for a crate's root
/// (`lib.rs`, `main.rs`, a target's own file).
fn file_module(path: &std::path::Path) -> Option<String> {
    let module = match path.file_stem()?.to_str()? {
        "lib" | "main" => return None,
        "mod" => path.parent()?.file_name()?.to_str()?,
        stem => stem,
    };
    // A target's own file (`src/bin/m.rs`, `tests/m.rs`) is its crate's root.
    let crate_name = std::env::var("CARGO_CRATE_NAME").ok()?;
    (module.replace('-', "_") != crate_name).then(|| module.to_string())
}

/// The `.rs` files under `dir` but not under `skip` (at most a few thousand).
fn rust_files(dir: &std::path::Path, skip: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if out.len() > 4000 {
            return;
        }
        if path.is_dir() && path != skip {
            rust_files(&path, skip, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// A struct with named fields: the inline modules of its file it is in, its name, and
/// its fields with their types as text.
/// A struct: the inline modules it is in, its name, its named fields with their types
/// (as text: tokens made in one run of the macro must not outlive it, and this is kept
/// for the next ones), and its dual twin (`twin.rs`) when it derives Differentiable and
/// has one.
type StructFields = (
    Vec<String>,
    String,
    Vec<(String, String)>,
    Option<crate::twin::Twin>,
);

/// A function of an inherent `impl` block, to the block's type's dual twin.
#[derive(Clone, Copy)]
enum TwinFn {
    /// A method, with a companion taking the twin; whether it returns the type.
    Method { returns_it: bool },
    /// An associated function without a receiver; whether it returns the type.
    Function { returns_it: bool },
}

/// The types a file defines, and those it makes Differentiable (a derive, an `impl`).
#[derive(Default)]
struct Types {
    defined: Vec<String>,
    differentiable: Vec<String>,
    /// Free functions neither `#[differentiable]` nor a registration.
    plain_functions: Vec<String>,
    /// Functions marked `#[differentiable]`, and the last names registrations are `of`.
    with_derivatives: Vec<String>,
    /// Modules (`mod m;`, `mod m { .. }`).
    modules: Vec<String>,
    /// Traits and type aliases (names a path may go through that are not modules).
    other_types: Vec<String>,
    /// Traits, each with its methods and whether it marks them `#[differentiable]`.
    traits: Vec<(String, Vec<(String, bool)>)>,
    /// The methods traits provide (with a body) that have a companion taking the
    /// receiver as its struct's twin (`twin::trait_twin_receiver`): `(trait, method)`.
    provided_on_twins: Vec<(String, String)>,
    /// The traits implemented for types of the file: `(type, trait)`.
    trait_impls: Vec<(String, String)>,
    /// The methods traits mark #[differentiable] that take `&self` or `self`: they have
    /// companions taking the receiver as a constant (`FnSig::with_constant_receiver`).
    constant_receivers: Vec<String>,
    /// Structs.
    structs: Vec<StructFields>,
    /// Structs with type parameters (`struct Gen<T> { a: T }`).
    generic_structs: Vec<String>,
    /// Of those, the ones generic over one type deriving `Clone` and `Differentiable`
    /// (a dual companion takes them at dual numbers, derive's `generic_lift`).
    dual_generic_structs: Vec<String>,
    /// Functions of inherent `impl` blocks marked `#[differentiable]`: the type, the
    /// name, and whether it is a method with a companion for the type's dual twin
    /// (`twin::takes_twin`), or else (no receiver) whether it returns the type.
    twin_methods: Vec<(String, String, TwinFn)>,
    /// Methods of marked `impl Trait for T` blocks taking a receiver the struct's twin can
    /// be: `(type, method, trait, whether it returns the type)`; those the trait does not
    /// mark are the type's own and have a twin companion.
    marked_block_methods: Vec<(String, String, String, bool)>,
    /// Types implementing an arithmetic operator (`impl Add for V`, `impl Mul<V> for
    /// f64`).
    arithmetic: Vec<String>,
    /// Of those, the ones with an operator whose derivative second order cannot call on
    /// the type's dual twin (not marked #[differentiable], `%`, taking or implemented
    /// for a reference): a value of the type may meet dual numbers in arithmetic, so it
    /// has no twin.
    untwinned_arithmetic: Vec<String>,
    /// The operators' methods implemented for a type (`impl Sub for V`: `("V",
    /// "__sub_by_v")`, `impl Neg for V`: `("V", "neg")`, `impl Mul<V> for f64`: `("V",
    /// "__rhs_mul")`; see `operator_impls.rs`) and whether each is marked
    /// #[differentiable].
    operator_methods: Vec<OperatorMethod>,
    /// The methods of inherent `impl` blocks (`impl V { fn m .. }`: `("V", "m")`) and
    /// whether each is marked #[differentiable].
    inherent_methods: Vec<(String, String, bool)>,
    /// The methods of inherent `impl` blocks returning nothing that can carry a
    /// derivative ([`carries_nothing`]) and taking no `&mut` parameter: `(type, method)`.
    inert_methods: Vec<(String, String)>,
    /// The methods of inherent `impl` blocks taking `&mut self`: `(type, method)`.
    mut_self_methods: Vec<(String, String)>,
    /// The methods of inherent `impl` blocks taking `&self`: `(type, method)`.
    ref_self_methods: Vec<(String, String)>,
    /// The methods marked #[differentiable] in `impl Trait for T` blocks.
    trait_impl_marks: Vec<String>,
    /// The inline modules the visit is in.
    path: Vec<String>,
    /// Each function (free, or of an `impl` block) with the last names of the paths and
    /// methods its body mentions (the functions it may call, and more).
    calls: Vec<(String, Vec<String>)>,
    /// Functions returning a named type: `(type of an inherent impl or "" for a free
    /// function, name, returned type's name)` (`Self` read as the impl's type).
    returns: Vec<(String, String, String)>,
    /// Free functions marked `#[differentiable(wrt = ..)]`: the name, and the names of
    /// the parameters `wrt` leaves out, with their positions.
    left_out: Vec<(String, LeftOut)>,
    /// The same of the methods of inherent `impl` blocks: (type, method, left out).
    methods_left_out: Vec<(String, String, LeftOut)>,
    /// Free functions: the name and the number of parameters.
    arities: Vec<(String, usize)>,
    /// Every function (free, of an `impl` block or a trait): the name, whether it takes
    /// a receiver, and for each parameter besides the receiver whether it is a shared
    /// reference (`&T`).
    shared_refs: Vec<(String, bool, Vec<bool>)>,
    /// Functions of `impl` blocks and traits taking a receiver whose result may carry a
    /// derivative (not an integer, `bool`, `String`, ..: [`carries_nothing`]): the name
    /// and the number of parameters besides the receiver.
    receiver_methods: Vec<(String, usize)>,
    /// Free functions returning a value: the name, and whether the result carries
    /// nothing that can hold a derivative ([`carries_nothing`]).
    free_results: Vec<(String, bool)>,
    /// Free functions marked #[differentiable] generic over their scalars only (`fn
    /// square<T: Float>(x: T)`): the name and the number of type parameters.
    scalar_generic_fns: Vec<(String, usize)>,
    /// Marked free functions with parameters of a generic type that is not a scalar, or
    /// of an `impl Trait` type (`coefficients: I`, `I: IntoIterator<Item = f64>`), and
    /// those parameters' positions.
    iterable_params: Vec<(String, Vec<usize>)>,
    /// The module the file is (`m` for `m.rs` and `m/mod.rs`; `None` for a crate root).
    file_module: Option<String>,
    /// Public free functions directly in a module of their own name (`mod sphere;`
    /// holding `pub fn sphere`): outside the module the module's name is the module's,
    /// not the function's carrier's (see `emit::names`).
    own_module_functions: Vec<String>,
    /// The names `use` items bring in by name, and the paths they bring them from, as
    /// text (`use a::b::f;`: `("f", "a::b::f")`; `use a::g as f;`: `("f", "a::g")`),
    /// with the inline modules the `use` is in.
    imports: Vec<(Vec<String>, String, String)>,
    /// The paths `use` items import everything from (`use a::b::*;`: `a::b`), with the
    /// inline modules the `use` is in.
    globs: Vec<(Vec<String>, String)>,
    /// Type aliases without parameters, with their types as text (`type Matrix =
    /// Vec<Vec<f64>>;`: `("Matrix", "Vec < Vec < f64 > >")`).
    aliases: Vec<(String, String)>,
}

impl Types {
    /// Whether the file's trait named `name` marks its method `method`
    /// `#[differentiable]` (`None` where the file has no such trait and method).
    fn marks(&self, name: &str, method: &str) -> Option<bool> {
        let (_, methods) = self.traits.iter().find(|(t, _)| t == name)?;
        methods
            .iter()
            .find(|(m, _)| m == method)
            .map(|(_, marked)| *marked)
    }
}

/// The last segment of the type a signature returns, `Self` as `owner`.
fn returned_name(sig: &syn::Signature, owner: &str) -> Option<String> {
    let syn::ReturnType::Type(_, t) = &sig.output else {
        return None;
    };
    let name = crate::differentiable::type_name(t)?;
    Some(if name == "Self" {
        owner.to_string()
    } else {
        name
    })
}

impl Types {
    /// Records a type's definition; whether it derives Differentiable.
    fn definition(&mut self, ident: &syn::Ident, attrs: &[syn::Attribute]) -> bool {
        let name = ident.to_string();
        let derives = derives_trait(attrs, "Differentiable");
        if derives {
            self.differentiable.push(name.clone());
        }
        self.defined.push(name);
        derives
    }

    /// Records which parameters of `sig` are shared references.
    fn signature(&mut self, sig: &syn::Signature) {
        let shared = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => {
                    Some(matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_none()))
                }
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.shared_refs
            .push((sig.ident.to_string(), sig.receiver().is_some(), shared));
    }

    /// Records a method's signature, and the method when its result may carry a
    /// derivative.
    fn method_result(&mut self, sig: &syn::Signature) {
        self.signature(sig);
        if sig.receiver().is_some() && !carries_nothing(&sig.output) {
            self.receiver_methods
                .push((sig.ident.to_string(), sig.inputs.len() - 1));
        }
    }
}

/// Whether a marked `impl` block differentiates its function `f`: `f` is marked, or
/// (`marks_none`: the block marks none of its functions) its result can carry a
/// derivative (`differentiable::implicitly_marked`; any type of the user's is taken to).
fn differentiated_in_block(
    f: &syn::ImplItemFn,
    generics: &syn::Generics,
    marks_none: bool,
) -> bool {
    let users =
        |name: &str| name != "String" && !crate::differentiable::is_std_not_differentiable(name);
    marked(&f.attrs, "differentiable")
        || (marks_none && crate::differentiable::implicitly_marked(&f.sig, generics, &users))
}

/// Whether a function returning `output` returns nothing that can carry a derivative:
/// nothing, integers, `bool`, `char`, strings, orderings, and `Option`s, `Result`s,
/// references, tuples, arrays, slices and collections (`Vec<usize>`) of those.
fn carries_nothing(output: &syn::ReturnType) -> bool {
    fn plain(t: &syn::Type) -> bool {
        match t {
            syn::Type::Reference(r) => plain(&r.elem),
            syn::Type::Paren(p) => plain(&p.elem),
            syn::Type::Tuple(t) => t.elems.iter().all(plain),
            syn::Type::Array(a) => plain(&a.elem),
            syn::Type::Slice(a) => plain(&a.elem),
            syn::Type::Path(p) if p.qself.is_none() => {
                let Some(last) = p.path.segments.last() else {
                    return false;
                };
                let name = last.ident.to_string();
                let wrapped = |args: &syn::PathArguments| match args {
                    syn::PathArguments::AngleBracketed(a) => a
                        .args
                        .iter()
                        .all(|a| matches!(a, syn::GenericArgument::Type(t) if plain(t))),
                    _ => false,
                };
                match name.as_str() {
                    "Option" | "Result" | "Vec" | "VecDeque" | "Box" | "HashSet" | "BTreeSet" => {
                        wrapped(&last.arguments)
                    }
                    n if crate::ir::INTEGER_TYPES.contains(&n)
                        || matches!(
                            n,
                            "bool" | "char" | "str" | "String" | "Ordering" | "FpCategory"
                        ) =>
                    {
                        last.arguments.is_none()
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
    match output {
        syn::ReturnType::Default => true,
        syn::ReturnType::Type(_, t) => plain(t),
    }
}

/// Whether the crate's source (where `method` is written) defines a method named
/// `method` taking `args` arguments besides the receiver, in an `impl` block or a
/// trait, whose result may carry a derivative: then a call of that name and number of
/// arguments is not taken for the standard library's method of the same name whose
/// result never does (`ir::is_inactive_method`: `len`, `position`, `count`, ..).
pub fn defines_carrying_method(method: &syn::Ident, args: usize) -> bool {
    type Known = std::collections::HashMap<(std::path::PathBuf, String, usize), bool>;
    thread_local! {
        static KNOWN: std::cell::RefCell<Known> = Default::default();
    }
    if !proc_macro::is_available() {
        return false;
    }
    let Some(file) = method.span().unwrap().local_file() else {
        return false;
    };
    let key = (file, method.to_string(), args);
    if let Some(known) = KNOWN.with(|k| k.borrow().get(&key).copied()) {
        return known;
    }
    let answer = written_at(method.span()).is_some_and(|w| {
        read(&w).iter().any(|t| {
            t.receiver_methods
                .iter()
                .any(|(m, n)| *m == key.1 && *n == args)
        })
    });
    KNOWN.with(|k| k.borrow_mut().insert(key, answer));
    answer
}

impl<'a> syn::visit::Visit<'a> for Types {
    fn visit_item_use(&mut self, i: &'a syn::ItemUse) {
        /// The names a tree brings in, with their paths, and the paths of its globs
        /// (`(None, path)`).
        fn leaves(tree: &syn::UseTree, prefix: &str, out: &mut Vec<(Option<String>, String)>) {
            let join = |name: &syn::Ident| match prefix {
                "" => name.to_string(),
                p => format!("{p}::{name}"),
            };
            match tree {
                syn::UseTree::Path(p) => leaves(&p.tree, &join(&p.ident), out),
                syn::UseTree::Name(n) if n.ident != "self" => {
                    out.push((Some(n.ident.to_string()), join(&n.ident)))
                }
                syn::UseTree::Rename(r) if r.ident != "self" => {
                    out.push((Some(r.rename.to_string()), join(&r.ident)))
                }
                syn::UseTree::Glob(_) => out.push((None, prefix.to_string())),
                syn::UseTree::Group(g) => {
                    for t in &g.items {
                        leaves(t, prefix, out);
                    }
                }
                _ => {}
            }
        }
        let root = if i.leading_colon.is_some() { "::" } else { "" };
        let mut found = Vec::new();
        leaves(&i.tree, "", &mut found);
        for (name, path) in found {
            let path = format!("{root}{path}");
            match name {
                Some(name) => self.imports.push((self.path.clone(), name, path)),
                None => self.globs.push((self.path.clone(), path)),
            }
        }
    }
    fn visit_item_mod(&mut self, i: &'a syn::ItemMod) {
        self.modules.push(i.ident.to_string());
        self.path.push(i.ident.to_string());
        syn::visit::visit_item_mod(self, i);
        self.path.pop();
    }
    fn visit_item_trait(&mut self, i: &'a syn::ItemTrait) {
        self.other_types.push(i.ident.to_string());
        let methods = i
            .items
            .iter()
            .filter_map(|item| match item {
                syn::TraitItem::Fn(f) => Some((
                    f.sig.ident.to_string(),
                    crate::differentiable::trait_differentiates(i, f),
                )),
                _ => None,
            })
            .collect();
        self.traits.push((i.ident.to_string(), methods));
        let generic = i.generics.type_params().next().is_some();
        for item in &i.items {
            if let syn::TraitItem::Fn(f) = item {
                let self_left_out = left_out_by_wrt(&f.attrs, &f.sig)
                    .is_some_and(|out| out.iter().any(|(k, _)| *k == 0));
                if f.default.is_some()
                    && crate::differentiable::trait_differentiates(i, f)
                    && crate::twin::trait_twin_receiver(&f.sig, self_left_out, generic).is_some()
                {
                    self.provided_on_twins
                        .push((i.ident.to_string(), f.sig.ident.to_string()));
                }
            }
        }
        self.constant_receivers
            .extend(i.items.iter().filter_map(|item| match item {
                syn::TraitItem::Fn(f)
                    if crate::differentiable::trait_differentiates(i, f)
                        && f.sig.receiver().is_some_and(|r| r.mutability.is_none()) =>
                {
                    Some(f.sig.ident.to_string())
                }
                _ => None,
            }));
        syn::visit::visit_item_trait(self, i);
    }
    fn visit_trait_item_fn(&mut self, i: &'a syn::TraitItemFn) {
        self.method_result(&i.sig);
        syn::visit::visit_trait_item_fn(self, i);
    }
    fn visit_item_type(&mut self, i: &'a syn::ItemType) {
        self.other_types.push(i.ident.to_string());
        if i.generics.params.is_empty() {
            self.aliases
                .push((i.ident.to_string(), i.ty.to_token_stream().to_string()));
        }
    }
    fn visit_item_fn(&mut self, i: &'a syn::ItemFn) {
        let name = i.sig.ident.to_string();
        let module = self.path.last().or(self.file_module.as_ref());
        if module == Some(&name) && !matches!(i.vis, syn::Visibility::Inherited) {
            self.own_module_functions.push(name.clone());
        }
        if let syn::ReturnType::Type(..) = &i.sig.output {
            self.free_results
                .push((name.clone(), carries_nothing(&i.sig.output)));
        }
        self.arities.push((name.clone(), i.sig.inputs.len()));
        self.signature(&i.sig);
        if let Some(ret) = returned_name(&i.sig, "Self") {
            self.returns.push((String::new(), name.clone(), ret));
        }
        self.with_derivatives.extend(registrations(&i.attrs));
        self.calls
            .push((name.clone(), Mentioned::in_fn(&i.sig, &i.block)));
        if marked(&i.attrs, "differentiable") {
            let g = crate::parse::types::generics(&i.sig.generics);
            let consts = i.sig.generics.const_params().next().is_some();
            if !g.all.is_empty() && g.scalars.len() == g.all.len() && !consts {
                self.scalar_generic_fns.push((name.clone(), g.all.len()));
            }
            let iterables: Vec<usize> = i
                .sig
                .inputs
                .iter()
                .enumerate()
                .filter(|(_, a)| match a {
                    syn::FnArg::Typed(t) => crate::parse::types::iterated_as_it_is(&t.ty, &g),
                    syn::FnArg::Receiver(_) => false,
                })
                .map(|(k, _)| k)
                .collect();
            if !iterables.is_empty() {
                self.iterable_params.push((name.clone(), iterables));
            }
            if let Some(out) = left_out_by_wrt(&i.attrs, &i.sig) {
                self.left_out.push((name.clone(), out));
            }
            self.with_derivatives.push(name);
        } else if !marked(&i.attrs, "derivative") {
            self.plain_functions.push(name);
        }
        syn::visit::visit_item_fn(self, i);
    }
    fn visit_impl_item_fn(&mut self, i: &'a syn::ImplItemFn) {
        self.method_result(&i.sig);
        self.with_derivatives.extend(registrations(&i.attrs));
        self.calls
            .push((i.sig.ident.to_string(), Mentioned::in_fn(&i.sig, &i.block)));
        syn::visit::visit_impl_item_fn(self, i);
    }
    fn visit_item_struct(&mut self, i: &'a syn::ItemStruct) {
        let derives = self.definition(&i.ident, &i.attrs);
        // (Generic over its floats only where its parameters may be floats.)
        let float_params = i.generics.type_params().all(crate::twin::float_like_param);
        if i.generics.type_params().next().is_some() && float_params {
            self.generic_structs.push(i.ident.to_string());
            if derives
                && derives_trait(&i.attrs, "Clone")
                && i.generics.params.len() == 1
                && i.generics.where_clause.is_none()
            {
                self.dual_generic_structs.push(i.ident.to_string());
            }
        }
        let fields = match &i.fields {
            syn::Fields::Named(named) => named
                .named
                .iter()
                .filter_map(|f| {
                    let ty = &f.ty;
                    Some((
                        f.ident.as_ref()?.to_string(),
                        quote::quote!(#ty).to_string(),
                    ))
                })
                .collect(),
            _ => Vec::new(),
        };
        let twin = (derives && i.generics.params.is_empty())
            .then(|| {
                crate::twin::of_fields(i.fields.iter().enumerate().map(|(k, f)| {
                    let name = f.ident.as_ref().map_or(k.to_string(), |id| id.to_string());
                    (name, marked(&f.attrs, "no_derivative"), &f.ty)
                }))
            })
            .flatten();
        self.structs
            .push((self.path.clone(), i.ident.to_string(), fields, twin));
    }
    fn visit_item_enum(&mut self, i: &'a syn::ItemEnum) {
        self.definition(&i.ident, &i.attrs);
    }
    fn visit_item_union(&mut self, i: &'a syn::ItemUnion) {
        self.definition(&i.ident, &i.attrs);
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        let implements = i
            .trait_
            .as_ref()
            .is_some_and(|(_, p, _)| ends_with(p, "Differentiable"));
        if let (true, syn::Type::Path(t)) = (implements, &*i.self_ty) {
            if let Some(last) = t.path.segments.last() {
                self.differentiable.push(last.ident.to_string());
            }
        }
        // A marked block marking none of its functions differentiates those whose result
        // can carry a derivative (`differentiable::implicitly_marked`; any type of the
        // user's is taken to).
        let block_marked = marked(&i.attrs, "differentiable");
        let marks_none = !i
            .items
            .iter()
            .any(|item| matches!(item, syn::ImplItem::Fn(f) if marked(&f.attrs, "differentiable")));
        if i.trait_.is_some() {
            // On a marked block, a method the trait does not mark is differentiable as a
            // method of the type: its companions are in an inherent `impl`
            // (`differentiable.rs`).
            let ty = match &*i.self_ty {
                syn::Type::Path(t) => t.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            };
            let generic = crate::differentiable::trait_generic(i);
            if let (Some(ty), Some((_, tr, _))) = (&ty, &i.trait_) {
                if let Some(last) = tr.segments.last() {
                    self.trait_impls.push((ty.clone(), last.ident.to_string()));
                }
            }
            for item in &i.items {
                if let syn::ImplItem::Fn(f) = item {
                    if marked(&f.attrs, "differentiable") {
                        self.trait_impl_marks.push(f.sig.ident.to_string());
                    }
                    // What the method returns for this type (`self.eval(t)`, a `Point`).
                    if let Some(ty) = &ty {
                        if let Some(ret) = returned_name(&f.sig, ty) {
                            self.returns
                                .push((ty.clone(), f.sig.ident.to_string(), ret));
                        }
                    }
                    let differentiated = differentiated_in_block(f, &i.generics, marks_none);
                    if let (true, true, Some(ty)) = (block_marked, differentiated, &ty) {
                        self.inherent_methods
                            .push((ty.clone(), f.sig.ident.to_string(), true));
                        // Where the trait does not mark it, its inherent companions
                        // include one taking the struct's twin (`Seen::twin_at`).
                        let trait_name = i.trait_.as_ref().and_then(|(_, p, _)| p.segments.last());
                        if let (Some(tr), Some(true)) =
                            (trait_name, f.sig.receiver().map(crate::twin::takes_twin))
                        {
                            let returns_it = returned_name(&f.sig, ty).as_ref() == Some(ty);
                            self.marked_block_methods.push((
                                ty.clone(),
                                f.sig.ident.to_string(),
                                tr.ident.to_string(),
                                returns_it,
                            ));
                        }
                    }
                    // A method marked in an implementation of a trait marking it has a
                    // companion taking the struct's twin (the trait declares it,
                    // `differentiable.rs`).
                    let self_left_out = left_out_by_wrt(&f.attrs, &f.sig)
                        .is_some_and(|out| out.iter().any(|(k, _)| *k == 0));
                    let takes_twin =
                        crate::twin::trait_twin_receiver(&f.sig, self_left_out, generic).is_some();
                    if let (true, false, true, Some(ty)) = (
                        marked(&f.attrs, "differentiable"),
                        block_marked,
                        takes_twin,
                        &ty,
                    ) {
                        let returns_it = returned_name(&f.sig, ty).as_ref() == Some(ty);
                        self.twin_methods.push((
                            ty.clone(),
                            f.sig.ident.to_string(),
                            TwinFn::Method { returns_it },
                        ));
                    }
                }
            }
        }
        if let (None, syn::Type::Path(t)) = (&i.trait_, &*i.self_ty) {
            if let Some(last) = t.path.segments.last() {
                let marks_all = block_marked && marks_none;
                for item in &i.items {
                    // An associated constant of a type (`Vec2::ZERO`), as a function
                    // returning its type would.
                    if let syn::ImplItem::Const(c) = item {
                        let ty = last.ident.to_string();
                        if let Some(name) = crate::differentiable::type_name(&c.ty) {
                            let name = if name == "Self" { ty.clone() } else { name };
                            self.returns.push((ty, c.ident.to_string(), name));
                        }
                    }
                    if let syn::ImplItem::Fn(f) = item {
                        let receiver = f.sig.receiver();
                        let (ty, name) = (last.ident.to_string(), f.sig.ident.to_string());
                        if let Some(ret) = returned_name(&f.sig, &ty) {
                            self.returns.push((ty.clone(), name.clone(), ret));
                        }
                        let is_marked = differentiated_in_block(f, &i.generics, marks_all);
                        self.inherent_methods
                            .push((ty.clone(), name.clone(), is_marked));
                        let updates = f.sig.inputs.iter().any(|a| {
                            matches!(a, syn::FnArg::Typed(t)
                                if matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()))
                        });
                        let returns = !matches!(f.sig.output, syn::ReturnType::Default);
                        if returns && !updates && carries_nothing(&f.sig.output) {
                            self.inert_methods.push((ty.clone(), name.clone()));
                        }
                        match receiver {
                            Some(r) if r.reference.is_some() && r.mutability.is_some() => {
                                self.mut_self_methods.push((ty.clone(), name.clone()));
                            }
                            Some(r) if r.reference.is_some() => {
                                self.ref_self_methods.push((ty.clone(), name.clone()));
                            }
                            _ => {}
                        }
                        if let Some(out) = marked(&f.attrs, "differentiable")
                            .then(|| left_out_by_wrt(&f.attrs, &f.sig))
                            .flatten()
                        {
                            self.methods_left_out.push((ty.clone(), name.clone(), out));
                        }
                        if !is_marked {
                            continue;
                        }
                        let returns_it = match &f.sig.output {
                            syn::ReturnType::Type(_, t) => matches!(&**t,
                                syn::Type::Path(p) if p.path.is_ident("Self") || p.path.is_ident(&last.ident)),
                            syn::ReturnType::Default => false,
                        };
                        match receiver {
                            None => {
                                self.twin_methods
                                    .push((ty, name, TwinFn::Function { returns_it }))
                            }
                            Some(r) if crate::twin::takes_twin(r) => {
                                self.twin_methods
                                    .push((ty, name, TwinFn::Method { returns_it }))
                            }
                            Some(_) => {}
                        }
                    }
                }
            }
        }
        const OPERATORS: &[&str] = &[
            "Add",
            "Sub",
            "Mul",
            "Div",
            "Rem",
            "Neg",
            "AddAssign",
            "SubAssign",
            "MulAssign",
            "DivAssign",
            "RemAssign",
        ];
        let operator = i.trait_.as_ref().is_some_and(|(_, p, _)| {
            p.segments
                .last()
                .is_some_and(|s| OPERATORS.iter().any(|o| s.ident == o))
        });
        if let (true, syn::Type::Path(t)) = (operator, &*i.self_ty) {
            if let Some(last) = t.path.segments.last() {
                let output_type = crate::operator_impls::output_type(i);
                let output = output_type
                    .as_ref()
                    .and_then(crate::differentiable::type_name)
                    .map(|n| {
                        if n == "Self" {
                            last.ident.to_string()
                        } else {
                            n
                        }
                    });
                let output_type = output_type.map(|t| t.to_token_stream().to_string());
                let trait_path = i.trait_.as_ref().map(|(_, p, _)| p);
                // The twin's arithmetic is the operator's dual companion: a method of
                // the struct on the left taking itself by value, or an associated
                // function of the struct on the right (`impl Mul<V> for f64`).
                let mut twinned = crate::operator_impls::operand_by_value(i);
                for item in &i.items {
                    if let syn::ImplItem::Fn(f) = item {
                        // (A marked block differentiates the methods marked in it, and
                        // its operator.)
                        let is_marked = marked(&f.attrs, "differentiable")
                            || (marked(&i.attrs, "differentiable")
                                && crate::operator_impls::implements_operator(
                                    i.trait_.as_ref().map(|(_, p, _)| p),
                                    &f.sig.ident,
                                ));
                        let Some((ty, method)) =
                            crate::operator_impls::called_as(i, &f.sig.ident.to_string())
                        else {
                            continue;
                        };
                        if crate::operator_impls::implements_assignment(trait_path, &f.sig.ident) {
                            // `p += q` is `p = p + q`.
                        } else if !is_marked
                            || !crate::operator_impls::implements_operator(trait_path, &f.sig.ident)
                        {
                            twinned = false;
                        } else if twinned {
                            let returns_it = output.as_deref() == Some(ty.as_str());
                            let kind = match f.sig.receiver() {
                                _ if crate::operator_impls::split_on_right(&method).is_some() => {
                                    TwinFn::Function { returns_it }
                                }
                                Some(r) if crate::twin::takes_twin(r) => {
                                    TwinFn::Method { returns_it }
                                }
                                _ => {
                                    twinned = false;
                                    continue;
                                }
                            };
                            self.twin_methods.push((ty.clone(), method.clone(), kind));
                        }
                        self.operator_methods.push(OperatorMethod {
                            ty,
                            method,
                            marked: is_marked,
                            output: output.clone(),
                            output_type: output_type.clone(),
                        });
                    }
                }
                if !twinned {
                    self.untwinned_arithmetic.extend(
                        operand_names(i).filter(|n| !crate::differentiable::is_primitive(n)),
                    );
                }
            }
        }
        if operator {
            self.arithmetic.extend(operand_names(i));
            if !matches!(&*i.self_ty, syn::Type::Path(_)) {
                self.untwinned_arithmetic.extend(operand_names(i));
            }
        }
        syn::visit::visit_item_impl(self, i);
    }
}

/// The names of the types an operator's `impl` makes meet in arithmetic: the type it
/// is for and its right operand (`impl Mul<V> for f64` makes `V` meet floats too),
/// references taken off.
fn operand_names(i: &syn::ItemImpl) -> impl Iterator<Item = String> + '_ {
    let rhs = i
        .trait_
        .iter()
        .flat_map(|(_, p, _)| match p.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(a)) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        });
    std::iter::once(&*i.self_ty)
        .chain(rhs)
        .filter_map(|mut ty| {
            while let syn::Type::Reference(r) = ty {
                ty = &r.elem;
            }
            match ty {
                syn::Type::Path(t) => t.path.segments.last().map(|s| s.ident.to_string()),
                _ => None,
            }
        })
}

/// The last names of the paths a function's body mentions, but for its local variables
/// and parameters (a local `det` is not the method `det`) unless called by that name.
#[derive(Default)]
struct Mentioned {
    names: Vec<String>,
    /// The names patterns bind.
    bound: Vec<String>,
    /// The names called (`f(..)`).
    called: Vec<String>,
}

impl Mentioned {
    /// The names the function of signature `sig` and body `block` mentions.
    fn in_fn(sig: &syn::Signature, block: &syn::Block) -> Vec<String> {
        let mut m = Mentioned::default();
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                syn::visit::Visit::visit_pat(&mut m, &t.pat);
            }
        }
        syn::visit::Visit::visit_block(&mut m, block);
        let Mentioned {
            names,
            bound,
            called,
        } = m;
        names
            .into_iter()
            .filter(|n| !bound.contains(n) || called.contains(n))
            .collect()
    }

    fn add(&mut self, name: &syn::Ident) {
        let name = name.to_string();
        if !self.names.contains(&name) {
            self.names.push(name);
        }
    }
}

impl<'a> syn::visit::Visit<'a> for Mentioned {
    fn visit_path(&mut self, p: &'a syn::Path) {
        if let Some(last) = p.segments.last() {
            self.add(&last.ident);
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_expr_method_call(&mut self, m: &'a syn::ExprMethodCall) {
        self.add(&m.method);
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.bound.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_call(&mut self, c: &'a syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            if let Some(last) = p.path.segments.last() {
                self.called.push(last.ident.to_string());
            }
        }
        syn::visit::visit_expr_call(self, c);
    }
}

/// Whether some other function of the crate's sources (read from where `span` is)
/// mentions the name `name` (told apart by name only); `false` when the sources cannot
/// be read.
pub fn is_called(span: proc_macro2::Span, name: &str) -> bool {
    written_at(span).is_some_and(|w| {
        read(&w)
            .iter()
            .flat_map(|t| t.calls.iter())
            .any(|(f, mentioned)| f != name && mentioned.iter().any(|m| m == name))
    })
}

/// Whether the function or method named `from` may call the one named `to`, directly or
/// through others, as the crate's sources (read from where `span` is) say: functions
/// are told apart by name only, so a name two modules or types define counts as one.
/// `false` when the sources cannot be read.
pub fn reaches(span: proc_macro2::Span, from: &str, to: &str) -> bool {
    let Some(w) = written_at(span) else {
        return false;
    };
    let all = read(&w);
    let mut seen = vec![from.to_string()];
    let mut next = 0;
    while next < seen.len() {
        let at = seen[next].clone();
        next += 1;
        for (_, mentioned) in all
            .iter()
            .flat_map(|t| t.calls.iter())
            .filter(|(f, _)| *f == at)
        {
            for name in mentioned {
                if name == to {
                    return true;
                }
                if !seen.contains(name) {
                    seen.push(name.clone());
                }
            }
        }
    }
    false
}

/// The attributes `attrs` apply, each `#[cfg_attr(condition, a, b)]` read as `a, b`:
/// the file is read before `cfg`s are evaluated, and a function marked only under a
/// feature (`#[cfg_attr(feature = "ad", differentiable)]`) is marked wherever its
/// callers' own attributes apply.
fn applied(attrs: &[syn::Attribute]) -> Vec<syn::Meta> {
    fn push(meta: syn::Meta, out: &mut Vec<syn::Meta>) {
        match &meta {
            syn::Meta::List(list) if list.path.is_ident("cfg_attr") => {
                let parsed = list.parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                );
                for inner in parsed.into_iter().flatten().skip(1) {
                    push(inner, out);
                }
            }
            _ => out.push(meta),
        }
    }
    let mut out = Vec::new();
    for a in attrs {
        push(a.meta.clone(), &mut out);
    }
    out
}

/// Whether `attrs` derive the trait `name` (`#[derive(Clone, diff::Differentiable)]`).
fn derives_trait(attrs: &[syn::Attribute], name: &str) -> bool {
    applied(attrs).iter().any(|m| match m {
        syn::Meta::List(list) if list.path.is_ident("derive") => list
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .is_ok_and(|paths| paths.iter().any(|p| ends_with(p, name))),
        _ => false,
    })
}

/// Whether `attrs` apply the attribute `name` (by its last segment).
fn marked(attrs: &[syn::Attribute], name: &str) -> bool {
    applied(attrs).iter().any(|m| ends_with(m.path(), name))
}

/// The tokens after `key =` in an attribute's arguments (`of = path, ..`, `wrt = (..)`).
fn value_of<'t>(
    tokens: &'t [proc_macro2::TokenTree],
    key: &str,
) -> Option<&'t [proc_macro2::TokenTree]> {
    let at = tokens.windows(2).position(|w| {
        matches!((&w[0], &w[1]), (proc_macro2::TokenTree::Ident(i), proc_macro2::TokenTree::Punct(p)) if i == key && p.as_char() == '=')
    })?;
    Some(&tokens[at + 2..])
}

/// The parameters (position, name) of `sig` that the `wrt = ..` of its
/// `#[differentiable(..)]` among `attrs` leaves out; `None` without a `wrt`.
fn left_out_by_wrt(attrs: &[syn::Attribute], sig: &syn::Signature) -> Option<Vec<(usize, String)>> {
    let list = applied(attrs).into_iter().find_map(|m| match m {
        syn::Meta::List(l) if ends_with(&l.path, "differentiable") => Some(l.tokens),
        _ => None,
    })?;
    let tokens: Vec<proc_macro2::TokenTree> = list.into_iter().collect();
    // `wrt = x` or `wrt = (x, y)`.
    let named: Vec<String> = match value_of(&tokens, "wrt")?.first()? {
        proc_macro2::TokenTree::Group(g) => g
            .stream()
            .into_iter()
            .filter_map(|t| match t {
                proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
                _ => None,
            })
            .collect(),
        proc_macro2::TokenTree::Ident(i) => vec![i.to_string()],
        _ => return None,
    };
    let names: Vec<Option<String>> = sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Receiver(_) => Some("self".to_string()),
            syn::FnArg::Typed(t) => match &*t.pat {
                syn::Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
        })
        .collect();
    Some(
        names
            .into_iter()
            .enumerate()
            .filter_map(|(k, n)| Some((k, n?)))
            .filter(|(_, n)| !named.contains(n))
            .collect(),
    )
}

/// The parameters (position, name) that the `wrt` of the free function `name` leaves
/// out, when the crate's sources (read from where `span` is) define one function of that
/// name, marked `#[differentiable(wrt = ..)]`.
pub fn left_out_by_wrt_of(span: proc_macro2::Span, name: &str) -> Vec<(usize, String)> {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return Vec::new();
    };
    // (Another function of that name, or a registration for one, may be the one called.)
    let defined = all
        .iter()
        .flat_map(|t| t.plain_functions.iter().chain(&t.with_derivatives))
        .filter(|f| *f == name)
        .count();
    if defined != 1 {
        return Vec::new();
    }
    let mut found = all
        .iter()
        .flat_map(|t| t.left_out.iter())
        .filter(|(f, _)| f == name);
    match (found.next(), found.next()) {
        (Some((_, out)), None) => out.clone(),
        _ => Vec::new(),
    }
}

/// The parameters (position, name) a function's `wrt` leaves out.
type LeftOut = Vec<(usize, String)>;

/// [`left_out_by_wrt_of`] for the method `method` of an inherent `impl` of the type
/// `ty` (the receiver is parameter 0), when the crate's sources define one such method.
pub fn method_left_out_by_wrt_of(
    span: proc_macro2::Span,
    ty: &str,
    method: &str,
) -> Vec<(usize, String)> {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return Vec::new();
    };
    let defined = all
        .iter()
        .flat_map(|t| t.inherent_methods.iter())
        .filter(|(t, m, _)| t == ty && m == method)
        .count();
    if defined != 1 || given_a_derivative(&all, method) {
        return Vec::new();
    }
    all.iter()
        .flat_map(|t| t.methods_left_out.iter())
        .find(|(t, m, _)| t == ty && m == method)
        .map(|(_, _, out)| out.clone())
        .unwrap_or_default()
}

/// The number of parameters of the free function `name`, when the crate's sources (read
/// from where `span` is) define functions of that name with one number of them.
pub fn free_function_arity(span: proc_macro2::Span, name: &str) -> Option<usize> {
    let all = written_at(span).map(|w| read(&w))?;
    let mut arities = all
        .iter()
        .flat_map(|t| t.arities.iter())
        .filter(|(f, _)| f == name)
        .map(|(_, n)| *n);
    let first = arities.next()?;
    arities.all(|n| n == first).then_some(first)
}

/// Whether the parameter at `position` (besides a receiver) of the method (`method`) or
/// free function `name` called with `args` arguments (besides a receiver) is a shared
/// reference (`&T`) in every definition of that name the crate's sources (read from
/// where `span` is) show: a `&mut` borrow passed there is read, not updated.
pub fn takes_shared_ref(
    span: proc_macro2::Span,
    name: &str,
    method: bool,
    args: usize,
    position: usize,
) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    let mut defined = all
        .iter()
        .flat_map(|t| t.shared_refs.iter())
        .filter(|(f, receiver, shared)| f == name && *receiver == method && shared.len() == args)
        .map(|(_, _, shared)| shared[position])
        .peekable();
    defined.peek().is_some() && defined.all(|shared| shared)
}

/// The functions `#[derivative(of = path, ..)]` attributes among `attrs` register.
fn registrations(attrs: &[syn::Attribute]) -> Vec<String> {
    applied(attrs)
        .iter()
        .filter(|m| ends_with(m.path(), "derivative"))
        .filter_map(registered)
        .collect()
}

/// The last name of the path a `#[derivative(of = path, ..)]` registers.
fn registered(meta: &syn::Meta) -> Option<String> {
    let syn::Meta::List(list) = meta else {
        return None;
    };
    let tokens: Vec<proc_macro2::TokenTree> = list.tokens.clone().into_iter().collect();
    value_of(&tokens, "of")?
        .iter()
        .take_while(|t| !matches!(t, proc_macro2::TokenTree::Punct(p) if p.as_char() == ','))
        .filter_map(|t| match t {
            proc_macro2::TokenTree::Ident(i) => Some(i.to_string()),
            _ => None,
        })
        .last()
}

/// Whether a call of the free function `name` at `span` certainly has no derivative: the
/// file defines a function of that name that is neither `#[differentiable]` nor a
/// registration, and nothing in the file or under the crate's `src/` gives a function
/// of that name a derivative (a mark or a registration `of` it).
pub fn has_no_derivative(span: proc_macro2::Span, name: &str) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    all[0].plain_functions.iter().any(|n| n == name) && !given_a_derivative(&all, name)
}

/// Whether the crate's sources (read from where `span` is) mark a function named `name`
/// #[differentiable] or register a derivative of one: a call `Jn(0, x)` is of that
/// function, whatever its name looks like, not a tuple struct's constructor.
pub fn is_given_a_derivative(span: proc_macro2::Span, name: &str) -> bool {
    written_at(span).is_some_and(|w| given_a_derivative(&read(&w), name))
}

/// Whether any of the files `all` marks a function named `name` #[differentiable] or
/// registers a derivative of one.
fn given_a_derivative(all: &[std::rc::Rc<Types>], name: &str) -> bool {
    all.iter()
        .any(|t| t.with_derivatives.iter().any(|n| n == name))
}

/// Whether the free function `name` returns a value that cannot carry a derivative (an
/// integer, a `bool`, a `char`, a `String`, a `Vec<usize>`: [`carries_nothing`]), as
/// every definition of a function of that
/// name the crate's sources show (read from where `span` is) says: a call of it is
/// primal code, whatever its arguments (`helper_len(xs) as f64`).
pub fn returns_no_derivative(span: proc_macro2::Span, name: &str) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    let mut defined = all
        .iter()
        .flat_map(|t| t.free_results.iter())
        .filter(|(f, _)| f == name)
        .peekable();
    defined.peek().is_some() && defined.all(|(_, inert)| *inert) && !given_a_derivative(&all, name)
}

/// Whether `name` is an associated constant of a float type, as every associated item of
/// that name of the crate's inherent `impl` blocks says (`const SHIFT: f64 = 0.5;`):
/// `Self::SHIFT` and `Poly::SHIFT` are floats.
pub fn float_constant(span: proc_macro2::Span, name: &str) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    let mut defined = all
        .iter()
        .flat_map(|t| t.returns.iter())
        .filter(|(owner, item, _)| !owner.is_empty() && item == name)
        .peekable();
    defined.peek().is_some() && defined.all(|(_, _, ty)| ty == "f64" || ty == "f32")
}

/// Whether the method `method` called on a value of the type `ty` has no derivative, as
/// far as the crate's source shows: an inherent `impl` of `ty` defines it without
/// `#[differentiable]`, none defines it with, and nothing registers a derivative for a
/// function of that name.
pub fn method_has_no_derivative(span: proc_macro2::Span, ty: &str, method: &str) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    let defined = |marked: bool| {
        all.iter().any(|t| {
            t.inherent_methods
                .iter()
                .any(|(t, m, k)| t == ty && m == method && *k == marked)
        })
    };
    defined(false) && !defined(true) && !given_a_derivative(&all, method)
}

/// For a call of the free function `name` (written at `span`): the number of its type
/// parameters when the crate's source defines it #[differentiable] and generic over
/// its scalars only (`fn square<T: Float>(x: T)`), and no other function of that name.
pub fn scalar_generic_arity(span: proc_macro2::Span, name: &str) -> Option<usize> {
    let all = read(&written_at(span)?);
    let mut found = all.iter().flat_map(|t| {
        t.scalar_generic_fns
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, k)| *k)
    });
    let k = found.next()?;
    let defined = all
        .iter()
        .flat_map(|t| &t.arities)
        .filter(|(n, _)| n == name)
        .count();
    (found.next().is_none() && defined == 1).then_some(k)
}

/// The positions of the parameters of the marked free function `name` whose type is a
/// generic one that is not a scalar, or `impl Trait` ([`Types::iterable_params`]): a
/// dual companion takes those as they are, so a call passes them unconverted.
pub fn iterable_params(span: proc_macro2::Span, name: &str) -> Vec<usize> {
    let Some(w) = written_at(span) else {
        return Vec::new();
    };
    read(&w)
        .iter()
        .flat_map(|t| t.iterable_params.iter())
        .find(|(n, _)| n == name)
        .map(|(_, ks)| ks.clone())
        .unwrap_or_default()
}

/// Whether the crate's source (where `method` is written) registers a derivative for a
/// function or method named `method` and marks none of that name `#[differentiable]`
/// (in an inherent `impl` or a trait): a call of it has no dual companion to call.
pub fn registered_only(method: &syn::Ident) -> bool {
    let Some(all) = written_at(method.span()).map(|w| read(&w)) else {
        return false;
    };
    let name = method.to_string();
    let marked = all.iter().any(|t| {
        t.inherent_methods.iter().any(|(_, m, k)| *k && *m == name)
            || t.traits
                .iter()
                .any(|(_, ms)| ms.iter().any(|(m, k)| *k && *m == name))
            || t.trait_impl_marks.contains(&name)
    });
    given_a_derivative(&all, &name) && !marked
}

/// Whether a call of the method `method` on a value of the type `ty` is primal code, as
/// far as the crate's source shows: the inherent `impl`s of `ty` define it unmarked,
/// returning nothing that can carry a derivative (an index, a `bool`) and taking no
/// `&mut` parameter, and nothing gives a function of that name a derivative.
pub fn method_returns_no_derivative(span: proc_macro2::Span, ty: &str, method: &str) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    let inert = all
        .iter()
        .any(|t| t.inert_methods.iter().any(|(u, m)| u == ty && m == method));
    inert && method_has_no_derivative(span, ty, method)
}

/// Whether an inherent `impl` of the type `ty` in the crate's source (where `at` is
/// written) defines `method` taking `&self`.
pub fn takes_ref_self(at: proc_macro2::Span, ty: &str, method: &str) -> bool {
    written_at(at).is_some_and(|w| {
        read(&w).iter().any(|t| {
            t.ref_self_methods
                .iter()
                .any(|(u, m)| u == ty && m == method)
        })
    })
}

/// Whether the method `method`, called in an expression (`let r = s.grow(k);`) on a value
/// of the type `ty` gives (`None`: not known), updates its receiver, as far as the crate's
/// source shows: an inherent `impl` of `ty` (of any type, when `ty` is not known) defines
/// it taking `&mut self`, and none defines a method of that name taking `self` or `&self`.
pub fn updates_receiver(
    span: proc_macro2::Span,
    ty: impl FnOnce() -> Option<String>,
    method: &str,
) -> bool {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    // (The receiver's type is looked for only when the crate has a method of that name.)
    let named = all
        .iter()
        .any(|f| f.mut_self_methods.iter().any(|(_, n)| n == method));
    if !named {
        return false;
    }
    let ty = ty();
    let of_type = |t: &String| ty.as_ref().is_none_or(|ty| t == ty);
    let updating = |t: &String, m: &String| {
        all.iter()
            .any(|f| f.mut_self_methods.iter().any(|(u, n)| u == t && n == m))
    };
    let defined: Vec<bool> = all
        .iter()
        .flat_map(|f| f.inherent_methods.iter())
        .filter(|(t, m, _)| of_type(t) && m == method)
        .map(|(t, m, _)| updating(t, m))
        .collect();
    !defined.is_empty() && defined.iter().all(|u| *u)
}

/// Whether the crate marks `ty::f` #[differentiable] (`ty` `None` for `Self::f`), in an
/// inherent `impl` of the type or in a trait, and no registration gives a function of
/// that name a derivative: its dual companion (emit/dual.rs) is beside its first-order
/// ones, `ty::__vjp_dual_f`.
pub fn marked_associated(span: proc_macro2::Span, ty: Option<&str>, f: &str) -> bool {
    let Some(mut all) = written_at(span).map(|w| read(&w)) else {
        return false;
    };
    // A type the crate does not define: the path dependencies' (see `Seen::twin`).
    if let Some(ty) = ty.filter(|ty| !defines(&all, ty)) {
        all.extend(dependencies_types().filter(|d| defines(d, ty)).flatten());
    }
    let inherent = all.iter().any(|t| {
        t.inherent_methods
            .iter()
            .any(|(t, m, k)| *k && m == f && ty.is_none_or(|ty| t == ty))
    });
    let in_trait = all
        .iter()
        .flat_map(|t| t.traits.iter())
        .any(|(_, methods)| methods.iter().any(|(m, k)| *k && m == f));
    (inherent || in_trait) && !given_a_derivative(&all, f)
}

/// For a call of the method `method` with a derivative: the trait of the crate that
/// declares it without `#[differentiable]` where no other trait, inherent `impl` or
/// registration gives a method of that name one, and whether an `impl` of a trait marks
/// a method of that name (which is refused where it is, for want of the trait's mark).
pub fn unmarked_trait_method(span: proc_macro2::Span, method: &str) -> Option<(String, bool)> {
    let all = read(&written_at(span)?);
    let trait_marks = |marked: bool| {
        all.iter()
            .flat_map(|t| t.traits.iter())
            .find(|(_, methods)| methods.iter().any(|(m, k)| m == method && *k == marked))
    };
    let (name, _) = trait_marks(false)?;
    let elsewhere = trait_marks(true).is_some()
        || given_a_derivative(&all, method)
        || all
            .iter()
            .any(|t| t.inherent_methods.iter().any(|(_, m, k)| m == method && *k));
    let impl_marks = all
        .iter()
        .any(|t| t.trait_impl_marks.iter().any(|m| m == method));
    (!elsewhere).then(|| (name.clone(), impl_marks))
}

/// What the macros read where a name is written, read once for several questions: the
/// file, the types of the file and the crate ([`read`]), and the inline modules the name
/// is in.
pub struct Seen {
    all: Vec<std::rc::Rc<Types>>,
    module: Option<Vec<String>>,
}

/// [`Seen`] where `at` is written; `None` where the compiler gives no file.
pub fn seen(at: &syn::Ident) -> Option<Seen> {
    let w = written_at(at.span())?;
    let name = at.to_string();
    let name = crate::operator_impls::written_as(&name);
    let module = module_path_in(&w.text, w.line, w.column, name);
    Some(Seen {
        all: read(&w),
        module,
    })
}

impl Seen {
    /// The crate's structs with type parameters (`struct Gen<T> { a: T }`).
    pub fn generic_structs(&self) -> Vec<String> {
        self.all
            .iter()
            .flat_map(|t| t.generic_structs.iter().cloned())
            .collect()
    }

    /// The methods marked #[differentiable] in inherent `impl` blocks of the crate's
    /// generic structs that no other type's inherent `impl` marks.
    pub fn generic_methods(&self) -> Vec<String> {
        let generic = self.generic_structs();
        let marked = self
            .all
            .iter()
            .flat_map(|t| t.inherent_methods.iter())
            .filter(|(_, _, k)| *k);
        let (of_generic, of_other): (Vec<_>, Vec<_>) =
            marked.partition(|(ty, _, _)| generic.contains(ty));
        let mut out: Vec<String> = of_generic
            .into_iter()
            .map(|(_, m, _)| m.clone())
            .filter(|m| !of_other.iter().any(|(_, o, _)| o == m))
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// The crate's structs a dual companion takes at dual numbers
    /// (`Types::dual_generic_structs`).
    pub fn dual_generic_structs(&self) -> Vec<String> {
        self.all
            .iter()
            .flat_map(|t| t.dual_generic_structs.iter().cloned())
            .collect()
    }

    /// The methods a trait of the crate marks #[differentiable] that take `&self` or
    /// `self` (`value` of `trait Objective { #[differentiable] fn value(&self, x: f64)
    /// -> f64; }`): they have companions taking the receiver as a constant.
    ///
    /// Those of the path dependencies' traits too (the package's own library's, for its
    /// binaries, tests and examples): a method of their traits is called on a receiver
    /// carrying no derivative as in their crate.
    pub fn trait_methods(&self) -> Vec<String> {
        let dependencies = dependencies_types().flatten();
        let mut out: Vec<String> = self
            .all
            .iter()
            .cloned()
            .chain(dependencies)
            .flat_map(|t| t.constant_receivers.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Whether the type `name` has an arithmetic operator implemented for it by the
    /// crate (`impl Add for V`, `impl Mul<V> for f64`).
    pub fn has_operators(&self, name: &str) -> bool {
        self.all
            .iter()
            .any(|t| t.arithmetic.iter().any(|n| n == name))
    }

    /// Whether the source implements an arithmetic operator for a type of its own.
    pub fn any_arithmetic(&self) -> bool {
        self.all.iter().any(|t| !t.arithmetic.is_empty())
    }

    /// The type `function` returns, when the crate's source shows one function of that
    /// name (of the inherent `impl` blocks of `owner`, or free when `owner` is empty)
    /// returning a named type.
    pub fn returned_type(&self, owner: &str, function: &str) -> Option<String> {
        let mut found = self
            .all
            .iter()
            .flat_map(|t| &t.returns)
            .filter(|(o, f, _)| o == owner && f == function)
            .map(|(_, _, r)| r);
        let first = found.next()?;
        found.all(|r| r == first).then(|| first.clone())
    }

    /// The operator methods implemented for the type `name` (`__add_by_v`,
    /// `__mul_by_f64`, `neg`, ..; `__rhs_mul` for `impl Mul<V> for f64`, with `V` on the
    /// right) and whether each is marked #[differentiable].
    pub fn operators(&self, name: &str) -> Vec<OperatorMethod> {
        self.all
            .iter()
            .flat_map(|t| &t.operator_methods)
            .filter(|o| o.ty == name)
            .cloned()
            .collect()
    }

    /// The named fields of the struct `name` and their types (see [`Seen::struct_def`]).
    pub fn struct_fields(&self, name: &str) -> Option<Vec<(String, syn::Type)>> {
        let (_, _, fields, _) = self.struct_def(name)?;
        fields
            .iter()
            .map(|(field, ty)| Some((field.clone(), syn::parse_str(ty).ok()?)))
            .collect()
    }

    /// The dual twin (`twin.rs`) of the struct `name` (see [`Seen::struct_def`]): `Some`
    /// only when its definition derives Differentiable and has one, so that the derive
    /// made it, and every arithmetic implemented with it is #[differentiable], taking it
    /// by value (second order calls it on the twin; otherwise a value of the type the
    /// macro cannot see as one, a call's result, could meet dual numbers).
    ///
    /// A struct the crate does not define is looked for in its path dependencies (the
    /// package's own library for its tests, examples and binaries), where exactly one
    /// defines a type of that name: `use mylib::dist::Normal;` in a test.
    pub fn twin(&self, name: &str) -> Option<crate::twin::Twin> {
        if defines(&self.all, name) {
            return self.twin_at(name, 0);
        }
        let mut defining = dependencies_types().filter(|all| defines(all, name));
        match (defining.next(), defining.next()) {
            (Some(all), None) => Seen { all, module: None }.twin_at(name, 0),
            _ => None,
        }
    }

    /// [`Seen::twin`] of a struct a field names (`pos: Vec2`), as the derive and the
    /// function's macro both find it: the only type of that name in what they read.
    pub fn nested_twin(&self, name: &str) -> Option<crate::twin::Twin> {
        self.twin_at(name, 1)
    }

    /// [`Seen::twin`] at nesting `depth` (0: as seen where the name is written; deeper:
    /// the only type of that name), its nested structs resolved.
    fn twin_at(&self, name: &str, depth: usize) -> Option<crate::twin::Twin> {
        if depth > 4 {
            return None;
        }
        let all = &self.all;
        if all
            .iter()
            .any(|t| t.untwinned_arithmetic.iter().any(|n| n == name))
        {
            return None;
        }
        let def = if depth == 0 {
            self.struct_def(name)
        } else {
            only_struct(all, name)
        };
        let mut twin = crate::twin::resolve(def?.3?, |n| self.twin_at(n, depth + 1))?;
        twin.name = name.to_string();
        let free = all
            .iter()
            .flat_map(|t| &t.returns)
            .filter(|(o, _, r)| o.is_empty() && r == name);
        for (_, f, _) in free {
            if !twin.returned_by.contains(f) && self.returned_type("", f).as_deref() == Some(name) {
                twin.returned_by.push(f.clone());
            }
        }
        for t in all.iter() {
            for (_, f, kind) in t.twin_methods.iter().filter(|(ty, ..)| ty == name) {
                match kind {
                    TwinFn::Method { returns_it } => {
                        twin.methods.push(f.clone());
                        if *returns_it {
                            twin.methods_returning_it.push(f.clone());
                        } else if let Some(other) = self.returned_type(name, f) {
                            twin.methods_returning.push((f.clone(), other));
                        }
                    }
                    TwinFn::Function { returns_it } => {
                        twin.functions.push((f.clone(), *returns_it))
                    }
                }
            }
        }
        for (_, f, tr, returns_it) in all
            .iter()
            .flat_map(|t| &t.marked_block_methods)
            .filter(|(ty, ..)| ty == name)
        {
            let unmarked = agreed_marks(all, tr, f) == Some(false);
            if unmarked && !twin.methods.contains(f) {
                twin.methods.push(f.clone());
                if *returns_it {
                    twin.methods_returning_it.push(f.clone());
                }
            }
        }
        // The methods the traits it implements provide, which the traits declare taking
        // its twin (their default stops, saying why), unless its implementation
        // defines them.
        for t in all.iter() {
            for (_, tr) in t.trait_impls.iter().filter(|(ty, _)| ty == name) {
                let provided = all
                    .iter()
                    .flat_map(|u| &u.provided_on_twins)
                    .filter(|(p, _)| p == tr);
                for (_, m) in provided {
                    if !twin.methods.contains(m) {
                        twin.methods.push(m.clone());
                    }
                }
            }
        }
        // Its operators giving another struct (`impl Sub for Point { type Output = Vec2 }`).
        for o in self.operators(name) {
            if let Some(out) = o.output.filter(|out| out != name) {
                if !twin.methods_returning.iter().any(|(m, _)| *m == o.method) {
                    twin.methods_returning.push((o.method, out));
                }
            }
        }
        Some(twin)
    }

    /// The struct `name`: the one the same module of the file defines, or else the only
    /// type of that name in the file or the crate's `src/`.
    fn struct_def(&self, name: &str) -> Option<StructFields> {
        if let Some(path) = &self.module {
            let mut here = self.all[0]
                .structs
                .iter()
                .filter(|(p, n, _, _)| p == path && n == name);
            if let (Some(found), None) = (here.next(), here.next()) {
                return Some(found.clone());
            }
        }
        only_struct(&self.all, name)
    }
}

/// The struct `name` when it is the only type of that name in `all`.
fn only_struct(all: &[std::rc::Rc<Types>], name: &str) -> Option<StructFields> {
    let definitions: usize = all
        .iter()
        .map(|t| t.defined.iter().filter(|n| *n == name).count())
        .sum();
    let mut found = all
        .iter()
        .flat_map(|t| t.structs.iter().filter(|(_, n, _, _)| n == name));
    match (found.next(), definitions) {
        (Some(found), 1) => Some(found.clone()),
        _ => None,
    }
}

/// How a name alone, where it is written, brings in a public function in a module of its
/// own name ([`Types::own_module_functions`]), where a call through the name cannot find
/// the companions (see `emit::names`).
pub enum OwnModuleImport {
    /// A `use` of the name's module brings it in by name (`use a::b::f;`, `use a::g as
    /// f;`), from this path (`a::b::f`, `a::g`).
    ByName(String),
    /// No `use` of the module brings it by name, and the function is the crate's, or of
    /// a dependency the module imports everything from (`use xlib::*;`): a glob brings
    /// it, with the companions beside it (`__vjp_f`).
    ByGlob,
    /// Neither (or not known).
    No,
}

/// How the name `ident` is brought in, when it is a function in a module of its own name
/// ([`OwnModuleImport`]).
pub fn own_module_import(ident: &syn::Ident) -> OwnModuleImport {
    let Some(w) = written_at(ident.span()) else {
        return OwnModuleImport::No;
    };
    let all = read(&w);
    let name = ident.to_string();
    let Some(here) = module_path_in(&w.text, w.line, w.column, &name) else {
        return OwnModuleImport::No;
    };
    let imported = all[0]
        .imports
        .iter()
        .find(|(m, n, _)| *m == here && *n == name);
    if let Some((_, _, path)) = imported {
        let last = path.rsplit("::").next().unwrap_or("");
        let from = first_segment(path);
        let own = match dependency_types(from) {
            Some(dependency) if !is_module_in(&all, from) => in_own_module(&dependency, last),
            _ => in_own_module(&all, last),
        };
        return match own {
            true => OwnModuleImport::ByName(path.clone()),
            false => OwnModuleImport::No,
        };
    }
    let by_glob = in_own_module(&all, &name)
        || all[0].globs.iter().any(|(m, g)| {
            let from = first_segment(g);
            *m == here
                && !is_module_in(&all, from)
                && dependency_types(from).is_some_and(|d| in_own_module(&d, &name))
        });
    match by_glob {
        true => OwnModuleImport::ByGlob,
        false => OwnModuleImport::No,
    }
}

/// The path to where a function named through modules of this crate is defined, when
/// the module before its name re-exports it by name (`m::kepler` where `m` holds `mod
/// kepler;` and `pub use kepler::kepler;`: `m::kepler::kepler`), followed through a
/// few such re-exports; `None` when there is none to follow. A function in a module of
/// its own name re-exported by name brings no companions along (the module shadows its
/// carrier, and the items beside it stay in the module), so a call names them where
/// the function is defined. Only for a function in a module of its own name; re-exports
/// through `super::` or another crate are not followed.
pub fn defining_path(span: proc_macro2::Span, path: &[String]) -> Option<Vec<String>> {
    let all = written_at(span).map(|w| read(&w))?;
    if !in_own_module(&all, path.last()?) {
        return None;
    }
    let mut path = path.to_vec();
    let mut followed = false;
    for _ in 0..4 {
        let [.., module, name] = &path[..] else {
            break;
        };
        let reexport = all.iter().find_map(|t| {
            t.imports.iter().find_map(|(m, n, from)| {
                let here = m.last().or(if m.is_empty() {
                    t.file_module.as_ref()
                } else {
                    None
                });
                (here == Some(module)
                    && n == name
                    && from.rsplit("::").next() == Some(name.as_str()))
                .then_some(from)
            })
        });
        let Some(from) = reexport else {
            break;
        };
        let from: Vec<String> = from.split("::").map(str::to_string).collect();
        // From the crate's root, or from the module re-exporting (after `self`).
        let relative = match from.first().map(String::as_str) {
            Some("crate") => None,
            Some("self") => Some(1),
            Some(first) if is_module_in(&all, first) => Some(0),
            _ => break,
        };
        let next: Vec<String> = match relative {
            None => from,
            Some(k) => path[..path.len() - 1]
                .iter()
                .chain(&from[k..])
                .cloned()
                .collect(),
        };
        if next == path {
            break;
        }
        path = next;
        followed = true;
    }
    followed.then_some(path)
}

/// The crate of the function a call names by `path` (read through imports), when the
/// call reaches its companions only through the function's key (diff-core `Key`): a
/// public function in a module of its own name, named through another crate whose source
/// is at hand (`xlib::erf`, the crate's library name), or through modules of this crate
/// that re-export it by name ([`defining_path`]; this crate's name). Outside its module,
/// such a function's carrier is shadowed by the module, and the items beside it are in
/// the module, which may be private (`mod erf; pub use self::erf::erf;`, libm's layout).
pub fn keyed_crate(span: proc_macro2::Span, path: &[String]) -> Option<String> {
    let [first, .., last] = path else {
        return None;
    };
    let all = written_at(span).map(|w| read(&w))?;
    let local = ["crate", "self", "super"].contains(&first.as_str()) || names_local(&all, first);
    if !local {
        let dependency = dependency_types(first)?;
        return in_own_module(&dependency, last)
            .then(|| crate::dependencies::library_name(first))
            .flatten();
    }
    defining_path(span, path)?;
    std::env::var("CARGO_CRATE_NAME").ok()
}

/// Whether a call by `path`, through another crate whose source is at hand (`xlib::f`,
/// `xlib::m::f`), finds the function's companions through its carrier: when the path goes
/// through modules of that crate only and the function is not in a module of its own
/// name there (see `emit::names`). `None` for a path not through such a crate, or to a
/// function it does not mark `#[differentiable]` or register a derivative for.
pub fn through_dependency_names_carrier(path: &syn::Path) -> Option<bool> {
    let n = path.segments.len();
    if n < 2 {
        return None;
    }
    let first = &path.segments[0].ident;
    let from = first.to_string();
    if ["crate", "self", "super", "Self"].contains(&from.as_str()) {
        return None;
    }
    // (Asked of every path: the file is read only for a dependency's name.)
    let dependency = dependency_types(&from)?;
    let all = written_at(first.span()).map(|w| read(&w))?;
    if names_local(&all, &from) {
        return None;
    }
    let through_modules = path
        .segments
        .iter()
        .take(n - 1)
        .skip(1)
        .all(|s| s.arguments.is_none() && is_module_in(&dependency, &s.ident.to_string()));
    let last = path.segments[n - 1].ident.to_string();
    // Only functions the macro gave companions there (not the library's rules, which
    // name their companions by hand).
    if !dependency
        .iter()
        .any(|t| t.with_derivatives.contains(&last))
    {
        return None;
    }
    Some(through_modules && !in_own_module(&dependency, &last))
}

/// Whether a path's first segment `first` names a module or type of this crate (not a
/// dependency).
fn names_local(all: &[std::rc::Rc<Types>], first: &str) -> bool {
    is_module_in(all, first) || defines(all, first)
}

fn first_segment(path: &str) -> &str {
    path.trim_start_matches("::")
        .split("::")
        .next()
        .unwrap_or("")
}

fn in_own_module(all: &[std::rc::Rc<Types>], name: &str) -> bool {
    all.iter()
        .any(|t| t.own_module_functions.iter().any(|f| f == name))
}

/// Whether `all` has a module named `name` and no type or trait of that name.
fn is_module_in(all: &[std::rc::Rc<Types>], name: &str) -> bool {
    let name = name.to_string();
    let named = |list: &dyn Fn(&Types) -> &Vec<String>| all.iter().any(|t| list(t).contains(&name));
    named(&|t| &t.modules) && !named(&|t| &t.defined) && !named(&|t| &t.other_types)
}

/// The type aliases without parameters of the crate where `span` is written, each with
/// the type it stands for (as tokens without spans of their own; `parse::aliases` gives
/// them the spans of their uses); those of a name the crate defines twice are left out.
pub fn aliases(span: proc_macro2::Span) -> Vec<(String, proc_macro2::TokenStream)> {
    let Some(all) = written_at(span).map(|w| read(&w)) else {
        return Vec::new();
    };
    let mut out: Vec<(String, proc_macro2::TokenStream)> = Vec::new();
    let mut twice: Vec<String> = Vec::new();
    for (name, ty) in all.iter().flat_map(|t| t.aliases.iter()) {
        let Ok(tokens) = ty.parse::<proc_macro2::TokenStream>() else {
            continue;
        };
        match out.iter().find(|(n, _)| n == name) {
            Some((_, t)) if t.to_string() != tokens.to_string() => twice.push(name.clone()),
            Some(_) => {}
            None => out.push((name.clone(), tokens)),
        }
    }
    out.retain(|(n, _)| !twice.contains(n) && !all.iter().any(|t| t.defined.contains(n)));
    out
}

/// Whether `ident` (a segment of a path, before its last) names a module of the crate
/// and no type or trait: the file or the crate's `src/` has a `mod` of that name and no
/// struct, enum, union, trait or type alias.
pub fn is_module(ident: &syn::Ident) -> bool {
    let Some(all) = written_at(ident.span()).map(|w| read(&w)) else {
        return false;
    };
    is_module_in(&all, &ident.to_string())
}

/// Whether `ident`, where it is written, names a local variable of the function around
/// it rather than a function: a `let` of an open block before it binds the name, or the
/// function (or a closure around it) takes a parameter of that name. `false` when the
/// file cannot be read where the compiler says.
pub fn is_local_variable(ident: &syn::Ident) -> bool {
    let name = ident.to_string();
    written_at(ident.span()).is_some_and(|w| local_in(&w.text, w.line, w.column, &name))
}

/// [`is_local_variable`] for `name` written at `line` and `column` of `text`.
fn local_in(text: &str, line: usize, column: usize, name: &str) -> bool {
    let Some(frames) = open_frames(text, line, column, name) else {
        return false;
    };
    frames.iter().any(|f| {
        f.lets.iter().any(|l| l == name)
            || (f.delimiter == '{'
                && syn::parse_str::<syn::ItemFn>(&f.item(text)).is_ok_and(|item| {
                    item.sig.inputs.iter().any(|a| {
                        matches!(a, syn::FnArg::Typed(t)
                            if matches!(&*t.pat, syn::Pat::Ident(p) if p.ident == name))
                    })
                }))
    })
}

/// The file where a span is: its path (absolute), its text, and where in it the span
/// starts (line from 1, column from 0).
struct Written {
    path: std::path::PathBuf,
    text: String,
    line: usize,
    column: usize,
}

/// Where `span` is written, when the compiler says and the file can be read.
fn written_at(span: proc_macro2::Span) -> Option<Written> {
    if !proc_macro::is_available() {
        return None;
    }
    let span = span.unwrap();
    let path = span.local_file()?;
    let path = std::env::current_dir().map_or(path.clone(), |d| d.join(&path));
    let text = std::fs::read_to_string(&path).ok()?;
    // The compiler counts columns from 1.
    let (line, column) = (span.line(), span.column().saturating_sub(1));
    Some(Written {
        path,
        text,
        line,
        column,
    })
}

/// One open delimiter, `{`, `(` or `[`: where it is, and where the words before it began.
struct Frame {
    delimiter: char,
    open: usize,
    header: usize,
    /// The names `let` binds directly in the block before the position (`let x`, `let
    /// mut x`; not the names of other patterns), and those the `for` opening the block
    /// binds (`for f in fs`, `for (i, f) in ..`).
    lets: Vec<String>,
}

impl Frame {
    /// The block's header (from where its words begin to its `{`) with an empty body,
    /// to parse as the item it opens (`impl A {}`, `mod m {}`).
    fn item(&self, text: &str) -> String {
        format!("{} {{}}", &text[self.header..self.open])
    }
}

/// The block open at `line` (from 1) and `column` (from 0, in characters) of `text`,
/// where `name` must be written.
pub fn enclosing_in(text: &str, line: usize, column: usize, name: &str) -> Enclosing {
    let Some(frames) = open_frames(text, line, column, name) else {
        return Enclosing::Unknown;
    };
    let Some(frame) = frames.last() else {
        return Enclosing::Module;
    };
    if frame.delimiter != '{' {
        return Enclosing::Unknown;
    }
    let head = frame.item(text);
    if let Ok(block) = syn::parse_str::<syn::ItemImpl>(&head) {
        return Enclosing::Impl(Box::new(block));
    }
    if let Ok(block) = syn::parse_str::<syn::ItemTrait>(&head) {
        return Enclosing::Trait(Box::new(block));
    }
    Enclosing::Module
}

/// The name of the module an item whose name is at `span` is directly in: the innermost
/// inline `mod m { .. }` around it, or else its file's module (`m.rs`, `m/mod.rs`).
/// `None` at a crate's root (`lib.rs`, `main.rs`, a target's own file) or when unknown.
pub fn own_module(span: proc_macro2::Span) -> Option<String> {
    let name = span.source_text()?;
    let written = written_at(span)?;
    let inline = module_path_in(&written.text, written.line, written.column, &name)?;
    if let Some(m) = inline.last() {
        return Some(m.clone());
    }
    file_module(&written.path)
}

/// The inline modules (`mod m { .. }`) open at `line` and `column` of `text`, outermost
/// first, where `name` must be written.
fn module_path_in(text: &str, line: usize, column: usize, name: &str) -> Option<Vec<String>> {
    let frames = open_frames(text, line, column, name)?;
    Some(
        frames
            .iter()
            .filter(|f| f.delimiter == '{')
            .filter_map(|f| {
                syn::parse_str::<syn::ItemMod>(&f.item(text))
                    .ok()
                    .map(|m| m.ident.to_string())
            })
            .collect(),
    )
}

/// The delimiters open at `line` (from 1) and `column` (from 0, in characters) of
/// `text`, outermost first, where `name` must be written (`None` if it is not, or the
/// text does not balance).
fn open_frames(text: &str, line: usize, column: usize, name: &str) -> Option<Vec<Frame>> {
    let target = offset_of(text, line, column)?;
    if !text[target..].starts_with(name.trim_start_matches("r#")) {
        return None;
    }
    let chars: Vec<(usize, char)> = text[..target].char_indices().collect();
    let mut frames: Vec<Frame> = Vec::new();
    // Where the words since the last `;`, `{` or `}` at the innermost level began.
    let mut header = 0;
    let mut i = 0;
    let at = |i: usize| chars.get(i).map(|c| c.1);
    let offset = |i: usize| chars.get(i).map_or(target, |c| c.0);
    // After `let` (and `mut`): the next word is a name it binds.
    let mut after_let = false;
    // The names a `for` pattern binds, for the block after it (`for f in fs { .. }`).
    let mut after_for = false;
    let mut for_names: Vec<String> = Vec::new();
    while i < chars.len() {
        let c = chars[i].1;
        if !(c.is_whitespace() || c == '_' || c.is_alphanumeric()) {
            after_let = false;
        }
        match c {
            '/' if at(i + 1) == Some('/') => {
                while i < chars.len() && chars[i].1 != '\n' {
                    i += 1;
                }
            }
            '/' if at(i + 1) == Some('*') => {
                let mut depth = 0;
                while i < chars.len() {
                    if chars[i].1 == '/' && at(i + 1) == Some('*') {
                        depth += 1;
                        i += 2;
                    } else if chars[i].1 == '*' && at(i + 1) == Some('/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                continue;
            }
            '"' => {
                i = skip_string(&chars, i + 1, 0, true);
                continue;
            }
            '\'' => {
                // A character literal, or a lifetime (`'a`, no closing quote).
                if at(i + 1) == Some('\\') {
                    i += 3;
                    while i < chars.len() && chars[i].1 != '\'' {
                        i += 1;
                    }
                } else if at(i + 2) == Some('\'') {
                    i += 2;
                }
            }
            c if c == '_' || c.is_alphanumeric() => {
                let start = i;
                while i < chars.len() && (chars[i].1 == '_' || chars[i].1.is_alphanumeric()) {
                    i += 1;
                }
                let word: String = chars[start..i].iter().map(|c| c.1).collect();
                match word.as_str() {
                    "let" => after_let = true,
                    // (Not `for<'a>`, a bound.)
                    "for"
                        if (i..chars.len())
                            .map(|k| chars[k].1)
                            .find(|c| !c.is_whitespace())
                            != Some('<') =>
                    {
                        after_for = true;
                        for_names.clear();
                    }
                    "in" if after_for => after_for = false,
                    "mut" | "ref" => {}
                    _ if after_for => for_names.push(word.clone()),
                    _ if after_let => {
                        after_let = false;
                        if let Some(block) = frames.last_mut() {
                            block.lets.push(word.clone());
                        }
                    }
                    _ => {}
                }
                let prefix = matches!(word.as_str(), "r" | "b" | "br" | "c" | "cr");
                if prefix && matches!(at(i), Some('"' | '#')) {
                    let mut hashes = 0;
                    while at(i + hashes) == Some('#') {
                        hashes += 1;
                    }
                    if at(i + hashes) == Some('"') {
                        let raw = word.contains('r');
                        i = skip_string(&chars, i + hashes + 1, hashes, !raw);
                    }
                }
                continue;
            }
            '{' | '(' | '[' => {
                // A block after `for .. in ..` is the loop's body; one before `in` ends a
                // `for` that was no loop (`impl Trait for Type {`).
                let lets = match (c, after_for) {
                    ('{', false) => std::mem::take(&mut for_names),
                    ('{', true) => {
                        after_for = false;
                        for_names.clear();
                        Vec::new()
                    }
                    _ => Vec::new(),
                };
                frames.push(Frame {
                    delimiter: c,
                    open: chars[i].0,
                    header,
                    lets,
                });
                header = offset(i + 1);
            }
            '}' | ')' | ']' => {
                let frame = frames.pop()?;
                // After a block, a new item; after parentheses, the same words go on.
                header = if frame.delimiter == '{' {
                    offset(i + 1)
                } else {
                    frame.header
                };
            }
            ';' => {
                header = offset(i + 1);
                after_for = false;
            }
            _ => {}
        }
        i += 1;
    }
    Some(frames)
}

/// Skips a string literal's body from `i` (after its opening quote) to after its closing
/// quote and `hashes` hashes; `escapes` for non-raw strings.
fn skip_string(chars: &[(usize, char)], mut i: usize, hashes: usize, escapes: bool) -> usize {
    while i < chars.len() {
        match chars[i].1 {
            '\\' if escapes => i += 2,
            '"' if (1..=hashes).all(|k| chars.get(i + k).map(|c| c.1) == Some('#')) => {
                return i + 1 + hashes;
            }
            _ => i += 1,
        }
    }
    i
}

/// The byte offset of `line` (from 1) and `column` (from 0, in characters).
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let start = if line == 1 {
        0
    } else {
        text.match_indices('\n').nth(line.checked_sub(2)?)?.0 + 1
    };
    let rest = &text[start..];
    let col = rest
        .char_indices()
        .nth(column)
        .map(|c| c.0)
        .or_else(|| (rest.chars().count() == column).then_some(rest.len()))?;
    Some(start + col)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, name: &str) -> String {
        let offset = text.find(&format!("fn {name}")).unwrap() + 3;
        let line = text[..offset].matches('\n').count() + 1;
        let column = text[..offset].rsplit('\n').next().unwrap().chars().count();
        match enclosing_in(text, line, column, name) {
            Enclosing::Impl(b) => match &b.trait_ {
                Some((_, t, _)) => format!("impl {} for", quote::quote!(#t)),
                None => format!("impl {}", b.generics.params.len()),
            },
            Enclosing::Trait(t) => format!("trait {}", t.ident),
            Enclosing::Module => "module".into(),
            Enclosing::Unknown => "unknown".into(),
        }
    }

    #[test]
    fn local_variables_are_told_from_functions() {
        let text = "fn main(k: f64) {\n    let f = |x: f64| x * k;\n    { let g = 1.0; }\n    let mut h = 2.0;\n    if let Some(v) = o { }\n    call(f, g, h, k, loss, v);\n}\n";
        let line = 6;
        let column = |name: &str| text.lines().nth(5).unwrap().find(name).unwrap();
        for (name, local) in [
            ("f", true),
            ("g", false),
            ("h", true),
            ("k", true),
            ("loss", false),
            ("v", false),
        ] {
            assert_eq!(local_in(text, line, column(name), name), local, "{name}");
        }
    }

    #[test]
    fn a_for_loop_binds_its_names_in_its_body_only() {
        // `impl Trait for Type` is no loop: the `let`s after it are still seen.
        let text = "impl Tr for S {}\nfn main() {\n    let f = 1.0;\n    for (i, g) in gs {\n        use_it(g, i);\n    }\n    call(f, g, i);\n}\n";
        let at = |line: usize, name: &str| {
            let column = text.lines().nth(line - 1).unwrap().find(name).unwrap();
            local_in(text, line, column, name)
        };
        assert!(at(5, "g") && at(5, "i"));
        assert!(at(7, "f"));
        assert!(!at(7, "g") && !at(7, "i"));
    }

    #[test]
    fn blocks_are_told_apart() {
        let text = r#####"
// impl X { fn in_comment() }
/* nested /* impl */ { */
fn free() {}
struct A;
#[derive(Clone)]
impl A {
    const S: &str = "}{ impl";
    const R: &str = r##"}"{"##;
    const C: char = '{';
    const Q: char = '\'';
    fn assoc<'a>(x: &'a f64) -> f64 { let c = '}'; *x }
    fn after() {}
}
/// Docs.
unsafe impl<F: Fn(f64) -> f64> Send for W<F> where for<'a> F: Fn(&'a f64) {
    fn in_trait_impl() {}
}
impl<T, U> B<T> where for<'a> &'a T: Copy { fn hrtb() {} }
trait T { fn declared(); }
mod m { fn in_mod() {} }
fn outer() { fn local() {} }
impl A { m!(fn in_macro() {}); }
"#####;
        assert_eq!(at(text, "free"), "module");
        assert_eq!(at(text, "assoc"), "impl 0");
        assert_eq!(at(text, "after"), "impl 0");
        assert_eq!(at(text, "in_trait_impl"), "impl Send for");
        assert_eq!(at(text, "hrtb"), "impl 2");
        assert_eq!(at(text, "declared"), "trait T");
        assert_eq!(at(text, "in_mod"), "module");
        assert_eq!(at(text, "local"), "module");
        assert_eq!(at(text, "in_macro"), "unknown");
        assert!(matches!(
            enclosing_in(text, 4, 3, "other"),
            Enclosing::Unknown
        ));
        assert!(matches!(
            enclosing_in(text, 400, 3, "free"),
            Enclosing::Unknown
        ));
    }
}
