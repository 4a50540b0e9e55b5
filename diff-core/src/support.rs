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
/// own. Made of chunks (about 32 KiB, more for a longer run) that are never moved, so
/// that growing copies at most the open run and the memory comes from the allocator's
/// reusable blocks; a run lies within one chunk, so the pullback walks it as a slice.
///
/// A run is [`begin_run`](Self::begin_run), iterations pushed like a [`Tape`]'s (an inner
/// loop while [`has_room`](Self::has_room)), then [`end_run`](Self::end_run), whose
/// length the enclosing iteration keeps.
pub struct Stack<T> {
    full: Vec<Vec<T>>,
    current: Vec<T>,
    /// Where the open run starts in `current`.
    run: usize,
}

impl<T> Default for Stack<T> {
    fn default() -> Self {
        Stack::new()
    }
}

impl<T> Stack<T> {
    /// An empty stack; it allocates at the first run.
    #[inline(always)]
    pub fn new() -> Self {
        Stack {
            full: Vec::new(),
            current: Vec::new(),
            run: 0,
        }
    }

    /// Whether the stack holds no iteration.
    pub fn is_empty(&self) -> bool {
        self.current.is_empty() && self.full.iter().all(Vec::is_empty)
    }

    /// Opens a run of about `expected` iterations (a hint; see [`tape_capacity`]).
    #[inline(always)]
    pub fn begin_run(&mut self, expected: usize) {
        if self.current.capacity() - self.current.len() < expected {
            self.new_chunk(expected);
        }
        self.run = self.current.len();
    }

    /// Closes the open run: its number of iterations.
    #[inline(always)]
    pub fn end_run(&mut self) -> usize {
        self.current.len() - self.run
    }

    /// Whether one more iteration fits in the current chunk.
    #[inline(always)]
    pub fn has_room(&self) -> bool {
        self.current.len() < self.current.capacity()
    }

    /// Starts a new chunk, with the open run moved into it, if the current one is full.
    #[inline(always)]
    pub fn make_room(&mut self) {
        if !self.has_room() {
            self.new_chunk(0);
        }
    }

    #[cold]
    #[inline(never)]
    fn new_chunk(&mut self, expected: usize) {
        let open = self.current.len() - self.run;
        let size = core::mem::size_of::<T>().max(1);
        let capacity = (2 * self.current.capacity())
            .clamp(8, (32 * 1024 / size).max(8))
            .max(2 * open)
            .max(open + expected);
        let mut next = Vec::with_capacity(capacity);
        next.extend(self.current.drain(self.run..));
        let full = core::mem::replace(&mut self.current, next);
        if !full.is_empty() {
            self.full.push(full);
        }
        self.run = 0;
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

    /// Takes the last run, of `n` iterations, off the stack, in the order they were
    /// pushed: a nested loop's last run, walked backwards by the pullback.
    ///
    /// # Panics
    /// If the stack's last run is shorter than `n`.
    #[inline(always)]
    pub fn pop_run(&mut self, n: usize) -> std::vec::Drain<'_, T> {
        if self.current.len() < n {
            // The current chunk is used up (a run never spans two).
            self.current = self
                .full
                .pop()
                .expect("a nested loop's run is on its stack");
        }
        let start = self.current.len() - n;
        self.current.drain(start..)
    }

    /// The iterations from the first on, for [`StackFront::take_first`]: a nested
    /// loop's runs, walked forwards by the differential.
    pub fn into_front(mut self) -> StackFront<T> {
        self.full.push(self.current);
        StackFront(self.full.into_iter().flatten())
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
            // A hint below, at or above the run's length.
            stack.begin_run(r % 3 * n / 2);
            let mut k = 0;
            while k < *n {
                stack.make_room();
                while stack.has_room() && k < *n {
                    stack.push_within((r, k));
                    k += 1;
                }
            }
            assert_eq!(stack.end_run(), *n);
        }
        stack
    }

    /// Runs come back whole across chunk boundaries: the last run first from the back
    /// (each backwards, with its positions), the first run first from the front.
    #[test]
    fn runs_come_back_in_order() {
        let runs: Vec<usize> = (0..300).map(|i| (i * 7) % 41 + i / 100 * 3000).collect();
        let mut front = pushed(&runs).into_front();
        for (r, n) in runs.iter().enumerate() {
            let run: Vec<_> = front.take_first(*n).collect();
            assert_eq!(run, (0..*n).map(|k| (r, k)).collect::<Vec<_>>());
        }
        let mut back = pushed(&runs);
        for (r, n) in runs.iter().enumerate().rev() {
            let run: Vec<_> = back.pop_run(*n).enumerate().rev().collect();
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

/// A variable a closure given to an operator captures, read by the inlined body:
/// `(&Captured(&x)).capture()` is a copy of `x` when its type is `Clone` (so the
/// operator does not consume it) and a reference to it otherwise (a model that is not
/// `Clone`, called as `m.value(p)`), chosen by method lookup.
pub struct Captured<'a, T: ?Sized>(pub &'a T);

/// [`Captured`] of a `Clone` type: a copy.
pub trait CaptureByClone<T> {
    /// A copy of the captured value.
    fn capture(&self) -> T;
}
impl<T: Clone> CaptureByClone<T> for Captured<'_, T> {
    #[inline(always)]
    fn capture(&self) -> T {
        self.0.clone()
    }
}

/// [`Captured`] of any other type: a reference.
pub trait CaptureByRef<'a, T: ?Sized> {
    /// The captured value, borrowed.
    fn capture(&self) -> &'a T;
}
impl<'a, T: ?Sized> CaptureByRef<'a, T> for &Captured<'a, T> {
    #[inline(always)]
    fn capture(&self) -> &'a T {
        self.0
    }
}
