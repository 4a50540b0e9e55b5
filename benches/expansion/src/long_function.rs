//! 300 lines of straight-line and branchy arithmetic: `let`s, compound assignments,
//! `if` / `else if` / `else` statements and expressions, a `match` on an inactive integer,
//! and the float methods of std. Generated once; edit freely, but keep it the same on both
//! sides of a comparison.
#[allow(unused_imports)]
use diff::prelude::*;

/// A long function with no loops: 301 lines from `pub fn` to its closing brace.
#[cfg_attr(feature = "ad", differentiable)]
pub fn long_function(x: f64, y: f64, z: f64, p: &[f64], mode: u32) -> f64 {
    let mut acc = 0.0;
    acc += y.max(z) / (1.0 + x * x);
    let a1 = match mode % 4 {
        0 => (y - z).mul_add(1.83, x),
        1 => x.hypot(x) - 0.89 * y,
        2 => x.hypot(z) - 0.21 * y,
        _ => (x - z).mul_add(1.21, z),
    };
    let a2 = x.min(y) + x * p[2 % p.len()];
    let a3 = y.min(a2) + x * p[2 % p.len()];
    let a4 = z.hypot(x) - 1.45 * a2;
    let mut a5 = a2 * y + (1.0 + a1 * a1).sqrt();
    a5 *= a4;
    a5 += 0.79 * a1 - a2 / (2.0 + a1.cos());
    let a6 = a1.max(y) / (1.0 + a2 * a2);
    acc += a2.tanh() + 1.07 * y;
    acc += a5.max(a4) / (1.0 + x * x);
    let a7 = 1.2 * a3 - a3 / (2.0 + a5.cos());
    if y < 0.68 {
        acc += a5.atan2(1.0 + y * y) + x;
    } else if a2 > a7 {
        acc -= a2.powi(2) + 0.14 * a4;
    } else {
        acc *= 0.86;
    }
    let mut a8 = (a5 - x).mul_add(1.56, a1);
    a8 *= z;
    a8 += a4.hypot(a4) - 0.25 * a5;
    if a4 < 0.1 {
        acc += a4.max(a6) / (1.0 + a2 * a2);
    } else if a3 > a8 {
        acc -= a1.min(z) + y * p[3 % p.len()];
    } else {
        acc *= 1.16;
    }
    let a9 = a7.tanh() + 0.64 * z;
    let a10 = if a6 > a3 {
        1.91 * z - a9 / (2.0 + a6.cos())
    } else {
        a5 * a8 + (1.0 + a6 * a6).sqrt()
    };
    let a11 = if z > a6 {
        y.min(a2) + z * p[7 % p.len()]
    } else {
        z.max(a4) / (1.0 + a8 * a8)
    };
    let a12 = a8.max(a1) / (1.0 + a5 * a5);
    let a13 = a10.hypot(a7) - 1.31 * a3;
    acc += 1.71 * a9 - a3 / (2.0 + a3.cos());
    if a9 < -0.03 {
        acc += (a4 - a3).mul_add(0.75, a13);
    } else if a6 > a9 {
        acc -= a10.max(a2) / (1.0 + a5 * a5);
    } else {
        acc *= 1.03;
    }
    let a14 = a10 * a6 + a12.atan();
    let a15 = match mode % 4 {
        0 => 1.11 * a5 - a8 / (2.0 + a6.cos()),
        1 => 1.64 * a13 - a6 / (2.0 + a12.cos()),
        2 => a6.hypot(a9) - 1.63 * a14,
        _ => a11.hypot(a10) - 1.49 * a8,
    };
    let a16 = a11.atan2(1.0 + a8 * a8) + a7;
    acc += a16.cos() + 0.25 * a10;
    let a17 = a8.sin() + 1.02 * a10;
    if a16 < -0.31 {
        acc += (a16 - a7).mul_add(1.59, a12);
    } else if a9 > a13 {
        acc -= a12.max(a16) / (1.0 + a11 * a11);
    } else {
        acc *= 1.45;
    }
    let a18 = if a13 > a12 {
        (a17 - a8).mul_add(1.99, a8)
    } else {
        a8 * a15 + a13.tanh()
    };
    let mut a19 = a17.tanh() + 1.14 * a12;
    a19 *= a7;
    a19 += a18 * a17 + a8.tanh();
    let a20 = if a11 > a11 {
        a12 * a11 + a12.abs()
    } else {
        a16.atan2(1.0 + a14 * a14) + a10
    };
    acc += a19.powi(3) + 0.9 * a18;
    let a21 = a17.max(a17) / (1.0 + a9 * a9);
    let a22 = a12 * a12 + a12.cos();
    let a23 = match mode % 4 {
        0 => a16 * a21 + a19.powi(2),
        1 => (a19 - a11).mul_add(0.46, a14),
        2 => a12 * a19 + a18.cos(),
        _ => a16.exp().ln_1p() + 1.25 * a20,
    };
    let a24 = a20.exp().ln_1p() + 1.06 * a20;
    let a25 = match mode % 4 {
        0 => a21.atan2(1.0 + a16 * a16) + a20,
        1 => (a19 - a20).mul_add(0.24, a18),
        2 => a19.hypot(a14) - 1.37 * a16,
        _ => (a15 - a24).mul_add(1.35, a23),
    };
    let a26 = a16.atan2(1.0 + a21 * a21) + a17;
    let a27 = a22.min(a17) + a25 * p[2 % p.len()];
    let a28 = if a24 > a22 {
        0.71 * a22 - a19 / (2.0 + a21.cos())
    } else {
        0.97 * a16 - a21 / (2.0 + a24.cos())
    };
    let a29 = a22.min(a25) + a26 * p[1 % p.len()];
    let a30 = a19.hypot(a19) - 0.62 * a22;
    let a31 = a21.atan2(1.0 + a25 * a25) + a29;
    let a32 = a22.min(a28) + a28 * p[5 % p.len()];
    let a33 = a21.atan2(1.0 + a32 * a32) + a23;
    let a34 = a22.atan2(1.0 + a32 * a32) + a23;
    let a35 = a24.hypot(a27) - 0.96 * a24;
    acc += a28.min(a33) + a26 * p[3 % p.len()];
    let a36 = a28.max(a24) / (1.0 + a26 * a26);
    let a37 = a33.atan2(1.0 + a28 * a28) + a29;
    let a38 = a31.atan2(1.0 + a26 * a26) + a30;
    let a39 = a35.hypot(a34) - 1.88 * a30;
    let a40 = a38.min(a35) + a36 * p[6 % p.len()];
    let a41 = match mode % 4 {
        0 => a40.atan2(1.0 + a32 * a32) + a32,
        1 => a35.max(a34) / (1.0 + a29 * a29),
        2 => a30 * a39 + (1.0 + a40 * a40).sqrt(),
        _ => a29.max(a30) / (1.0 + a39 * a39),
    };
    let a42 = match mode % 4 {
        0 => a39.atan2(1.0 + a33 * a33) + a41,
        1 => a32.atan() + 0.95 * a32,
        2 => 0.56 * a35 - a38 / (2.0 + a35.cos()),
        _ => a33.atan2(1.0 + a35 * a35) + a32,
    };
    let a43 = if a32 > a38 {
        a39.atan2(1.0 + a41 * a41) + a34
    } else {
        a32 * a35 + a32.sin()
    };
    let a44 = if a32 > a36 {
        a42.atan2(1.0 + a35 * a35) + a33
    } else {
        a42.max(a43) / (1.0 + a41 * a41)
    };
    acc += a35.tanh() + 1.28 * a37;
    let a45 = a44.min(a44) + a41 * p[0 % p.len()];
    let mut a46 = a35.hypot(a34) - 0.35 * a34;
    a46 *= a39;
    a46 += (a40 - a41).mul_add(0.2, a42);
    let a47 = a42.hypot(a39) - 0.97 * a35;
    let a48 = (a46 - a44).mul_add(1.52, a37);
    if a41 < 0.62 {
        acc += a40.atan2(1.0 + a48 * a48) + a40;
    } else if a47 > a44 {
        acc -= a43.atan() + 1.83 * a38;
    } else {
        acc *= 1.27;
    }
    let mut a49 = a38.hypot(a46) - 0.73 * a39;
    a49 *= a47;
    a49 += a46.atan2(1.0 + a46 * a46) + a39;
    let a50 = a42.powi(2) + 1.42 * a48;
    let a51 = a46.atan2(1.0 + a46 * a46) + a46;
    let a52 = match mode % 4 {
        0 => a44.hypot(a41) - 0.13 * a47,
        1 => (1.0 + a41 * a41).sqrt() + 1.99 * a48,
        2 => a43.hypot(a41) - 0.27 * a49,
        _ => a45.atan2(1.0 + a42 * a42) + a49,
    };
    let a53 = match mode % 4 {
        0 => a42.atan2(1.0 + a52 * a52) + a46,
        1 => a47.powi(2) + 0.11 * a41,
        2 => a47.abs() + 0.37 * a45,
        _ => a46.min(a42) + a46 * p[5 % p.len()],
    };
    let a54 = if a43 > a45 {
        a53 * a46 + (1.0 + a46 * a46).sqrt()
    } else {
        a51.min(a43) + a47 * p[4 % p.len()]
    };
    let a55 = a44.atan2(1.0 + a43 * a43) + a53;
    let a56 = a48.hypot(a50) - 0.7 * a52;
    acc += a45.min(a55) + a51 * p[3 % p.len()];
    let a57 = a56 * a51 + a52.tanh();
    let a58 = (1.0 + a46 * a46).sqrt() + 0.42 * a54;
    acc += a51.atan2(1.0 + a51 * a51) + a58;
    let a59 = a57.min(a50) + a51 * p[6 % p.len()];
    let a60 = a58.max(a50) / (1.0 + a49 * a49);
    if a57 < -0.56 {
        acc += 1.14 * a56 - a55 / (2.0 + a51.cos());
    } else if a52 > a50 {
        acc -= a54.max(a57) / (1.0 + a50 * a50);
    } else {
        acc *= 0.87;
    }
    let mut a61 = a49.hypot(a60) - 0.83 * a55;
    a61 *= a60;
    a61 += a55.hypot(a53) - 1.53 * a54;
    if a54 < 0.15 {
        acc += 1.11 * a52 - a60 / (2.0 + a58.cos());
    } else if a53 > a51 {
        acc -= a53.atan2(1.0 + a56 * a56) + a56;
    } else {
        acc *= 0.93;
    }
    let a62 = a52 * a50 + a56.powi(2);
    let mut a63 = a51.powi(3) + 1.87 * a52;
    a63 *= a58;
    a63 += a54.powi(3) + 0.39 * a52;
    let a64 = a53.tanh() + 0.1 * a60;
    let a65 = a63 * a64 + a57.atan();
    let a66 = match mode % 4 {
        0 => a65.min(a55) + a55 * p[3 % p.len()],
        1 => a58.min(a57) + a63 * p[4 % p.len()],
        2 => a58.exp().ln_1p() + 1.69 * a59,
        _ => (1.0 + a62 * a62).sqrt() + 0.57 * a57,
    };
    let a67 = a55 * a58 + (1.0 + a62 * a62).sqrt();
    let a68 = a59.atan2(1.0 + a66 * a66) + a62;
    let a69 = a57.abs() + 1.46 * a68;
    let a70 = if a61 > a58 {
        a69.atan2(1.0 + a66 * a66) + a59
    } else {
        a62.hypot(a61) - 0.98 * a61
    };
    let a71 = a60.atan2(1.0 + a68 * a68) + a66;
    let a72 = a66.tanh() + 1.9 * a70;
    let a73 = if a61 > a64 {
        a70 * a63 + a67.sin()
    } else {
        a67.max(a68) / (1.0 + a72 * a72)
    };
    let a74 = (a64 - a67).mul_add(0.45, a65);
    let a75 = match mode % 4 {
        0 => a63.abs() + 1.48 * a67,
        1 => 0.11 * a70 - a65 / (2.0 + a64.cos()),
        2 => a64.atan2(1.0 + a68 * a68) + a69,
        _ => (a71 - a66).mul_add(0.78, a69),
    };
    let a76 = a65.min(a64) + a75 * p[5 % p.len()];
    let a77 = match mode % 4 {
        0 => a68.powi(2) + 1.5 * a70,
        1 => a75 * a71 + (1.0 + a68 * a68).sqrt(),
        2 => a71 * a65 + a72.sin(),
        _ => a68.atan2(1.0 + a76 * a76) + a66,
    };
    acc += 0.18 * a70 - a71 / (2.0 + a75.cos());
    acc += a70.atan2(1.0 + a66 * a66) + a77;
    let a78 = a69 * a67 + a73.powi(2);
    let a79 = if a71 > a73 {
        a69.atan() + 0.12 * a74
    } else {
        a76.max(a70) / (1.0 + a72 * a72)
    };
    if a73 < 0.57 {
        acc += (a76 - a71).mul_add(1.53, a74);
    } else if a71 > a74 {
        acc -= (a78 - a68).mul_add(1.15, a75);
    } else {
        acc *= 0.83;
    }
    let a80 = if a69 > a69 {
        a77.atan2(1.0 + a69 * a69) + a71
    } else {
        (1.0 + a79 * a79).sqrt() + 0.54 * a75
    };
    if a78 < 0.78 {
        acc += a80.hypot(a77) - 1.54 * a79;
    } else if a73 > a73 {
        acc -= a78.atan2(1.0 + a73 * a73) + a74;
    } else {
        acc *= 0.76;
    }
    if a72 < -0.63 {
        acc += a71.hypot(a73) - 0.46 * a78;
    } else if a70 > a75 {
        acc -= a72.atan2(1.0 + a77 * a77) + a77;
    } else {
        acc *= 1.31;
    }
    if a69 < -0.8 {
        acc += a72.atan() + 0.18 * a76;
    } else if a72 > a70 {
        acc -= a72 * a78 + a78.cos();
    } else {
        acc *= 0.87;
    }
    let a81 = a78.cos() + 1.9 * a73;
    let mut a82 = 0.75 * a73 - a70 / (2.0 + a75.cos());
    a82 *= a70;
    a82 += a74.hypot(a70) - 1.49 * a79;
    let a83 = a76 * a77 + a81.atan();
    let a84 = a72.hypot(a79) - 1.02 * a80;
    let a85 = if a74 > a79 {
        a83.max(a81) / (1.0 + a74 * a74)
    } else {
        a84.min(a77) + a79 * p[4 % p.len()]
    };
    acc + a82 + a85
}
