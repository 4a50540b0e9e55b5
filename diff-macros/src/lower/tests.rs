//! Lowering tests on the printed IR.
use super::lower_body;
use syn::parse_quote;

fn ir(params: Vec<syn::Pat>, body: syn::Block) -> String {
    let mut errors = crate::errors::Errors::default();
    match lower_body(
        &params,
        &body,
        vec!["T".into()],
        vec![],
        vec![],
        super::Structs::default(),
        &mut errors,
    ) {
        Some(l) => l.func.to_string(),
        None => format!("error: {}", errors.into_result().expect_err("an error")),
    }
}

#[test]
fn straight_line_with_shadowing_and_compound_assignment() {
    let out = ir(
        vec![parse_quote!(x), parse_quote!(y)],
        parse_quote!({
            let t = x * y;
            let mut s = t.exp();
            s += t;
            let t = -s;
            t
        }),
    );
    let expected = "\
r0():
  %0 = param 0
  %1 = param 1
  %2 = mul %0, %1
  %3 = method exp(%2)
  %4 = add %3, %2
  %5 = const ()
  %6 = neg %4
  yield %6
";
    assert_eq!(out, expected);
}

#[test]
fn tuple_patterns_project_fields_and_scalar_paths_are_methods() {
    let out = ir(
        vec![parse_quote!((a, b))],
        parse_quote!({ T::max(a, f64::sin(b)) }),
    );
    // Each part is read where it is bound (a copy), then used.
    assert!(
        out.contains("%1 = field %0.0\n  %2 = ref %1\n  %3 = load %2"),
        "{out}"
    );
    assert!(out.contains("method sin(%6)"), "{out}");
    assert!(out.contains("method max(%3, %7)"), "{out}");
}

#[test]
fn if_yields_assigned_variables() {
    let out = ir(
        vec![parse_quote!(x)],
        parse_quote!({
            let mut y = x;
            if x > 0.0 {
                y = x * 2.0;
            }
            y
        }),
    );
    assert!(out.contains("%7, %8 = if %1 then r1 else r2"), "{out}");
    assert!(out.contains("      %3 = mul %0, %2\n"), "{out}");
    assert!(out.contains("yield %5, %3"), "{out}");
    assert!(out.contains("yield %6, %0"), "{out}");
    assert!(out.ends_with("  yield %8\n"), "{out}");
}

#[test]
fn for_loop_carries_assigned_variables() {
    let out = ir(
        vec![parse_quote!(x)],
        parse_quote!({
            let mut acc = x;
            for i in 0..3 {
                acc = acc * x;
            }
            acc
        }),
    );
    assert!(out.contains("%10 = for %3 carry (%0) body r1\n"), "{out}");
    assert!(out.contains("r1(%4, %5):"), "{out}");
    assert!(out.contains("%7 = mul %4, %0"), "{out}");
}

#[test]
fn unsupported_syntax_is_an_error_at_the_construct() {
    let out = ir(
        vec![parse_quote!(x)],
        parse_quote!({
            let y = x?;
            y
        }),
    );
    assert!(
        out.starts_with("error: the `?` operator is not supported"),
        "{out}"
    );
    let out = ir(
        vec![parse_quote!(x)],
        // A loop's value deep in an expression (as a `let`'s or a block's value it is
        // rewritten, `exits.rs`).
        parse_quote!({
            1.0 + loop {
                break x;
            }
        }),
    );
    assert!(
        out.starts_with("error: `break` with a label or a value is not supported"),
        "{out}"
    );
}

#[test]
fn early_exits_absorb_the_rest_of_the_block() {
    let out = ir(
        vec![parse_quote!(x)],
        parse_quote!({
            if x < 0.0 {
                return -x;
            }
            x * 2.0
        }),
    );
    // The multiplication after the `if` moved into its else-region.
    assert!(
        out.contains("    r2():\n      %3 = const 2.0\n      %4 = mul %0, %3\n      yield %4"),
        "{out}"
    );
}

#[test]
fn break_makes_the_body_yield_a_stop_flag() {
    let out = ir(
        vec![parse_quote!(x)],
        parse_quote!({
            let mut y = x;
            while y > 1.0 {
                y = y * 0.5;
            }
            y
        }),
    );
    assert!(out.contains("until stop"), "{out}");
}
