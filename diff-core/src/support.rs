//! More helpers for generated code: typing closures, accumulating into parts of
//! tangents, capturing lifetimes, and the dense Jacobian.
use crate::{Differentiable, VectorSpace};

/// Adds `v` into a part of a tangent (`whole.field`, `whole[i]`).
#[inline(always)]
pub fn accumulate_into<T: VectorSpace>(place: &mut T, v: T) {
    let old = core::mem::replace(place, T::zero_vector());
    *place = old.add(v);
}

/// Lets a returned closure capture a lifetime in any edition (`impl Fn() + Captures<'a>`).
pub trait Captures<'a> {}
impl<T: ?Sized> Captures<'_> for T {}

/// Gives a pullback closure written in place its seed type: the tangent of the value.
#[inline(always)]
pub fn with_pullback<V, F, S>(value_and_pullback: (V, F)) -> (V, F)
where
    V: Differentiable,
    F: FnOnce(V::TangentVector) -> S,
{
    value_and_pullback
}

/// The input slots of a differential of inputs whose zero tangents are `Self`
/// (a tuple of references to them): a tuple of `Option`s of those tangents.
pub trait SlotsOf {
    /// The tuple of optional tangents.
    type Slots;
}

macro_rules! slots_of {
    ($($t:ident),+) => {
        impl<'a, $($t: 'a),+> SlotsOf for ($(&'a $t,)+) {
            type Slots = ($(Option<$t>,)+);
        }
    };
}
slots_of!(A);
slots_of!(A, B);
slots_of!(A, B, C);
slots_of!(A, B, C, D);
slots_of!(A, B, C, D, E);
slots_of!(A, B, C, D, E, G);

/// Gives a differential closure written in place its input type, from zeros shaped like
/// the inputs' tangents.
#[inline(always)]
pub fn with_differential<Z, V, F>(_zeros: Z, value_and_differential: (V, F)) -> (V, F)
where
    Z: SlotsOf,
    V: Differentiable,
    F: FnOnce(Z::Slots) -> Option<V::TangentVector>,
{
    value_and_differential
}

/// The capacity to reserve for a loop's tape: the trip count when the iterator knows it
/// exactly, else nothing (the tape grows by doubling).
#[inline(always)]
pub fn tape_capacity<I: Iterator>(iter: &I) -> usize {
    match iter.size_hint() {
        (lo, Some(hi)) if lo == hi => lo,
        _ => 0,
    }
}

/// A loop's tape: one linear-map struct per iteration.
///
/// The loop is emitted as an inner loop that runs while the tape has room and an outer
/// one that makes room, so that the inner loop calls nothing that returns: a call that
/// may grow the buffer would make the loop keep its floats in memory across it.
pub struct Tape<T>(Vec<T>);

impl<T> Tape<T> {
    /// A tape with room for `n` iterations.
    #[inline(always)]
    pub fn with_capacity(n: usize) -> Self {
        Tape(Vec::with_capacity(n))
    }

    /// Whether one more iteration fits without growing.
    #[inline(always)]
    pub fn has_room(&self) -> bool {
        self.0.len() < self.0.capacity()
    }

    /// Grows the tape if it is full (by doubling, as `Vec::push` would).
    #[inline(always)]
    pub fn make_room(&mut self) {
        if !self.has_room() {
            self.grow();
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.0.reserve(self.0.len().max(4));
    }

    /// Appends an iteration's struct, in the room [`has_room`](Self::has_room) saw.
    ///
    /// # Panics
    /// If the tape is full (the loop checks [`has_room`](Self::has_room) first).
    #[inline(always)]
    pub fn push_within(&mut self, x: T) {
        assert!(self.has_room(), "tape full");
        self.0.push(x);
    }
}

impl<T> IntoIterator for Tape<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;
    #[inline(always)]
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

/// The tapes of every run of a loop nested in another, one after another: what a
/// nested loop pushes its iterations on, so that a run does not allocate a tape of its
/// own. Made of chunks of at most about 32 KiB, never moved, so that growing copies
/// nothing and the memory comes from the allocator's reusable small blocks.
///
/// Used like a [`Tape`] (an inner loop while [`has_room`](Self::has_room)); the
/// enclosing iteration keeps the run's length.
pub struct Stack<T> {
    full: Vec<Vec<T>>,
    /// The number of iterations in `full`.
    before: usize,
    current: Vec<T>,
}

impl<T> Default for Stack<T> {
    fn default() -> Self {
        Stack::new()
    }
}

impl<T> Stack<T> {
    /// An empty stack; it allocates at the first push.
    #[inline(always)]
    pub fn new() -> Self {
        Stack {
            full: Vec::new(),
            before: 0,
            current: Vec::new(),
        }
    }

    /// The number of iterations on the stack.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.before + self.current.len()
    }

    /// Whether the stack holds no iteration.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether one more iteration fits without a new chunk.
    #[inline(always)]
    pub fn has_room(&self) -> bool {
        self.current.len() < self.current.capacity()
    }

    /// Starts a new chunk if the current one is full.
    #[inline(always)]
    pub fn make_room(&mut self) {
        if !self.has_room() {
            self.grow();
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let size = core::mem::size_of::<T>().max(1);
        let capacity = (2 * self.current.capacity()).clamp(8, (32 * 1024 / size).max(8));
        let full = core::mem::replace(&mut self.current, Vec::with_capacity(capacity));
        if !full.is_empty() {
            self.before += full.len();
            self.full.push(full);
        }
    }

    /// Appends an iteration's struct, in the room [`has_room`](Self::has_room) saw.
    ///
    /// # Panics
    /// If the current chunk is full (the loop checks [`has_room`](Self::has_room) first).
    #[inline(always)]
    pub fn push_within(&mut self, x: T) {
        assert!(self.has_room(), "tape full");
        self.current.push(x);
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<T> {
        if self.current.is_empty() {
            self.current = self.full.pop()?;
            self.before -= self.current.len();
        }
        self.current.pop()
    }

    /// Takes the last `n` iterations off the stack, last first, each with its position
    /// in its run (`n - 1` down to `0`): a nested loop's last run, walked backwards by
    /// the pullback.
    #[inline(always)]
    pub fn pop_run(&mut self, n: usize) -> PopRun<'_, T> {
        PopRun {
            stack: self,
            left: n,
        }
    }

    /// The iterations from the first on, for [`StackFront::take_first`]: a nested
    /// loop's runs, walked forwards by the differential.
    pub fn into_front(mut self) -> StackFront<T> {
        self.full.push(self.current);
        StackFront(self.full.into_iter().flatten())
    }
}

/// The last run of a nested loop, taken off its [`Stack`] by [`Stack::pop_run`].
pub struct PopRun<'a, T> {
    stack: &'a mut Stack<T>,
    left: usize,
}

impl<T> Iterator for PopRun<'_, T> {
    type Item = (usize, T);
    #[inline(always)]
    fn next(&mut self) -> Option<(usize, T)> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let x = self
            .stack
            .pop()
            .expect("a run of a nested loop is on its stack");
        Some((self.left, x))
    }
}

/// A [`Stack`] read from the front (see [`Stack::into_front`]).
pub struct StackFront<T>(core::iter::Flatten<std::vec::IntoIter<Vec<T>>>);

impl<T> StackFront<T> {
    /// The next `n` iterations: the next run of the loop.
    #[inline(always)]
    pub fn take_first(
        &mut self,
        n: usize,
    ) -> core::iter::Take<&mut core::iter::Flatten<std::vec::IntoIter<Vec<T>>>> {
        self.0.by_ref().take(n)
    }
}

#[cfg(test)]
mod stack_tests {
    use super::Stack;

    /// Runs of the given lengths pushed one after another, as a nested loop pushes them:
    /// iteration `k` of run `r` is `(r, k)`.
    fn pushed(runs: &[usize]) -> Stack<(usize, usize)> {
        let mut stack = Stack::new();
        for (r, n) in runs.iter().enumerate() {
            let start = stack.len();
            let mut k = 0;
            while k < *n {
                stack.make_room();
                while stack.has_room() && k < *n {
                    stack.push_within((r, k));
                    k += 1;
                }
            }
            assert_eq!(stack.len() - start, *n);
        }
        stack
    }

    /// Runs come back whole across chunk boundaries: the last run first from the back
    /// (each backwards, with its positions), the first run first from the front.
    #[test]
    fn runs_come_back_in_order() {
        let runs: Vec<usize> = (0..200).map(|i| (i * 7) % 41).collect();
        let mut front = pushed(&runs).into_front();
        for (r, n) in runs.iter().enumerate() {
            let run: Vec<_> = front.take_first(*n).collect();
            assert_eq!(run, (0..*n).map(|k| (r, k)).collect::<Vec<_>>());
        }
        let mut back = pushed(&runs);
        for (r, n) in runs.iter().enumerate().rev() {
            let run: Vec<_> = back.pop_run(*n).collect();
            assert_eq!(run, (0..*n).rev().map(|k| (k, (r, k))).collect::<Vec<_>>());
        }
        assert!(back.is_empty());
    }
}

/// The `k`-th item of a range starting at `start` (`start + k`), recomputed in a linear
/// map instead of saved.
#[inline(always)]
pub fn nth_from<I: RangeItem>(start: I, k: usize) -> I {
    start.nth_from(k)
}

/// Integers a loop variable over a range can be.
pub trait RangeItem: Copy {
    /// `self + k`.
    fn nth_from(self, k: usize) -> Self;
}

macro_rules! range_items {
    ($($t:ty),*) => {$(
        impl RangeItem for $t {
            #[inline(always)]
            fn nth_from(self, k: usize) -> Self {
                // The range produced this item, so the sum fits.
                self.wrapping_add(k as $t)
            }
        }
    )*};
}
range_items!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// Collections whose elements are scalars: the neutral elements of `sum()` and
/// `product()` over them.
pub trait Elements {
    /// The element type.
    type Element: num_traits::Zero + num_traits::One;
}
impl<T: num_traits::Zero + num_traits::One> Elements for [T] {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One> Elements for Vec<T> {
    type Element = T;
}
impl<T: num_traits::Zero + num_traits::One, const N: usize> Elements for [T; N] {
    type Element = T;
}
impl<C: Elements + ?Sized> Elements for &C {
    type Element = C::Element;
}
impl<C: Elements + ?Sized> Elements for &mut C {
    type Element = C::Element;
}

/// Zero of a collection's element type (the start of a `sum()`).
#[inline(always)]
pub fn zero_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::Zero::zero()
}

/// One of a collection's element type (the start of a `product()`).
#[inline(always)]
pub fn one_element<C: Elements + ?Sized>(_: &C) -> C::Element {
    num_traits::One::one()
}

/// An array of defaults shaped like `xs`: where `xs.map(f)` writes `f`'s results, one
/// element at a time (`U` is inferred from them).
#[inline(always)]
pub fn array_like<T, U: Default, const N: usize>(_: &[T; N]) -> [U; N] {
    core::array::from_fn(|_| U::default())
}

/// Checks a registered pullback's type: it takes the result's tangent `S` and returns
/// the tangents `G` of the differentiated parameters (a tuple for several).
#[inline(always)]
pub fn registered_pullback<S, G, F: FnOnce(S) -> G>(pullback: F) -> F {
    pullback
}

/// Checks a registered differential's type: it takes the tangents `D` of the
/// differentiated parameters (a tuple for several) and returns the result's tangent `T`.
#[inline(always)]
pub fn registered_differential<D, T, F: FnOnce(D) -> T>(differential: F) -> F {
    differential
}

/// The inner product of two optional tangents (`None` is zero).
#[inline(always)]
pub fn dot_opt<T: crate::InnerProduct>(a: &Option<T>, b: &Option<T>) -> f64 {
    match (a, b) {
        (Some(a), Some(b)) => a.dot(b),
        _ => 0.0,
    }
}

/// A scalar from an `f64` (an inner product, for a derived derivative).
#[inline(always)]
pub fn from_f64<T: num_traits::NumCast>(x: f64) -> T {
    match T::from(x) {
        Some(t) => t,
        None => panic!("diff: {x} is not representable in the result's scalar type"),
    }
}

// ---- `hessian!`: forward over reverse, with dual numbers ----
